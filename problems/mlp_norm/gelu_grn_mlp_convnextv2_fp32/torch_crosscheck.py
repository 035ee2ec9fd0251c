import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Original #30 (ConvNeXt V2 MLP with GRN, reconstructed) in float64: Linear -> GELU -> GRN -> Linear."""
    d = {k: v.double() for k, v in inputs.items()}
    h = F.gelu(F.linear(d["x"], d["w1"], d["b1"]))                    # [B, H, W, 4C]
    gx = torch.sqrt((h * h).sum(dim=(1, 2), keepdim=True))            # [B, 1, 1, 4C]
    nx = gx / (gx.mean(dim=-1, keepdim=True) + constants["eps"])
    g = d["gamma"] * (h * nx) + d["beta"] + h
    return {"y": F.linear(g, d["w2"], d["b2"])}
