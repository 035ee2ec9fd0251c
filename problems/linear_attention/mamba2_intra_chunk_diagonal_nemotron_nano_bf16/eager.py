"""mamba2_intra_chunk_diagonal_nemotron_nano_bf16 as the original benchmark times it: eager PyTorch at
the inputs' own dtype (bf16 inputs, fp32 compute), the Hugging Face Mamba2 torch_forward way of forming
the diagonal block: the segment sum by expand / masked_fill / cumsum, C B^T and the product with X as
broadcast products summed over an axis (two 4.3 GB fp32 temporaries) (YIGE24/MetaKernelBench
problems/_sol_execbench/65_mamba2_intra_chunk_diagonal_nemotron_nano_bf16.json at d90ba286, a masked
recipe: spec notes). tests/gpu/eager_check.py runs it."""
import torch


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    batch, chunks, length = symbols["batch_size"], symbols["num_chunks"], symbols["chunk_size"]
    heads, dim = symbols["num_heads"], symbols["head_dim"]
    groups, state = symbols["n_groups"], symbols["state_size"]
    bf16 = torch.bfloat16
    a_cumsum = torch.empty(batch, heads, chunks, length, dtype=bf16, device=device).uniform_(-0.02, 0.0)
    hidden_states = torch.randn(batch, chunks, length, heads, dim, dtype=bf16, device=device)
    B = torch.randn(batch, chunks, length, groups, state, dtype=bf16, device=device)
    C = torch.randn(batch, chunks, length, groups, state, dtype=bf16, device=device)
    return {"hidden_states": hidden_states, "a_cumsum": a_cumsum, "B": B, "C": C}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, a_cumsum = inputs["hidden_states"], inputs["a_cumsum"]
    wide = torch.promote_types(hidden_states.dtype, torch.float32)
    length = symbols["chunk_size"]
    repeat = symbols["num_heads"] // symbols["n_groups"]

    # Segment sums: seg[..., l, s] = a[s+1] + ... + a[l] for s <= l, -inf above the diagonal.
    spread = a_cumsum[..., None].expand(*a_cumsum.size(), length).to(wide)
    below = torch.tril(torch.ones(length, length, device=spread.device, dtype=torch.bool), diagonal=-1)
    spread = spread.masked_fill(~below, 0)
    seg = torch.cumsum(spread, dim=-2)
    on_or_below = torch.tril(torch.ones(length, length, device=spread.device, dtype=torch.bool), diagonal=0)
    seg = seg.masked_fill(~on_or_below, -torch.inf)
    decay = torch.exp(seg)                                       # [b, h, c, l, s]

    b_heads = inputs["B"].to(wide)
    c_heads = inputs["C"].to(wide)
    b_heads = b_heads.repeat_interleave(repeat, dim=-2)          # head h reads group h // repeat
    c_heads = c_heads.repeat_interleave(repeat, dim=-2)

    c_rows = c_heads[:, :, :, None, :, :]                       # [b, c, l, 1, h, n]
    b_cols = b_heads[:, :, None, :, :, :]                       # [b, c, 1, s, h, n]
    scores = (c_rows * b_cols).sum(dim=-1)                      # [b, c, l, s, h]
    decay_last = decay.permute(0, 2, 3, 4, 1)                   # [b, c, l, s, h]
    weights = scores * decay_last

    x = hidden_states.to(wide)
    w_full = weights[..., None]                                 # [b, c, l, s, h, 1]
    x_full = x[:, :, None, :, :, :]                             # [b, c, 1, s, h, p]
    y_diag = (w_full * x_full).sum(dim=3)                       # [b, c, l, h, p]
    return {"y_diag": y_diag.to(hidden_states.dtype)}
