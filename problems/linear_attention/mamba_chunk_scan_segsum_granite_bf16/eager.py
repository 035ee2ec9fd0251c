"""mamba_chunk_scan_segsum_granite_bf16 as the original benchmark times it: eager PyTorch at the inputs'
own dtype (bf16 in, fp32 compute), the Mamba2 chunked scan in Hugging Face's torch_forward style: the
segment-sum decay mask, four einsums per chunk block, the inter-chunk recurrence as a fifth einsum with
the carried-in state, the D residual (YIGE24/MetaKernelBench
problems/_sol_execbench/64_mamba_chunk_scan_segsum_granite_bf16.json at d90ba286, a masked recipe: spec
notes). tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    batch, seq, heads = symbols["batch_size"], symbols["seq_len"], symbols["num_heads"]
    dim, state, groups = symbols["head_dim"], symbols["state_size"], symbols["n_groups"]
    bf16 = torch.bfloat16
    hidden_states = torch.randn(batch, seq, heads, dim, dtype=bf16, device=device)
    A = torch.empty(batch, heads, seq, dtype=bf16, device=device).uniform_(-0.02, -0.0005)
    B = torch.randn(batch, seq, groups, state, dtype=bf16, device=device)
    C = torch.randn(batch, seq, groups, state, dtype=bf16, device=device)
    D = torch.randn(heads, dtype=bf16, device=device)
    initial_states = torch.randn(batch, heads, dim, state, dtype=bf16, device=device)
    return {"hidden_states": hidden_states, "A": A, "B": B, "C": C, "D": D, "initial_states": initial_states}


def _segment_sum(x):
    """seg[..., i, j] = x[..., j+1] + ... + x[..., i] for j <= i, -inf above the diagonal."""
    n = x.size(-1)
    x = x[..., None].expand(*x.size(), n)
    strict = torch.tril(torch.ones(n, n, device=x.device, dtype=torch.bool), diagonal=-1)
    x = x.masked_fill(~strict, 0)
    seg = torch.cumsum(x, dim=-2)
    keep = torch.tril(torch.ones(n, n, device=x.device, dtype=torch.bool), diagonal=0)
    return seg.masked_fill(~keep, float("-inf"))


def _pad_seq(x, pad):
    if pad == 0:
        return x
    widths = (0, 0, 0, 0, 0, pad, 0, 0) if x.dim() == 4 else (0, 0, 0, pad, 0, 0)
    return F.pad(x, widths, mode="constant", value=0)


def _chunks(x, pad, chunk):
    x = _pad_seq(x, pad)
    if x.dim() == 3:
        return x.reshape(x.shape[0], -1, chunk, x.shape[2])
    return x.reshape(x.shape[0], -1, chunk, x.shape[2], x.shape[3])


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states = inputs["hidden_states"]
    wide = torch.promote_types(hidden_states.dtype, torch.float32)
    batch, seq, heads, dim = hidden_states.shape
    state = symbols["state_size"]
    chunk = symbols["chunk_size"]
    pad = (chunk - seq % chunk) % chunk

    x = hidden_states.to(wide)
    a = inputs["A"].to(wide)
    b_in = inputs["B"].to(wide)
    c_in = inputs["C"].to(wide)
    d = inputs["D"].to(wide)
    h0 = inputs["initial_states"].to(wide)

    # One group shared by every head.
    b_heads = b_in.expand(batch, seq, heads, state)
    c_heads = c_in.expand(batch, seq, heads, state)

    skip = d[None, None, :, None] * _pad_seq(x, pad)
    x_c = _chunks(x, pad, chunk)                              # [b, c, l, h, p]
    a_c = _chunks(a.transpose(1, 2), pad, chunk)               # [b, c, l, h]
    b_c = _chunks(b_heads, pad, chunk)                         # [b, c, l, h, n]
    c_c = _chunks(c_heads, pad, chunk)

    a_hc = a_c.permute(0, 3, 1, 2)                             # [b, h, c, l]
    a_cum = torch.cumsum(a_hc, dim=-1)

    # 1. diagonal blocks
    decay_in = torch.exp(_segment_sum(a_hc))                   # [b, h, c, l, s]
    scores = torch.einsum("bcihs,bcjhs->bcijh", c_c, b_c)
    weights = scores * decay_in.permute(0, 2, 3, 4, 1)
    y_diag = torch.einsum("bcijh,bcjhd->bcihd", weights, x_c)

    # 2. each chunk's own final state
    to_end = torch.exp(a_cum[:, :, :, -1:] - a_cum)           # [b, h, c, l]
    b_to_end = b_c * to_end.permute(0, 2, 3, 1)[..., None]
    local = torch.einsum("bcths,bcthd->bchds", b_to_end, x_c)  # [b, c, h, p, n]

    # 3. the recurrence across chunks, from the carried-in state
    stacked = torch.cat([h0[:, None, :, :, :], local], dim=1)
    ends = F.pad(a_cum[:, :, :, -1], (1, 0))
    decay_out = torch.exp(_segment_sum(ends))                  # [b, h, c + 1, c + 1]
    entering = torch.einsum("bhij,bjhds->bihds", decay_out, stacked)
    before_chunk, final_state = entering[:, :-1], entering[:, -1]

    # 4. the states' contribution inside each chunk
    from_start = torch.exp(a_cum)
    c_state = torch.einsum("bcths,bchds->bcthd", c_c, before_chunk)
    y_off = c_state * from_start.permute(0, 2, 3, 1)[..., None]

    y = y_diag + y_off
    y = y.reshape(batch, -1, heads, dim)
    y = y + skip
    if pad > 0:
        y = y[:, :seq, :, :]
    output = y.reshape(batch, seq, heads * dim).to(hidden_states.dtype)
    return {"output": output, "final_state": final_state.to(hidden_states.dtype)}
