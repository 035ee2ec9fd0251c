"""gdn_decode_qwen3next_bf16 in float64 PyTorch: the semantics without rounding points, for the cross-check
against the anchor (tests/gpu/cross_check_torch.py). Vectorized over sequences and heads."""
import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    group = symbols["num_v_heads"] // symbols["num_q_heads"]
    q = inputs["q"][:, 0].repeat_interleave(group, dim=1)   # [B, HV, K]
    k = inputs["k"][:, 0].repeat_interleave(group, dim=1)
    v = inputs["v"][:, 0]                                   # [B, HV, V]
    g = torch.exp(-torch.exp(inputs["A_log"]) * F.softplus(inputs["a"][:, 0] + inputs["dt_bias"]))  # [B, HV]
    beta = torch.sigmoid(inputs["b"][:, 0])
    rows = g[..., None, None] * inputs["state"]            # [B, HV, V, K]: decayed k-last state
    old_v = torch.einsum("bhvk,bhk->bhv", rows, k)
    delta = beta[..., None] * (v - old_v)                  # beta v + (1 - beta) old_v - old_v
    new_rows = rows + delta[..., :, None] * k[..., None, :]
    out = constants["scale"] * torch.einsum("bhvk,bhk->bhv", new_rows, q)
    return {"output": out[:, None], "new_state": new_rows}
