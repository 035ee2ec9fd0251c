"""residual_layernorm_gelu_ffn_backward_kokoro_fp32 (MetaKernelBench #35) as eager PyTorch at fp32. The
original's reference and most of its make_inputs are masked (YIGE24/MetaKernelBench
problems/_sol_execbench/35_residual_layernorm_gelu_ffn_backward_kokoro_fp32.json at d90ba286): this is the
reconstruction spec.json's notes describe. make_inputs runs the forward pass the original's does, so the saved
activations here are consistent with hidden_states (the harness draws them independently: see the notes).
tests/gpu/eager_check.py runs it."""
import math

import torch

GELU_K = math.sqrt(2.0 / math.pi)
GELU_C = 0.044715


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s = symbols["batch_size"], symbols["seq_len"]
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]
    eps = constants["eps"]

    def randn(*shape):
        return torch.randn(shape, device="cuda", dtype=torch.float32)

    hidden_states = randn(b, s, hid) * 0.5
    fc1_weight = randn(inter, hid) * (1.0 / hid) ** 0.5
    fc2_weight = randn(hid, inter) * (1.0 / inter) ** 0.5
    ln_weight = randn(hid) * 0.1 + 1.0
    # The forward pass whose activations the backward consumes: post-LN residual FFN block, no biases.
    fc1_output = hidden_states @ fc1_weight.t()
    gelu_output = 0.5 * fc1_output * (1.0 + torch.tanh(GELU_K * (fc1_output + GELU_C * fc1_output.pow(3))))
    residual = hidden_states + gelu_output @ fc2_weight.t()
    mean = residual.mean(dim=-1, keepdim=True)
    var = residual.var(dim=-1, keepdim=True, unbiased=False)
    normalized = (residual - mean) / torch.sqrt(var + eps)
    grad_output = randn(b, s, hid)
    return {"grad_output": grad_output, "hidden_states": hidden_states, "fc1_weight": fc1_weight,
            "fc1_output": fc1_output, "gelu_output": gelu_output, "fc2_weight": fc2_weight,
            "normalized": normalized, "var": var, "ln_weight": ln_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]
    grad_output, normalized = inputs["grad_output"], inputs["normalized"]

    # LayerNorm backward (y = normalized * ln_weight + ln_bias), per row over hidden_size
    rstd = torch.rsqrt(inputs["var"] + constants["eps"])
    g = grad_output * inputs["ln_weight"]
    g_mean = g.mean(dim=-1, keepdim=True)
    gn_mean = (g * normalized).mean(dim=-1, keepdim=True)
    grad_residual = rstd * (g - g_mean - normalized * gn_mean)
    grad_ln_weight = (grad_output * normalized).sum(dim=(0, 1))
    grad_ln_bias = grad_output.sum(dim=(0, 1))

    # fc2 backward (residual = hidden_states + gelu_output @ fc2_weight^T)
    dres = grad_residual.reshape(-1, hid)
    act = inputs["gelu_output"].reshape(-1, inter)
    grad_fc2_weight = dres.t() @ act
    grad_fc2_bias = dres.sum(dim=0)
    grad_act = dres @ inputs["fc2_weight"]

    # tanh-GELU derivative, op by op in fp32
    pre = inputs["fc1_output"].reshape(-1, inter)
    pre_sq = pre * pre
    inner = GELU_K * (pre + GELU_C * pre_sq * pre)
    t = torch.tanh(inner)
    sech_sq = 1.0 - t * t
    d_inner = GELU_K * (1.0 + 3.0 * GELU_C * pre_sq)
    gelu_grad = 0.5 * (1.0 + t) + 0.5 * pre * sech_sq * d_inner
    grad_pre = grad_act * gelu_grad

    # fc1 backward (fc1_output = hidden_states @ fc1_weight^T), then the residual path
    x = inputs["hidden_states"].reshape(-1, hid)
    grad_fc1_weight = grad_pre.t() @ x
    grad_fc1_bias = grad_pre.sum(dim=0)
    grad_ffn_in = grad_pre @ inputs["fc1_weight"]
    grad_hidden_states = grad_residual + grad_ffn_in.reshape(grad_residual.shape)
    return {"grad_hidden_states": grad_hidden_states, "grad_fc1_weight": grad_fc1_weight,
            "grad_fc1_bias": grad_fc1_bias, "grad_fc2_weight": grad_fc2_weight, "grad_fc2_bias": grad_fc2_bias,
            "grad_ln_weight": grad_ln_weight, "grad_ln_bias": grad_ln_bias}
