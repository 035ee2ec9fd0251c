import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Ling 2.0 MTP input in float64: ids rolled left by one (last position -> id 0), embedding lookup,
    RMSNorm of the embeddings and of the hidden states, concatenation, eh_proj (no bias)."""
    eps = constants["rms_norm_eps"]
    shifted = torch.roll(inputs["input_ids"].to(torch.int64), shifts=-1, dims=-1)
    shifted[:, -1] = 0
    e = F.embedding(shifted, inputs["word_embeddings"].to(torch.float64))
    h = inputs["hidden_states"].to(torch.float64)

    def rms_norm(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w.to(torch.float64)

    c = torch.cat([rms_norm(e, inputs["enorm_weight"]), rms_norm(h, inputs["hnorm_weight"])], dim=-1)
    return {"output": F.linear(c, inputs["eh_proj_weight"].to(torch.float64))}
