import torch


def reference(inputs, symbols, constants):
    """MetaKernelBench #37 (reconstructed) in float64: the tanh-GELU MLP backward from the saved fc1 and GELU
    outputs (aten's own GELU backward and plain matmuls, no autograd)."""
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]
    grad_output = inputs["grad_output"].to(torch.float64)
    dy = grad_output.reshape(-1, hid)
    x = inputs["hidden_states"].to(torch.float64).reshape(-1, hid)
    pre = inputs["fc1_output"].to(torch.float64).reshape(-1, inter)
    act = inputs["gelu_output"].to(torch.float64).reshape(-1, inter)
    w1 = inputs["fc1_weight"].to(torch.float64)
    w2 = inputs["fc2_weight"].to(torch.float64)
    grad_pre = torch.ops.aten.gelu_backward(dy @ w2, pre, approximate="tanh")
    return {
        "grad_hidden_states": (grad_pre @ w1).reshape(grad_output.shape),
        "grad_fc1_weight": grad_pre.t() @ x,
        "grad_fc1_bias": grad_pre.sum(dim=0),
        "grad_fc2_weight": dy.t() @ act,
        "grad_fc2_bias": dy.sum(dim=0),
    }
