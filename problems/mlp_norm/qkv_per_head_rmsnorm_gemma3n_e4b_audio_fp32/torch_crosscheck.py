import torch


def reference(inputs, symbols, constants):
    """Float64 semantics of qkv_per_head_rmsnorm_gemma3n_e4b_audio_fp32, no intermediate rounding."""
    x = inputs["x"].to(torch.float64)
    heads = int(symbols["heads"])
    head_dim = int(symbols["head_dim"])
    eps = float(constants["eps"])
    shape = (x.shape[0], heads, head_dim)

    def project(name):
        return torch.nn.functional.linear(x, inputs[name].to(torch.float64)).reshape(shape)

    def per_head_rms_norm(t, weight):
        rms = torch.sqrt(t.pow(2).mean(dim=-1, keepdim=True) + eps)
        return t / rms * weight.to(torch.float64)

    q = per_head_rms_norm(project("q_weight"), inputs["q_norm_weight"])
    k = per_head_rms_norm(project("k_weight"), inputs["k_norm_weight"])
    v = project("v_weight")
    return {"q": q, "k": k, "v": v}
