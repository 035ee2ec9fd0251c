"""magnitude_normalized_collapse_gemma3n_e2b_altup_bf16 (MetaKernelBench #40) as eager PyTorch: bf16 tensors,
fp32 math. The original's reference is masked (YIGE24/MetaKernelBench
problems/_sol_execbench/40_magnitude_normalized_collapse_gemma3n_e2b_altup_bf16.json at d90ba286): this is the
reconstruction spec.json's notes describe. tests/gpu/eager_check.py runs it."""
import torch


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    n, b, s = symbols["altup_num_inputs"], symbols["batch_size"], symbols["seq_len"]
    hid = symbols["hidden_size"]
    hidden_states = torch.randn((n, b, s, hid), device="cuda", dtype=torch.bfloat16)
    unembed_weight_1 = torch.randn((hid, hid), device="cuda", dtype=torch.bfloat16)
    unembed_weight_2 = torch.randn((hid, hid), device="cuda", dtype=torch.bfloat16)
    return {"hidden_states": hidden_states, "unembed_weight_1": unembed_weight_1,
            "unembed_weight_2": unembed_weight_2}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states = inputs["hidden_states"]
    compute_dtype = torch.promote_types(hidden_states.dtype, torch.float32)
    eps = constants["eps"]
    stream0 = hidden_states[0].to(compute_dtype)
    target_magnitude = torch.mean(stream0 ** 2, dim=-1, keepdim=True) ** 0.5
    streams = [stream0]
    # stream 1, then stream 2: the same block with its own projection
    for index, weight in ((1, inputs["unembed_weight_1"]), (2, inputs["unembed_weight_2"])):
        projected = hidden_states[index].to(compute_dtype) @ weight.to(compute_dtype).t()
        new_magnitude = torch.sqrt(torch.mean(projected ** 2, dim=-1, keepdim=True).clamp_min(eps))
        streams.append(projected * target_magnitude / new_magnitude)
    collapsed = torch.stack(streams, dim=0).mean(dim=0)
    return {"out": collapsed.to(hidden_states.dtype)}
