#!/usr/bin/env python3
"""The Kubernetes deployment (deploy/k8s) without a cluster (kubectl and a cluster are not available
here): its manifests parse as YAML, and each Job is what docs/SCALING.md says it is (an Indexed Job of
MKB_RUN_SHARDS completions with a per-index backoff, preemption not counted, GPUs asked for, the
ledgers' volume mounted over MKB_RUN_DIR; a scoring Job on the same settings and volume; commands that
exist in the clone). Then the pods' commands are run here as the Jobs would run them: each shard's
with JOB_COMPLETION_INDEX and the ConfigMap's settings (with the session's options, the agent's worker
and the run's folder replaced by the test's), then the scoring one, and the merged scores must equal
the scores of the shards' ledgers. Exit 77 without PyYAML.

    k8s_check.py REPO            # CTest passes MKB_TEST_CLI, MKB_LIB_PATH, MKB_TEST_WORKER_DOUBLE
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import yaml
except ImportError:
    print("skipped: PyYAML is not installed for this interpreter (scripts/setup puts it in .venv)")
    sys.exit(77)

REPO = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
K8S = REPO / "deploy" / "k8s"
problems = []


def check(condition: bool, what: str) -> None:
    if not condition:
        problems.append(what)


def load(name: str) -> dict:
    documents = [d for d in yaml.safe_load_all((K8S / name).read_text()) if d is not None]
    by_kind = {}
    for document in documents:
        check(document.get("apiVersion") in ("v1", "batch/v1"), f"{name}: apiVersion {document.get('apiVersion')}")
        check(document["kind"] not in by_kind, f"{name}: two {document['kind']}s")
        by_kind[document["kind"]] = document
    return by_kind


def image_command(name: str, container: dict) -> None:
    command = container["command"][0]
    check(command.startswith("/opt/libmkb/"), f"{name}: command {command} is not in the image's clone")
    in_clone = REPO / command.removeprefix("/opt/libmkb/")
    check(in_clone.is_file() and os.access(in_clone, os.X_OK), f"{name}: {in_clone} is not an executable file")


shards = load("mkb-shards.yaml")
score = load("mkb-score.yaml")
check(set(shards) == {"ConfigMap", "PersistentVolumeClaim", "Job"}, f"mkb-shards.yaml holds {sorted(shards)}")
check(set(score) == {"Job"}, f"mkb-score.yaml holds {sorted(score)}")
settings = shards["ConfigMap"]["data"]
claim = shards["PersistentVolumeClaim"]
job = shards["Job"]["spec"]
check(all(isinstance(v, str) for v in settings.values()), "the ConfigMap has a value that is not a string")
for name in ("MKB_REPO", "MKB_RUN_DIR", "MKB_RUN_SHARDS"):
    check(name in settings, f"the ConfigMap lacks {name}, which the shard script requires")
check("ReadWriteMany" in claim["spec"]["accessModes"], "the ledgers' volume is not ReadWriteMany")
check(job.get("completionMode") == "Indexed", "mkb-shards is not an Indexed Job")
check(str(job.get("completions")) == settings.get("MKB_RUN_SHARDS"),
      f"completions {job.get('completions')} != MKB_RUN_SHARDS {settings.get('MKB_RUN_SHARDS')}")
check(1 <= job.get("parallelism", 0) <= job.get("completions", 0), "parallelism is not within 1..completions")
check(job.get("backoffLimitPerIndex", 0) >= 1, "no backoffLimitPerIndex")
rules = job.get("podFailurePolicy", {}).get("rules", [])
check(any(r["action"] == "Ignore" and {"type": "DisruptionTarget"} in r.get("onPodConditions", []) for r in rules),
      "a preempted or evicted pod counts as a failure (no Ignore rule for DisruptionTarget)")
for name, spec in (("mkb-shards", job), ("mkb-score", score["Job"]["spec"])):
    pod = spec["template"]["spec"]
    check(pod["restartPolicy"] == "Never", f"{name}: restartPolicy {pod['restartPolicy']}")
    (container,) = pod["containers"]
    image_command(name, container)
    check({"configMapRef": {"name": shards["ConfigMap"]["metadata"]["name"]}} in container.get("envFrom", []),
          f"{name}: not configured by the ConfigMap")
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = [m for m in container["volumeMounts"]
              if volumes[m["name"]].get("persistentVolumeClaim", {}).get("claimName") == claim["metadata"]["name"]]
    check(len(mounts) == 1 and settings["MKB_RUN_DIR"].startswith(mounts[0]["mountPath"].rstrip("/") + "/"),
          f"{name}: MKB_RUN_DIR {settings['MKB_RUN_DIR']} is not on the ledgers' volume")
    gpus = container.get("resources", {}).get("limits", {}).get("nvidia.com/gpu")
    check((gpus is not None) == (name == "mkb-shards"), f"{name}: nvidia.com/gpu {gpus}")
for rule in rules:
    if "onExitCodes" in rule:
        check(rule["onExitCodes"]["containerName"] == job["template"]["spec"]["containers"][0]["name"],
              "podFailurePolicy names another container")

if problems:
    print("deploy/k8s:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"deploy/k8s: manifests parse and agree ({job['completions']} shards, "
      f"backoffLimitPerIndex {job['backoffLimitPerIndex']}, DisruptionTarget ignored)")

# The pods' commands, run here as the Jobs run them.
cli, worker = os.environ.get("MKB_TEST_CLI"), os.environ.get("MKB_TEST_WORKER_DOUBLE")
if not cli or not worker or not os.environ.get("MKB_LIB_PATH"):
    print("MKB_TEST_CLI, MKB_LIB_PATH or MKB_TEST_WORKER_DOUBLE is not set: run it through CTest "
          "(ctest -R deploy.k8s) to run the pods' commands too", file=sys.stderr)
    sys.exit(2)
with tempfile.TemporaryDirectory(prefix="mkb-k8s.") as work:
    env = dict(os.environ, **settings)
    env.update(MKB_REPO=str(REPO), MKB_RUN_DIR=f"{work}/run", MKB_RUN_MKB=cli, MKB_RUN_PYTHON=sys.executable,
               MKB_RUN_ARGS="--dsl-a cuda --dsl-b cuda --problems "
                            "fused_add_rmsnorm_h4096_llama31_8b_bf16,topk_softmax_routing_mixtral_8x7b_bf16,"
                            "rmsnorm_h128_qwen3_30b_bf16",
               MKB_RUN_AGENT_ARGS=f"--worker {worker}", MKB_CACHE_DIR=f"{work}/cache")
    env.pop("MKB_RUN_AGENT", None)
    for name in [n for n in env if n.startswith("SLURM_")]:
        del env[name]
    count = int(settings["MKB_RUN_SHARDS"])
    for index in range(count):
        out = subprocess.run([REPO / job["template"]["spec"]["containers"][0]["command"][0].removeprefix("/opt/libmkb/")],
                             env=dict(env, JOB_COMPLETION_INDEX=str(index)), capture_output=True, text=True,
                             timeout=600)
        if out.returncode != 0:
            print(out.stdout[-3000:], out.stderr[-3000:], file=sys.stderr)
            sys.exit(f"the pod of index {index} exited {out.returncode}")
        print(f"pod {index}: {out.stdout.splitlines()[0]} ... {out.stdout.strip().splitlines()[-1]}")
    out = subprocess.run([REPO / score["Job"]["spec"]["template"]["spec"]["containers"][0]["command"][0]
                          .removeprefix("/opt/libmkb/")], env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        print(out.stdout[-3000:], out.stderr[-3000:], file=sys.stderr)
        sys.exit(f"the scoring pod exited {out.returncode}")
    print(f"scoring pod: {out.stdout.strip().splitlines()[-1]}")
    ledgers = [f"{work}/run/ledgers/shard-{i}-of-{count}.ledger" for i in range(count)]
    scores = [json.loads(subprocess.run([cli, "score", "--json", *paths], capture_output=True, text=True,
                                        check=True).stdout)
              for paths in (ledgers, [f"{work}/run/merged.ledger"])]
    if scores[0] != scores[1] or scores[0]["models"] == []:
        sys.exit("the merged ledger does not score as the shards' ledgers do")
    with open(f"{work}/run/scores.json") as f:
        written = json.load(f)
    pairs = sum(d["pairs"] for d in written["vs_baseline"]["directions"])
    check(pairs > 0, "the scoring pod's scores.json has no pair")
    print(f"deploy/k8s: {count} pods and the scoring pod ran here; {pairs} paired comparisons, the merged "
          "ledger scores the same")
sys.exit(1 if problems else 0)
