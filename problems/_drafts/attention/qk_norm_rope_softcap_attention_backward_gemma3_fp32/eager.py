"""qk_norm_rope_softcap_attention_backward_gemma3_fp32 (MetaKernelBench #10) as eager PyTorch at fp32. The
original's reference body is masked (YIGE24/MetaKernelBench
problems/_sol_execbench/10_qk_norm_rope_softcap_attention_backward_gemma3_fp32.json at d90ba286): this is the
reconstruction spec.json's notes describe, a forward recompute and a hand-written backward.
tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s, hid = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"]
    hd, qp, kvp = symbols["head_dim"], symbols["q_proj_out"], symbols["kv_proj_out"]
    dev, f32 = torch.device("cuda"), torch.float32
    grad_output = torch.randn(b, s, hid, device=dev, dtype=f32)
    hidden_states = torch.randn(b, s, hid, device=dev, dtype=f32)
    q_weight = torch.randn(qp, hid, device=dev, dtype=f32) / math.sqrt(hid)
    k_weight = torch.randn(kvp, hid, device=dev, dtype=f32) / math.sqrt(hid)
    v_weight = torch.randn(kvp, hid, device=dev, dtype=f32) / math.sqrt(hid)
    o_weight = torch.randn(hid, qp, device=dev, dtype=f32) / math.sqrt(qp)
    q_norm_weight = 0.1 * torch.randn(hd, device=dev, dtype=f32)
    k_norm_weight = 0.1 * torch.randn(hd, device=dev, dtype=f32)
    # The rotary table of positions 0..s-1, the same for every batch row.
    half_dim = hd // 2
    idx = torch.arange(0, half_dim, device=dev, dtype=f32)
    inv_freq = 1.0 / (constants["rope_theta"] ** (idx / half_dim))
    pos = torch.arange(s, device=dev, dtype=f32)
    freqs = torch.outer(pos, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = emb.cos()[None].expand(b, -1, -1).contiguous()
    sin = emb.sin()[None].expand(b, -1, -1).contiguous()
    return {"grad_output": grad_output, "hidden_states": hidden_states, "cos": cos, "sin": sin,
            "q_weight": q_weight, "k_weight": k_weight, "v_weight": v_weight, "o_weight": o_weight,
            "q_norm_weight": q_norm_weight, "k_norm_weight": k_norm_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    grad_output, hidden_states = inputs["grad_output"], inputs["hidden_states"]
    cos, sin = inputs["cos"], inputs["sin"]
    q_weight, k_weight, v_weight, o_weight = (inputs[n] for n in ("q_weight", "k_weight", "v_weight", "o_weight"))
    q_norm_weight, k_norm_weight = inputs["q_norm_weight"], inputs["k_norm_weight"]
    scaling, softcap = constants["scaling"], constants["attn_logit_softcapping"]
    eps = constants["rms_norm_eps"]
    nh, nkv, hd = symbols["num_attention_heads"], symbols["num_key_value_heads"], symbols["head_dim"]
    n_rep = nh // nkv
    hidden = symbols["hidden_size"]

    B, S, _ = hidden_states.shape
    compute_dtype = torch.promote_types(hidden_states.dtype, torch.float32)

    # ---- forward recompute ----
    q = F.linear(hidden_states, q_weight)
    k = F.linear(hidden_states, k_weight)
    v = F.linear(hidden_states, v_weight)

    q = q.view(B, S, nh, hd).transpose(1, 2)
    k = k.view(B, S, nkv, hd).transpose(1, 2)
    v = v.view(B, S, nkv, hd).transpose(1, 2)

    q_var = q.pow(2).mean(-1, keepdim=True)
    q_hat = q * torch.rsqrt(q_var + eps)
    q_n = q_hat * (1.0 + q_norm_weight)

    k_var = k.pow(2).mean(-1, keepdim=True)
    k_hat = k * torch.rsqrt(k_var + eps)
    k_n = k_hat * (1.0 + k_norm_weight)

    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)

    half = hd // 2
    q1 = q_n[..., :half]
    q2 = q_n[..., half:]
    q_rot = torch.cat((-q2, q1), dim=-1)
    q_emb = q_n * cos + q_rot * sin

    k1 = k_n[..., :half]
    k2 = k_n[..., half:]
    k_rot = torch.cat((-k2, k1), dim=-1)
    k_emb = k_n * cos + k_rot * sin

    k_rep = k_emb[:, :, None, :, :].expand(B, nkv, n_rep, S, hd).reshape(B, nh, S, hd)
    v_rep = v[:, :, None, :, :].expand(B, nkv, n_rep, S, hd).reshape(B, nh, S, hd)

    scores = torch.matmul(q_emb, k_rep.transpose(2, 3)) * scaling
    scores = scores / softcap
    t = torch.tanh(scores)
    scores = t * softcap

    mask = torch.triu(torch.ones(S, S, dtype=torch.bool, device=hidden_states.device), diagonal=1)
    scores = scores.masked_fill(mask, -float("inf"))

    probs = torch.softmax(scores, dim=-1, dtype=compute_dtype)
    attn = torch.matmul(probs, v_rep)

    # ---- backward ----
    ctx = attn.transpose(1, 2).contiguous()
    grad_o_weight = grad_output.reshape(-1, hidden).t() @ ctx.reshape(-1, nh * hd)

    d_attn = torch.matmul(grad_output, o_weight).view(B, S, nh, hd).transpose(1, 2)

    d_probs = torch.matmul(d_attn, v_rep.transpose(2, 3))
    d_v_rep = torch.matmul(probs.transpose(2, 3), d_attn)

    sum_term = (d_probs * probs).sum(dim=-1, keepdim=True)
    d_capped = probs * (d_probs - sum_term)
    d_scores = d_capped * (1.0 - t.pow(2))
    d_scores = d_scores * scaling

    d_q_emb = torch.matmul(d_scores, k_rep)
    d_k_rep = torch.matmul(d_scores.transpose(2, 3), q_emb)

    d_k_emb = d_k_rep.view(B, nkv, n_rep, S, hd).sum(dim=2)
    d_v = d_v_rep.view(B, nkv, n_rep, S, hd).sum(dim=2)

    dq_cos = d_q_emb * cos
    dq_sin = d_q_emb * sin
    a1 = dq_sin[..., :half]
    a2 = dq_sin[..., half:]
    d_q_n = dq_cos + torch.cat((a2, -a1), dim=-1)

    dk_cos = d_k_emb * cos
    dk_sin = d_k_emb * sin
    b1 = dk_sin[..., :half]
    b2 = dk_sin[..., half:]
    d_k_n = dk_cos + torch.cat((b2, -b1), dim=-1)

    d_q_hat = d_q_n * (1.0 + q_norm_weight)
    grad_q_norm_weight = (d_q_n * q_hat).sum(dim=(0, 1, 2))
    q_rstd = torch.rsqrt(q_var + eps)
    q_dot = (d_q_hat * q_hat).mean(dim=-1, keepdim=True)
    d_q = q_rstd * (d_q_hat - q_hat * q_dot)

    d_k_hat = d_k_n * (1.0 + k_norm_weight)
    grad_k_norm_weight = (d_k_n * k_hat).sum(dim=(0, 1, 2))
    k_rstd = torch.rsqrt(k_var + eps)
    k_dot = (d_k_hat * k_hat).mean(dim=-1, keepdim=True)
    d_k = k_rstd * (d_k_hat - k_hat * k_dot)

    d_q_flat = d_q.transpose(1, 2).contiguous().view(B, S, -1)
    d_k_flat = d_k.transpose(1, 2).contiguous().view(B, S, -1)
    d_v_flat = d_v.transpose(1, 2).contiguous().view(B, S, -1)

    grad_q_weight = d_q_flat.reshape(-1, nh * hd).t() @ hidden_states.reshape(-1, hidden)
    grad_k_weight = d_k_flat.reshape(-1, nkv * hd).t() @ hidden_states.reshape(-1, hidden)
    grad_v_weight = d_v_flat.reshape(-1, nkv * hd).t() @ hidden_states.reshape(-1, hidden)

    dx_q = torch.matmul(d_q_flat, q_weight)
    dx_k = torch.matmul(d_k_flat, k_weight)
    dx_v = torch.matmul(d_v_flat, v_weight)

    grad_hidden_states = dx_q + dx_k + dx_v

    return {"grad_hidden_states": grad_hidden_states, "grad_q_weight": grad_q_weight,
            "grad_k_weight": grad_k_weight, "grad_v_weight": grad_v_weight, "grad_o_weight": grad_o_weight,
            "grad_q_norm_weight": grad_q_norm_weight, "grad_k_norm_weight": grad_k_norm_weight}
