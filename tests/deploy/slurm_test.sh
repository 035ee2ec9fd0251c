#!/usr/bin/env bash
# The Slurm deployment (deploy/slurm, docs/SCALING.md) on a real single-node Slurm. As root, with
# Debian's slurm-wlm and munge (scripts/setup --slurm), it
#   1. starts munged, slurmctld and slurmd itself, on this machine only (a key, a slurm.conf for one
#      node with this machine's CPUs and no cgroups, free loopback ports, all in a temporary folder),
#      and waits until the node is idle;
#   2. runs the replay agent with the worker test double unsharded on a few problems (--dsl-a cuda
#      --dsl-b cuda), the reference;
#   3. leaves shard 1's ledger as a preempted task would (tests/deploy/preempted_shard.py: one trial
#      finished, the next one handed out and submitted to, then the process killed);
#   4. submits the run through deploy/slurm/submit.sh: a job array of 4 shards (shard 1 resumes its
#      ledger) and the scoring step after it, with MKB_RUN_MERGE=1, and waits for both;
#   5. checks that every task and the scoring step completed, that `mkb score --json` over the 4 shard
#      ledgers, the scoring step's scores.json and the merged ledger's scores all equal the unsharded
#      run's (but for mean_agent_seconds, the agent's wall-clock time, which no two runs share), and
#      that the report was drawn;
#   6. requeues a finished shard (`scontrol requeue`, as after a preemption): it runs again on its
#      ledger, finds nothing left to run, and the scores stay the same;
#   7. stops the daemons and removes the folder (also when a step fails, after printing the logs).
# Exit 77 (skipped, with the reason) without root or without Slurm's and munge's programs.
# CTest runs it (deploy.slurm) with the build's paths: MKB_TEST_CLI (the mkb tool), MKB_LIB_PATH and
# MKB_TEST_WORKER_DOUBLE; MKB_TEST_PYTHON picks the interpreter (default python3).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
start=$SECONDS
step() { echo "== slurm test [$((SECONDS - start)) s]: $*"; }
skip() { echo "skipped: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (it starts slurmd, which runs jobs as their users); CI runs as root"
for program in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v $program >/dev/null || skip "$program is not installed (Debian: apt-get install slurm-wlm munge, or scripts/setup --slurm)"
done
for name in MKB_TEST_CLI MKB_LIB_PATH MKB_TEST_WORKER_DOUBLE; do
  [ -n "${!name:-}" ] || { echo "slurm test: $name is not set: run it through CTest (ctest -R deploy.slurm)" >&2; exit 2; }
done
mkb=$MKB_TEST_CLI worker=$MKB_TEST_WORKER_DOUBLE python=${MKB_TEST_PYTHON:-python3}
export MKB_LIB_PATH

# Everything lives here. Sockets have a path limit of 108 bytes, so it is short, and munged wants the
# folders above its socket searchable by all.
work=$(mktemp -d /tmp/mkb-slurm.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/munge" "$work/munge-socket" "$work/state" "$work/spool" "$work/log" "$work/cache"
chmod 700 "$work/munge"
# The daemons run in the foreground as this script's children (no pid files, no orphans left), and stop
# on SIGTERM: slurmd first, then slurmctld, then munged, each given 10 s before SIGKILL.
pids=()
running() {  # not ended, nor ended and waiting to be reaped
  local state
  state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 1
  [ "$state" != Z ]
}
stop_daemons() {
  local i pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[$i]}
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do running "$pid" || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}
show_logs() {
  for log in "$work"/log/*.log "$work"/munge/munged.log "$work"/run/logs/*.out; do
    [ -f "$log" ] || continue
    echo "---- ${log#"$work"/} (last 40 lines)"
    tail -n 40 "$log"
  done
}
finish() {
  status=$?
  if [ $status != 0 ] && [ $status != 77 ]; then
    echo "slurm test: FAILED (exit $status); the daemons' and the jobs' logs:" >&2
    show_logs >&2
  fi
  stop_daemons
  rm -rf "$work"
  echo "== slurm test [$((SECONDS - start)) s]: daemons stopped, $work removed"
  exit $status
}
trap finish EXIT
trap 'exit 130' INT TERM
fail() { echo "slurm test: $*" >&2; exit 1; }
# Waits until the file (a socket, a log line's file) exists, 10 s at most.
await_file() {
  for _ in $(seq 100); do
    [ -e "$1" ] && return
    sleep 0.1
  done
  fail "no $1 after 10 s"
}

step "munged (a new key, its socket in $work)"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged --foreground --key-file="$work/munge/munge.key" --socket="$work/munge-socket/socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" \
  >>"$work/log/daemons.log" 2>&1 &
pids+=($!)
await_file "$work/munge-socket/socket"

# Two free loopback ports for slurmctld and slurmd (another Slurm may hold the usual 6817 and 6818).
read -r ctld_port slurmd_port < <("$python" -c '
import socket
held = [socket.socket() for _ in range(2)]
for s in held: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in held))')
host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
# One node, this machine, for tests/deploy/slurm_test.sh. Root runs everything; no cgroups, no
# accounting database; munge through the test's own munged.
ClusterName=mkbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire is also how long a requeued job waits before it may start again (default 120 s).
AuthInfo=socket=$work/munge-socket/socket,cred_expire=10
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
# Pending jobs are looked at every second (default 60 s): a requeued task becomes eligible with no
# event that would start a scheduling pass.
SchedulerParameters=sched_interval=1,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
NodeName=mkbnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=mkb Nodes=mkbnode Default=YES MaxTime=INFINITE State=UP
EOF

step "slurmctld (port $ctld_port) and slurmd (node mkbnode, $cpus CPUs, port $slurmd_port)"
slurmctld -D -f "$SLURM_CONF" >>"$work/log/daemons.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N mkbnode >>"$work/log/daemons.log" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 120); do
  state=$(sinfo -h -n mkbnode -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || fail "the node is '${state:-not reported}' after 60 s, not idle"
step "node idle: $(sinfo -h -o '%P %a %D %t %c' | tr -s ' ')"

problems=fused_add_rmsnorm_h4096_llama31_8b_bf16,topk_softmax_routing_mixtral_8x7b_bf16,rmsnorm_h128_qwen3_30b_bf16
problems=$problems,groupnorm_sd15_fp32,gelu_feedforward_flux_fp32,swiglu_mlp_parakeet_fp32
run_args="--dsl-a cuda --dsl-b cuda --problems $problems"
# One compile cache for every process, on the "shared storage" like the ledgers.
export MKB_CACHE_DIR=$work/cache

step "the unsharded run (replay agent, worker test double, 6 problems, cuda -> cuda)"
# shellcheck disable=SC2086 # run_args is meant to split
"$python" "$repo/samples/python/replay_agent.py" --ledger "$work/unsharded.ledger" --worker "$worker" $run_args \
  >"$work/unsharded.out" 2>&1 || { cat "$work/unsharded.out"; fail "the unsharded run failed"; }
"$mkb" score --json "$work/unsharded.ledger" >"$work/unsharded.json"

step "shard 1's ledger as a preempted task leaves it"
mkdir -p "$work/run/ledgers"
status=0
# shellcheck disable=SC2086
"$python" "$repo/tests/deploy/preempted_shard.py" --ledger "$work/run/ledgers/shard-1-of-4.ledger" --shard 1/4 \
  --worker "$worker" $run_args || status=$?
[ $status = 137 ] || fail "preempted_shard.py exited $status, not killed (137)"

step "submitting 4 shards and the scoring step (deploy/slurm/submit.sh)"
export MKB_RUN_DIR=$work/run MKB_RUN_SHARDS=4 MKB_RUN_GPUS=0 MKB_RUN_CPUS=1 MKB_RUN_ARGS=$run_args
export MKB_RUN_AGENT_ARGS="--worker $worker" MKB_RUN_MERGE=1 MKB_RUN_MKB=$mkb MKB_RUN_PYTHON=$python
"$repo/deploy/slurm/submit.sh" --time=20 >"$work/jobs" || fail "submit.sh failed"
shards=$(awk '$1 == "shards" {print $2}' "$work/jobs")
score=$(awk '$1 == "score" {print $2}' "$work/jobs")
[[ -n "$shards" && -n "$score" ]] || fail "submit.sh printed no job ids: $(cat "$work/jobs")"
step "submitted: job array $shards, scoring step $score"

# Waits until none of the jobs is pending or running (squeue no longer lists them), 10 minutes at most.
wait_for() {
  for _ in $(seq 1200); do
    [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return
    sleep 0.5
  done
  squeue
  fail "jobs $1 still queued or running after 10 minutes"
}
# "JOBID STATE EXIT RESTARTS" for each task of a job (an array: one line per task), from slurmctld,
# which keeps ended jobs for MinJobAge.
job_states() {
  scontrol -o show job "$1" | "$python" -c '
import sys
for line in sys.stdin:
    f = dict(w.split("=", 1) for w in line.split() if "=" in w)
    task = f.get("ArrayTaskId")
    name = f["ArrayJobId"] + "_" + task if task else f["JobId"]
    print(name, f["JobState"], f["ExitCode"], f["Restarts"])' | sort
}
wait_for "$shards,$score"
job_states "$shards" | tee "$work/states"
job_states "$score" | tee -a "$work/states"
[ "$(awk '$2 == "COMPLETED" && $3 == "0:0"' "$work/states" | wc -l)" = 5 ] ||
  fail "not every task completed with exit 0 (above)"
step "the array and the scoring step completed"

grep -q "resuming .*shard-1-of-4.ledger" "$work/run/logs/shard-1.out" ||
  fail "shard 1 did not say it resumed its ledger: $(cat "$work/run/logs/shard-1.out")"
cat "$work/run/shards.txt"
[ "$(grep -c ', 0 trials left to run' "$work/run/shards.txt")" = 4 ] || fail "a shard has trials left (above)"
[ -f "$work/run/report/index.html" ] || fail "the scoring step drew no report ($(ls "$work/run"))"

# The figures of several ledgers and of one, with the agent's wall-clock seconds set aside.
same_scores() {
  "$python" - "$@" <<'EOF'
import json, sys

def figures(value):
    if isinstance(value, dict):
        return {k: figures(v) for k, v in value.items() if k != "mean_agent_seconds"}
    if isinstance(value, list):
        return [figures(v) for v in value]
    return value

reference, name, candidate = sys.argv[1], sys.argv[2], sys.argv[3]
want, got = (figures(json.load(open(path))) for path in (reference, candidate))
if want != got:
    for key in sorted(set(want) | set(got)):
        if want.get(key) != got.get(key):
            print(f"{name}: '{key}' differs from the unsharded run's:\n  unsharded {json.dumps(want.get(key))[:2000]}"
                  f"\n  {name} {json.dumps(got.get(key))[:2000]}", file=sys.stderr)
    sys.exit(1)
pairs = sum(d["pairs"] for d in got["vs_baseline"]["directions"])
print(f"{name}: the same scores as the unsharded run ({pairs} paired comparisons)")
EOF
}
ledgers=("$work"/run/ledgers/shard-{0,1,2,3}-of-4.ledger)
"$mkb" score --json "${ledgers[@]}" >"$work/sharded.json"
same_scores "$work/unsharded.json" "mkb score over the 4 shard ledgers" "$work/sharded.json"
same_scores "$work/unsharded.json" "the scoring step's scores.json" "$work/run/scores.json"
"$mkb" score --json "$work/run/merged.ledger" >"$work/merged.json"
same_scores "$work/unsharded.json" "the merged ledger" "$work/merged.json"
for i in 0 1 2 3; do
  records=$("$mkb" ledger dump "${ledgers[$i]}" | "$python" -c '
import collections, json, sys
count = collections.Counter(json.loads(line)["body_type"] for line in sys.stdin)
print(count["SessionOpened"], count["TrialStarted"], count["TrialFinished"])')
  read -r sessions started finished <<<"$records"
  echo "shard $i: $sessions sessions, $started trials started, $finished finished"
  if [ $i = 1 ]; then  # the preempted one: its second session ran the interrupted trial again
    [ "$sessions $((started - finished))" = "2 1" ] || fail "shard 1's ledger does not show the preemption"
  fi
done

step "requeueing finished shard 2, as after a preemption"
scontrol requeue "${shards}_2"
wait_for "${shards}_2"
job_states "${shards}_2" | tee "$work/requeued"
read -r _ state exit restarts <"$work/requeued"
[ "$state $exit $restarts" = "COMPLETED 0:0 1" ] || fail "requeued shard 2: $state, exit $exit, $restarts restarts"
grep -A1 "(restart 1)" "$work/run/logs/shard-2.out" | grep -q "resuming" || fail "shard 2 did not resume: $(cat "$work/run/logs/shard-2.out")"
"$mkb" score --json "${ledgers[@]}" >"$work/requeued.json"
same_scores "$work/unsharded.json" "the 4 ledgers after the requeue" "$work/requeued.json"
step "passed"
