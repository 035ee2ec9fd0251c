"""context_parallel_cache_gather_fp8_upconvert_bf16 in float64 PyTorch, for the cross-check against the
anchor (tests/gpu/cross_check_torch.py). The cache arrives as int64 byte values: the bytes are rebuilt,
each entry split into its e4m3 values, fp32 scales and bf16 rope values, and the dequantization is done
in float64 (no rounding)."""
import torch


def reference(inputs, symbols, constants):
    nope, groups, group_size = symbols["nope_dim"], symbols["num_groups"], symbols["group_size"]
    block_size, entry_bytes = symbols["block_size"], symbols["entry_bytes"]
    raw = (inputs["cache"] & 0xFF).to(torch.uint8).reshape(-1, entry_bytes)  # one row per (block, slot)
    values = raw[:, :nope].contiguous().view(torch.float8_e4m3fn).to(torch.float64)
    scales = raw[:, nope:nope + 4 * groups].contiguous().view(torch.float32).to(torch.float64)
    rope = raw[:, nope + 4 * groups:].contiguous().view(torch.bfloat16).to(torch.float64)
    latent = (values.reshape(-1, groups, group_size) * scales[:, :, None]).reshape(-1, nope)
    table = inputs["block_table"]
    rows = []
    for r, length in enumerate(inputs["seq_lens"].tolist()):
        p = torch.arange(length, device=raw.device)
        rows.append(table[r][p // block_size] * block_size + p % block_size)
    rows = torch.cat(rows)
    return {"gathered": torch.cat((latent[rows], rope[rows]), dim=-1)}
