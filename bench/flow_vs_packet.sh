#!/usr/bin/env bash
# The flow model against the packet model (docs/VALIDATION.md): runs every
# bench/flow-vs-packet/*.yaml on both models and prints, per workload entry, the collective
# time (or the last transfer's finish for traffic) on each, their ratio, and each run's loop
# wall time (cost.wall_s) and events.
#   bench/flow_vs_packet.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-26s %-8s %12s %12s %7s %10s %10s %10s %10s\n' scenario entry packet_us flow_us ratio pkt_wall_s flow_wall_s pkt_events flow_events
for f in bench/flow-vs-packet/*.yaml; do
  name=$(basename "$f" .yaml)
  "$build/fabricsim" run "$f" --quiet --out "$out/$name-packet"
  "$build/fabricsim" run "$f" --quiet --set simulation.model=flow --out "$out/$name-flow"
  python3 - "$out/$name-packet/result.json" "$out/$name-flow/result.json" "$name" <<'PY'
import json, sys
def times(path):
    v = json.load(open(path))["variants"][0]
    t = {c["name"]: c["time_s"] for c in v.get("collectives", [])}
    ends = {}
    for x in v.get("transfers", []):
        ends[x["name"]] = max(ends.get(x["name"], 0), x["end_s"])
    t.update(ends)
    return t, v["cost"]
p, pc = times(sys.argv[1]); fl, fc = times(sys.argv[2])
for k in p:
    print(f'{sys.argv[3]:<26} {k:<8} {p[k]*1e6:>12.1f} {fl[k]*1e6:>12.1f} {fl[k]/p[k]:>7.3f} '
          f'{pc["wall_s"]:>10.3f} {fc["wall_s"]:>10.4f} {pc["events"]:>10} {fc["events"]:>10}')
PY
done
