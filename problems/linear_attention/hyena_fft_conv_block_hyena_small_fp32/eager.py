"""hyena_fft_conv_block_hyena_small_fp32 as the original benchmark times it: eager PyTorch in fp32, the
pre-norm Hyena block as SOL-ExecBench's definition writes it: LayerNorm, in-projection, short depthwise
conv, the implicit long filter (sine MLP over positional features, exponential modulation), the long
convolution by rfft / irfft (cuFFT), gating, out-projection and residual, LayerNorm and a tanh-GELU MLP
with residual (YIGE24/MetaKernelBench problems/_sol_execbench/67_hyena_fft_conv_block_hyena_small_fp32.json
at d90ba286, a masked recipe: spec notes). tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    f32 = torch.float32
    batch, seq, d, inner = symbols["batch_size"], symbols["seq_len"], symbols["d_model"], symbols["d_inner"]
    width, short, order, emb = symbols["inner_width"], symbols["short_filter_order"], symbols["filter_order"], symbols["emb_dim"]

    def randn(*shape):
        return torch.randn(*shape, dtype=f32, device=device)

    x = {}
    x["hidden_states"] = randn(batch, seq, d)
    x["norm1_weight"] = 1 + 0.1 * randn(d)
    x["norm1_bias"] = 0.1 * randn(d)
    x["norm2_weight"] = 1 + 0.1 * randn(d)
    x["norm2_bias"] = 0.1 * randn(d)
    x["in_proj_weight"] = randn(width, d) * 0.02
    x["in_proj_bias"] = randn(width) * 0.02
    x["short_conv_weight"] = randn(width, 1, short) * 0.02
    x["short_conv_bias"] = randn(width) * 0.02
    x["filter_linear1_weight"] = randn(order, emb) * 0.02
    x["filter_linear1_bias"] = randn(order) * 0.02
    x["sin_freq"] = 1 + 0.1 * randn(1, order)
    x["filter_linear2_weight"] = randn(order, order) * 0.02
    x["filter_linear2_bias"] = randn(order) * 0.02
    x["filter_linear3_weight"] = randn(order, order) * 0.02
    x["filter_linear3_bias"] = randn(order) * 0.02
    x["filter_linear_final_weight"] = randn(d, order) * 0.02
    x["filter_bias"] = randn(d) * 0.02
    fast = math.log(0.01) / 0.3
    slow = math.log(0.01) / 1.5
    x["exp_mod_deltas"] = torch.linspace(slow, fast, d, dtype=f32, device=device)[None, None, :]
    x["out_proj_weight"] = randn(d, d) * 0.02
    x["out_proj_bias"] = randn(d) * 0.02
    x["mlp_fc1_weight"] = randn(inner, d) * 0.02
    x["mlp_fc1_bias"] = randn(inner) * 0.02
    x["mlp_fc2_weight"] = randn(d, inner) * 0.02
    x["mlp_fc2_bias"] = randn(d) * 0.02
    return x


def _layer_norm(x, weight, bias, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


@torch.no_grad()
def eager(inputs, symbols, constants):
    p = inputs
    eps, shift = constants["layer_norm_eps"], constants["exp_mod_shift"]
    hidden_states = p["hidden_states"]
    d = symbols["d_model"]
    width = symbols["inner_width"]
    batch, seq, _ = hidden_states.shape
    l_filter = seq
    device = hidden_states.device
    wide = torch.promote_types(hidden_states.dtype, torch.float32)

    residual = hidden_states.to(wide)
    normed = _layer_norm(residual, p["norm1_weight"], p["norm1_bias"], eps)

    u = F.linear(normed, p["in_proj_weight"], p["in_proj_bias"]).transpose(1, 2)   # [b, 768, t]
    u = F.pad(u, (2, 2))
    uc = F.conv1d(u, p["short_conv_weight"], p["short_conv_bias"], groups=width)[..., :l_filter]
    x0, x1, v = uc.split(d, dim=1)

    # implicit filter: positional features -> sine MLP -> exponential modulation -> + bias
    t = torch.linspace(0, 1, l_filter, dtype=wide, device=device)[None, :, None]
    bands = 2
    t_rescaled = torch.linspace(0, l_filter - 1, l_filter, dtype=wide, device=device)[None, :, None]
    w = 2 * math.pi * t_rescaled / l_filter
    f = torch.linspace(1e-4, bands - 1, bands, dtype=wide, device=device)[None, None]
    z = torch.cat([t, torch.cos(-f * w), torch.sin(-f * w)], dim=-1)
    h = F.linear(z, p["filter_linear1_weight"], p["filter_linear1_bias"])
    h = torch.sin(p["sin_freq"] * h)
    h = F.linear(h, p["filter_linear2_weight"], p["filter_linear2_bias"])
    h = torch.sin(p["sin_freq"] * h)
    h = F.linear(h, p["filter_linear3_weight"], p["filter_linear3_bias"])
    h = torch.sin(p["sin_freq"] * h)
    h = F.linear(h, p["filter_linear_final_weight"], None)
    decay = torch.exp(-t * p["exp_mod_deltas"].abs())
    h = h * (decay + shift)
    h = h + p["filter_bias"].view(1, 1, d)
    # [1, t, c] -> transpose(0, 1) -> reshape(1, c, t): a view of the same buffer (row a of k is h's a-th
    # row of d_model values), not a transpose of the filter
    k = h.transpose(0, 1).reshape(1, d, l_filter)
    bias = p["filter_bias"].reshape(1, d)

    # order 2: one long convolution by FFT, gated by x1 first
    v = v * x1
    n = 2 * l_filter
    k_f = torch.fft.rfft(k[0].to(wide), n=n) / n
    v_f = torch.fft.rfft(v.to(wide), n=n)
    y = torch.fft.irfft(v_f * k_f, n=n, norm="forward")[..., :l_filter]
    v = y + v * bias[0].unsqueeze(-1)

    y = (v * x0).transpose(1, 2)                                                    # [b, t, c]
    residual = F.linear(y, p["out_proj_weight"], p["out_proj_bias"]) + residual
    normed = _layer_norm(residual.to(wide), p["norm2_weight"], p["norm2_bias"], eps)
    hidden = F.gelu(F.linear(normed, p["mlp_fc1_weight"], p["mlp_fc1_bias"]), approximate="tanh")
    out = F.linear(hidden, p["mlp_fc2_weight"], p["mlp_fc2_bias"]) + residual.to(wide)
    return {"output": out}
