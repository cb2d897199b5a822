// The start form's last values (IP, port, save), kept on this device: after a stop, and after a start
// that failed, the form offers what was asked last instead of the defaults.

import { DEFAULT_BIND_IP, DEFAULT_GAME_PORT, LOAD_LATEST } from "../../../../shared/api.ts";

const KEY = "panel.startForm";

export interface StartValues {
  bindip: string;
  port: string;
  savefile: string;
}

export const START_DEFAULTS: StartValues = { bindip: DEFAULT_BIND_IP, port: String(DEFAULT_GAME_PORT), savefile: LOAD_LATEST };

export function lastStart(): StartValues {
  try {
    const raw = localStorage.getItem(KEY);
    const v = raw ? JSON.parse(raw) as Partial<StartValues> : null;
    if (!v) return START_DEFAULTS;
    return {
      bindip: typeof v.bindip === "string" ? v.bindip : START_DEFAULTS.bindip,
      port: typeof v.port === "string" ? v.port : START_DEFAULTS.port,
      savefile: typeof v.savefile === "string" && v.savefile !== "" ? v.savefile : START_DEFAULTS.savefile,
    };
  } catch {
    return START_DEFAULTS;
  }
}

export function rememberStart(v: StartValues): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(v));
  } catch {
    // storage disabled: the form starts from the defaults next time
  }
}
