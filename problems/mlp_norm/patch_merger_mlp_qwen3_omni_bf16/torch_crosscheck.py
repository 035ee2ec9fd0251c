import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Qwen3-Omni vision patch merger in float64: LayerNorm per patch, view as groups of 4 patches,
    Linear + GELU (erf) + Linear, with no intermediate rounding."""
    hidden = symbols["hidden"]
    merged_hidden = symbols["merged_hidden"]
    x = inputs["x"].to(torch.float64)
    n = F.layer_norm(x, (hidden,), inputs["ln_weight"].to(torch.float64), inputs["ln_bias"].to(torch.float64),
                     eps=constants["eps"])
    a = n.reshape(-1, merged_hidden)
    h = F.linear(a, inputs["fc1_weight"].to(torch.float64), inputs["fc1_bias"].to(torch.float64))
    g = F.gelu(h)
    out = F.linear(g, inputs["fc2_weight"].to(torch.float64), inputs["fc2_bias"].to(torch.float64))
    return {"out": out}
