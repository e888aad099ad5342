#!/usr/bin/env bash
# The streaming cases (docs/BENCHMARKS.md, "Streaming op graphs"); they take minutes, so
# bench/run.sh does not run them.
#
#   bench/streaming.sh targets [build-dir]  the issue's three targets under /usr/bin/time -v:
#                                           peak RSS, wall, CPU (user + sys), events
#   bench/streaming.sh rate [build-dir]     the same workloads at two sizes, one 4x the other:
#                                           the executor's cost per op is O(1) amortised when the
#                                           CPU time per event does not grow with the run
#   bench/streaming.sh progress [build-dir] how soon the two training jobs draw their progress
#                                           bar: wall and CPU time to the first line
#   bench/streaming.sh flow [build-dir]     the two training jobs on the flow model, on an
#                                           InfiniBand fat tree and on a RoCE one
#
# Compare CPU time, not wall, on a shared machine: the wall is the machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-targets}
build=${2:-build}
dir=bench/scenarios/streaming
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run NAME FILE [--set ...]: one run under /usr/bin/time -v, one line of figures.
run() {
  local name=$1 file=$2
  shift 2
  /usr/bin/time -v -o "$out/$name.time" "$build/fabricsim" run "$file" --quiet --max-memory 20GiB \
    --out "$out/$name" "$@"
  python3 - "$out/$name" "$name" <<'PY'
import json, re, sys
d, name = sys.argv[1], sys.argv[2]
t = open(d + ".time").read()
field = lambda k: re.search(re.escape(k) + r": (.*)", t).group(1).strip()
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)"))
variants = json.load(open(d + "/result.json"))["variants"]
events = sum(v["cost"]["events"] for v in variants)
print(f'{name:<40} {rss / 1024:>10.1f} {field("Elapsed (wall clock) time (h:mm:ss or m:ss)"):>10} '
      f'{cpu:>9.2f} {events:>12} {1e9 * cpu / max(events, 1):>9.0f} {variants[0]["makespan_s"]:>16.12f}')
PY
}

if [ "$mode" = progress ]; then
  for name in training-70b-2048gpu training-175b-16384gpu; do
    printf '%-24s ' "$name"
    bench/first_progress.py "$build/fabricsim" run "$dir/$name.yaml" --max-memory 20GiB --out "$out/$name"
  done
  exit 0
fi
printf '%-40s %10s %10s %9s %12s %9s %16s\n' run rss_MiB wall cpu_s events ns/event makespan_s
case $mode in
  targets)
    run ring-allreduce-1tib-32gpu "$dir/ring-allreduce-1tib-32gpu.yaml"
    run training-70b-2048gpu "$dir/training-70b-2048gpu.yaml"
    run training-175b-16384gpu "$dir/training-175b-16384gpu.yaml"
    ;;
  rate)
    # Collectives: ring (streamed) and tree (replayed from its head) at 16 and 64 GiB.
    for alg in ring tree; do
      for size in 16GiB 64GiB; do
        run "allreduce-$alg-$size-32gpu" "$dir/ring-allreduce-1tib-32gpu.yaml" \
          --set "workload.0.algorithm=$alg" --set "workload.0.size=$size"
      done
    done
    # Training: the 70B job on 64 servers (TP 8 x PP 4 x DP 16), one iteration and four: the
    # same ops again, the records of each iteration dropped at its end.
    for it in 1 4; do
      run "training-70b-512gpu-iterations$it" "$dir/training-70b-2048gpu.yaml" --set cluster.servers=64 \
        --set workload.0.training.parallelism.dp=16 --set workload.0.training.batch.global=1024 \
        --set "workload.0.training.iterations=$it"
    done
    ;;
  flow)
    # The flow model's targets (docs/BENCHMARKS.md, "Flow model"; the 175B job's < 60 s is
    # stated for an InfiniBand fat tree). InfiniBand routes by destination (static D-mod-K),
    # which keeps the DP rings' flows apart; RoCE's ECMP hashes them onto shared uplinks, and
    # the flows that share one are re-solved together: the same jobs cost the solver more.
    for tech in infiniband roce; do
      run "training-70b-2048gpu-flow-$tech" "$dir/training-70b-2048gpu.yaml" \
        --set simulation.model=flow --set "cluster.fabric.technology=$tech"
      run "training-175b-16384gpu-flow-$tech" "$dir/training-175b-16384gpu.yaml" \
        --set simulation.model=flow --set "cluster.fabric.technology=$tech"
    done
    ;;
  *) echo "usage: bench/streaming.sh targets|rate|progress|flow [build-dir]" >&2; exit 2 ;;
esac
