"""adaln_modulation_output_projection_flux_kontext_fp32 as the original benchmark times it: eager PyTorch at the
inputs' own dtype (fp32), our reconstruction of its masked reference (YIGE24/MetaKernelBench
problems/_sol_execbench/39_adaln_modulation_output_projection_flux_kontext_fp32.json at d90ba286; the spec's
notes list the choices). tests/gpu/eager_check.py runs it."""
import math

import torch
import torch.nn.functional as F


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    b, s, d = symbols["batch_size"], symbols["seq_len"], symbols["inner_dim"]
    o, md = symbols["output_dim"], symbols["modulation_dim"]
    f32 = torch.float32
    hidden_states = torch.randn((b, s, d), device="cuda", dtype=f32)
    temb = torch.randn((b, d), device="cuda", dtype=f32)
    mod_weight = torch.randn((md, d), device="cuda", dtype=f32) / math.sqrt(d)
    mod_bias = torch.randn((md,), device="cuda", dtype=f32)
    out_weight = torch.randn((o, d), device="cuda", dtype=f32) / math.sqrt(d)
    out_bias = torch.randn((o,), device="cuda", dtype=f32)
    return {"hidden_states": hidden_states, "temb": temb, "mod_weight": mod_weight, "mod_bias": mod_bias,
            "out_weight": out_weight, "out_bias": out_bias}


@torch.no_grad()
def eager(inputs, symbols, constants):
    x = inputs["hidden_states"]
    temb = inputs["temb"]
    # LayerNorm without affine, written out.
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    x_norm = (x - mean) / torch.sqrt(var + constants["eps"])
    # SiLU(temb) -> Linear -> [scale | shift], scale first.
    silu = temb * torch.sigmoid(temb)
    emb = F.linear(silu, inputs["mod_weight"], inputs["mod_bias"])
    d = x.shape[-1]
    scale = emb[:, :d].unsqueeze(1)
    shift = emb[:, d:].unsqueeze(1)
    x_mod = x_norm * (1.0 + scale) + shift
    return {"out": F.linear(x_mod, inputs["out_weight"], inputs["out_bias"])}
