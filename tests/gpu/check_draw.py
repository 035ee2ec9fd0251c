"""Checks a draw written by `mkb draw` for topk_softmax_routing_mixtral_8x7b_bf16 against its index
and the problem's semantics, recomputed here with numpy from the written inputs."""
import json
import sys

import numpy as np

folder = sys.argv[1]
index = json.load(open(f"{folder}/index.json"))
arrays = {}
for t in index["tensors"]:
    dtype = {"bf16": np.uint16, "int32": np.int32, "fp64": np.float64}[t["dtype"]]
    data = np.fromfile(f"{folder}/{t['file']}", dtype=dtype).reshape(t["shape"])
    arrays[(t["role"], t["name"])] = data
    print(f"{t['role']:7s} {t['name']:15s} {t['dtype']:6s} {t['shape']}")
logits = (arrays[("input", "logits")].astype(np.uint32) << 16).view(np.float32).astype(np.float64)
ids = arrays[("anchor", "expert_ids")]
weights = arrays[("anchor", "expert_weights")]
order = np.argsort(-logits, axis=1, kind="stable")[:, :2]  # stable: ties keep the lower index first
assert (order == ids).all(), "anchor ids differ from numpy's stable top-2"
chosen = np.take_along_axis(logits, ids, axis=1)
expected = np.exp(chosen - chosen[:, :1]) / np.exp(chosen - chosen[:, :1]).sum(axis=1, keepdims=True)
error = np.abs(expected - weights).max()
assert error < 1e-12, error
ties = (logits[:, None, :] == chosen[:, :, None]).sum(axis=2).max(axis=1) > 1
print(f"draw of seed {index['seed']}: ids and weights agree with numpy (max weight error {error:.2e}); "
      f"{ties.mean():.1%} of tokens have a tie among their chosen logits")
