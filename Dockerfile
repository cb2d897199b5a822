# Factorio Panel with the game in the same container: the panel installs, runs and updates the Factorio
# headless server itself, and everything it keeps (its database, the game, saves, mods) is in /data.
#   docker compose up -d        (see compose.yaml), then open http://HOST:8080

# The build: every dependency, to type-check and build the web app (pwa/dist). Only its output is kept.
FROM node:20-bookworm-slim AS build
WORKDIR /opt/factorio-panel
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/build.mjs

# What runs: the production dependencies (Deno among them), the backend's sources, the built web app.
FROM node:20-bookworm-slim

# procps: `ps`, which the panel uses to tell whether a pid is still the game. xz-utils: the game's
# downloads are .tar.xz. tini: PID 1 that passes the stop signal to the panel and reaps the game.
RUN apt-get update \
 && apt-get install -y --no-install-recommends procps xz-utils ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/factorio-panel
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY deno.json ./
COPY scripts ./scripts
COPY shared ./shared
COPY backend ./backend
COPY --from=build /opt/factorio-panel/pwa/dist ./pwa/dist
# Bundles the backend now, as the launcher would at the first start: the panel's user cannot write here.
RUN node scripts/start.mjs --help > /dev/null && rm -rf /root/.cache

# The panel runs as the base image's unprivileged user (node, uid 1000), which owns /data.
RUN mkdir -p /data/factorio && chown -R node:node /data
USER node
ENV PANEL_DATA_DIR=/data \
    PANEL_FACTORIO_DIR=/data/factorio \
    PANEL_PORT=8080 \
    PANEL_STOP_GAME_ON_EXIT=true \
    PANEL_FACTORIO_VERSION=stable
VOLUME /data
EXPOSE 8080/tcp 34197/udp

# `docker stop` sends SIGTERM to tini, which passes it to the panel: it saves and stops the game, then exits.
# The launcher, as `npm start` runs it (npm itself would not pass the signal on).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "scripts/start.mjs"]
