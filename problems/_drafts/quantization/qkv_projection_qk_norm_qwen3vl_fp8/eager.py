"""qkv_projection_qk_norm_qwen3vl_fp8 as the original benchmark times it: the reconstructed reference
(YIGE24/MetaKernelBench problems/_sol_execbench/54_qkv_projection_qk_norm_qwen3vl_fp8.json at d90ba286, a
masked recipe; spec.json's notes give every choice), eager PyTorch at the inputs' dtypes.
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


def _project(x, weight, bias, compute_dtype):
    activation_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_1X128)
    weight_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_128X128)
    x_c = x.to(compute_dtype)
    weight_t = weight.to(compute_dtype).T
    qx, x_scale = activation_scaler.quantize(x_c)
    qw, w_scale = weight_scaler.quantize(weight_t)
    output = _scaled_mm(qx, qw, x_scale, _ScalingType.BLOCKWISE_1X128, w_scale.T.contiguous(),
                        _ScalingType.BLOCKWISE_128X128, bias, compute_dtype)
    return output.to(x.dtype)


def _rms_norm(x, weight, eps, compute_dtype):
    input_dtype = x.dtype
    x = x.to(compute_dtype)
    variance = x.pow(2).mean(dim=-1, keepdim=True)
    x = x * torch.rsqrt(variance + eps)
    return weight * x.to(input_dtype)


def _weight(rows, cols, device):
    w = torch.randn(rows, cols, dtype=torch.bfloat16, device=device) / math.sqrt(cols)
    gain = torch.rand(rows // 128, cols // 128, dtype=torch.bfloat16, device=device) * 1.5 + 0.5
    return w * gain.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    b, s, h = symbols["batch_size"], symbols["seq_len"], symbols["hidden_size"]
    q_size, kv_size, d = symbols["q_size"], symbols["kv_size"], symbols["head_dim"]
    hidden_states = torch.randn(b, s, h, dtype=torch.bfloat16, device=device)
    q_weight = _weight(q_size, h, device)
    k_weight = _weight(kv_size, h, device)
    v_weight = _weight(kv_size, h, device)
    q_bias = torch.randn(q_size, dtype=torch.bfloat16, device=device)
    k_bias = torch.randn(kv_size, dtype=torch.bfloat16, device=device)
    v_bias = torch.randn(kv_size, dtype=torch.bfloat16, device=device)
    q_norm_weight = torch.randn(d, dtype=torch.bfloat16, device=device) * 0.1 + 1.0
    k_norm_weight = torch.randn(d, dtype=torch.bfloat16, device=device) * 0.1 + 1.0
    return {"hidden_states": hidden_states, "q_weight": q_weight, "k_weight": k_weight, "v_weight": v_weight,
            "q_bias": q_bias, "k_bias": k_bias, "v_bias": v_bias, "q_norm_weight": q_norm_weight,
            "k_norm_weight": k_norm_weight}


@torch.no_grad()
def eager(inputs, symbols, constants):
    hidden_states, eps = inputs["hidden_states"], constants["eps"]
    bsz, seq_len, _ = hidden_states.shape
    num_heads, num_kv_heads, head_dim = symbols["num_attention_heads"], symbols["num_key_value_heads"], symbols["head_dim"]
    compute_dtype = torch.promote_types(hidden_states.dtype, torch.float32)
    x_2d = hidden_states.reshape(-1, symbols["hidden_size"])

    q = _project(x_2d, inputs["q_weight"], inputs["q_bias"], compute_dtype)
    k = _project(x_2d, inputs["k_weight"], inputs["k_bias"], compute_dtype)
    v = _project(x_2d, inputs["v_weight"], inputs["v_bias"], compute_dtype)

    q = q.view(bsz, seq_len, num_heads, head_dim)
    k = k.view(bsz, seq_len, num_kv_heads, head_dim)
    v = v.view(bsz, seq_len, num_kv_heads, head_dim)

    q = _rms_norm(q, inputs["q_norm_weight"], eps, compute_dtype)
    k = _rms_norm(k, inputs["k_norm_weight"], eps, compute_dtype)

    return {"q": q.transpose(1, 2), "k": k.transpose(1, 2), "v": v.transpose(1, 2)}
