"""dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64_bf16 in float64 PyTorch: the semantics without
rounding points, for the cross-check against the anchor (tests/gpu/cross_check_torch.py). Written per
query token over its valid slots only (the reference gathers all 2048 and masks)."""
import math

import torch


def reference(inputs, symbols, constants):
    q_nope, q_pe, idx = inputs["q_nope"], inputs["q_pe"], inputs["sparse_indices"]
    ckv = inputs["ckv_cache"].reshape(-1, q_nope.shape[-1])
    kpe = inputs["kpe_cache"].reshape(-1, q_pe.shape[-1])
    outputs, lses = [], []
    for q in range(q_nope.shape[0]):
        tokens = idx[q][idx[q] != -1]
        values = ckv[tokens]                                                  # [n, 512]
        s = (q_nope[q] @ values.T + q_pe[q] @ kpe[tokens].T) * constants["sm_scale"]   # [16, n]
        lse = torch.logsumexp(s, dim=-1)
        outputs.append(torch.exp(s - lse.unsqueeze(-1)) @ values)
        lses.append(lse / math.log(2.0))
    return {"output": torch.stack(outputs), "lse": torch.stack(lses)}
