"""dsa_topk_indexer_h64_d128_topk2048_ps64_fp8 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The cache arrives as int64 byte values: its bytes are rebuilt and read
as e4m3 values and fp32 scales. Ties in the scores go to the lower position (a stable sort)."""
import torch


def reference(inputs, symbols, constants):
    heads, dim, page_size = symbols["num_index_heads"], symbols["index_head_dim"], symbols["page_size"]
    topk = symbols["topk"]
    q = inputs["q_index_fp8"]                                  # float64 [batch, heads, dim]
    raw = (inputs["k_index_cache_fp8"] & 0xFF).to(torch.uint8)  # [pages, 64, 1, 132]
    pages = raw.shape[0]
    per_page = raw.reshape(pages, -1)
    values = per_page[:, :page_size * dim].contiguous().view(torch.float8_e4m3fn).to(torch.float64)
    values = values.reshape(pages, page_size, dim)
    scales = per_page[:, page_size * dim:].contiguous().view(torch.float32).to(torch.float64)  # [pages, 64]
    keys = values * scales[:, :, None]
    weights, seq_lens, block_table = inputs["weights"], inputs["seq_lens"], inputs["block_table"]
    batch = q.shape[0]
    out = torch.full((batch, topk), -1, dtype=torch.int64, device=q.device)
    for b in range(batch):
        n = int(seq_lens[b])
        table = block_table[b, :(n + page_size - 1) // page_size]
        K = keys[table].reshape(-1, dim)[:n]
        score = (torch.relu(q[b] @ K.T) * weights[b][:, None]).sum(dim=0)
        k = min(topk, n)
        order = torch.sort(score, descending=True, stable=True).indices[:k]
        pos = torch.sort(order).values
        out[b, :k] = table[pos // page_size] * page_size + pos % page_size
    return {"topk_indices": out}
