"""GroupNorm (32 groups, affine) + SiLU, NCHW fp32, in Triton: two kernels.

Triton has no thread block clusters, so the cuda solution's cluster exchange of statistics goes
through a small global scratch instead:
1. channel_moments: one program per (sample, channel), a contiguous run of H*W = 4096 floats. In
   float64 it writes the channel's sum and its sum of squared deviations about the channel mean.
2. groupnorm_silu: one program per (sample, channel) again. It combines the 10 channel moments of
   its group (Chan's formula, float64: mean, biased variance exactly as a two-pass over the group),
   rounds mean and rstd = 1/sqrt(var + eps) to fp32 as cuda.cu does, then applies
   h = (x - mean) * rstd * w[c] + b[c] and y = h / (1 + exp(-h)) in fp32 (accurate libdevice expf, IEEE division).
   Programs run in reverse order so the tail of x, which kernel 1 read last, is still in L2.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def channel_moments(x_ptr, csum_ptr, cm2_ptr, HW: tl.constexpr = 4096):
    nc = tl.program_id(0)
    offs = tl.arange(0, HW)
    v = tl.load(x_ptr + nc.to(tl.int64) * HW + offs).to(tl.float64)
    s = tl.sum(v, axis=0)
    m = s / HW
    d = v - m
    m2 = tl.sum(d * d, axis=0)
    tl.store(csum_ptr + nc, s)
    tl.store(cm2_ptr + nc, m2)


@triton.jit
def groupnorm_silu(x_ptr, weight_ptr, bias_ptr, csum_ptr, cm2_ptr, y_ptr, eps,
                   HW: tl.constexpr = 4096, CHANNELS: tl.constexpr = 320, CPG: tl.constexpr = 10,
                   CPG_POW2: tl.constexpr = 16):
    nc = tl.num_programs(0) - 1 - tl.program_id(0)  # (sample, channel), last first
    first = (nc // CPG) * CPG                         # first (sample, channel) of the group
    c = nc % CHANNELS
    j = tl.arange(0, CPG_POW2)
    valid = j < CPG
    csum = tl.load(csum_ptr + first + j, mask=valid, other=0.0)
    cm2 = tl.load(cm2_ptr + first + j, mask=valid, other=0.0)
    group_len = CPG * HW
    mean = tl.sum(csum, axis=0) / group_len
    dm = csum / HW - mean
    m2 = tl.sum(tl.where(valid, cm2 + HW * (dm * dm), 0.0), axis=0)
    var = m2 / group_len
    rstd = 1.0 / tl.sqrt(var + eps.to(tl.float64))
    mean_f = mean.to(tl.float32)
    rstd_f = rstd.to(tl.float32)

    w = tl.load(weight_ptr + c)
    b = tl.load(bias_ptr + c)
    offs = nc.to(tl.int64) * HW + tl.arange(0, HW)
    v = tl.load(x_ptr + offs)
    h = (v - mean_f) * rstd_f * w + b
    y = tl.math.div_rn(h, 1.0 + libdevice.exp(-h))  # IEEE division, as expf-based silu in cuda.cu
    tl.store(y_ptr + offs, y)


MKB_PLAN = """/* mkb:plan
scratch csum fp64[batch * channels]
scratch cm2 fp64[batch * channels]
launch channel_moments grid(batch * channels) block(256) args(x, csum, cm2)
launch groupnorm_silu grid(batch * channels) block(256) args(x, weight, bias, csum, cm2, y, f32(eps))
*/"""
