"""capacity_factor_expert_dispatch_qwen3_coder_480b_bf16 in float64 PyTorch, for the cross-check against
the anchor (tests/gpu/cross_check_torch.py). Floating inputs arrive as float64, integers as int64."""
import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    x, sel, w = inputs["hidden_states"], inputs["selected_experts"], inputs["routing_weights"]
    cap = symbols["capacity"]
    out = torch.zeros_like(x)
    for e in range(symbols["num_experts"]):
        hit = sel == e                                   # [T, 8], at most one True per row
        tok = hit.any(1).nonzero().squeeze(1)[:cap]      # ascending tokens, the first `cap` admitted
        if tok.numel() == 0:
            continue
        weight = (w * hit).sum(1)[tok]
        h = F.silu(x[tok] @ inputs["expert_gate_weights"][e]) * (x[tok] @ inputs["expert_up_weights"][e])
        out[tok] += (h @ inputs["expert_down_weights"][e]) * weight[:, None]
    return {"output": out}
