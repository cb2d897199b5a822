import { type ChangeEvent, useState } from "react";
import type { FieldErrors } from "../../../shared/validation.ts";

/**
 * Text-field state for a form checked by one of the shared validation rules: `field(key)` gives a MUI
 * TextField its value, change handler and error text; `check()` runs the rule and shows what it found.
 */
export function useForm<K extends string>(
  initial: Record<K, string>,
  validate: (v: Record<K, string>) => FieldErrors<K>,
  initialErrors: FieldErrors<K> = {},
) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors<K>>(initialErrors);
  return {
    values,
    field: (key: K) => ({
      name: key,
      value: values[key],
      onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
        setValues((v) => ({ ...v, [key]: e.target.value })),
      error: !!errors[key],
      helperText: errors[key],
    }),
    /** True when the values pass; otherwise the fields show their messages. */
    check: (): boolean => {
      const found = validate(values);
      setErrors(found);
      return Object.keys(found).length === 0;
    },
    reset: () => {
      setValues(initial);
      setErrors({});
    },
  };
}
