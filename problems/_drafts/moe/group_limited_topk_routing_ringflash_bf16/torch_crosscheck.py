"""group_limited_topk_routing_ringflash_bf16 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): sigmoid scores plus bias, the 4 groups with the best top-2 sums, the 8
best experts of those groups (best first), their unbiased scores normalized and scaled."""
import torch


def reference(inputs, symbols, constants):
    x, w, bias = inputs["hidden_states"], inputs["weight"], inputs["expert_bias"]
    groups, per_group = symbols["num_groups"], symbols["experts_per_group"]
    scores = torch.sigmoid(x @ w.T)
    biased = scores + bias
    group_scores = biased.unflatten(-1, (groups, per_group)).topk(2, dim=-1).values.sum(dim=-1)
    keep = torch.zeros_like(group_scores, dtype=torch.bool)
    keep.scatter_(1, group_scores.topk(symbols["topk_groups"], dim=-1).indices, True)
    candidates = biased.masked_fill(~keep.repeat_interleave(per_group, dim=1), -torch.inf)
    # descending, ties to the lower expert (the draws hold none)
    chosen = candidates.sort(dim=-1, descending=True, stable=True).indices[:, : symbols["num_experts_per_token"]]
    picked = scores.gather(1, chosen)
    weights = picked / (picked.sum(dim=1, keepdim=True) + constants["weight_sum_eps"]) * constants["routed_scaling_factor"]
    return {"topk_indices": chosen, "topk_weights": weights}
