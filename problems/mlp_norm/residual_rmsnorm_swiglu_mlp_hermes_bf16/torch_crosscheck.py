import torch


def reference(inputs, symbols, constants):
    """Float64 semantics of residual_rmsnorm_swiglu_mlp_hermes_bf16 (original #33, reconstructed), without
    intermediate rounding: output = down(silu(gate(n)) * up(n)), n = RMSNorm(hidden_states + residual)."""
    f = torch.nn.functional
    s = inputs["hidden_states"].to(torch.float64) + inputs["residual"].to(torch.float64)
    n = s * torch.rsqrt((s * s).mean(dim=-1, keepdim=True) + float(constants["eps"]))
    n = n * inputs["norm_weight"].to(torch.float64)
    gate = f.linear(n, inputs["gate_weight"].to(torch.float64))
    up = f.linear(n, inputs["up_weight"].to(torch.float64))
    return {"output": f.linear(f.silu(gate) * up, inputs["down_weight"].to(torch.float64))}
