"""sparse_expert_dispatch_combine_gptoss_fp32 as the original benchmark times it: the reconstruction of its
masked reference (spec notes; the HF transformers GptOssExperts loop), eager PyTorch in fp32 with its Python
loop over the active experts (.item() and torch.where host syncs), and the original's make_inputs
(YIGE24/MetaKernelBench problems/_sol_execbench/51_sparse_expert_dispatch_combine_gptoss_fp32.json at
d90ba286). tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    tokens, hidden, inter = symbols["num_tokens"], symbols["hidden_size"], symbols["intermediate_size"]
    experts, top_k = symbols["num_local_experts"], symbols["num_experts_per_token"]

    def randn(*shape):
        return torch.randn(*shape, dtype=torch.float32, device=DEVICE)
    hidden_states = randn(tokens, hidden)
    router_logits = randn(tokens, experts)
    router_indices = torch.topk(router_logits, top_k, dim=-1).indices
    routing_weights = torch.softmax(router_logits, dim=-1)
    return {
        "hidden_states": hidden_states,
        "router_indices": router_indices,
        "routing_weights": routing_weights,
        "gate_up_projection": randn(experts, hidden, 2 * inter) * 0.03,
        "gate_up_projection_bias": randn(experts, 2 * inter) * 0.5,
        "down_projection": randn(experts, inter, hidden) * constants["down_projection_scale"],
        "down_projection_bias": randn(experts, hidden) * constants["down_projection_scale"],
    }


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, router_indices, routing_weights = inputs["hidden_states"], inputs["router_indices"], inputs["routing_weights"]
    gate_up_projection, gate_up_projection_bias = inputs["gate_up_projection"], inputs["gate_up_projection_bias"]
    down_projection, down_projection_bias = inputs["down_projection"], inputs["down_projection_bias"]
    glu_alpha, glu_limit = constants["glu_alpha"], constants["glu_limit"]

    num_experts = gate_up_projection.shape[0]
    next_states = torch.zeros_like(hidden_states)

    expert_mask = F.one_hot(router_indices, num_classes=num_experts + 1).permute(2, 1, 0)
    active_experts = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()

    for expert_index_tensor in active_experts:
        expert_index = expert_index_tensor[0].item()
        if expert_index == num_experts:
            continue

        _, token_indices = torch.where(expert_mask[expert_index])
        current_states = hidden_states[token_indices]

        gate_up = current_states @ gate_up_projection[expert_index] + gate_up_projection_bias[expert_index]
        gate = gate_up[..., ::2].clamp(max=glu_limit)
        up = gate_up[..., 1::2].clamp(min=-glu_limit, max=glu_limit)
        gated_output = (up + 1) * (gate * torch.sigmoid(gate * glu_alpha))

        expert_output = gated_output @ down_projection[expert_index] + down_projection_bias[expert_index]
        weighted_output = expert_output * routing_weights[token_indices, expert_index, None]

        next_states.index_add_(0, token_indices, weighted_output)

    return {"next_states": next_states}
