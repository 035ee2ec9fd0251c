"""chunk_gated_delta_rule_qwen3next_bf16 as the original benchmark times it: eager PyTorch at the inputs'
own dtype (bf16 in, fp32 compute after a bf16 L2 norm), the chunked gated delta rule as SOL-ExecBench's
definition writes it: the intra-chunk triangular system solved by a Python loop over the 63 rows of each
chunk (six small kernels a row), then a loop over the 4 chunks carrying the [128, 128] state
(YIGE24/MetaKernelBench problems/_sol_execbench/62_chunk_gated_delta_rule_qwen3next_bf16.json at
d90ba286, a masked recipe: spec notes). tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    batch, seq = symbols["batch_size"], symbols["seq_len"]
    hk, hv, dk, dv = symbols["num_k_heads"], symbols["num_v_heads"], symbols["head_k_dim"], symbols["head_v_dim"]
    bf16 = torch.bfloat16
    query = torch.randn(batch, hk, seq, dk, dtype=bf16, device=device)
    key = torch.randn(batch, hk, seq, dk, dtype=bf16, device=device)
    value = torch.randn(batch, hv, seq, dv, dtype=bf16, device=device)
    g = torch.empty(batch, hv, seq, dtype=bf16, device=device).uniform_(-0.05, 0.0)
    beta = torch.randn(batch, hv, seq, dtype=bf16, device=device).sigmoid()
    return {"query": query, "key": key, "value": value, "g": g, "beta": beta}


def _l2norm(x, eps=1e-6):
    return x * torch.rsqrt((x * x).sum(dim=-1, keepdim=True) + eps)


@torch.no_grad()
def eager(inputs, symbols, constants):
    query, key, value, g, beta = (inputs[n] for n in ("query", "key", "value", "g", "beta"))
    scale = constants["scale"]
    wide = torch.promote_types(query.dtype, torch.float32)
    out_dtype = query.dtype
    batch, k_heads, seq, k_dim = key.shape
    v_heads, v_dim = value.shape[1], value.shape[-1]
    chunk = symbols["chunk_size"]

    # L2 norm at the inputs' dtype (bf16), then everything in fp32
    query = _l2norm(query)
    key = _l2norm(key)
    query, key, value, beta, g = query.to(wide), key.to(wide), value.to(wide), beta.to(wide), g.to(wide)
    query = query * scale

    pad = (chunk - seq % chunk) % chunk
    if pad > 0:
        query = F.pad(query, (0, 0, 0, pad))
        key = F.pad(key, (0, 0, 0, pad))
        value = F.pad(value, (0, 0, 0, pad))
        beta = F.pad(beta, (0, pad))
        g = F.pad(g, (0, pad))
    total = seq + pad
    n_chunks = total // chunk
    per_k = v_heads // k_heads

    # value head v reads key/query head v % k_heads (expand over a new leading axis, then reshape)
    v_beta = value * beta.unsqueeze(-1)
    k_beta = key.unsqueeze(1).expand(-1, per_k, -1, -1, -1)
    k_beta = k_beta.reshape(batch, v_heads, total, k_dim)
    k_beta = k_beta * beta.unsqueeze(-1)
    q_c = query.unsqueeze(1).expand(-1, per_k, -1, -1, -1)
    q_c = q_c.reshape(batch, v_heads, total, k_dim)
    q_c = q_c.reshape(batch, v_heads, n_chunks, chunk, k_dim)
    k_c = key.unsqueeze(1).expand(-1, per_k, -1, -1, -1)
    k_c = k_c.reshape(batch, v_heads, total, k_dim)
    k_c = k_c.reshape(batch, v_heads, n_chunks, chunk, k_dim)
    v_c = value.reshape(batch, v_heads, n_chunks, chunk, v_dim)
    kb_c = k_beta.reshape(batch, v_heads, n_chunks, chunk, k_dim)
    vb_c = v_beta.reshape(batch, v_heads, n_chunks, chunk, v_dim)
    g_c = g.reshape(batch, v_heads, n_chunks, chunk)

    g_cum = g_c.cumsum(dim=-1)
    decay = (g_cum.unsqueeze(-1) - g_cum.unsqueeze(-2)).exp()
    decay = decay.tril()
    on_or_above = torch.triu(torch.ones(chunk, chunk, dtype=torch.bool, device=query.device), diagonal=0)
    attn = -(kb_c @ k_c.transpose(-1, -2)) * decay
    attn = attn.masked_fill(on_or_above, 0)
    # forward substitution, one row at a time
    for i in range(1, chunk):
        row = attn[..., i, :i].clone()
        sub = attn[..., :i, :i].clone()
        attn[..., i, :i] = row + (row.unsqueeze(-1) * sub).sum(-2)
    attn = attn + torch.eye(chunk, dtype=attn.dtype, device=attn.device)
    v_solved = attn @ vb_c
    k_cumdecay = attn @ (kb_c * g_c.exp().unsqueeze(-1))

    state = torch.zeros(batch, v_heads, k_dim, v_dim, dtype=wide, device=value.device)
    out = torch.zeros(batch, v_heads, n_chunks, chunk, v_dim, dtype=wide, device=value.device)
    above = torch.triu(torch.ones(chunk, chunk, dtype=torch.bool, device=query.device), diagonal=1)
    for c in range(n_chunks):
        q_i, k_i = q_c[:, :, c], k_c[:, :, c]
        v_i, kcd_i = v_solved[:, :, c], k_cumdecay[:, :, c]
        g_i, decay_i = g_c[:, :, c], decay[:, :, c]
        intra = (q_i @ k_i.transpose(-1, -2)) * decay_i
        intra = intra.masked_fill_(above, 0)
        v_new = v_i - kcd_i @ state
        inter = (q_i * g_i.exp().unsqueeze(-1)) @ state
        out[:, :, c] = inter + intra @ v_new
        # the state's decay uses the chunk's last raw log-gate (not its cumulative sum), as the definition does
        state = state * g_i[:, :, -1].exp().unsqueeze(-1).unsqueeze(-1)
        to_last = (g_i[:, :, -1].unsqueeze(-1) - g_i).exp().unsqueeze(-1)
        state = state + (k_i * to_last).transpose(-1, -2) @ v_new

    out = out.reshape(batch, v_heads, total, v_dim)
    out = out[:, :, :seq]
    return {"output": out.transpose(1, 2).contiguous().to(out_dtype)}
