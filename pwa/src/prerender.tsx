// Build-time only (scripts/prerender.mjs, `vite build --ssr`): the sign-in card rendered to HTML with the
// styles emotion made for it, to put into login.html.

import { renderToString } from "react-dom/server";
import createCache from "@emotion/cache";
import { CacheProvider } from "@emotion/react";
import { CssBaseline, ThemeProvider } from "@mui/material";
import { theme } from "./theme.ts";
import { LoginCard } from "./pages/Login/LoginCard.tsx";

export function renderLoginShell(): { html: string; css: string } {
  const cache = createCache({ key: "shell" });
  const html = renderToString(
    <CacheProvider value={cache}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <LoginCard shell username={{ name: "username", value: "" }} password={{ name: "password", value: "" }} />
      </ThemeProvider>
    </CacheProvider>,
  );
  // On the server emotion keeps each inserted rule's text in cache.inserted.
  const css = Object.values(cache.inserted).filter((v): v is string => typeof v === "string").join("");
  return { html, css };
}
