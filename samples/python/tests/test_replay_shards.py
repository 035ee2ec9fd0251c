"""Shards of the replay demo (the worker TEST DOUBLE stands in for the GPU): the shards' plans partition
the unsharded plan with each problem and replicate's arms together, and the shards' ledgers, scored
together or merged into one, score as one unsharded run does (docs/SCALING.md)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import mkb  # noqa: E402

PROBLEMS = "fused_add_rmsnorm_h4096_llama31_8b_bf16,topk_softmax_routing_mixtral_8x7b_bf16,rmsnorm_h128_qwen3_30b_bf16"
SHARDS = 3


def build_path(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise pytest.UsageError(f"{name} is not set: run these tests through CTest (ctest -R bindings.python)")
    return value


def replay(ledger: Path, *extra: str) -> None:
    out = subprocess.run([sys.executable, str(ROOT / "samples/python/replay_agent.py"), "--ledger", str(ledger),
                          "--dsl-a", "cuda", "--dsl-b", "cuda", "--worker", build_path("MKB_TEST_WORKER_DOUBLE"),
                          "--problems", PROBLEMS, *extra], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr


def without_wall_clock(scores):
    """The scores less the agents' wall-clock seconds, which no two runs share."""
    if isinstance(scores, dict):
        return {k: without_wall_clock(v) for k, v in scores.items() if k != "mean_agent_seconds"}
    if isinstance(scores, list):
        return [without_wall_clock(v) for v in scores]
    return scores


def test_the_shards_plans_partition_the_plan_keeping_each_unit_together():
    options = dict(problems=PROBLEMS, dsl_a="cuda", dsl_b="cuda", replicates=2)
    whole = {t["id"] for t in mkb.plan(**options)["trials"]}
    assert len(whole) == 3 * 2 * 4
    seen, unit_shard = set(), {}
    for index in range(SHARDS):
        planned = mkb.plan(shard=(index, SHARDS), **options)
        assert planned["shard"] == {"index": index, "count": SHARDS}
        for trial in planned["trials"]:
            assert trial["id"] not in seen, f"{trial['id']} is in two shards"
            seen.add(trial["id"])
            problem, _, _, replicate = trial["id"].split("/")
            assert unit_shard.setdefault((problem, replicate), index) == index, "a unit's arms are split"
    assert seen == whole
    with pytest.raises(ValueError, match="expected 0 <= index < count"):
        mkb.plan(shard="3/3", **options)


def test_shard_ledgers_score_as_one_unsharded_run(tmp_path):
    shards = [tmp_path / f"shard{i}.ledger" for i in range(SHARDS)]
    for i, ledger in enumerate(shards):
        replay(ledger, "--shard", f"{i}/{SHARDS}")
    replay(tmp_path / "whole.ledger")
    whole = without_wall_clock(mkb.score_ledgers([str(tmp_path / "whole.ledger")]))
    assert whole["directions"][0]["pairs"] == 3
    assert without_wall_clock(mkb.score_ledgers([str(p) for p in shards])) == whole

    cli = build_path("MKB_TEST_CLI")
    merged = tmp_path / "merged.ledger"
    out = subprocess.run([cli, "ledger", "merge", str(merged), *map(str, shards)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert f"of {SHARDS} ledgers into {merged}" in out.stdout
    assert without_wall_clock(mkb.score_ledgers([str(merged)])) == whole
    again = subprocess.run([cli, "ledger", "merge", str(merged), str(shards[0])], capture_output=True, text=True)
    assert again.returncode == 1 and "never replaces one" in again.stderr

    # A ledger of another configuration (another DSL pair) is not a shard of this run.
    other = tmp_path / "other.ledger"
    subprocess.run([sys.executable, str(ROOT / "samples/python/replay_agent.py"), "--ledger", str(other), "--dsl-a", "cuda",
                    "--dsl-b", "triton", "--worker", build_path("MKB_TEST_WORKER_DOUBLE"), "--problems",
                    "topk_softmax_routing_mixtral_8x7b_bf16"], capture_output=True, text=True, timeout=600)
    refused = subprocess.run([cli, "ledger", "merge", str(tmp_path / "mixed.ledger"), str(shards[0]), str(other)],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "planned with different fingerprints" in refused.stderr, refused.stderr
    assert not (tmp_path / "mixed.ledger").exists()
