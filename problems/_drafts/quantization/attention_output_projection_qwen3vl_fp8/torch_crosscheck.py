"""attention_output_projection_qwen3vl_fp8 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The FP8 codes are the semantics' own (fp32 scale and division, e4m3
rounding); everything after them is exact in float64."""
import torch


def _fp8_blocks(x, bm, bk):
    """Dequantized blockwise e4m3 of a float64 matrix whose values are fp32-exact, in float64."""
    rows, cols = x.shape
    blocks = x.to(torch.float32).reshape(rows // bm, bm, cols // bk, bk)
    scale = blocks.abs().amax(dim=(1, 3), keepdim=True) * (1.0 / 448.0)
    codes = torch.clamp(blocks / scale, -448.0, 448.0).to(torch.float8_e4m3fn)
    return (codes.to(torch.float64) * scale.to(torch.float64)).reshape(rows, cols)


def reference(inputs, symbols, constants):
    x = _fp8_blocks(inputs["attn_output"], 1, 128)
    w = _fp8_blocks(inputs["o_proj_weight"], 128, 128)
    return {"output": x @ w.T + inputs["o_proj_bias"]}
