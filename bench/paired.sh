#!/usr/bin/env bash
# Paired A/B of two fabricsim binaries on one scenario, for a machine too noisy for absolute
# times: runs A and B in turn (the order swapped every round) and prints, per round, each
# one's event-loop wall (`cost.wall_s`) and user CPU seconds (/usr/bin/time), then the
# medians of the per-round ratios A/B (above 1: B is faster).
# Usage: bench/paired.sh BIN_A BIN_B SCENARIO.yaml [rounds=10] [SCENARIO_B.yaml]
#   (SCENARIO_B: B's own copy, for a binary of another commit that reads its own scenario files)
set -euo pipefail
a=$1 b=$2 scenario=$3 rounds=${4:-10} scenario_b=${5:-$3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
one() {  # binary label round scenario -> "wall user"
  /usr/bin/time -f '%U' -o "$out/time" "$1" run "$4" --quiet --out "$out/$2$3" >/dev/null
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['variants'][0]['cost']['wall_s'], open(sys.argv[2]).read().split()[-1])" \
    "$out/$2$3/result.json" "$out/time"
  rm -rf "${out:?}/$2$3"
}
echo "round wall_a user_a wall_b user_b"
for ((i = 0; i < rounds; i++)); do
  if ((i % 2 == 0)); then
    ra=$(one "$a" a $i "$scenario"); rb=$(one "$b" b $i "$scenario_b")
  else
    rb=$(one "$b" b $i "$scenario_b"); ra=$(one "$a" a $i "$scenario")
  fi
  echo "$i $ra $rb"
done | tee "$out/rows"
python3 - "$out/rows" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1]) if l[0].isdigit()]
for name, i in (("wall", 0), ("user CPU", 1)):
    r = sorted(x[i] / x[i + 2] for x in rows)
    q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
    print(f"{name}: A/B median {statistics.median(r):.3f} (interquartile {q[0]:.3f}-{q[2]:.3f}), "
          f"fastest A {min(x[i] for x in rows):.3f} s, B {min(x[i + 2] for x in rows):.3f} s, {len(r)} rounds")
PY
