"""gdn_mtp_qwen3next_bf16 as the original benchmark times it: its public reference(), eager PyTorch at fp32
with its Python loops over sequences (with an .item() host sync each), draft tokens and value heads
(YIGE24/MetaKernelBench problems/linear_attention/73_gdn_mtp_qwen3next_bf16.py at d90ba286).
tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F

A_LOG = (-1.046875, -0.5234375, -1.828125, -1.15625, -0.0244140625, 0.28515625, -1.9921875, -2.0, 0.11962890625,
         0.3671875, -1.59375, -1.34375, 0.333984375, -1.640625, -0.5234375, -0.2890625)
DT_BIAS = (-5.25, -5.75, -2.015625, -3.3125, -6.25, -6.65625, -0.88671875, -0.6328125, -4.8125, -5.28125, -1.7578125,
           -3.484375, 2.3125, -6.40625, -6.34375, -6.75)


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    dev = _device()
    B, T, D, pool = symbols["batch_size"], symbols["seq_len"], symbols["head_size"], symbols["pool_size"]
    HQ, HK, HV = symbols["num_q_heads"], symbols["num_k_heads"], symbols["num_v_heads"]
    c = constants
    q = c["q_std"] * torch.randn(B, T, HQ, D, device=dev, dtype=torch.bfloat16)
    k = c["k_std"] * torch.randn(B, T, HK, D, device=dev, dtype=torch.bfloat16)
    v = c["v_std"] * torch.randn(B, T, HV, D, device=dev, dtype=torch.bfloat16)
    initial_state = c["state_std"] * torch.randn(pool, HV, D, D, device=dev, dtype=torch.float32)
    indices = torch.randperm(pool, device=dev)[:B].to(torch.int32)
    A_log = torch.tensor(A_LOG[:HV], device=dev, dtype=torch.float32)
    a = (c["a_mean"] + c["a_std"] * torch.randn(B, T, HV, device=dev, dtype=torch.float32)).to(torch.bfloat16)
    dt_bias = torch.tensor(DT_BIAS[:HV], device=dev, dtype=torch.float32)
    b = (c["b_mean"] + c["b_std"] * torch.randn(B, T, HV, device=dev, dtype=torch.float32)).to(torch.bfloat16)
    return {"q": q, "k": k, "v": v, "initial_state": initial_state, "initial_state_indices": indices,
            "A_log": A_log, "a": a, "dt_bias": dt_bias, "b": b}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    pool, indices = inputs["initial_state"], inputs["initial_state_indices"]
    A_log, a, dt_bias, b = inputs["A_log"], inputs["a"], inputs["dt_bias"], inputs["b"]
    scale = constants["scale"]
    B, T, HQ, D = q.shape
    HK, HV = k.shape[2], v.shape[2]
    wide = torch.promote_types(q.dtype, torch.float32)

    x = a.to(wide) + dt_bias.to(wide)
    g = torch.exp(-torch.exp(A_log.to(wide)) * F.softplus(x))
    beta = torch.sigmoid(b.to(wide))
    q_rep = q.repeat_interleave(HV // HQ, dim=2)
    k_rep = k.repeat_interleave(HV // HK, dim=2)
    output = torch.zeros((B, T, HV, D), dtype=q.dtype, device=q.device)

    for bi in range(B):
        slot = int(indices[bi].item())
        states = pool[slot].clone().to(wide).transpose(-1, -2)  # [HV, K, V] views of k-last memory
        for t in range(T):
            q_t, k_t, v_t = q_rep[bi, t].to(wide), k_rep[bi, t].to(wide), v[bi, t].to(wide)
            g_t, beta_t = g[bi, t], beta[bi, t]
            for h in range(HV):
                S = states[h]
                old = g_t[h] * S
                old_v = k_t[h] @ old
                new_v = beta_t[h] * v_t[h] + (1 - beta_t[h]) * old_v
                removed = k_t[h].unsqueeze(1) @ old_v.unsqueeze(0)
                added = k_t[h].unsqueeze(1) @ new_v.unsqueeze(0)
                S = old - removed + added
                output[bi, t, h] = (scale * (q_t[h] @ S)).to(q.dtype)
                states[h] = S
    return {"output": output, "final_state": pool.clone()}
