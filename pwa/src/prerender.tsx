// Build-time only (scripts/prerender.mjs, `vite build --ssr`): the sign-in card rendered to HTML with the
// styles emotion made for it, to put into login.html; and the same fields in every state the small
// sign-in script (pages/Login/shell.ts) switches between, so it can give the pre-rendered copy exactly the
// classes MUI would (focused, label raised, the two "required" errors, the busy button, a red flash).

import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import createCache, { type EmotionCache } from "@emotion/cache";
import { CacheProvider } from "@emotion/react";
import { Alert, Button, CssBaseline, TextField, ThemeProvider } from "@mui/material";
import { theme } from "./theme.ts";
import { LoginCard } from "./pages/Login/LoginCard.tsx";
import { PasskeyButton } from "./pages/Login/SecondStep.tsx";
import { Flash } from "./components/Flash.tsx";
import { MSG } from "../../shared/messages.ts";
import { SHELL_STATES, type ShellFieldState } from "./pages/Login/shellStates.ts";

function render(cache: EmotionCache, node: ReactNode): string {
  return renderToString(
    <CacheProvider value={cache}>
      <ThemeProvider theme={theme}>{node}</ThemeProvider>
    </CacheProvider>,
  );
}

const FIELDS = {
  username: { label: "Username", autoComplete: "username", error: MSG.usernameRequired },
  password: {
    label: "Password",
    autoComplete: "current-password",
    type: "password",
    error: MSG.passwordRequired,
  },
} as const;

function field(name: keyof typeof FIELDS, state: ShellFieldState) {
  const f = FIELDS[name];
  const error = state.endsWith("-error");
  const base = state.replace("-error", "");
  return (
    <TextField
      label={f.label}
      name={name}
      type={"type" in f ? f.type : undefined}
      autoComplete={f.autoComplete}
      // "filled": the label sits on the border as it does over a value.
      value={base === "idle" ? "" : "x"}
      focused={base === "focused" ? true : undefined}
      error={error}
      helperText={error ? f.error : undefined}
      onChange={() => {}}
    />
  );
}

export function renderLoginShell(): { html: string; css: string; templates: string } {
  const cache = createCache({ key: "shell" });
  // Static markup: a click on its passkey button is handed to the app (pages/Login/shell.ts), which signs in.
  const html = render(
    cache,
    <>
      <CssBaseline />
      <LoginCard
        shell
        username={{ name: "username", value: "" }}
        password={{ name: "password", value: "" }}
        extra={<PasskeyButton label="Use a passkey" onSignedIn={() => {}} />}
      />
    </>,
  );
  // Rendered into the same cache, so their styles are in `css` too; the script copies classes from them.
  const parts: string[] = [];
  for (const name of ["username", "password"] as const) {
    for (const state of SHELL_STATES) {
      parts.push(
        `<div data-field="${name}" data-state="${state}">${render(cache, field(name, state))}</div>`,
      );
    }
  }
  parts.push(
    `<div data-state="busy">${
      render(cache, <Button type="button" color="primary" size="large" disabled>Sign In</Button>)
    }</div>`,
  );
  parts.push(
    `<div data-state="flash">${
      render(
        cache,
        <Alert variant="filled" severity="error" role="none" data-testid="flash" sx={{ cursor: "pointer" }}>
          -
        </Alert>,
      )
    }</div>`,
  );
  const flashRegion = render(cache, <Flash />);
  // On the server emotion keeps each inserted rule's text in cache.inserted, and also writes <style> tags
  // into the markup beside the elements. Those move to the head too: in the markup they would sit between
  // the elements the script pairs up, and inside the <template> they would apply to nothing.
  const rules = new Set(Object.values(cache.inserted).filter((v): v is string => typeof v === "string"));
  const lift = (markup: string) =>
    markup.replace(/<style data-emotion="[^"]*">([^<]*)<\/style>/g, (_m, rule: string) => {
      rules.add(rule);
      return "";
    });
  const out = { html: lift(html + flashRegion), templates: lift(parts.join("")) };
  return { ...out, css: [...rules].join("") };
}
