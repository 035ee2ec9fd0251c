import torch


def reference(inputs, symbols, constants):
    """Float64 semantics of qkv_per_head_rmsnorm_gemma3n_e4b_audio_fp32 (#41), no intermediate rounding."""
    x = inputs["hidden_states"]
    b, s, _ = x.shape
    shape = (b, s, symbols["num_heads"], symbols["head_dim"])
    eps = constants["eps"]

    def project(name):
        return torch.nn.functional.linear(x, inputs[name]).reshape(shape)

    def per_head_rms_norm(t, weight):
        return t / torch.sqrt((t * t).mean(dim=-1, keepdim=True) + eps) * weight

    q = per_head_rms_norm(project("q_weight"), inputs["q_norm_weight"])
    k = per_head_rms_norm(project("k_weight"), inputs["k_norm_weight"])
    v = project("v_weight")
    return {"q": q, "k": k, "v": v}
