"""hybrid_kv_group_block_table_update_slot_mapping_int32_int64 in PyTorch, for the cross-check against
the anchor (tests/gpu/cross_check_torch.py): integer inputs arrive as int64 (overwrite as 0/1). The
staged writes are replayed on Python lists, then every token is mapped through its batch entry."""
import torch


def reference(inputs, symbols, constants):
    groups = symbols["num_kv_groups"]
    blocks = [symbols[f"block_sizes_{g}"] for g in range(groups)]
    kernel = [symbols[f"kernel_block_sizes_{g}"] for g in range(groups)]
    tables = [inputs[f"block_table_{g}"].tolist() for g in range(groups)]
    counts = inputs["num_blocks"].tolist()
    requests = inputs["write_requests"].tolist()
    overwrite = [bool(v) for v in inputs["overwrite"].tolist()]
    ids, staged = inputs["staged_ids"].tolist(), inputs["staged_counts"].tolist()
    for g in range(groups):
        factor = blocks[g] // kernel[g]
        for w, r in enumerate(requests):
            new = [b * factor + k for b in ids[g][w][:staged[g][w]] for k in range(factor)]
            start = 0 if overwrite[w] else counts[g][r]
            tables[g][r][start:start + len(new)] = new
            counts[g][r] = start + len(new)

    bounds, mapping = inputs["query_start_loc"].tolist(), inputs["idx_mapping"].tolist()
    positions = inputs["positions"].tolist()
    slots = [[int(constants["pad_slot_id"])] * len(positions) for _ in range(groups)]
    for i, r in enumerate(mapping):
        for t in range(bounds[i], bounds[i + 1]):
            for g in range(groups):
                slots[g][t] = tables[g][r][positions[t] // kernel[g]] * kernel[g] + positions[t] % kernel[g]

    device = inputs["positions"].device
    out = {f"block_table_{g}_out": torch.tensor(tables[g], dtype=torch.int64, device=device) for g in range(groups)}
    out["num_blocks_out"] = torch.tensor(counts, dtype=torch.int64, device=device)
    out["slot_mappings"] = torch.tensor(slots, dtype=torch.int64, device=device)
    return out
