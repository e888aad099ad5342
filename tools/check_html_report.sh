#!/bin/sh
# The HTML report opened in headless chromium: fails on any JavaScript error (the page's
# window.onerror marks <html data-js-error>) and unless every plot the page announces drew an
# SVG. Exit 77 (ctest: skipped) without chromium. Run by ctest as "html: report in chromium".
#
#   tools/check_html_report.sh FABRICSIM SCENARIO...          (fabricsim compare --html)
#   tools/check_html_report.sh FABRICSIM --sweep SCENARIO     (fabricsim sweep's sweep.html)
set -eu
if [ $# -lt 2 ]; then echo "usage: $0 FABRICSIM SCENARIO..." >&2; exit 2; fi
fabricsim=$1
shift
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "chromium is not installed: skipped" >&2; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$1" = "--sweep" ]; then
  "$fabricsim" sweep "$2" --out "$tmp/sweep" -q
  cp "$tmp/sweep/sweep.html" "$tmp/report.html"
  pattern='<figure id="sweep-'
else
  "$fabricsim" compare "$@" --html "$tmp/report.html" -q
  pattern='<figure id="plot-'
fi
"$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$tmp/report.html" > "$tmp/dom.html" 2>/dev/null
if grep -q 'data-js-error=' "$tmp/dom.html"; then
  echo "JavaScript error: $(grep -o 'data-js-error="[^"]*"' "$tmp/dom.html")" >&2
  exit 1
fi
figures=$(grep -o "$pattern" "$tmp/report.html" | wc -l)
drawn=$(grep -o 'data-plots-drawn="[0-9]*"' "$tmp/dom.html" | grep -o '[0-9]*' || echo 0)
if [ "$figures" -eq 0 ] || [ "$drawn" != "$figures" ]; then
  echo "plots: $figures announced, ${drawn:-none} drawn" >&2
  exit 1
fi
echo "ok: $figures plots drawn, no JavaScript error"
