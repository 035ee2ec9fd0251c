"""mlp_gate_up_projection_qwen3vl_fp8 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): the fp8 codes and scales read exactly, everything exact in float64."""
import torch


def reference(inputs, symbols, constants):
    m, k, n = symbols["m"], symbols["hidden_size"], symbols["intermediate_size"]
    x = (inputs["x"].view(m, k // 128, 128) * inputs["scale_x"][:, :, None]).view(m, k)
    def weight(w, s):   # w [K, N], s [N / 128, K / 128]
        return (w.view(k // 128, 128, n // 128, 128) * s.T[:, None, :, None]).view(k, n)
    gate = x @ weight(inputs["gate_proj_weight"], inputs["scale_gate"])
    up = x @ weight(inputs["up_proj_weight"], inputs["scale_up"])
    return {"output": gate * torch.sigmoid(gate) * up}
