"""embedding_rmsnorm_backward_jamba_bf16 as the original benchmark times it, reconstructed (its reference
is masked; spec.json notes say how): eager PyTorch at the inputs' own dtypes, fp32 compute
(YIGE24/MetaKernelBench problems/_sol_execbench/43_embedding_rmsnorm_backward_jamba_bf16.json at
d90ba286). tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s, v, h = symbols["batch_size"], symbols["seq_len"], symbols["vocab_size"], symbols["hidden_size"]
    grad_output = torch.randn((b, s, h), device="cuda", dtype=torch.bfloat16)
    input_ids = torch.randint(0, v, (b, s), device="cuda", dtype=torch.int64)
    hidden_states_fp32 = torch.randn((b, s, h), device="cuda", dtype=torch.float32)
    variance = torch.rand((b, s, 1), device="cuda", dtype=torch.float32) * 1.5 + 0.5
    rstd = torch.rsqrt(variance + 1e-6)
    norm_weight = torch.randn((h,), device="cuda", dtype=torch.bfloat16) * 0.1 + 1.0
    return {"grad_output": grad_output, "input_ids": input_ids, "hidden_states_fp32": hidden_states_fp32,
            "rstd": rstd, "norm_weight": norm_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    grad_output, rstd = inputs["grad_output"], inputs["rstd"]
    compute_dtype = torch.promote_types(grad_output.dtype, torch.float32)
    dy = grad_output.to(compute_dtype)
    normalized = inputs["hidden_states_fp32"] * rstd
    grad_weight = (dy * normalized).sum(dim=(0, 1))
    g = dy * inputs["norm_weight"].to(compute_dtype)
    dot = (g * normalized).mean(dim=-1, keepdim=True)
    grad_hidden = rstd * (g - normalized * dot)
    hidden = symbols["hidden_size"]
    grad_embedding = torch.zeros((symbols["vocab_size"], hidden), dtype=compute_dtype, device=grad_output.device)
    grad_embedding.index_add_(0, inputs["input_ids"].reshape(-1), grad_hidden.reshape(-1, hidden))
    return {"grad_embedding": grad_embedding.to(grad_output.dtype), "grad_weight": grad_weight.to(grad_output.dtype)}
