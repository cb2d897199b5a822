// `npm run build`: type-check and build the web app into pwa/dist (`npm start` does it when its sources changed).
import { buildPwa, ensureDeps } from "./lib.mjs";

ensureDeps();
process.exit(buildPwa());
