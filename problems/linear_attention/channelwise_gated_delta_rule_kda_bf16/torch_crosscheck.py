"""channelwise_gated_delta_rule_kda_bf16 in float64 PyTorch: the semantics without rounding points, for the
cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def reference(inputs, symbols, constants):
    eps = constants["norm_eps"]
    q, k, v, g, beta = (inputs[n] for n in ("q", "k", "v", "g", "beta"))
    q = q / torch.linalg.vector_norm(q, dim=-1, keepdim=True).clamp_min(eps) * constants["scale"]
    k = k / torch.linalg.vector_norm(k, dim=-1, keepdim=True).clamp_min(eps)
    B, T, H, D = v.shape  # one value head per key head here
    state = torch.zeros(B, H, D, D, dtype=v.dtype, device=v.device)  # [b, h, key channel, value channel]
    o = torch.empty_like(v)
    for t in range(T):
        state = torch.exp(g[:, t]).unsqueeze(-1) * state
        error = v[:, t] - torch.einsum("bhk,bhkv->bhv", k[:, t], state)
        state = state + torch.einsum("bhk,bhv->bhkv", k[:, t], beta[:, t].unsqueeze(-1) * error)
        o[:, t] = torch.einsum("bhk,bhkv->bhv", q[:, t], state)
    return {"o": o}
