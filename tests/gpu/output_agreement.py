"""One output against what it should be, the rule the GPU scripts share (eager_check, cross_check_torch,
eager_vs_original): the shapes first, then integer outputs exactly and floating ones by their largest
difference against an allowance. The scripts differ only in the allowance and in what they name."""

import torch

# Machine epsilon of each floating dtype a spec names; a dtype not here is an integer one.
EPS = {"bf16": 2.0 ** -7, "fp16": 2.0 ** -10, "fp32": 2.0 ** -23, "fp64": 2.0 ** -52,
       "fp8_e4m3": 2.0 ** -3, "fp8_e5m2": 2.0 ** -2}


def is_exact(dtype):
    """Whether outputs of this spec dtype are compared exactly (the integer ones)."""
    return dtype not in EPS


def largest_magnitude(expected):
    return float(expected.double().abs().max()) if expected.numel() else 0.0


def agrees(name, got, expected, allowance, mine, theirs, note=""):
    """Whether `got` (mine) agrees with `expected` (theirs); prints one line. allowance None compares
    exactly; otherwise the largest |difference| must be finite and within it. note follows the figures."""
    if got is None or tuple(got.shape) != tuple(expected.shape):
        shape = None if got is None else tuple(got.shape)
        print(f"  {name}: {mine} {shape}, {theirs} {tuple(expected.shape)}  DIFFERS")
        return False
    if allowance is None:
        differing = int((got.long() != expected.long()).sum())
        print(f"  {name}: {'equal' if differing == 0 else f'{differing} elements DIFFER'} (exact)")
        return differing == 0
    error = float((got.double() - expected.double()).abs().max()) if got.numel() else 0.0
    ok = bool(torch.isfinite(got).all()) and error <= allowance
    figures = "identical" if error == 0 else f"allowed {allowance:.3e}"
    print(f"  {name}: max|{mine} - {theirs}| = {error:.3e} ({figures}){note}{'' if ok else '  DIFFERS'}")
    return ok


def describe_disagreement(got, expected, allowance, mine, theirs):
    """Where the two differ: how many elements, and the worst with its index and both values (one
    element off by one rounding step of an intermediate reads differently from a whole row off)."""
    difference = (got.double() - expected.double()).abs()
    beyond = difference > allowance
    worst = int(difference.flatten().nan_to_num(float("inf")).argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(worst), expected.shape))
    print(f"    {int(beyond.sum())} of {expected.numel()} elements beyond the allowance; the worst at {index}: "
          f"{mine} {float(got.flatten()[worst]):.9g}, {theirs} {float(expected.flatten()[worst]):.9g}")
