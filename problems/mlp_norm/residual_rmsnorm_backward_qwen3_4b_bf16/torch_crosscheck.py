import torch


def reference(inputs, symbols, constants):
    """Backward of s = x + residual, y = weight * rmsnorm(s), in float64 with autograd (no rounding)."""
    eps = float(constants["eps"])
    x = inputs["x"].to(torch.float64)
    residual = inputs["residual"].to(torch.float64)
    weight = inputs["weight"].to(torch.float64)
    dy = inputs["dy"].to(torch.float64)
    ds = inputs["ds"].to(torch.float64)
    with torch.enable_grad():
        s = (x + residual).detach().requires_grad_(True)
        w = weight.detach().clone().requires_grad_(True)
        n = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + eps)
        y = w * n
        ds_local, dweight = torch.autograd.grad(y, [s, w], grad_outputs=dy)
    return {"dx": (ds_local + ds).detach(), "dweight": dweight.detach()}
