#!/usr/bin/env bash
# Installs Debian's Chromium (browser tests) and Caddy (tests/e2e/proxy.spec.ts runs deploy/Caddyfile) when
# missing. Never a downloaded browser.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/caddy ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium or Caddy is missing. Install them with: sudo apt-get install chromium caddy" >&2
  exit 1
fi
echo "Installing Chromium and Caddy (apt-get)..."
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver caddy
