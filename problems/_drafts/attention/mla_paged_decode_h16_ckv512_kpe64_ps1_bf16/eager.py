"""mla_paged_decode_h16_ckv512_kpe64_ps1_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with its per-sequence Python loop and .item() syncs (YIGE24/MetaKernelBench
problems/attention/14_mla_paged_decode_h16_ckv512_kpe64_ps1_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import math

import torch

KV_INDPTR = (0, 537, 1051, 1689, 2199, 3771, 5311, 6904, 8494, 11155, 13258, 15676, 24873, 25427, 25946, 27825,
             28517, 29331, 30010, 30680, 31220, 31736, 32254, 32866, 33378, 36677, 37310, 37846, 38896, 39415, 39983,
             40641, 41155, 41689, 42417, 43059, 43975, 45419, 47001, 48634, 50171, 51682, 52311, 53407, 54908, 56394,
             57906, 58425, 58975, 59915, 60483, 61003, 64016, 64571, 65094, 66520, 67099, 67743, 68267, 68784, 69317,
             70745, 72061, 73455, 75145)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    batch, heads = symbols["batch_size"], symbols["num_qo_heads"]
    ckv, kpe, pages, page = symbols["head_dim_ckv"], symbols["head_dim_kpe"], symbols["num_pages"], symbols["page_size"]
    q_nope = torch.randn(batch, heads, ckv, device=device, dtype=torch.bfloat16)
    q_pe = torch.randn(batch, heads, kpe, device=device, dtype=torch.bfloat16)
    ckv_cache = torch.randn(pages, page, ckv, device=device, dtype=torch.bfloat16)
    kpe_cache = torch.randn(pages, page, kpe, device=device, dtype=torch.bfloat16)
    kv_indptr = torch.tensor(KV_INDPTR, device=device, dtype=torch.int32)
    kv_indices = torch.randperm(pages, device=device)[:KV_INDPTR[-1]].to(torch.int32)
    return {"q_nope": q_nope, "q_pe": q_pe, "ckv_cache": ckv_cache, "kpe_cache": kpe_cache,
            "kv_indptr": kv_indptr, "kv_indices": kv_indices}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q_nope, q_pe = inputs["q_nope"], inputs["q_pe"]
    ckv_cache, kpe_cache = inputs["ckv_cache"], inputs["kpe_cache"]
    kv_indptr, kv_indices = inputs["kv_indptr"], inputs["kv_indices"]
    sm_scale = constants["sm_scale"]
    batch_size, num_qo_heads, head_dim_ckv = q_nope.shape
    device = q_nope.device
    compute_dtype = torch.promote_types(q_nope.dtype, torch.float32)

    Kc_all = ckv_cache.squeeze(1)
    Kp_all = kpe_cache.squeeze(1)
    output = torch.zeros((batch_size, num_qo_heads, head_dim_ckv), dtype=q_nope.dtype, device=device)
    lse = torch.full((batch_size, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)

    for b in range(batch_size):
        page_beg = int(kv_indptr[b].item())
        page_end = int(kv_indptr[b + 1].item())
        tok_idx = kv_indices[page_beg:page_end].to(torch.long)
        Kc = Kc_all[tok_idx].to(compute_dtype)
        Kp = Kp_all[tok_idx].to(compute_dtype)
        qn = q_nope[b].to(compute_dtype)
        qp = q_pe[b].to(compute_dtype)
        logits_scaled = ((qn @ Kc.T) + (qp @ Kp.T)) * sm_scale
        lse[b] = torch.logsumexp(logits_scaled, dim=-1) / math.log(2.0)
        attn = torch.softmax(logits_scaled, dim=-1)
        output[b] = (attn @ Kc).to(q_nope.dtype)
    return {"output": output, "lse": lse}
