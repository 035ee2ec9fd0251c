"""Our eager.py beside the original benchmark's own reference(), on the same GPU in the same process.

The original's speedups are against its eager reference() timed with its host work, and for a
host-bound reference that time depends on the host as much as on the GPU: the original's own code on
an H100 machine lay -50% to +70% from its figures taken on an H200 machine (docs/SUITE.md). This script takes that out: for every public problem (spec.json's origin.kind is
`public_reference`) it loads the original's file from a checkout of the original benchmark, draws its
inputs as the original does (`torch.manual_seed(0)`, then its make_inputs()), draws ours with our
make_inputs(0, ...), and then

1. checks that our make_inputs() gives the original's tensors in its order (the spec's inputs), at the
   same dtypes; sizes drawn at random may differ, and are printed where they do;
2. runs our eager() on the original's inputs (its draw made again) and compares its outputs with the
   original's reference() on them: to 3 * eps(dtype) of the largest magnitude (integers exactly);
3. times both the original's way (tests/gpu/eager_timing.py), each on its own make_inputs(), interleaved
   call by call so that both see the same host, and reports ours against the original's: it must lie
   within 10%.

With --cpu, steps 1 and 2 run on the CPU (the original's make_inputs() names CUDA: a torch function
mode moves every tensor to the CPU) and nothing is timed: the fidelity of the code, without a GPU.

The original's code is read from ORIGINAL_DIR and never copied into this repository.

usage: python3 eager_vs_original.py SUITE_DIR ORIGINAL_DIR [--problem ID[,ID...]] [--cpu]
Exit status 0 when every problem agrees (and times within 10%), 1 otherwise.
"""
import argparse
import contextlib
import json
import pathlib
import statistics
import sys

import torch
from torch.overrides import TorchFunctionMode

from draw_files import check_each_problem
from eager_check import load_module
from eager_timing import EagerTimer, follow_the_original_contract
from output_agreement import EPS, agrees, is_exact, largest_magnitude

TIME_TOLERANCE = 0.10


class OnTheCpu(TorchFunctionMode):
    """Every tensor made or moved onto a CUDA device is made on the CPU instead."""

    @staticmethod
    def _cpu(device):
        return "cpu" if device is not None and "cuda" in str(device) else device

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if "device" in kwargs:
            kwargs["device"] = self._cpu(kwargs["device"])
        name = getattr(func, "__name__", "")
        if name == "cuda":
            return args[0]
        if name == "to":
            args = tuple(self._cpu(a) if isinstance(a, (str, torch.device)) else a for a in args)
        return func(*args, **kwargs)


def as_tuple(outputs):
    return tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


def original_draw(theirs):
    """The original's make_inputs() as it runs it: after torch.manual_seed(0)."""
    torch.manual_seed(0)
    return theirs.make_inputs()


def compare_inputs(names, ours, drawn):
    """Whether our make_inputs() gives the original's tensors (drawn: their dtypes and shapes), in its
    order, at its dtypes; sizes drawn at random may differ and are printed."""
    if list(ours) != names or len(drawn) != len(names):
        print(f"  inputs: ours {list(ours)}, the spec's {names}, the original gives {len(drawn)} tensors  DIFFER")
        return False
    agreed = True
    for name, (dtype, shape) in zip(names, drawn):
        mine = ours[name]
        if mine.dtype != dtype:
            print(f"  input {name}: ours {mine.dtype}, the original's {dtype}  DIFFERS")
            agreed = False
        elif tuple(mine.shape) != shape:
            print(f"  input {name}: drawn as {tuple(mine.shape)} here, {shape} by the original")
    return agreed


def compare_outputs(spec, ours, theirs):
    """Whether our outputs agree with the original's; prints one line per output."""
    agreed = True
    for output, original in zip(spec["outputs"], as_tuple(theirs)):
        dtype = output["dtype"]
        allowance = None if is_exact(dtype) else 3 * EPS[dtype] * largest_magnitude(original)
        agreed &= agrees(output["name"], ours[output["name"]], original, allowance, "ours", "original")
    return agreed


def compare_problem(original_dir, spec_path, rows, timed):
    spec = json.loads(spec_path.read_text())
    symbols = {s["name"]: int(s["value"]) for s in spec.get("symbols", [])}
    constants = {c["name"]: float(c["value"]) for c in spec.get("constants", [])}
    ours = load_module(spec_path.parent / "eager.py", f"eager_{spec['id']}")
    theirs = load_module(original_dir / spec["origin"]["path"], f"original_{spec['id']}")

    # The original's outputs on its inputs, then ours on the same draw made again: the draws repeat
    # exactly, and a reference that updates its inputs in place (a cache) leaves no copy to restore.
    expected = theirs.reference(*original_draw(theirs))
    their_tensors = [value for value in original_draw(theirs) if torch.is_tensor(value)]
    drawn = [(tensor.dtype, tuple(tensor.shape)) for tensor in their_tensors]
    names = [entry["name"] for entry in spec["inputs"]]
    agreed = len(their_tensors) == len(names)
    if agreed:
        agreed = compare_outputs(spec, ours.eager(dict(zip(names, their_tensors)), symbols, constants), expected)
    del expected, their_tensors
    our_inputs = ours.make_inputs(0, symbols, constants)
    agreed = compare_inputs(names, our_inputs, drawn) and agreed
    if not timed:
        return agreed
    their_inputs = original_draw(theirs)
    torch.cuda.synchronize()

    call_theirs = lambda: theirs.reference(*their_inputs)  # noqa: E731
    call_ours = lambda: ours.eager(our_inputs, symbols, constants)  # noqa: E731

    their_times, our_times = EagerTimer().interleaved(call_theirs, call_ours)
    their_us, our_us = statistics.median(their_times), statistics.median(our_times)
    ratio = our_us / their_us
    timed_ok = abs(ratio - 1.0) <= TIME_TOLERANCE
    print(f"  original's reference() {their_us:.1f} us (min {min(their_times):.1f}, max {max(their_times):.1f}); "
          f"eager.py {our_us:.1f} us (min {min(our_times):.1f}, max {max(our_times):.1f}): "
          f"ours/original = {ratio:.3f}{'' if timed_ok else '  BEYOND 10%'}")
    rows.append((spec["number"], spec["id"], their_us, our_us, ratio))
    return agreed and timed_ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("suite", type=pathlib.Path)
    parser.add_argument("original", type=pathlib.Path, help="a checkout of the original benchmark")
    parser.add_argument("--problem")
    parser.add_argument("--cpu", action="store_true", help="compare inputs and outputs on the CPU; time nothing")
    args = parser.parse_args()
    follow_the_original_contract()

    public = {p.parent.name for p in args.suite.glob("*/*/spec.json")
              if json.loads(p.read_text()).get("origin", {}).get("kind") == "public_reference"}
    only = ",".join(sorted(public & set(args.problem.split(",")))) if args.problem else ",".join(sorted(public))
    if not only:
        print("no public problem with an eager.py to compare")
        return 1
    rows = []
    with OnTheCpu() if args.cpu else contextlib.nullcontext():
        results = check_each_problem(args.suite, "eager.py", only,
                                     lambda spec_path: compare_problem(args.original, spec_path, rows, not args.cpu))
    if rows:
        print("\n| # | problem | original's reference() us | eager.py us | ours/original |")
        print("|---|---|---|---|---|")
    for number, problem, their_us, our_us, ratio in sorted(rows):
        print(f"| {number} | `{problem}` | {their_us:.1f} | {our_us:.1f} | {ratio:.3f} |")
    passed = sum(results.values())
    timing = "" if args.cpu else f" and time within {TIME_TOLERANCE:.0%}"
    print(f"\nAgainst the original: {passed} of {len(results)} problems agree{timing}")
    return 0 if results and passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
