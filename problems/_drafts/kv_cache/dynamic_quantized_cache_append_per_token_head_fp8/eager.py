"""dynamic_quantized_cache_append_per_token_head_fp8 as the original benchmark times it: its public
reference(), eager PyTorch at the inputs' own dtypes, updating the four caches in place (YIGE24/
MetaKernelBench problems/kv_cache/21_dynamic_quantized_cache_append_per_token_head_fp8.py at d90ba286).
The boolean indexing synchronizes with the host (nonzero), as in the original. tests/gpu/eager_check.py
runs it."""
import torch


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    tokens, heads, dim = symbols["num_tokens"], symbols["num_heads"], symbols["head_dim"]
    blocks, block_size = symbols["num_blocks"], symbols["block_size"]
    key = torch.randn(tokens, heads, dim, device=device, dtype=torch.bfloat16)
    value = torch.randn_like(key)
    slot_mapping = torch.randperm(blocks * block_size, device=device)[:tokens]
    pads = int(torch.randint(1, symbols["max_pad_tokens"] + 1, (1,), device=device).item())
    slot_mapping[tokens - pads:] = -1
    key_cache = torch.randint(0, 256, (blocks, block_size, heads, dim), device=device, dtype=torch.uint8)
    value_cache = torch.randint_like(key_cache, 0, 256)
    k_scale_cache = torch.rand(blocks, block_size, heads, device=device, dtype=torch.float32) + 0.5
    v_scale_cache = torch.rand_like(k_scale_cache) + 0.5
    return {"key": key, "value": value, "slot_mapping": slot_mapping, "key_cache": key_cache,
            "value_cache": value_cache, "k_scale_cache": k_scale_cache, "v_scale_cache": v_scale_cache}


def _quantize(x, constants):
    wide = x.to(torch.promote_types(x.dtype, torch.float32))
    scale = (wide.abs().amax(dim=-1) / constants["fp8_max"]).clamp(min=constants["min_scale"])
    q = (wide * (1.0 / scale.unsqueeze(-1))).clamp(constants["fp8_min"], constants["fp8_max"])
    return q.to(torch.float32).to(torch.float8_e4m3fn), scale


@torch.no_grad()
def eager(inputs, symbols, constants):
    block_size = symbols["block_size"]
    q_key, s_key = _quantize(inputs["key"], constants)
    q_value, s_value = _quantize(inputs["value"], constants)
    slot_mapping = inputs["slot_mapping"]
    valid = slot_mapping >= 0
    slots = slot_mapping[valid]
    blocks = torch.div(slots, block_size, rounding_mode="floor")
    offsets = torch.remainder(slots, block_size)
    key_cache, value_cache = inputs["key_cache"], inputs["value_cache"]
    k_scale_cache, v_scale_cache = inputs["k_scale_cache"], inputs["v_scale_cache"]
    key_cache[blocks, offsets] = q_key[valid].view(torch.uint8)
    value_cache[blocks, offsets] = q_value[valid].view(torch.uint8)
    k_scale_cache[blocks, offsets] = s_key[valid]
    v_scale_cache[blocks, offsets] = s_value[valid]
    return {"key_cache_out": key_cache, "value_cache_out": value_cache,
            "k_scale_cache_out": k_scale_cache, "v_scale_cache_out": v_scale_cache}
