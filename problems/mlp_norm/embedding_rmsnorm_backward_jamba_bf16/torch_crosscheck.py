import torch


def reference(inputs, symbols, constants):
    """Embedding + RMSNorm backward from saved fp32 hidden states and rstd, in float64 (no rounding)."""
    dy = inputs["grad_output"].to(torch.float64)
    ids = inputs["input_ids"].to(torch.int64)
    n = inputs["hidden_states_fp32"].to(torch.float64) * inputs["rstd"].to(torch.float64)
    rstd = inputs["rstd"].to(torch.float64)
    g = dy * inputs["norm_weight"].to(torch.float64)
    grad_hidden = rstd * (g - n * (g * n).mean(dim=-1, keepdim=True))
    hidden = symbols["hidden_size"]
    table = torch.zeros((symbols["vocab_size"], hidden), dtype=torch.float64, device=dy.device)
    table.index_add_(0, ids.reshape(-1), grad_hidden.reshape(-1, hidden))
    return {"grad_embedding": table, "grad_weight": (dy * n).sum(dim=(0, 1))}
