"""gelu_feedforward_flux_fp32 as the original benchmark times it (YIGE24/MetaKernelBench
problems/_sol_execbench/29_gelu_feedforward_flux_fp32.json at d90ba286, a masked recipe): our
reconstruction of its reference, eager PyTorch in fp32 (TF32 off, PyTorch's default).
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    rows = (symbols["batch_size"], symbols["seq_len"])
    hidden, inner = symbols["hidden_dim"], symbols["mlp_hidden_dim"]
    kw = dict(device="cuda", dtype=torch.float32)
    # Drawn in the original's order: activations, fc1 weight and bias, fc2 weight and bias.
    x = torch.randn(*rows, hidden, **kw)
    w1 = torch.randn(inner, hidden, **kw) / math.sqrt(hidden)
    b1 = torch.randn(inner, **kw)
    w2 = torch.randn(hidden, inner, **kw) / math.sqrt(inner)
    b2 = torch.randn(hidden, **kw)
    return {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2}


@torch.no_grad()
def eager(inputs, symbols, constants):
    h = F.linear(inputs["x"], inputs["w1"], inputs["b1"])
    a = F.gelu(h, approximate="tanh")
    return {"y": F.linear(a, inputs["w2"], inputs["b2"])}
