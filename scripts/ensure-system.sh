#!/usr/bin/env bash
# Installs the Debian packages the tests need beside Chromium (scripts/ensure-chromium.sh): pebble (an ACME
# CA and its mock DNS, for the HTTPS tests) and caddy (the reverse proxy of the Deployment recipe). Quick
# and silent when they are there. libnss3-tools gives certutil, with which the HTTPS e2e makes Chromium trust
# pebble's root; as root only (CI), else it says what to install.
set -euo pipefail
missing=()
command -v pebble >/dev/null 2>&1 && command -v pebble-challtestsrv >/dev/null 2>&1 || missing+=(pebble)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v certutil >/dev/null 2>&1 || missing+=(libnss3-tools)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing for the tests: ${missing[*]}. Install with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]} (apt-get)..."
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
