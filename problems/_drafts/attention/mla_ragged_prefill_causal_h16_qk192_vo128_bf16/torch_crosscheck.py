"""mla_ragged_prefill_causal_h16_qk192_vo128_bf16 in float64 PyTorch, for the cross-check against the
anchor (tests/gpu/cross_check_torch.py): per request, dense masked attention without rounding; every
query head has its own KV head, q.k over 192 dims, values of 128."""
import math

import torch


def reference(inputs, symbols, constants):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    qo, kv = inputs["qo_indptr"].tolist(), inputs["kv_indptr"].tolist()
    scale = constants["sm_scale"]
    output = torch.empty(q.shape[0], q.shape[1], v.shape[2], dtype=torch.float64, device=q.device)
    lse = torch.empty(q.shape[0], q.shape[1], dtype=torch.float64, device=q.device)
    for b in range(symbols["batch_size"]):
        qb, kb, vb = q[qo[b]:qo[b + 1]], k[kv[b]:kv[b + 1]], v[kv[b]:kv[b + 1]]
        n, m = qb.shape[0], kb.shape[0]
        s = torch.einsum("ihd,jhd->hij", qb, kb) * scale          # [H, n, m]
        # Query i sees keys j <= i + (m - n).
        i = torch.arange(n, device=q.device)[:, None]
        j = torch.arange(m, device=q.device)[None, :]
        s = s.masked_fill(j > i + (m - n), -math.inf)
        lse[qo[b]:qo[b + 1]] = (torch.logsumexp(s, dim=-1) / math.log(2.0)).transpose(0, 1)
        output[qo[b]:qo[b + 1]] = torch.einsum("hij,jhd->ihd", torch.softmax(s, dim=-1), vb)
    return {"output": output, "lse": lse}
