"""multiscale_retention_retnet_bf16 as the original benchmark times it: its public reference(), eager PyTorch
at fp32 (YIGE24/MetaKernelBench problems/linear_attention/70_multiscale_retention_retnet_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import torch


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    dev = _device()
    B, H, L = symbols["batch_size"], symbols["num_heads"], symbols["seq_len"]
    K, V = symbols["key_dim"], symbols["value_dim"]
    q = torch.randn(B, H, L, K, dtype=torch.bfloat16, device=dev)
    k = torch.randn(B, H, L, K, dtype=torch.bfloat16, device=dev)
    v = torch.randn(B, H, L, V, dtype=torch.bfloat16, device=dev)
    return {"q": q, "k": k, "v": v}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    out_dtype = q.dtype
    wide = torch.promote_types(q.dtype, torch.float32)
    q, k, v = q.to(wide), k.to(wide), v.to(wide)
    _, heads, length, d_head = q.shape
    # Host tensors (range(...)) moved to the device, as the reference builds them.
    exponents = -5.0 - q.new_tensor(range(heads), dtype=wide)
    s = (1 - q.new_tensor(2.0, dtype=wide).pow(exponents)).log2()
    pos = q.new_tensor(range(length), dtype=wide)
    decay = torch.exp2((pos.unsqueeze(-1) - pos) * s.view(-1, 1, 1)) * pos.unsqueeze(-1).ge(pos)
    scores = torch.einsum("bhqd,bhkd,hqk->bhqk", q * d_head ** -0.5, k, decay.to(q.dtype))
    o = torch.einsum("bhqk,bhkd->bhqd", scores, v)
    return {"o": o.to(out_dtype)}
