import torch


def reference(inputs, symbols, constants):
    """Backward of n = rmsnorm(embedding[ids]) * weight, in float64 with autograd (no rounding)."""
    eps = float(constants["eps"])
    ids = inputs["ids"].to(torch.int64)
    table = inputs["embedding"].to(torch.float64)
    weight = inputs["weight"].to(torch.float64)
    dy = inputs["dy"].to(torch.float64)
    with torch.enable_grad():
        e = table.detach().clone().requires_grad_(True)
        w = weight.detach().clone().requires_grad_(True)
        h = torch.nn.functional.embedding(ids, e)
        n = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        y = w * n
        dembedding, dweight = torch.autograd.grad(y, [e, w], grad_outputs=dy)
    return {"dembedding": dembedding.detach(), "dweight": dweight.detach()}
