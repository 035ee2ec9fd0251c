"""swiglu_mlp_backward_hermes_bf16 as the original benchmark times it, reconstructed (the original's
reference body is masked: YIGE24/MetaKernelBench problems/_sol_execbench/34_swiglu_mlp_backward_hermes_bf16.json
at d90ba286; spec notes list the choices): eager PyTorch at the inputs' own dtypes.
tests/gpu/eager_check.py runs it."""
import math

import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s = symbols["batch_size"], symbols["seq_len"]
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]

    def randn(*shape):
        return torch.randn(shape, device="cuda", dtype=torch.bfloat16)

    grad_output = randn(b, s, hid)
    hidden_states = randn(b, s, hid)
    gate = randn(b, s, inter)
    up = randn(b, s, inter)
    act = randn(b, s, inter)
    gate_weight = randn(inter, hid) / math.sqrt(hid)
    up_weight = randn(inter, hid) / math.sqrt(hid)
    down_weight = randn(hid, inter) / math.sqrt(inter)
    return {"grad_output": grad_output, "hidden_states": hidden_states, "gate": gate, "up": up, "act": act,
            "gate_weight": gate_weight, "up_weight": up_weight, "down_weight": down_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hid, inter = symbols["hidden_size"], symbols["intermediate_size"]
    go = inputs["grad_output"].reshape(-1, hid)
    x = inputs["hidden_states"].reshape(-1, hid)
    gate = inputs["gate"].reshape(-1, inter)
    up = inputs["up"].reshape(-1, inter)
    act = inputs["act"].reshape(-1, inter)

    grad_h = go @ inputs["down_weight"]                 # through the down projection
    grad_down_weight = go.t() @ (act * up)               # its input recomputed in bf16
    grad_act = grad_h * up                               # through the gating product
    grad_up = grad_h * act
    compute_dtype = torch.promote_types(gate.dtype, torch.float32)
    sig = torch.sigmoid(gate.to(compute_dtype))          # SiLU derivative in fp32
    g = gate.to(compute_dtype)
    dsilu = sig * (1.0 + g * (1.0 - sig))
    grad_gate = (grad_act.to(compute_dtype) * dsilu).to(gate.dtype)
    grad_gate_weight = grad_gate.t() @ x
    grad_up_weight = grad_up.t() @ x
    grad_input = (grad_gate @ inputs["gate_weight"]) + (grad_up @ inputs["up_weight"])
    return {"grad_input": grad_input.reshape(inputs["grad_output"].shape), "grad_gate_weight": grad_gate_weight,
            "grad_up_weight": grad_up_weight, "grad_down_weight": grad_down_weight}
