"""gated_linear_attention_gla_bf16 in float64 PyTorch: the semantics without rounding points, for the
cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def reference(inputs, symbols, constants):
    q, k, v, gk = (inputs[n] for n in ("q", "k", "v", "gk"))  # [B, T, H, D]
    B, T, H, K = q.shape
    state = torch.zeros(B, H, K, v.shape[-1], dtype=v.dtype, device=v.device)
    o = torch.empty_like(v)
    for t in range(T):
        state = torch.exp(gk[:, t]).unsqueeze(-1) * state + torch.einsum("bhk,bhv->bhkv", k[:, t], v[:, t])
        o[:, t] = torch.einsum("bhk,bhkv->bhv", q[:, t] * constants["scale"], state)
    return {"o": o}
