"""mlp_silu_gating_qwen3_8b_nvfp4 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). Codes and scales are semantics, so the values that feed a quantizer keep
the reference's roundings: x quantized with the fp32 recipe of reference.md; gate and up exact products
rounded to bf16; SiLU exact, rounded to bf16; the product rounded to bf16; that quantized; the down
product exact."""
import torch

_E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)
_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def _decode(packed, scales, global_decode):
    """A stored NVFP4 tensor (int64 bytes, float64 e4m3 scales, float64 global) in float64."""
    table = torch.tensor(_E2M1, dtype=torch.float64, device=packed.device)
    values = torch.stack((table[packed & 15], table[packed >> 4]), dim=-1).flatten(-2)  # low nibble first
    return values * torch.repeat_interleave(scales, 16, dim=-1) * global_decode


def _f32(value, like):
    return torch.tensor(value, dtype=torch.float32, device=like.device)


def _nvfp4_roundtrip(x):
    """The quantizer of reference.md applied to x (float64 holding fp32-exact values), decoded in float64.
    Every scale operation is an fp32 tensor operation (IEEE: the same on any device); the e2m1 rounding is
    nearest with ties to the even code, written as a distance search over the grid."""
    t = x.to(torch.float32)
    amax = t.abs().max()
    encode = torch.minimum(_f32(2688.0, t) / amax, _f32(torch.finfo(torch.float32).max, t))
    encode = torch.where(encode == 0, _f32(1.0, t), encode)
    decode = _f32(1.0, t) / encode
    blocks = t.reshape(*t.shape[:-1], -1, 16)
    inv6 = _f32(1.0, t) / _f32(6.0, t)
    scale = (blocks.abs().amax(dim=-1) * inv6 * encode).clamp(-448.0, 448.0).to(torch.float8_e4m3fn).to(torch.float32)
    enc = torch.minimum(_f32(1.0, t) / (scale * decode), _f32(torch.finfo(torch.float32).max, t))
    scaled = (blocks * enc.unsqueeze(-1)).clamp(-6.0, 6.0)
    grid = torch.tensor(_GRID, dtype=torch.float32, device=t.device)
    dist = (scaled.abs().unsqueeze(-1) - grid).abs()
    best = dist.min(dim=-1, keepdim=True).values
    ties = dist == best
    index = torch.arange(8, device=t.device)
    # the nearest grid point; between two, the even index (the even e2m1 mantissa)
    pick = torch.where(ties & (index % 2 == 0), index, torch.where(ties, index + 16, index + 32)).min(dim=-1).values % 16
    magnitude = grid.double()[pick]
    value = torch.where(scaled < 0, -magnitude, magnitude)
    out = value * scale.double().unsqueeze(-1) * decode.double()
    return out.reshape(x.shape)


def _bf16(t):
    """float64 rounded once to the nearest bf16 value (ties to even), kept in float64. (Tensor.to(bfloat16)
    from float64 goes through float32: two roundings.)"""
    mantissa, exponent = torch.frexp(t)  # t = mantissa * 2^exponent, 0.5 <= |mantissa| < 1
    return torch.ldexp(torch.round(torch.ldexp(mantissa, torch.full_like(exponent, 8))), exponent - 8)


def reference(inputs, symbols, constants):
    x = inputs["x"]
    batch, seq, hidden_size = x.shape
    xq = _nvfp4_roundtrip(x.reshape(-1, hidden_size))
    w = {n: _decode(inputs[f"{n}_weight_fp4"][0], inputs[f"{n}_scale"][0], inputs[f"{n}_global_decode_scale"])
         for n in ("gate", "up", "down")}
    gate = _bf16(xq @ w["gate"].T)
    up = _bf16(xq @ w["up"].T)
    hidden = _bf16(_bf16(gate * torch.sigmoid(gate)) * up)
    out = _nvfp4_roundtrip(hidden) @ w["down"].T
    return {"out": out.reshape(batch, seq, hidden_size)}
