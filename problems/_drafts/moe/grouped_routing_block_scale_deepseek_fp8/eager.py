"""grouped_routing_block_scale_deepseek_fp8 as the original benchmark times it: its public reference(),
eager PyTorch in fp32 with the Python loop over the 32 local experts and its host syncs
(YIGE24/MetaKernelBench problems/moe/44_grouped_routing_block_scale_deepseek_fp8.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import torch

BIAS_HIGH_EXPERTS = (
    3, 6, 7, 9, 10, 11, 16, 17, 18, 23, 30, 31, 36, 37, 41, 42, 43, 44, 46, 47, 48, 49, 54, 55, 56, 58, 61, 62,
    63, 66, 67, 68, 69, 72, 74, 75, 79, 80, 81, 82, 83, 84, 87, 90, 92, 96, 100, 101, 102, 104, 105, 108, 109,
    110, 112, 114, 119, 120, 123, 125, 126, 127, 131, 136, 147, 151, 152, 153, 154, 157, 159, 167, 170, 171,
    174, 183, 185, 195, 196, 197, 200, 203, 214, 216, 217, 219, 222, 223, 226, 230, 231, 234, 235, 236, 237,
    238, 240, 241, 242, 243, 253)


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _scores_with_bias(logits, bias):
    return 1.0 / (1.0 + torch.exp(-logits.float())) + bias.float()


def _kept_groups(scores_with_bias, symbols):
    groups, per_group = symbols["num_groups"], symbols["num_global_experts"] // symbols["num_groups"]
    grouped = scores_with_bias.view(-1, groups, per_group)
    group_scores = torch.topk(grouped, k=2, dim=2, sorted=False).values.sum(dim=2)
    selected_groups = torch.topk(group_scores, k=symbols["topk_groups"], dim=1, sorted=False).indices
    group_mask = torch.zeros_like(group_scores, dtype=torch.bool)
    group_mask.scatter_(1, selected_groups, True)
    expert_mask = group_mask.unsqueeze(2).expand(-1, groups, per_group).reshape(-1, symbols["num_global_experts"])
    return group_scores, expert_mask


def _unstable_rows(logits, bias, symbols, constants):
    sb = _scores_with_bias(logits, bias)
    group_scores, expert_mask = _kept_groups(sb, symbols)
    sorted_groups = group_scores.sort(dim=1, descending=True).values
    k_groups, k = symbols["topk_groups"], symbols["top_k"]
    group_gap = sorted_groups[:, k_groups - 1] - sorted_groups[:, k_groups]
    pruned = sb.masked_fill(~expert_mask, torch.finfo(torch.float32).min)
    sorted_scores = pruned.sort(dim=1, descending=True).values
    expert_gap = sorted_scores[:, k - 1] - sorted_scores[:, k]
    margin = constants["decision_margin"]
    return (group_gap < margin) | (expert_gap < margin)


def _draw_logits(rows, symbols, constants, device):
    logits = torch.randn(rows, symbols["num_global_experts"], device=device) * constants["logits_std"] + constants["logits_mean"]
    return logits.to(torch.bfloat16).to(torch.float32)


def _fp8(shape, device):
    return torch.randn(shape, device=device, dtype=torch.float32).to(torch.float8_e4m3fn)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    E, T, H, I, B = (symbols["num_global_experts"], symbols["seq_len"], symbols["hidden_size"],
                     symbols["intermediate_size"], symbols["block_size"])
    L = symbols["num_local_experts"]
    bias = torch.full((E,), constants["bias_base"], dtype=torch.bfloat16)
    bias[list(BIAS_HIGH_EXPERTS)] = constants["bias_high"]
    bias = bias.to(device)
    logits = _draw_logits(T, symbols, constants, device)
    for _ in range(symbols["redraw_limit"]):
        unstable = _unstable_rows(logits, bias, symbols, constants)
        if not bool(unstable.any()):
            break
        logits[unstable] = _draw_logits(int(unstable.sum()), symbols, constants, device)
    else:
        raise ValueError("routing margins persist after the redraw limit")
    hidden_states = _fp8((T, H), device)
    hidden_states_scale = torch.rand(H // B, T, device=device, dtype=torch.float32)
    gemm1_weights = _fp8((L, 2 * I, H), device)
    gemm1_weights_scale = torch.rand(L, 2 * I // B, H // B, device=device, dtype=torch.float32)
    gemm2_weights = _fp8((L, H, I), device)
    gemm2_weights_scale = torch.rand(L, H // B, I // B, device=device, dtype=torch.float32)
    return {"routing_logits": logits, "routing_bias": bias, "hidden_states": hidden_states,
            "hidden_states_scale": hidden_states_scale, "gemm1_weights": gemm1_weights,
            "gemm1_weights_scale": gemm1_weights_scale, "gemm2_weights": gemm2_weights,
            "gemm2_weights_scale": gemm2_weights_scale}


def _dequantize(weights, scale, block):
    rows, cols = weights.shape
    return (weights.to(torch.float32).view(rows // block, block, cols // block, block)
            .mul(scale.to(torch.float32).unsqueeze(1).unsqueeze(3)).view(rows, cols))


@torch.no_grad()
def eager(inputs, symbols, constants):
    routing_logits, routing_bias = inputs["routing_logits"], inputs["routing_bias"]
    hidden_states = inputs["hidden_states"]
    T = routing_logits.shape[0]
    H, I, B = symbols["hidden_size"], symbols["intermediate_size"], symbols["block_size"]
    compute_dtype = torch.promote_types(routing_logits.dtype, torch.float32)

    activation_scale = inputs["hidden_states_scale"].to(compute_dtype).t().unsqueeze(-1)
    activation = hidden_states.to(compute_dtype).view(T, H // B, B).mul(activation_scale).view(T, H)

    scores = 1.0 / (1.0 + torch.exp(-routing_logits.to(compute_dtype)))
    scores_with_bias = scores + routing_bias.to(compute_dtype)
    _, expert_mask = _kept_groups(scores_with_bias, symbols)
    pruned_scores = scores_with_bias.masked_fill(~expert_mask, torch.finfo(torch.float32).min)
    selected_experts = torch.topk(pruned_scores, k=symbols["top_k"], dim=1, sorted=False).indices

    selected_mask = torch.zeros_like(scores)
    selected_mask.scatter_(1, selected_experts, 1.0)
    routing_weights = scores * selected_mask
    routing_weights = routing_weights / (routing_weights.sum(dim=1, keepdim=True) + 1e-20)
    routing_weights = routing_weights * constants["routed_scaling_factor"]

    output = torch.zeros((T, H), dtype=compute_dtype, device=hidden_states.device)
    for local_expert in range(symbols["num_local_experts"]):
        global_expert = symbols["local_expert_offset"] + local_expert
        token_mask = (selected_experts == global_expert).any(dim=1)
        if not token_mask.any():
            continue
        token_indices = torch.nonzero(token_mask, as_tuple=False).squeeze(1)
        weight13 = _dequantize(inputs["gemm1_weights"][local_expert], inputs["gemm1_weights_scale"][local_expert], B)
        projected = activation.index_select(0, token_indices).matmul(weight13.t())
        up, gate = projected.split(I, dim=1)
        intermediate = gate / (1.0 + torch.exp(-gate)) * up
        weight2 = _dequantize(inputs["gemm2_weights"][local_expert], inputs["gemm2_weights_scale"][local_expert], B)
        expert_output = intermediate.matmul(weight2.t())
        token_weights = routing_weights[token_indices, global_expert].unsqueeze(1)
        output.index_add_(0, token_indices, expert_output * token_weights)
    return {"output": output.to(routing_bias.dtype)}
