"""mla_cache_gather_dequantize_fp8 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). src_cache arrives as int64 byte values: they are turned back into
bytes, read as e4m3 and widened to float64; the scale is applied in float64."""
import torch


def reference(inputs, symbols, constants):
    block_size, entry = symbols["block_size"], symbols["entry_size"]
    raw = (inputs["src_cache"] & 0xFF).to(torch.uint8)
    values = raw.view(torch.float8_e4m3fn).to(torch.float64).reshape(-1, entry)  # one row per (block, slot)
    table = inputs["block_table"]
    rows = []
    for r, length in enumerate(inputs["seq_lens"].tolist()):
        p = torch.arange(length, device=raw.device)
        rows.append(table[r][p // block_size] * block_size + p % block_size)
    return {"gathered": values[torch.cat(rows)] * constants["scale"]}
