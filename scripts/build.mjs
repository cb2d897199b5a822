// `npm run build`: type-check and build the web app into pwa/dist.
import { buildPwa, ensureDeps } from "./lib.mjs";

ensureDeps();
process.exit(buildPwa());
