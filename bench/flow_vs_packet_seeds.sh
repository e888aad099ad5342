#!/usr/bin/env bash
# The flow model's congestion-control overlay against the packet model over many seeds
# (docs/VALIDATION.md, "Flow model against the packet model"). Where a scenario's outcome is
# random (DCQCN's ECN marks, ECMP hashes), one seed of each model is one draw of two
# independent random streams: the same seed does not give the same marks in both, so a ratio
# per seed mixes the two models' spreads. This script runs each file on seeds 1..N on the
# packet model and with `--set simulation.model=flow --set simulation.flow_congestion=fluid`,
# and prints per workload entry each model's mean and standard deviation over the seeds, the
# ratio of the means and that ratio's standard error (first-order propagation of the two
# means' standard errors), and the range of the per-seed ratios.
#   bench/flow_vs_packet_seeds.sh [build-dir [seeds [scenario.yaml ...]]]
#   (defaults: build, 12 seeds, every congested RoCE/InfiniBand file of bench/flow-vs-packet/)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
seeds=${2:-12}
shift 2 || shift $# || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(bench/flow-vs-packet/{allreduce-beside-incast,oversub-2to1,dp-rails-ecmp}{,-ib}.yaml)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-28s %-7s %6s %11s %9s %11s %9s %7s %7s %13s\n' scenario entry seeds packet_us sd fluid_us sd ratio se per-seed
for f in "${files[@]}"; do
  name=$(basename "$f" .yaml)
  for ((s = 1; s <= seeds; s++)); do
    "$build/fabricsim" run "$f" --quiet --set seed=$s --out "$out/$name-packet-$s"
    "$build/fabricsim" run "$f" --quiet --set seed=$s --set simulation.model=flow \
      --set simulation.flow_congestion=fluid --out "$out/$name-fluid-$s"
  done
  python3 - "$out" "$name" "$seeds" <<'PY'
import json, math, statistics, sys
out, name, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def times(path):  # per entry: collective time, a traffic entry's last end, the iteration
    v = json.load(open(path))["variants"][0]
    t = {c["name"]: c["time_s"] for c in v.get("collectives", [])}
    for x in v.get("transfers", []):
        t[x["name"]] = max(t.get(x["name"], 0), x["end_s"])
    t.update({j["name"]: j["iteration_time_s"] for j in (v.get("training") or {}).get("jobs", [])})
    t["(last)"] = max(t.values())
    return t
p = [times(f"{out}/{name}-packet-{s}/result.json") for s in range(1, seeds + 1)]
u = [times(f"{out}/{name}-fluid-{s}/result.json") for s in range(1, seeds + 1)]
def row(k):
    a = [r[k] * 1e6 for r in p]; b = [r[k] * 1e6 for r in u]
    ma, mb = statistics.mean(a), statistics.mean(b)
    sa = statistics.stdev(a) if seeds > 1 else 0.0
    sb = statistics.stdev(b) if seeds > 1 else 0.0
    ratio = mb / ma
    se = ratio * math.sqrt((sa / ma) ** 2 / seeds + (sb / mb) ** 2 / seeds)
    per = [y / x for x, y in zip(a, b)]
    print(f"{name:<28} {k:<7} {seeds:>6} {ma:>11.1f} {sa:>9.1f} {mb:>11.1f} {sb:>9.1f} "
          f"{ratio:>7.3f} {se:>7.3f} {min(per):>6.2f}-{max(per):.2f}")
    return ratio
entries = [k for k in p[0] if k != "(last)"]
if len(entries) <= 4:  # each entry, and the last to end when there are several
    for k in entries + (["(last)"] if len(entries) > 1 else []):
        row(k)
else:  # many entries running side by side (the DP rings): the last to end, and the spread
    row("(last)")
    ratios = [statistics.mean(r[k] for r in u) / statistics.mean(r[k] for r in p) for k in entries]
    print(f"{name:<28} {'(each)':<7} {seeds:>6} {len(entries):>3} entries: ratios of the means "
          f"{min(ratios):.3f}-{max(ratios):.3f}, mean {statistics.mean(ratios):.3f}")
PY
done
