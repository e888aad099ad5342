#!/usr/bin/env bash
# The flow model against the packet model (docs/VALIDATION.md): runs every
# bench/flow-vs-packet/*.yaml on both models and prints, per workload entry, its time on each
# (a collective's time, the last transfer's finish for traffic, the iteration for training),
# their ratio, and each run's loop wall time (cost.wall_s); with several entries, a last row
# `(last)` for the one that ends last on each model. The flow model runs twice: as it comes
# (`flow`), and with the coupled congestion-control overlay,
# `--set simulation.flow_congestion=fluid` (`fluid`; docs/models/flow.md, "Coupled congestion
# control").
#   bench/flow_vs_packet.sh [build-dir [scenario.yaml ...]]   (default: every file)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(bench/flow-vs-packet/*.yaml)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-28s %-7s %10s %10s %6s %10s %6s %9s %9s %9s\n' scenario entry packet_us flow_us ratio fluid_us ratio pkt_wall flow_wall fluid_wall
for f in "${files[@]}"; do
  name=$(basename "$f" .yaml)
  "$build/fabricsim" run "$f" --quiet --out "$out/$name-packet"
  "$build/fabricsim" run "$f" --quiet --set simulation.model=flow --out "$out/$name-flow"
  "$build/fabricsim" run "$f" --quiet --set simulation.model=flow --set simulation.flow_congestion=fluid \
    --out "$out/$name-fluid"
  python3 - "$out/$name-packet/result.json" "$out/$name-flow/result.json" "$out/$name-fluid/result.json" "$name" <<'PY'
import json, sys
def times(path):
    v = json.load(open(path))["variants"][0]
    t = {c["name"]: c["time_s"] for c in v.get("collectives", [])}
    ends = {}
    for x in v.get("transfers", []):
        ends[x["name"]] = max(ends.get(x["name"], 0), x["end_s"])
    t.update(ends)
    t.update({j["name"]: j["iteration_time_s"] for j in (v.get("training") or {}).get("jobs", [])})
    return t, v["cost"]
p, pc = times(sys.argv[1]); fl, fc = times(sys.argv[2]); fu, uc = times(sys.argv[3])
for k in p:
    print(f'{sys.argv[4]:<28} {k:<7} {p[k]*1e6:>10.1f} {fl[k]*1e6:>10.1f} {fl[k]/p[k]:>6.3f} '
          f'{fu[k]*1e6:>10.1f} {fu[k]/p[k]:>6.3f} {pc["wall_s"]:>9.3f} {fc["wall_s"]:>9.4f} {uc["wall_s"]:>9.4f}')
if len(p) > 1:  # the last entry to end, on each model (entries that run side by side)
    last = lambda t: max(t.values())
    print(f'{sys.argv[4]:<28} {"(last)":<7} {last(p)*1e6:>10.1f} {last(fl)*1e6:>10.1f} {last(fl)/last(p):>6.3f} '
          f'{last(fu)*1e6:>10.1f} {last(fu)/last(p):>6.3f}')
PY
done
