"""gqa_paged_decode_h5_kv1_d128_ps1_bf16 as the original benchmark times it: its public reference(),
eager PyTorch at the inputs' own dtypes with its Python loop over requests and .item() host syncs
(YIGE24/MetaKernelBench problems/attention/02_gqa_paged_decode_h5_kv1_d128_ps1_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import math

import torch

KV_INDPTR = (0, 20, 28, 98, 102, 124, 147, 160, 193, 198, 207, 230, 266, 282, 397, 410, 418, 450, 461, 486, 508, 814,
             1084, 1335, 1412, 1462, 1485, 1496, 1502, 1938, 1955, 2275, 2297, 2313, 2332, 2382, 2390, 2405, 2414, 2568,
             2578, 2586, 2597, 4650, 4660, 4760, 4781, 4932, 4940, 4968, 5043, 5054, 5070, 5124, 10265, 15933, 15946,
             16069, 16081, 17894, 19017, 19040, 19118, 19134)


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
    return {"q": q, "k_cache": k_cache, "v_cache": v_cache, "kv_indptr": kv_indptr, "kv_indices": kv_indices}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k_cache, v_cache = inputs["q"], inputs["k_cache"], inputs["v_cache"]
    kv_indptr, kv_indices = inputs["kv_indptr"], inputs["kv_indices"]
    sm_scale = constants["sm_scale"]
    batch_size, num_qo_heads, head_dim = q.shape
    _, page_size, num_kv_heads, _ = k_cache.shape

    compute_dtype = torch.promote_types(q.dtype, torch.float32)
    output = torch.zeros((batch_size, num_qo_heads, head_dim), dtype=q.dtype, device=q.device)
    lse = torch.full((batch_size, num_qo_heads), -float("inf"), dtype=compute_dtype, device=q.device)
    gqa_ratio = num_qo_heads // num_kv_heads
    k_flat = k_cache.squeeze(1)
    v_flat = v_cache.squeeze(1)
    q_wide = q.to(compute_dtype)

    for b in range(batch_size):
        first = int(kv_indptr[b].item())
        last = int(kv_indptr[b + 1].item())
        idx = kv_indices[first:last].to(torch.long)
        k = k_flat[idx].to(compute_dtype).permute(1, 0, 2).repeat_interleave(gqa_ratio, dim=0)
        v = v_flat[idx].to(compute_dtype).permute(1, 0, 2).repeat_interleave(gqa_ratio, dim=0)
        q_b = q_wide[b].unsqueeze(1)
        logits = torch.bmm(q_b, k.transpose(1, 2)).squeeze(1) * sm_scale
        lse[b] = torch.logsumexp(logits, dim=-1) / math.log(2.0)
        attn = torch.softmax(logits, dim=-1)
        output[b] = torch.bmm(attn.unsqueeze(1), v).squeeze(1).to(q.dtype)
    return {"output": output, "lse": lse}
