"""topk_softmax_routing_mixtral_8x7b_bf16 in float64 PyTorch, for the cross-check against the
anchor (tests/gpu/cross_check_torch.py): softmax over the experts, the top_k most probable (ties to
the lower index), renormalized."""
import torch


def reference(inputs, symbols, constants):
    probabilities = torch.softmax(inputs["logits"], dim=-1)
    # A stable descending sort keeps equal logits in index order: ties go to the lower expert.
    order = torch.sort(probabilities, dim=-1, descending=True, stable=True).indices[:, : symbols["top_k"]]
    chosen = torch.gather(probabilities, -1, order)
    return {"expert_ids": order.to(torch.int32), "expert_weights": chosen / chosen.sum(dim=-1, keepdim=True)}
