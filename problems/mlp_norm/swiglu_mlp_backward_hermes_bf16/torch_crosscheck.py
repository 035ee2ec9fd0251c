import torch


def reference(inputs, symbols, constants):
    """Float64 semantics of swiglu_mlp_backward_hermes_bf16 (no intermediate rounding): the gradients of
    y = down_proj(silu(gate_proj(x)) * up_proj(x)) for the upstream gradient dy, by autograd."""
    x = inputs["x"].to(torch.float64).detach().clone().requires_grad_(True)
    w_gate = inputs["w_gate"].to(torch.float64).detach().clone().requires_grad_(True)
    w_up = inputs["w_up"].to(torch.float64).detach().clone().requires_grad_(True)
    w_down = inputs["w_down"].to(torch.float64).detach().clone().requires_grad_(True)
    dy = inputs["dy"].to(torch.float64)

    with torch.enable_grad():
        gate = torch.nn.functional.linear(x, w_gate)
        up = torch.nn.functional.linear(x, w_up)
        y = torch.nn.functional.linear(torch.nn.functional.silu(gate) * up, w_down)
        dx, dw_gate, dw_up, dw_down = torch.autograd.grad(y, (x, w_gate, w_up, w_down), grad_outputs=dy)
    return {"dx": dx.detach(), "dw_gate": dw_gate.detach(), "dw_up": dw_up.detach(), "dw_down": dw_down.detach()}
