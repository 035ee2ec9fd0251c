"""top10_shared_gate_qwen3next_bf16 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): softmax router, the 10 most probable experts renormalized, SwiGLU experts
summed with those weights, plus a SwiGLU shared expert scaled by a sigmoid gate."""
import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    x = inputs["hidden_states"].flatten(0, 1)
    logits = x @ inputs["router_weight"].T
    probs, chosen = torch.softmax(logits, dim=-1).topk(symbols["top_k"], dim=-1)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    routed = torch.zeros_like(x)
    for e in chosen.unique().tolist():
        token, slot = torch.nonzero(chosen == e, as_tuple=True)
        xe = x[token]
        h = F.silu(xe @ inputs["routed_gate_proj"][e].T) * (xe @ inputs["routed_up_proj"][e].T)
        routed.index_add_(0, token, (h @ inputs["routed_down_proj"][e].T) * probs[token, slot, None])
    shared = F.silu(x @ inputs["shared_gate_proj"].T) * (x @ inputs["shared_up_proj"].T)
    shared = (shared @ inputs["shared_down_proj"].T) * torch.sigmoid(x @ inputs["shared_expert_gate"].T)
    final = (routed + shared).view(inputs["hidden_states"].shape)
    return {"final_hidden_states": final, "router_logits": logits}
