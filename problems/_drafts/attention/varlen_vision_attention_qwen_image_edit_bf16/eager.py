"""varlen_vision_attention_qwen_image_edit_bf16 as the original benchmark times it, reconstructed (its
reference is masked: YIGE24/MetaKernelBench problems/_sol_execbench/
11_varlen_vision_attention_qwen_image_edit_bf16.json at d90ba286; the choices are in spec.json's notes):
eager PyTorch at bf16 with fp32 rotary and softmax, and the per-sequence Python loop.
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F

SEQ_SPLITS = (255, 85, 425, 170, 680, 85, 170, 340, 85, 510, 170, 255, 85, 340, 170, 425, 85, 255, 170, 85, 170,
              510, 340, 170, 255, 170, 85, 623)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    S, H, D, E = symbols["total_seq_len"], symbols["num_heads"], symbols["head_dim"], symbols["embed_dim"]
    lengths = torch.tensor(SEQ_SPLITS, device=device, dtype=torch.int64)
    cu_seqlens = lengths.cumsum(0)
    starts = cu_seqlens - lengths
    positions = (torch.arange(S, device=device, dtype=torch.int64)
                 - torch.repeat_interleave(starts, lengths)).to(torch.float32)
    half = D // 2
    exponents = torch.arange(0, half, device=device, dtype=torch.float32) / half
    inv_freq = 1.0 / (constants["rope_theta"] ** exponents)
    angles = torch.outer(positions, inv_freq)
    table = torch.cat([angles, angles], dim=-1)
    cos = table.cos().unsqueeze(1).to(torch.bfloat16).expand(S, H, D).contiguous()
    sin = table.sin().unsqueeze(1).to(torch.bfloat16).expand(S, H, D).contiguous()
    hidden_states = torch.randn(S, E, device=device, dtype=torch.bfloat16)
    qkv_weight = torch.randn(symbols["qkv_dim"], E, device=device, dtype=torch.bfloat16) / math.sqrt(E)
    qkv_bias = 0.1 * torch.randn(symbols["qkv_dim"], device=device, dtype=torch.bfloat16)
    proj_weight = torch.randn(E, E, device=device, dtype=torch.bfloat16) / math.sqrt(E)
    proj_bias = 0.1 * torch.randn(E, device=device, dtype=torch.bfloat16)
    return {"hidden_states": hidden_states, "cu_seqlens": cu_seqlens, "cos": cos, "sin": sin,
            "qkv_weight": qkv_weight, "qkv_bias": qkv_bias, "proj_weight": proj_weight, "proj_bias": proj_bias}


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, cu_seqlens = inputs["hidden_states"], inputs["cu_seqlens"]
    H, D = symbols["num_heads"], symbols["head_dim"]
    S = hidden_states.shape[0]
    compute_dtype = torch.promote_types(hidden_states.dtype, torch.float32)
    qkv = F.linear(hidden_states, inputs["qkv_weight"], inputs["qkv_bias"])
    q, k, v = qkv.reshape(S, 3, H, D).unbind(1)
    cos, sin = inputs["cos"].to(compute_dtype), inputs["sin"].to(compute_dtype)
    qf, kf = q.to(compute_dtype), k.to(compute_dtype)
    q = ((qf * cos) + (_rotate_half(qf) * sin)).to(hidden_states.dtype)
    k = ((kf * cos) + (_rotate_half(kf) * sin)).to(hidden_states.dtype)
    scale = D ** -0.5
    outputs = []
    start = 0
    for i in range(cu_seqlens.numel()):
        end = int(cu_seqlens[i].item())
        q_i, k_i, v_i = q[start:end].transpose(0, 1), k[start:end].transpose(0, 1), v[start:end].transpose(0, 1)
        scores = torch.matmul(q_i, k_i.transpose(-1, -2)) * scale
        probs = torch.softmax(scores, dim=-1, dtype=compute_dtype).to(q_i.dtype)
        outputs.append(torch.matmul(probs, v_i).transpose(0, 1))
        start = end
    attn = torch.cat(outputs, dim=0).reshape(S, H * D)
    return {"output": F.linear(attn, inputs["proj_weight"], inputs["proj_bias"])}
