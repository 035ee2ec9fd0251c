"""expert_parallel_execution_backward_mimo_fp32 as the original benchmark times it: the reconstruction of its
masked reference (spec notes), eager PyTorch in fp32 with its Python loop over the 256 experts (torch.where
and .numel() host syncs), and the original's make_inputs (YIGE24/MetaKernelBench
problems/_sol_execbench/50_expert_parallel_execution_backward_mimo_fp32.json at d90ba286).
tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    tokens, hidden, inter = symbols["num_tokens"], symbols["hidden_size"], symbols["intermediate_size"]
    experts, top_k = symbols["num_routed_experts"], symbols["num_experts_per_token"]
    scale = constants["weight_scale"]

    def randn(*shape):
        return torch.randn(*shape, dtype=torch.float32, device=DEVICE)
    grad_output = randn(tokens, hidden)
    hidden_states = randn(tokens, hidden)
    expert_draws = torch.rand(tokens, experts, device=DEVICE)
    topk_indices = expert_draws.argsort(dim=-1)[:, :top_k]
    topk_weights = torch.softmax(randn(tokens, top_k), dim=-1)
    return {
        "grad_output": grad_output,
        "hidden_states": hidden_states,
        "topk_indices": topk_indices,
        "topk_weights": topk_weights,
        "gate_weights": randn(experts, inter, hidden) * scale,
        "up_weights": randn(experts, inter, hidden) * scale,
        "down_weights": randn(experts, hidden, inter) * scale,
    }


@torch.no_grad()
def eager(inputs, symbols, constants):
    grad_output, hidden_states = inputs["grad_output"], inputs["hidden_states"]
    topk_indices, topk_weights = inputs["topk_indices"], inputs["topk_weights"]
    gate_weights, up_weights, down_weights = inputs["gate_weights"], inputs["up_weights"], inputs["down_weights"]
    num_experts = gate_weights.shape[0]

    grad_hidden_states = torch.zeros_like(hidden_states)
    grad_topk_weights = torch.zeros_like(topk_weights)
    grad_gate_weights = torch.zeros_like(gate_weights)
    grad_up_weights = torch.zeros_like(up_weights)
    grad_down_weights = torch.zeros_like(down_weights)

    expert_mask = F.one_hot(topk_indices, num_classes=num_experts).permute(2, 1, 0)

    for expert_index in range(num_experts):
        slot_indices, token_indices = torch.where(expert_mask[expert_index])
        if token_indices.numel() == 0:
            continue

        current_states = hidden_states[token_indices]
        expert_weights = topk_weights[token_indices, slot_indices]

        gate_pre_activation = F.linear(current_states, gate_weights[expert_index])
        gate_activation = F.silu(gate_pre_activation)
        up_projection = F.linear(current_states, up_weights[expert_index])
        intermediate = gate_activation * up_projection
        expert_output = F.linear(intermediate, down_weights[expert_index])

        routed_grad = grad_output[token_indices]
        grad_expert_output = routed_grad * expert_weights.unsqueeze(-1)
        grad_weight_slot = (routed_grad * expert_output).sum(dim=-1)
        grad_topk_weights[token_indices, slot_indices] += grad_weight_slot

        grad_intermediate = F.linear(grad_expert_output, down_weights[expert_index].t())
        grad_down_weights[expert_index] += grad_expert_output.t() @ intermediate

        grad_gate_activation = grad_intermediate * up_projection
        grad_up_projection = grad_intermediate * gate_activation
        gate_sigmoid = torch.sigmoid(gate_pre_activation)
        silu_gradient = gate_sigmoid * (1.0 + gate_pre_activation * (1.0 - gate_sigmoid))
        grad_gate_pre_activation = grad_gate_activation * silu_gradient

        grad_from_gate = F.linear(grad_gate_pre_activation, gate_weights[expert_index].t())
        grad_gate_weights[expert_index] += grad_gate_pre_activation.t() @ current_states
        grad_from_up = F.linear(grad_up_projection, up_weights[expert_index].t())
        grad_up_weights[expert_index] += grad_up_projection.t() @ current_states

        grad_hidden_states.index_add_(0, token_indices, grad_from_gate + grad_from_up)

    return {"grad_hidden_states": grad_hidden_states, "grad_topk_weights": grad_topk_weights,
            "grad_gate_weights": grad_gate_weights, "grad_up_weights": grad_up_weights,
            "grad_down_weights": grad_down_weights}
