"""channelwise_gated_delta_rule_kda_bf16 as the original benchmark times it: its public reference(), eager
PyTorch at fp32 with its Python loop over the 1024 tokens (YIGE24/MetaKernelBench
problems/linear_attention/68_channelwise_gated_delta_rule_kda_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    dev = _device()
    B, T, D = symbols["batch_size"], symbols["seq_len"], symbols["head_dim"]
    H, HV = symbols["num_k_heads"], symbols["num_v_heads"]
    q = torch.randn(B, T, H, D, dtype=torch.bfloat16, device=dev)
    k = torch.randn(B, T, H, D, dtype=torch.bfloat16, device=dev)
    v = torch.randn(B, T, HV, D, dtype=torch.bfloat16, device=dev)
    logits = torch.randn(B, T, HV, D, dtype=torch.float32, device=dev)
    g = (F.logsigmoid(logits) / constants["gate_logit_normalizer"]).to(torch.bfloat16)
    beta = torch.randn(B, T, HV, dtype=torch.bfloat16, device=dev).sigmoid()
    return {"q": q, "k": k, "v": v, "g": g, "beta": beta}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v, g, beta = (inputs[n] for n in ("q", "k", "v", "g", "beta"))
    out_dtype = v.dtype
    wide = torch.promote_types(v.dtype, torch.float32)
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[-1]
    group = HV // H
    q, k, v, g, beta = (x.to(wide) for x in (q, k, v, g, beta))
    q = F.normalize(q, p=2, dim=-1, eps=constants["norm_eps"])
    k = F.normalize(k, p=2, dim=-1, eps=constants["norm_eps"])
    q = q.repeat_interleave(group, dim=2) * (K ** -0.5)
    k = k.repeat_interleave(group, dim=2)
    S = k.new_zeros(B, HV, K, V).to(q)
    o = torch.zeros_like(v)
    for t in range(T):
        q_t, k_t, v_t, g_t, b_t = q[:, t], k[:, t], v[:, t], g[:, t], beta[:, t]
        S = S * g_t[..., None].exp()
        S = S + torch.einsum("bhk,bhv->bhkv", b_t[..., None] * k_t, v_t - (k_t[..., None] * S).sum(-2))
        o[:, t] = torch.einsum("bhk,bhkv->bhv", q_t, S)
    return {"o": o.to(out_dtype)}
