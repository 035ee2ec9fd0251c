#!/usr/bin/env python3
"""Leaves a shard's ledger as a preempted Slurm task leaves it, for tests/deploy/slurm_test.sh: it
opens the shard's session as the replay agent would, plays its first task through (the replay agent's
own play()), takes the second task and submits to it, and is then killed (SIGKILL, as Slurm kills a
task that outlives its preemption grace time) before that task is finished. The ledger holds one
finished trial and one handed out but never finished, which a resumed session plans again.

    preempted_shard.py --ledger FILE --shard I/N --worker FILE [--problems LIST] [--dsl-a A --dsl-b B]
"""
import argparse
import os
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "samples" / "python"))

import mkb  # noqa: E402
import replay_agent  # noqa: E402


def children(pid: int) -> list[int]:
    """The processes whose parent is pid (the library's workers), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--shard", required=True)
    parser.add_argument("--worker", required=True)
    parser.add_argument("--problems")
    parser.add_argument("--dsl-a")
    parser.add_argument("--dsl-b")
    args = parser.parse_args()
    if os.path.exists(args.ledger):
        print(f"preempted_shard.py: {args.ledger} exists; this writes a new ledger only", file=sys.stderr)
        return 2
    session = mkb.Session(ledger_path=args.ledger, model="replay", problems=args.problems, dsl_a=args.dsl_a,
                          dsl_b=args.dsl_b, worker_path=args.worker, shard=args.shard)
    tasks = session.tasks(wait_ms=500)
    first = next(tasks)
    with first:
        print(replay_agent.play(first), flush=True)
    second = next(tasks)
    solution = replay_agent.stored_solution(second)
    second.submit(solution)
    print(f"{second.id}: handed out and submitted to; killed before it finishes", flush=True)
    # Killed as Slurm kills a task past its grace time: no close, no finalize, no atexit. The library's
    # workers go with the process's descendants, as the task's processes would.
    for child in children(os.getpid()):
        os.kill(child, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)
    return 1


if __name__ == "__main__":
    sys.exit(main())
