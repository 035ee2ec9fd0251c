"""patch_merger_mlp_qwen3_omni_bf16 as the original benchmark times it, reconstructed (the original's reference
and make_inputs are partly masked: YIGE24/MetaKernelBench problems/_sol_execbench/
27_patch_merger_mlp_qwen3_omni_bf16.json at d90ba286; spec notes list the choices): eager PyTorch at the
inputs' own dtypes. tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def grids(symbols):
    """(t, h, w) of every grid, by the original's make_inputs arithmetic (host integers only)."""
    per_grid = symbols["num_patches"] // symbols["num_grids"]
    m = symbols["merge_size"]
    remaining, rows = symbols["num_patches"], []
    for i in range(symbols["num_grids"]):
        n = remaining if i == symbols["num_grids"] - 1 else per_grid
        side = int(math.sqrt(n))
        h = (side // m) * m
        w = (n // h // m) * m
        t = n // (h * w)
        rows.append((t, h, w))
        remaining -= t * h * w
    return rows


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    p, c = symbols["num_patches"], symbols["hidden_size"]
    e, o = symbols["hidden_size_expanded"], symbols["out_hidden_size"]
    bf16 = torch.bfloat16

    def randn(*shape):
        return torch.randn(shape, device="cuda", dtype=bf16)

    grid_thw = torch.tensor(grids(symbols), device="cuda", dtype=torch.int64)
    hidden = randn(p, c)
    hidden = hidden + randn(p, 1) * 0.5  # per-token mean offset, bf16 arithmetic
    ln_weight = randn(c) * 0.1 + 1.0
    ln_bias = randn(c) * 0.1
    fc1_weight = randn(e, e) / math.sqrt(e)
    fc1_bias = randn(e)
    fc2_weight = randn(o, e) / math.sqrt(e)
    fc2_bias = randn(o)
    return {"hidden": hidden, "grid_thw": grid_thw, "ln_weight": ln_weight, "ln_bias": ln_bias,
            "fc1_weight": fc1_weight, "fc1_bias": fc1_bias, "fc2_weight": fc2_weight, "fc2_bias": fc2_bias}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden = inputs["hidden"]
    m, c = symbols["merge_size"], symbols["hidden_size"]
    compute_dtype = torch.promote_types(hidden.dtype, torch.float32)
    wide = hidden.to(compute_dtype)
    mean = wide.mean(dim=-1, keepdim=True)
    var = wide.var(dim=-1, unbiased=False, keepdim=True)
    normed = (wide - mean) * torch.rsqrt(var + constants["eps"])
    normed = normed * inputs["ln_weight"].to(compute_dtype) + inputs["ln_bias"].to(compute_dtype)
    hidden = normed.to(hidden.dtype)
    # The grids come from symbols (the make_inputs arithmetic) rather than grid_thw[i, j].item(), so that no
    # host sync breaks CUDA-graph capture; the device work is the same.
    pieces, offset = [], 0
    for t, h, w in grids(symbols):
        n = t * h * w
        piece = hidden[offset:offset + n].view(t, h // m, m, w // m, m, c).permute(0, 1, 3, 2, 4, 5)
        pieces.append(piece.reshape(t * (h // m) * (w // m), m * m * c))
        offset += n
    merged = torch.cat(pieces, dim=0)
    hidden_fc1 = F.linear(merged, inputs["fc1_weight"], inputs["fc1_bias"])
    hidden_gelu = F.gelu(hidden_fc1)
    return {"output": F.linear(hidden_gelu, inputs["fc2_weight"], inputs["fc2_bias"])}
