"""gqa_paged_prefill_causal_h24_kv8_d128_ps1_bf16 in float64 PyTorch: varlen causal paged GQA prefill
without rounding points, for the cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import math

import torch


def reference(inputs, symbols, constants):
    q, k_cache, v_cache = inputs["q"], inputs["k_cache"], inputs["v_cache"]
    qo_indptr = inputs["qo_indptr"].tolist()
    kv_indptr = inputs["kv_indptr"].tolist()
    kv_indices = inputs["kv_indices"]
    page_size = symbols["page_size"]
    group = symbols["num_qo_heads"] // symbols["num_kv_heads"]
    output = torch.zeros_like(q)
    lse = torch.full(q.shape[:2], -math.inf, dtype=q.dtype, device=q.device)
    for b in range(len(qo_indptr) - 1):
        qs, qe = qo_indptr[b], qo_indptr[b + 1]
        pages = kv_indices[kv_indptr[b]:kv_indptr[b + 1]]
        # Tokens in order: every slot of every page (page size 1: one slot per page).
        k = k_cache[pages].reshape(-1, *k_cache.shape[2:])
        v = v_cache[pages].reshape(-1, *v_cache.shape[2:])
        kv_len, q_len = k.shape[0], qe - qs
        k = k.repeat_interleave(group, dim=1)  # [kv_len, heads, dim]
        v = v.repeat_interleave(group, dim=1)
        s = torch.einsum("qhd,khd->hqk", q[qs:qe], k) * constants["sm_scale"]
        allowed = torch.arange(kv_len, device=q.device)[None, :] <= torch.arange(q_len, device=q.device)[:, None] + (kv_len - q_len)
        s = s.masked_fill(~allowed, -math.inf)
        lse[qs:qe] = (torch.logsumexp(s, dim=-1) / math.log(2.0)).transpose(0, 1)
        output[qs:qe] = torch.einsum("hqk,khd->qhd", torch.softmax(s, dim=-1), v)
    return {"output": output, "lse": lse}
