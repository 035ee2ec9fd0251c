"""mamba2_selective_scan_nemotron_h_bf16 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The SSD part is written chunk by chunk with matrix products (the anchor
runs the recurrence token by token): per chunk, the decay-masked C B^T times x dt, plus the state entering
the chunk; heads read group h % n_groups of B and C."""
import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    s, p = symbols, inputs
    heads, dim, inter, state = s["num_heads"], s["head_dim"], s["intermediate_size"], s["ssm_state_size"]
    groups, chunk, ksize = s["n_groups"], s["chunk_size"], s["conv_kernel_size"]
    gts = groups * state
    x_in = p["hidden_states"]
    batch, seq, _ = x_in.shape
    proj = x_in @ p["in_proj_weight"].T
    gate, xbc, dt = proj[..., :inter], proj[..., inter:inter + inter + 2 * gts], proj[..., -heads:]
    w = p["conv1d_weight"][:, 0, :]                                   # taps on t-3 .. t
    conv = sum(w[:, j] * F.pad(xbc, (0, 0, ksize - 1 - j, 0))[:, :seq] for j in range(ksize)) + p["conv1d_bias"]
    xbc = F.silu(conv)
    x = xbc[..., :inter].reshape(batch, seq, heads, dim)
    heads_group = torch.arange(heads, device=x.device) % groups
    B = xbc[..., inter:inter + gts].reshape(batch, seq, groups, state)[:, :, heads_group]
    C = xbc[..., inter + gts:].reshape(batch, seq, groups, state)[:, :, heads_group]
    dt = torch.clamp(F.softplus(dt + p["dt_bias"]), constants["time_step_limit_min"], constants["time_step_limit_max"])
    a = -torch.exp(p["A_log"]) * dt                                  # [b, t, h]
    xdt = x * dt[..., None]
    h = torch.zeros(batch, heads, dim, state, dtype=x.dtype, device=x.device)
    y = torch.empty_like(x)
    causal = torch.ones(chunk, chunk, dtype=torch.bool, device=x.device).tril()
    for start in range(0, seq, chunk):
        sl = slice(start, start + chunk)
        cum = torch.cumsum(a[:, sl], dim=1)                          # [b, l, h]
        diff = cum[:, :, None, :] - cum[:, None, :, :]                # [b, l, s, h]
        decay = torch.where(causal[None, :, :, None], torch.exp(diff), torch.zeros((), dtype=x.dtype, device=x.device))
        cb = torch.einsum("blhn,bshn->blsh", C[:, sl], B[:, sl])
        y[:, sl] = torch.einsum("blsh,bshd->blhd", cb * decay, xdt[:, sl]) + \
            torch.einsum("blhn,bhdn,blh->blhd", C[:, sl], h, torch.exp(cum))
        to_end = torch.exp(cum[:, -1:] - cum)                         # [b, l, h]
        h = h * torch.exp(cum[:, -1])[:, :, None, None] + torch.einsum("blh,blhd,blhn->bhdn", to_end, xdt[:, sl], B[:, sl])
    y = (y + p["D"][:, None] * x).reshape(batch, seq, inter)
    size = inter // groups
    yg = y.reshape(batch, seq, groups, size)
    yn = yg * torch.rsqrt(yg.pow(2).mean(-1, keepdim=True) + constants["layer_norm_epsilon"])
    yn = yn.reshape(batch, seq, inter) * p["norm_weight"] * F.silu(gate)
    return {"output": yn @ p["out_proj_weight"].T}
