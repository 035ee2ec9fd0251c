"""expert_parallel_execution_backward_mimo_fp32 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): the gradients of out[t] = sum_j w[t, j] * expert_{e[t, j]}(x[t]), each expert
down(silu(gate(x)) * up(x)), taken by autograd, one expert at a time (the full graph would not fit)."""
import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    g, x, idx, w = inputs["grad_output"], inputs["hidden_states"], inputs["topk_indices"], inputs["topk_weights"]
    grads = {"grad_hidden_states": torch.zeros_like(x), "grad_topk_weights": torch.zeros_like(w),
             "grad_gate_weights": torch.zeros_like(inputs["gate_weights"]),
             "grad_up_weights": torch.zeros_like(inputs["up_weights"]),
             "grad_down_weights": torch.zeros_like(inputs["down_weights"])}
    for e in range(inputs["gate_weights"].shape[0]):
        token, slot = torch.nonzero(idx == e, as_tuple=True)
        if token.numel() == 0:
            continue
        xe = x[token].clone().requires_grad_(True)
        we = w[token, slot].clone().requires_grad_(True)
        wg, wu, wd = (inputs[k][e].clone().requires_grad_(True) for k in ("gate_weights", "up_weights", "down_weights"))
        with torch.enable_grad():
            out = (F.silu(xe @ wg.T) * (xe @ wu.T)) @ wd.T * we[:, None]
            dx, dw, dg, du, dd = torch.autograd.grad(out, (xe, we, wg, wu, wd), grad_outputs=g[token])
        grads["grad_hidden_states"].index_add_(0, token, dx)
        grads["grad_topk_weights"][token, slot] = dw
        grads["grad_gate_weights"][e], grads["grad_up_weights"][e], grads["grad_down_weights"][e] = dg, du, dd
    return grads
