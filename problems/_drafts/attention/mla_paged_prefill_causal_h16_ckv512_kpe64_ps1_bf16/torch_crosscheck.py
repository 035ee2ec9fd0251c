"""mla_paged_prefill_causal_h16_ckv512_kpe64_ps1_bf16 in float64 PyTorch: the semantics without
rounding points, for the cross-check against the anchor (tests/gpu/cross_check_torch.py). One
sequence at a time, all its queries together against a causal mask built from absolute positions."""
import math

import torch


def reference(inputs, symbols, constants):
    q_nope, q_pe = inputs["q_nope"], inputs["q_pe"]
    qo, kv, indices = inputs["qo_indptr"].tolist(), inputs["kv_indptr"].tolist(), inputs["kv_indices"]
    ckv, kpe = inputs["ckv_cache"][:, 0], inputs["kpe_cache"][:, 0]
    output = torch.zeros(q_nope.shape, dtype=q_nope.dtype, device=q_nope.device)
    lse = torch.full(q_nope.shape[:2], -math.inf, dtype=q_nope.dtype, device=q_nope.device)
    for s in range(len(qo) - 1):
        q_len, kv_len = qo[s + 1] - qo[s], kv[s + 1] - kv[s]
        tokens = indices[kv[s]:kv[s + 1]]
        values, rope = ckv[tokens], kpe[tokens]                                   # [kv_len, 512], [kv_len, 64]
        scores = (torch.einsum("qhd,kd->qhk", q_nope[qo[s]:qo[s + 1]], values)
                  + torch.einsum("qhd,kd->qhk", q_pe[qo[s]:qo[s + 1]], rope)) * constants["sm_scale"]
        position = torch.arange(q_len, device=scores.device) + (kv_len - q_len)     # absolute position of each query
        visible = torch.arange(kv_len, device=scores.device).unsqueeze(0) <= position.unsqueeze(1)   # [q_len, kv_len]
        scores = scores.masked_fill(~visible.unsqueeze(1), -math.inf)
        row_lse = torch.logsumexp(scores, dim=-1)                                 # [q_len, 16]
        output[qo[s]:qo[s + 1]] = torch.einsum("qhk,kd->qhd", torch.exp(scores - row_lse.unsqueeze(-1)), values)
        lse[qo[s]:qo[s + 1]] = row_lse / math.log(2.0)
    return {"output": output, "lse": lse}
