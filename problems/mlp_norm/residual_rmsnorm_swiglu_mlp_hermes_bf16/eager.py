"""residual_rmsnorm_swiglu_mlp_hermes_bf16 as the original benchmark times it, reconstructed (the original's
reference body is masked: YIGE24/MetaKernelBench problems/_sol_execbench/
33_residual_rmsnorm_swiglu_mlp_hermes_bf16.json at d90ba286; spec notes list the choices): eager PyTorch at
the inputs' own dtypes. tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s = symbols["batch_size"], symbols["seq_len"]
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]
    bf16 = torch.bfloat16

    def randn(*shape):
        return torch.randn(shape, device="cuda", dtype=bf16)

    hidden_states = randn(b, s, hid)
    residual = randn(b, s, hid)
    norm_weight = randn(hid) * 0.1 + 1.0  # arithmetic in bf16, as the original draws it
    gate_weight = randn(inter, hid) / math.sqrt(hid)
    up_weight = randn(inter, hid) / math.sqrt(hid)
    down_weight = randn(hid, inter) / math.sqrt(inter)
    return {"hidden_states": hidden_states, "residual": residual, "norm_weight": norm_weight,
            "gate_weight": gate_weight, "up_weight": up_weight, "down_weight": down_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    summed = inputs["hidden_states"] + inputs["residual"]  # bf16 add, before any upcast
    input_dtype = summed.dtype
    x = summed.to(torch.promote_types(input_dtype, torch.float32))
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + constants["eps"])
    normed = inputs["norm_weight"] * x.to(input_dtype)
    gate = F.linear(normed, inputs["gate_weight"])
    up = F.linear(normed, inputs["up_weight"])
    return {"output": F.linear(F.silu(gate) * up, inputs["down_weight"])}
