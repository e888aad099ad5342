#!/bin/sh
# The HTML report opened in headless chromium: fails on any JavaScript error (the page's
# window.onerror marks <html data-js-error>) and unless every plot the page announces drew an
# SVG. Exit 77 (ctest: skipped) without chromium. Run by ctest as "html: report in chromium".
#
#   tools/check_html_report.sh FABRICSIM SCENARIO...          (fabricsim compare --html)
#   tools/check_html_report.sh FABRICSIM --sweep SCENARIO     (fabricsim sweep's sweep.html)
#   tools/check_html_report.sh FABRICSIM [--require ID]... SCENARIO... [--set ...]
#                                   (and fails unless the page holds each plot <figure id=ID>)
set -eu
if [ $# -lt 2 ]; then echo "usage: $0 FABRICSIM SCENARIO..." >&2; exit 2; fi
fabricsim=$1
shift
required=
while [ "$1" = "--require" ]; do required="$required $2"; shift 2; done
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
for id in $required; do
  if ! grep -q "<figure id=\"$id\"" "$tmp/report.html"; then echo "no plot $id in the page" >&2; exit 1; fi
done
# A numeric x axis with fewer than two labelled ticks cannot be read (a log axis over a narrow
# range once showed a lone "3.00e+3").
ticks=$(grep -o 'data-fewest-x-ticks="[0-9]*"' "$tmp/dom.html" | grep -o '[0-9]*' || true)
if [ -n "$ticks" ] && [ "$ticks" -lt 2 ]; then
  echo "a plot's x axis has $ticks labelled tick(s)" >&2
  exit 1
fi
figures=$(grep -o "$pattern" "$tmp/report.html" | wc -l)
drawn=$(grep -o 'data-plots-drawn="[0-9]*"' "$tmp/dom.html" | grep -o '[0-9]*' || echo 0)
if [ "$figures" -eq 0 ] || [ "$drawn" != "$figures" ]; then
  echo "plots: $figures announced, ${drawn:-none} drawn" >&2
  exit 1
fi
echo "ok: $figures plots drawn, no JavaScript error"
