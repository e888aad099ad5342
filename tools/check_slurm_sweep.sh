#!/usr/bin/env bash
# `fabricsim sweep --emit-slurm` tested with Slurm's own tools: starts a one-node Slurm cluster
# (slurmctld + slurmd from Debian's slurm-wlm) in a temporary folder, submits the job array with
# sbatch, waits for it with squeue, gathers the results with `sweep --collect`, and checks one
# finished row per grid point; then submits the array again and checks that every task found
# its point done and ran nothing. Run by ctest as "slurm: ...".
#
#   tools/check_slurm_sweep.sh FABRICSIM SWEEP-SCENARIO
#
# Exit 77 (ctest: skipped), with the reason, where Slurm is not installed or will not start.
#
# The cluster needs no root service: authentication is auth/none and job credentials cred/none
# (slurm.conf(5): "auth/none" and "cred/none" skip munge, for a test cluster only), processes
# are tracked by process group (proctrack/pgid, no cgroups), and the daemons listen on two free
# ports of 127.0.0.1, so it can run beside another Slurm or another copy of this test. slurmd
# must run as root to start jobs (slurmd(8)); as another user the test is skipped. The node
# declares 8 CPUs whatever the machine has (config_overrides, slurm.conf(5)), so the array's
# short tasks start in one scheduling pass rather than two at a time, three seconds apart.
set -uo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 FABRICSIM SWEEP-SCENARIO" >&2; exit 2; fi
fabricsim=$(realpath "$1")
scenario=$2

skip() { echo "skipped: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: apt-get install slurm-wlm)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd starts jobs only as root, and this runs as $(id -un)"

tmp=$(mktemp -d /tmp/fabricsim-slurm.XXXXXX)
export SLURM_CONF=$tmp/slurm.conf
cleanup() {
  # Only the daemons this script started, by the process ids they wrote.
  for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid"; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  for _ in $(seq 50); do
    alive=0
    for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid"; do
      [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && alive=1
    done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# Two ports nothing listens on (a connection to a free port is refused).
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [ "$port" = "${1:-}" ] && continue
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return 0; }
  done
  return 1
}
ctld_port=$(free_port) || skip "no free TCP port on 127.0.0.1"
slurmd_port=$(free_port "$ctld_port") || skip "no free TCP port on 127.0.0.1"
node=$(hostname -s)

mkdir -p "$tmp/state" "$tmp/spool"
cat > "$SLURM_CONF" <<EOF
ClusterName=fabricsim-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SlurmdParameters=config_overrides
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

why_not_started() {
  echo "Slurm did not start:"
  tail -n 5 "$tmp/slurmctld.log" "$tmp/slurmd.log" 2>/dev/null
}
slurmctld -f "$SLURM_CONF" -c -i >"$tmp/slurmctld.out" 2>&1 || skip "$(why_not_started; cat "$tmp/slurmctld.out")"
slurmd -f "$SLURM_CONF" -c >"$tmp/slurmd.out" 2>&1 || skip "$(why_not_started; cat "$tmp/slurmd.out")"
state=
for _ in $(seq 100); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] || skip "$(why_not_started) (node state: ${state:-none} after 10 s)"

dir=$tmp/sweep
"$fabricsim" sweep "$scenario" --emit-slurm "$dir" -q || fail "sweep --emit-slurm exited $?"
rows=$(wc -l < "$dir/jobs.txt")
[ "$rows" -gt 1 ] || fail "jobs.txt has $rows lines; the test needs a sweep with several points"

# Submits the array and waits until no task is pending or running; prints the job id.
submit_and_wait() {
  local job
  job=$(sbatch --parsable "$dir/sweep.sbatch") || fail "sbatch refused the array: $job"
  job=${job%%;*}
  for _ in $(seq 200); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && { echo "$job"; return 0; }
    sleep 0.1
  done
  fail "job array $job not finished after 20 s: $(squeue -j "$job")"
}
# Every task of the array ended COMPLETED with exit code 0 (scontrol show job: one line per task).
check_tasks() {
  local job=$1 lines
  lines=$(scontrol -o show job "$job")
  [ "$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$lines")" -eq "$rows" ] ||
    fail "not every one of $rows tasks of job $job completed with exit 0:"$'\n'"$(sed -E \
      's/.*ArrayTaskId=([0-9]+) .*JobState=([A-Z_]+) .*ExitCode=([0-9:]+) .*/  task \1: \2, exit \3/' <<<"$lines")"
}

job=$(submit_and_wait) || exit 1
check_tasks "$job"
for ((i = 0; i < rows; ++i)); do
  [ -f "$dir/logs/${job}_$i.out" ] || fail "task $i of job $job left no log (run outside Slurm?)"
done

collect=$("$fabricsim" sweep --collect "$dir" 2>&1) || fail "sweep --collect exited $?: $collect"
grep -q "$rows of $rows runs have results" <<<"$collect" || fail "collect: $collect"
# One row per point, every one done: the header, then rows numbered 0.. with done = 1.
header=$(head -n 1 "$dir/sweep.csv")
done_column=$(tr ',' '\n' <<<"$header" | grep -n -x done | cut -d: -f1)
[ -n "$done_column" ] || fail "sweep.csv has no done column: $header"
[ "$(($(wc -l < "$dir/sweep.csv") - 1))" -eq "$rows" ] || fail "sweep.csv has not $rows rows"
points=$(tail -n +2 "$dir/sweep.csv" | cut -d, -f1 | sort -u | wc -l)
[ "$points" -eq "$rows" ] || fail "sweep.csv names $points points for $rows runs"
not_done=$(tail -n +2 "$dir/sweep.csv" | cut -d, -f"$done_column" | grep -c -v -x 1)
[ "$not_done" -eq 0 ] || fail "$not_done rows of sweep.csv are not done"

# The same array again: every task finds its result and runs nothing.
touch "$tmp/before-rerun"
sleep 1  # file times have whole-second resolution on some file systems
again=$(submit_and_wait) || exit 1
check_tasks "$again"
skipped=$(cat "$dir/logs/${again}"_*.out | grep -c '^done before: ')
[ "$skipped" -eq "$rows" ] || fail "rerun: $skipped of $rows tasks skipped their finished point"
changed=$(find "$dir/results" -newer "$tmp/before-rerun" | wc -l)
[ "$changed" -eq 0 ] || fail "rerun rewrote $changed files under results/"
echo "ok: $rows array tasks ran under slurmctld/slurmd, --collect has one finished row per point, a resubmission ran nothing"
