"""gated_linear_attention_gla_bf16 as the original benchmark times it: its public reference(), eager
PyTorch at fp32 with its Python loop over the 1024 tokens (YIGE24/MetaKernelBench
problems/linear_attention/69_gated_linear_attention_gla_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    dev = _device()
    B, T, H = symbols["batch_size"], symbols["seq_len"], symbols["num_heads"]
    K, V = symbols["key_dim"], symbols["value_dim"]
    q = torch.randn(B, T, H, K, dtype=torch.bfloat16, device=dev)
    k = torch.randn(B, T, H, K, dtype=torch.bfloat16, device=dev)
    v = torch.randn(B, T, H, V, dtype=torch.bfloat16, device=dev)
    logits = torch.randn(B, T, H, K, dtype=torch.float32, device=dev)
    gk = (F.logsigmoid(logits) / constants["gate_logit_normalizer"]).to(torch.bfloat16)
    return {"q": q, "k": k, "v": v, "gk": gk}


@torch.no_grad()
def eager(inputs, symbols, constants):
    out_dtype = inputs["q"].dtype
    wide = torch.promote_types(out_dtype, torch.float32)
    q, k, v, gk = (inputs[n].transpose(1, 2).to(wide) for n in ("q", "k", "v", "gk"))
    B, H, T, K = q.shape
    V = v.shape[-1]
    o = torch.zeros_like(v)
    scale = K ** -0.5
    h = q.new_zeros(B, H, K, V, dtype=wide)
    for t in range(T):
        q_t = q[:, :, t] * scale
        k_t = k[:, :, t]
        v_t = v[:, :, t]
        decay = gk[:, :, t].exp()
        kv = k_t[..., None] * v_t[..., None, :]
        h = h * decay[..., None] + kv
        o[:, :, t] = (q_t[..., None] * h).sum(-2)
    return {"o": o.transpose(1, 2).to(out_dtype)}
