"""hyena_fft_conv_block_hyena_small_fp32 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The long convolution is written as the causal convolution it is
(y[t] = sum_{s <= t} k[c, s] g[t - s], by an explicit Toeplitz matrix), not by FFT; the LayerNorms with
torch.nn.functional.layer_norm; the positional grid from arange."""
import math

import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    p = inputs
    eps, shift = constants["layer_norm_eps"], constants["exp_mod_shift"]
    x = p["hidden_states"]
    d, width = symbols["d_model"], symbols["inner_width"]
    batch, seq, _ = x.shape
    n1 = F.layer_norm(x, (d,), p["norm1_weight"], p["norm1_bias"], eps)
    u = n1 @ p["in_proj_weight"].T + p["in_proj_bias"]                 # [b, t, 768]
    wconv = p["short_conv_weight"][:, 0, :]                             # [768, 3]: taps on t-2, t-1, t
    shifted = [F.pad(u, (0, 0, s, 0))[:, :seq] for s in (2, 1, 0)]
    uc = sum(wconv[:, j] * shifted[j] for j in range(3)) + p["short_conv_bias"]
    x0, x1, v = uc[..., :d], uc[..., d:2 * d], uc[..., 2 * d:]          # [b, t, 256] each
    pos = torch.arange(seq, dtype=x.dtype, device=x.device)
    t = pos / (seq - 1)
    w = 2 * math.pi * pos / seq
    z = torch.stack([t, torch.cos(-1e-4 * w), torch.cos(-w), torch.sin(-1e-4 * w), torch.sin(-w)], dim=-1)
    h = z
    for i in (1, 2, 3):
        h = torch.sin(p["sin_freq"][0] * (h @ p[f"filter_linear{i}_weight"].T + p[f"filter_linear{i}_bias"]))
    h = h @ p["filter_linear_final_weight"].T
    h = h * (torch.exp(-t[:, None] * p["exp_mod_deltas"][0, 0].abs()) + shift) + p["filter_bias"]
    kfilt = h.reshape(d, seq)                                           # row c: h's row c (the reshape, not a transpose)
    g = v * x1
    lag = pos[:, None] - pos[None, :]                                   # t - s
    toeplitz = torch.where(lag >= 0, kfilt[:, lag.clamp(min=0).long()], torch.zeros((), dtype=x.dtype, device=x.device))
    y = torch.einsum("cts,bsc->btc", toeplitz, g)                       # sum_{s <= t} k[c, t - s] g[s]
    gated = (y + g * p["filter_bias"]) * x0
    r1 = gated @ p["out_proj_weight"].T + p["out_proj_bias"] + x
    n2 = F.layer_norm(r1, (d,), p["norm2_weight"], p["norm2_bias"], eps)
    mid = F.gelu(n2 @ p["mlp_fc1_weight"].T + p["mlp_fc1_bias"], approximate="tanh")
    return {"output": mid @ p["mlp_fc2_weight"].T + p["mlp_fc2_bias"] + r1}
