#!/usr/bin/env bash
# deploy/k8s/run.sh [KUBECTL OPTION...]: runs a sharded libmkb run on Kubernetes and scores it. Applies
# mkb-shards.yaml (the settings, the ledgers' volume, the Indexed Job of shards), waits until that Job
# has ended (complete, or failed with some shards left), then runs mkb-score.yaml (the scoring Job) and
# prints its log. KUBECTL OPTIONs (--namespace, --context) go to every kubectl call. Edit the two files
# first (image, storage class, settings: docs/SCALING.md, Kubernetes). Exit 0 when every shard finished
# and the scores were written, 1 otherwise.
#
# Resuming: `kubectl delete job mkb-shards` and this script again: each shard's new pod resumes its
# ledger on the volume (the ConfigMap's MKB_RUN_DIR must stay the same).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k() { kubectl "$@" "${options[@]}"; }
options=("$@")
command -v kubectl >/dev/null || { echo "run.sh: kubectl is not on PATH" >&2; exit 2; }

k apply -f "$here/mkb-shards.yaml"
echo "waiting for job/mkb-shards to end"
while :; do
  conditions=$(k get job mkb-shards -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
  case " $conditions " in
    *" Complete "*) echo "job/mkb-shards: every shard completed"; break ;;
    *" Failed "*) echo "job/mkb-shards: failed indexes: $(k get job mkb-shards -o jsonpath='{.status.failedIndexes}')"; break ;;
  esac
  sleep 30
done

k delete job mkb-score --ignore-not-found --wait=true
k apply -f "$here/mkb-score.yaml"
status=0
while :; do
  conditions=$(k get job mkb-score -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
  case " $conditions " in
    *" Complete "*) break ;;
    *" Failed "*) status=1; break ;;
  esac
  sleep 10
done
k logs job/mkb-score
exit $status
