"""batched_kv_cache_block_copy_remap_uint8 in PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): integer inputs arrive as int64. A block-by-block loop over the
mapping rows, on copies of the destination caches."""
import torch


def reference(inputs, symbols, constants):
    out_k = inputs["dst_k"].clone()
    out_v = inputs["dst_v"].clone()
    for source, destination in inputs["block_mapping"].tolist():
        out_k[destination] = inputs["src_k"][source]
        out_v[destination] = inputs["src_v"][source]
    return {"dst_k_out": out_k, "dst_v_out": out_v}
