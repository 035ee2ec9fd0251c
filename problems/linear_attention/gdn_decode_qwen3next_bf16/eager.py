"""gdn_decode_qwen3next_bf16 as the original benchmark times it: its public reference(), eager PyTorch at
fp32 with its Python loops over the 64 sequences and 16 value heads (YIGE24/MetaKernelBench
problems/linear_attention/72_gdn_decode_qwen3next_bf16.py at d90ba286). tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F

A_LOG = (-0.169921875, 2.34375, 1.3359375, 2.1875, -0.9375, -1.09375, 1.765625, -0.443359375, 0.91015625, -0.8125,
         2.328125, 0.205078125, 1.375, 2.796875, -0.88671875, -1.3046875)
DT_BIAS = (-2.078125, -5.625, -4.3125, -3.421875, -3.796875, -3.296875, -4.375, -6.25, -3.703125, -0.2890625,
           -5.21875, -6.1875, -3.046875, -5.0625, -4.875, -5.34375)


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    dev = _device()
    B, T, D = symbols["batch_size"], symbols["seq_len"], symbols["head_size"]
    HQ, HK, HV = symbols["num_q_heads"], symbols["num_k_heads"], symbols["num_v_heads"]
    c = constants
    q = c["q_std"] * torch.randn(B, T, HQ, D, device=dev, dtype=torch.bfloat16)
    k = c["k_std"] * torch.randn(B, T, HK, D, device=dev, dtype=torch.bfloat16)
    v = c["v_std"] * torch.randn(B, T, HV, D, device=dev, dtype=torch.bfloat16)
    state = c["state_std"] * torch.randn(B, HV, D, D, device=dev, dtype=torch.float32)
    A_log = torch.tensor(A_LOG[:HV], device=dev, dtype=torch.float32)
    a = (c["a_mean"] + c["a_std"] * torch.randn(B, T, HV, device=dev, dtype=torch.float32)).to(torch.bfloat16)
    dt_bias = torch.tensor(DT_BIAS[:HV], device=dev, dtype=torch.float32)
    b = (c["b_mean"] + c["b_std"] * torch.randn(B, T, HV, device=dev, dtype=torch.float32)).to(torch.bfloat16)
    return {"q": q, "k": k, "v": v, "state": state, "A_log": A_log, "a": a, "dt_bias": dt_bias, "b": b}


@torch.no_grad()
def eager(inputs, symbols, constants):
    q, k, v, state = inputs["q"], inputs["k"], inputs["v"], inputs["state"]
    A_log, a, dt_bias, b = inputs["A_log"], inputs["a"], inputs["dt_bias"], inputs["b"]
    scale = constants["scale"]
    B, _, HQ, _ = q.shape
    HK, HV, V = k.shape[2], v.shape[2], v.shape[3]
    wide = torch.promote_types(q.dtype, torch.float32)

    x = a.to(wide) + dt_bias.to(wide)
    g = torch.exp(-torch.exp(A_log.to(wide)) * F.softplus(x))
    beta = torch.sigmoid(b.to(wide))

    q_w, k_w, v_w = q.squeeze(1).to(wide), k.squeeze(1).to(wide), v.squeeze(1).to(wide)
    g_w, beta_w = g.squeeze(1), beta.squeeze(1)
    state_w = state.to(wide)
    q_rep = q_w.repeat_interleave(HV // HQ, dim=1)
    k_rep = k_w.repeat_interleave(HV // HK, dim=1)

    new_state = torch.zeros_like(state_w)
    output = torch.zeros(B, HV, V, dtype=wide, device=q.device)
    for bi in range(B):
        for h in range(HV):
            q_h, k_h, v_h = q_rep[bi, h], k_rep[bi, h], v_w[bi, h]
            S = state_w[bi, h].clone().transpose(-1, -2)
            g_h, beta_h = g_w[bi, h], beta_w[bi, h]
            old = g_h * S
            old_v = k_h @ old
            new_v = beta_h * v_h + (1 - beta_h) * old_v
            removed = k_h.unsqueeze(1) @ old_v.unsqueeze(0)
            added = k_h.unsqueeze(1) @ new_v.unsqueeze(0)
            S = old - removed + added
            output[bi, h] = scale * (q_h @ S)
            new_state[bi, h] = S.transpose(-1, -2)
    return {"output": output.unsqueeze(1).to(q.dtype), "new_state": new_state}
