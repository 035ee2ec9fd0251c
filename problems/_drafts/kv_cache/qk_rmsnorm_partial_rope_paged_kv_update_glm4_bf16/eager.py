"""qk_rmsnorm_partial_rope_paged_kv_update_glm4_bf16 as the original benchmark times it: its public
reference(), eager PyTorch at the inputs' own dtypes, writing the KV cache in place (YIGE24/
MetaKernelBench problems/kv_cache/19_qk_rmsnorm_partial_rope_paged_kv_update_glm4_bf16.py at d90ba286).
The boolean indexing synchronizes with the host (nonzero), as in the original. tests/gpu/eager_check.py
runs it."""
import torch


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _cos_sin_cache(symbols, constants, device):
    rotary = symbols["rotary_dim"]
    exponents = torch.arange(0, rotary, 2, device=device, dtype=torch.float32) / rotary
    inv_freq = 1.0 / (constants["rope_base"] ** exponents)
    angles = torch.outer(torch.arange(symbols["max_position_embeddings"], device=device, dtype=torch.float32), inv_freq)
    return torch.cat((angles.cos(), angles.sin()), dim=-1).to(torch.bfloat16)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    tokens, dim = symbols["num_tokens"], symbols["head_dim"]
    kv_heads, blocks, block_size = symbols["num_kv_heads"], symbols["num_blocks"], symbols["block_size"]
    width = (symbols["num_q_heads"] + 2 * kv_heads) * dim
    qkv = torch.randn((tokens, width), device=device, dtype=torch.bfloat16)
    positions = torch.randint(0, symbols["max_position_embeddings"], (tokens,), device=device, dtype=torch.int64)
    q_norm_weight = torch.randn((dim,), device=device, dtype=torch.bfloat16)
    k_norm_weight = torch.randn((dim,), device=device, dtype=torch.bfloat16)
    cos_sin_cache = _cos_sin_cache(symbols, constants, device)
    slot_mapping = torch.randperm(blocks * block_size, device=device)[:tokens]
    pads = int(torch.randint(1, symbols["max_pad_tokens"] + 1, (1,), device=device).item())
    slot_mapping[tokens - pads:] = -1
    kv_cache = torch.randn((2, blocks, block_size, kv_heads, dim), device=device, dtype=torch.bfloat16)
    return {"qkv": qkv, "positions": positions, "q_norm_weight": q_norm_weight, "k_norm_weight": k_norm_weight,
            "cos_sin_cache": cos_sin_cache, "slot_mapping": slot_mapping, "kv_cache": kv_cache}


def _rms_norm_per_head(x, weight, eps):
    wide = x.to(torch.promote_types(x.dtype, torch.float32))
    normalized = wide * torch.rsqrt(wide.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (normalized.to(weight.dtype) * weight).to(x.dtype)


def _partial_neox_rope(x, cos, sin, rotary):
    x1, x2 = x[..., :rotary].chunk(2, dim=-1)
    cos = cos.unsqueeze(1).to(x.dtype)
    sin = sin.unsqueeze(1).to(x.dtype)
    rotated = torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
    return torch.cat((rotated, x[..., rotary:]), dim=-1)


@torch.no_grad()
def eager(inputs, symbols, constants):
    qkv, kv_cache, slot_mapping = inputs["qkv"], inputs["kv_cache"], inputs["slot_mapping"]
    tokens, dim, rotary = qkv.shape[0], symbols["head_dim"], symbols["rotary_dim"]
    q_heads, kv_heads, block_size = symbols["num_q_heads"], symbols["num_kv_heads"], symbols["block_size"]
    eps = constants["eps"]
    q, k, v = qkv.split([q_heads * dim, kv_heads * dim, kv_heads * dim], dim=-1)
    q = _rms_norm_per_head(q.view(tokens, q_heads, dim), inputs["q_norm_weight"], eps)
    k = _rms_norm_per_head(k.view(tokens, kv_heads, dim), inputs["k_norm_weight"], eps)
    v = v.view(tokens, kv_heads, dim)
    cos, sin = inputs["cos_sin_cache"].index_select(0, inputs["positions"].flatten()).chunk(2, dim=-1)
    q = _partial_neox_rope(q, cos, sin, rotary)
    k = _partial_neox_rope(k, cos, sin, rotary)
    valid = slot_mapping >= 0
    slots = slot_mapping[valid]
    blocks = torch.div(slots, block_size, rounding_mode="floor")
    offsets = torch.remainder(slots, block_size)
    kv_cache[0, blocks, offsets] = k[valid]
    kv_cache[1, blocks, offsets] = v[valid]
    return {"q": q, "kv_cache_out": kv_cache}
