"""mlp_gate_up_projection_qwen3vl_fp8 as the original benchmark times it: the reconstructed reference
(YIGE24/MetaKernelBench problems/_sol_execbench/53_mlp_gate_up_projection_qwen3vl_fp8.json at d90ba286,
a masked recipe; spec.json's notes give every choice), eager PyTorch at the inputs' dtypes.
tests/gpu/eager_check.py runs it."""
import enum
import torch
import torch.nn.functional as F


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
    m, hidden, inter = symbols["m"], symbols["hidden_size"], symbols["intermediate_size"]
    weight_std = hidden ** -0.5
    x_fp32 = torch.randn(m, hidden, dtype=torch.float32, device=device)
    gate_weight_fp32 = torch.randn(inter, hidden, dtype=torch.float32, device=device) * weight_std
    gate_gain = torch.rand(inter // 128, hidden // 128, dtype=torch.float32, device=device) * 1.5 + 0.5
    gate_weight_fp32 = gate_weight_fp32 * gate_gain.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)
    up_weight_fp32 = torch.randn(inter, hidden, dtype=torch.float32, device=device) * weight_std
    up_gain = torch.rand(inter // 128, hidden // 128, dtype=torch.float32, device=device) * 1.5 + 0.5
    up_weight_fp32 = up_weight_fp32 * up_gain.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)

    activation_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_1X128)
    weight_scaler = _BlockwiseScaler(_ScalingType.BLOCKWISE_128X128)
    qx, scale_x = activation_scaler.quantize(x_fp32)
    qw_gate, gate_scale = weight_scaler.quantize(gate_weight_fp32.T)
    qw_up, up_scale = weight_scaler.quantize(up_weight_fp32.T)
    return {"x": qx, "scale_x": scale_x, "gate_proj_weight": qw_gate, "scale_gate": gate_scale.T.contiguous(),
            "up_proj_weight": qw_up, "scale_up": up_scale.T.contiguous()}


@torch.no_grad()
def eager(inputs, symbols, constants):
    x, scale_x = inputs["x"], inputs["scale_x"]
    compute_dtype = torch.promote_types(scale_x.dtype, torch.float32)
    gate_output = _scaled_mm(x, inputs["gate_proj_weight"], scale_x, _ScalingType.BLOCKWISE_1X128,
                             inputs["scale_gate"], _ScalingType.BLOCKWISE_128X128, None, compute_dtype)
    up_output = _scaled_mm(x, inputs["up_proj_weight"], scale_x, _ScalingType.BLOCKWISE_1X128,
                           inputs["scale_up"], _ScalingType.BLOCKWISE_128X128, None, compute_dtype)
    return {"output": (F.silu(gate_output) * up_output).to(torch.bfloat16)}
