"""gelu_mlp_backward_step1x_fp32 (MetaKernelBench #37) as eager PyTorch at fp32. The original's reference is
masked (YIGE24/MetaKernelBench problems/_sol_execbench/37_gelu_mlp_backward_step1x_fp32.json at d90ba286):
this is the reconstruction spec.json's notes describe. tests/gpu/eager_check.py runs it."""
import math

import torch

GELU_K = math.sqrt(2.0 / math.pi)
GELU_C = 0.044715


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s = symbols["batch_size"], symbols["seq_len"]
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]

    def randn(*shape):
        return torch.randn(shape, device="cuda", dtype=torch.float32)

    grad_output = randn(b, s, hid)
    hidden_states = randn(b, s, hid)
    fc1_weight = randn(inter, hid) / math.sqrt(hid)
    fc2_weight = randn(hid, inter) / math.sqrt(inter)
    fc1_output = randn(b, s, inter)
    gelu_output = randn(b, s, inter)
    return {"grad_output": grad_output, "hidden_states": hidden_states, "fc1_weight": fc1_weight,
            "fc2_weight": fc2_weight, "fc1_output": fc1_output, "gelu_output": gelu_output}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]
    grad_output = inputs["grad_output"]
    dy = grad_output.reshape(-1, hid)
    x = inputs["hidden_states"].reshape(-1, hid)
    pre = inputs["fc1_output"].reshape(-1, inter)
    act = inputs["gelu_output"].reshape(-1, inter)

    # fc2: y = act @ W2^T + b2
    grad_fc2_weight = dy.t() @ act
    grad_fc2_bias = dy.sum(dim=0)
    grad_act = dy @ inputs["fc2_weight"]

    # tanh-GELU derivative, op by op in fp32
    pre_sq = pre * pre
    inner = GELU_K * (pre + GELU_C * pre_sq * pre)
    t = torch.tanh(inner)
    sech_sq = 1.0 - t * t
    d_inner = GELU_K * (1.0 + 3.0 * GELU_C * pre_sq)
    gelu_grad = 0.5 * (1.0 + t) + 0.5 * pre * sech_sq * d_inner
    grad_pre = grad_act * gelu_grad

    # fc1: pre = x @ W1^T + b1
    grad_fc1_weight = grad_pre.t() @ x
    grad_fc1_bias = grad_pre.sum(dim=0)
    grad_hidden_states = (grad_pre @ inputs["fc1_weight"]).reshape(grad_output.shape)
    return {"grad_hidden_states": grad_hidden_states, "grad_fc1_weight": grad_fc1_weight,
            "grad_fc1_bias": grad_fc1_bias, "grad_fc2_weight": grad_fc2_weight, "grad_fc2_bias": grad_fc2_bias}
