"""multimodal_embedding_projection_qwen3vl_nvfp4 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The activations' NVFP4 codes and scales are the semantics' own (the fp32
arithmetic of reference.md); every product after them is exact in float64."""
import torch

_MAG = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=torch.float64)


def _e2m1_magnitude(v):
    """Nearest e2m1 magnitude of |v| (v fp32, |v| <= 6), ties to even."""
    a = v.abs()
    idx = torch.zeros_like(a, dtype=torch.int64)
    for bound, closed, code in ((0.25, False, 1), (0.75, True, 2), (1.25, False, 3), (1.75, True, 4),
                                (2.5, False, 5), (3.5, True, 6), (5.0, False, 7)):
        idx = torch.where(a >= bound if closed else a > bound, code, idx)
    return _MAG.to(v.device)[idx]


def _activations(x):
    """x float64 [B, R, C] (bf16 values): NVFP4 quantized in fp32, dequantized in float64."""
    x32 = x.to(torch.float32)
    amax = x32.abs().max()
    encode = torch.tensor(2688.0, dtype=torch.float32, device=x.device) / amax
    decode = torch.reciprocal(encode)
    blocks = x32.reshape(*x.shape[:2], -1, 16)
    b = blocks.abs().amax(dim=-1) * torch.tensor(1.0 / 6.0, dtype=torch.float32, device=x.device)
    s8 = torch.clamp(b * encode, -448.0, 448.0).to(torch.float8_e4m3fn).to(torch.float32)
    d = s8 * decode
    v = torch.clamp(blocks / d[..., None], -6.0, 6.0)
    value = torch.where(v < 0, -1.0, 1.0).to(torch.float64) * _e2m1_magnitude(v)
    return (value * d[..., None].to(torch.float64)).reshape(x.shape)


def _weight(packed, scale, decode):
    """packed [1, N, K/2] codes (int64), scale [1, N, K/16] (float64 e4m3 values), decode (float64)."""
    codes = torch.stack((packed & 15, packed >> 4), dim=-1).reshape(packed.shape[1], -1)
    value = torch.where(codes >= 8, -1.0, 1.0).to(torch.float64) * _MAG.to(packed.device)[codes & 7]
    d = scale[0].to(torch.float32) * decode.to(torch.float32)
    return (value.reshape(codes.shape[0], -1, 16) * d[..., None].to(torch.float64)).reshape(codes.shape)


def reference(inputs, symbols, constants):
    ids, table = inputs["input_ids"], inputs["embed_weight"]
    out = table[ids].clone()
    a = _activations(inputs["vision_features"])
    w = _weight(inputs["vision_proj_weight_fp4"], inputs["vision_proj_weight_scale"], inputs["vision_proj_global_decode"])
    vision = a @ w.T + inputs["vision_proj_bias"]
    mask = inputs["vision_token_mask"].bool()
    for b in range(ids.shape[0]):
        pos = mask[b].nonzero().flatten()
        n = min(len(pos), vision.shape[1])
        out[b, pos[:n]] = vision[b, :n]
    return {"output": out}
