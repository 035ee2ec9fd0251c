import torch


def reference(inputs, symbols, constants):
    """MetaKernelBench #35 (reconstructed) in float64: the backward of y = LayerNorm(residual) * ln_weight +
    ln_bias, residual = hidden_states + fc2(gelu_tanh(fc1(hidden_states))), from the saved normalized, var,
    fc1_output and gelu_output (the LayerNorm backward in its closed form, aten's GELU backward, plain matmuls)."""
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]
    dy, n = inputs["grad_output"], inputs["normalized"]
    g = dy * inputs["ln_weight"]
    rstd = 1.0 / torch.sqrt(inputs["var"] + constants["eps"])
    grad_residual = rstd * (g - g.mean(-1, keepdim=True) - n * (g * n).mean(-1, keepdim=True))
    dres = grad_residual.reshape(-1, hid)
    grad_pre = torch.ops.aten.gelu_backward(dres @ inputs["fc2_weight"], inputs["fc1_output"].reshape(-1, inter),
                                            approximate="tanh")
    return {
        "grad_hidden_states": grad_residual + (grad_pre @ inputs["fc1_weight"]).reshape(grad_residual.shape),
        "grad_fc1_weight": grad_pre.t() @ inputs["hidden_states"].reshape(-1, hid),
        "grad_fc1_bias": grad_pre.sum(0),
        "grad_fc2_weight": dres.t() @ inputs["gelu_output"].reshape(-1, inter),
        "grad_fc2_bias": dres.sum(0),
        "grad_ln_weight": (dy * n).sum((0, 1)),
        "grad_ln_bias": dy.sum((0, 1)),
    }
