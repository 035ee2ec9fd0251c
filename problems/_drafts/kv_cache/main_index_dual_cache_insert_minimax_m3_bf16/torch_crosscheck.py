"""main_index_dual_cache_insert_minimax_m3_bf16 in float64 PyTorch: the semantics without rounding
points, for the cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def _norm_rotate(heads, weight, cos, sin, eps, rotary):
    # heads: [T, H, D]; cos, sin: [T, rotary / 2]; weight applied as (1 + w)
    normed = heads / torch.sqrt((heads * heads).mean(dim=-1, keepdim=True) + eps) * (1.0 + weight)
    half = rotary // 2
    first, second = normed[..., :half], normed[..., half:rotary]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat((first * c - second * s, second * c + first * s, normed[..., rotary:]), dim=-1)


def reference(inputs, symbols, constants):
    tokens, dim, rotary, block = symbols["num_tokens"], symbols["head_dim"], symbols["rotary_dim"], symbols["block_size"]
    hq, hk, hiq = symbols["num_q_heads"], symbols["num_kv_heads"], symbols["num_index_q_heads"]
    heads = inputs["qkv"].view(tokens, hq + 2 * hk + hiq + 1, dim)
    table = inputs["cos_sin_cache"][inputs["positions"]]
    cos, sin = table[:, :rotary // 2], table[:, rotary // 2:]
    eps = constants["eps"]
    q = _norm_rotate(heads[:, :hq], inputs["q_norm_weight"], cos, sin, eps, rotary)
    k = _norm_rotate(heads[:, hq:hq + hk], inputs["k_norm_weight"], cos, sin, eps, rotary)
    v = heads[:, hq + hk:hq + 2 * hk]
    iq = _norm_rotate(heads[:, hq + 2 * hk:hq + 2 * hk + hiq], inputs["index_q_norm_weight"], cos, sin, eps, rotary)
    ik = _norm_rotate(heads[:, -1:], inputs["index_k_norm_weight"], cos, sin, eps, rotary)[:, 0]
    kv_cache = inputs["kv_cache"].clone()  # [blocks, kv_heads, block, 2 * dim]
    slots = inputs["slot_mapping"]
    for h in range(hk):
        kv_cache[slots // block, h, slots % block, :dim] = k[:, h]
        kv_cache[slots // block, h, slots % block, dim:] = v[:, h]
    index_cache = inputs["index_cache"].clone().view(-1, dim)  # slot s is row s
    index_cache[inputs["index_slot_mapping"]] = ik
    return {"q": q, "iq": iq, "kv_cache_out": kv_cache,
            "index_cache_out": index_cache.view(inputs["index_cache"].shape)}
