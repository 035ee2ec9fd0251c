import torch


def reference(inputs, symbols, constants):
    """Float64 semantics of swiglu_mlp_backward_hermes_bf16 (original #34, reconstructed; spec notes), without
    intermediate rounding."""
    go = inputs["grad_output"].to(torch.float64).flatten(0, 1)
    x = inputs["hidden_states"].to(torch.float64).flatten(0, 1)
    gate = inputs["gate"].to(torch.float64).flatten(0, 1)
    up = inputs["up"].to(torch.float64).flatten(0, 1)
    act = inputs["act"].to(torch.float64).flatten(0, 1)
    w_gate = inputs["gate_weight"].to(torch.float64)
    w_up = inputs["up_weight"].to(torch.float64)
    w_down = inputs["down_weight"].to(torch.float64)

    grad_h = go @ w_down
    grad_down_weight = go.T @ (act * up)
    sig = torch.sigmoid(gate)
    grad_gate = grad_h * up * sig * (1.0 + gate * (1.0 - sig))
    grad_up = grad_h * act
    grad_input = grad_gate @ w_gate + grad_up @ w_up
    return {"grad_input": grad_input.reshape(inputs["grad_output"].shape), "grad_gate_weight": grad_gate.T @ x,
            "grad_up_weight": grad_up.T @ x, "grad_down_weight": grad_down_weight}
