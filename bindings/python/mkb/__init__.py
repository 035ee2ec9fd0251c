"""Python bindings for libmkb: MetaKernelBench as an embeddable library.

    import mkb
    with mkb.Session(dsl_a="cuda", dsl_b="cuda", ledger_path="run.ledger", model="my-model") as session:
        for task in session.tasks():
            with task:
                report = task.submit(kernel_source)
                print(report.message)
                task.submit_skill("what I learned")
                task.add_usage(1200, 300, 0.01, cached_input_tokens=800)
                final = task.finalize()
        print(session.score(table=True))

Handles are released deterministically by `close()` or a `with` block, and at garbage collection as a
safety net. Every failing call raises a subclass of MkbError carrying the status and the library's
error text. The library is found through $MKB_LIB_PATH, then next to this package, then the system.
"""
from __future__ import annotations

import ctypes
import enum
import json
import math
from typing import Any, Iterator, Optional, Sequence, Union

from . import _native
from ._native import lib

__all__ = [
    "Arm", "Verdict", "Session", "Task", "Report", "score_ledgers", "plan", "version", "version_number",
    "abi_version",
    "MkbError", "InvalidArgumentError", "ConfigError", "NotFoundError", "StateError", "BudgetError",
    "LedgerIOError", "LedgerError", "WorkerError", "NoMemoryError", "UnsupportedError", "VersionError",
    "SpecError", "InternalError",
]


class Verdict(enum.IntEnum):
    PASSED = 0
    REFUSED = 1
    COMPILE_ERROR = 2
    LAUNCH_ERROR = 3
    WRONG_ANSWER = 4
    OUT_OF_BOUNDS = 5
    INPUT_MODIFIED = 6
    FAULT = 7
    TIMEOUT = 8
    OUT_OF_MEMORY = 9
    CRASHED = 10
    INCONSISTENT = 11
    COMPILED = 12
    NO_KERNEL = 13


class Arm(enum.IntEnum):
    SOLO_A = 0
    SOLO_B = 1
    A2B_SKILL = 2
    B2A_SKILL = 3


class MkbError(Exception):
    """A failed libmkb call: `status` is the mkb_status, the message the library's error text."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{lib.mkb_status_name(status).decode()}: {message}")
        self.status = status


class InvalidArgumentError(MkbError): pass
class ConfigError(MkbError): pass
class NotFoundError(MkbError): pass
class StateError(MkbError): pass
class BudgetError(MkbError): pass
class LedgerIOError(MkbError): pass
class LedgerError(MkbError): pass
class WorkerError(MkbError): pass
class NoMemoryError(MkbError): pass
class UnsupportedError(MkbError): pass
class VersionError(MkbError): pass
class SpecError(MkbError): pass
class InternalError(MkbError): pass


_errors = {-1: InvalidArgumentError, -2: ConfigError, -3: NotFoundError, -4: StateError, -5: BudgetError,
           -6: LedgerIOError, -7: LedgerError, -8: WorkerError, -9: NoMemoryError, -10: UnsupportedError,
           -11: VersionError, -12: SpecError, -13: InternalError}

_OK, _NOT_READY, _DONE = 0, 1, 2


def _raise(status: int, text: Optional[bytes]) -> None:
    message = text.decode("utf-8", "replace") if text else ""
    raise _errors.get(status, MkbError)(status, message)


def _bytes(value: Union[str, bytes]) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value


def _text(value: Optional[str]) -> Optional[bytes]:
    return None if value is None else value.encode("utf-8")


def version() -> str:
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return lib.mkb_version().decode()


def version_number() -> int:
    """The library's version as MAJOR * 10000 + MINOR * 100 + PATCH."""
    return lib.mkb_version_number()


def abi_version() -> int:
    """The library's ABI version (checked against these bindings' at import)."""
    return lib.mkb_abi_version()


class _Releasable:
    """A handle released by close(), by a `with` block, or at garbage collection as a safety net."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


class Report:
    """The evaluation of one submission (mkb_report). Immutable."""

    def __init__(self, handle: ctypes.c_void_p) -> None:
        self._handle: Optional[ctypes.c_void_p] = handle
        self.verdict = Verdict(lib.mkb_report_verdict(handle))
        self.verdict_name: str = lib.mkb_verdict_name(self.verdict).decode()
        self.counted = bool(lib.mkb_report_counted(handle))
        self.final = bool(lib.mkb_report_final(handle))
        self.time_us: float = lib.mkb_report_time_us(handle)
        self.baseline_us: float = lib.mkb_report_baseline_us(handle)
        self.speedup: float = lib.mkb_report_speedup(handle)
        self.submission: int = lib.mkb_report_submission(handle)
        self.submissions_left: int = lib.mkb_report_submissions_left(handle)
        self.seconds_left: float = lib.mkb_report_seconds_left(handle)
        self.message: str = lib.mkb_report_message(handle).decode("utf-8", "replace")
        self._json = lib.mkb_report_json(handle).decode("utf-8", "replace")
        self.close()  # everything is copied: the handle is not needed any longer

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self._json)

    @property
    def passed(self) -> bool:
        return self.verdict == Verdict.PASSED

    def close(self) -> None:
        if self._handle:
            lib.mkb_report_free(self._handle)
            self._handle = None

    def __repr__(self) -> str:
        timing = f", {self.speedup:.3f}x" if not math.isnan(self.speedup) else ""
        return f"Report({self.verdict.name}{timing})"


class Task(_Releasable):
    """One attempt handed to an agent (mkb_task). Use it from one thread at a time."""

    def __init__(self, session: "Session", handle: ctypes.c_void_p) -> None:
        self._session = session  # keeps the session alive while the task is
        self._handle: Optional[ctypes.c_void_p] = handle
        self.id: str = lib.mkb_task_id(handle).decode()
        self.problem: str = lib.mkb_task_problem(handle).decode()
        self.family: str = lib.mkb_task_family(handle).decode()
        self.dsl: str = lib.mkb_task_dsl(handle).decode()
        self.arm = Arm(lib.mkb_task_arm(handle))
        self.arm_name: str = lib.mkb_arm_name(self.arm).decode()
        self.replicate: int = lib.mkb_task_replicate(handle)
        self.instruction: str = lib.mkb_task_instruction(handle).decode("utf-8", "replace")
        skill = lib.mkb_task_source_skill(handle)
        self.source_skill: Optional[str] = skill.decode("utf-8", "replace") if skill else None
        self.json: dict[str, Any] = json.loads(lib.mkb_task_json(handle).decode("utf-8", "replace"))

    def _check(self, status: int) -> None:
        if status != _OK:
            _raise(status, lib.mkb_task_errmsg(self._live()))

    def _live(self) -> ctypes.c_void_p:
        if not self._handle:
            raise StateError(-4, f"task {self.id} was released")
        return self._handle

    def submit(self, source: Union[str, bytes]) -> Report:
        """Evaluates a kernel; raises BudgetError when no submission or time is left."""
        data = _bytes(source)
        out = ctypes.c_void_p()
        self._check(lib.mkb_submit_attempt(self._live(), data, len(data), ctypes.byref(out)))
        return Report(out)

    def submit_skill(self, text: Union[str, bytes]) -> None:
        data = _bytes(text)
        self._check(lib.mkb_submit_skill(self._live(), data, len(data)))

    def add_usage(self, input_tokens: int = 0, output_tokens: int = 0, cost_usd: float = 0.0, *,
                  cached_input_tokens: int = 0) -> None:
        """Adds usage to the task's record. input_tokens counts every prompt token, cached ones
        included; cached_input_tokens is the part served from the provider's cache (at most input)."""
        self._check(lib.mkb_task_add_usage_v2(self._live(), input_tokens, cached_input_tokens, output_tokens, cost_usd))

    def set_final(self, source: Union[str, bytes]) -> None:
        """Names a kernel source as final without spending a submission; finalize() grades it."""
        data = _bytes(source)
        self._check(lib.mkb_task_set_final(self._live(), data, len(data)))

    def set_final_submission(self, submission: int) -> None:
        """Names an earlier submission (its Report.submission) as final; NotFoundError if there is no
        such submission or it never entered evaluation."""
        self._check(lib.mkb_task_set_final_submission(self._live(), submission))

    def finalize(self) -> Report:
        """Ends the attempt: its final kernel (set_final..., else the latest evaluated) is evaluated
        once more, and that is its record."""
        out = ctypes.c_void_p()
        self._check(lib.mkb_finalize(self._live(), ctypes.byref(out)))
        return Report(out)

    def close(self) -> None:
        """Releases the handle; an attempt not yet finalized is finalized first."""
        if self._handle:
            lib.mkb_task_release(self._handle)
            self._handle = None

    def __repr__(self) -> str:
        return f"Task({self.id})"


def _open_options(*, suite_path: Optional[str] = None, dsl_a: Optional[str] = None, dsl_b: Optional[str] = None,
                  problems: Optional[str] = None, families: Optional[str] = None, replicates: int = 0,
                  budget_seconds: int = 0, budget_submissions: int = 0, budget_source_bytes: int = 0,
                  skill_max_bytes: int = 0, model: Optional[str] = None, ledger_path: Optional[str] = None,
                  gpus: Optional[str] = None, seed: int = 0, compile_only: bool = False, rerun_stale: bool = False,
                  no_sandbox: bool = False, worker_path: Optional[str] = None, cache_dir: Optional[str] = None,
                  python: Optional[str] = None, gpu_lock_dir: Optional[str] = None, trials: Optional[str] = None,
                  directions: Optional[str] = None, target_arch: Optional[str] = None) -> _native.OpenOptions:
    """mkb_open_options from keyword options named as its fields; the flags are booleans."""
    options = _native.OpenOptions()
    lib.mkb_open_options_init(ctypes.byref(options), ctypes.sizeof(options))
    # The library copies every string during the call; the struct only needs to live until then.
    options.suite_path, options.dsl_a, options.dsl_b = _text(suite_path), _text(dsl_a), _text(dsl_b)
    options.problems, options.families = _text(problems), _text(families)
    options.replicates, options.budget_seconds, options.budget_submissions = replicates, budget_seconds, budget_submissions
    options.budget_source_bytes, options.skill_max_bytes = budget_source_bytes, skill_max_bytes
    options.model, options.ledger_path, options.gpus = _text(model), _text(ledger_path), _text(gpus)
    options.seed = seed
    options.flags = ((_native.OPEN_COMPILE_ONLY if compile_only else 0) | (_native.OPEN_RERUN_STALE if rerun_stale else 0)
                     | (_native.OPEN_NO_SANDBOX if no_sandbox else 0))
    options.worker_path, options.cache_dir, options.python = _text(worker_path), _text(cache_dir), _text(python)
    options.gpu_lock_dir, options.trials = _text(gpu_lock_dir), _text(trials)
    options.directions, options.target_arch = _text(directions), _text(target_arch)
    return options


class Session(_Releasable):
    """A benchmark run (mkb_session). Safe to share between threads. Keyword arguments are the fields
    of mkb_open_options (docs in include/mkb.h), its flags as booleans (compile_only, rerun_stale,
    no_sandbox); None and 0 keep a default."""

    def __init__(self, **options: Any) -> None:
        self._handle: Optional[ctypes.c_void_p] = None
        self.done = False
        raw = _open_options(**options)
        handle = ctypes.c_void_p()
        status = lib.mkb_open(ctypes.byref(raw), ctypes.byref(handle))
        if status != _OK:
            message = lib.mkb_session_errmsg(handle) if handle else b""
            lib.mkb_close(handle)
            _raise(status, message)
        self._handle = handle

    def _live(self) -> ctypes.c_void_p:
        if not self._handle:
            raise StateError(-4, "the session is closed")
        return self._handle

    def _check(self, status: int) -> None:
        if status not in (_OK, _NOT_READY, _DONE):
            _raise(status, lib.mkb_session_errmsg(self._live()))

    def next_tasks(self, capacity: int = 1, wait_ms: int = 0) -> list[Task]:
        """Up to `capacity` ready tasks, waiting up to `wait_ms` for one. An empty list means none is
        ready yet, or (with `done` set) that every task has been handed out."""
        slots = (ctypes.c_void_p * capacity)()
        count = ctypes.c_size_t()
        status = lib.mkb_next_task(self._live(), wait_ms, slots, capacity, ctypes.byref(count))
        self._check(status)
        self.done = status == _DONE
        return [Task(self, ctypes.c_void_p(slots[i])) for i in range(count.value)]

    def tasks(self, wait_ms: int = 1000) -> Iterator[Task]:
        """Every task, one at a time, until all have been handed out (waits while skill arms wait)."""
        while True:
            for task in self.next_tasks(1, wait_ms):
                yield task
            if self.done:
                return

    def evaluate(self, problem: str, dsl: str, source: Union[str, bytes]) -> Report:
        """One evaluation outside any task: no budget, nothing recorded (for tools, not agents)."""
        data = _bytes(source)
        out = ctypes.c_void_p()
        self._check(lib.mkb_evaluate(self._live(), problem.encode(), dsl.encode(), data, len(data), ctypes.byref(out)))
        return Report(out)

    def score(self, table: bool = False, with_stale: bool = False) -> Union[str, dict[str, Any]]:
        """The scores of every finished trial: a dict, or a readable table. Stale trials are left out
        (only counted) unless with_stale."""
        out = ctypes.c_void_p()
        self._check(lib.mkb_score(self._live(), _score_format(table, with_stale), ctypes.byref(out)))
        text = _native.owned_text(out)
        return text if table else json.loads(text)

    def close(self) -> None:
        if self._handle:
            lib.mkb_close(self._handle)
            self._handle = None


def _score_format(table: bool, with_stale: bool) -> int:
    return (_native.SCORE_TABLE if table else _native.SCORE_JSON) | (_native.SCORE_WITH_STALE if with_stale else 0)


def _owned_result(status: int, out: ctypes.c_void_p, error: ctypes.c_void_p, table: bool) -> Union[str, dict[str, Any]]:
    """The owned text of a call that hands back a text or an owned error text."""
    if status != _OK:
        _raise(status, _native.owned_text(error).encode() if error.value else None)
    text = _native.owned_text(out)
    return text if table else json.loads(text)


def score_ledgers(paths: Sequence[str], table: bool = False, with_stale: bool = False) -> Union[str, dict[str, Any]]:
    """The scores of the finished trials of ledger files, without a session; stale trials (judged per
    file) are left out unless with_stale."""
    array = (ctypes.c_char_p * len(paths))(*[p.encode() for p in paths])
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.mkb_score_ledgers(array, len(paths), _score_format(table, with_stale), ctypes.byref(out),
                                   ctypes.byref(error))
    return _owned_result(status, out, error, table)


def plan(table: bool = False, **options: Any) -> Union[str, dict[str, Any]]:
    """A dry run: the trials Session(**options) would plan, each with its state ("done", "skipped",
    "stale", "interrupted", "pending"), as a dict or a readable list. Starts nothing; reads the
    ledger without writing or locking it."""
    raw = _open_options(**options)
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.mkb_plan(ctypes.byref(raw), _native.PLAN_TABLE if table else _native.PLAN_JSON, ctypes.byref(out),
                          ctypes.byref(error))
    return _owned_result(status, out, error, table)
