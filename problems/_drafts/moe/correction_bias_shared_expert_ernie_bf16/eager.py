"""correction_bias_shared_expert_ernie_bf16 as the original benchmark times it, reconstructed (its
reference is masked: YIGE24/MetaKernelBench problems/_sol_execbench/
47_correction_bias_shared_expert_ernie_bf16.json at d90ba286; the choices are in spec.json's notes):
eager PyTorch in bf16 with an fp32 router and the Python loop over the hit experts.
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def _unstable_rows(hidden_flat, gate_weight, bias, top_k, margin):
    logits = torch.matmul(hidden_flat.to(gate_weight.dtype), gate_weight.t())
    weights = F.softmax(logits, dim=1) + bias
    sorted_weights, _ = weights.sort(dim=-1, descending=True)
    return sorted_weights[:, top_k - 1] - sorted_weights[:, top_k] < margin


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    B, S, H = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"]
    E, I, SI = symbols["num_experts"], symbols["intermediate_size"], symbols["shared_intermediate_size"]
    bf16 = torch.bfloat16
    hidden_states = torch.randn(B, S, H, device=device, dtype=bf16)
    gate_weight = torch.randn(E, H, device=device, dtype=torch.float32) / math.sqrt(H)
    bias = torch.randn(1, E, device=device, dtype=torch.float32) * 0.02
    weights = [torch.randn(E, I, H, device=device, dtype=bf16) / math.sqrt(H),
               torch.randn(E, I, H, device=device, dtype=bf16) / math.sqrt(H),
               torch.randn(E, H, I, device=device, dtype=bf16) / math.sqrt(I),
               torch.randn(SI, H, device=device, dtype=bf16) / math.sqrt(H),
               torch.randn(SI, H, device=device, dtype=bf16) / math.sqrt(H),
               torch.randn(H, SI, device=device, dtype=bf16) / math.sqrt(SI)]
    for _ in range(symbols["redraw_limit"]):
        flat = hidden_states.view(-1, H)
        unstable = _unstable_rows(flat, gate_weight, bias, symbols["top_k"], constants["decision_margin"])
        if not bool(unstable.any()):
            names = ("expert_gate_proj", "expert_up_proj", "expert_down_proj", "shared_gate_proj",
                     "shared_up_proj", "shared_down_proj")
            inputs = {"hidden_states": hidden_states, "gate_weight": gate_weight, "e_score_correction_bias": bias}
            inputs.update(zip(names, weights))
            return inputs
        flat[unstable] = torch.randn(int(unstable.sum()), H, device=device, dtype=bf16)
    raise ValueError("routing margins persist after the redraw limit")


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, gate_weight = inputs["hidden_states"], inputs["gate_weight"]
    batch_size, seq_len, hidden_dim = hidden_states.shape
    num_experts, top_k = symbols["num_experts"], symbols["top_k"]
    flat = hidden_states.view(-1, hidden_dim)

    shared_gate_out = torch.matmul(flat, inputs["shared_gate_proj"].t())
    shared_silu = F.silu(shared_gate_out)
    shared_up_out = torch.matmul(flat, inputs["shared_up_proj"].t())
    shared_output = torch.matmul(shared_silu * shared_up_out, inputs["shared_down_proj"].t())

    router_logits = torch.matmul(flat.to(gate_weight.dtype), gate_weight.t())
    routing_weights = F.softmax(router_logits, dim=1)
    routing_weights = routing_weights + inputs["e_score_correction_bias"]
    _, selected_experts = torch.topk(routing_weights, top_k, dim=-1)
    selected = torch.gather(routing_weights, dim=-1, index=selected_experts)
    normalized = selected / torch.clamp(selected.sum(dim=-1, keepdim=True), min=constants["norm_min"])
    normalized = normalized.to(hidden_states.dtype)

    final_hidden_states = torch.zeros((batch_size * seq_len, hidden_dim), dtype=hidden_states.dtype,
                                      device=hidden_states.device)
    expert_mask = F.one_hot(selected_experts, num_classes=num_experts).permute(2, 1, 0)
    expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero(as_tuple=False).squeeze(-1)
    for expert_idx in expert_hit:
        e = expert_idx.item()
        idx, top_x = torch.where(expert_mask[e].squeeze(0))
        current_state = flat[top_x]
        gate_out = torch.matmul(current_state, inputs["expert_gate_proj"][e].t())
        silu_out = F.silu(gate_out)
        up_out = torch.matmul(current_state, inputs["expert_up_proj"][e].t())
        expert_output = torch.matmul(silu_out * up_out, inputs["expert_down_proj"][e].t())
        final_hidden_states.index_add_(0, top_x, expert_output * normalized[top_x, idx, None])
    final_hidden_states = final_hidden_states + shared_output
    return {"output": final_hidden_states.view(batch_size, seq_len, hidden_dim), "router_logits": router_logits}
