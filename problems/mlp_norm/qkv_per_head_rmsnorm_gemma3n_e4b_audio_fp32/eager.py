"""qkv_per_head_rmsnorm_gemma3n_e4b_audio_fp32 as the original benchmark times it: eager PyTorch at the inputs'
own dtype (fp32), our reconstruction of its masked reference (YIGE24/MetaKernelBench problems/_sol_execbench/
41_qkv_per_head_rmsnorm_gemma3n_e4b_audio_fp32.json at d90ba286; the spec's notes list the choices).
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s, d = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"]
    out, hd = symbols["qkv_out_size"], symbols["head_dim"]
    hidden_states = torch.randn((b, s, d), device="cuda", dtype=torch.float32)
    # Drawn in the original's order: the three projection weights, then the two norm weights.
    q_weight = torch.randn((out, d), device="cuda", dtype=torch.float32) / math.sqrt(d)
    k_weight = torch.randn((out, d), device="cuda", dtype=torch.float32) / math.sqrt(d)
    v_weight = torch.randn((out, d), device="cuda", dtype=torch.float32) / math.sqrt(d)
    q_norm_weight = torch.randn((hd,), device="cuda", dtype=torch.float32) * 0.1 + 1.0
    k_norm_weight = torch.randn((hd,), device="cuda", dtype=torch.float32) * 0.1 + 1.0
    return {"hidden_states": hidden_states, "q_weight": q_weight, "k_weight": k_weight, "v_weight": v_weight,
            "q_norm_weight": q_norm_weight, "k_norm_weight": k_norm_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    x = inputs["hidden_states"]
    b, s, _ = x.shape
    h, hd = symbols["num_heads"], symbols["head_dim"]
    eps = constants["eps"]
    q = F.linear(x, inputs["q_weight"]).view(b, s, h, hd)
    k = F.linear(x, inputs["k_weight"]).view(b, s, h, hd)
    v = F.linear(x, inputs["v_weight"]).view(b, s, h, hd)
    # Per-head RMSNorm of q and k: mean of squares, multiply by rsqrt, multiply by the weight.
    var = q.pow(2).mean(dim=-1, keepdim=True)
    q = q * torch.rsqrt(var + eps)
    q = q * inputs["q_norm_weight"]
    var = k.pow(2).mean(dim=-1, keepdim=True)
    k = k * torch.rsqrt(var + eps)
    k = k * inputs["k_norm_weight"]
    return {"q": q, "k": k, "v": v}
