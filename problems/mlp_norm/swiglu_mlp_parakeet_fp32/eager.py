"""swiglu_mlp_parakeet_fp32 as the original benchmark times it (YIGE24/MetaKernelBench
problems/_sol_execbench/32_swiglu_mlp_parakeet_fp32.json at d90ba286, a masked recipe): our
reconstruction of its reference, eager PyTorch in fp32 (TF32 off, PyTorch's default).
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    hidden, inter = symbols["hidden_size"], symbols["intermediate_size"]
    kw = dict(device="cuda", dtype=torch.float32)
    # Drawn in the original's order: activations, fused gate-up weight, down weight.
    x = torch.randn(symbols["batch_size"], symbols["seq_len"], hidden, **kw)
    w_gate_up = torch.randn(symbols["intermediate_size_x2"], hidden, **kw) / math.sqrt(hidden)
    w_down = torch.randn(hidden, inter, **kw) / math.sqrt(inter)
    return {"x": x, "w_gate_up": w_gate_up, "w_down": w_down}


@torch.no_grad()
def eager(inputs, symbols, constants):
    h = F.linear(inputs["x"], inputs["w_gate_up"])
    gate, up = h.chunk(2, dim=-1)  # views: the first half gates
    act = gate * torch.sigmoid(gate)
    act = act * up
    return {"out": F.linear(act, inputs["w_down"])}
