"""Independent cross-check of every problem's float64 anchor against its PyTorch reference.

For each problem with a torch_crosscheck.py, `mkb draw` writes one draw's inputs and the anchor's outputs;
this script loads the inputs into float64 (integers into int64) CUDA tensors, calls the problem's
`reference(inputs, symbols, constants)`, and compares every output with the anchor's. Any
disagreement is a bug in one of the two.

usage: python3 cross_check_torch.py MKB SUITE_DIR WORK_DIR [--problem ID[,ID...]] [--seed S]
Exit status 0 when every problem agrees, 1 otherwise.
"""
import argparse
import importlib.util
import json
import pathlib
import shutil
import sys

import torch

from draw_files import check_each_problem, load_float64, write_draw
from output_agreement import agrees, describe_disagreement, is_exact, largest_magnitude

# The anchor and the reference compute the same float64 semantics in different orders: they must
# agree to this fraction of the output's largest magnitude.
TOLERANCE = 1e-9
# The file beside spec.json that holds the PyTorch semantics (not reference.md, the agent's reading).
CROSSCHECK = "torch_crosscheck.py"


def check_problem(mkb, suite, work, spec_path, seed):
    spec = json.loads(spec_path.read_text())
    folder = work / spec["id"]
    draw = write_draw(mkb, suite, spec["id"], seed, folder)
    inputs = {name: load_float64(folder, entry) for name, entry in draw["input"].items()}
    anchors = {name: load_float64(folder, entry) for name, entry in draw["anchor"].items()}
    module_spec = importlib.util.spec_from_file_location(f"crosscheck_{spec['id']}", spec_path.parent / CROSSCHECK)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    symbols = {s["name"]: int(s["value"]) for s in spec.get("symbols", [])}
    constants = {c["name"]: float(c["value"]) for c in spec.get("constants", [])}
    with torch.no_grad():
        expected = module.reference(inputs, symbols, constants)
    agree = True
    for output in spec["outputs"]:
        name = output["name"]
        if name not in expected:
            print(f"  {name}: MISSING from {CROSSCHECK}'s result")
            agree = False
            continue
        got, anchor = expected[name].to(anchors[name].device), anchors[name]
        if is_exact(output["dtype"]):
            agree &= agrees(name, got, anchor, None, "torch", "anchor")
            continue
        # Relative to the largest magnitude; an all-zero anchor is held to the tolerance itself.
        magnitude = largest_magnitude(anchor)
        allowance = TOLERANCE * (magnitude if magnitude > 0 else 1.0)
        ok = agrees(name, got, anchor, allowance, "torch", "anchor", f", max|anchor| = {magnitude:.4g}")
        if not ok and tuple(got.shape) == tuple(anchor.shape):
            describe_disagreement(got, anchor, allowance, "torch", "anchor")
        agree &= ok
    shutil.rmtree(folder, ignore_errors=True)
    return agree


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mkb")
    parser.add_argument("suite", type=pathlib.Path)
    parser.add_argument("work", type=pathlib.Path)
    parser.add_argument("--problem")
    parser.add_argument("--seed", type=int, default=20261202)
    args = parser.parse_args()
    results = check_each_problem(args.suite, CROSSCHECK, args.problem,
                                 lambda spec_path: check_problem(args.mkb, args.suite, args.work, spec_path, args.seed))
    agreed = sum(results.values())
    print(f"\nPyTorch cross-check: {agreed} of {len(results)} problems agree with their anchor "
          f"(tolerance {TOLERANCE:g} of max|anchor|)")
    for problem, ok in results.items():
        if not ok:
            print(f"  DISAGREE: {problem}")
    return 0 if results and agreed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
