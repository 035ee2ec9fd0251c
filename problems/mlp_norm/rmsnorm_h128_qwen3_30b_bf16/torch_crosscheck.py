"""rmsnorm_h128_qwen3_30b_bf16 in float64 PyTorch: the semantics without rounding points, for the
cross-check against the anchor (tests/gpu/cross_check_torch.py)."""
import torch


def reference(inputs, symbols, constants):
    x = inputs["hidden_states"]
    inv_rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + constants["eps"])
    return {"y": x * inv_rms * inputs["weight"]}
