"""qkvo_attention_block_nova_nvfp4 as the original benchmark times it: its reference(), reconstructed (the
original masks it: YIGE24/MetaKernelBench problems/_sol_execbench/57_qkvo_attention_block_nova_nvfp4.json at
d90ba286), eager PyTorch at the inputs' dtypes. The NVFP4 helpers are the reconstruction of the original's
_quantize_nvfp4 / _dequantize_nvfp4 / _scaled_mm_nvfp4 (spec notes); packed codes are uint8 here (the
harness has no fp4 dtype), element 2j of a row in the low nibble of byte j. tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F

SF_VEC_SIZE = 16
E2M1_MAX = 6.0
E4M3_MAX = 448.0
E2M1_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)
FLOAT_MAX = torch.finfo(torch.float32).max
# The e2m1 bands of the packing: (first test, second test or None, code); ties go to the even code.
_BANDS = (((torch.ge, 0.0), (torch.le, 0.25), 0), ((torch.gt, 0.25), (torch.lt, 0.75), 1),
          ((torch.ge, 0.75), (torch.le, 1.25), 2), ((torch.gt, 1.25), (torch.lt, 1.75), 3),
          ((torch.ge, 1.75), (torch.le, 2.5), 4), ((torch.gt, 2.5), (torch.lt, 3.5), 5),
          ((torch.ge, 3.5), (torch.le, 5.0), 6), ((torch.gt, 5.0), None, 7),
          ((torch.ge, -0.25), (torch.lt, 0.0), 8), ((torch.lt, -0.25), (torch.gt, -0.75), 9),
          ((torch.le, -0.75), (torch.ge, -1.25), 10), ((torch.lt, -1.25), (torch.gt, -1.75), 11),
          ((torch.le, -1.75), (torch.ge, -2.5), 12), ((torch.lt, -2.5), (torch.gt, -3.5), 13),
          ((torch.le, -3.5), (torch.ge, -5.0), 14), ((torch.lt, -5.0), None, 15))


def _cast_to_fp4x2(x):
    codes = torch.zeros_like(x, dtype=torch.uint8)
    for (first, a), second, code in _BANDS:
        mask = first(x, a)
        if second is not None:
            mask = mask & second[0](x, second[1])
        codes[mask] = code
    return codes[..., ::2] + codes[..., 1::2] * 16


def _nvfp4_scales(tensor, global_amax):
    b, rows, cols = tensor.shape
    assert cols % SF_VEC_SIZE == 0
    decode = (tensor.reshape(b, rows, cols // SF_VEC_SIZE, SF_VEC_SIZE).abs().amax(dim=-1) / E2M1_MAX).to(torch.float32)
    global_encode = torch.clamp(torch.div(E4M3_MAX * E2M1_MAX, global_amax), max=FLOAT_MAX)
    if global_encode == 0.0:
        global_encode = torch.tensor(1.0, device=global_amax.device, dtype=torch.float32)
    global_decode = torch.div(1.0, global_encode)
    decode = torch.clamp(decode * global_encode, min=-E4M3_MAX, max=E4M3_MAX)
    return decode.to(torch.float8_e4m3fn), global_decode


def _quantize_nvfp4(x):
    tensor = x.to(torch.float32)
    global_amax = tensor.abs().max().float()
    scale_fp8, global_decode = _nvfp4_scales(tensor, global_amax)
    encode = torch.clamp(torch.div(1.0, scale_fp8.to(torch.float32) * global_decode), max=FLOAT_MAX)
    b, rows, cols = tensor.shape
    scaled = tensor.reshape(b, rows, cols // SF_VEC_SIZE, SF_VEC_SIZE) * encode.unsqueeze(-1)
    clipped = torch.clamp(scaled, -E2M1_MAX, E2M1_MAX)
    return _cast_to_fp4x2(clipped.reshape(b, rows, cols)), scale_fp8, global_decode


def _dequantize_nvfp4(fp4, scale_fp8, global_decode, compute_dtype):
    b, rows, half_cols = fp4.shape
    codes = fp4.view(torch.uint8).to(torch.int64)
    values = torch.tensor(E2M1_VALUES, dtype=compute_dtype, device=fp4.device)
    unpacked = torch.stack((values[codes & 15], values[codes >> 4]), dim=-1).reshape(b, rows, half_cols * 2)
    scales = scale_fp8.to(compute_dtype) * global_decode.to(compute_dtype)
    blocked = unpacked.reshape(b, rows, half_cols * 2 // SF_VEC_SIZE, SF_VEC_SIZE) * scales.unsqueeze(-1)
    return blocked.reshape(b, rows, half_cols * 2)


def _scaled_mm_nvfp4(mat_a, mat_b, scale_a, global_decode_a, scale_b, global_decode_b, compute_dtype):
    assert mat_a.shape[0] == mat_b.shape[0] and mat_a.shape[2] == mat_b.shape[2]
    dequant_a = _dequantize_nvfp4(mat_a, scale_a, global_decode_a, compute_dtype)
    dequant_b = _dequantize_nvfp4(mat_b, scale_b, global_decode_b, compute_dtype)
    return torch.bmm(dequant_a, dequant_b.transpose(1, 2))


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    b, s, hidden, d = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"], symbols["head_dim"]
    q_out, kv_out = symbols["q_out_features"], symbols["kv_out_features"]
    out = {"hidden_states": torch.randn(b, s, hidden, dtype=torch.bfloat16, device=device),
           "cos": torch.randn(b, s, d, dtype=torch.bfloat16, device=device),
           "sin": torch.randn(b, s, d, dtype=torch.bfloat16, device=device)}
    std_qkv = 1.0 / math.sqrt(hidden)
    std_o = 1.0 / math.sqrt(q_out)
    for name, rows, cols, std in (("q", q_out, hidden, std_qkv), ("k", kv_out, hidden, std_qkv),
                                  ("v", kv_out, hidden, std_qkv), ("o", hidden, q_out, std_o)):
        w = torch.randn(1, rows, cols, dtype=torch.float32, device=device) * std
        fp4, scale, global_decode = _quantize_nvfp4(w)
        # The original passes the global decode scale as a Python float (.item()); the harness gives the
        # same fp32 value as a 0-dim tensor.
        out.update({f"{name}_weight_fp4": fp4.squeeze(0), f"{name}_scale": scale.squeeze(0),
                    f"{name}_global_decode_scale": global_decode})
    return out


def _as_global(value, device):
    if isinstance(value, torch.Tensor):
        return value.to(device=device, dtype=torch.float32).reshape(())
    return torch.tensor(value, dtype=torch.float32, device=device)


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, cos, sin = inputs["hidden_states"], inputs["cos"], inputs["sin"]
    num_heads, num_kv_heads, head_dim = symbols["num_heads"], symbols["num_kv_heads"], symbols["head_dim"]
    q_out, kv_out, hidden_size = symbols["q_out_features"], symbols["kv_out_features"], symbols["hidden_size"]
    num_kv_groups = num_heads // num_kv_heads
    scaling = head_dim ** -0.5
    batch, seq, _ = hidden_states.shape
    device, dtype = hidden_states.device, hidden_states.dtype
    compute_dtype = torch.promote_types(dtype, torch.float32)

    def proj(x, name, out_features):
        b, s, in_features = x.shape
        x_fp4, x_scale, x_global = _quantize_nvfp4(x.reshape(1, b * s, in_features))
        out = _scaled_mm_nvfp4(x_fp4, inputs[f"{name}_weight_fp4"].unsqueeze(0), x_scale, x_global,
                               inputs[f"{name}_scale"].unsqueeze(0),
                               _as_global(inputs[f"{name}_global_decode_scale"], device), compute_dtype)
        return out.squeeze(0).to(dtype).reshape(b, s, out_features)

    q = proj(hidden_states, "q", q_out).view(batch, seq, num_heads, head_dim).transpose(1, 2)
    k = proj(hidden_states, "k", kv_out).view(batch, seq, num_kv_heads, head_dim).transpose(1, 2)
    v = proj(hidden_states, "v", kv_out).view(batch, seq, num_kv_heads, head_dim).transpose(1, 2)
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    half = head_dim // 2
    q_rotated = torch.cat((-q[..., half:], q[..., :half]), dim=-1)
    q = (q * cos) + (q_rotated * sin)
    k_rotated = torch.cat((-k[..., half:], k[..., :half]), dim=-1)
    k = (k * cos) + (k_rotated * sin)
    k = k[:, :, None, :, :].expand(batch, num_kv_heads, num_kv_groups, seq, head_dim).reshape(batch, num_heads, seq, head_dim)
    v = v[:, :, None, :, :].expand(batch, num_kv_heads, num_kv_groups, seq, head_dim).reshape(batch, num_heads, seq, head_dim)
    attn = torch.matmul(q, k.transpose(2, 3)) * scaling
    causal = torch.triu(torch.ones(seq, seq, device=device, dtype=torch.bool), diagonal=1)
    attn = attn.masked_fill(causal, -float("inf"))
    attn = F.softmax(attn, dim=-1, dtype=compute_dtype).to(dtype)
    attn_output = torch.matmul(attn, v).transpose(1, 2).contiguous().reshape(batch, seq, q_out)
    return {"out": proj(attn_output, "o", hidden_size)}
