"""qk_rmsnorm_partial_rope_paged_kv_update_glm4_bf16 in float64 PyTorch: the semantics without rounding
points, for the cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def _norm_rotate(heads, weight, cos, sin, eps, rotary):
    # heads: [T, H, D]; cos, sin: [T, rotary / 2]
    normed = heads / torch.sqrt((heads * heads).mean(dim=-1, keepdim=True) + eps) * weight
    half = rotary // 2
    first, second = normed[..., :half], normed[..., half:rotary]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat((first * c - second * s, second * c + first * s, normed[..., rotary:]), dim=-1)


def reference(inputs, symbols, constants):
    qkv = inputs["qkv"]
    tokens, dim, rotary = symbols["num_tokens"], symbols["head_dim"], symbols["rotary_dim"]
    hq, hk = symbols["num_q_heads"], symbols["num_kv_heads"]
    heads = qkv.view(tokens, hq + 2 * hk, dim)
    table = inputs["cos_sin_cache"][inputs["positions"]]
    cos, sin = table[:, :rotary // 2], table[:, rotary // 2:]
    q = _norm_rotate(heads[:, :hq], inputs["q_norm_weight"], cos, sin, constants["eps"], rotary)
    k = _norm_rotate(heads[:, hq:hq + hk], inputs["k_norm_weight"], cos, sin, constants["eps"], rotary)
    v = heads[:, hq + hk:]
    cache = inputs["kv_cache"].clone()
    planes = cache.view(2, -1, hk, dim)  # slot s is row s of each plane
    slots = inputs["slot_mapping"]
    keep = slots >= 0
    planes[0, slots[keep]] = k[keep]
    planes[1, slots[keep]] = v[keep]
    return {"q": q, "kv_cache_out": cache}
