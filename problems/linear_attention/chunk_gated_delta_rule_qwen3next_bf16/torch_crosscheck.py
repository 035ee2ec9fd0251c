"""chunk_gated_delta_rule_qwen3next_bf16 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). The intra-chunk system is solved as what the reference's row loop
computes, T = (I - L)^-1 with L = -(beta k k^T * decay) strictly below the diagonal (a triangular solve,
not the loop), then the chunk recurrence exactly as the definition writes it (its inter-chunk decays use
the chunk's raw log-gates g, not their cumulative sums)."""
import torch


def reference(inputs, symbols, constants):
    q, k, v, g, beta = (inputs[n] for n in ("query", "key", "value", "g", "beta"))
    hk, hv = symbols["num_k_heads"], symbols["num_v_heads"]
    chunk = symbols["chunk_size"]
    batch, _, seq, dk = q.shape
    dv = v.shape[-1]
    q = q / torch.sqrt((q * q).sum(-1, keepdim=True) + 1e-6) * constants["scale"]
    k = k / torch.sqrt((k * k).sum(-1, keepdim=True) + 1e-6)
    heads = torch.arange(hv, device=q.device) % hk            # value head v reads key head v % hk
    q, k = q[:, heads], k[:, heads]                           # [b, hv, t, dk]
    n = seq // chunk
    qc, kc = q.reshape(batch, hv, n, chunk, dk), k.reshape(batch, hv, n, chunk, dk)
    vc = v.reshape(batch, hv, n, chunk, dv)
    gc, bc = g.reshape(batch, hv, n, chunk), beta.reshape(batch, hv, n, chunk)
    cum = gc.cumsum(-1)
    lower = torch.ones(chunk, chunk, dtype=torch.bool, device=q.device).tril()
    decay = torch.where(lower, torch.exp(cum[..., :, None] - cum[..., None, :]), torch.zeros((), dtype=q.dtype, device=q.device))
    strict = lower & ~torch.eye(chunk, dtype=torch.bool, device=q.device)
    L = torch.where(strict, -(bc[..., :, None] * (kc @ kc.transpose(-1, -2))) * decay, torch.zeros((), dtype=q.dtype, device=q.device))
    eye = torch.eye(chunk, dtype=q.dtype, device=q.device)
    T = torch.linalg.solve_triangular(eye - L, eye.expand_as(L), upper=False)
    u = T @ (bc[..., None] * vc)
    w = T @ (bc[..., None] * torch.exp(gc)[..., None] * kc)
    state = torch.zeros(batch, hv, dk, dv, dtype=q.dtype, device=q.device)
    out = torch.empty(batch, hv, n, chunk, dv, dtype=q.dtype, device=q.device)
    for c in range(n):
        g_i = gc[:, :, c]
        v_new = u[:, :, c] - w[:, :, c] @ state
        intra = (qc[:, :, c] @ kc[:, :, c].transpose(-1, -2)) * decay[:, :, c]
        out[:, :, c] = (torch.exp(g_i)[..., None] * qc[:, :, c]) @ state + intra @ v_new
        last = g_i[..., -1:]
        state = state * torch.exp(last)[..., None] + (torch.exp(last - g_i)[..., None] * kc[:, :, c]).transpose(-1, -2) @ v_new
    return {"output": out.reshape(batch, hv, seq, dv).transpose(1, 2)}
