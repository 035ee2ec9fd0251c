import torch
import torch.nn.functional as F


def reference(inputs, symbols, constants):
    """The reconstructed Gemma 3 attention core's forward in float64, differentiated by autograd (an
    independent derivation of the hand-written backward the anchor computes): no rounding."""
    f64 = torch.float64
    x = inputs["hidden_states"].to(f64).detach().requires_grad_(True)
    names = ("q_weight", "k_weight", "v_weight", "o_weight", "q_norm_weight", "k_norm_weight")
    wq, wk, wv, wo, wqn, wkn = (inputs[n].to(f64).detach().requires_grad_(True) for n in names)
    cos, sin = inputs["cos"].to(f64)[:, None], inputs["sin"].to(f64)[:, None]   # [B, 1, S, D]
    nh, nkv, hd = symbols["num_attention_heads"], symbols["num_key_value_heads"], symbols["head_dim"]
    cap, scale, eps = constants["attn_logit_softcapping"], constants["scaling"], constants["rms_norm_eps"]
    B, S, _ = x.shape

    def heads(t, n):
        return t.view(B, S, n, hd).permute(0, 2, 1, 3)

    def norm(t, w):  # Gemma3RMSNorm
        return t / torch.sqrt(t.square().mean(-1, keepdim=True) + eps) * (1 + w)

    def rope(t):
        x1, x2 = t.chunk(2, dim=-1)
        return t * cos + torch.cat((-x2, x1), dim=-1) * sin

    with torch.enable_grad():
        q = rope(norm(heads(x @ wq.T, nh), wqn))
        k = rope(norm(heads(x @ wk.T, nkv), wkn)).repeat_interleave(nh // nkv, dim=1)
        v = heads(x @ wv.T, nkv).repeat_interleave(nh // nkv, dim=1)
        logits = cap * torch.tanh(torch.einsum("bhqd,bhkd->bhqk", q, k) * scale / cap)
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()
        logits = logits.where(causal, torch.tensor(float("-inf"), dtype=f64, device=x.device))
        out = torch.einsum("bhqk,bhkd->bhqd", torch.softmax(logits, dim=-1), v)
        y = out.permute(0, 2, 1, 3).reshape(B, S, nh * hd) @ wo.T
        grads = torch.autograd.grad(y, (x, wq, wk, wv, wo, wqn, wkn), grad_outputs=inputs["grad_output"].to(f64))
    keys = ("grad_hidden_states", "grad_q_weight", "grad_k_weight", "grad_v_weight", "grad_o_weight",
            "grad_q_norm_weight", "grad_k_norm_weight")
    return dict(zip(keys, grads))
