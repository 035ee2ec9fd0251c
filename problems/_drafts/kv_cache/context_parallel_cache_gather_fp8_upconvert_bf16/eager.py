"""context_parallel_cache_gather_fp8_upconvert_bf16 as the original benchmark times it: its public
reference(), eager PyTorch with its Python loop over requests, an .item() sync per request and a loop
over the 4 scale groups (YIGE24/MetaKernelBench
problems/kv_cache/24_context_parallel_cache_gather_fp8_upconvert_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it.

make_inputs draws as the original does; the only difference is the block table's width: the original's
is the drawn max_r ceil(seq_lens[r] / 64), here it is padded with zero columns to the spec's fixed
max_blocks = 10 (the reference never reads past a request's own blocks)."""
import math

import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    requests, total = symbols["num_requests"], symbols["total_tokens"]
    block_size, blocks, entry_bytes = symbols["block_size"], symbols["num_blocks"], symbols["entry_bytes"]
    nope, groups, rope_dim = symbols["nope_dim"], symbols["num_groups"], symbols["rope_dim"]
    cuts = torch.randperm(total - 1, device=device)[:requests - 1].sort().values + 1
    bounds = torch.cat([cuts.new_zeros(1), cuts, cuts.new_full((1,), total)])
    lengths = bounds.diff().tolist()
    per_request = [math.ceil(length / block_size) for length in lengths]
    block_table = torch.zeros(requests, symbols["max_blocks"], device=device, dtype=torch.int32)
    order = torch.randperm(blocks, device=device).to(torch.int32)
    cursor = 0
    for request, count in enumerate(per_request):
        block_table[request, :count] = order[cursor:cursor + count]
        cursor += count

    cache = torch.zeros(blocks, block_size, entry_bytes, device=device, dtype=torch.uint8)
    rows = cache.view(-1, entry_bytes)
    values = torch.randn(rows.shape[0], nope, device=device, dtype=torch.float32).to(torch.float8_e4m3fn)
    scales = torch.rand(rows.shape[0], groups, device=device, dtype=torch.float32) * 2.0 + 0.1
    rope = torch.randn(rows.shape[0], rope_dim, device=device, dtype=torch.bfloat16)
    rows[:, :nope] = values.view(torch.uint8)
    rows[:, nope:nope + 4 * groups] = scales.view(torch.uint8)
    rows[:, nope + 4 * groups:] = rope.view(torch.uint8)
    seq_lens = torch.tensor(lengths, device=device, dtype=torch.int32)
    return {"cache": cache, "block_table": block_table, "seq_lens": seq_lens}


@torch.no_grad()
def eager(inputs, symbols, constants):
    cache, block_table, seq_lens = inputs["cache"], inputs["block_table"], inputs["seq_lens"]
    block_size, nope, group_size = symbols["block_size"], symbols["nope_dim"], symbols["group_size"]
    groups = symbols["num_groups"]
    scale_end = nope + 4 * groups
    pieces = []
    for request in range(seq_lens.numel()):
        length = int(seq_lens[request].item())
        positions = torch.arange(length, device=cache.device)
        logical = torch.div(positions, block_size, rounding_mode="floor")
        slots = torch.remainder(positions, block_size)
        physical = block_table[request, logical].long()
        entries = cache[physical, slots]
        fp8 = entries[:, :nope].contiguous().view(torch.float8_e4m3fn)
        scales = entries[:, nope:scale_end].contiguous().view(torch.float32)
        parts = []
        for group in range(groups):
            first = group * group_size
            widened = fp8[:, first:first + group_size].float()
            parts.append((widened * scales[:, group:group + 1]).to(torch.bfloat16))
        latent = torch.cat(parts, dim=-1)
        rotary = entries[:, scale_end:].contiguous().view(torch.bfloat16)
        pieces.append(torch.cat((latent, rotary), dim=-1))
    return {"gathered": torch.cat(pieces, dim=0)}
