#!/usr/bin/env bash
# Whole-scenario benchmarks: runs build/fabricsim on every bench/scenarios/*.yaml and prints
# the run's own cost from result.json (events, wall time, events/s, simulated time, peak RSS).
# Usage: bench/run.sh [build-dir]    (build in Release first: cmake --build build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-32s %12s %10s %12s %12s %12s %10s\n' scenario events wall_s events/s hops/s simulated_s rss_MiB
for f in bench/scenarios/*.yaml; do
  name=$(basename "$f" .yaml)
  "$build/fabricsim" run "$f" --quiet --out "$out/$name"
  python3 - "$out/$name/result.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for v in r["variants"]:
    c = v["cost"]
    print(f'{sys.argv[2]:<32} {c["events"]:>12} {c["wall_s"]:>10.3f} {c["events_per_s"]:>12.3g} '
          f'{c["packet_hops_per_s"]:>12.3g} {c["simulated_s"]:>12.6f} {c["peak_rss_bytes"] / 2**20:>10.1f}')
PY
done
