"""dual_stream_joint_attention_fibo_fp32 as the original benchmark times it, reconstructed (its
reference is masked; spec.json notes say how): eager PyTorch, fp32, a FIBO/Flux-style joint attention
block (YIGE24/MetaKernelBench problems/_sol_execbench/13_dual_stream_joint_attention_fibo_fp32.json at
d90ba286). tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F

WEIGHTS = [("adaln_linear_weight", "modulation_dim", "hidden_size"), ("adaln_linear_bias", "modulation_dim", None),
           ("to_q_weight", "hidden_size", "hidden_size"), ("to_q_bias", "hidden_size", None),
           ("to_k_weight", "hidden_size", "hidden_size"), ("to_k_bias", "hidden_size", None),
           ("to_v_weight", "hidden_size", "hidden_size"), ("to_v_bias", "hidden_size", None),
           ("to_k_context_weight", "hidden_size", "joint_attention_dim"), ("to_k_context_bias", "hidden_size", None),
           ("to_v_context_weight", "hidden_size", "joint_attention_dim"), ("to_v_context_bias", "hidden_size", None),
           ("to_out_weight", "hidden_size", "hidden_size"), ("to_out_bias", "hidden_size", None)]


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    s = symbols
    inputs = {
        "hidden_states": torch.randn(s["batch_size"], s["seq_len"], s["hidden_size"], device=device, dtype=torch.float32),
        "timestep_embedding": torch.randn(s["batch_size"], s["hidden_size"], device=device, dtype=torch.float32),
        "encoder_hidden_states": torch.randn(s["batch_size"], s["text_seq_len"], s["joint_attention_dim"], device=device,
                                             dtype=torch.float32),
    }
    for name, rows, cols in WEIGHTS:
        if cols is None:
            inputs[name] = 0.1 * torch.randn(s[rows], device=device, dtype=torch.float32)
        else:
            inputs[name] = torch.randn(s[rows], s[cols], device=device, dtype=torch.float32) / math.sqrt(s[cols])
    token_index = torch.arange(s["seq_len"], device=device, dtype=torch.int64)
    inputs["pos_idx_axis0"] = token_index // (s["grid_axis1"] * s["grid_axis2"])
    inputs["pos_idx_axis1"] = (token_index // s["grid_axis2"]) % s["grid_axis1"]
    inputs["pos_idx_axis2"] = token_index % s["grid_axis2"]
    dim = s["rope_dim_per_axis"]
    freq_seq = torch.arange(0, dim, device=device, dtype=torch.float32)
    inv_freq = 1.0 / (constants["rope_theta"] ** (freq_seq / dim))
    for axis in range(3):
        freqs = torch.outer(torch.arange(s[f"rope_axis{axis}_dim"], device=device, dtype=torch.float32), inv_freq)
        inputs[f"cos_axis{axis}"] = freqs.cos()
        inputs[f"sin_axis{axis}"] = freqs.sin()
    return inputs


def apply_rope(x, cos, sin):
    half = x.shape[-1] // 2
    x1 = x[..., :half]
    x2 = x[..., half:]
    out1 = x1 * cos - x2 * sin
    out2 = x1 * sin + x2 * cos
    return torch.cat((out1, out2), dim=-1)


@torch.no_grad()
def eager(inputs, symbols, constants):
    s = symbols
    x, temb, ctx = inputs["hidden_states"], inputs["timestep_embedding"], inputs["encoder_hidden_states"]
    B, S, D = x.shape
    T = ctx.shape[1]
    H = s["head_dim"]
    N = D // H
    eps = constants["layer_norm_eps"]

    # AdaLN-Zero modulation from the timestep embedding
    emb = F.linear(F.silu(temb), inputs["adaln_linear_weight"], inputs["adaln_linear_bias"])
    shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = emb.chunk(6, dim=1)
    norm_x = F.layer_norm(x, (D,), eps=eps)
    norm_x = norm_x * (1 + scale_msa[:, None]) + shift_msa[:, None]

    q = F.linear(norm_x, inputs["to_q_weight"], inputs["to_q_bias"]).view(B, S, N, H).transpose(1, 2)
    k = F.linear(norm_x, inputs["to_k_weight"], inputs["to_k_bias"]).view(B, S, N, H).transpose(1, 2)
    v = F.linear(norm_x, inputs["to_v_weight"], inputs["to_v_bias"]).view(B, S, N, H).transpose(1, 2)
    ck = F.linear(ctx, inputs["to_k_context_weight"], inputs["to_k_context_bias"]).view(B, T, N, H).transpose(1, 2)
    cv = F.linear(ctx, inputs["to_v_context_weight"], inputs["to_v_context_bias"]).view(B, T, N, H).transpose(1, 2)

    # 3D rotary embedding of the image tokens: frequency slot j (of head_dim / 2) takes column j of
    # axis 0's table for j < 8, of axis 1's for 8 <= j < 36, of axis 2's above (axis dims 16, 56, 56).
    n0, n1 = s["rope_axis0_dim"] // 2, (s["rope_axis0_dim"] + s["rope_axis1_dim"]) // 2
    cos = torch.cat([inputs["cos_axis0"][inputs["pos_idx_axis0"]][:, :n0],
                     inputs["cos_axis1"][inputs["pos_idx_axis1"]][:, n0:n1],
                     inputs["cos_axis2"][inputs["pos_idx_axis2"]][:, n1:]], dim=-1)
    sin = torch.cat([inputs["sin_axis0"][inputs["pos_idx_axis0"]][:, :n0],
                     inputs["sin_axis1"][inputs["pos_idx_axis1"]][:, n0:n1],
                     inputs["sin_axis2"][inputs["pos_idx_axis2"]][:, n1:]], dim=-1)
    q = apply_rope(q, cos, sin)
    k = apply_rope(k, cos, sin)

    if s["is_joint_block"]:
        k = torch.cat([ck, k], dim=2)
        v = torch.cat([cv, v], dim=2)

    scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(H))
    probs = torch.softmax(scores, dim=-1)
    attn = torch.matmul(probs, v).transpose(1, 2).reshape(B, S, D)
    attn = F.linear(attn, inputs["to_out_weight"], inputs["to_out_bias"])
    out = x + gate_msa[:, None] * attn
    return {"output": out}
