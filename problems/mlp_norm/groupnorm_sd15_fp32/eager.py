"""groupnorm_sd15_fp32 as the original benchmark times it: eager PyTorch at the inputs' own dtype, our
reconstruction of its masked reference (YIGE24/MetaKernelBench problems/_sol_execbench/
31_groupnorm_sd15_fp32.json at d90ba286; the spec's notes list the choices). tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    n, c = symbols["batch_size"], symbols["num_channels"]
    x = torch.randn(n, c, symbols["height"], symbols["width"], device="cuda", dtype=torch.float32)
    weight = 1 + 0.1 * torch.randn(c, device="cuda", dtype=torch.float32)
    bias = 0.1 * torch.randn(c, device="cuda", dtype=torch.float32)
    return {"x": x, "weight": weight, "bias": bias}


@torch.no_grad()
def eager(inputs, symbols, constants):
    x = inputs["x"]
    n, c, h, w = x.shape
    g = symbols["num_groups"]
    compute_dtype = torch.promote_types(x.dtype, torch.float32)
    xg = x.view(n, g, c // g, h, w).to(compute_dtype)
    mean = xg.mean(dim=(2, 3, 4), keepdim=True)
    var = xg.var(dim=(2, 3, 4), unbiased=False, keepdim=True)
    xn = ((xg - mean) / torch.sqrt(var + constants["eps"])).view(n, c, h, w)
    y = xn * inputs["weight"].view(1, c, 1, 1) + inputs["bias"].view(1, c, 1, 1)
    return {"y": y.to(x.dtype)}
