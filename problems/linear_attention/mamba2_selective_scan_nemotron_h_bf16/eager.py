"""mamba2_selective_scan_nemotron_h_bf16 as the original benchmark times it: eager PyTorch at the inputs'
dtype (bf16, the SSD scan in fp32), a whole Mamba2 mixer of Nemotron-H's shape as SOL-ExecBench's
definition writes it: in-projection, depthwise causal conv + SiLU, softplus / clamped dt, the chunked SSD
scan with its segment sums and einsums, the grouped RMS norm, the SiLU gate and the out-projection
(YIGE24/MetaKernelBench problems/_sol_execbench/63_mamba2_selective_scan_nemotron_h_bf16.json at d90ba286, a
masked recipe: spec notes). tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    bf16 = torch.bfloat16
    s = symbols
    hidden, inter, heads = s["hidden_size"], s["intermediate_size"], s["num_heads"]
    conv_dim, proj, ksize = s["conv_dim"], s["projection_size"], s["conv_kernel_size"]
    x = {}
    x["hidden_states"] = torch.randn(s["batch_size"], s["seq_len"], hidden, dtype=bf16, device=device)
    x["in_proj_weight"] = torch.randn(proj, hidden, dtype=bf16, device=device) / math.sqrt(hidden)
    x["conv1d_weight"] = torch.randn(conv_dim, 1, ksize, dtype=bf16, device=device) / math.sqrt(ksize)
    x["conv1d_bias"] = torch.randn(conv_dim, dtype=bf16, device=device)
    x["dt_bias"] = torch.randn(heads, dtype=bf16, device=device)
    x["A_log"] = torch.empty(heads, dtype=bf16, device=device).uniform_(-5.0, -1.0)
    x["D"] = torch.randn(heads, dtype=bf16, device=device)
    x["norm_weight"] = (1 + 0.1 * torch.randn(inter, dtype=torch.float32, device=device)).to(bf16)
    x["out_proj_weight"] = torch.randn(hidden, inter, dtype=bf16, device=device) / math.sqrt(inter)
    return x


def _segment_sum(x):
    n = x.size(-1)
    spread = x[..., None].expand(*x.size(), n)
    strict = torch.tril(torch.ones(n, n, device=x.device, dtype=torch.bool), diagonal=-1)
    spread = spread.masked_fill(~strict, 0)
    seg = torch.cumsum(spread, dim=-2)
    keep = torch.tril(torch.ones(n, n, device=x.device, dtype=torch.bool), diagonal=0)
    return seg.masked_fill(~keep, -torch.inf)


def _pad4(x, pad):
    return F.pad(x, (0, 0, 0, 0, 0, pad, 0, 0)) if pad > 0 else x


def _pad3(x, pad):
    return F.pad(x, (0, 0, 0, pad, 0, 0)) if pad > 0 else x


@torch.no_grad()
def eager(inputs, symbols, constants):
    s = symbols
    heads, dim, inter = s["num_heads"], s["head_dim"], s["intermediate_size"]
    state, ksize, groups, chunk = s["ssm_state_size"], s["conv_kernel_size"], s["n_groups"], s["chunk_size"]
    gts = groups * state
    conv_dim = inter + 2 * gts
    hidden_states = inputs["hidden_states"]
    batch, seq, _ = hidden_states.shape
    dtype = hidden_states.dtype
    wide = torch.promote_types(dtype, torch.float32)

    projected = torch.matmul(hidden_states, inputs["in_proj_weight"].t())
    gate_start = projected.shape[-1] - inter - conv_dim - heads
    gate = projected[..., gate_start:gate_start + inter]
    xbc = projected[..., gate_start + inter:gate_start + inter + conv_dim]
    dt = projected[..., -heads:]

    conv = F.conv1d(xbc.transpose(1, 2), inputs["conv1d_weight"], inputs["conv1d_bias"],
                    padding=ksize - 1, groups=conv_dim)[..., :seq]
    xbc = (conv * torch.sigmoid(conv)).transpose(1, 2)
    x = xbc[..., :inter]
    B = xbc[..., inter:inter + gts]
    C = xbc[..., inter + gts:]

    dt = F.softplus(dt + inputs["dt_bias"])
    dt = torch.clamp(dt, constants["time_step_limit_min"], constants["time_step_limit_max"])

    x = x.view(batch, seq, heads, dim).to(wide)
    B = B.view(batch, seq, groups, state).to(wide)
    C = C.view(batch, seq, groups, state).to(wide)
    per_group = heads // groups
    B = B.repeat(1, 1, per_group, 1)          # head h reads group h % n_groups
    C = C.repeat(1, 1, per_group, 1)

    pad = (chunk - seq % chunk) % chunk
    skip = inputs["D"].to(wide)[..., None] * _pad4(x, pad)
    x = x * dt[..., None]
    A = -torch.exp(inputs["A_log"].to(wide)) * dt

    x_p, A_p, B_p, C_p = _pad4(x, pad), _pad3(A, pad), _pad4(B, pad), _pad4(C, pad)
    total = x_p.shape[1]
    n_chunks = total // chunk
    x_c = x_p.reshape(batch, n_chunks, chunk, heads, dim)
    A_c = A_p.reshape(batch, n_chunks, chunk, heads)
    B_c = B_p.reshape(batch, n_chunks, chunk, heads, state)
    C_c = C_p.reshape(batch, n_chunks, chunk, heads, state)

    A_hc = A_c.permute(0, 3, 1, 2)
    A_cum = torch.cumsum(A_hc, dim=-1)

    decay_in = torch.exp(_segment_sum(A_hc))
    scores = torch.einsum("bclhn,bcshn->bclsh", C_c, B_c)
    weights = scores * decay_in.permute(0, 2, 3, 4, 1)
    y_diag = torch.einsum("bclsh,bcshd->bclhd", weights, x_c)

    to_end = torch.exp(A_cum[:, :, :, -1:] - A_cum)
    B_to_end = B_c * to_end.permute(0, 2, 3, 1)[..., None]
    local = torch.einsum("bcshd,bcshn->bchdn", x_c, B_to_end)

    stacked = torch.cat([torch.zeros_like(local[:, :1]), local], dim=1)
    ends = F.pad(A_cum[:, :, :, -1], (1, 0))
    decay_out = torch.exp(_segment_sum(ends))
    entering = torch.einsum("bhcd,bhdin->bhcin", decay_out, stacked.permute(0, 2, 1, 3, 4))
    entering = entering[:, :, :-1, :, :].permute(0, 2, 1, 3, 4)

    from_start = torch.exp(A_cum)
    y_off = torch.einsum("bcshn,bchdn,bcsh->bcshd", C_c, entering, from_start.permute(0, 2, 3, 1))

    y = y_diag + y_off
    y = y.reshape(batch, total, heads, dim)
    y = y + skip
    if pad > 0:
        y = y[:, :seq]
    y = y.reshape(batch, seq, inter).to(dtype)

    # grouped RMS norm, then the SiLU gate
    size = inter // groups
    y_g = y.view(batch, seq, groups, size)
    variance = y_g.to(wide).pow(2).mean(dim=-1, keepdim=True)
    y_n = y_g * torch.rsqrt(variance + constants["layer_norm_epsilon"])
    y_n = y_n.view(batch, seq, inter).to(dtype)
    y_n = y_n * inputs["norm_weight"]
    y = y_n * (gate * torch.sigmoid(gate))
    return {"output": torch.matmul(y, inputs["out_proj_weight"].t())}
