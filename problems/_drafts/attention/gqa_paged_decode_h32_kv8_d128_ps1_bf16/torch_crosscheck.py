"""gqa_paged_decode_h32_kv8_d128_ps1_bf16 in float64 PyTorch: the semantics without rounding points, for
the cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import math

import torch


def reference(inputs, symbols, constants):
    q, k_cache, v_cache = inputs["q"], inputs["k_cache"], inputs["v_cache"]
    indptr, indices = inputs["kv_indptr"].tolist(), inputs["kv_indices"]
    group = symbols["num_qo_heads"] // symbols["num_kv_heads"]
    output = torch.zeros_like(q)
    lse = torch.full(q.shape[:2], -math.inf, dtype=q.dtype, device=q.device)
    for b in range(symbols["batch_size"]):
        pages = indices[indptr[b]:indptr[b + 1]]
        if pages.numel() == 0:
            continue
        # page size 1: one token per page; [tokens, kv_heads, dim] -> one KV head per query head
        keys = k_cache[pages, 0].repeat_interleave(group, dim=1)      # [T, 32, 128]
        values = v_cache[pages, 0].repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,thd->ht", q[b], keys) * constants["sm_scale"]
        lse[b] = torch.logsumexp(scores, dim=1) / math.log(2.0)
        output[b] = torch.einsum("ht,thd->hd", torch.softmax(scores, dim=1), values)
    return {"output": output, "lse": lse}
