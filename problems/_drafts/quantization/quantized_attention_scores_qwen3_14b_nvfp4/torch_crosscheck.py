"""quantized_attention_scores_qwen3_14b_nvfp4 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). Codes and scales are semantics, so the values that reach a quantizer keep
the reference's roundings: q and the repeated k quantized with the fp32 recipe of reference.md; scores
exact, rounded to bf16, times scaling in fp32 rounded to bf16, plus the mask in fp32 rounded to bf16; the
softmax exact (attn_weights), rounded to bf16 and quantized along the keys; v^T quantized along the keys;
attn_output exact."""
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
    q, k, v, mask = inputs["query_states"], inputs["key_states"], inputs["value_states"], inputs["attention_mask"]
    n_rep = q.shape[1] // k.shape[1]
    k = torch.repeat_interleave(k, n_rep, dim=1)
    v = torch.repeat_interleave(v, n_rep, dim=1)
    scaling = torch.tensor(q.shape[-1] ** -0.5, dtype=torch.float32, device=q.device)
    scores = _bf16(_nvfp4_roundtrip(q) @ _nvfp4_roundtrip(k).transpose(-1, -2))
    scores = (scores.to(torch.float32) * scaling).to(torch.bfloat16)           # one fp32 product, one rounding
    scores = (scores.to(torch.float32) + mask.to(torch.float32)).to(torch.bfloat16).to(torch.float64)
    weights = torch.softmax(scores, dim=-1)
    p = _nvfp4_roundtrip(_bf16(weights))
    vt = _nvfp4_roundtrip(v.transpose(-1, -2))                                  # blocks of 16 keys
    return {"attn_output": p @ vt.transpose(-1, -2), "attn_weights": weights}
