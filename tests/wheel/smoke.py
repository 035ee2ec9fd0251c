"""Run by tests/wheel/run.sh under the virtual environment holding the libmkb wheel: imports mkb from
there, opens a compile-only session, compiles one stored cuda solution, and lists the suite's problems
and the DSLs. Usage: smoke.py PROBLEMS_FOLDER CACHE_DIR. Any failure raises."""
import os
import sys
from pathlib import Path

import mkb

PROBLEM = "topk_softmax_routing_mixtral_8x7b_bf16"


def main(problems: Path, cache_dir: Path) -> None:
    assert not [name for name in os.environ if name.startswith("MKB_")], "MKB_* variables are set"
    package = Path(mkb.__file__).resolve().parent
    assert package.is_relative_to(Path(sys.prefix).resolve()), f"mkb imported from {package}, not the venv"
    assert (package / "libmkb.so.1").is_file(), f"no libmkb.so.1 in {package}"
    assert os.access(package / "mkb-worker", os.X_OK), f"no executable mkb-worker in {package}"
    # The build machine's DSL interpreter (.venv of scripts/setup) is not recorded in the wheel's library.
    assert b"/.venv/bin/python3" not in (package / "libmkb.so.1").read_bytes(), "libmkb.so.1 records a .venv"
    print(f"libmkb {mkb.version()} from {package}")

    source = (problems / "extra" / PROBLEM / "solutions" / "cuda.cu").read_text()
    # Opening finds the worker beside the library: a session fails to open without it.
    with mkb.Session(compile_only=True, dsl_a="cuda", dsl_b="cuda", problems=[PROBLEM], cache_dir=cache_dir,
                     ledger_path=cache_dir / "run.ledger") as session:
        report = session.evaluate(PROBLEM, "cuda", source)
        assert report.verdict == mkb.Verdict.COMPILED, f"{report.verdict}: {report.message}"
        print(f"{PROBLEM} in cuda: {report.verdict}")

    problem_ids = [p.id for p in mkb.list_problems()]
    assert PROBLEM in problem_ids, problem_ids
    dsl_list = mkb.list_dsls()
    assert dsl_list.python == sys.executable, f"frontends' interpreter {dsl_list.python}, not {sys.executable}"
    assert dsl_list["cuda"].usable, dsl_list["cuda"].detail
    print(f"{len(problem_ids)} problems; DSLs: " + ", ".join(f"{d.name} ({'usable' if d.usable else 'not usable'})"
                                                          for d in dsl_list.dsls))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
