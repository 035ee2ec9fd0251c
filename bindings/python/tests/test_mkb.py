"""The Python bindings over the real libmkb: a session, tasks, submissions, skills, finalizing,
scores, and errors as exceptions. The GPU is stood in for by the worker test double (conftest.py)."""
import gc
import math

import pytest

import mkb

ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"


def kernel(solutions, problem: str, time_us: float) -> str:
    folder = "extra" if problem == ROUTING else "mlp_norm"
    text = (solutions / folder / problem / "solutions" / "cuda.cu").read_text()
    return text + f"\n// mkb-double: time_us={time_us} baseline_us=100\n"


def test_version_and_enums():
    assert mkb.version().count(".") == 2
    assert mkb.Verdict.NO_KERNEL == 13
    assert mkb.Arm.B2A_SKILL == 3


def test_open_errors_are_exceptions(worker):
    with pytest.raises(mkb.ConfigError, match="gpus"):
        mkb.Session(worker_path=worker, gpus="zero")
    with pytest.raises(mkb.NotFoundError, match="/nonexistent"):
        mkb.Session(worker_path=worker, suite_path="/nonexistent")
    with pytest.raises(mkb.NotFoundError, match="'no_such_problem_\\*'"):
        mkb.Session(worker_path=worker, problems="no_such_problem_*")
    with pytest.raises(mkb.ConfigError, match="problems"):
        mkb.Session(worker_path=worker, problems="")


def test_the_four_arms_end_to_end(worker, solutions, tmp_path):
    ledger = str(tmp_path / "run.ledger")
    played = []
    # Two problems keep the protocol's figures fixed as the suite grows.
    with mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", ledger_path=ledger, model="py",
                     problems=f"fused_add_rmsnorm_h4096_llama31_8b_bf16,{ROUTING}",
                     cache_dir=str(tmp_path / "cache")) as session:
        for task in session.tasks(wait_ms=200):
            with task:
                assert task.problem in task.instruction
                assert (task.source_skill is not None) == (task.arm >= mkb.Arm.A2B_SKILL)
                report = task.submit(kernel(solutions, task.problem, 20 - 3 * task.arm))
                assert report.verdict == mkb.Verdict.PASSED, report.message
                assert report.counted and report.submissions_left == 9
                assert math.isclose(report.speedup, 100 / (20 - 3 * task.arm))
                assert report.json["problem"] == task.problem
                task.submit_skill(f"notes from {task.id}")  # every arm keeps a skill
                task.add_usage(100, 20, 0.01)
                final = task.finalize()
                assert final.final and not final.counted
                with pytest.raises(mkb.StateError):
                    task.finalize()
                played.append(task.arm)
        assert sorted(played) == [0, 0, 1, 1, 2, 2, 3, 3]
        scores = session.score()
        assert {d["direction"] for d in scores["directions"]} == {"a_to_b", "b_to_a"}
        assert "paired comparisons" in session.score(table=True)
    assert mkb.score_ledgers([ledger])["directions"][0]["pairs"] == 2
    with pytest.raises(mkb.LedgerIOError, match="/nonexistent/ledger"):
        mkb.score_ledgers(["/nonexistent/ledger"])


def test_budget_and_refusals(worker, solutions, tmp_path):
    with mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING, budget_submissions=1,
                     budget_source_bytes=4000, cache_dir=str(tmp_path / "cache")) as session:
        task = session.next_tasks(1)[0]
        refused = task.submit("x" * 5000)
        assert refused.verdict == mkb.Verdict.REFUSED and not refused.counted
        assert refused.submissions_left == 1
        task.submit(kernel(solutions, ROUTING, 10))
        with pytest.raises(mkb.BudgetError):
            task.submit(kernel(solutions, ROUTING, 5))
        assert task.finalize().time_us == 10
        task.close()
        with pytest.raises(mkb.StateError, match="released"):
            task.submit("x")


def test_compile_checks_spend_no_submission(worker, solutions, tmp_path):
    with mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING, budget_submissions=2,
                     cache_dir=str(tmp_path / "cache")) as session:
        task = session.next_tasks(1)[0]
        assert task.submissions_left == 2
        assert 0 < task.seconds_left <= 2400
        good = kernel(solutions, ROUTING, 10)
        broken = task.compile(good + "\nthis_is_not_cuda;\n")
        assert broken.verdict == mkb.Verdict.COMPILE_ERROR and not broken.counted
        assert "this_is_not_cuda" in broken.message
        checked = task.compile(good)
        assert checked.verdict == mkb.Verdict.COMPILED, checked.message
        assert "1 launch checked" in checked.message
        assert checked.submission == 0 and checked.submissions_left == 2
        assert task.submissions_left == 2
        assert task.submit(good).submissions_left == 1
        assert task.submissions_left == 1
        task.finalize()
        assert task.seconds_left == 0
        with pytest.raises(mkb.StateError):
            task.compile(good)
        task.close()


def test_handles_are_released_by_the_garbage_collector(worker, solutions, tmp_path):
    session = mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING,
                          cache_dir=str(tmp_path / "cache"))
    tasks = session.next_tasks(2)
    assert len(tasks) == 2
    del tasks  # released without finalizing: each is finalized (no kernel) as it is released
    gc.collect()
    report = session.evaluate(ROUTING, "cuda", kernel(solutions, ROUTING, 7))
    assert report.passed and report.time_us == 7
    del session
    gc.collect()
