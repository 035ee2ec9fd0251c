"""A run: --concurrency threads taking tasks from one session until every task has been handed out."""
from __future__ import annotations

import argparse
import os
import sys
import threading
import traceback
from typing import Optional

import mkb

from .attempt import Attempt, Outcome
from .chat import Chat, Interrupted
from .transcript import Transcript, transcript_path
from .usage import Prices


class Run:
    """What the worker threads share: the session, the chat, a lock for printing, the outcomes."""

    def __init__(self, session: mkb.Session, chat: Chat, args: argparse.Namespace, prices: Optional[Prices],
                 progress: Optional[mkb.Progress] = None) -> None:
        self.session, self.chat, self.args, self.prices, self.progress = session, chat, args, prices, progress
        self.lock = threading.Lock()
        self.outcomes: list[Outcome] = []
        self.unfinished: list[mkb.Task] = []  # interrupted: left open so the ledger plans them again

    def print(self, line: str) -> None:
        with self.lock:
            print(line, flush=True)

    def work(self) -> None:
        """Takes tasks until every one has been handed out (or the run is interrupted)."""
        while not self.chat.stop.is_set():
            try:
                tasks = self.session.next_tasks(1, wait_ms=500)
            except mkb.MkbError as error:  # the ledger could not record a hand-out: this thread stops
                self.print(f"cannot take a task: {error}")
                with self.lock:
                    self.outcomes.append(Outcome("no task", error=str(error)))
                return
            if not tasks:
                if self.session.done:
                    return
                continue  # skill arms wait for their solos, which other threads are working on
            task = tasks[0]
            if self.progress:
                with self.lock:
                    self.progress.step(f"started {task.id}")
            try:
                with Transcript(transcript_path(self.args.ledger, task.id)) as transcript:
                    outcome = Attempt(self.chat, task, transcript, max_turns=self.args.max_turns,
                                      prices=self.prices, log=self.print).run()
            except Interrupted:
                with self.lock:
                    self.unfinished.append(task)
                return
            except Exception as error:  # a bug or an infrastructure failure: end this task, keep the run
                self.print(f"{task.id}: ended on {type(error).__name__}: {error}\n{traceback.format_exc()}")
                outcome = Outcome("exception", error=f"{type(error).__name__}: {error}")
                task.close()
            with self.lock:
                self.outcomes.append(outcome)


def _wait(done: list[threading.Event]) -> None:
    # Events, not Thread.join: a Ctrl-C that interrupts join() can leave a live thread looking ended.
    for event in done:
        while not event.wait(0.2):  # a short wait keeps Ctrl-C deliverable to the main thread
            pass


def execute(run: Run, concurrency: int) -> bool:
    """Works on every task with `concurrency` threads, then closes the session. Ctrl-C stops after the
    exchanges in flight and leaves the open attempts unfinished; a second Ctrl-C quits at once.
    Returns whether the run was interrupted."""
    done = [threading.Event() for _ in range(concurrency)]

    def work(finished: threading.Event) -> None:
        try:
            run.work()
        finally:
            finished.set()

    for i, finished in enumerate(done):
        threading.Thread(target=work, args=(finished,), name=f"agent-{i}", daemon=True).start()
    try:
        _wait(done)
    except KeyboardInterrupt:
        run.chat.stop.set()
        print("interrupted: stopping after the exchanges in flight; unfinished attempts are planned again "
              "when the ledger is resumed (Ctrl-C again to quit at once)", file=sys.stderr, flush=True)
        try:
            _wait(done)
        except KeyboardInterrupt:
            os._exit(130)  # the ledger is append-only: a resumed run plans the open attempts again
    run.session.close()  # before the interrupted tasks are released, so they stay unfinished
    for task in run.unfinished:
        task.close()
    return run.chat.stop.is_set()
