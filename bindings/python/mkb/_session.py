"""Session and Task: the handles of a benchmark run and of one attempt in it."""
from __future__ import annotations

import ctypes
import json
from typing import Any, Iterator, Literal, Optional, TypeVar, Union, overload

from . import _native
from ._enums import Arm
from ._errors import STATE, StateError, raise_status
from ._native import lib
from ._options import open_options
from ._report import Report

_OK, _NOT_READY, _DONE = 0, 1, 2
_Handle = TypeVar("_Handle", bound="_Releasable")


def _bytes(value: Union[str, bytes]) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value


def _score_format(table: bool, with_stale: bool) -> int:
    return (_native.SCORE_TABLE if table else _native.SCORE_JSON) | (_native.SCORE_WITH_STALE if with_stale else 0)


class _Releasable:
    """A handle released by close(), by a `with` block, or at garbage collection as a safety net."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Handle) -> _Handle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


class Task(_Releasable):
    """One attempt handed to an agent (mkb_task). Use it from one thread at a time.

    Its attributes are the task's fields: `id`, `problem`, `family`, `dsl`, `arm` (an Arm),
    `replicate`, `instruction`, `source_skill` (None in the solo arms) and `json` (parsed)."""

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
            raise_status(status, lib.mkb_task_errmsg(self._live()))

    def _live(self) -> ctypes.c_void_p:
        if not self._handle:
            raise StateError(STATE, f"task {self.id} was released")
        return self._handle

    def submit(self, source: Union[str, bytes]) -> Report:
        """Evaluates a kernel; raises BudgetError when no submission or time is left."""
        data = _bytes(source)
        out = ctypes.c_void_p()
        self._check(lib.mkb_submit_attempt(self._live(), data, len(data), ctypes.byref(out)))
        return Report(out)

    def compile(self, source: Union[str, bytes]) -> Report:
        """Checks that a kernel compiles, for free: the DSL's frontend, the compiler and the launch plan
        against the compiled code, as a submission goes before anything runs. Nothing runs and no
        submission is spent, only the wall clock; the verdict is COMPILED or the error (COMPILE_ERROR,
        LAUNCH_ERROR, REFUSED, ...). Raises BudgetError once the time is spent."""
        data = _bytes(source)
        out = ctypes.c_void_p()
        self._check(lib.mkb_task_compile(self._live(), data, len(data), ctypes.byref(out)))
        return Report(out)

    @property
    def submissions_left(self) -> int:
        """Submissions that may still enter evaluation (compile checks spend none)."""
        return lib.mkb_task_submissions_left(self._live())

    @property
    def seconds_left(self) -> float:
        """Wall-clock seconds left until the deadline; 0 once the attempt has ended."""
        return lib.mkb_task_seconds_left(self._live())

    def submit_skill(self, text: Union[str, bytes]) -> None:
        """Records the skill this attempt leaves for the other DSL's arm (every arm keeps one)."""
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


class Session(_Releasable):
    """A benchmark run (mkb_session). Safe to share between threads.

    Keyword arguments are the fields of mkb_open_options (include/mkb.h), its flags as booleans
    (compile_only, rerun_stale, no_sandbox). None keeps a default; paths may be os.PathLike; problems,
    families, gpus, trials and directions may be lists as well as comma-joined strings. Without
    `python` or MKB_PYTHON, Python DSL frontends run under this interpreter (sys.executable)."""

    def __init__(self, **options: Any) -> None:
        self._handle: Optional[ctypes.c_void_p] = None
        self.done = False
        raw = open_options(**options)
        handle = ctypes.c_void_p()
        status = lib.mkb_open(ctypes.byref(raw), ctypes.byref(handle))
        if status != _OK:
            message = lib.mkb_session_errmsg(handle) if handle else b""
            lib.mkb_close(handle)
            raise_status(status, message)
        self._handle = handle

    def _live(self) -> ctypes.c_void_p:
        if not self._handle:
            raise StateError(STATE, "the session is closed")
        return self._handle

    def _check(self, status: int) -> None:
        if status not in (_OK, _NOT_READY, _DONE):
            raise_status(status, lib.mkb_session_errmsg(self._live()))

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

    @overload
    def score(self, table: Literal[True], with_stale: bool = False) -> str: ...
    @overload
    def score(self, table: Literal[False] = False, with_stale: bool = False) -> dict[str, Any]: ...

    def score(self, table: bool = False, with_stale: bool = False) -> Union[str, dict[str, Any]]:
        """The scores of every finished trial: a dict, or with table=True a readable table. Stale
        trials are left out (only counted) unless with_stale."""
        out = ctypes.c_void_p()
        self._check(lib.mkb_score(self._live(), _score_format(table, with_stale), ctypes.byref(out)))
        text = _native.owned_text(out)
        return text if table else json.loads(text)

    def close(self) -> None:
        """Closes the session and its ledger; unfinished tasks end without a final evaluation (they are
        planned again when the ledger is resumed)."""
        if self._handle:
            lib.mkb_close(self._handle)
            self._handle = None
