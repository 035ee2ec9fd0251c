"""GroupNorm (32 groups, affine) + SiLU, NCHW fp32, in TIRx: two kernels, as solutions/triton.py.

solutions/cuda.cu keeps a (sample, group) run of 40960 floats in the registers of an 8-CTA cluster and
exchanges the statistics through distributed shared memory; here the exchange goes through a small
global scratch instead:
1. channel_moments: one 256-thread CTA per (sample, channel), a contiguous run of H*W = 4096 floats (four
   float4 per thread). In float64 it writes the channel's sum and its sum of squared deviations about the
   channel mean (a two-pass over registers, as cuda.cu's passes are), each through a CTA reduction.
2. groupnorm_silu: one 256-thread CTA per (sample, channel) again. Every thread combines the 10 channel
   moments of its group (Chan's formula, float64: the mean, and the biased variance exactly as a two-pass
   over the group), rounds mean and rstd = 1/sqrt(var + eps) to fp32 as cuda.cu does, then applies
   h = (x - mean) * rstd * w[c] + b[c] and y = h / (1 + expf(-h)) in fp32 (accurate expf, IEEE division,
   as cuda.cu compiles). CTAs take the channels last first, so the tail of x, which kernel 1 read last, is
   still in L2.

The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

BATCH = 16
CHANNELS = 320
GROUPS = 32
HW = 64 * 64
CPG = CHANNELS // GROUPS          # 10 channels per group
GROUP_LEN = CPG * HW              # 40960 floats per (sample, group)
PLANES = BATCH * CHANNELS         # 5120 (sample, channel) planes
THREADS = 256
VECS = HW // 4 // THREADS         # 4 float4 per thread

assert VECS * 4 * THREADS == HW


@T.prim_func
def channel_moments(x_ptr: T.handle, csum_ptr: T.handle, cm2_ptr: T.handle):
    a_x = T.match_buffer(x_ptr, (PLANES * HW,), "float32")
    b_csum = T.match_buffer(csum_ptr, (PLANES,), "float64")
    c_cm2 = T.match_buffer(cm2_ptr, (PLANES,), "float64")
    T.device_entry()
    bx = T.cta_id([PLANES])
    tx = T.thread_id([THREADS])
    v = T.alloc_buffer((VECS * 4,), "float32", scope="local")
    acc = T.alloc_buffer((1,), "float64", scope="local")
    mean = T.alloc_buffer((1,), "float64", scope="local")
    sum_parts = T.alloc_buffer((THREADS // 32,), "float64", scope="shared")
    m2_parts = T.alloc_buffer((THREADS // 32,), "float64", scope="shared")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    for k in T.unroll(VECS):
        for e in T.vectorized(4):
            v[k * 4 + e] = a_x[bx * HW + k * (THREADS * 4) + tx * 4 + e]
    # Pass 1: the channel's sum (float64), then its mean.
    acc[0] = T.float64(0)
    for k in T.unroll(VECS):
        acc[0] = acc[0] + ((T.Cast("float64", v[k * 4]) + T.Cast("float64", v[k * 4 + 1]))
                           + (T.Cast("float64", v[k * 4 + 2]) + T.Cast("float64", v[k * 4 + 3])))
    # (two reductions, two scratch arrays: the second may start before every thread has read the first)
    acc[0] = T.cuda.cta_sum(acc[0], THREADS // 32, sum_parts.data)
    mean[0] = acc[0] / T.float64(HW)
    if tx == 0:
        b_csum[bx] = acc[0]
    # Pass 2: the sum of squared deviations about the channel mean (registers, no second read).
    acc[0] = T.float64(0)
    for k in T.unroll(VECS):
        acc[0] = acc[0] + (((T.Cast("float64", v[k * 4]) - mean[0]) * (T.Cast("float64", v[k * 4]) - mean[0])
                            + (T.Cast("float64", v[k * 4 + 1]) - mean[0]) * (T.Cast("float64", v[k * 4 + 1]) - mean[0]))
                           + ((T.Cast("float64", v[k * 4 + 2]) - mean[0]) * (T.Cast("float64", v[k * 4 + 2]) - mean[0])
                              + (T.Cast("float64", v[k * 4 + 3]) - mean[0]) * (T.Cast("float64", v[k * 4 + 3]) - mean[0])))
    acc[0] = T.cuda.cta_sum(acc[0], THREADS // 32, m2_parts.data)
    if tx == 0:
        c_cm2[bx] = acc[0]


@T.prim_func
def groupnorm_silu(x_ptr: T.handle, weight_ptr: T.handle, bias_ptr: T.handle, csum_ptr: T.handle,
                   cm2_ptr: T.handle, y_ptr: T.handle, eps: T.float32):
    a_x = T.match_buffer(x_ptr, (PLANES * HW,), "float32")
    b_weight = T.match_buffer(weight_ptr, (CHANNELS,), "float32")
    c_bias = T.match_buffer(bias_ptr, (CHANNELS,), "float32")
    d_csum = T.match_buffer(csum_ptr, (PLANES,), "float64")
    e_cm2 = T.match_buffer(cm2_ptr, (PLANES,), "float64")
    f_y = T.match_buffer(y_ptr, (PLANES * HW,), "float32")
    T.device_entry()
    bx = T.cta_id([PLANES])
    tx = T.thread_id([THREADS])
    v = T.alloc_buffer((VECS * 4,), "float32", scope="local")
    out = T.alloc_buffer((VECS * 4,), "float32", scope="local")
    total = T.alloc_buffer((1,), "float64", scope="local")
    mean = T.alloc_buffer((1,), "float64", scope="local")
    m2 = T.alloc_buffer((1,), "float64", scope="local")
    stats = T.alloc_buffer((4,), "float32", scope="local")  # mean, rstd, weight, bias
    h = T.alloc_buffer((1,), "float32", scope="local")
    # This CTA's plane is PLANES - 1 - bx (last first). PLANES is a multiple of 10 and of 320, so the plane's
    # group is PLANES / 10 - 1 - bx // 10 and its channel CHANNELS - 1 - bx % CHANNELS. (Written so on
    # purpose: TVM 0.27 lowers a buffer index (c - bx) // 10 or (c - bx) % 320 to wrong C code.)
    for k in T.unroll(VECS):
        for e in T.vectorized(4):
            v[k * 4 + e] = a_x[(PLANES - 1 - bx) * HW + k * (THREADS * 4) + tx * 4 + e]
    total[0] = T.float64(0)
    for j in T.unroll(CPG):
        total[0] = total[0] + d_csum[(PLANES // CPG - 1 - bx // CPG) * CPG + j]
    # mean = sum / L; m2 = sum_j (cm2_j + HW * (csum_j / HW - mean)^2): the group's two-pass sum of squares
    # (csum_j / HW is written csum_j * (1 / HW): exact, HW is a power of two)
    mean[0] = total[0] / T.float64(GROUP_LEN)
    m2[0] = T.float64(0)
    for j in T.unroll(CPG):
        m2[0] = m2[0] + (e_cm2[(PLANES // CPG - 1 - bx // CPG) * CPG + j]
                         + T.float64(HW) * ((d_csum[(PLANES // CPG - 1 - bx // CPG) * CPG + j] * T.float64(1.0 / HW)
                                             - mean[0])
                                            * (d_csum[(PLANES // CPG - 1 - bx // CPG) * CPG + j] * T.float64(1.0 / HW)
                                               - mean[0])))
    stats[0] = T.Cast("float32", mean[0])
    stats[1] = T.Cast("float32", T.float64(1) / T.sqrt(m2[0] / T.float64(GROUP_LEN) + T.Cast("float64", eps)))
    stats[2] = b_weight[CHANNELS - 1 - bx % CHANNELS]
    stats[3] = c_bias[CHANNELS - 1 - bx % CHANNELS]
    for k in T.unroll(VECS * 4):
        h[0] = (v[k] - stats[0]) * stats[1] * stats[2] + stats[3]
        out[k] = h[0] / (T.float32(1) + T.call_pure_extern("float32", "expf", T.float32(0) - h[0]))
    for k in T.unroll(VECS):
        for e in T.vectorized(4):
            f_y[(PLANES - 1 - bx) * HW + k * (THREADS * 4) + tx * 4 + e] = out[k * 4 + e]


MKB_PLAN = """/* mkb:plan
scratch csum fp64[batch * channels]
scratch cm2 fp64[batch * channels]
launch channel_moments grid(batch * channels) block(256) args(x, csum, cm2)
launch groupnorm_silu grid(batch * channels) block(256) args(x, weight, bias, csum, cm2, y, f32(eps))
*/"""
