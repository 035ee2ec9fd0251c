"""correction_bias_shared_expert_ernie_bf16 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). Floating inputs arrive as float64."""
import torch
import torch.nn.functional as F


def _swiglu(x, w_gate, w_up, w_down):
    return (F.silu(x @ w_gate.t()) * (x @ w_up.t())) @ w_down.t()


def reference(inputs, symbols, constants):
    h = inputs["hidden_states"]
    B, S, H = h.shape
    x = h.reshape(B * S, H)
    logits = x @ inputs["gate_weight"].t()
    scores = torch.softmax(logits, dim=-1) + inputs["e_score_correction_bias"]
    top, sel = scores.topk(symbols["top_k"], dim=-1)
    weights = top / top.sum(-1, keepdim=True).clamp(min=constants["norm_min"])
    out = _swiglu(x, inputs["shared_gate_proj"], inputs["shared_up_proj"], inputs["shared_down_proj"])
    for e in range(symbols["num_experts"]):
        hit = sel == e
        tok = hit.any(-1).nonzero().squeeze(-1)
        if tok.numel():
            w = (weights * hit).sum(-1)[tok]
            out[tok] += _swiglu(x[tok], inputs["expert_gate_proj"][e], inputs["expert_up_proj"][e],
                                inputs["expert_down_proj"][e]) * w[:, None]
    return {"output": out.view(B, S, H), "router_logits": logits}
