"""Python bindings for libmkb: MetaKernelBench as an embeddable library.

    import mkb
    with mkb.Session(dsl_a="cuda", dsl_b="cuda", ledger_path=Path("run.ledger"), model="my-model") as session:
        for task in session.tasks():
            with task:
                check = task.compile(kernel_source)      # free: COMPILED or the compiler's log
                report = task.submit(kernel_source)
                print(report.verdict, report.message)     # PASSED ...
                task.submit_skill("what I learned")
                task.add_usage(1200, 300, 0.01, cached_input_tokens=800)
                final = task.finalize()
        print(session.score(table=True))

Handles are released deterministically by `close()` or a `with` block, and at garbage collection as a
safety net. Every failing call raises a subclass of MkbError carrying the status and the library's
error text; each also derives from the fitting built-in (ValueError, LookupError, OSError,
RuntimeError). The library is found through $MKB_LIB_PATH, then inside this package (the libmkb
wheel puts it there), then the system.
"""
from __future__ import annotations

from ._discovery import Dsl, DslList, Problem, Sandbox, Tensor, list_dsls, list_problems
from ._enums import Arm, Verdict
from ._errors import (BudgetError, ConfigError, InternalError, InvalidArgumentError, LedgerError, LedgerIOError,
                      MkbError, NoMemoryError, NotFoundError, SpecError, StateError, UnsupportedError, VersionError,
                      WorkerError)
from ._native import lib as _lib
from ._offline import plan, score_ledgers
from ._progress import Progress
from ._report import Report
from ._session import Session, Task

__all__ = [
    "Arm", "Verdict", "Session", "Task", "Report", "score_ledgers", "plan", "Progress", "list_problems", "list_dsls",
    "Problem", "Tensor", "Dsl", "DslList", "Sandbox", "version", "version_number", "abi_version",
    "MkbError", "InvalidArgumentError", "ConfigError", "NotFoundError", "StateError", "BudgetError",
    "LedgerIOError", "LedgerError", "WorkerError", "NoMemoryError", "UnsupportedError", "VersionError",
    "SpecError", "InternalError",
]


def version() -> str:
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return _lib.mkb_version().decode()


def version_number() -> int:
    """The library's version as MAJOR * 10000 + MINOR * 100 + PATCH."""
    return _lib.mkb_version_number()


def abi_version() -> int:
    """The library's ABI version (checked against these bindings' at import)."""
    return _lib.mkb_abi_version()
