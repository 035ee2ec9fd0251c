"""rmsnorm_h128_qwen3_30b_bf16 as the original benchmark times it: its public reference(), eager
PyTorch at the inputs' own dtypes (YIGE24/MetaKernelBench problems/mlp_norm/
36_rmsnorm_h128_qwen3_30b_bf16.py at d90ba286). tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    hidden_states = torch.randn(symbols["batch_size"], symbols["hidden_size"], device="cuda", dtype=torch.bfloat16)
    # Drawn in fp32 and rounded once, as the original draws it.
    weight = (1 + 0.1 * torch.randn(symbols["hidden_size"], device="cuda")).to(torch.bfloat16)
    return {"hidden_states": hidden_states, "weight": weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states = inputs["hidden_states"]
    x = hidden_states.float()  # the promotion of bf16 with fp32: everything below in fp32
    inv_rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + constants["eps"])
    y = (x * inv_rms) * inputs["weight"].float()
    return {"y": y.to(hidden_states.dtype)}
