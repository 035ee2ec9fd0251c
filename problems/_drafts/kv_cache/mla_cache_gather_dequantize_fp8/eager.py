"""mla_cache_gather_dequantize_fp8 as the original benchmark times it: its public reference(), eager
PyTorch with its Python loop over requests and an .item() sync per request (YIGE24/MetaKernelBench
problems/kv_cache/23_mla_cache_gather_dequantize_fp8.py at d90ba286). tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    blocks, block_size, entry = symbols["num_blocks"], symbols["block_size"], symbols["entry_size"]
    requests, total = symbols["num_requests"], symbols["total_tokens"]
    scale = constants["scale"]
    source = torch.randn(blocks, block_size, entry, device=device, dtype=torch.float16)
    src_cache = (source / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn).view(torch.uint8)
    block_table = torch.stack([torch.randperm(blocks, device=device) for _ in range(requests)]).to(torch.int32)
    cuts = torch.randperm(total - 1, device=device)[:requests - 1].sort().values + 1
    bounds = torch.cat([cuts.new_zeros(1), cuts, cuts.new_full((1,), total)])
    seq_lens = bounds.diff().to(torch.int32)
    return {"src_cache": src_cache, "block_table": block_table, "seq_lens": seq_lens}


@torch.no_grad()
def eager(inputs, symbols, constants):
    src_cache, block_table, seq_lens = inputs["src_cache"], inputs["block_table"], inputs["seq_lens"]
    scale = constants["scale"]
    block_size = symbols["block_size"]
    as_fp8 = src_cache.view(torch.float8_e4m3fn)
    pieces = []
    for request in range(seq_lens.numel()):
        length = int(seq_lens[request].item())
        positions = torch.arange(length, device=src_cache.device)
        logical = torch.div(positions, block_size, rounding_mode="floor")
        slots = torch.remainder(positions, block_size)
        physical = block_table[request, logical].long()
        pieces.append(as_fp8[physical, slots].float() * scale)
    return {"gathered": torch.cat(pieces, dim=0)}
