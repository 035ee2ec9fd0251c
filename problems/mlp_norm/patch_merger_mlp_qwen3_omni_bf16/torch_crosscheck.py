import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Float64 semantics of patch_merger_mlp_qwen3_omni_bf16 (original #27, reconstructed; spec notes): LayerNorm
    per patch, the 2x2 spatial merge of each (t, h, w) grid, Linear + erf GELU + Linear, no intermediate rounding."""
    c, m = symbols["hidden_size"], symbols["merge_size"]
    x = inputs["hidden"].to(torch.float64)
    x = F.layer_norm(x, (c,), inputs["ln_weight"].to(torch.float64), inputs["ln_bias"].to(torch.float64),
                     eps=constants["eps"])
    pieces, offset = [], 0
    for t, h, w in inputs["grid_thw"].tolist():
        n = t * h * w
        piece = x[offset:offset + n].reshape(t, h // m, m, w // m, m, c).permute(0, 1, 3, 2, 4, 5)
        pieces.append(piece.reshape(-1, m * m * c))
        offset += n
    merged = torch.cat(pieces)
    hid = F.gelu(F.linear(merged, inputs["fc1_weight"].to(torch.float64), inputs["fc1_bias"].to(torch.float64)))
    return {"output": F.linear(hid, inputs["fc2_weight"].to(torch.float64), inputs["fc2_bias"].to(torch.float64))}
