"""capacity_factor_expert_dispatch_qwen3_coder_480b_bf16 as the original benchmark times it, reconstructed
(its reference is masked: YIGE24/MetaKernelBench problems/_sol_execbench/
45_capacity_factor_expert_dispatch_qwen3_coder_480b_bf16.json at d90ba286; the choices are in
spec.json's notes): eager PyTorch in bf16, the capacity buffers and three batched matmuls.
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    T, H, I = symbols["num_tokens"], symbols["hidden_size"], symbols["moe_intermediate_size"]
    E, K = symbols["num_experts"], symbols["num_experts_per_tok"]
    bf16 = torch.bfloat16
    hidden_states = torch.randn(T, H, dtype=bf16, device=device)
    expert_popularity = torch.randn(E, device=device) * constants["popularity_std"]
    gumbel = -torch.log(-torch.log(torch.rand(T, E, device=device)))
    selected_experts = (expert_popularity + gumbel).argsort(dim=-1, descending=True)[:, :K]
    routing_logits = torch.randn(T, K, dtype=bf16, device=device)
    routing_weights = F.softmax(routing_logits.float(), dim=-1).to(bf16)
    expert_gate_weights = torch.randn(E, H, I, dtype=bf16, device=device) / math.sqrt(H)
    expert_up_weights = torch.randn(E, H, I, dtype=bf16, device=device) / math.sqrt(H)
    expert_down_weights = torch.randn(E, I, H, dtype=bf16, device=device) / math.sqrt(I)
    return {"hidden_states": hidden_states, "selected_experts": selected_experts.contiguous(),
            "routing_weights": routing_weights, "expert_gate_weights": expert_gate_weights,
            "expert_up_weights": expert_up_weights, "expert_down_weights": expert_down_weights}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, selected_experts = inputs["hidden_states"], inputs["selected_experts"]
    routing_weights = inputs["routing_weights"]
    num_tokens, hidden_size = hidden_states.shape
    num_experts = inputs["expert_gate_weights"].shape[0]
    num_experts_per_tok = selected_experts.shape[1]
    device, dtype = hidden_states.device, hidden_states.dtype

    capacity = max(int((num_tokens * num_experts_per_tok / num_experts) * constants["capacity_factor"]), 1)

    flat_experts = selected_experts.reshape(-1)
    flat_weights = routing_weights.reshape(-1)
    flat_token_ids = torch.arange(num_tokens, device=device).repeat_interleave(num_experts_per_tok)

    sorted_experts, sorted_indices = flat_experts.sort(stable=True)
    sorted_weights = flat_weights[sorted_indices]
    sorted_token_ids = flat_token_ids[sorted_indices]

    counts = torch.bincount(sorted_experts, minlength=num_experts)
    starts = torch.zeros(num_experts, dtype=torch.long, device=device)
    starts[1:] = counts[:-1].cumsum(0)
    within_pos = torch.arange(len(sorted_experts), device=device) - starts[sorted_experts]

    valid = within_pos < capacity
    v_exp, v_pos = sorted_experts[valid], within_pos[valid]
    v_tok, v_wt = sorted_token_ids[valid], sorted_weights[valid]

    expert_inputs = torch.zeros(num_experts, capacity, hidden_size, dtype=dtype, device=device)
    expert_inputs[v_exp, v_pos] = hidden_states[v_tok]
    gate_out = torch.bmm(expert_inputs, inputs["expert_gate_weights"])
    up_out = torch.bmm(expert_inputs, inputs["expert_up_weights"])
    activated = F.silu(gate_out).mul_(up_out)
    expert_outputs = torch.bmm(activated, inputs["expert_down_weights"])

    valid_out = expert_outputs[v_exp, v_pos]
    weighted_out = v_wt.unsqueeze(1) * valid_out
    result = torch.zeros(num_tokens, hidden_size, dtype=dtype, device=device)
    result.index_add_(0, v_tok, weighted_out)
    return {"output": result}
