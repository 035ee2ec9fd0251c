"""dynamic_quantized_cache_append_per_token_head_fp8 in PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The scales are float64. The e4m3 bytes are integer outputs compared
exactly, so they follow the reference's fp32 rounding points on CUDA: scale = absmax * fp32(1/448)
(PyTorch's division of a CUDA tensor by a Python scalar), inv = 1/scale in fp32, q = x * inv in fp32."""
import torch


def _quantize(x, constants):
    # x holds the bf16 values exactly (float64); absmax is exact in any width.
    absmax = x.abs().amax(dim=-1)
    scale64 = torch.clamp(absmax / constants["fp8_max"], min=constants["min_scale"])
    f32 = torch.float32
    one = torch.ones((), dtype=f32, device=x.device)
    inv_max = one / torch.full((), constants["fp8_max"], dtype=f32, device=x.device)
    min_scale = torch.full((), constants["min_scale"], dtype=f32, device=x.device)
    scale32 = torch.maximum(absmax.to(f32) * inv_max, min_scale)
    inv = one / scale32
    q = (x.to(f32) * inv.unsqueeze(-1)).clamp(constants["fp8_min"], constants["fp8_max"])
    codes = q.to(torch.float8_e4m3fn).view(torch.uint8).to(torch.int64)
    return codes, scale64


def reference(inputs, symbols, constants):
    heads = symbols["num_heads"]
    codes_k, scale_k = _quantize(inputs["key"], constants)
    codes_v, scale_v = _quantize(inputs["value"], constants)
    slots = inputs["slot_mapping"]
    tokens = torch.nonzero(slots >= 0).flatten()
    rows = slots[tokens]  # slot s is row s of each cache seen as [num_blocks * block_size, ...]
    out = {}
    for name, source, new in (("key_cache", "key_cache", codes_k), ("value_cache", "value_cache", codes_v),
                              ("k_scale_cache", "k_scale_cache", scale_k), ("v_scale_cache", "v_scale_cache", scale_v)):
        cache = inputs[source].clone()
        flat = cache.view(-1, heads, *cache.shape[3:])
        flat[rows] = new[tokens]
        out[name + "_out"] = cache
    return out
