import math

import torch


def reference(inputs, symbols, constants):
    """The FIBO joint attention block in float64: AdaLN-Zero modulated LayerNorm, projections, 3D rotary
    (as complex rotations per frequency slot), attention over [text; image] keys, gated residual."""
    x, temb, ctx = inputs["hidden_states"], inputs["timestep_embedding"], inputs["encoder_hidden_states"]
    B, S, D = x.shape
    H = symbols["head_dim"]
    N = D // H
    emb = torch.nn.functional.silu(temb) @ inputs["adaln_linear_weight"].T + inputs["adaln_linear_bias"]
    shift, scale, gate = emb[:, :D], emb[:, D:2 * D], emb[:, 2 * D:3 * D]
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    xm = (x - mean) / torch.sqrt(var + constants["layer_norm_eps"]) * (1 + scale[:, None]) + shift[:, None]

    def lin(a, w, b):
        return a @ inputs[w].T + inputs[b]

    q = lin(xm, "to_q_weight", "to_q_bias").reshape(B, S, N, H)
    k = lin(xm, "to_k_weight", "to_k_bias").reshape(B, S, N, H)
    v = lin(xm, "to_v_weight", "to_v_bias").reshape(B, S, N, H)
    ck = lin(ctx, "to_k_context_weight", "to_k_context_bias").reshape(B, -1, N, H)
    cv = lin(ctx, "to_v_context_weight", "to_v_context_bias").reshape(B, -1, N, H)

    # slot j of 64 uses the table of axis 0 (j < 8), 1 (j < 36) or 2, at the token's position on it
    half = H // 2
    bounds = [0, symbols["rope_axis0_dim"] // 2, (symbols["rope_axis0_dim"] + symbols["rope_axis1_dim"]) // 2, half]
    cos = torch.empty(S, half, dtype=x.dtype, device=x.device)
    sin = torch.empty_like(cos)
    for a in range(3):
        lo, hi = bounds[a], bounds[a + 1]
        pos = inputs[f"pos_idx_axis{a}"].long()
        cos[:, lo:hi] = inputs[f"cos_axis{a}"][pos, lo:hi]
        sin[:, lo:hi] = inputs[f"sin_axis{a}"][pos, lo:hi]
    rot = torch.complex(cos, sin)[None, :, None, :]

    def rope(t):  # pairs (d, d + 64) as complex numbers d + i (d + 64), rotated
        z = torch.complex(t[..., :half], t[..., half:]) * rot
        return torch.cat([z.real, z.imag], -1)

    q, k = rope(q), rope(k)
    if symbols["is_joint_block"]:
        k = torch.cat([ck, k], 1)
        v = torch.cat([cv, v], 1)
    s = torch.einsum("bqnh,bknh->bnqk", q, k) / math.sqrt(H)
    p = torch.softmax(s, -1)
    o = torch.einsum("bnqk,bknh->bqnh", p, v).reshape(B, S, D)
    out = x + gate[:, None] * lin(o, "to_out_weight", "to_out_bias")
    return {"output": out}
