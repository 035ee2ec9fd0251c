"""The reference and the DSL notes cut out of a task's instruction (mkb/mcp/sections.py), against the
suite's files: a reference with headings of its own stays whole. Needs no MCP SDK."""
from pathlib import Path

import pytest

import mkb
from mkb.mcp import sections

ROOT = Path(__file__).resolve().parents[3]
HEADINGS = "embedding_rmsnorm_backward_jamba_bf16"  # its reference.md has '## ' headings


def instruction(worker, tmp_path, problem: str, dsl: str) -> str:
    with mkb.Session(worker_path=worker, dsl_a=dsl, dsl_b=dsl, problems=problem, compile_only=True,
                     cache_dir=str(tmp_path / "cache")) as session:
        with session.next_tasks(1)[0] as task:
            return task.instruction


def test_the_reference_is_the_problems_reference_md(worker, tmp_path):
    text = instruction(worker, tmp_path, HEADINGS, "cuda")
    expected = (ROOT / "problems" / "mlp_norm" / HEADINGS / "reference.md").read_text()
    assert "\n## " in expected
    assert sections.reference(text) == expected.strip() + "\n"


@pytest.mark.parametrize("dsl, notes", [("cuda", "cuda_notes.md"), ("tirx", "tirx_notes.md")])
def test_the_notes_are_the_dsls_notes(worker, tmp_path, dsl, notes):
    text = instruction(worker, tmp_path, HEADINGS, dsl)
    # The library follows the file with what the DSL is built with (the compiler, the pinned package).
    cut = sections.dsl_notes(text)
    assert cut.startswith((ROOT / "src" / "dsl" / notes).read_text().strip() + "\n")
    assert "## How you are graded" not in cut and cut.endswith(".\n")


def test_a_missing_heading_is_named():
    with pytest.raises(ValueError, match="'## How you are graded'"):
        sections.dsl_notes("## How to submit\nnotes, and nothing after them\n")
    with pytest.raises(ValueError, match="'## What to compute'"):
        sections.reference("no headings at all")
