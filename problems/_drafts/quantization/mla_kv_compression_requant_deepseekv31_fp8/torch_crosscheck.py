"""mla_kv_compression_requant_deepseekv31_fp8 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The FP8 codes are the semantics' own (fp32 scale and division, e4m3
rounding); the model's bf16 roundings that feed the norm and the second quantizer are kept; everything
else is exact in float64."""
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


def reference(inputs, symbols, constants):
    b, s, hidden = inputs["hidden_states"].shape
    rank, rope = symbols["kv_lora_rank"], symbols["qk_rope_head_dim"]
    x = _fp8_blocks(inputs["hidden_states"].reshape(b * s, hidden), 1, 128)
    c = x @ _fp8_blocks(inputs["kv_a_proj_weight"], 128, 128).T
    k_pe = c[:, rank:rank + rope]
    v = _bf16(c[:, :rank])
    a = _bf16(inputs["kv_a_layernorm_weight"] * _bf16(v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + constants["eps"])))
    kv = _fp8_blocks(a, 1, 128) @ _fp8_blocks(inputs["kv_b_proj_weight"], 128, 128).T
    return {"kv_expanded": kv.view(b, s, symbols["num_heads"], -1), "k_pe": k_pe.reshape(b, s, 1, rope)}
