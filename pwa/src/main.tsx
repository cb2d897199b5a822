import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "@fontsource/titillium-web/latin-400.css";
import "@fontsource/titillium-web/latin-600.css";
import "@fontsource/titillium-web/latin-700.css";
import { App } from "./App.tsx";
import { registerServiceWorker } from "./state/update.ts";

registerServiceWorker();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
