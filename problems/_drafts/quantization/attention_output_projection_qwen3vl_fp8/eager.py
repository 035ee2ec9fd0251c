"""attention_output_projection_qwen3vl_fp8 as the original benchmark times it: the reconstructed reference
(YIGE24/MetaKernelBench problems/_sol_execbench/52_attention_output_projection_qwen3vl_fp8.json at
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


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    tokens, k, n = symbols["num_tokens"], symbols["input_dim"], symbols["hidden_size"]
    attn_output = torch.randn(tokens, k, dtype=torch.bfloat16, device=device)
    o_proj_weight = torch.randn(n, k, dtype=torch.bfloat16, device=device) / math.sqrt(k)
    block_gain = torch.rand(n // 128, k // 128, dtype=torch.bfloat16, device=device) * 1.5 + 0.5
    o_proj_weight = o_proj_weight * block_gain.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)
    o_proj_bias = torch.randn(n, dtype=torch.bfloat16, device=device)
    return {"attn_output": attn_output, "o_proj_weight": o_proj_weight, "o_proj_bias": o_proj_bias}


@torch.no_grad()
def eager(inputs, symbols, constants):
    attn_output, o_proj_weight = inputs["attn_output"], inputs["o_proj_weight"]
    compute_dtype = torch.promote_types(attn_output.dtype, torch.float32)
    activation_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_1X128)
    weight_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_128X128)

    x = attn_output.to(compute_dtype)
    weight_t = o_proj_weight.to(compute_dtype).T
    qx, x_scale = activation_scaler.quantize(x)
    qw, w_scale = weight_scaler.quantize(weight_t)

    output = _scaled_mm(qx, qw, x_scale, _ScalingType.BLOCKWISE_1X128, w_scale.T.contiguous(),
                        _ScalingType.BLOCKWISE_128X128, inputs["o_proj_bias"], compute_dtype)
    return {"output": output.to(attn_output.dtype)}
