"""gdn_varlen_prefill_qwen3next_bf16 in float64 PyTorch: the semantics without rounding points, for the
cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    group = symbols["num_v_heads"] // symbols["num_q_heads"]
    q = inputs["q"].repeat_interleave(group, dim=1)   # [T, HV, K]
    k = inputs["k"].repeat_interleave(group, dim=1)
    v = inputs["v"]
    g = torch.exp(-torch.exp(inputs["A_log"]) * F.softplus(inputs["a"] + inputs["dt_bias"]))  # [T, HV]
    beta = torch.sigmoid(inputs["b"])
    bounds = inputs["cu_seqlens"].tolist()
    out = torch.empty_like(v)
    final = torch.empty_like(inputs["state"])
    for s in range(len(bounds) - 1):
        rows = inputs["state"][s].clone()            # [HV, V, K] k-last
        for t in range(bounds[s], bounds[s + 1]):
            rows = g[t, :, None, None] * rows
            read = torch.einsum("hvk,hk->hv", rows, k[t])
            rows = rows + (beta[t, :, None] * (v[t] - read))[..., None] * k[t, :, None, :]
            out[t] = constants["scale"] * torch.einsum("hvk,hk->hv", rows, q[t])
        final[s] = rows
    return {"output": out, "new_state": final}
