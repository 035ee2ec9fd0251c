"""multimodal_embedding_projection_qwen3vl_nvfp4 as the original benchmark times it: the reconstructed
reference (YIGE24/MetaKernelBench problems/_sol_execbench/55_multimodal_embedding_projection_qwen3vl_nvfp4.json
at d90ba286, a masked recipe; spec.json's notes give every choice), eager PyTorch at the inputs' dtypes,
with its per-sequence Python loop and host syncs. tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F

_SF_VEC_SIZE = 16
_E2M1_MAX = 6.0
_E4M3_MAX = 448.0
_E2M1_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)


def _cast_to_fp4x2(x):
    # nearest e2m1 code, ties to even; element 2i in the low nibble of byte i
    codes = torch.zeros_like(x, dtype=torch.uint8)
    codes[(x >= 0.0) & (x <= 0.25)] = 0
    codes[(x > 0.25) & (x < 0.75)] = 1
    codes[(x >= 0.75) & (x <= 1.25)] = 2
    codes[(x > 1.25) & (x < 1.75)] = 3
    codes[(x >= 1.75) & (x <= 2.5)] = 4
    codes[(x > 2.5) & (x < 3.5)] = 5
    codes[(x >= 3.5) & (x <= 5.0)] = 6
    codes[x > 5.0] = 7
    codes[(x >= -0.25) & (x < 0.0)] = 8
    codes[(x > -0.75) & (x < -0.25)] = 9
    codes[(x >= -1.25) & (x <= -0.75)] = 10
    codes[(x > -1.75) & (x < -1.25)] = 11
    codes[(x >= -2.5) & (x <= -1.75)] = 12
    codes[(x > -3.5) & (x < -2.5)] = 13
    codes[(x >= -5.0) & (x <= -3.5)] = 14
    codes[x < -5.0] = 15
    packed = codes[..., ::2] | codes[..., 1::2] * 16
    return packed.to(torch.uint8)


def _nvfp4_scales(tensor, global_amax):
    batch, rows, cols = tensor.shape
    assert cols % _SF_VEC_SIZE == 0, f"cols {cols} must be a multiple of {_SF_VEC_SIZE}"
    blocks = tensor.reshape(batch, rows, cols // _SF_VEC_SIZE, _SF_VEC_SIZE)
    block_amax = (blocks.abs().amax(dim=-1) / _E2M1_MAX).to(torch.float32)
    if global_amax <= 0.0:
        global_encode_scale = torch.tensor(1.0, device=tensor.device, dtype=torch.float32)
    else:
        global_encode_scale = torch.tensor(_E4M3_MAX * _E2M1_MAX / global_amax, device=tensor.device,
                                           dtype=torch.float32)
    global_decode_scale = 1.0 / global_encode_scale
    scale = torch.clamp(block_amax * global_encode_scale, min=-_E4M3_MAX, max=_E4M3_MAX)
    return scale.to(torch.float8_e4m3fn), global_decode_scale


def _quantize_nvfp4(tensor):
    tensor = tensor.to(torch.float32)
    global_amax = tensor.abs().max().item()
    scale_fp8, global_decode = _nvfp4_scales(tensor, global_amax)
    decode_scale = scale_fp8.to(torch.float32) * global_decode
    batch, rows, cols = tensor.shape
    scaled = tensor.reshape(batch, rows, cols // _SF_VEC_SIZE, _SF_VEC_SIZE) / decode_scale.unsqueeze(-1)
    clipped = torch.clamp(scaled, -_E2M1_MAX, _E2M1_MAX)
    return _cast_to_fp4x2(clipped.reshape(batch, rows, cols)), scale_fp8, global_decode


def _dequantize_nvfp4(fp4, scale_fp8, global_decode, compute_dtype):
    batch, rows, half_cols = fp4.shape
    codes = fp4.view(torch.uint8).to(torch.int64)
    values = torch.tensor(_E2M1_VALUES, dtype=compute_dtype, device=fp4.device)
    unpacked = torch.stack((values[codes & 15], values[codes >> 4]), dim=-1).reshape(batch, rows, half_cols * 2)
    scales = scale_fp8.to(compute_dtype) * global_decode.to(compute_dtype)
    blocked = unpacked.reshape(batch, rows, half_cols * 2 // _SF_VEC_SIZE, _SF_VEC_SIZE) * scales.unsqueeze(-1)
    return blocked.reshape(batch, rows, half_cols * 2)


def _scaled_mm_nvfp4(mat_a, mat_b, scale_a, global_decode_a, scale_b, global_decode_b, compute_dtype):
    assert mat_a.shape[0] == mat_b.shape[0] and mat_a.shape[2] == mat_b.shape[2], \
        f"shape {tuple(mat_b.shape)} mismatches mat_a {tuple(mat_a.shape)}"
    dequant_a = _dequantize_nvfp4(mat_a, scale_a, global_decode_a, compute_dtype)
    dequant_b = _dequantize_nvfp4(mat_b, scale_b, global_decode_b, compute_dtype)
    return torch.bmm(dequant_a, dequant_b.transpose(1, 2))


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    b, s, v = symbols["batch_size"], symbols["seq_len"], symbols["num_vision_tokens"]
    hidden, vocab, vision_hidden = symbols["hidden_size"], symbols["vocab_size"], symbols["vision_hidden_size"]
    input_ids = torch.randint(0, vocab, (b, s), dtype=torch.int64, device=device)
    embed_weight = torch.randn(vocab, hidden, dtype=torch.bfloat16, device=device)
    vision_features = torch.randn(b, v, vision_hidden, dtype=torch.bfloat16, device=device)
    weight = torch.randn(1, hidden, vision_hidden, dtype=torch.bfloat16, device=device) / math.sqrt(vision_hidden)
    weight_fp4, weight_scale, global_decode = _quantize_nvfp4(weight)
    vision_proj_bias = torch.randn(hidden, dtype=torch.bfloat16, device=device)
    vision_token_mask = torch.zeros(b, s, dtype=torch.bool, device=device)
    for row in range(b):
        n = min(v, s)
        positions = torch.randperm(s, device=device)[:n]
        vision_token_mask[row, positions] = True
    return {"input_ids": input_ids, "embed_weight": embed_weight, "vision_features": vision_features,
            "vision_proj_weight_fp4": weight_fp4, "vision_proj_weight_scale": weight_scale,
            "vision_proj_global_decode": global_decode, "vision_proj_bias": vision_proj_bias,
            "vision_token_mask": vision_token_mask}


@torch.no_grad()
def eager(inputs, symbols, constants):
    input_ids, embed_weight = inputs["input_ids"], inputs["embed_weight"]
    batch_size = input_ids.shape[0]
    dtype = embed_weight.dtype
    compute_dtype = torch.promote_types(dtype, torch.float32)
    text_embeds = F.embedding(input_ids, embed_weight)

    act_fp4, act_scale, global_decode_act = _quantize_nvfp4(inputs["vision_features"])
    weight_fp4, weight_scale = inputs["vision_proj_weight_fp4"], inputs["vision_proj_weight_scale"]
    vision_embeds = _scaled_mm_nvfp4(act_fp4, weight_fp4.expand(batch_size, -1, -1), act_scale, global_decode_act,
                                     weight_scale.expand(batch_size, -1, -1), inputs["vision_proj_global_decode"],
                                     compute_dtype).to(dtype)
    vision_embeds = vision_embeds + inputs["vision_proj_bias"].to(dtype)

    output = text_embeds.clone()
    mask = inputs["vision_token_mask"]
    for b in range(batch_size):
        positions = mask[b].nonzero().flatten()
        if len(positions) > 0:
            n = min(len(positions), vision_embeds.shape[1])
            output[b, positions[:n]] = vision_embeds[b, :n]
    return {"output": output}
