"""qkv_projection_qk_norm_qwen3vl_fp8 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The FP8 codes are the semantics' own (fp32 scale and division, e4m3
rounding); the model's bf16 roundings (each projection's output, the normalized head before the weight)
are kept; everything else is exact in float64."""
import torch


def _fp8_blocks(x, bm, bk):
    """Dequantized blockwise e4m3 of a float64 matrix whose values are fp32-exact, in float64."""
    rows, cols = x.shape
    blocks = x.to(torch.float32).reshape(rows // bm, bm, cols // bk, bk)
    scale = blocks.abs().amax(dim=(1, 3), keepdim=True) * (1.0 / 448.0)
    codes = torch.clamp(blocks / scale, -448.0, 448.0).to(torch.float8_e4m3fn)
    return (codes.to(torch.float64) * scale.to(torch.float64)).reshape(rows, cols)


def _bf16(x):
    """float64 rounded once to the nearest bf16 value (ties to even), as the anchor's __double2bfloat16;
    Tensor.to(bfloat16) from float64 goes through float32, two roundings that differ near a midpoint."""
    mantissa, exponent = torch.frexp(x)  # x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1
    return torch.ldexp(torch.round(torch.ldexp(mantissa, torch.full_like(exponent, 8))), exponent - 8)


def _norm(y, w, eps):
    return w * _bf16(y * torch.rsqrt(y.pow(2).mean(dim=-1, keepdim=True) + eps))


def reference(inputs, symbols, constants):
    b, s, hidden = inputs["hidden_states"].shape
    d = symbols["head_dim"]
    x = _fp8_blocks(inputs["hidden_states"].reshape(b * s, hidden), 1, 128)
    proj = {p: x @ _fp8_blocks(inputs[p + "_weight"], 128, 128).T + inputs[p + "_bias"] for p in "qkv"}
    q = _norm(_bf16(proj["q"]).view(b, s, -1, d), inputs["q_norm_weight"], constants["eps"])
    k = _norm(_bf16(proj["k"]).view(b, s, -1, d), inputs["k_norm_weight"], constants["eps"])
    v = proj["v"].view(b, s, -1, d)
    return {"q": q.transpose(1, 2).contiguous(), "k": k.transpose(1, 2).contiguous(), "v": v.transpose(1, 2).contiguous()}
