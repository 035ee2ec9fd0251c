"""GroupNorm (32 groups, affine) over NCHW fp32 [32, 1280, 8, 8], in TIRx: the algorithm of solutions/cuda.cu.

One 128-thread CTA per (sample, group): a contiguous run of 40 x 8 x 8 = 2560 floats, five float4 per
thread held in registers. Statistics in float64, two-pass (the mean, then the sum of squared deviations
about it: biased variance), each through a CTA reduction. Then the baseline's rounding points in fp32:
d = x - mean, s = sqrt(var + eps) (the fp32 sum's square root taken in float64 and rounded once, which
is the correctly rounded fp32 square root), xn = d / s (IEEE division, as NVRTC compiles by default),
y = xn * w[c] + b[c].

The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

BATCH = 32
CHANNELS = 1280
GROUPS = 32
HW = 8 * 8
CPG = CHANNELS // GROUPS          # 40 channels per group
GROUP_LEN = CPG * HW              # 2560 floats per (sample, group)
ROWS = BATCH * GROUPS             # 1024 runs
THREADS = 128
VECS = GROUP_LEN // 4 // THREADS  # 5 float4 per thread

assert VECS * 4 * THREADS == GROUP_LEN
assert HW % 4 == 0                # a float4 never straddles two channels


@T.prim_func
def groupnorm_affine(x_ptr: T.handle, weight_ptr: T.handle, bias_ptr: T.handle, y_ptr: T.handle,
                     eps: T.float32):
    a_x = T.match_buffer(x_ptr, (ROWS * GROUP_LEN,), "float32")
    b_weight = T.match_buffer(weight_ptr, (CHANNELS,), "float32")
    c_bias = T.match_buffer(bias_ptr, (CHANNELS,), "float32")
    d_y = T.match_buffer(y_ptr, (ROWS * GROUP_LEN,), "float32")
    T.device_entry()
    bx = T.cta_id([ROWS])
    tx = T.thread_id([THREADS])
    v = T.alloc_buffer((VECS * 4,), "float32", scope="local")
    out = T.alloc_buffer((VECS * 4,), "float32", scope="local")
    acc = T.alloc_buffer((1,), "float64", scope="local")
    mean = T.alloc_buffer((1,), "float64", scope="local")
    stats = T.alloc_buffer((4,), "float32", scope="local")  # mean, std, weight, bias
    sum_parts = T.alloc_buffer((THREADS // 32,), "float64", scope="shared")
    m2_parts = T.alloc_buffer((THREADS // 32,), "float64", scope="shared")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    for k in T.unroll(VECS):
        for e in T.vectorized(4):
            v[k * 4 + e] = a_x[bx * GROUP_LEN + k * (THREADS * 4) + tx * 4 + e]
    # Pass 1: the run's sum (float64), then its mean.
    acc[0] = T.float64(0)
    for k in T.unroll(VECS):
        acc[0] = acc[0] + ((T.Cast("float64", v[k * 4]) + T.Cast("float64", v[k * 4 + 1]))
                           + (T.Cast("float64", v[k * 4 + 2]) + T.Cast("float64", v[k * 4 + 3])))
    # (two reductions, two scratch arrays: the second may start before every thread has read the first)
    acc[0] = T.cuda.cta_sum(acc[0], THREADS // 32, sum_parts.data)
    mean[0] = acc[0] / T.float64(GROUP_LEN)
    # Pass 2: the sum of squared deviations about the mean (registers, no second read).
    acc[0] = T.float64(0)
    for k in T.unroll(VECS):
        acc[0] = acc[0] + (((T.Cast("float64", v[k * 4]) - mean[0]) * (T.Cast("float64", v[k * 4]) - mean[0])
                            + (T.Cast("float64", v[k * 4 + 1]) - mean[0]) * (T.Cast("float64", v[k * 4 + 1]) - mean[0]))
                           + ((T.Cast("float64", v[k * 4 + 2]) - mean[0]) * (T.Cast("float64", v[k * 4 + 2]) - mean[0])
                              + (T.Cast("float64", v[k * 4 + 3]) - mean[0]) * (T.Cast("float64", v[k * 4 + 3]) - mean[0])))
    acc[0] = T.cuda.cta_sum(acc[0], THREADS // 32, m2_parts.data)
    stats[0] = T.Cast("float32", mean[0])
    stats[1] = T.Cast("float32", T.sqrt(T.Cast("float64", T.Cast("float32", acc[0] / T.float64(GROUP_LEN)) + eps)))
    for k in T.unroll(VECS):
        stats[2] = b_weight[(bx % GROUPS) * CPG + (k * (THREADS * 4) + tx * 4) // HW]
        stats[3] = c_bias[(bx % GROUPS) * CPG + (k * (THREADS * 4) + tx * 4) // HW]
        for e in T.unroll(4):
            out[k * 4 + e] = (v[k * 4 + e] - stats[0]) / stats[1] * stats[2] + stats[3]
    for k in T.unroll(VECS):
        for e in T.vectorized(4):
            d_y[bx * GROUP_LEN + k * (THREADS * 4) + tx * 4 + e] = out[k * 4 + e]


MKB_PLAN = """/* mkb:plan
launch groupnorm_affine grid(batch_size * num_groups) block(128) args(x, weight, bias, y, f32(eps))
*/"""
