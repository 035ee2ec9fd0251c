"""gqa_paged_decode_h32_kv8_d128_ps64_bf16 as the original benchmark times it: its public reference(),
eager PyTorch at the inputs' own dtypes with its Python loop over requests and .item() host syncs
(YIGE24/MetaKernelBench problems/attention/03_gqa_paged_decode_h32_kv8_d128_ps64_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import math

import torch

KV_INDPTR = (0, 46, 75, 149, 252, 534, 562, 591, 608, 670, 692, 712, 771, 786, 810, 841, 1193, 1275, 3349, 5940, 6987,
             8811, 10637, 11618, 12695, 13716, 13747, 13956, 13981, 14014, 14041, 14083, 14103, 14131, 14167, 14189,
             14613, 14758, 14951, 14972, 14992, 15018, 15073, 15109, 15150, 17537, 20213, 20539, 20565, 20969, 21115,
             21131, 21158, 21213, 23212, 23247, 24874, 25967, 26278, 26339, 26358, 26710, 27130, 27143, 27222)
KV_LAST_PAGE_LEN = (1,) * 64


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    batch = len(KV_INDPTR) - 1
    heads, kv_heads, dim = symbols["num_qo_heads"], symbols["num_kv_heads"], symbols["head_dim"]
    pages, page_size = symbols["num_pages"], symbols["page_size"]
    q = torch.randn(batch, heads, dim, device=device, dtype=torch.bfloat16)
    k_cache = torch.randn(pages, page_size, kv_heads, dim, device=device, dtype=torch.bfloat16)
    v_cache = torch.randn(pages, page_size, kv_heads, dim, device=device, dtype=torch.bfloat16)
    kv_indptr = torch.tensor(KV_INDPTR, device=device, dtype=torch.int32)
    kv_indices = torch.randperm(pages, device=device)[:KV_INDPTR[-1]].to(torch.int32)
    kv_last_page_len = torch.tensor(KV_LAST_PAGE_LEN, device=device, dtype=torch.int32)
    return {"q": q, "k_cache": k_cache, "v_cache": v_cache, "kv_indptr": kv_indptr, "kv_indices": kv_indices,
            "kv_last_page_len": kv_last_page_len}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k_cache, v_cache = inputs["q"], inputs["k_cache"], inputs["v_cache"]
    kv_indptr, kv_indices, kv_last_page_len = inputs["kv_indptr"], inputs["kv_indices"], inputs["kv_last_page_len"]
    sm_scale = constants["sm_scale"]
    batch_size, num_qo_heads, head_dim = q.shape
    _, page_size, num_kv_heads, _ = k_cache.shape

    compute_dtype = torch.promote_types(q.dtype, torch.float32)
    output = torch.zeros((batch_size, num_qo_heads, head_dim), dtype=q.dtype, device=q.device)
    lse = torch.full((batch_size, num_qo_heads), -float("inf"), dtype=compute_dtype, device=q.device)
    gqa_ratio = num_qo_heads // num_kv_heads
    q_wide = q.to(compute_dtype)

    for b in range(batch_size):
        first = int(kv_indptr[b].item())
        last = int(kv_indptr[b + 1].item())
        last_len = int(kv_last_page_len[b].item())
        page_ids = kv_indices[first:last].to(torch.long)
        num_full_pages = len(page_ids) - 1
        k_full = k_cache[page_ids[:num_full_pages]].to(compute_dtype).reshape(-1, num_kv_heads, head_dim)
        v_full = v_cache[page_ids[:num_full_pages]].to(compute_dtype).reshape(-1, num_kv_heads, head_dim)
        k_tokens = torch.cat([k_full, k_cache[page_ids[-1], :last_len].to(compute_dtype)], dim=0)
        v_tokens = torch.cat([v_full, v_cache[page_ids[-1], :last_len].to(compute_dtype)], dim=0)
        k = k_tokens.permute(1, 0, 2).repeat_interleave(gqa_ratio, dim=0)
        v = v_tokens.permute(1, 0, 2).repeat_interleave(gqa_ratio, dim=0)
        q_b = q_wide[b].unsqueeze(1)
        logits = torch.bmm(q_b, k.transpose(1, 2)).squeeze(1) * sm_scale
        lse[b] = torch.logsumexp(logits, dim=-1) / math.log(2.0)
        attn = torch.softmax(logits, dim=-1)
        output[b] = torch.bmm(attn.unsqueeze(1), v).squeeze(1).to(q.dtype)
    return {"output": output, "lse": lse}
