#!/usr/bin/env python3
"""Evaluations per minute with one GPU and with every GPU of the host (docs/BENCHMARKS.md, Every GPU).

The same work twice, each in a fresh session with a fresh ledger: agents (threads, as the LLM agent
runs them) take the four-arm tasks of the chosen problems in the pair (cuda, cuda) and submit each
problem's stored cuda solution `--submissions` times, then finalize. First with `gpus="0"`, then with
every visible GPU (one worker per GPU, as a session is designed). It prints the evaluations, the wall
time and evaluations per minute of each, the ratio, and how many evaluations each GPU ran (from the
reports' device UUIDs). The compile cache is warmed first, so that both runs time evaluations, not
NVRTC. On a host with one GPU both runs are the same and it says so.

    python3 bench/gpu_throughput.py [--mkb-lib build/lib] [--problems LIST] [--threads N] [--submissions K]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PROBLEMS = ("fused_add_rmsnorm_h4096_llama31_8b_bf16,rmsnorm_h128_qwen3_30b_bf16,groupnorm_sd15_fp32,"
                    "adaln_modulation_output_projection_flux_kontext_fp32")


def stored_cuda(problem: str) -> str:
    for spec in (ROOT / "problems").glob(f"*/{problem}/spec.json"):
        for solution in json.loads(spec.read_text()).get("solutions", []):
            if solution["dsl"] == "cuda":
                return (spec.parent / solution["file"]).read_text()
    raise SystemExit(f"{problem} has no stored cuda solution")


def run(mkb, gpus: str | None, problems: str, threads: int, submissions: int, worker: str | None) -> dict:
    """One session over the problems; returns evaluations, seconds and per-GPU counts."""
    sources = {p: stored_cuda(p) for p in problems.split(",")}
    per_gpu: collections.Counter = collections.Counter()
    lock = threading.Lock()
    with tempfile.TemporaryDirectory() as folder:
        session = mkb.Session(ledger_path=Path(folder) / "bench.ledger", model="bench", problems=problems,
                              dsl_a="cuda", dsl_b="cuda", gpus=gpus, budget_submissions=submissions + 1,
                              worker_path=worker)

        def agent() -> None:
            while True:
                tasks = session.next_tasks(1, wait_ms=200)
                if not tasks:
                    if session.done:
                        return
                    continue
                with tasks[0] as task:
                    reports = [task.submit(sources[task.problem]) for _ in range(submissions)]
                    task.submit_skill("replayed")
                    reports.append(task.finalize())
                with lock:
                    for report in reports:
                        device = report.json.get("device", {})
                        per_gpu[device.get("uuid") or device.get("name") or "none"] += 1

        start = time.monotonic()
        workers = [threading.Thread(target=agent) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        seconds = time.monotonic() - start
        session.close()
    evaluations = sum(per_gpu.values())
    return {"gpus": gpus or "all", "evaluations": evaluations, "seconds": seconds,
            "per_minute": evaluations / seconds * 60, "per_gpu": dict(per_gpu)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mkb-lib", default=str(ROOT / "build" / "lib"), help="libmkb's folder (MKB_LIB_PATH)")
    parser.add_argument("--problems", default=DEFAULT_PROBLEMS)
    parser.add_argument("--threads", type=int, default=8, help="agent threads (default 8)")
    parser.add_argument("--submissions", type=int, default=2, help="submissions per attempt before finalizing")
    parser.add_argument("--worker", default=None, help="the mkb-worker (a test of this script passes the test double)")
    args = parser.parse_args()
    os.environ.setdefault("MKB_LIB_PATH", args.mkb_lib)
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    import mkb  # noqa: PLC0415 (after MKB_LIB_PATH is set)

    print(f"libmkb {mkb.version()}: {args.threads} agent threads, problems {args.problems}, "
          f"{args.submissions} submissions and a final evaluation per attempt", flush=True)
    run(mkb, "0", args.problems, args.threads, 1, args.worker)  # warms the compile cache
    one = run(mkb, "0", args.problems, args.threads, args.submissions, args.worker)
    every = run(mkb, None, args.problems, args.threads, args.submissions, args.worker)
    for r in (one, every):
        print(f"gpus {r['gpus']:>4}: {r['evaluations']} evaluations in {r['seconds']:.1f} s = "
              f"{r['per_minute']:.1f} per minute; per GPU: "
              + ", ".join(f"{uuid[:12]} {n}" for uuid, n in sorted(r["per_gpu"].items())), flush=True)
    ratio = every["per_minute"] / one["per_minute"]
    count = len(every["per_gpu"])
    print(f"every GPU ({count}) / one GPU: {ratio:.2f}x evaluations per minute"
          + ("" if count > 1 else " (this host has one GPU: both runs used it)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
