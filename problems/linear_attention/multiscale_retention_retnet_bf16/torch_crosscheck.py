"""multiscale_retention_retnet_bf16 in float64 PyTorch: the semantics without rounding points, for the
cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def reference(inputs, symbols, constants):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    H, L = symbols["num_heads"], symbols["seq_len"]
    gamma = 1.0 - torch.pow(2.0, -5.0 - torch.arange(H, dtype=q.dtype, device=q.device))   # per-head decay
    idx = torch.arange(L, device=q.device)
    gap = (idx[:, None] - idx[None, :]).to(q.dtype)
    decay = torch.where(gap >= 0, gamma[:, None, None] ** gap.clamp_min(0), torch.zeros((), dtype=q.dtype, device=q.device))
    scores = torch.matmul(q, k.transpose(-1, -2)) * constants["scale"] * decay
    return {"o": torch.matmul(scores, v)}
