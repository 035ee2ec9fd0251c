"""swiglu_example_bf16 as eager PyTorch runs it at the inputs' own dtypes: the computation a problem of
the original benchmark is timed against (docs/PROBLEMS.md, "eager.py and the two denominators").
tests/gpu/eager_check.py runs it against the anchor and times it."""
import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    shape = (symbols["tokens"], symbols["intermediate"])
    return {"gate": torch.randn(shape, device="cuda", dtype=torch.bfloat16),
            "up": torch.randn(shape, device="cuda", dtype=torch.bfloat16)}


@torch.no_grad()
def eager(inputs, symbols, constants):
    # Two launches, the activation rounded to bf16 in memory between them, as baseline.cu runs them.
    return {"h": F.silu(inputs["gate"]) * inputs["up"]}
