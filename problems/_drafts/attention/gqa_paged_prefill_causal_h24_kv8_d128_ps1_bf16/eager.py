"""gqa_paged_prefill_causal_h24_kv8_d128_ps1_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with the per-request and per-chunk Python loops and .item() host syncs
(YIGE24/MetaKernelBench problems/attention/04_gqa_paged_prefill_causal_h24_kv8_d128_ps1_bf16.py at
d90ba286). tests/gpu/eager_check.py runs it."""
import math

import torch

QO_INDPTR = (0, 145, 311, 484, 886, 1222, 1568, 1908, 2250, 2695, 3049, 3595, 4042, 4555, 5093, 5638, 6413, 6974,
             7689, 8514, 9110, 10050, 11131, 12281, 13236, 14199, 15449, 16372)
KV_INDPTR = QO_INDPTR


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
    return {"q": q, "k_cache": k_cache, "v_cache": v_cache, "qo_indptr": qo_indptr, "kv_indptr": kv_indptr,
            "kv_indices": kv_indices}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k_cache, v_cache = inputs["q"], inputs["k_cache"], inputs["v_cache"]
    qo_indptr, kv_indptr, kv_indices = inputs["qo_indptr"], inputs["kv_indptr"], inputs["kv_indices"]
    sm_scale, chunk = constants["sm_scale"], symbols["chunk_q"]
    total_q, num_qo_heads, head_dim = q.shape
    num_kv_heads = k_cache.shape[2]
    device = q.device
    compute_dtype = torch.promote_types(q.dtype, torch.float32)
    output = torch.zeros((total_q, num_qo_heads, head_dim), dtype=q.dtype, device=device)
    lse = torch.full((total_q, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)
    group = num_qo_heads // num_kv_heads
    q_wide = q.to(compute_dtype)
    k_flat, v_flat = k_cache.squeeze(1), v_cache.squeeze(1)
    for b in range(qo_indptr.shape[0] - 1):
        qs, qe = int(qo_indptr[b].item()), int(qo_indptr[b + 1].item())
        kvs, kve = int(kv_indptr[b].item()), int(kv_indptr[b + 1].item())
        page_ids = kv_indices[kvs:kve].to(torch.long)
        k = k_flat[page_ids].to(compute_dtype)
        v = v_flat[page_ids].to(compute_dtype)
        num_kv, num_q = k.shape[0], qe - qs
        delta = num_kv - num_q
        k_exp = k.permute(1, 0, 2).repeat_interleave(group, dim=0)
        v_exp = v.permute(1, 0, 2).repeat_interleave(group, dim=0)
        kv_pos = torch.arange(num_kv, device=device)
        for c0 in range(0, num_q, chunk):
            c1 = min(c0 + chunk, num_q)
            logits = torch.einsum("qhd,hkd->hqk", q_wide[qs + c0:qs + c1], k_exp) * sm_scale
            q_pos = torch.arange(c0, c1, device=device).unsqueeze(1)
            logits.masked_fill_((kv_pos.unsqueeze(0) > q_pos + delta).unsqueeze(0), -float("inf"))
            lse[qs + c0:qs + c1] = (torch.logsumexp(logits, dim=-1) / math.log(2.0)).permute(1, 0)
            attn = torch.softmax(logits, dim=-1)
            output[qs + c0:qs + c1] = torch.einsum("hqk,hkd->qhd", attn, v_exp).to(q.dtype)
    return {"output": output, "lse": lse}
