// `npm run build`: type-check and build the web app into pwa/dist, and bundle the backend (.build/, which
// `npm start` would otherwise do at its first start).
import { buildPwa, ensureDeps } from "./lib.mjs";
import { panelEntry, PANEL_ENTRY } from "./launcher.mjs";

ensureDeps();
const code = buildPwa();
if (code === 0 && panelEntry() === PANEL_ENTRY) process.exit(1);
process.exit(code);
