import { Box, MenuItem, Switch, TextField } from "@mui/material";
import type { ModColor, ModSettingDefinition, ModSettingKind } from "../../../../shared/modsettings.ts";
import { isColor } from "../../../../shared/modsettings.ts";

/**
 * What the user typed for a number is kept as text until saved ("-" or "1." are fine while typing);
 * `parseDraft` turns it into the value to send.
 */
export function parseDraft(kind: ModSettingKind, draft: unknown): unknown {
  if ((kind === "int" || kind === "double") && typeof draft === "string") {
    return draft.trim() === "" ? NaN : Number(draft);
  }
  return draft;
}

const hex = (n: number) => Math.round(Math.min(255, Math.max(0, n))).toString(16).padStart(2, "0");

/** Factorio colours are 0..1, or 0..255 when any channel is above 1. */
function colorScale(c: ModColor): number {
  return c.r > 1 || c.g > 1 || c.b > 1 || (c.a ?? 0) > 1 ? 1 : 255;
}

function toHex(c: ModColor): string {
  const s = colorScale(c);
  return `#${hex(c.r * s)}${hex(c.g * s)}${hex(c.b * s)}`;
}

function fromHex(text: string, old: ModColor): ModColor {
  const s = colorScale(old);
  const ch = (i: number) => +(parseInt(text.slice(i, i + 2), 16) / s).toFixed(4);
  return { ...old, r: ch(1), g: ch(3), b: ch(5) };
}

export interface SettingInputProps {
  name: string;
  kind: ModSettingKind;
  def?: ModSettingDefinition;
  value: unknown;
  error: string | null;
  disabled: boolean;
  onChange: (v: unknown) => void;
}

/** One setting's input, by its kind: a switch, a number or text field, a select of the allowed values, a colour. */
export function SettingInput({ name, kind, def, value, error, disabled, onChange }: SettingInputProps) {
  const label = `Value of ${name}`;
  if (kind === "bool") {
    return (
      <Switch
        checked={value === true}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        slotProps={{ input: { "aria-label": label } }}
      />
    );
  }
  if (def?.allowed_values) {
    const options = def.allowed_values;
    const current = options.find((o) => String(o) === String(value));
    return (
      <TextField
        select
        size="small"
        value={current === undefined ? "" : String(current)}
        disabled={disabled}
        error={error !== null}
        helperText={error}
        onChange={(e) => onChange(options.find((o) => String(o) === e.target.value))}
        slotProps={{ htmlInput: { "aria-label": label } }}
        sx={{ minWidth: 160 }}
      >
        {options.map((o) => <MenuItem key={String(o)} value={String(o)}>{String(o)}</MenuItem>)}
      </TextField>
    );
  }
  if (kind === "color") {
    const c: ModColor = isColor(value) ? value : { r: 0, g: 0, b: 0, a: 1 };
    return (
      <Box sx={{ display: "flex", gap: 1, alignItems: "center" }}>
        <Box
          component="input"
          type="color"
          aria-label={label}
          value={toHex(c)}
          disabled={disabled}
          onChange={(e: React.ChangeEvent<HTMLInputElement>) => onChange(fromHex(e.target.value, c))}
          sx={{
            width: 56,
            height: 44,
            p: 0.5,
            border: 1,
            borderColor: "divider",
            borderRadius: 1,
            bgcolor: "transparent",
            cursor: "pointer",
          }}
        />
        <TextField
          size="small"
          label="Alpha"
          type="number"
          value={c.a ?? ""}
          disabled={disabled}
          onChange={(e) => onChange({ ...c, a: e.target.value === "" ? undefined : Number(e.target.value) })}
          slotProps={{ htmlInput: { "aria-label": `Alpha of ${name}`, step: "any" } }}
          sx={{ width: 96 }}
        />
      </Box>
    );
  }
  const numeric = kind === "int" || kind === "double";
  const hint = numeric && (def?.minimum !== undefined || def?.maximum !== undefined)
    ? `${def?.minimum ?? "…"} to ${def?.maximum ?? "…"}`
    : undefined;
  return (
    <TextField
      size="small"
      type={numeric ? "number" : "text"}
      value={value === undefined || value === null ? "" : String(value)}
      disabled={disabled}
      error={error !== null}
      helperText={error ?? hint}
      onChange={(e) => onChange(e.target.value)}
      slotProps={{
        htmlInput: {
          "aria-label": label,
          inputMode: numeric ? (kind === "int" ? "numeric" : "decimal") : undefined,
          step: kind === "int" ? 1 : "any",
        },
      }}
      sx={{ minWidth: { xs: "100%", sm: 220 } }}
    />
  );
}
