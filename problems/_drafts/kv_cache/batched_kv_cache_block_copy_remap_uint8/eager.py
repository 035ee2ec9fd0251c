"""batched_kv_cache_block_copy_remap_uint8 as the original benchmark times it: its public reference(),
eager PyTorch (YIGE24/MetaKernelBench problems/kv_cache/25_batched_kv_cache_block_copy_remap_uint8.py at
d90ba286): two advanced-indexing gathers and two index_put_ writes, dst_k and dst_v updated in place.
tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    blocks, mappings = symbols["num_blocks"], symbols["num_mappings"]
    shape = (blocks, symbols["block_size"], symbols["num_heads"], symbols["head_dim"])
    src_k = torch.randint(0, 256, shape, device=device, dtype=torch.uint8)
    src_v = torch.randint(0, 256, shape, device=device, dtype=torch.uint8)
    dst_k = torch.randint(0, 256, shape, device=device, dtype=torch.uint8)
    dst_v = torch.randint(0, 256, shape, device=device, dtype=torch.uint8)
    order = torch.randperm(blocks, device=device)
    block_mapping = torch.stack((order[:mappings], order[mappings:2 * mappings]), dim=1)  # int64
    return {"src_k": src_k, "src_v": src_v, "dst_k": dst_k, "dst_v": dst_v, "block_mapping": block_mapping}


@torch.no_grad()
def eager(inputs, symbols, constants):
    src_k, src_v = inputs["src_k"], inputs["src_v"]
    dst_k, dst_v = inputs["dst_k"], inputs["dst_v"]
    mapping = inputs["block_mapping"]
    sources = mapping[:, 0].long()
    destinations = mapping[:, 1].long()
    dst_k[destinations] = src_k[sources]
    dst_v[destinations] = src_v[sources]
    return {"dst_k_out": dst_k, "dst_v_out": dst_v}
