"""mla_paged_prefill_causal_h16_ckv512_kpe64_ps1_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with its per-sequence and per-query Python loops and .item() syncs
(YIGE24/MetaKernelBench problems/attention/15_mla_paged_prefill_causal_h16_ckv512_kpe64_ps1_bf16.py
at d90ba286). tests/gpu/eager_check.py runs it."""
import math

import torch

QO_INDPTR = (0, 20, 31, 114, 128, 164, 173, 190, 327, 423, 456, 460, 499, 520, 602, 603, 613, 1033, 1061, 1081, 1142,
             1532, 1581, 1757, 1823, 1832, 1864, 1943, 1954)
KV_INDPTR = (0, 23, 38, 123, 141, 180, 191, 212, 353, 452, 488, 494, 538, 561, 651, 655, 669, 1092, 1122, 1145, 1209,
             1602, 1655, 1835, 1905, 1917, 1951, 2032, 2044)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    total_q, heads = QO_INDPTR[-1], symbols["num_qo_heads"]
    ckv, kpe, pages, page = symbols["head_dim_ckv"], symbols["head_dim_kpe"], symbols["num_pages"], symbols["page_size"]
    q_nope = torch.randn(total_q, heads, ckv, device=device, dtype=torch.bfloat16)
    q_pe = torch.randn(total_q, heads, kpe, device=device, dtype=torch.bfloat16)
    ckv_cache = torch.randn(pages, page, ckv, device=device, dtype=torch.bfloat16)
    kpe_cache = torch.randn(pages, page, kpe, device=device, dtype=torch.bfloat16)
    qo_indptr = torch.tensor(QO_INDPTR, device=device, dtype=torch.int32)
    kv_indptr = torch.tensor(KV_INDPTR, device=device, dtype=torch.int32)
    kv_indices = torch.randperm(pages, device=device)[:KV_INDPTR[-1]].to(torch.int32)
    return {"q_nope": q_nope, "q_pe": q_pe, "ckv_cache": ckv_cache, "kpe_cache": kpe_cache,
            "qo_indptr": qo_indptr, "kv_indptr": kv_indptr, "kv_indices": kv_indices}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q_nope, q_pe = inputs["q_nope"], inputs["q_pe"]
    ckv_cache, kpe_cache = inputs["ckv_cache"], inputs["kpe_cache"]
    qo_indptr, kv_indptr, kv_indices = inputs["qo_indptr"], inputs["kv_indptr"], inputs["kv_indices"]
    sm_scale = constants["sm_scale"]
    total_q, num_qo_heads, head_dim_ckv = q_nope.shape
    batch_size = qo_indptr.shape[0] - 1
    device = q_nope.device
    compute_dtype = torch.promote_types(q_nope.dtype, torch.float32)

    Kc_all = ckv_cache.squeeze(1)
    Kp_all = kpe_cache.squeeze(1)
    output = torch.zeros((total_q, num_qo_heads, head_dim_ckv), dtype=q_nope.dtype, device=device)
    lse = torch.full((total_q, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)

    for b in range(batch_size):
        q_start = int(qo_indptr[b].item())
        q_end = int(qo_indptr[b + 1].item())
        page_beg = int(kv_indptr[b].item())
        page_end = int(kv_indptr[b + 1].item())
        kv_len = page_end - page_beg
        tok_idx = kv_indices[page_beg:page_end].to(torch.long)
        Kc = Kc_all[tok_idx].to(compute_dtype)
        Kp = Kp_all[tok_idx].to(compute_dtype)
        q_nope_batch = q_nope[q_start:q_end].to(compute_dtype)
        q_pe_batch = q_pe[q_start:q_end].to(compute_dtype)
        q_len = q_end - q_start
        for i in range(q_len):
            qn = q_nope_batch[i]
            qp = q_pe_batch[i]
            logits_scaled = ((qn @ Kc.T) + (qp @ Kp.T)) * sm_scale
            prefix_len = kv_len - q_len
            query_abs_pos = prefix_len + i
            causal_mask = torch.arange(kv_len, device=device) > query_abs_pos
            logits_scaled.masked_fill_(causal_mask.unsqueeze(0), -float("inf"))
            lse[q_start + i] = torch.logsumexp(logits_scaled, dim=-1) / math.log(2.0)
            attn = torch.softmax(logits_scaled, dim=-1)
            output[q_start + i] = (attn @ Kc).to(q_nope.dtype)
    return {"output": output, "lse": lse}
