"""dsa_topk_indexer_h64_d128_topk2048_ps64_fp8 as the original benchmark times it: its public reference(),
eager PyTorch with its per-sequence Python loop and .item() syncs (YIGE24/MetaKernelBench
problems/attention/18_dsa_topk_indexer_h64_d128_topk2048_ps64_fp8.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import torch

SEQ_LENS = (63, 9, 2693, 212, 11, 25, 6, 50, 77, 22, 25, 10, 52, 76, 11, 30, 1822, 25, 1034, 1811, 7, 13, 23,
            1896, 13, 285, 18, 166, 16, 1421, 12)
TOPK = 2048


def _dequantize(cache):
    # [pages, 64, 1, 132] int8 -> [pages, 64, 128] fp32: per page 64*128 e4m3 bytes, then 64 fp32 scales.
    raw = cache.view(torch.uint8)
    pages, page_size, _, row = raw.shape
    dim = row - 4
    flat = raw.view(pages, page_size * row)
    values = flat[:, :page_size * dim].contiguous().view(pages, page_size, dim).view(torch.float8_e4m3fn)
    scales = flat[:, page_size * dim:].contiguous().view(pages, page_size, 4).view(torch.float32)
    return values.to(torch.float32) * scales


def _scores(q_b, K, w_b):
    return (torch.relu(q_b @ K.T) * w_b[:, None]).sum(dim=0)


def _pages_of(block_table, b, seq_len, page_size):
    return block_table[b, :(seq_len + page_size - 1) // page_size].to(torch.long)


def _near_tie(q, cache, weights, seq_lens, block_table, symbols, constants):
    qf = q.to(torch.float32)
    K_all = _dequantize(cache)
    page_size, dim = symbols["page_size"], symbols["index_head_dim"]
    for b in range(seq_lens.numel()):
        seq_len = int(seq_lens[b].item())
        if seq_len <= TOPK:
            continue
        K = K_all[_pages_of(block_table, b, seq_len, page_size)].reshape(-1, dim)[:seq_len]
        top = torch.topk(_scores(qf[b], K, weights[b]), TOPK + 1).values
        if top[TOPK - 1] - top[TOPK] < constants["decision_margin"]:
            return True
    return False


def _cache(pages, page_size, dim, device):
    values = torch.randn(pages, page_size, dim, device=device, dtype=torch.float32).to(torch.float8_e4m3fn)
    scales = torch.rand(pages, page_size, device=device, dtype=torch.float32) * 0.5 + 0.5
    packed = torch.empty(pages, page_size * (dim + 4), dtype=torch.uint8, device=device)
    packed[:, :page_size * dim] = values.reshape(pages, -1).view(torch.uint8)
    packed[:, page_size * dim:] = scales.view(torch.uint8)
    return packed.view(torch.int8).reshape(pages, page_size, 1, dim + 4)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    heads, dim, page_size = symbols["num_index_heads"], symbols["index_head_dim"], symbols["page_size"]
    num_pages, width = symbols["num_pages"], symbols["max_num_pages"]
    batch = len(SEQ_LENS)
    seq_lens = torch.tensor(SEQ_LENS, device=device, dtype=torch.int32)
    # randperm(NUM_PAGES - 1) + 1, handed out page by page in sequence order; later slots stay 0.
    perm = torch.randperm(num_pages - 1, device=device) + 1
    block_table = torch.zeros((batch, width), device=device, dtype=torch.int32)
    cursor = 0
    for b, seq_len in enumerate(SEQ_LENS):
        n = (seq_len + page_size - 1) // page_size
        block_table[b, :n] = perm[cursor:cursor + n].to(torch.int32)
        cursor += n
    for _ in range(symbols["redraw_limit"]):
        q = torch.randn(batch, heads, dim, device=device, dtype=torch.float32).to(torch.float8_e4m3fn)
        cache = _cache(num_pages, page_size, dim, device)
        weights = torch.randn([batch, heads], device=device, dtype=torch.float32)
        if not _near_tie(q, cache, weights, seq_lens, block_table, symbols, constants):
            return {"q_index_fp8": q, "k_index_cache_fp8": cache, "weights": weights, "seq_lens": seq_lens,
                    "block_table": block_table}
    raise ValueError("the top-k boundary stays within decision_margin after redraw_limit draws")


@torch.no_grad()
def eager(inputs, symbols, constants):
    q_index_fp8, cache = inputs["q_index_fp8"], inputs["k_index_cache_fp8"]
    weights, seq_lens, block_table = inputs["weights"], inputs["seq_lens"], inputs["block_table"]
    batch, _, dim = q_index_fp8.shape
    page_size = cache.shape[1]
    q = q_index_fp8.to(torch.float32)
    K_all = _dequantize(cache)
    out = torch.full((batch, TOPK), -1, dtype=torch.int32, device=q.device)
    for b in range(batch):
        seq_len = int(seq_lens[b].item())
        page_indices = _pages_of(block_table, b, seq_len, page_size)
        K = K_all[page_indices].reshape(-1, dim)[:seq_len]
        final_scores = _scores(q[b], K, weights[b])
        k = min(TOPK, seq_len)
        _, idx = torch.topk(final_scores, k)
        idx = idx.sort().values
        tokens = page_indices[idx // page_size] * page_size + idx % page_size
        out[b, :k] = tokens.to(torch.int32)
    return {"topk_indices": out}
