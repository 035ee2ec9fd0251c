"""mamba2_intra_chunk_diagonal_nemotron_nano_bf16 in float64 PyTorch, for the cross-check against the
anchor (tests/gpu/cross_check_torch.py): the segment sums as differences of one prefix sum, C B^T per
group as one einsum, then the decay-masked product with X per head."""
import torch


def reference(inputs, symbols, constants):
    x, a = inputs["hidden_states"], inputs["a_cumsum"]          # x [b, c, l, h, p], a [b, h, c, l]
    B, C = inputs["B"], inputs["C"]                             # [b, c, l, g, n]
    length = symbols["chunk_size"]
    repeat = symbols["num_heads"] // symbols["n_groups"]
    prefix = torch.cumsum(a, dim=-1)
    seg = prefix[..., :, None] - prefix[..., None, :]           # sum of a over (s, l]
    causal = torch.ones(length, length, dtype=torch.bool, device=a.device).tril()
    decay = torch.where(causal, torch.exp(seg), torch.zeros_like(seg))   # [b, h, c, l, s]
    scores = torch.einsum("bclgn,bcsgn->bcgls", C, B)
    scores = scores.repeat_interleave(repeat, dim=2)            # [b, c, h, l, s]
    weights = scores * decay.permute(0, 2, 1, 3, 4)
    return {"y_diag": torch.einsum("bchls,bcshp->bclhp", weights, x)}
