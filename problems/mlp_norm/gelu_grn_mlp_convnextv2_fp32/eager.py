"""gelu_grn_mlp_convnextv2_fp32 as the original benchmark times it (YIGE24/MetaKernelBench
problems/_sol_execbench/30_gelu_grn_mlp_convnextv2_fp32.json at d90ba286, a masked recipe): our
reconstruction of its reference, eager PyTorch in fp32 (TF32 off, PyTorch's default).
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    dim, hidden = symbols["dim"], symbols["hidden_dim"]
    kw = dict(device="cuda", dtype=torch.float32)
    # Drawn in the original's order: input, pwconv1 weight and bias, GRN gamma and beta, pwconv2 weight and bias.
    x = torch.randn(symbols["batch_size"], symbols["height"], symbols["width"], dim, **kw)
    w1 = torch.randn(hidden, dim, **kw) / math.sqrt(dim)
    b1 = torch.randn(hidden, **kw)
    gamma = torch.randn(1, 1, 1, hidden, **kw) / math.sqrt(hidden)
    beta = torch.randn(1, 1, 1, hidden, **kw)
    w2 = torch.randn(dim, hidden, **kw) / math.sqrt(hidden)
    b2 = torch.randn(dim, **kw)
    return {"x": x, "w1": w1, "b1": b1, "gamma": gamma, "beta": beta, "w2": w2, "b2": b2}


@torch.no_grad()
def eager(inputs, symbols, constants):
    h = F.linear(inputs["x"], inputs["w1"], inputs["b1"])
    h = F.gelu(h)
    gx = torch.linalg.vector_norm(h, ord=2, dim=(1, 2), keepdim=True)
    nx = gx / (gx.mean(dim=-1, keepdim=True) + constants["eps"])
    h = inputs["gamma"] * (h * nx) + inputs["beta"] + h
    return {"y": F.linear(h, inputs["w2"], inputs["b2"])}
