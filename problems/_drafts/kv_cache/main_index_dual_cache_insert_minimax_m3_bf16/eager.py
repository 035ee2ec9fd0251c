"""main_index_dual_cache_insert_minimax_m3_bf16 as the original benchmark times it: its public reference(),
eager PyTorch at the inputs' own dtypes, inserting into both caches in place (YIGE24/MetaKernelBench
problems/kv_cache/22_main_index_dual_cache_insert_minimax_m3_bf16.py at d90ba286). No host
synchronization: the call can be captured as a CUDA graph. tests/gpu/eager_check.py runs it."""
import torch


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _cos_sin_cache(symbols, constants, device):
    rotary = symbols["rotary_dim"]
    exponents = torch.arange(0, rotary, 2, device=device, dtype=torch.float32) / rotary
    inv_freq = 1.0 / (constants["rope_base"] ** exponents)
    angles = torch.outer(torch.arange(symbols["max_position"], device=device, dtype=torch.float32), inv_freq)
    return torch.cat((angles.cos(), angles.sin()), dim=-1).to(torch.bfloat16)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    tokens, dim, kv_heads = symbols["num_tokens"], symbols["head_dim"], symbols["num_kv_heads"]
    blocks, block_size = symbols["num_blocks"], symbols["block_size"]
    width = (symbols["num_q_heads"] + 2 * kv_heads + symbols["num_index_q_heads"] + 1) * dim
    qkv = torch.randn(tokens, width, device=device, dtype=torch.bfloat16)
    weights = [torch.randn(dim, device=device, dtype=torch.bfloat16) * 0.1 for _ in range(4)]
    positions = torch.randint(0, symbols["max_position"], (tokens,), device=device, dtype=torch.int64)
    cos_sin_cache = _cos_sin_cache(symbols, constants, device)
    slot_mapping = torch.randperm(blocks * block_size, device=device)[:tokens]
    index_slot_mapping = torch.randperm(blocks * block_size, device=device)[:tokens]
    kv_cache = torch.randn(blocks, kv_heads, block_size, 2 * dim, device=device, dtype=torch.bfloat16)
    index_cache = torch.randn(blocks, block_size, dim, device=device, dtype=torch.bfloat16)
    return {"qkv": qkv, "q_norm_weight": weights[0], "k_norm_weight": weights[1],
            "index_q_norm_weight": weights[2], "index_k_norm_weight": weights[3], "positions": positions,
            "cos_sin_cache": cos_sin_cache, "slot_mapping": slot_mapping, "index_slot_mapping": index_slot_mapping,
            "kv_cache": kv_cache, "index_cache": index_cache}


def _norm_rope(x, weight, positions, cos_sin_cache, eps, rotary):
    wide_dtype = torch.promote_types(x.dtype, torch.float32)
    wide = x.to(wide_dtype)
    wide = wide * torch.rsqrt(wide.pow(2).mean(dim=-1, keepdim=True) + eps)
    normed = (wide * (1.0 + weight.to(wide_dtype))).to(x.dtype)
    cos, sin = cos_sin_cache.index_select(0, positions).to(wide_dtype).chunk(2, dim=-1)
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    x1 = normed[..., :rotary // 2].to(wide_dtype)
    x2 = normed[..., rotary // 2:rotary].to(wide_dtype)
    rotated = torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)
    return torch.cat((rotated, normed[..., rotary:]), dim=-1)


@torch.no_grad()
def eager(inputs, symbols, constants):
    qkv, positions, cos_sin_cache = inputs["qkv"], inputs["positions"], inputs["cos_sin_cache"]
    tokens, dim, rotary, block_size = qkv.shape[0], symbols["head_dim"], symbols["rotary_dim"], symbols["block_size"]
    hq, hk, hiq = symbols["num_q_heads"], symbols["num_kv_heads"], symbols["num_index_q_heads"]
    eps = constants["eps"]
    q, k, v, iq, ik = qkv.split([hq * dim, hk * dim, hk * dim, hiq * dim, dim], dim=-1)
    q = _norm_rope(q.view(tokens, hq, dim), inputs["q_norm_weight"], positions, cos_sin_cache, eps, rotary)
    k = _norm_rope(k.view(tokens, hk, dim), inputs["k_norm_weight"], positions, cos_sin_cache, eps, rotary)
    iq = _norm_rope(iq.view(tokens, hiq, dim), inputs["index_q_norm_weight"], positions, cos_sin_cache, eps, rotary)
    ik = _norm_rope(ik.view(tokens, 1, dim), inputs["index_k_norm_weight"], positions, cos_sin_cache, eps,
                    rotary).squeeze(1)
    v = v.view(tokens, hk, dim)
    kv_cache, index_cache = inputs["kv_cache"], inputs["index_cache"]
    blocks = torch.div(inputs["slot_mapping"], block_size, rounding_mode="floor")
    offsets = torch.remainder(inputs["slot_mapping"], block_size)
    kv_cache[blocks, :, offsets, :dim] = k
    kv_cache[blocks, :, offsets, dim:] = v
    index_blocks = torch.div(inputs["index_slot_mapping"], block_size, rounding_mode="floor")
    index_offsets = torch.remainder(inputs["index_slot_mapping"], block_size)
    index_cache[index_blocks, index_offsets] = ik
    return {"q": q, "iq": iq, "kv_cache_out": kv_cache, "index_cache_out": index_cache}
