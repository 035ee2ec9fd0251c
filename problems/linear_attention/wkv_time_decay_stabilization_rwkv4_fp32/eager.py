"""wkv_time_decay_stabilization_rwkv4_fp32 as the original benchmark times it: eager PyTorch at the
inputs' own dtype (fp32), a Python loop over the 1721 tokens with about 27 small kernels per token
(YIGE24/MetaKernelBench problems/_sol_execbench/66_wkv_time_decay_stabilization_rwkv4_fp32.json at
d90ba286, a masked recipe; the op sequence is the one its masked layout and SOL-ExecBench's public
definition share: spec notes). tests/gpu/eager_check.py runs it."""
import torch


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    batch, seq, hidden = symbols["batch_size"], symbols["seq_len"], symbols["attention_hidden_size"]
    f32 = torch.float32
    time_decay = torch.empty(hidden, dtype=f32, device=device).uniform_(-6.0, -1.0)
    key = torch.randn(batch, seq, hidden, dtype=f32, device=device)
    time_first = torch.randn(hidden, dtype=f32, device=device) * 0.5
    value = torch.randn(batch, seq, hidden, dtype=f32, device=device)
    max_state = torch.randn(batch, hidden, dtype=f32, device=device)
    num_state = torch.randn(batch, hidden, dtype=f32, device=device)
    den_state = torch.empty(batch, hidden, dtype=f32, device=device).uniform_(0.5, 2.0)
    return {"time_decay": time_decay, "key": key, "time_first": time_first, "value": value,
            "max_state": max_state, "num_state": num_state, "den_state": den_state}


@torch.no_grad()
def eager(inputs, symbols, constants):
    key, value = inputs["key"], inputs["value"]
    time_first = inputs["time_first"]
    wide = torch.promote_types(key.dtype, torch.float32)
    steps = key.size(1)

    # The carried-in state is copied, never updated in place.
    run_max = inputs["max_state"].clone().to(wide)
    run_num = inputs["num_state"].clone().to(wide)
    run_den = inputs["den_state"].clone().to(wide)
    decay = -torch.exp(inputs["time_decay"].to(wide))
    out = torch.zeros_like(key, dtype=wide)

    for t in range(steps):
        k_t = key[:, t].to(wide)
        v_t = value[:, t].to(wide)
        # Output at t: the current token weighted by exp(time_first + k), stabilized by a shared maximum.
        top = torch.maximum(run_max, k_t + time_first)
        scale_state = torch.exp(run_max - top)
        scale_token = torch.exp(k_t + time_first - top)
        num = scale_state * run_num + scale_token * v_t
        den = scale_state * run_den + scale_token
        out[:, t] = num / den
        # State for t + 1: decay the old sums by exp(decay), absorb the current token.
        top = torch.maximum(run_max + decay, k_t)
        scale_state = torch.exp(run_max + decay - top)
        scale_token = torch.exp(k_t - top)
        run_num = scale_state * run_num + scale_token * v_t
        run_den = scale_state * run_den + scale_token
        run_max = top
    return {"output": out, "max_state_out": run_max, "num_state_out": run_num, "den_state_out": run_den}
