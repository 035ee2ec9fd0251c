"""The binding's Python conventions: paths as os.PathLike, lists as well as comma-joined strings, None
for every default, enums that print by name, exceptions under the fitting built-ins, a docstring on
every public name, and scores typed by overloads."""
import inspect
import os
import sys
import typing
from pathlib import Path

import pytest

import mkb
from mkb import _options

ROOT = Path(__file__).resolve().parents[3]
ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"
RMSNORM = "fused_add_rmsnorm_h4096_llama31_8b_bf16"


def kernel(time_us: float) -> str:
    text = (ROOT / "problems" / "extra" / ROUTING / "solutions" / "cuda.cu").read_text()
    return text + f"\n// mkb-double: time_us={time_us} baseline_us=100\n"


def trial_ids(planned: dict) -> list[str]:
    return [t["id"] for t in planned["trials"]]


# ---- os.PathLike ---------------------------------------------------------------------------------

def test_paths_may_be_pathlike(worker, tmp_path):
    ledger = tmp_path / "run.ledger"
    with mkb.Session(worker_path=Path(worker), dsl_a="cuda", dsl_b="cuda", problems=ROUTING, model="py",
                     ledger_path=ledger, cache_dir=tmp_path / "cache", suite_path=ROOT / "problems",
                     trials=f"{ROUTING}/cuda/solo_a/r0") as session:
        with session.next_tasks(1)[0] as task:
            task.submit(kernel(10))
            task.finalize()
    assert ledger.is_file() and (tmp_path / "cache").is_dir()
    assert mkb.score_ledgers(ledger) == mkb.score_ledgers([ledger]) == mkb.score_ledgers((str(ledger),))
    assert mkb.plan(ledger_path=ledger, worker_path=Path(worker), dsl_a="cuda", dsl_b="cuda", problems=ROUTING,
                    suite_path=ROOT / "problems", model="py")["counts"]["done"] == 1


def test_a_path_of_the_wrong_type_is_named():
    with pytest.raises(TypeError, match="ledger_path: expected a path .* got int"):
        mkb.plan(ledger_path=3)
    with pytest.raises(TypeError, match="paths: expected a path .* got NoneType"):
        mkb.score_ledgers([None])


# ---- lists ----------------------------------------------------------------------------------------

def test_list_options_take_lists_and_tuples(worker):
    base = dict(worker_path=worker, dsl_a="cuda", dsl_b="cuda")
    joined = mkb.plan(problems=f"{ROUTING},{RMSNORM}", **base)
    assert trial_ids(mkb.plan(problems=[ROUTING, RMSNORM], **base)) == trial_ids(joined)
    assert trial_ids(mkb.plan(problems=(ROUTING, RMSNORM), **base)) == trial_ids(joined)
    assert len(joined["trials"]) == 8
    solos = mkb.plan(problems=[ROUTING], trials=[f"{ROUTING}/cuda/solo_a/r0", f"{ROUTING}/cuda/solo_b/r0"], **base)
    assert [t["arm"] for t in solos["trials"]] == ["solo_a", "solo_b"]
    one_way = mkb.plan(problems=[ROUTING], directions=["a_to_b"], **base)
    assert sorted(t["arm"] for t in one_way["trials"]) == ["a2b_skill", "solo_a", "solo_b"]
    extra = {folder.name for folder in (ROOT / "problems" / "extra").iterdir() if (folder / "spec.json").is_file()}
    assert {t["problem"] for t in mkb.plan(families=["extra"], **base)["trials"]} == extra
    with pytest.raises(mkb.ConfigError, match='got "0,zero"'):  # the list reached the library, joined
        mkb.plan(gpus=[0, "zero"], **base)


def test_list_options_refuse_other_types():
    with pytest.raises(TypeError, match="problems: expected a str or a list of str, got bytes"):
        mkb.plan(problems=b"softmax")
    with pytest.raises(TypeError, match="gpus: expected a str or a list of str, got float"):
        mkb.plan(gpus=1.5)
    with pytest.raises(TypeError, match="families: expected str items, got NoneType"):
        mkb.plan(families=["extra", None])


# ---- None means the default ----------------------------------------------------------------------

def test_none_keeps_every_default(worker):
    keywords = [name for name, p in inspect.signature(_options.open_options).parameters.items()
                if p.default is None]
    assert len(keywords) > 20  # every field but the three flags
    every_none = mkb.plan(**{name: None for name in keywords if name != "worker_path"}, worker_path=worker)
    assert every_none == mkb.plan(worker_path=worker)
    assert every_none["trials_planned"] > 0


def test_numbers_take_none_and_refuse_zero(worker):
    base = dict(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING)
    assert len(mkb.plan(replicates=None, **base)["trials"]) == 4
    assert len(mkb.plan(replicates=2, **base)["trials"]) == 8
    with pytest.raises(ValueError, match=r"replicates: expected 1 to 4294967295, got 0; None selects 1"):
        mkb.plan(replicates=0, **base)
    with pytest.raises(ValueError, match="seed: .* got 0; None selects a seed from the OS"):
        mkb.plan(seed=0, **base)
    with pytest.raises(ValueError, match="budget_seconds: .* got -5"):
        mkb.plan(budget_seconds=-5, **base)
    with pytest.raises(ValueError, match="budget_submissions: .* got 4294967296"):
        mkb.plan(budget_submissions=2**32, **base)
    with pytest.raises(TypeError, match="budget_submissions: expected an int or None, got bool"):
        mkb.plan(budget_submissions=True, **base)


def test_the_frontends_run_under_this_interpreter_by_default(monkeypatch, tmp_path):
    monkeypatch.delenv("MKB_PYTHON", raising=False)
    assert _options.open_options().python == os.fsencode(sys.executable)
    assert _options.open_options(python=tmp_path / "python").python == os.fsencode(tmp_path / "python")
    monkeypatch.setenv("MKB_PYTHON", "/opt/dsl-venv/bin/python")
    assert _options.open_options().python is None  # the library reads MKB_PYTHON itself


# ---- enums ------------------------------------------------------------------------------------------

def test_enums_print_by_name_and_stay_integers(worker, capsys):
    print(mkb.Verdict.PASSED, mkb.Arm.A2B_SKILL)
    assert capsys.readouterr().out == "PASSED A2B_SKILL\n"
    assert f"{mkb.Verdict.WRONG_ANSWER}|{mkb.Arm.SOLO_B:>8}" == "WRONG_ANSWER|  SOLO_B"
    assert mkb.Verdict.COMPILED == 12 and mkb.Arm.B2A_SKILL + 0 == 3
    with mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING) as session:
        assert str(session.evaluate(ROUTING, "cuda", kernel(7)).verdict) == "PASSED"
        assert str(session.evaluate(ROUTING, "cuda", "not a kernel").verdict) == "REFUSED"  # no launch plan
        [task] = session.next_tasks(1)
        assert str(task.arm) in {"SOLO_A", "SOLO_B"}
        task.close()


# ---- exceptions -------------------------------------------------------------------------------------

@pytest.mark.parametrize("error, builtin", [
    (mkb.InvalidArgumentError, ValueError), (mkb.ConfigError, ValueError), (mkb.SpecError, ValueError),
    (mkb.NotFoundError, LookupError), (mkb.LedgerIOError, OSError), (mkb.UnsupportedError, NotImplementedError),
    (mkb.StateError, RuntimeError), (mkb.BudgetError, RuntimeError), (mkb.LedgerError, RuntimeError),
    (mkb.WorkerError, RuntimeError), (mkb.NoMemoryError, RuntimeError), (mkb.VersionError, RuntimeError),
    (mkb.InternalError, RuntimeError)])
def test_every_error_derives_from_mkb_error_and_a_builtin(error, builtin):
    assert issubclass(error, mkb.MkbError) and issubclass(error, builtin)


def test_errors_are_caught_as_builtins(worker, tmp_path):
    with pytest.raises(ValueError, match="gpus") as config:
        mkb.Session(worker_path=worker, gpus="zero")
    assert config.value.status == -2
    with pytest.raises(LookupError, match="/nonexistent"):
        mkb.Session(worker_path=worker, suite_path=Path("/nonexistent"))
    with pytest.raises(OSError, match="/nonexistent/ledger"):
        mkb.score_ledgers(Path("/nonexistent/ledger"))
    with mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING) as session:
        task = session.next_tasks(1)[0]
        task.close()
        with pytest.raises(RuntimeError, match="released"):
            task.submit("x")


# ---- docstrings ---------------------------------------------------------------------------------------

def public_members(cls: type) -> list[str]:
    return [name for name, value in vars(cls).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, property))]


def test_every_public_name_has_a_docstring():
    missing = []
    for name in mkb.__all__:
        value = getattr(mkb, name)
        doc = inspect.getdoc(value) or ""
        if not doc or doc.startswith(f"{name}("):  # a dataclass's generated signature is no docstring
            missing.append(name)
        if inspect.isclass(value) and not issubclass(value, int):
            missing += [f"{name}.{member}" for member in public_members(value)
                        if not inspect.getdoc(getattr(value, member))]
    assert missing == []
    assert "Session.score" not in missing and public_members(mkb.Session)  # the walk sees methods


def test_all_names_every_public_definition():
    defined = {name for name, value in vars(mkb).items()
               if not name.startswith("_") and (inspect.isclass(value) or inspect.isfunction(value))
               and value.__module__.startswith("mkb")}
    assert defined == set(mkb.__all__)


# ---- overloads ----------------------------------------------------------------------------------------

@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.get_overloads needs Python 3.11")
@pytest.mark.parametrize("function", [mkb.score_ledgers, mkb.plan, mkb.Session.score])
def test_table_true_is_typed_str_else_dict(function):
    overloads = typing.get_overloads(function)
    assert len(overloads) == 2
    returns = {}
    for overload in overloads:
        hints = typing.get_type_hints(overload)
        returns[typing.get_args(hints["table"])] = hints["return"]
    assert returns == {(True,): str, (False,): dict[str, typing.Any]}


def test_table_true_returns_str_else_dict(worker, tmp_path):
    ledger = tmp_path / "run.ledger"
    options = dict(worker_path=worker, dsl_a="cuda", dsl_b="cuda", problems=ROUTING, ledger_path=ledger)
    assert isinstance(mkb.plan(**options), dict) and isinstance(mkb.plan(True, **options), str)
    with mkb.Session(**options) as session:
        assert isinstance(session.score(), dict) and isinstance(session.score(table=True), str)
    assert isinstance(mkb.score_ledgers(ledger), dict)
    assert isinstance(mkb.score_ledgers(ledger, table=True), str)
