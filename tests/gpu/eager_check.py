"""The eager check: every problem's eager.py against its anchor, and its time, the original's way.

The original benchmark's speedups are against its eager PyTorch reference() at the inputs' own dtypes,
timed with its host work. A problem's eager.py is that computation. For each problem that has one:

1. `mkb check` runs the problem's stored cuda solution: its report gives the draw seeds, the baseline's
   error against the anchor per output (the contract's reference_error) and the baseline's time.
2. `mkb draw` rebuilds the first of those draws; eager() runs on the same inputs at their own dtypes and
   must pass the contract's rule as a submission would: max|eager - anchor| <= 3 * max(reference_error,
   eps(dtype) * max|anchor|) for floating outputs, integers exactly.
3. eager() is timed on make_inputs() as the original times it: a 256 MiB write flushes L2, a CUDA event,
   the call (host work included), an event, a synchronize; the median of the last 20 of 30 calls. Where
   the call can be captured, the same call replayed as a CUDA graph is timed too (pure device time).
4. Where eager is device-bound (its time within 10% of the graph's), the baseline's time against the
   graph's must lie within 10% of 1, or of the ratio the spec declares in `baseline_vs_eager_graph`;
   a declared ratio is held wherever there is a graph.

With --record DIR the figures are written as DIR/<family>/<id>/eager_times.json (this GPU's record
replaced, other GPUs' kept from the suite's file), for the suite to keep.

Each problem runs in a process of its own: a capture that fails (a host synchronization in the call)
leaves torch's CUDA generator in capture mode, and every later draw in that process would fail.

usage: python3 eager_check.py MKB SUITE_DIR WORK_DIR [--problem ID[,ID...]] [--record DIR]
Exit status 0 when every problem passed, 1 otherwise.
"""
import argparse
import datetime
import importlib.util
import json
import pathlib
import shutil
import statistics
import subprocess
import sys

import torch

from draw_files import check_each_problem, load_float64, load_native, write_draw
from eager_timing import FLUSH_BYTES, EagerTimer, follow_the_original_contract
from output_agreement import EPS, agrees, is_exact, largest_magnitude

RATIO_TOLERANCE = 0.10


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stored_cuda_solution(spec, folder):
    for solution in spec.get("solutions", []):
        if solution["dsl"] == "cuda":
            return folder / solution["file"]
    return None


def run_check(mkb, suite, spec, folder):
    """The report of `mkb check` on the stored cuda solution, as a dict."""
    solution = stored_cuda_solution(spec, folder)
    if solution is None:
        raise RuntimeError("no stored cuda solution to run `mkb check` with")
    done = subprocess.run([mkb, "check", "--suite", str(suite), "--problem", spec["id"], "--dsl", "cuda",
                           str(solution), "--json"], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"mkb check exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def compare(spec, eager_out, anchors, report):
    """Whether eager() passes the contract's rule on the draw; prints one line per output."""
    reference_error = {c["output"]: c["reference_error"] for c in report.get("checks", [])}
    passed = True
    for output in spec["outputs"]:
        name, anchor = output["name"], anchors[output["name"]]
        if is_exact(output["dtype"]):
            passed &= agrees(name, eager_out.get(name), anchor, None, "eager", "anchor")
            continue
        error = reference_error.get(name, 0.0)
        allowance = 3 * max(error, EPS[output["dtype"]] * largest_magnitude(anchor))
        passed &= agrees(name, eager_out.get(name), anchor, allowance, "eager", "anchor",
                         f", the baseline's error {reference_error.get(name, float('nan')):.3e}")
    return passed


def time_graph(call):
    """The call captured once and replayed, timed like the eager calls; None where it cannot be captured."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):
            call()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            call()
    except Exception as e:  # a host synchronization inside the call: no graph, as the original found
        print(f"  no CUDA graph: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        torch.cuda.synchronize()
        return None
    return statistics.median(EagerTimer().calls(graph.replay))


def time_eager(module, symbols, constants):
    inputs = module.make_inputs(0, symbols, constants)
    call = lambda: module.eager(inputs, symbols, constants)  # noqa: E731
    call()  # a warm-up (allocator, cuBLAS handles)
    torch.cuda.synchronize()
    times = EagerTimer().calls(call)
    graph_us = time_graph(call)
    del inputs
    return times, graph_us


def record(record_dir, spec_path, spec, entry):
    """Writes this GPU's record into RECORD_DIR/<family>/<id>/eager_times.json, keeping other GPUs'."""
    existing = spec_path.parent / "eager_times.json"
    records = json.loads(existing.read_text())["records"] if existing.exists() else []
    records = [r for r in records if r["gpu"] != entry["gpu"]] + [entry]
    target = record_dir / spec["family"] / spec["id"] / "eager_times.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"records": records}, indent=2) + "\n")


def check_problem(args, spec_path):
    spec = json.loads(spec_path.read_text())
    folder = spec_path.parent
    symbols = {s["name"]: int(s["value"]) for s in spec.get("symbols", [])}
    constants = {c["name"]: float(c["value"]) for c in spec.get("constants", [])}
    module = load_module(folder / "eager.py", f"eager_{spec['id']}")

    report = run_check(args.mkb, args.suite, spec, folder)
    baseline_us = report.get("baseline_us")
    work = args.work / spec["id"]
    draw = write_draw(args.mkb, args.suite, spec["id"], report["draw_seeds"][0], work)
    inputs = {name: load_native(work, entry) for name, entry in draw["input"].items()}
    anchors = {name: load_float64(work, entry) for name, entry in draw["anchor"].items()}
    eager_out = module.eager(inputs, symbols, constants)
    torch.cuda.synchronize()
    passed = compare(spec, eager_out, anchors, report)
    del inputs, anchors, eager_out
    shutil.rmtree(work, ignore_errors=True)
    torch.cuda.empty_cache()

    times, graph_us = time_eager(module, symbols, constants)
    eager_us = statistics.median(times)
    spread = 100.0 * (max(times) - min(times)) / eager_us
    print(f"  eager {eager_us:.1f} us (min {min(times):.1f}, max {max(times):.1f}, range {spread:.1f}% of the median, "
          f"{len(times)} calls); graph {'-' if graph_us is None else f'{graph_us:.1f} us'}; "
          f"baseline.cu {baseline_us:.1f} us; cuda solution {report.get('time_us', float('nan')):.1f} us")
    declared = spec.get("baseline_vs_eager_graph", {}).get("ratio")
    if graph_us is not None and baseline_us:
        ratio = baseline_us / graph_us
        device_bound = eager_us <= (1.0 + RATIO_TOLERANCE) * graph_us
        if device_bound or declared:
            target = declared if declared else 1.0
            ratio_ok = abs(ratio / target - 1.0) <= RATIO_TOLERANCE
            print(f"  baseline/graph = {ratio:.3f} (held to {target:g} +- {RATIO_TOLERANCE:.0%}"
                  f"{', declared' if declared else ''}){'' if ratio_ok else '  OUT OF RANGE'}")
            passed &= ratio_ok
        else:  # docs/PROBLEMS.md: the rule binds where eager is device-bound
            print(f"  baseline/graph = {ratio:.3f} (eager is host-bound, eager/graph = {eager_us / graph_us:.2f}: "
                  f"not held to the graph)")
    if args.record:
        record(args.record, spec_path, spec, {
            "gpu": torch.cuda.get_device_name(), "eager_us": round(eager_us, 1),
            "eager_min_us": round(min(times), 1), "eager_max_us": round(max(times), 1),
            "spread_pct": round(spread, 2), "graph_us": None if graph_us is None else round(graph_us, 1),
            "baseline_us": None if baseline_us is None else round(baseline_us, 1), "timed_calls": len(times),
            "date": datetime.date.today().isoformat(), "torch": torch.__version__,
            "method": f"CUDA events around eager(), host work included, {FLUSH_BYTES >> 20} MiB L2 flush before "
                      f"each call; median of the last {len(times)} calls"})
    row = (spec["id"], eager_us, graph_us, baseline_us, report.get("time_us"))
    return passed, row


def check_in_own_process(args, spec_path):
    """check_problem(spec_path) in a child process; returns (passed, row)."""
    row_file = args.work / f"{spec_path.parent.name}.row.json"
    row_file.unlink(missing_ok=True)
    command = [sys.executable, __file__, args.mkb, str(args.suite), str(args.work), "--one", str(spec_path)]
    if args.record:
        command += ["--record", str(args.record)]
    done = subprocess.run(command, stdout=sys.stdout, stderr=subprocess.STDOUT)
    if not row_file.exists():
        raise RuntimeError(f"the problem's process exited {done.returncode} without a result")
    result = json.loads(row_file.read_text())
    return result["passed"], tuple(result["row"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mkb")
    parser.add_argument("suite", type=pathlib.Path)
    parser.add_argument("work", type=pathlib.Path)
    parser.add_argument("--problem")
    parser.add_argument("--record", type=pathlib.Path)
    parser.add_argument("--one", type=pathlib.Path, help=argparse.SUPPRESS)  # the child: this spec.json only
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.one:
        follow_the_original_contract()
        passed, row = check_problem(args, args.one)
        sys.stdout.flush()
        (args.work / f"{args.one.parent.name}.row.json").write_text(json.dumps({"passed": passed, "row": row}))
        return 0
    rows = []

    def check(spec_path):
        passed, row = check_in_own_process(args, spec_path)
        rows.append(row)
        return passed

    results = check_each_problem(args.suite, "eager.py", args.problem, check)
    print("\n| problem | eager us | graph us | eager/graph | baseline us | baseline/graph | cuda solution us | vs eager | vs baseline |")
    print("|---|---|---|---|---|---|---|---|---|")
    fmt = lambda v, f="{:.1f}": "-" if v is None else f.format(v)  # noqa: E731
    for problem, eager_us, graph_us, baseline_us, solution_us in rows:
        ratio = baseline_us / graph_us if graph_us and baseline_us else None
        host = eager_us / graph_us if graph_us else None
        print(f"| {problem} | {fmt(eager_us)} | {fmt(graph_us)} | {fmt(host, '{:.2f}')} | {fmt(baseline_us)} | {fmt(ratio, '{:.2f}')} | "
              f"{fmt(solution_us)} | {fmt(eager_us / solution_us if solution_us else None, '{:.2f}x')} | "
              f"{fmt(baseline_us / solution_us if solution_us and baseline_us else None, '{:.2f}x')} |")
    passed = sum(results.values())
    print(f"\nEager check: {passed} of {len(results)} problems passed")
    for problem, ok in results.items():
        if not ok:
            print(f"  FAILED: {problem}")
    return 0 if results and passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
