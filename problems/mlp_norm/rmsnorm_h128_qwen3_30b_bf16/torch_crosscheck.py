import torch


def _rms_norm(x, weight, eps):
    # x float64 [..., head_dim]; RMS over the last axis, then the per-channel weight
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight


def reference(inputs, symbols, constants):
    """q_norm and k_norm of a Qwen3 attention layer, in float64 with no intermediate rounding."""
    eps = constants["eps"]
    return {
        "q_out": _rms_norm(inputs["q"], inputs["q_weight"], eps),
        "k_out": _rms_norm(inputs["k"], inputs["k_weight"], eps),
    }
