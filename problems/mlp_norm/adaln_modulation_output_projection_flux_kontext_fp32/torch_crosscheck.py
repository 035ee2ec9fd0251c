import torch


def reference(inputs, symbols, constants):
    """FLUX.1 Kontext norm_out (AdaLayerNormContinuous, no affine) + proj_out, in float64."""
    dim = symbols["dim"]
    x = inputs["x"].double()                                    # [B, T, dim]
    emb = torch.nn.functional.linear(torch.nn.functional.silu(inputs["temb"].double()),
                                     inputs["norm_weight"].double(), inputs["norm_bias"].double())
    scale, shift = emb[:, :dim], emb[:, dim:]
    xn = torch.nn.functional.layer_norm(x, (dim,), eps=constants["eps"])
    m = xn * (1.0 + scale)[:, None, :] + shift[:, None, :]
    y = torch.nn.functional.linear(m, inputs["proj_weight"].double(), inputs["proj_bias"].double())
    return {"y": y}
