#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing. Never a downloaded browser.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing. Install it with: sudo apt-get install chromium" >&2
  exit 1
fi
echo "Installing Chromium (apt-get)..."
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
