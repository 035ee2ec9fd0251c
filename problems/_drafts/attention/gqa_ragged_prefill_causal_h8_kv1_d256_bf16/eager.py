"""gqa_ragged_prefill_causal_h8_kv1_d256_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with its per-request Python loop and .item() host syncs (YIGE24/
MetaKernelBench problems/attention/09_gqa_ragged_prefill_causal_h8_kv1_d256_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import math

import torch

# The original's fixed workload: query lengths (captured) and cached-prefix lengths (authored).
Q_LENS = (35, 71, 76, 69, 62, 52, 61, 39, 102, 94, 64, 44, 63, 37, 49, 56, 53, 58, 47, 18, 61, 83, 49, 63, 64, 19,
          82, 63, 17, 39, 59, 46, 66, 86, 41, 58, 36, 41, 33, 18, 19, 25, 32, 39, 68, 47, 73, 41, 50, 13, 27, 59, 22,
          29, 66, 23, 20, 37, 32, 40, 19, 55, 43)
PREFIX_LENS = (0, 64, 17, 39, 5, 58, 26, 44, 11, 0, 33, 61, 8, 22, 49, 0, 14, 55, 30, 3, 41, 64, 19, 7, 36, 0, 52,
               24, 60, 13, 28, 46, 1, 0, 57, 20, 35, 9, 63, 42, 16, 0, 50, 27, 4, 38, 59, 23, 12, 45, 0, 31, 54, 18,
               6, 40, 62, 29, 15, 48, 0, 34, 21)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    total_q = sum(Q_LENS)
    total_kv = total_q + sum(PREFIX_LENS)
    heads, kv_heads, dim = symbols["num_qo_heads"], symbols["num_kv_heads"], symbols["head_dim"]
    q = torch.randn(total_q, heads, dim, device=device, dtype=torch.bfloat16)
    k = torch.randn(total_kv, kv_heads, dim, device=device, dtype=torch.bfloat16)
    v = torch.randn(total_kv, kv_heads, dim, device=device, dtype=torch.bfloat16)
    q_lens = torch.tensor(Q_LENS, device=device)
    kv_lens = q_lens + torch.tensor(PREFIX_LENS, device=device)
    qo_indptr = torch.cat([q_lens.new_zeros(1), q_lens.cumsum(0)]).to(torch.int32)
    kv_indptr = torch.cat([kv_lens.new_zeros(1), kv_lens.cumsum(0)]).to(torch.int32)
    return {"q": q, "k": k, "v": v, "qo_indptr": qo_indptr, "kv_indptr": kv_indptr}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    qo_indptr, kv_indptr = inputs["qo_indptr"], inputs["kv_indptr"]
    sm_scale = constants["sm_scale"]
    total_q, num_qo_heads, head_dim = q.shape
    total_kv, num_kv_heads, _ = k.shape
    # The original's checks, two of them host syncs.
    assert num_qo_heads == symbols["num_qo_heads"] and num_kv_heads == symbols["num_kv_heads"]
    assert head_dim == symbols["head_dim"]
    assert total_q == qo_indptr[-1].item()
    assert total_kv == kv_indptr[-1].item()
    device = q.device
    compute_dtype = torch.promote_types(q.dtype, torch.float32)

    output = torch.zeros((total_q, num_qo_heads, head_dim), dtype=q.dtype, device=device)
    lse = torch.full((total_q, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)
    gqa_ratio = num_qo_heads // num_kv_heads
    q_wide, k_wide, v_wide = q.to(compute_dtype), k.to(compute_dtype), v.to(compute_dtype)

    # One request at a time, its bounds read back to the host, as the original does.
    for b in range(qo_indptr.shape[0] - 1):
        q_start, q_end = int(qo_indptr[b].item()), int(qo_indptr[b + 1].item())
        kv_start, kv_end = int(kv_indptr[b].item()), int(kv_indptr[b + 1].item())
        q_batch = q_wide[q_start:q_end]
        k_batch = k_wide[kv_start:kv_end]
        v_batch = v_wide[kv_start:kv_end]
        num_q_tokens, num_kv_tokens = q_batch.shape[0], k_batch.shape[0]
        delta = num_kv_tokens - num_q_tokens

        k_expanded = k_batch.repeat_interleave(gqa_ratio, dim=1)
        v_expanded = v_batch.repeat_interleave(gqa_ratio, dim=1)
        logits = torch.einsum("qhd,khd->qhk", q_batch, k_expanded) * sm_scale
        q_positions = torch.arange(num_q_tokens, device=device)
        kv_positions = torch.arange(num_kv_tokens, device=device)
        causal_mask = kv_positions[None, :] < (q_positions[:, None] + 1 + delta)
        logits = logits.masked_fill(~causal_mask[:, None, :], -float("inf"))

        lse[q_start:q_end] = torch.logsumexp(logits, dim=-1) / math.log(2.0)
        attn_weights = torch.softmax(logits, dim=-1)
        output[q_start:q_end] = torch.einsum("qhk,khd->qhd", attn_weights, v_expanded).to(q.dtype)
    return {"output": output, "lse": lse}
