"""wkv_time_decay_stabilization_rwkv4_fp32 in float64 PyTorch, for the cross-check against the anchor
(tests/gpu/cross_check_torch.py). Written without the reference's stabilization: in float64 the plain
exponentially decayed sums cannot overflow here (|k| < 6, every decay factor below 1), so the numerator
N and denominator D are carried unscaled, N_0 = exp(max_state) * num_state, and the running maximum
(the returned max_state) is its own recurrence; the returned num/den are N and D rescaled by exp(-m)."""
import torch


def reference(inputs, symbols, constants):
    key, value = inputs["key"], inputs["value"]
    decay = torch.exp(-torch.exp(inputs["time_decay"]))      # e^w, per channel
    bonus = torch.exp(inputs["time_first"])                   # e^u
    m = inputs["max_state"].clone()
    big_n = torch.exp(m) * inputs["num_state"]
    big_d = torch.exp(m) * inputs["den_state"]
    w = -torch.exp(inputs["time_decay"])
    out = torch.empty_like(key)
    for t in range(key.shape[1]):
        ek = torch.exp(key[:, t])
        v = value[:, t]
        out[:, t] = (big_n + bonus * ek * v) / (big_d + bonus * ek)
        big_n = decay * big_n + ek * v
        big_d = decay * big_d + ek
        m = torch.maximum(m + w, key[:, t])
    scale = torch.exp(-m)
    return {"output": out, "max_state_out": m, "num_state_out": big_n * scale, "den_state_out": big_d * scale}
