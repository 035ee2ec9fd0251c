"""delta_rule_deltanet_bf16 as the original benchmark times it: its public reference(), eager PyTorch at
fp32 with its Python loop over the 1024 tokens (YIGE24/MetaKernelBench
problems/linear_attention/74_delta_rule_deltanet_bf16.py at d90ba286). tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    dev = _device()
    B, H, L = symbols["batch_size"], symbols["num_heads"], symbols["seq_len"]
    K, V = symbols["key_dim"], symbols["value_dim"]
    q = torch.randn(B, H, L, K, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, H, L, K, device=dev, dtype=torch.bfloat16)
    v = torch.randn(B, H, L, V, device=dev, dtype=torch.bfloat16)
    beta = torch.randn(B, H, L, device=dev, dtype=torch.bfloat16).sigmoid()
    initial_state = torch.randn(B, H, K, V, device=dev, dtype=torch.float32)
    return {"q": q, "k": k, "v": v, "beta": beta, "initial_state": initial_state}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v, beta = inputs["q"], inputs["k"], inputs["v"], inputs["beta"]
    out_dtype = q.dtype
    wide = torch.promote_types(q.dtype, torch.float32)
    B, H, L, K = q.shape
    q, k, v, beta = (x.to(wide) for x in (q, k, v, beta))
    q = F.normalize(q, p=2, dim=-1, eps=constants["norm_eps"])
    k = F.normalize(k, p=2, dim=-1, eps=constants["norm_eps"])
    o = torch.zeros_like(v)
    # A host tensor of zeros moved to the device, as the reference builds its state.
    S = torch.zeros(B, H, K, v.shape[-1]).to(v)
    q = q * (K ** -0.5)
    beta = beta[..., None]
    S += inputs["initial_state"].to(wide)
    for t in range(L):
        k_t = k[:, :, t]
        q_t = q[:, :, t]
        v_t = v[:, :, t].clone()
        v_t = v_t - (S.clone() * k_t[..., None]).sum(-2)
        v_t = v_t * beta[:, :, t]
        S = S.clone() + k_t.unsqueeze(-1) * v_t.unsqueeze(-2)
        o[:, :, t] = torch.einsum("bhd,bhdm->bhm", q_t, S)
    return {"o": o.to(out_dtype), "final_state": S}
