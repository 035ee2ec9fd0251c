"""GroupNorm (32 groups, affine) over NCHW fp32 [32, 1280, 8, 8], in Triton: one program per (sample, group).

A (sample, group) run is 40 channels x 64 floats, contiguous; it is loaded once as a [64, 64] tile
(channel rows 40..63 masked off). Statistics in float64, two-pass (mean, then the sum of squared
deviations: biased variance), rounded once to fp32. Then the baseline's rounding points:
d = x - mean, s = sqrt_rn(var + eps), xn = div_rn(d, s), y = xn * w[c] + b[c] (Triton may contract
the last two into one fused multiply-add: at most half an ulp of y, far inside the allowance).
"""
import triton
import triton.language as tl


@triton.jit
def groupnorm_affine(x_ptr, weight_ptr, bias_ptr, y_ptr, eps,
                     GROUPS: tl.constexpr = 32, CPG: tl.constexpr = 40, CPG_POW2: tl.constexpr = 64,
                     HW: tl.constexpr = 64):
    row = tl.program_id(0)               # n * GROUPS + g
    g = row % GROUPS
    ci = tl.arange(0, CPG_POW2)
    hw = tl.arange(0, HW)
    valid = ci < CPG
    mask = valid[:, None] & (hw[None, :] < HW)
    offs = row.to(tl.int64) * (CPG * HW) + ci[:, None] * HW + hw[None, :]
    v = tl.load(x_ptr + offs, mask=mask, other=0.0)

    vd = v.to(tl.float64)
    mean = tl.sum(tl.sum(vd, axis=1), axis=0) / (CPG * HW)
    dev = tl.where(mask, vd - mean, 0.0)
    var = tl.sum(tl.sum(dev * dev, axis=1), axis=0) / (CPG * HW)
    mean_f = mean.to(tl.float32)
    std_f = tl.sqrt_rn(var.to(tl.float32) + eps)

    w = tl.load(weight_ptr + g * CPG + ci, mask=valid, other=0.0)
    b = tl.load(bias_ptr + g * CPG + ci, mask=valid, other=0.0)
    xn = tl.math.div_rn(v - mean_f, std_f)
    y = xn * w[:, None] + b[:, None]
    tl.store(y_ptr + offs, y, mask=mask)


MKB_PLAN = """/* mkb:plan
launch groupnorm_affine grid(batch_size * num_groups) block(128) args(x, weight, bias, y, f32(eps))
*/"""
