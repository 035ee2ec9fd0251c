"""sparse_expert_dispatch_combine_gptoss_fp32 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): each token's 4 experts apply a biased gate/up projection (interleaved
columns), GPT-OSS's clamped GLU and a biased down projection, weighted by the dense routing weights."""
import torch


def reference(inputs, symbols, constants):
    x, chosen, weights = inputs["hidden_states"], inputs["router_indices"], inputs["routing_weights"]
    alpha, limit = constants["glu_alpha"], constants["glu_limit"]
    out = torch.zeros_like(x)
    for e in chosen.unique().tolist():
        token = torch.nonzero((chosen == e).any(dim=-1)).flatten()
        gu = x[token] @ inputs["gate_up_projection"][e] + inputs["gate_up_projection_bias"][e]
        gate, up = gu[:, 0::2].clamp(max=limit), gu[:, 1::2].clamp(-limit, limit)
        y = ((up + 1) * gate * torch.sigmoid(alpha * gate)) @ inputs["down_projection"][e] + inputs["down_projection_bias"][e]
        out[token] += y * weights[token, e, None]
    return {"next_states": out}
