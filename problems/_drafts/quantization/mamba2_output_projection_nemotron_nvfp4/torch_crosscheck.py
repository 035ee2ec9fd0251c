"""mamba2_output_projection_nemotron_nvfp4 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): both NVFP4 operands decoded exactly, one float64 product. Packed codes
arrive as int64 byte values, the e4m3 scales and global scales as their exact float64 values."""
import torch

_E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)


def _decode(packed, scales, global_decode):
    table = torch.tensor(_E2M1, dtype=torch.float64, device=packed.device)
    low, high = table[packed & 15], table[packed >> 4]
    values = torch.stack((low, high), dim=-1).flatten(-2)  # element 2j is the low nibble of byte j
    return values * torch.repeat_interleave(scales, 16, dim=-1) * global_decode


def reference(inputs, symbols, constants):
    a = _decode(inputs["hidden_states"], inputs["hidden_states_scale"], inputs["global_decode_scale_input"])
    b = _decode(inputs["weight"], inputs["weight_scale"], inputs["global_decode_scale_weight"])
    return {"out": torch.matmul(a, b.transpose(-1, -2))}
