"""hybrid_kv_group_block_table_update_slot_mapping_int32_int64 as the original benchmark times it: its
public reference(), eager PyTorch whose time is Python-level work: loops over the 3 KV groups and 128
staged writes and over the 64 batch entries, with .item() host syncs for every request id, count,
overwrite flag, block count and query boundary (YIGE24/MetaKernelBench
problems/kv_cache/26_hybrid_kv_group_block_table_update_slot_mapping_int32_int64.py at d90ba286).
The tables and num_blocks are updated in place and returned. tests/gpu/eager_check.py runs it."""
import torch


def _sizes(symbols, name):
    return tuple(symbols[f"{name}_{g}"] for g in range(symbols["num_kv_groups"]))


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    reqs, tokens = symbols["max_num_reqs"], symbols["max_num_batched_tokens"]
    writes, capacity, groups = symbols["num_staged_writes"], symbols["stage_capacity"], symbols["num_kv_groups"]
    tables = [torch.randint(0, 2048, (reqs, width), device=device, dtype=torch.int32)
              for width in _sizes(symbols, "max_blocks")]
    num_blocks = torch.zeros((groups, reqs), device=device, dtype=torch.int32)
    write_requests = torch.cat([torch.randperm(reqs, device=device),
                                torch.randperm(reqs, device=device)]).to(torch.int32)
    overwrite = torch.randint(0, 2, (writes,), device=device, dtype=torch.bool)
    staged_counts = torch.randint(0, capacity + 1, (groups, writes), device=device, dtype=torch.int32)
    staged_ids = torch.full((groups, writes, capacity), -1, device=device, dtype=torch.int32)
    candidates = torch.randint(0, 2048, staged_ids.shape, device=device, dtype=torch.int32)
    filled = torch.arange(capacity, device=device)[None, None, :] < staged_counts[:, :, None]
    staged_ids[filled] = candidates[filled]
    idx_mapping = torch.randperm(reqs, device=device).to(torch.int32)
    lengths = torch.randint(0, symbols["max_request_tokens"] + 1, (reqs,), device=device)
    boundaries = lengths.cumsum(0).clamp_(max=tokens)
    query_start_loc = torch.cat([boundaries.new_zeros(1), boundaries]).to(torch.int32)
    positions = torch.randint(0, symbols["max_position"], (tokens,), device=device, dtype=torch.int64)
    return {"block_table_0": tables[0], "block_table_1": tables[1], "block_table_2": tables[2],
            "num_blocks": num_blocks, "write_requests": write_requests, "overwrite": overwrite,
            "staged_ids": staged_ids, "staged_counts": staged_counts, "idx_mapping": idx_mapping,
            "query_start_loc": query_start_loc, "positions": positions}


def _apply_group_writes(table, counts, group, expansion, write_requests, overwrite, staged_ids, staged_counts):
    for write in range(write_requests.numel()):
        request = int(write_requests[write].item())
        count = int(staged_counts[group, write].item())
        start = 0 if bool(overwrite[write].item()) else int(counts[group, request].item())
        raw_ids = staged_ids[group, write, :count].long()
        if expansion > 1:
            offsets = torch.arange(expansion, device=table.device)
            block_ids = (raw_ids[:, None] * expansion + offsets[None, :]).reshape(-1)
        else:
            block_ids = raw_ids
        table[request, start:start + block_ids.numel()] = block_ids.to(table.dtype)
        counts[group, request] = start + block_ids.numel()


@torch.no_grad()
def eager(inputs, symbols, constants):
    tables = [inputs["block_table_0"], inputs["block_table_1"], inputs["block_table_2"]]
    counts = inputs["num_blocks"]
    write_requests, overwrite = inputs["write_requests"], inputs["overwrite"]
    staged_ids, staged_counts = inputs["staged_ids"], inputs["staged_counts"]
    idx_mapping, query_start_loc, positions = inputs["idx_mapping"], inputs["query_start_loc"], inputs["positions"]
    block_sizes, kernel_block_sizes = _sizes(symbols, "block_sizes"), _sizes(symbols, "kernel_block_sizes")
    for group, table in enumerate(tables):
        _apply_group_writes(table, counts, group, block_sizes[group] // kernel_block_sizes[group],
                            write_requests, overwrite, staged_ids, staged_counts)

    slot_mappings = torch.full((len(tables), symbols["max_num_batched_tokens"]), int(constants["pad_slot_id"]),
                               device=positions.device, dtype=torch.int64)
    for batch_idx in range(idx_mapping.numel()):
        request = int(idx_mapping[batch_idx].item())
        start = int(query_start_loc[batch_idx].item())
        end = int(query_start_loc[batch_idx + 1].item())
        request_positions = positions[start:end].long()
        for group, table in enumerate(tables):
            block_size = kernel_block_sizes[group]
            logical_blocks = torch.div(request_positions, block_size, rounding_mode="floor")
            offsets = torch.remainder(request_positions, block_size)
            physical_blocks = table[request, logical_blocks].long()
            slot_mappings[group, start:end] = physical_blocks * block_size + offsets
    return {"block_table_0_out": tables[0], "block_table_1_out": tables[1], "block_table_2_out": tables[2],
            "num_blocks_out": counts, "slot_mappings": slot_mappings}
