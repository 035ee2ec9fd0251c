"""mla_kv_compression_requant_deepseekv31_fp8 as the original benchmark times it: the reconstructed reference
(YIGE24/MetaKernelBench problems/_sol_execbench/56_mla_kv_compression_requant_deepseekv31_fp8.json at
d90ba286, a masked recipe; spec.json's notes give every choice), eager PyTorch at the inputs' dtypes.
tests/gpu/eager_check.py runs it."""
import enum
import math

import torch


class _ScalingType(enum.Enum):
    BLOCKWISE_1X128 = (1, 128)      # activations: one scale per row and 128 columns
    BLOCKWISE_128X128 = (128, 128)  # weights: one scale per 128 x 128 block


class _BlockwiseScaler:
    E4M3_MAX = 448.0

    def __init__(self, scaling_type):
        self.block_m, self.block_k = scaling_type.value

    def quantize(self, x):
        rows, cols = x.shape
        assert rows % self.block_m == 0 and cols % self.block_k == 0
        blocked = x.reshape(rows // self.block_m, self.block_m, cols // self.block_k, self.block_k)
        amax = blocked.abs().amax(dim=3).amax(dim=1)
        scale = amax / self.E4M3_MAX
        q = (blocked / scale[:, None, :, None]).clamp(-self.E4M3_MAX, self.E4M3_MAX).to(torch.float8_e4m3fn)
        return q.reshape(rows, cols), scale

    def dequantize(self, q, scale, dtype, transposed_scale=False):
        # transposed_scale: the scale of a K x N operand given as [N / bk, K / bm] (torch._scaled_mm's
        # convention for the second operand)
        rows, cols = q.shape
        if transposed_scale:
            scale = scale.T
        blocked = q.to(dtype).reshape(rows // self.block_m, self.block_m, cols // self.block_k, self.block_k)
        return (blocked * scale.to(dtype)[:, None, :, None]).reshape(rows, cols)


def _scaled_mm(a, b, scale_a, type_a, scale_b, type_b, bias, compute_dtype):
    dequant_a = _BlockwiseScaler(type_a).dequantize(a, scale_a, compute_dtype)
    dequant_b = _BlockwiseScaler(type_b).dequantize(b, scale_b, compute_dtype, transposed_scale=True)
    y = dequant_a @ dequant_b
    if bias is not None:
        y = y + bias
    return y


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _weight(rows, cols, device):
    w = (torch.randn(rows, cols, dtype=torch.bfloat16, device=device) / math.sqrt(cols))
    gain = (torch.rand(rows // 128, cols // 128, dtype=torch.bfloat16, device=device) * 1.5 + 0.5)
    return w * gain.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    b, s, h = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"]
    hidden_states = torch.randn(b, s, h, dtype=torch.bfloat16, device=device)
    kv_a_proj_weight = _weight(symbols["kv_a_output_dim_padded"], h, device)
    kv_a_layernorm_weight = torch.randn(symbols["kv_lora_rank"], dtype=torch.bfloat16, device=device) * 0.1 + 1.0
    kv_b_proj_weight = _weight(symbols["kv_b_output_dim"], symbols["kv_lora_rank"], device)
    return {"hidden_states": hidden_states, "kv_a_proj_weight": kv_a_proj_weight,
            "kv_a_layernorm_weight": kv_a_layernorm_weight, "kv_b_proj_weight": kv_b_proj_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, eps = inputs["hidden_states"], constants["eps"]
    num_heads, qk_nope_head_dim = symbols["num_heads"], symbols["qk_nope_head_dim"]
    v_head_dim, kv_lora_rank = symbols["v_head_dim"], symbols["kv_lora_rank"]
    qk_rope_head_dim, hidden_size = symbols["qk_rope_head_dim"], symbols["hidden_size"]
    bsz, seq_len, _ = hidden_states.shape
    compute_dtype = torch.promote_types(hidden_states.dtype, torch.float32)
    activation_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_1X128)
    weight_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_128X128)

    x_2d = hidden_states.reshape(-1, hidden_size)
    x_a = x_2d.to(dtype=compute_dtype)
    w_a_t = inputs["kv_a_proj_weight"].to(compute_dtype).T
    qx_a, x_scale_a = activation_scaler.quantize(x_a)
    qw_a, w_scale_a = weight_scaler.quantize(w_a_t)
    compressed_kv_with_rope = _scaled_mm(qx_a, qw_a, x_scale_a, _ScalingType.BLOCKWISE_1X128,
                                         w_scale_a.T.contiguous(), _ScalingType.BLOCKWISE_128X128, None,
                                         compute_dtype).to(hidden_states.dtype)

    compressed_kv = compressed_kv_with_rope[:, :kv_lora_rank]
    k_pe = compressed_kv_with_rope[:, kv_lora_rank:kv_lora_rank + qk_rope_head_dim]

    compressed_kv = compressed_kv.to(compute_dtype)
    variance = compressed_kv.pow(2).mean(-1, keepdim=True)
    compressed_kv = compressed_kv * torch.rsqrt(variance + eps)
    normalized = inputs["kv_a_layernorm_weight"] * compressed_kv.to(hidden_states.dtype)

    x_b = normalized.to(compute_dtype)
    w_b_t = inputs["kv_b_proj_weight"].to(compute_dtype).T
    qx_b, x_scale_b = activation_scaler.quantize(x_b)
    qw_b, w_scale_b = weight_scaler.quantize(w_b_t)
    kv_expanded_flat = _scaled_mm(qx_b, qw_b, x_scale_b, _ScalingType.BLOCKWISE_1X128,
                                  w_scale_b.T.contiguous(), _ScalingType.BLOCKWISE_128X128, None,
                                  compute_dtype).to(hidden_states.dtype)

    kv_expanded = kv_expanded_flat.view(bsz, seq_len, num_heads, qk_nope_head_dim + v_head_dim)
    k_pe = k_pe.view(bsz, seq_len, 1, qk_rope_head_dim)
    return {"kv_expanded": kv_expanded, "k_pe": k_pe}
