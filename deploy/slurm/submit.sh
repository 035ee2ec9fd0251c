#!/usr/bin/env bash
# deploy/slurm/submit.sh [SBATCH OPTION...]: submits a sharded libmkb run to Slurm, a job array of
# MKB_RUN_SHARDS tasks (mkb-shard.sbatch, one shard each) and the scoring step (mkb-score.sbatch) that
# waits for all of them (--dependency=afterany), and prints the two job ids:
#   shards JOBID
#   score JOBID
# SBATCH OPTIONs (--partition, --account, --qos, ...) go to both sbatch calls. docs/SCALING.md has the recipe.
#
# The run, from the environment (exported to the jobs; mkb-shard.sbatch says what the tasks read):
#   MKB_RUN_DIR         the run's folder on storage every node sees (required); ledgers/, logs/, the scores
#   MKB_RUN_SHARDS      shards, the array's size (default 4)
#   MKB_RUN_GPUS        GPUs per shard, asked as --gres=gpu:G (default 0: none, compile-only)
#   MKB_RUN_CPUS        CPUs per shard (default 2; compiling and the DSLs' frontends run there)
#   MKB_RUN_TIME        each shard's time limit, as sbatch --time takes it (default: the partition's)
#   MKB_RUN_PARALLEL    at most this many shards at once (the array's %K; default: no limit)
#   MKB_RUN_ARGS        the session's options (--problems, --dsl-a/--dsl-b, --replicates, ...)
#   MKB_RUN_MODEL       the model's name as the ledgers record it (default replay)
#   MKB_RUN_AGENT, MKB_RUN_AGENT_ARGS, MKB_RUN_PYTHON: the agent (default the replay agent)
#   MKB_RUN_MERGE=1     the scoring step also writes merged.ledger (`mkb ledger merge`)
#   MKB_REPO            the built clone on shared storage (default: the clone this script is in)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in -h|--help) sed -n '2,21s/^# \{0,1\}//p' "$0"; exit 0 ;; esac

[ -n "${MKB_RUN_DIR:-}" ] || { echo "submit.sh: set MKB_RUN_DIR to the run's folder on shared storage" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "submit.sh: sbatch is not on PATH (Slurm's client commands)" >&2; exit 2; }
export MKB_REPO=${MKB_REPO:-$(cd "$here/../.." && pwd)}
export MKB_RUN_SHARDS=${MKB_RUN_SHARDS:-4} MKB_RUN_GPUS=${MKB_RUN_GPUS:-0} MKB_RUN_CPUS=${MKB_RUN_CPUS:-2}
export MKB_RUN_MODEL=${MKB_RUN_MODEL:-replay} MKB_RUN_ARGS=${MKB_RUN_ARGS:-}
[ "$MKB_RUN_SHARDS" -ge 1 ] 2>/dev/null || { echo "submit.sh: MKB_RUN_SHARDS must be a positive number" >&2; exit 2; }
[ -x "${MKB_RUN_MKB:-$MKB_REPO/build/bin/mkb}" ] ||
  { echo "submit.sh: ${MKB_RUN_MKB:-$MKB_REPO/build/bin/mkb} is missing: build the clone first (README.md)" >&2; exit 2; }
mkdir -p "$MKB_RUN_DIR/ledgers" "$MKB_RUN_DIR/logs"
MKB_RUN_DIR=$(cd "$MKB_RUN_DIR" && pwd)
export MKB_RUN_DIR

array=0-$((MKB_RUN_SHARDS - 1))${MKB_RUN_PARALLEL:+%$MKB_RUN_PARALLEL}
shard_options=(--array="$array" --cpus-per-task="$MKB_RUN_CPUS" --output="$MKB_RUN_DIR/logs/shard-%a.out")
[ "$MKB_RUN_GPUS" = 0 ] || shard_options+=(--gres="gpu:$MKB_RUN_GPUS")
[ -z "${MKB_RUN_TIME:-}" ] || shard_options+=(--time="$MKB_RUN_TIME")

shards=$(sbatch --parsable --export=ALL "${shard_options[@]}" "$@" "$here/mkb-shard.sbatch")
shards=${shards%%;*}  # --parsable prints "id" or "id;cluster"
score=$(sbatch --parsable --export=ALL --dependency="afterany:$shards" \
          --output="$MKB_RUN_DIR/logs/score.out" "$@" "$here/mkb-score.sbatch")
score=${score%%;*}
printf 'shards %s\nscore %s\n' "$shards" "$score" | tee "$MKB_RUN_DIR/jobs.txt"
