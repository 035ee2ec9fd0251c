import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Step1X-Edit MLP backward in float64 (no autograd: aten's own GELU backward and plain matmuls)."""
    x = inputs["x"].to(torch.float64)
    h = inputs["h"].to(torch.float64)
    w1 = inputs["w1"].to(torch.float64)
    w2 = inputs["w2"].to(torch.float64)
    dy = inputs["dy"].to(torch.float64)
    a = F.gelu(h, approximate="tanh")
    dw2 = dy.t() @ a
    db2 = dy.sum(dim=0)
    da = dy @ w2
    dh = torch.ops.aten.gelu_backward(da, h, approximate="tanh")
    dw1 = dh.t() @ x
    db1 = dh.sum(dim=0)
    dx = dh @ w1
    return {"dx": dx, "dw1": dw1, "db1": db1, "dw2": dw2, "db2": db2}
