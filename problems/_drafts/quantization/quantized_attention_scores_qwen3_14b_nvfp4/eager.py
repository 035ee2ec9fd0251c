"""quantized_attention_scores_qwen3_14b_nvfp4 as the original benchmark times it: its reference(),
reconstructed (the original masks it: YIGE24/MetaKernelBench problems/_sol_execbench/
58_quantized_attention_scores_qwen3_14b_nvfp4.json at d90ba286), eager PyTorch at the inputs' dtypes.
The NVFP4 helpers are the reconstruction of the original's _quantize_nvfp4 / _dequantize_nvfp4 /
_scaled_mm_nvfp4 (spec notes); packed codes are uint8 here (the harness has no fp4 dtype), element 2j
of a row in the low nibble of byte j. tests/gpu/eager_check.py runs it."""
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


def _repeat_kv(hidden_states, n_rep):
    batch, num_kv_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_kv_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_kv_heads * n_rep, slen, head_dim)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    b, s, d = symbols["batch_size"], symbols["seq_len"], symbols["head_dim"]
    h, kv = symbols["num_attention_heads"], symbols["num_key_value_heads"]
    query_states = torch.randn(b, h, s, d, dtype=torch.bfloat16, device=device)
    key_states = torch.randn(b, kv, s, d, dtype=torch.bfloat16, device=device)
    value_states = torch.randn(b, kv, s, d, dtype=torch.bfloat16, device=device)
    attention_mask = torch.zeros(b, 1, s, s, dtype=torch.bfloat16, device=device)
    causal = torch.triu(torch.ones(s, s, device=device), diagonal=1).bool()
    attention_mask[:, :, causal] = torch.finfo(torch.bfloat16).min
    return {"query_states": query_states, "key_states": key_states, "value_states": value_states,
            "attention_mask": attention_mask}


@torch.no_grad()
def eager(inputs, symbols, constants):
    query_states, attention_mask = inputs["query_states"], inputs["attention_mask"]
    bsz, num_heads, q_len, head_dim = query_states.shape
    n_rep = num_heads // inputs["key_states"].shape[1]
    scaling = head_dim ** -0.5
    compute_dtype = torch.promote_types(query_states.dtype, torch.float32)
    key_states = _repeat_kv(inputs["key_states"], n_rep)
    value_states = _repeat_kv(inputs["value_states"], n_rep)
    q = query_states.reshape(bsz * num_heads, q_len, head_dim)
    k = key_states.reshape(bsz * num_heads, q_len, head_dim)
    v = value_states.reshape(bsz * num_heads, q_len, head_dim)
    q_fp4, q_scale, q_global = _quantize_nvfp4(q)
    k_fp4, k_scale, k_global = _quantize_nvfp4(k)
    attn_scores = _scaled_mm_nvfp4(q_fp4, k_fp4, q_scale, q_global, k_scale, k_global, compute_dtype).to(query_states.dtype)
    attn_scores = attn_scores * scaling
    attn_scores = attn_scores.view(bsz, num_heads, q_len, q_len)
    attn_scores = attn_scores + attention_mask
    attn_weights = F.softmax(attn_scores, dim=-1, dtype=compute_dtype).to(query_states.dtype)
    attn_flat = attn_weights.reshape(bsz * num_heads, q_len, q_len)
    attn_fp4, attn_scale, attn_global = _quantize_nvfp4(attn_flat)
    v_t = v.transpose(1, 2).contiguous()
    v_fp4_t, v_scale_t, v_global = _quantize_nvfp4(v_t)
    attn_output = _scaled_mm_nvfp4(attn_fp4, v_fp4_t, attn_scale, attn_global, v_scale_t, v_global,
                                   compute_dtype).to(query_states.dtype)
    attn_output = attn_output.view(bsz, num_heads, q_len, head_dim)
    return {"attn_output": attn_output, "attn_weights": attn_weights}
