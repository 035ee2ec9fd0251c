"""grouped_routing_block_scale_deepseek_fp8 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). Floating inputs arrive as float64 (the fp8 values exactly)."""
import torch


def reference(inputs, symbols, constants):
    logits, bias = inputs["routing_logits"], inputs["routing_bias"]
    T, E = logits.shape
    G, KG, K = symbols["num_groups"], symbols["topk_groups"], symbols["top_k"]
    H, I, Bk = symbols["hidden_size"], symbols["intermediate_size"], symbols["block_size"]
    L, off = symbols["num_local_experts"], symbols["local_expert_offset"]
    s = torch.sigmoid(logits)
    sb = s + bias
    group_score = sb.view(T, G, E // G).topk(2, dim=2).values.sum(2)
    keep = torch.zeros(T, G, dtype=torch.bool, device=logits.device)
    keep.scatter_(1, group_score.topk(KG, dim=1).indices, True)
    masked = torch.where(keep.repeat_interleave(E // G, dim=1), sb, torch.full_like(sb, -torch.inf))
    sel = masked.topk(K, dim=1).indices
    ws = s.gather(1, sel)
    ws = ws / (ws.sum(1, keepdim=True) + 1e-20) * constants["routed_scaling_factor"]
    act = inputs["hidden_states"] * inputs["hidden_states_scale"].t().repeat_interleave(Bk, dim=1)
    out = torch.zeros(T, H, dtype=torch.float64, device=logits.device)
    for le in range(L):
        hit = sel == off + le
        tok = hit.any(1).nonzero().squeeze(1)
        if tok.numel() == 0:
            continue
        w = (ws * hit).sum(1)[tok]
        s13 = inputs["gemm1_weights_scale"][le].repeat_interleave(Bk, 0).repeat_interleave(Bk, 1)
        s2 = inputs["gemm2_weights_scale"][le].repeat_interleave(Bk, 0).repeat_interleave(Bk, 1)
        proj = act[tok] @ (inputs["gemm1_weights"][le] * s13).t()
        up, gate = proj[:, :I], proj[:, I:]
        out[tok] += (torch.nn.functional.silu(gate) * up) @ (inputs["gemm2_weights"][le] * s2).t() * w[:, None]
    return {"output": out}
