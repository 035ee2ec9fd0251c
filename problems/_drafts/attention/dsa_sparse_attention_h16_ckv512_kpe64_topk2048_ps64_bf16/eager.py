"""dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64_bf16 as the original benchmark times it: its
public reference(), eager PyTorch (YIGE24/MetaKernelBench problems/attention/
17_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64_bf16.py at d90ba286), with its make_inputs
and the index draw. tests/gpu/eager_check.py runs it."""
import math

import torch

SELECT_LENS = (18, 11, 2048, 20, 25, 45, 135, 7, 8, 10, 22, 17, 11, 30, 130, 9, 600, 255, 1033, 1010, 58, 2, 21, 954,
               7, 14, 1015, 28, 64, 5, 18, 33, 26, 86, 5, 14, 10, 90, 53, 22, 2, 17, 154, 51, 121, 25, 16, 5, 19, 12,
               44, 124, 33, 1157, 9, 5, 1319, 300, 23, 35, 389, 8)
LONG_ROW_RUNS = ((0, 53), (54, 10), (65, 25), (91, 11), (103, 42), (146, 12), (159, 65), (225, 7), (233, 3),
                 (237, 40), (278, 1), (280, 12), (293, 13), (307, 8), (316, 1), (318, 5), (324, 4), (329, 3),
                 (333, 3), (337, 21), (359, 14), (374, 1), (377, 1), (379, 24), (404, 110), (515, 13), (529, 20),
                 (550, 6), (557, 41), (599, 16), (616, 14), (631, 15), (647, 10), (658, 6), (665, 24), (691, 11),
                 (703, 15), (719, 10), (730, 21), (752, 21), (774, 26), (801, 28), (830, 7), (838, 11), (850, 1),
                 (852, 12), (865, 18), (884, 5), (890, 1), (892, 1), (894, 9), (904, 11), (916, 10), (927, 12),
                 (940, 4), (946, 23), (970, 7), (978, 6), (985, 29), (1015, 5), (1021, 22), (1045, 13), (1059, 37),
                 (1097, 10), (1108, 42), (1151, 1), (1153, 30), (1184, 2), (1187, 31), (1219, 33), (1253, 8),
                 (1262, 102), (1366, 54), (1421, 98), (1520, 19), (1540, 23), (1564, 7), (1572, 31), (1604, 35),
                 (1640, 21), (1662, 4), (1668, 10), (1681, 4), (1688, 15), (1706, 4), (1711, 13), (1725, 3),
                 (1729, 1), (1731, 3), (1736, 12), (1749, 47), (1798, 70), (1869, 108), (1978, 2), (1981, 9),
                 (1992, 6), (1999, 31), (2031, 24), (2056, 105))


def _draw_sparse_indices(device, symbols):
    tokens_n, topk, page, pages_n = symbols["num_tokens"], symbols["topk"], symbols["page_size"], symbols["num_pages"]
    long_row, long_ctx = symbols["long_row"], symbols["long_row_context"]
    context_lens = [long_ctx if b == long_row else SELECT_LENS[b] for b in range(tokens_n)]
    pages_per_row = [(length + page - 1) // page for length in context_lens]
    perm = torch.randperm(pages_n, device=device)[:sum(pages_per_row)]
    sparse_indices = torch.full((tokens_n, topk), -1, dtype=torch.int32, device=device)
    cursor = 0
    for b in range(tokens_n):
        pages = perm[cursor:cursor + pages_per_row[b]]
        cursor += pages_per_row[b]
        if b == long_row:
            logical = torch.cat([torch.arange(start, start + length, device=device) for start, length in LONG_ROW_RUNS])
        else:
            logical = torch.arange(SELECT_LENS[b], device=device)
        tokens = pages[logical // page] * page + logical % page
        sparse_indices[b, :tokens.numel()] = tokens.sort().values.to(torch.int32)
    return sparse_indices


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    n, heads = symbols["num_tokens"], symbols["num_qo_heads"]
    ckv, kpe, pages, page = symbols["head_dim_ckv"], symbols["head_dim_kpe"], symbols["num_pages"], symbols["page_size"]
    q_nope = torch.randn(n, heads, ckv, device=device, dtype=torch.bfloat16)
    q_pe = torch.randn(n, heads, kpe, device=device, dtype=torch.bfloat16)
    ckv_cache = torch.randn(pages, page, ckv, device=device, dtype=torch.bfloat16)
    kpe_cache = torch.randn(pages, page, kpe, device=device, dtype=torch.bfloat16)
    sparse_indices = _draw_sparse_indices(device, symbols)
    return {"q_nope": q_nope, "q_pe": q_pe, "ckv_cache": ckv_cache, "kpe_cache": kpe_cache,
            "sparse_indices": sparse_indices}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q_nope, q_pe = inputs["q_nope"], inputs["q_pe"]
    ckv_cache, kpe_cache, sparse_indices = inputs["ckv_cache"], inputs["kpe_cache"], inputs["sparse_indices"]
    sm_scale = constants["sm_scale"]
    head_dim_ckv, head_dim_kpe = q_nope.shape[-1], q_pe.shape[-1]
    compute_dtype = torch.promote_types(q_nope.dtype, torch.float32)

    Kc_all = ckv_cache.reshape(-1, head_dim_ckv)
    Kp_all = kpe_cache.reshape(-1, head_dim_kpe)
    invalid_mask = sparse_indices == -1
    safe_indices = sparse_indices.clone()
    safe_indices[invalid_mask] = 0
    Kc = Kc_all[safe_indices.long()].to(compute_dtype)
    Kp = Kp_all[safe_indices.long()].to(compute_dtype)
    qn = q_nope.to(compute_dtype)
    qp = q_pe.to(compute_dtype)
    logits = qn @ Kc.transpose(-1, -2) + qp @ Kp.transpose(-1, -2)
    logits_scaled = logits * sm_scale
    logits_scaled.masked_fill_(invalid_mask.unsqueeze(1), -float("inf"))
    lse = torch.logsumexp(logits_scaled, dim=-1) / math.log(2.0)
    attn = torch.softmax(logits_scaled, dim=-1)
    output = (attn @ Kc).to(q_nope.dtype)
    return {"output": output, "lse": lse}
