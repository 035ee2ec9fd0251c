"""mla_rope_compressed_cache_update_bf16 in float64 PyTorch: the semantics without rounding points, for
the cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    first, second = x[..., :half], x[..., half:]
    return torch.cat((first * cos - second * sin, second * cos + first * sin), dim=-1)


def reference(inputs, symbols, constants):
    tokens, heads, head_dim = symbols["num_tokens"], symbols["num_heads"], symbols["qk_head_dim"]
    q_rank, kv_rank, nope = symbols["q_lora_rank"], symbols["kv_lora_rank"], symbols["qk_nope_dim"]
    lora = inputs["qkv_lora"]
    q = (lora[:, :q_rank] @ inputs["q_b_weight"].T).view(tokens, heads, head_dim)
    table = inputs["cos_sin_cache"][inputs["positions"]]
    half = table.shape[-1] // 2
    cos, sin = table[:, :half], table[:, half:]
    q_out = torch.cat((q[..., :nope], _rotate(q[..., nope:], cos[:, None], sin[:, None])), dim=-1)
    k_pe = _rotate(lora[:, q_rank + kv_rank:], cos, sin)
    cache = inputs["kv_cache"].clone()
    rows = cache.view(-1, cache.shape[-1])  # slot s is row s
    slots = inputs["slot_mapping"]
    keep = slots >= 0
    rows[slots[keep]] = torch.cat((lora[:, q_rank:q_rank + kv_rank], k_pe), dim=-1)[keep]
    return {"q_out": q_out, "kv_cache_out": cache}
