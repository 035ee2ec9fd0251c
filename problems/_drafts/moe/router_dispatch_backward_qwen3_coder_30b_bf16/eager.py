"""router_dispatch_backward_qwen3_coder_30b_bf16 as the original benchmark times it, reconstructed (its
reference is masked: YIGE24/MetaKernelBench problems/_sol_execbench/
46_router_dispatch_backward_qwen3_coder_30b_bf16.json at d90ba286; the choices are in spec.json's
notes): eager PyTorch, fp32 in routing_probs' dtype, the logits' gradient cast to bf16, two bf16
matmuls. tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    T, H, E, K = symbols["num_tokens"], symbols["hidden_size"], symbols["num_experts"], symbols["top_k"]
    bf16 = torch.bfloat16
    hidden_states = torch.randn(T, H, dtype=bf16, device=device)
    gate_weight = torch.randn(E, H, dtype=bf16, device=device) * 0.02
    router_logits = torch.randn(T, E, dtype=bf16, device=device)
    routing_probs = torch.softmax(router_logits.float(), dim=-1)
    routing_weights, selected_experts = torch.topk(routing_probs, K, dim=-1)
    routing_weights_sum = routing_weights.sum(dim=-1, keepdim=True)
    grad_routing_weights = torch.randn(T, K, dtype=bf16, device=device) * 0.1
    grad_expert_mask = torch.randn(E, K, T, dtype=bf16, device=device) * 0.01
    grad_router_logits = torch.randn(T, E, dtype=bf16, device=device) * 0.1
    return {"hidden_states": hidden_states, "gate_weight": gate_weight, "routing_probs": routing_probs,
            "selected_experts": selected_experts, "routing_weights_sum": routing_weights_sum,
            "grad_routing_weights": grad_routing_weights, "grad_expert_mask": grad_expert_mask,
            "grad_router_logits": grad_router_logits}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, gate_weight = inputs["hidden_states"], inputs["gate_weight"]
    routing_probs, selected_experts = inputs["routing_probs"], inputs["selected_experts"]
    routing_weights_sum = inputs["routing_weights_sum"]
    input_dtype = hidden_states.dtype

    # Backward of the top-k renormalization w / sum(w), in routing_probs' dtype.
    grad_routing_weights_wide = inputs["grad_routing_weights"].to(routing_probs.dtype)
    routing_weights_unnorm = torch.gather(routing_probs, 1, selected_experts)
    grad_sum = (grad_routing_weights_wide * routing_weights_unnorm / routing_weights_sum).sum(dim=-1, keepdim=True)
    grad_unnorm = grad_routing_weights_wide / routing_weights_sum - grad_sum / routing_weights_sum

    # The one-hot mask's gradient at the selected positions ([E, K, T] layout).
    grad_from_mask = torch.gather(inputs["grad_expert_mask"].permute(2, 1, 0), 2,
                                  selected_experts.unsqueeze(2)).squeeze(2).to(routing_probs.dtype)
    combined = grad_unnorm + grad_from_mask

    # Top-k passes its gradient straight through to the selected probabilities.
    grad_routing_probs = inputs["grad_router_logits"].to(routing_probs.dtype)
    grad_routing_probs.scatter_add_(1, selected_experts, combined)

    # Softmax backward, then the router projection's.
    dot = (grad_routing_probs * routing_probs).sum(dim=1, keepdim=True)
    grad_logits = (routing_probs * (grad_routing_probs - dot)).to(input_dtype)
    grad_hidden_states = torch.matmul(grad_logits, gate_weight)
    grad_gate_weight = torch.matmul(grad_logits.t(), hidden_states)
    return {"grad_hidden_states": grad_hidden_states, "grad_gate_weight": grad_gate_weight}
