"""gqa_paged_prefill_causal_h24_kv8_d128_ps64_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with the per-request, per-chunk and per-KV-head Python loops and .item()
host syncs (YIGE24/MetaKernelBench problems/attention/06_gqa_paged_prefill_causal_h24_kv8_d128_ps64_bf16.py
at d90ba286). tests/gpu/eager_check.py runs it."""
import math

import torch

QO_INDPTR = (0, 206, 373, 612, 836, 1112, 1442, 1938, 2411, 2963, 3408, 3939, 4463, 4999, 5601, 6069)
KV_INDPTR = QO_INDPTR
KV_LAST_PAGE_LEN = (1,) * 15


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = "cuda"
    num_pages, page_size = symbols["num_pages"], symbols["page_size"]
    q = torch.randn(QO_INDPTR[-1], symbols["num_qo_heads"], symbols["head_dim"], device=device, dtype=torch.bfloat16)
    pool = (num_pages, page_size, symbols["num_kv_heads"], symbols["head_dim"])
    k_cache = torch.randn(pool, device=device, dtype=torch.bfloat16)
    v_cache = torch.randn(pool, device=device, dtype=torch.bfloat16)
    qo_indptr = torch.tensor(QO_INDPTR, device=device, dtype=torch.int32)
    kv_indptr = torch.tensor(KV_INDPTR, device=device, dtype=torch.int32)
    kv_indices = torch.randperm(num_pages, device=device)[:KV_INDPTR[-1]].to(torch.int32)
    kv_last_page_len = torch.tensor(KV_LAST_PAGE_LEN, device=device, dtype=torch.int32)
    return {"q": q, "k_cache": k_cache, "v_cache": v_cache, "qo_indptr": qo_indptr, "kv_indptr": kv_indptr,
            "kv_indices": kv_indices, "kv_last_page_len": kv_last_page_len}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k_cache, v_cache = inputs["q"], inputs["k_cache"], inputs["v_cache"]
    qo_indptr, kv_indptr, kv_indices = inputs["qo_indptr"], inputs["kv_indptr"], inputs["kv_indices"]
    kv_last_page_len = inputs["kv_last_page_len"]
    sm_scale, chunk = constants["sm_scale"], symbols["chunk_q"]
    total_q, num_qo_heads, head_dim = q.shape
    num_kv_heads = k_cache.shape[2]
    device = q.device
    compute_dtype = torch.promote_types(q.dtype, torch.float32)
    output = torch.zeros((total_q, num_qo_heads, head_dim), dtype=q.dtype, device=device)
    lse = torch.full((total_q, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)
    group = num_qo_heads // num_kv_heads
    q_wide = q.to(compute_dtype)
    for b in range(qo_indptr.shape[0] - 1):
        qs, qe = int(qo_indptr[b].item()), int(qo_indptr[b + 1].item())
        kvs, kve = int(kv_indptr[b].item()), int(kv_indptr[b + 1].item())
        last_len = int(kv_last_page_len[b].item())
        page_ids = kv_indices[kvs:kve].to(torch.long)
        full = len(page_ids) - 1
        k_full = k_cache[page_ids[:full]].to(compute_dtype).reshape(-1, num_kv_heads, head_dim)
        v_full = v_cache[page_ids[:full]].to(compute_dtype).reshape(-1, num_kv_heads, head_dim)
        k_tokens = torch.cat([k_full, k_cache[page_ids[-1], :last_len].to(compute_dtype)], dim=0)
        v_tokens = torch.cat([v_full, v_cache[page_ids[-1], :last_len].to(compute_dtype)], dim=0)
        num_kv, num_q = k_tokens.shape[0], qe - qs
        delta = num_kv - num_q
        k_heads, v_heads = k_tokens.permute(1, 0, 2), v_tokens.permute(1, 0, 2)
        kv_pos = torch.arange(num_kv, device=device)
        for c0 in range(0, num_q, chunk):
            c1 = min(c0 + chunk, num_q)
            q_chunk = q_wide[qs + c0:qs + c1]
            q_pos = torch.arange(c0, c1, device=device).unsqueeze(1)
            causal_mask = kv_pos.unsqueeze(0) > q_pos + delta
            out_chunk = torch.zeros((c1 - c0, num_qo_heads, head_dim), dtype=compute_dtype, device=device)
            lse_chunk = torch.full((c1 - c0, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)
            for g in range(num_kv_heads):
                h0, h1 = g * group, (g + 1) * group
                logits = torch.einsum("qhd,kd->qhk", q_chunk[:, h0:h1, :], k_heads[g]) * sm_scale
                logits.masked_fill_(causal_mask.unsqueeze(1), -float("inf"))
                lse_chunk[:, h0:h1] = torch.logsumexp(logits, dim=-1) / math.log(2.0)
                attn = torch.softmax(logits, dim=-1)
                out_chunk[:, h0:h1, :] = torch.einsum("qhk,kd->qhd", attn, v_heads[g])
            lse[qs + c0:qs + c1] = lse_chunk
            output[qs + c0:qs + c1] = out_chunk.to(q.dtype)
    return {"output": output, "lse": lse}
