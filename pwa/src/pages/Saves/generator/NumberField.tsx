import { useEffect, useState } from "react";
import { TextField } from "@mui/material";

/**
 * A number input that keeps what is typed until it is a number ("0." or "" while typing), and hands over
 * numbers only. `emptyAs`: the value an empty field stands for (null: "random" for a seed).
 */
export function NumberField(props: {
  label: string;
  value: number | null | undefined;
  onChange: (v: number | null) => void;
  step?: number;
  min?: number;
  max?: number;
  integer?: boolean;
  helperText?: string;
  disabled?: boolean;
  width?: number | string;
}) {
  const [text, setText] = useState(
    props.value === null || props.value === undefined ? "" : String(props.value),
  );
  useEffect(() => {
    const shown = text.trim() === "" ? null : Number(text);
    if (shown !== (props.value ?? null)) {
      setText(props.value === null || props.value === undefined ? "" : String(props.value));
    }
    // only when the value changes from outside (a preset, a pasted string), not on every keystroke
  }, [props.value]);
  const n = text.trim() === "" ? null : Number(text);
  const bad = n !== null && (!Number.isFinite(n) || (props.integer && !Number.isInteger(n)) ||
    (props.min !== undefined && n < props.min) || (props.max !== undefined && n > props.max));
  return (
    <TextField
      size="small"
      label={props.label}
      type="number"
      value={text}
      disabled={props.disabled}
      error={bad}
      helperText={bad
        ? `${props.integer ? "A whole number" : "A number"}${
          props.min !== undefined ? ` from ${props.min}` : ""
        }${props.max !== undefined ? ` to ${props.max}` : ""}`
        : props.helperText}
      onChange={(e) => {
        setText(e.target.value);
        const v = e.target.value.trim() === "" ? null : Number(e.target.value);
        if (v === null || (Number.isFinite(v) && (!props.integer || Number.isInteger(v)))) props.onChange(v);
      }}
      slotProps={{
        htmlInput: {
          step: props.step ?? "any",
          min: props.min,
          max: props.max,
          inputMode: props.integer ? "numeric" : "decimal",
        },
      }}
      sx={{ width: props.width ?? 140 }}
    />
  );
}
