"""gqa_ragged_prefill_causal_h8_kv1_d256_bf16 in float64 PyTorch, for the cross-check against the
anchor (tests/gpu/cross_check_torch.py): per request, dense masked attention without rounding."""
import math

import torch


def reference(inputs, symbols, constants):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    qo, kv = inputs["qo_indptr"].tolist(), inputs["kv_indptr"].tolist()
    group = symbols["num_qo_heads"] // symbols["num_kv_heads"]
    scale = constants["sm_scale"]
    output = torch.empty(q.shape[0], q.shape[1], v.shape[2], dtype=torch.float64, device=q.device)
    lse = torch.empty(q.shape[0], q.shape[1], dtype=torch.float64, device=q.device)
    for b in range(symbols["batch_size"]):
        qb = q[qo[b]:qo[b + 1]]                                   # [n, H, D]
        kb = k[kv[b]:kv[b + 1]].repeat_interleave(group, dim=1)   # [m, H, D]
        vb = v[kv[b]:kv[b + 1]].repeat_interleave(group, dim=1)
        n, m = qb.shape[0], kb.shape[0]
        s = torch.einsum("ihd,jhd->hij", qb, kb) * scale          # [H, n, m]
        # Query i sees keys j <= i + (m - n).
        i = torch.arange(n, device=q.device)[:, None]
        j = torch.arange(m, device=q.device)[None, :]
        s = s.masked_fill(j > i + (m - n), -math.inf)
        lse[qo[b]:qo[b + 1]] = (torch.logsumexp(s, dim=-1) / math.log(2.0)).transpose(0, 1)
        w = torch.softmax(s, dim=-1)
        output[qo[b]:qo[b + 1]] = torch.einsum("hij,jhd->ihd", w, vb)
    return {"output": output, "lse": lse}
