#!/usr/bin/env bash
# System packages the test suite uses beyond Python: Debian's Chromium and its driver for
# the browser tests, GNU gettext for the translation catalogues (makemessages reads the
# sources with xgettext; compilemessages writes the .mo files with msgfmt). Installs only
# what is missing; needs root (CI runs as root).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
command -v xgettext >/dev/null 2>&1 || need+=(gettext)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing system packages: ${need[*]} - run this script as root (apt-get install)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
