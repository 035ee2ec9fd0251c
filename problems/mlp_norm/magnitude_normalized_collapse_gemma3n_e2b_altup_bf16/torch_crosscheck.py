import torch


def reference(inputs, symbols, constants):
    """Float64 semantics of magnitude_normalized_collapse_gemma3n_e2b_altup_bf16, no intermediate rounding."""
    x0 = inputs["stream0"].to(torch.float64)              # [T, H]
    xs = inputs["other_streams"].to(torch.float64)              # [S, T, H]
    w = inputs["unembed_weight"].to(torch.float64)        # [S, H, H], [out, in]
    eps = float(constants["eps"])

    target = torch.sqrt(torch.mean(x0 * x0, dim=-1, keepdim=True))      # [T, 1]
    collapsed = [x0]
    for s in range(xs.shape[0]):
        p = torch.nn.functional.linear(xs[s], w[s])                       # [T, H]
        ms = torch.mean(p * p, dim=-1, keepdim=True).clamp_min(eps)
        collapsed.append(p * (target / torch.sqrt(ms)))
    out = torch.stack(collapsed, dim=0).mean(dim=0)
    return {"out": out}
