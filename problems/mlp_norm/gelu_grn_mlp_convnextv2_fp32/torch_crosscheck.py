import torch


def reference(inputs, symbols, constants):
    """ConvNeXt V2 channels-last MLP in float64: LayerNorm -> Linear -> GELU -> GRN -> Linear."""
    x = inputs["x"].double()                      # [B, H, W, C]
    dim = symbols["dim"]
    xn = torch.nn.functional.layer_norm(x, (dim,), inputs["ln_weight"].double(), inputs["ln_bias"].double(),
                                        eps=constants["ln_eps"])
    h = torch.nn.functional.linear(xn, inputs["w1"].double(), inputs["b1"].double())
    h = torch.nn.functional.gelu(h)
    gx = torch.sqrt((h * h).sum(dim=(1, 2), keepdim=True))          # [B, 1, 1, 4C]
    nx = gx / (gx.mean(dim=-1, keepdim=True) + constants["grn_eps"])
    g = inputs["grn_gamma"].double() * (h * nx) + inputs["grn_beta"].double() + h
    y = torch.nn.functional.linear(g, inputs["w2"].double(), inputs["b2"].double())
    return {"y": y}
