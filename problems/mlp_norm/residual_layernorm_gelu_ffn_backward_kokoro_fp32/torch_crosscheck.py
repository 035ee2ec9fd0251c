import math

import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Backward of ALBERT's post-LN feed-forward block (Kokoro PL-BERT) in float64 via autograd:
    y = layer_norm(x + linear2(gelu_new(linear1(x)))); returns the gradients for upstream dy."""
    hidden = symbols["hidden"]
    eps = constants["eps"]
    with torch.inference_mode(False), torch.enable_grad():  # autograd even if called under no_grad
        x = inputs["x"].detach().clone().requires_grad_(True)
        W1 = inputs["W1"].detach().clone().requires_grad_(True)
        b1 = inputs["b1"].detach().clone().requires_grad_(True)
        W2 = inputs["W2"].detach().clone().requires_grad_(True)
        b2 = inputs["b2"].detach().clone().requires_grad_(True)
        ln_w = inputs["ln_weight"].detach().clone().requires_grad_(True)
        ln_b = torch.zeros_like(ln_w).requires_grad_(True)  # its value affects no gradient
        h = F.linear(x, W1, b1)
        a = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h ** 3)))
        z = x + F.linear(a, W2, b2)
        y = F.layer_norm(z, (hidden,), ln_w, ln_b, eps=eps)
        y.backward(inputs["dy"])
    return {
        "dx": x.grad.detach(),
        "dW1": W1.grad.detach(),
        "db1": b1.grad.detach(),
        "dW2": W2.grad.detach(),
        "db2": b2.grad.detach(),
        "dln_weight": ln_w.grad.detach(),
        "dln_bias": ln_b.grad.detach(),
    }
