"""The calls of issue 15 through the Python bindings, against the worker test double: usage with
cached tokens, naming the final kernel, submission numbers, dry-run plans, and stale trials in scores."""
import json
import subprocess
from pathlib import Path

import pytest

import mkb

ROOT = Path(__file__).resolve().parents[3]
ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"


def kernel(time_us: float) -> str:
    text = (ROOT / "problems" / "extra" / ROUTING / "solutions" / "cuda.cu").read_text()
    return text + f"\n// mkb-double: time_us={time_us} baseline_us=100\n"


def options(worker, tmp_path, **more):
    return dict(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING, model="py",
                ledger_path=str(tmp_path / "run.ledger"), cache_dir=str(tmp_path / "cache"), **more)


def finished_records(mkb_cli: str, ledger: Path) -> list[dict]:
    dump = subprocess.run([mkb_cli, "ledger", "dump", str(ledger)], capture_output=True, text=True, check=True)
    records = [json.loads(line) for line in dump.stdout.splitlines()]
    return [r["body"] for r in records if r["body_type"] == "TrialFinished"]


def play_all(session: mkb.Session, time_us: float = 10) -> int:
    played = 0
    for task in session.tasks(wait_ms=200):
        with task:
            task.submit(kernel(time_us))
            task.submit_skill(f"notes from {task.id}")
            task.finalize()
            played += 1
    return played


def test_usage_counts_cached_tokens(worker, mkb_cli, tmp_path):
    with mkb.Session(**options(worker, tmp_path, trials=f"{ROUTING}/cuda/solo_a/r0")) as session:
        with session.next_tasks(1)[0] as task:
            task.add_usage(1000, 100, 0.25, cached_input_tokens=600)
            task.add_usage(500, 50, 0.25, cached_input_tokens=500)
            task.add_usage(200, 10)  # the first version's call: nothing cached
            with pytest.raises(mkb.InvalidArgumentError, match=r"cached_input_tokens \(61\).*input_tokens \(60\)"):
                task.add_usage(60, 0, cached_input_tokens=61)
            task.finalize()
    [record] = finished_records(mkb_cli, tmp_path / "run.ledger")
    assert (record["input_tokens"], record["cached_input_tokens"], record["output_tokens"]) == (1700, 1100, 160)
    assert record["cost_usd"] == 0.5


def test_the_final_kernel_is_the_one_named(worker, mkb_cli, tmp_path):
    with mkb.Session(**options(worker, tmp_path, budget_source_bytes=len(kernel(10)) + 10)) as session:
        tasks = session.next_tasks(2)
        named, written = tasks
        fast, refused, slow = named.submit(kernel(10)), named.submit("x" * 20000), named.submit(kernel(30))
        assert (fast.submission, refused.submission, slow.submission) == (1, 2, 3)
        assert refused.verdict == mkb.Verdict.REFUSED
        with pytest.raises(mkb.NotFoundError, match="submission 2 .*did not enter evaluation"):
            named.set_final_submission(2)
        with pytest.raises(mkb.NotFoundError):
            named.set_final_submission(9)
        named.set_final_submission(1)
        final = named.finalize()
        assert final.final and final.time_us == 10 and final.submission == 0
        with pytest.raises(mkb.StateError):
            named.set_final_submission(1)

        written.submit(kernel(20))
        with pytest.raises(mkb.ConfigError, match="20000 bytes; the limit is"):
            written.set_final("y" * 20000)
        written.set_final(kernel(7))  # never submitted: no submission spent
        assert written.finalize().time_us == 7
        for task in tasks:
            task.close()
    kinds = {r["final_kernel"] for r in finished_records(mkb_cli, tmp_path / "run.ledger")}
    assert {"submission 1", "named source"} <= kinds


def test_plan_is_a_dry_run_with_states(worker, tmp_path):
    ledger = tmp_path / "run.ledger"
    chosen = f"{ROUTING}/cuda/solo_?/r0"
    planned = mkb.plan(**options(worker, tmp_path, trials=chosen))
    assert planned["trials_planned"] == 2 and planned["counts"] == {"pending": 2}
    assert [t["arm"] for t in planned["trials"]] == ["solo_a", "solo_b"]
    assert not ledger.exists()  # nothing was started or written
    with mkb.Session(**options(worker, tmp_path, trials=chosen)) as session:
        assert play_all(session) == 2
    after = mkb.plan(**options(worker, tmp_path))
    assert after["counts"] == {"done": 2, "pending": 2}
    assert "pending      " + f"{ROUTING}/cuda/a2b_skill/r0" in mkb.plan(table=True, **options(worker, tmp_path))
    with pytest.raises(mkb.ConfigError, match="directions"):
        mkb.plan(**options(worker, tmp_path, directions="a_to_c"))


def test_stale_trials_are_scored_only_when_asked(worker, tmp_path):
    ledger = str(tmp_path / "run.ledger")
    with mkb.Session(**options(worker, tmp_path)) as session:
        assert play_all(session) == 4
        assert session.score()["directions"][0]["pairs"] == 1
    # Another budget is another contract: the first session's trials are stale now.
    changed = options(worker, tmp_path, budget_submissions=5)
    assert mkb.plan(**changed)["counts"] == {"stale": 4}
    with mkb.Session(**changed) as session:
        assert session.next_tasks(1) == [] and session.done  # kept, not re-run
        left_out = session.score()
        assert left_out["directions"][0]["pairs"] == 0 and left_out["models"][0]["stale"]["count"] == 4
        assert session.score(with_stale=True)["directions"][0]["pairs"] == 1
    assert mkb.score_ledgers([ledger])["directions"][0]["pairs"] == 0
    assert mkb.score_ledgers([ledger], with_stale=True)["directions"][0]["pairs"] == 1
    assert "paired comparisons" in mkb.score_ledgers([ledger], table=True, with_stale=True)
    assert mkb.plan(**changed, rerun_stale=True)["counts"] == {"rerun": 4}
