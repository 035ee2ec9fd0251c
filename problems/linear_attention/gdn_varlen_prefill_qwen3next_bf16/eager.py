"""gdn_varlen_prefill_qwen3next_bf16 as the original benchmark times it: its public reference(), eager
PyTorch at its dtypes with its Python loops over sequences (.item() syncs) and tokens (YIGE24/MetaKernelBench
problems/linear_attention/71_gdn_varlen_prefill_qwen3next_bf16.py at d90ba286). tests/gpu/eager_check.py
runs it."""
import torch
import torch.nn.functional as F

CU_SEQLENS = (0, 19, 50, 940, 959)
A_LOG = (1.3984375, 1.203125, 2.203125, 0.1474609375, 1.46875, -0.6171875, 1.8125, -1.359375, 0.50390625, 1.03125,
         2.953125, 1.2890625, 1.3203125, 2.109375, 3.34375, 1.78125)
DT_BIAS = (-2.34375, -3.421875, -4.03125, -1.65625, -3.25, 2.046875, -5.625, -2.65625, -2.375, -2.984375, -2.328125,
           -4.09375, -4.25, -3.71875, -4.96875, -3.578125)


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants, cu_seqlens=CU_SEQLENS):
    torch.manual_seed(seed)
    dev = _device()
    T, S, D = symbols["total_seq_len"], symbols["num_seqs"], symbols["head_size"]
    HQ, HK, HV = symbols["num_q_heads"], symbols["num_k_heads"], symbols["num_v_heads"]
    c = constants
    q = F.normalize(torch.randn(T, HQ, D, device=dev, dtype=torch.float32), p=2, dim=-1).to(torch.bfloat16)
    k = F.normalize(torch.randn(T, HK, D, device=dev, dtype=torch.float32), p=2, dim=-1).to(torch.bfloat16)
    v = c["v_std"] * torch.randn(T, HV, D, device=dev, dtype=torch.bfloat16)
    state = c["state_std"] * torch.randn(S, HV, D, D, device=dev, dtype=torch.float32)
    A_log = torch.tensor(A_LOG[:HV], device=dev, dtype=torch.float32)
    a = (c["a_mean"] + c["a_std"] * torch.randn(T, HV, device=dev, dtype=torch.float32)).to(torch.bfloat16)
    dt_bias = torch.tensor(DT_BIAS[:HV], device=dev, dtype=torch.float32)
    b = (c["b_mean"] + c["b_std"] * torch.randn(T, HV, device=dev, dtype=torch.float32)).to(torch.bfloat16)
    bounds = torch.tensor(cu_seqlens, device=dev, dtype=torch.int64)
    return {"q": q, "k": k, "v": v, "state": state, "A_log": A_log, "a": a, "dt_bias": dt_bias, "b": b,
            "cu_seqlens": bounds}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v, state = inputs["q"], inputs["k"], inputs["v"], inputs["state"]
    A_log, a, dt_bias, b, bounds = inputs["A_log"], inputs["a"], inputs["dt_bias"], inputs["b"], inputs["cu_seqlens"]
    scale = constants["scale"]
    T, HQ, D = q.shape
    HK, HV = k.shape[1], v.shape[1]
    heads = max(HQ, HV)
    num_seqs = bounds.size(0) - 1
    wide = torch.promote_types(q.dtype, torch.float32)

    x = a.to(wide) + dt_bias.to(wide)
    g = torch.exp(-torch.exp(A_log.to(wide)) * F.softplus(x))
    beta = torch.sigmoid(b.to(wide))
    q_rep = q.repeat_interleave(HV // HQ, dim=1)
    k_rep = k.repeat_interleave(HV // HK, dim=1)
    output = torch.zeros((T, heads, D), dtype=q.dtype, device=q.device)
    new_state = torch.zeros((num_seqs, heads, D, D), dtype=wide, device=q.device)

    for s in range(num_seqs):
        start = int(bounds[s].item())
        end = int(bounds[s + 1].item())
        S = state[s].clone().to(wide).transpose(-1, -2)  # [H, K, V] view of k-last memory
        for t in range(start, end):
            q_t = q_rep[t].unsqueeze(1).to(wide)      # [H, 1, K]
            k_t = k_rep[t].unsqueeze(1).to(wide)
            v_t = v[t].unsqueeze(1).to(wide)          # [H, 1, V]
            g_t = g[t].unsqueeze(1).unsqueeze(2)      # [H, 1, 1]
            beta_t = beta[t].unsqueeze(1).unsqueeze(2)
            old = g_t * S
            old_v = k_t @ old
            new_v = beta_t * v_t + (1 - beta_t) * old_v
            removed = torch.einsum("hkl,hlv->hkv", k_t.transpose(-1, -2), old_v)
            added = torch.einsum("hkl,hlv->hkv", k_t.transpose(-1, -2), new_v)
            S = old - removed + added
            out_t = scale * (q_t @ S)
            output[t] = out_t.squeeze(1).to(q.dtype)
        new_state[s] = S.transpose(-1, -2)
    return {"output": output, "new_state": new_state}
