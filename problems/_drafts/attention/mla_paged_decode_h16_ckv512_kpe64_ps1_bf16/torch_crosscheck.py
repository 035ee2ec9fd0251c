"""mla_paged_decode_h16_ckv512_kpe64_ps1_bf16 in float64 PyTorch: the semantics without rounding
points, for the cross-check against the anchor (tests/gpu/cross_check_torch.py). All sequences at once:
the logits of every (sequence, head) against every cached token, masked to the sequence's own."""
import math

import torch


def reference(inputs, symbols, constants):
    q = torch.cat([inputs["q_nope"], inputs["q_pe"]], dim=-1)                 # [B, H, 576]
    indptr, indices = inputs["kv_indptr"], inputs["kv_indices"]
    values = inputs["ckv_cache"][:, 0][indices]                               # [N, 512]
    tokens = torch.cat([values, inputs["kpe_cache"][:, 0][indices]], dim=-1)  # [N, 576]
    n = indices.shape[0]
    owner = torch.searchsorted(indptr, torch.arange(n, device=indptr.device), right=True) - 1   # [N]
    batch = q.shape[0]
    scores = torch.einsum("bhd,nd->bhn", q, tokens) * constants["sm_scale"]  # [B, H, N]
    mine = owner.unsqueeze(0) == torch.arange(batch, device=owner.device).unsqueeze(1)          # [B, N]
    scores = scores.masked_fill(~mine.unsqueeze(1), -math.inf)
    lse = torch.logsumexp(scores, dim=-1)
    weights = torch.exp(scores - lse.unsqueeze(-1))
    weights = torch.nan_to_num(weights, nan=0.0)                              # an empty sequence: no weight
    return {"output": torch.einsum("bhn,nd->bhd", weights, values), "lse": lse / math.log(2.0)}
