"""relative_position_local_attention_gemma3n_audio_fp32 as the original benchmark times it,
reconstructed (its reference is masked; spec.json notes say how): eager PyTorch, fp32, in the form of
Hugging Face's Gemma3nAudioAttention (YIGE24/MetaKernelBench
problems/_sol_execbench/12_relative_position_local_attention_gemma3n_audio_fp32.json at d90ba286).
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    B, T, D = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"]
    H, back, nts = symbols["head_dim"], symbols["max_backward"], symbols["num_timescales"]
    lo, hi = constants["min_timescale"], constants["max_timescale"]
    hidden_states = torch.randn(B, T, D, device=device, dtype=torch.float32)
    valid_lens = torch.randint(T - back, T + 1, (B,), device=device)
    mask = torch.arange(T, device=device)[None, :] >= valid_lens[:, None]
    weights = [torch.randn(D, D, device=device, dtype=torch.float32) / math.sqrt(D) for _ in range(4)]
    per_dim_scale = 0.1 * torch.randn(H, device=device, dtype=torch.float32)
    increment = math.log(hi / lo) / max(nts - 1, 1)
    inv_timescales = lo * torch.exp(torch.arange(nts, device=device, dtype=torch.float32) * -increment)
    return {"hidden_states": hidden_states, "mask": mask, "q_proj_weight": weights[0], "k_proj_weight": weights[1],
            "v_proj_weight": weights[2], "pos_proj_weight": weights[3], "per_dim_scale": per_dim_scale,
            "inv_timescales": inv_timescales}


def _pad_dim1(x, left, right):
    pad = [0, 0] * (x.dim() - 2) + [left, right]
    return F.pad(x, pad)


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, mask = inputs["hidden_states"], inputs["mask"]
    attention_logits_soft_cap = constants["attention_logits_soft_cap"]
    num_heads, head_dim = symbols["num_heads"], symbols["head_dim"]
    chunk_size, max_past_horizon, max_future_horizon = symbols["chunk_size"], symbols["max_backward"], 0
    context_size = chunk_size + max_past_horizon + max_future_horizon

    batch_size, seq_len, _ = hidden_states.shape
    dtype = hidden_states.dtype
    device = hidden_states.device
    compute_dtype = torch.promote_types(dtype, torch.float32)

    q_scale = head_dim ** -0.5
    r_softplus_0 = 1.0 / F.softplus(torch.tensor(0.0, dtype=compute_dtype, device=device))
    q_scale = q_scale * r_softplus_0

    lower_causal_mask = torch.tril(torch.ones((context_size, chunk_size), dtype=torch.bool, device=device), diagonal=0).T
    upper_causal_mask = torch.tril(torch.ones((chunk_size, context_size), dtype=torch.bool, device=device),
                                   diagonal=max_past_horizon + max_future_horizon)
    local_causal_valid_mask = torch.ones((chunk_size, context_size), dtype=torch.bool, device=device)
    local_causal_valid_mask = local_causal_valid_mask * lower_causal_mask * upper_causal_mask

    q = torch.matmul(hidden_states, inputs["q_proj_weight"].T)
    k = torch.matmul(hidden_states, inputs["k_proj_weight"].T)
    v = torch.matmul(hidden_states, inputs["v_proj_weight"].T)
    qkv_shape = (batch_size, seq_len, num_heads, head_dim)
    q = q.reshape(qkv_shape).contiguous()
    k = k.reshape(qkv_shape).contiguous()
    v = v.reshape(qkv_shape).contiguous()
    per_dim_scale_sp = F.softplus(inputs["per_dim_scale"].to(compute_dtype))
    q = q * q_scale * per_dim_scale_sp.view(1, 1, 1, head_dim)

    # query blocks [B, U, W, N, H]
    num_query_blocks = (seq_len + chunk_size - 1) // chunk_size
    query_blocks = _pad_dim1(q, 0, num_query_blocks * chunk_size - seq_len)
    query_blocks = query_blocks.reshape((batch_size, num_query_blocks, chunk_size, num_heads, head_dim)).contiguous()

    def extract_block_context(x):  # [B, T, ...] -> [B, U, C, ...]
        x = _pad_dim1(x, max_past_horizon, max_future_horizon + chunk_size - 1)
        x = x.unfold(dimension=1, size=context_size, step=chunk_size)
        if x.ndim > 3:
            x = torch.movedim(x, source=-1, destination=2)
        return x.contiguous()

    key_blocks = extract_block_context(k)
    value_blocks = extract_block_context(v)
    valid_blocks = extract_block_context(~mask)
    condition = torch.logical_and(valid_blocks.unsqueeze(1).unsqueeze(-2),
                                  local_causal_valid_mask.unsqueeze(0).unsqueeze(0).unsqueeze(0))

    # relative-position logits
    pos_indices = torch.arange(max_past_horizon, -max_future_horizon - 1, -1, device=device).unsqueeze(0)
    max_span_plus_1 = pos_indices.shape[1]
    scaled_time = pos_indices.float().unsqueeze(-1) * inputs["inv_timescales"].view(1, 1, -1)
    timing_signal = torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=-1).type(compute_dtype)
    sin_emb = torch.matmul(timing_signal, inputs["pos_proj_weight"].T)
    sin_emb = sin_emb.reshape(1, max_span_plus_1, num_heads, head_dim).squeeze(0)

    term_ac = torch.matmul(query_blocks.permute(0, 3, 1, 2, 4), key_blocks.permute(0, 3, 1, 4, 2))
    q_reshaped = query_blocks.permute(0, 3, 1, 2, 4).reshape(batch_size, num_heads, num_query_blocks * chunk_size, head_dim)
    term_bd = torch.matmul(q_reshaped, sin_emb.permute(1, 2, 0))
    term_bd = term_bd.reshape(batch_size, num_heads, num_query_blocks, chunk_size, max_span_plus_1)
    term_bd = F.pad(term_bd, (0, context_size + 1 - max_span_plus_1))
    term_bd = term_bd.reshape(batch_size, num_heads, num_query_blocks, chunk_size * (context_size + 1))
    term_bd = term_bd[:, :, :, : chunk_size * context_size]
    term_bd = term_bd.reshape(batch_size, num_heads, num_query_blocks, chunk_size, context_size)
    logits = term_ac + term_bd

    softcap = torch.tensor(attention_logits_soft_cap, dtype=compute_dtype, device=logits.device)
    logits = logits / softcap
    logits = torch.tanh(logits)
    logits = logits * softcap
    logits = torch.where(condition, logits, torch.finfo(logits.dtype).min)

    probabilities = F.softmax(logits, dim=-1, dtype=compute_dtype).to(dtype=value_blocks.dtype)
    b_dim, n_dim, u_dim, w_dim, c_dim = probabilities.shape
    h_dim = value_blocks.shape[-1]
    prob_bun = probabilities.permute(0, 2, 1, 3, 4).reshape(-1, w_dim, c_dim)
    v_bun = value_blocks.permute(0, 1, 3, 2, 4).reshape(-1, c_dim, h_dim)
    result_bmm = torch.bmm(prob_bun, v_bun)
    context_vectors = result_bmm.reshape(b_dim, u_dim, n_dim, w_dim, h_dim).permute(0, 1, 3, 2, 4)
    context_vectors = context_vectors.reshape(batch_size, num_query_blocks * chunk_size, num_heads, head_dim)
    context_vectors = context_vectors[:, :seq_len]
    return {"context_vectors": context_vectors}
