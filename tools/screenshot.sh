#!/bin/sh
# Renders an HTML report (fabricsim compare --html) to a PNG with Debian's headless chromium
# (tools/install-deps.sh installs it). The page needs no network: everything is inlined.
#
#   tools/screenshot.sh report.html report.png [WIDTHxHEIGHT]     (default 1100x2600)
set -eu
if [ $# -lt 2 ]; then echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT]" >&2; exit 2; fi
html=$(realpath "$1")
out=$(realpath -m "$2")
size=${3:-1100x2600}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "$0: chromium is not installed (apt-get install chromium)" >&2; exit 77; fi
# --no-sandbox: CI containers run as root, where chromium's sandbox cannot start.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
  --window-size="$(echo "$size" | tr x ,)" --screenshot="$out" "file://$html" >/dev/null 2>&1
test -s "$out" || { echo "$0: chromium wrote no picture" >&2; exit 1; }
echo "$out"
