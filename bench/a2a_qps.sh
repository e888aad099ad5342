#!/usr/bin/env bash
# NIC pacing cost against the number of QPs per NIC (issue 19): runs bench/a2a-qps/*.yaml
# (64 hosts, all-to-all, DCQCN on; 8, 63 and 504 QPs per NIC) and prints each run's events,
# events per packet-hop, event-loop wall time and events/s from result.json. With a second
# argument `--callgrind`, also the whole process's instruction count per packet-hop
# (valgrind --tool=callgrind), which a shared machine does not blur.
# Usage: bench/a2a_qps.sh [build-dir] [--callgrind]   (Release build first)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cg=${2:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-16s %10s %10s %8s %10s %12s %14s\n' scenario qps/NIC events ev/hop wall_s events/s instr/hop
for f in bench/a2a-qps/*.yaml; do
  name=$(basename "$f" .yaml)
  "$build/fabricsim" run "$f" --quiet --out "$out/$name"
  instr=0
  if [ "$cg" = --callgrind ]; then
    valgrind --tool=callgrind --callgrind-out-file="$out/$name.cg" "$build/fabricsim" run "$f" --quiet \
      --out "$out/$name-cg" 2>"$out/$name.log"
    instr=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/$name.log")
  fi
  python3 - "$out/$name/result.json" "$name" "$instr" "$f" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[4]).read()
qps = int(re.search(r'qps_per_connection: (\d+)', text).group(1))
senders = re.search(r'senders: (\w+)', text).group(1)
per_nic = (64 if senders == 'all' else int(senders)) - 1
c = r["variants"][0]["cost"]
instr = int(sys.argv[3])
per_hop = f'{instr / c["packet_hops"]:.0f}' if instr else '-'
print(f'{sys.argv[2]:<16} {per_nic * qps:>10} {c["events"]:>10} {c["events"] / c["packet_hops"]:>8.3f} '
      f'{c["wall_s"]:>10.3f} {c["events_per_s"]:>12.3g} {per_hop:>14}')
PY
done
