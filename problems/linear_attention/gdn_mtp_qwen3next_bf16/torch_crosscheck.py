"""gdn_mtp_qwen3next_bf16 in float64 PyTorch: the semantics without rounding points, for the cross-check
against the anchor (tests/gpu/cross_check_torch.py). Vectorized over sequences and heads."""
import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    group = symbols["num_v_heads"] // symbols["num_q_heads"]
    q = inputs["q"].repeat_interleave(group, dim=2)          # [B, T, HV, K]
    k = inputs["k"].repeat_interleave(group, dim=2)
    v = inputs["v"]
    g = torch.exp(-torch.exp(inputs["A_log"]) * F.softplus(inputs["a"] + inputs["dt_bias"]))  # [B, T, HV]
    beta = torch.sigmoid(inputs["b"])
    rows = inputs["initial_state"][inputs["initial_state_indices"]]   # [B, HV, V, K] k-last
    out = torch.empty_like(v)
    for t in range(symbols["seq_len"]):
        rows = g[:, t, :, None, None] * rows
        old_v = torch.einsum("bhvk,bhk->bhv", rows, k[:, t])
        rows = rows + (beta[:, t, :, None] * (v[:, t] - old_v))[..., None] * k[:, t, :, None, :]
        out[:, t] = constants["scale"] * torch.einsum("bhvk,bhk->bhv", rows, q[:, t])
    return {"output": out, "final_state": inputs["initial_state"].clone()}
