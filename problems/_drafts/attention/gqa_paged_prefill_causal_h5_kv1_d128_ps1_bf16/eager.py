"""gqa_paged_prefill_causal_h5_kv1_d128_ps1_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with the per-request Python loop and .item() host syncs
(YIGE24/MetaKernelBench problems/attention/05_gqa_paged_prefill_causal_h5_kv1_d128_ps1_bf16.py at
d90ba286). tests/gpu/eager_check.py runs it."""
import math

import torch

QO_INDPTR = (0, 5, 73, 74, 94, 113, 124, 153, 156, 162, 182, 216, 229, 338, 347, 353, 380, 389, 412, 432, 735, 1002,
             1250, 1325, 1373, 1394, 1402, 1406, 1840, 1855, 2171, 2191, 2205, 2222, 2270, 2274, 2286, 2292, 2441, 2448,
             2454, 2462, 3211, 5262, 5269, 5364, 5383, 5531, 5537, 5563, 5636, 5645, 5656, 5708, 10847)
KV_INDPTR = (0, 7, 76, 79, 100, 122, 134, 166, 170, 178, 200, 235, 250, 364, 376, 383, 414, 424, 448, 469, 774, 1043,
             1293, 1369, 1418, 1440, 1450, 1455, 1890, 1906, 2225, 2246, 2261, 2279, 2328, 2335, 2349, 2357, 2510, 2519,
             2526, 2536, 3289, 5341, 5350, 5449, 5469, 5619, 5626, 5653, 5727, 5737, 5752, 5805, 10945)


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
    sm_scale = constants["sm_scale"]
    total_q, num_qo_heads, head_dim = q.shape
    device = q.device
    compute_dtype = torch.promote_types(q.dtype, torch.float32)
    output = torch.zeros((total_q, num_qo_heads, head_dim), dtype=q.dtype, device=device)
    lse = torch.full((total_q, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)
    q_wide = q.to(compute_dtype)
    k_flat, v_flat = k_cache.squeeze(1), v_cache.squeeze(1)
    for b in range(qo_indptr.shape[0] - 1):
        qs, qe = int(qo_indptr[b].item()), int(qo_indptr[b + 1].item())
        kvs, kve = int(kv_indptr[b].item()), int(kv_indptr[b + 1].item())
        page_ids = kv_indices[kvs:kve].to(torch.long)
        num_kv = page_ids.shape[0]
        k = k_flat[page_ids, 0, :].to(compute_dtype)
        v = v_flat[page_ids, 0, :].to(compute_dtype)
        q_seq = q_wide[qs:qe]
        num_q = q_seq.shape[0]
        delta = num_kv - num_q
        logits = torch.einsum("qhd,kd->qhk", q_seq, k) * sm_scale
        q_idx = torch.arange(num_q, device=device, dtype=torch.long).unsqueeze(1)
        kv_idx = torch.arange(num_kv, device=device, dtype=torch.long).unsqueeze(0)
        keep = (kv_idx <= q_idx + delta).unsqueeze(1)
        logits = logits.masked_fill(~keep, -float("inf"))
        lse[qs:qe] = torch.logsumexp(logits, dim=-1) / math.log(2.0)
        attn = torch.softmax(logits, dim=-1)
        output[qs:qe] = torch.einsum("qhk,kd->qhd", attn, v).to(q.dtype)
    return {"output": output, "lse": lse}
