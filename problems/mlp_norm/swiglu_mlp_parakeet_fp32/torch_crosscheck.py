import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """Original #32 (SwiGLU MLP, reconstructed) in float64: the first half of the fused projection is
    the gate: out = linear(silu(gate) * up, w_down) with gate, up = linear(x, w_gate_up).chunk(2)."""
    x = inputs["x"].to(torch.float64)  # [batch_size, seq_len, hidden_size]
    h = x @ inputs["w_gate_up"].to(torch.float64).t()
    gate, up = h.split(symbols["intermediate_size"], dim=-1)
    act = F.silu(gate) * up
    return {"out": act @ inputs["w_down"].to(torch.float64).t()}
