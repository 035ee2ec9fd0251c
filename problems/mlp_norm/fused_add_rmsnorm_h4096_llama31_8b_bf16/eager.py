"""fused_add_rmsnorm_h4096_llama31_8b_bf16 as the original benchmark times it: its public reference(),
eager PyTorch at the inputs' own dtypes (YIGE24/MetaKernelBench problems/mlp_norm/
28_fused_add_rmsnorm_h4096_llama31_8b_bf16.py at d90ba286). tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    shape = (symbols["batch_size"], symbols["hidden_size"])
    hidden_states = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    residual = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    # Drawn in fp32 and rounded once, as the original draws it.
    weight = (1 + 0.1 * torch.randn(symbols["hidden_size"], device="cuda")).to(torch.bfloat16)
    return {"hidden_states": hidden_states, "residual": residual, "weight": weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states = inputs["hidden_states"]
    # Everything in fp32 (the promotion of bf16 with fp32); the sum is not rounded to bf16.
    x = hidden_states.float() + inputs["residual"].float()
    inv_rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + constants["eps"])
    y = (x * inv_rms) * inputs["weight"].float()
    return {"y": y.to(hidden_states.dtype)}
