import math

import torch


def reference(inputs, symbols, constants):
    """Gemma 3n audio local attention in float64, written in the blocked form of Hugging Face's
    Gemma3nAudioAttention (query blocks of 12, key contexts of 24, relative shift by pad-reshape-slice)."""
    x = inputs["hidden_states"]
    mask = inputs["mask"].bool()
    B, T, D = x.shape
    N, H = symbols["num_heads"], symbols["head_dim"]
    W, past, fut = symbols["chunk_size"], symbols["max_backward"], 0
    C = W + past + fut
    cap = constants["attention_logits_soft_cap"]

    q = (x @ inputs["q_proj_weight"].T).reshape(B, T, N, H)
    k = (x @ inputs["k_proj_weight"].T).reshape(B, T, N, H)
    v = (x @ inputs["v_proj_weight"].T).reshape(B, T, N, H)
    q = q * (H ** -0.5 / math.log(2.0)) * torch.nn.functional.softplus(inputs["per_dim_scale"])

    U = (T + W - 1) // W
    qb = torch.nn.functional.pad(q, (0, 0, 0, 0, 0, U * W - T)).reshape(B, U, W, N, H)

    def context(t):  # [B, T, ...] -> [B, U, C, ...]
        pad = [0, 0] * (t.dim() - 2) + [past, fut + W - 1]
        tp = torch.nn.functional.pad(t, pad)
        u = tp.unfold(1, C, W)[:, :U]
        return torch.movedim(u, -1, 2) if t.dim() > 2 else u

    kb, vb = context(k), context(v)
    valid = context((~mask).to(torch.float64)) > 0.5                      # [B, U, C]
    w_idx = torch.arange(W, device=x.device)[:, None]
    c_idx = torch.arange(C, device=x.device)[None, :]
    local = (c_idx >= w_idx) & (c_idx <= w_idx + past + fut)              # [W, C]
    cond = valid[:, None, :, None, :] & local                              # [B, 1, U, W, C]

    pos = torch.arange(past, -fut - 1, -1, device=x.device, dtype=torch.float64)
    ang = pos[:, None] * inputs["inv_timescales"][None, :]
    sin_emb = (torch.cat([ang.sin(), ang.cos()], -1) @ inputs["pos_proj_weight"].T).reshape(-1, N, H)
    F = sin_emb.shape[0]

    ac = torch.einsum("buwnh,bucnh->bnuwc", qb, kb)
    bd = torch.einsum("buwnh,fnh->bnuwf", qb, sin_emb)
    bd = torch.nn.functional.pad(bd, (0, C + 1 - F)).reshape(B, N, U, W * (C + 1))[..., : W * C]
    logits = ac + bd.reshape(B, N, U, W, C)
    logits = torch.tanh(logits / cap) * cap
    logits = logits.masked_fill(~cond, float("-inf"))
    p = torch.softmax(logits, dim=-1)
    out = torch.einsum("bnuwc,bucnh->buwnh", p, vb).reshape(B, U * W, N, H)[:, :T]
    return {"context_vectors": out.contiguous()}
