#!/usr/bin/env python3
"""Reported times when several `mkb check` processes share one GPU, as a host running many agents sees
them: one at a time, four at once, and two beside two evaluations of a long fp32 problem. Prints one
table; every figure comes from the reports' JSON (docs/BENCHMARKS.md, "Shared GPU").

usage: bench/shared_gpu.py [--mkb build/bin/mkb] [--lock-dir DIR]   (needs a GPU; run from the source tree)
"""
import argparse
import json
import subprocess
import tempfile
import time

SMALL = "fused_add_rmsnorm_h4096_llama31_8b_bf16"
LARGE = "gelu_feedforward_flux_fp32"


def solution(problem: str) -> str:
    family = "mlp_norm"
    return f"problems/{family}/{problem}/solutions/cuda.cu"


def start(mkb: str, lock_dir: str, problem: str) -> subprocess.Popen:
    command = [mkb, "check", "--json", "--gpu-lock-dir", lock_dir, "--problem", problem, "--dsl", "cuda", solution(problem)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> dict:
    out, _ = process.communicate()
    return json.loads(out)


def row(label: str, reports: list, wall: float) -> None:
    def span(key, scale=1.0, digits=1):
        values = [r[key] * scale for r in reports]
        return f"{min(values):.{digits}f}-{max(values):.{digits}f}"
    contended = sum(r["contention"]["contended"] for r in reports)
    print(f"| {label} | {span('time_us')} us | {span('baseline_us')} us | {span('speedup', digits=2)}x | "
          f"{span('gpu_wait_ms', 1e-3)} s | {contended} | {wall:.1f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mkb", default="build/bin/mkb")
    parser.add_argument("--lock-dir", default=None, help="the GPU lock folder (default: a fresh one)")
    args = parser.parse_args()
    lock_dir = args.lock_dir or tempfile.mkdtemp(prefix="mkb-bench-locks-")

    print("| run | submission median | baseline median | reported speedup | queued for the GPU | contended | wall |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    begin = time.monotonic()
    alone = [finish(start(args.mkb, lock_dir, SMALL)) for _ in range(4)]
    row(f"{SMALL}, one at a time (4 runs)", alone, time.monotonic() - begin)

    begin = time.monotonic()
    together = [start(args.mkb, lock_dir, SMALL) for _ in range(4)]
    row(f"{SMALL}, four at once", [finish(p) for p in together], time.monotonic() - begin)

    large_alone_begin = time.monotonic()
    large_alone = [finish(start(args.mkb, lock_dir, LARGE))]
    row(f"{LARGE}, alone", large_alone, time.monotonic() - large_alone_begin)

    begin = time.monotonic()
    mixed = [start(args.mkb, lock_dir, p) for p in (SMALL, SMALL, LARGE, LARGE)]
    reports = [finish(p) for p in mixed]
    wall = time.monotonic() - begin
    row(f"{SMALL}, two beside two {LARGE}", reports[:2], wall)
    row(f"{LARGE} in that mix", reports[2:], wall)


if __name__ == "__main__":
    main()
