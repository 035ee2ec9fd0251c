"""router_dispatch_backward_qwen3_coder_30b_bf16 in float64 PyTorch, for the cross-check against the
anchor (tests/gpu/cross_check_torch.py). Inputs arrive as float64 (floating) and int64 tensors."""
import torch


def reference(inputs, symbols, constants):
    probs = inputs["routing_probs"]
    sel = inputs["selected_experts"]
    S = inputs["routing_weights_sum"]                       # [T, 1]
    g = inputs["grad_routing_weights"]                      # [T, K]
    T, K = sel.shape
    # d/dw of w / sum(w) contracted with g: (g - <g, w> / S) / S.
    w = probs.gather(1, sel)
    g_unnorm = (g - (g * w).sum(1, keepdim=True) / S) / S
    slot = torch.arange(K, device=sel.device).expand(T, K)
    token = torch.arange(T, device=sel.device).unsqueeze(1).expand(T, K)
    g_mask = inputs["grad_expert_mask"][sel, slot, token]
    grad_probs = inputs["grad_router_logits"].clone()
    grad_probs.scatter_add_(1, sel, g_unnorm + g_mask)
    # Softmax Jacobian: p * (g - <g, p>).
    grad_logits = probs * (grad_probs - (grad_probs * probs).sum(1, keepdim=True))
    return {"grad_hidden_states": grad_logits @ inputs["gate_weight"],
            "grad_gate_weight": grad_logits.t() @ inputs["hidden_states"]}
