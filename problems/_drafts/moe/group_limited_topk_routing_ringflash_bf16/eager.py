"""group_limited_topk_routing_ringflash_bf16 as the original benchmark times it: the reconstruction of its
masked reference (spec notes), eager PyTorch at the inputs' own dtypes, and the original's make_inputs
with its unstable-row redraw (YIGE24/MetaKernelBench problems/_sol_execbench/
49_group_limited_topk_routing_ringflash_bf16.json at d90ba286). tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _unstable_rows(hidden_states, weight, expert_bias, symbols, constants):
    tokens, groups = hidden_states.shape[0], symbols["num_groups"]
    per_group, topk_groups, k = symbols["experts_per_group"], symbols["topk_groups"], symbols["num_experts_per_token"]
    compute_dtype = torch.promote_types(hidden_states.dtype, torch.float32)
    logits = F.linear(hidden_states.to(compute_dtype), weight.to(compute_dtype))
    biased = torch.sigmoid(logits) + expert_bias.to(compute_dtype)
    grouped = biased.view(tokens, groups, per_group)
    group_scores = torch.topk(grouped, k=2, dim=-1, sorted=False).values.sum(dim=-1)
    sorted_groups = group_scores.sort(dim=-1, descending=True).values
    group_gap = sorted_groups[:, topk_groups - 1] - sorted_groups[:, topk_groups]
    group_idx = torch.topk(group_scores, k=topk_groups, dim=-1, sorted=False).indices
    group_mask = torch.zeros_like(group_scores)
    group_mask.scatter_(1, group_idx, 1.0)
    score_mask = group_mask.unsqueeze(-1).expand(tokens, groups, per_group).reshape(tokens, groups * per_group)
    masked = biased.masked_fill(score_mask == 0, torch.finfo(torch.float32).min)
    sorted_scores = masked.sort(dim=-1, descending=True).values
    gaps = sorted_scores[:, :k] - sorted_scores[:, 1:k + 1]
    margin = constants["decision_margin"]
    return (group_gap < margin) | (gaps.min(dim=-1).values < margin)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    tokens, dim, experts = symbols["num_tokens"], symbols["gating_dim"], symbols["num_experts"]
    hidden_states = torch.randn(tokens, dim, dtype=torch.bfloat16, device=DEVICE)
    weight = torch.randn(experts, dim, dtype=torch.bfloat16, device=DEVICE) / math.sqrt(dim)
    expert_bias = torch.randn(experts, dtype=torch.bfloat16, device=DEVICE)
    for _ in range(symbols["redraw_limit"]):
        unstable = _unstable_rows(hidden_states, weight, expert_bias, symbols, constants)
        if not bool(unstable.any()):
            return {"hidden_states": hidden_states, "weight": weight, "expert_bias": expert_bias}
        hidden_states[unstable] = torch.randn(int(unstable.sum()), dim, dtype=torch.bfloat16, device=DEVICE)
    raise ValueError("routing margins persist after the redraw limit")


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, weight, expert_bias = inputs["hidden_states"], inputs["weight"], inputs["expert_bias"]
    groups, per_group = symbols["num_groups"], symbols["experts_per_group"]
    experts = groups * per_group
    tokens = hidden_states.shape[0]

    compute_dtype = torch.promote_types(hidden_states.dtype, torch.float32)
    logits = F.linear(hidden_states.to(compute_dtype), weight.to(compute_dtype))
    scores = torch.sigmoid(logits)
    scores_for_routing = scores + expert_bias.to(compute_dtype)

    grouped_scores = scores_for_routing.view(tokens, groups, per_group)
    top2_values, _ = torch.topk(grouped_scores, k=2, dim=-1, sorted=False)
    group_scores = top2_values.sum(dim=-1)
    _, group_indices = torch.topk(group_scores, k=symbols["topk_groups"], dim=-1, sorted=False)

    group_mask = torch.zeros_like(group_scores)
    group_mask.scatter_(1, group_indices, 1.0)
    score_mask = group_mask.unsqueeze(-1).expand(tokens, groups, per_group)
    score_mask = score_mask.reshape(tokens, experts)

    masked_scores = scores_for_routing.masked_fill(score_mask == 0, torch.finfo(torch.float32).min)
    _, topk_indices = torch.topk(masked_scores, k=symbols["num_experts_per_token"], dim=-1, sorted=True)

    topk_weights = torch.gather(scores, dim=1, index=topk_indices)
    topk_weights = topk_weights / (topk_weights.sum(dim=1, keepdim=True) + constants["weight_sum_eps"])
    return {"topk_indices": topk_indices, "topk_weights": topk_weights * constants["routed_scaling_factor"]}
