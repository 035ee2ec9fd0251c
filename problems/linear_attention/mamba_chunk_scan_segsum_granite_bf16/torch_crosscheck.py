"""mamba_chunk_scan_segsum_granite_bf16 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): the same chunked scan written as the plain state-space recurrence
h_t = exp(A_t) h_{t-1} + x_t B_t^T, y_t = h_t C_t + D x_t, run over the chunks with matrix products
(the chunked form equals it exactly; the anchor runs the recurrence token by token)."""
import torch


def reference(inputs, symbols, constants):
    x, a = inputs["hidden_states"], inputs["A"]               # x [b, t, h, p], a [b, h, t]
    B, C, D = inputs["B"][:, :, 0], inputs["C"][:, :, 0], inputs["D"]   # B, C [b, t, n]
    h = inputs["initial_states"].clone()                      # [b, h, p, n]
    batch, seq, heads, dim = x.shape
    chunk = symbols["chunk_size"]
    out = torch.empty_like(x)
    for start in range(0, seq, chunk):
        sl = slice(start, start + chunk)
        cum = torch.cumsum(a[:, :, sl], dim=-1)                # [b, h, l]
        diff = cum[..., :, None] - cum[..., None, :]
        causal = torch.ones(chunk, chunk, dtype=torch.bool, device=x.device).tril()
        decay = torch.where(causal, torch.exp(diff), torch.zeros_like(diff))       # [b, h, l, s]
        cb = torch.einsum("bln,bsn->bls", C[:, sl], B[:, sl])
        intra = torch.einsum("bhls,bls,bshp->blhp", decay, cb, x[:, sl])
        inter = torch.einsum("bln,bhpn,bhl->blhp", C[:, sl], h, torch.exp(cum))
        out[:, sl] = intra + inter + D[None, None, :, None] * x[:, sl]
        to_end = torch.exp(cum[..., -1:] - cum)                # [b, h, l]
        h = h * torch.exp(cum[..., -1])[..., None, None] + torch.einsum("bhl,blhp,bln->bhpn", to_end, x[:, sl], B[:, sl])
    return {"output": out.reshape(batch, seq, heads * dim), "final_state": h}
