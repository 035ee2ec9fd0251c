import torch


def reference(inputs, symbols, constants):
    """MetaKernelBench #40 (reconstructed) in float64, no intermediate rounding: streams 1 and 2 projected,
    rescaled to stream 0's per-token RMS, the three streams averaged."""
    hs = inputs["hidden_states"]
    eps = float(constants["eps"])
    x0 = hs[0]
    target = torch.sqrt((x0 * x0).mean(-1, keepdim=True))
    out = x0.clone()
    for s, w in ((1, inputs["unembed_weight_1"]), (2, inputs["unembed_weight_2"])):
        p = torch.nn.functional.linear(hs[s], w)
        out = out + p * target / torch.sqrt((p * p).mean(-1, keepdim=True).clamp_min(eps))
    return {"out": out / 3.0}
