"""varlen_vision_attention_qwen_image_edit_bf16 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py): the reconstructed semantics with no rounding points."""
import torch


def reference(inputs, symbols, constants):
    S, H, D = symbols["total_seq_len"], symbols["num_heads"], symbols["head_dim"]
    x = inputs["hidden_states"]
    qkv = x @ inputs["qkv_weight"].T + inputs["qkv_bias"]
    q, k, v = qkv.view(S, 3, H, D).unbind(1)
    cos, sin = inputs["cos"], inputs["sin"]
    half = D // 2

    def rotated(t):
        return t * cos + torch.cat((-t[..., half:], t[..., :half]), dim=-1) * sin

    q, k = rotated(q), rotated(k)
    ends = inputs["cu_seqlens"].tolist()
    starts = [0] + ends[:-1]
    attn = torch.empty(S, H, D, dtype=torch.float64, device=x.device)
    for s, e in zip(starts, ends):
        qi, ki, vi = (t[s:e].transpose(0, 1) for t in (q, k, v))
        p = torch.softmax(qi @ ki.transpose(-1, -2) * constants["scale"], dim=-1)
        attn[s:e] = (p @ vi).transpose(0, 1)
    out = attn.reshape(S, H * D) @ inputs["proj_weight"].T + inputs["proj_bias"]
    return {"output": out}
