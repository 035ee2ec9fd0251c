import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Original #29 (FLUX feed-forward) in float64: y = linear(gelu_tanh(linear(x, w1, b1)), w2, b2)."""
    x = inputs["x"].to(torch.float64)  # [batch_size, seq_len, hidden_dim]
    w1 = inputs["w1"].to(torch.float64)
    b1 = inputs["b1"].to(torch.float64)
    w2 = inputs["w2"].to(torch.float64)
    b2 = inputs["b2"].to(torch.float64)
    h = x @ w1.t() + b1
    a = F.gelu(h, approximate="tanh")
    y = a @ w2.t() + b2
    return {"y": y}
