#!/usr/bin/env bash
# Checks that two fabricsim binaries produce the same results on the packet scenarios: every
# output file but for what measures the run itself (wall time, events/s, peak RSS, the
# commit and version). Event and hop counts are compared: a speed change must not move them.
# Usage: bench/same_outputs.sh [--events-may-differ] BIN_A BIN_B [scenario.yaml ...]
#   --events-may-differ: for a change that removes events (and nothing else): the event count
#   is left out of the comparison and printed for both sides.
#   (default: the packet scenarios of scenarios/ and bench/, as docs/BENCHMARKS.md lists them)
# Prints one line per scenario (same / DIFFERENT) and exits 1 if any differs.
set -euo pipefail
cd "$(dirname "$0")/.."
ignore_events=0
if [ "${1:-}" = --events-may-differ ]; then
  ignore_events=1
  shift
fi
a=$(realpath "$1")
b=$(realpath "$2")
shift 2
if [ $# -gt 0 ]; then
  files=("$@")
else
  files=()
  for n in custom-400g-uplink faults-leaf-spine incast-roce-vs-ib iwarp-vs-roce nvlink-copy quickstart \
    roce-congestion-spreading roce-dcqcn-fairness roce-incast roce-pfc-two-to-one roce-priorities sharp-allreduce \
    trace-pipeline gpudirect-on-off; do
    files+=("scenarios/$n.yaml")
  done
  files+=(bench/scenarios/perm-128-h100.yaml bench/scenarios/perm-1024.yaml bench/a2a-qps/a2a-64h-8qp.yaml)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for f in "${files[@]}"; do
  name=$(basename "$f" .yaml)
  for side in a b; do
    bin=$a
    [ $side = b ] && bin=$b
    # Exit 3 (a result that is not complete and sound) is a result too: compare it.
    "$bin" run "$f" --quiet --out "$out/$side/$name" >/dev/null 2>&1 || [ $? -eq 3 ]
  done
  if IGNORE_EVENTS=$ignore_events python3 - "$out/a/$name" "$out/b/$name" <<'PY'; then
import csv, json, os, sys

RUN_COST = {"wall_s", "events_per_s", "packet_hops_per_s", "peak_rss_bytes", "malloc_huge_pages"}
if os.environ.get("IGNORE_EVENTS") == "1":
    RUN_COST.add("events")

def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()
                if k not in RUN_COST and k not in ("git_commit", "fabricsim_version")}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x

def load(d, f):
    p = os.path.join(d, f)
    if f.endswith(".json"):
        return clean(json.load(open(p)))
    if f.endswith(".csv"):
        return [r for r in csv.reader(open(p)) if not any(c in RUN_COST for c in r)]
    return None  # report.html embeds the run cost

a, b = sys.argv[1:3]
fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
if fa != fb:
    print(f"  files differ: {fa} vs {fb}")
    sys.exit(1)
bad = [f for f in fa if load(a, f) != load(b, f)]
if os.environ.get("IGNORE_EVENTS") == "1" and "result.json" in fa:
    def events(d):
        found = []
        def walk(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    if k == "events":
                        found.append(v)
                    else:
                        walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(json.load(open(os.path.join(d, "result.json"))))
        return sum(v for v in found if isinstance(v, int))
    print(f"  events {events(a)} -> {events(b)}")
for f in bad:
    print(f"  {f} differs")
sys.exit(1 if bad else 0)
PY
    echo "same       $name"
  else
    echo "DIFFERENT  $name"
    status=1
  fi
done
exit $status
