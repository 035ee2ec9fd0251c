"""GroupNorm (32 groups, affine) over NCHW fp32 [32, 1280, 8, 8], in CuTe DSL: the algorithm of solutions/cuda.cu.

One 128-thread CTA per (sample, group): a contiguous run of 40 x 8 x 8 = 2560 floats, five 128-bit
pieces per thread held in registers (piece k of thread t is floats (k * 128 + t) * 4 .. + 3 of the
run). Statistics in float64, two-pass (the mean, then the sum of squared deviations: biased
variance), each through a warp shuffle and a shared-memory pass over the 4 warps that every thread
reads, so all threads hold the same totals. Then the baseline's rounding points in fp32:
d = x - mean, s = sqrt(var + eps) (the fp32 sum's square root taken in float64 and rounded once,
which is the correctly rounded fp32 square root), xn = d / s (IEEE division), y = xn * w[c] + b[c]."""
import cutlass
import cutlass.cute as cute

BATCH = 32
CHANNELS = 1280
GROUPS = 32
HW = 8 * 8
CPG = CHANNELS // GROUPS          # 40 channels per group
GROUP_LEN = CPG * HW              # 2560
ROWS = BATCH * GROUPS             # 1024 (sample, group) runs
THREADS = 128
WARPS = THREADS // 32
VEC = 4                           # floats per 128-bit piece
PIECES = GROUP_LEN // (VEC * THREADS)  # 5 pieces per thread

assert GROUP_LEN % (VEC * THREADS) == 0
assert HW % VEC == 0              # a piece never straddles two channels


def _run_layout():
    # (run, piece k, thread, element)
    return cute.make_layout((ROWS, PIECES, THREADS, VEC), stride=(GROUP_LEN, THREADS * VEC, VEC, 1))


@cute.kernel
def groupnorm_affine(x: cute.Pointer, weight: cute.Pointer, bias: cute.Pointer, y: cute.Pointer,
                     eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    row = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    g = row % GROUPS
    gx = cute.make_tensor(x, _run_layout())
    gy = cute.make_tensor(y, _run_layout())
    gw = cute.make_tensor(weight, cute.make_layout(CHANNELS))
    gb = cute.make_tensor(bias, cute.make_layout(CHANNELS))
    part_sum = cute.make_tensor(cute.arch.alloc_smem(cutlass.Float64, WARPS), cute.make_layout(WARPS))
    part_m2 = cute.make_tensor(cute.arch.alloc_smem(cutlass.Float64, WARPS), cute.make_layout(WARPS))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.Float32, num_bits_per_copy=128)
    rv = cute.make_rmem_tensor((VEC, PIECES), cutlass.Float32)  # column-major: [None, k] contiguous
    for k in cutlass.range_constexpr(PIECES):
        cute.copy(copy128, gx[row, k, tidx, None], rv[None, k])

    # Pass 1: the run's sum and mean, in float64.
    s = cutlass.Float64(0.0)
    for k in cutlass.range_constexpr(PIECES):
        s = s + ((rv[0, k].to(cutlass.Float64) + rv[1, k].to(cutlass.Float64)) +
                 (rv[2, k].to(cutlass.Float64) + rv[3, k].to(cutlass.Float64)))
    s = cute.arch.warp_reduction_sum(s)
    if lane == 0:
        part_sum[warp] = s
    cute.arch.sync_threads()
    total = cutlass.Float64(0.0)
    for w in cutlass.range_constexpr(WARPS):
        total = total + part_sum[w]   # every thread, same order: the same total everywhere
    mean = total / cutlass.Float64(GROUP_LEN)

    # Pass 2: squared deviations about the mean, from the registers.
    m2 = cutlass.Float64(0.0)
    for k in cutlass.range_constexpr(PIECES):
        a = rv[0, k].to(cutlass.Float64) - mean
        b = rv[1, k].to(cutlass.Float64) - mean
        c = rv[2, k].to(cutlass.Float64) - mean
        d = rv[3, k].to(cutlass.Float64) - mean
        m2 = m2 + ((a * a + b * b) + (c * c + d * d))
    m2 = cute.arch.warp_reduction_sum(m2)
    if lane == 0:
        part_m2[warp] = m2
    cute.arch.sync_threads()
    total_m2 = cutlass.Float64(0.0)
    for w in cutlass.range_constexpr(WARPS):
        total_m2 = total_m2 + part_m2[w]
    var_f = (total_m2 / cutlass.Float64(GROUP_LEN)).to(cutlass.Float32)
    mean_f = mean.to(cutlass.Float32)
    std_f = cute.math.sqrt((var_f + eps).to(cutlass.Float64)).to(cutlass.Float32)

    ro = cute.make_rmem_tensor((VEC, PIECES), cutlass.Float32)  # column-major: [None, k] contiguous
    for k in cutlass.range_constexpr(PIECES):
        ch = g * CPG + ((k * THREADS + tidx) * VEC) // HW      # channel of the whole piece
        wk = gw[ch]
        bk = gb[ch]
        for e in cutlass.range_constexpr(VEC):
            xn = (rv[e, k] - mean_f) / std_f
            ro[e, k] = xn * wk + bk
    for k in cutlass.range_constexpr(PIECES):
        cute.copy(copy128, ro[None, k], gy[row, k, tidx, None])


MKB_PLAN = """/* mkb:plan
launch groupnorm_affine grid(batch_size * num_groups) block(128) args(x, weight, bias, y, f32(eps))
*/"""
