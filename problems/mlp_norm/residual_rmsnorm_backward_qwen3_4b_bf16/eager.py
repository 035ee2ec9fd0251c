"""residual_rmsnorm_backward_qwen3_4b_bf16 as the original benchmark times it, reconstructed (its
reference is masked; spec.json notes say how): eager PyTorch at the inputs' own dtypes, fp32 compute
(YIGE24/MetaKernelBench problems/_sol_execbench/38_residual_rmsnorm_backward_qwen3_4b_bf16.json at
d90ba286). tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s, h = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"]
    bf16 = torch.bfloat16
    # One forward pass builds the saved activations; every op rounds to bf16, as the original's does.
    x = torch.randn((b, s, h), device="cuda", dtype=bf16)
    x = x * (torch.rand((b, s, 1), device="cuda", dtype=bf16) * 1.5 + 0.5)
    rstd = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
    normalized = x * rstd
    weight = torch.randn((h,), device="cuda", dtype=bf16) * 0.1 + 1.0
    grad_output = torch.randn((b, s, h), device="cuda", dtype=bf16) + 0.5 * normalized * weight
    return {"grad_output": grad_output, "normalized": normalized, "rstd": rstd, "weight": weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    grad_output = inputs["grad_output"]
    normalized, rstd, weight = inputs["normalized"], inputs["rstd"], inputs["weight"]
    compute_dtype = torch.promote_types(grad_output.dtype, torch.float32)
    dy = grad_output.to(compute_dtype)
    grad_weight = (dy * normalized).sum(dim=(0, 1))  # bf16 operands promote to fp32
    g = dy * weight
    dot = (g * normalized).mean(dim=-1, keepdim=True)
    grad_input = (rstd * (g - normalized * dot)).to(grad_output.dtype)
    # The residual add hands the same gradient to both of its inputs.
    return {"grad_hidden_states": grad_input, "grad_residual": grad_input,
            "grad_weight": grad_weight.to(grad_output.dtype)}
