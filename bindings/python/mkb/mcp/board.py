"""The server's tasks: what it took from the session, keyed by task id. Tool calls run on worker
threads, so the board is locked, and each open task has a lock of its own (a Task is used from one
thread at a time). Handed-out tasks stay known after they end, so that their resources still read."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

import mkb


class BoardError(Exception):
    """A tool call the board refuses (an unknown or finished task, too many open ones); the text says
    what to do instead."""


@dataclass
class Entry:
    """A task the server handed out: its fields (kept after it ends) and, while it is open, its handle."""

    id: str
    problem: str
    family: str
    dsl: str
    arm: str
    replicate: int
    instruction: str
    source_skill: Optional[str]
    json: dict[str, Any]
    task: Optional[mkb.Task]
    lock: threading.Lock = field(default_factory=threading.Lock)


class Board:
    """Takes tasks from `session`, at most `max_open` open at once, and finds them by id."""

    def __init__(self, session: mkb.Session, max_open: int, wait_ms: int = 2000) -> None:
        self._session = session
        self._max_open = max_open
        self._wait_ms = wait_ms
        self._lock = threading.Lock()
        self._entries: dict[str, Entry] = {}

    def take(self) -> Optional[Entry]:
        """The next task, or None when every task of the session has been handed out. BoardError when
        the open tasks are at the limit, or none is ready (skill arms wait for their source solos)."""
        with self._lock:
            open_ids = [e.id for e in self._entries.values() if e.task is not None]
            if len(open_ids) >= self._max_open:
                raise BoardError(f"task {', '.join(open_ids)} is still open: call finish on it before taking another "
                                 f"(this server keeps at most {self._max_open} open at once)")
            tasks = self._session.next_tasks(1, self._wait_ms)
            if not tasks:
                if self._session.done:
                    return None
                raise BoardError("no task is ready yet: the remaining tasks are skill arms waiting for their source "
                                 f"attempts ({', '.join(open_ids) or 'none open here'}) to finish")
            task = tasks[0]
            entry = Entry(task.id, task.problem, task.family, task.dsl, task.arm_name, task.replicate,
                          task.instruction, task.source_skill, task.json, task)
            self._entries[task.id] = entry
            return entry

    def known(self, task_id: str) -> Entry:
        """A task this server handed out, open or ended."""
        with self._lock:
            entry = self._entries.get(task_id)
            if entry is None:
                known = ", ".join(self._entries) or "none yet: call next_task"
                raise BoardError(f"no task {task_id!r} was handed out by this server (its tasks: {known})")
            return entry

    @contextmanager
    def open_task(self, task_id: str) -> Iterator[mkb.Task]:
        """An open task's handle, held by this thread for the block."""
        entry = self.known(task_id)
        with entry.lock:
            if entry.task is None:
                raise BoardError(f"task {task_id} is finished; call next_task for another")
            yield entry.task

    def finish(self, task_id: str) -> mkb.Report:
        """Finalizes a task and releases it. A failure of the harness leaves it open (the call can be
        repeated), as mkb_finalize does."""
        entry = self.known(task_id)
        with entry.lock:
            if entry.task is None:
                raise BoardError(f"task {task_id} is finished already; call next_task for another")
            report = entry.task.finalize()
            task, entry.task = entry.task, None
        task.close()
        return report

    def close(self, close_session: Callable[[], None]) -> None:
        """Ends the session: waits for the calls in flight (no call may run on a session or its tasks while
        it closes), closes it with `close_session`, so that the open tasks end without a final evaluation
        and are planned again when the ledger is resumed, then releases their handles."""
        with self._lock:
            entries = list(self._entries.values())
            for entry in entries:
                entry.lock.acquire()
            try:
                close_session()
                for entry in entries:
                    if entry.task is not None:
                        entry.task.close()
                        entry.task = None
            finally:
                for entry in entries:
                    entry.lock.release()
