"""mla_ragged_prefill_causal_h16_qk192_vo128_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with its per-request Python loop and .item() host syncs (YIGE24/
MetaKernelBench problems/attention/16_mla_ragged_prefill_causal_h16_qk192_vo128_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import math

import torch

# The original's fixed workload: query lengths (captured) and a cached prefix of 256 tokens per request.
Q_LENS = (39, 38, 39, 39, 39, 40, 40, 40, 41, 40, 40, 42, 42, 41, 42, 42, 43, 42, 43, 42, 43, 43, 44, 44, 44, 46, 45,
          44, 45, 45, 46, 46, 46, 46, 46, 47, 47, 47, 47, 48, 49, 48, 47, 48, 49, 50, 49, 49, 50, 50, 51, 51, 50, 51,
          51, 52, 50, 52, 53, 53, 54, 53, 52)
PREFIX_LENS = (256,) * 63


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    total_q = sum(Q_LENS)
    total_kv = total_q + sum(PREFIX_LENS)
    q_lens = torch.tensor(Q_LENS, device=device)
    kv_lens = q_lens + torch.tensor(PREFIX_LENS, device=device)
    qo_indptr = torch.cat([q_lens.new_zeros(1), q_lens.cumsum(0)]).to(torch.int32)
    kv_indptr = torch.cat([kv_lens.new_zeros(1), kv_lens.cumsum(0)]).to(torch.int32)
    heads, kv_heads = symbols["num_qo_heads"], symbols["num_kv_heads"]
    q = torch.randn(total_q, heads, symbols["qk_dim"], device=device, dtype=torch.bfloat16)
    k = torch.randn(total_kv, kv_heads, symbols["qk_dim"], device=device, dtype=torch.bfloat16)
    v = torch.randn(total_kv, kv_heads, symbols["vo_dim"], device=device, dtype=torch.bfloat16)
    return {"q": q, "k": k, "v": v, "qo_indptr": qo_indptr, "kv_indptr": kv_indptr}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    qo_indptr, kv_indptr = inputs["qo_indptr"], inputs["kv_indptr"]
    sm_scale = constants["sm_scale"]
    total_q, num_qo_heads, qk_dim = q.shape
    total_kv, num_kv_heads, vo_dim = v.shape
    # The original's checks, two of them host syncs.
    assert num_qo_heads == symbols["num_qo_heads"] and num_kv_heads == symbols["num_kv_heads"]
    assert qk_dim == symbols["qk_dim"] and vo_dim == symbols["vo_dim"]
    assert total_q == qo_indptr[-1].item()
    assert total_kv == kv_indptr[-1].item()
    device = q.device
    compute_dtype = torch.promote_types(q.dtype, torch.float32)

    output = torch.zeros((total_q, num_qo_heads, vo_dim), dtype=q.dtype, device=device)
    lse = torch.full((total_q, num_qo_heads), -float("inf"), dtype=compute_dtype, device=device)
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

        logits = torch.einsum("qhd,khd->qhk", q_batch, k_batch) * sm_scale
        q_positions = torch.arange(num_q_tokens, device=device)
        kv_positions = torch.arange(num_kv_tokens, device=device)
        causal_mask = kv_positions[None, :] < (q_positions[:, None] + 1 + delta)
        logits = logits.masked_fill(~causal_mask[:, None, :], -float("inf"))

        lse[q_start:q_end] = torch.logsumexp(logits, dim=-1) / math.log(2.0)
        attn_weights = torch.softmax(logits, dim=-1)
        output[q_start:q_end] = torch.einsum("qhk,khd->qhd", attn_weights, v_batch).to(q.dtype)
    return {"output": output, "lse": lse}
