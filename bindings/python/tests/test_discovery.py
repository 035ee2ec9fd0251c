"""mkb.list_problems and mkb.list_dsls over the real libmkb: the suite's problems and the DSLs
usable here, as records a framework builds its menus from."""
import json
import sys
from pathlib import Path

import pytest

import mkb

ROOT = Path(__file__).resolve().parents[3]
ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"


def test_the_built_in_suite_lists_every_problem_with_its_tensors():
    problems = mkb.list_problems()
    # Folders whose family or id starts with '_' (problems/_template) are set aside from the suite.
    specs = [s for s in sorted(ROOT.glob("problems/*/*/spec.json")) if not any(p.startswith("_") for p in s.parts[-3:-1])]
    assert sorted(p.id for p in problems) == sorted(spec.parent.name for spec in specs)
    routing = next(p for p in problems if p.id == ROUTING)
    spec = json.loads((ROOT / "problems" / "extra" / ROUTING / "spec.json").read_text())
    assert routing.family == "extra" and routing.description
    assert [t.name for t in routing.inputs] == [t["name"] for t in spec["inputs"]]
    assert [t.name for t in routing.outputs] == [t["name"] for t in spec["outputs"]]
    for tensor in routing.inputs + routing.outputs:
        assert isinstance(tensor, mkb.Tensor) and tensor.dtype
        assert tensor.shape and all(isinstance(d, int) and d > 0 for d in tensor.shape)


def test_the_template_loads_as_a_suite_of_its_own():
    template = mkb.list_problems(ROOT / "problems" / "_template")
    assert [(p.family, p.id) for p in template] == [("example", "swiglu_example_bf16")]


def test_a_suite_folder_may_be_a_path(tmp_path):
    folder = ROOT / "problems"
    assert [p.id for p in mkb.list_problems(folder)] == [p.id for p in mkb.list_problems(str(folder))]
    with pytest.raises(mkb.NotFoundError, match="/nonexistent"):
        mkb.list_problems(Path("/nonexistent"))
    broken = tmp_path / "suite" / "moe" / "broken"
    broken.mkdir(parents=True)
    (broken / "spec.json").write_text("{ not json")
    with pytest.raises(mkb.SpecError, match="broken"):
        mkb.list_problems(tmp_path / "suite")


def test_the_dsls_say_whether_each_is_usable(monkeypatch):
    monkeypatch.delenv("MKB_PYTHON", raising=False)
    dsl_list = mkb.list_dsls(dsl_a="cuda", dsl_b="cuda")
    names = [d.name for d in dsl_list.dsls]
    assert "cuda" in names and len(names) == len(set(names)) > 1
    assert dsl_list["cuda"].usable and dsl_list["cuda"].display_name
    assert all(d.detail for d in dsl_list.dsls if not d.usable)  # every refusal says why
    assert dsl_list.python == sys.executable  # the binding's default interpreter reached the library
    assert dsl_list.pair == ("cuda", "cuda") and dsl_list.pair_usable
    assert dsl_list.sandbox.detail
    assert len(dsl_list.default_pair) == 2 and all(n in names for n in dsl_list.default_pair)
    with pytest.raises(KeyError, match="no DSL named 'cobol'; registered: .*cuda"):
        dsl_list["cobol"]


def test_the_dsls_take_the_session_options(tmp_path, monkeypatch):
    interpreter = tmp_path / "no-such-python"
    dsl_list = mkb.list_dsls(python=interpreter)
    assert dsl_list.python == str(interpreter)
    assert dsl_list["cuda"].usable  # NVRTC needs no interpreter
    refused = [d for d in dsl_list.dsls if not d.usable]  # the Python DSLs cannot run without one
    assert refused and all(str(interpreter) in d.detail for d in refused)
    assert not mkb.list_dsls(no_sandbox=True).sandbox.confined
    monkeypatch.setenv("MKB_PYTHON", str(interpreter))  # read by the library, not replaced by the binding
    assert mkb.list_dsls().python == str(interpreter)
    with pytest.raises(mkb.NotFoundError, match="cobol"):
        mkb.list_dsls(dsl_a="cuda", dsl_b="cobol")
    with pytest.raises(mkb.ConfigError):
        mkb.list_dsls(dsl_a="cuda")
