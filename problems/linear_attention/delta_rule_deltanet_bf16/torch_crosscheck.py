"""delta_rule_deltanet_bf16 in float64 PyTorch: the semantics without rounding points, for the cross-check
against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def reference(inputs, symbols, constants):
    eps = constants["norm_eps"]
    q, k, v, beta = inputs["q"], inputs["k"], inputs["v"], inputs["beta"]
    q = q / torch.linalg.vector_norm(q, dim=-1, keepdim=True).clamp_min(eps) * constants["scale"]
    k = k / torch.linalg.vector_norm(k, dim=-1, keepdim=True).clamp_min(eps)
    state = inputs["initial_state"].clone()  # [B, H, K, V]
    o = torch.empty_like(v)
    for t in range(symbols["seq_len"]):
        k_t = k[:, :, t]
        error = v[:, :, t] - torch.einsum("bhk,bhkv->bhv", k_t, state)
        state = state + torch.einsum("bhk,bhv->bhkv", k_t, beta[:, :, t, None] * error)
        o[:, :, t] = torch.einsum("bhk,bhkv->bhv", q[:, :, t], state)
    return {"o": o, "final_state": state}
