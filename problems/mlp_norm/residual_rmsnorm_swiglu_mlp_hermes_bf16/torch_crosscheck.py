import torch


def reference(inputs, symbols, constants):
    """Float64 semantics of residual_rmsnorm_swiglu_mlp_hermes_bf16, without intermediate rounding."""
    x = inputs["x"].to(torch.float64)
    residual = inputs["residual"].to(torch.float64)
    norm_weight = inputs["norm_weight"].to(torch.float64)
    w_gate = inputs["w_gate"].to(torch.float64)
    w_up = inputs["w_up"].to(torch.float64)
    w_down = inputs["w_down"].to(torch.float64)
    eps = float(constants["eps"])

    s = x + residual
    variance = (s * s).mean(dim=-1, keepdim=True)
    n = s / torch.sqrt(variance + eps) * norm_weight
    gate = torch.nn.functional.linear(n, w_gate)
    up = torch.nn.functional.linear(n, w_up)
    h = torch.nn.functional.silu(gate) * up
    y = torch.nn.functional.linear(h, w_down)
    return {"y": y, "residual_out": s}
