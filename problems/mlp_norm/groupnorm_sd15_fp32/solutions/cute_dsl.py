"""GroupNorm (32 groups, affine) + SiLU, NCHW fp32, in CuTe DSL: two kernels, as solutions/triton.py.

solutions/cuda.cu splits each (sample, group) over a cluster of 8 CTAs and exchanges the statistics
through distributed shared memory; here the exchange goes through a small global scratch instead:
1. channel_moments: one 256-thread block per (sample, channel), a contiguous run of H*W = 4096 floats
   (four 128-bit loads per thread, coalesced). In float64, as cuda.cu: the block sums the run, then,
   from the registers, the squared deviations about the channel mean; it writes the channel's sum and
   sum of squared deviations.
2. groupnorm_silu: one 256-thread block per (sample, channel) again, last channel first (the tail of x,
   read last by kernel 1, is still in L2). Every thread combines the 10 channel moments of its group in
   float64 (Chan's formula: the group mean, and the group's sum of squared deviations exactly as a
   two-pass over the group), var = m2 / L (biased), rstd = 1 / sqrt(var + eps) in float64, then rounds
   mean and rstd to fp32 as cuda.cu does, and applies h = (x - mean) * rstd * w[c] + b[c],
   y = h / (1 + expf(-h)) in fp32 (libdevice expf and IEEE division, as cuda.cu's silu)."""
import cutlass
import cutlass.cute as cute

BATCH = 16
CHANNELS = 320
GROUPS = 32
HW = 64 * 64
CPG = CHANNELS // GROUPS          # 10 channels per group
GROUP_LEN = CPG * HW              # 40960
NC = BATCH * CHANNELS             # 5120 (sample, channel) runs
THREADS = 256
WARPS = THREADS // 32
VEC = 4                           # floats per 128-bit piece
PIECES = HW // (VEC * THREADS)    # 4 pieces per thread

assert HW % (VEC * THREADS) == 0


def _run_layout():
    # (run, piece k, thread, element): thread t's k-th piece is floats (k * 256 + t) * 4 .. + 3 of the run.
    return cute.make_layout((NC, PIECES, THREADS, VEC), stride=(HW, THREADS * VEC, VEC, 1))


@cute.kernel
def channel_moments(x: cute.Pointer, csum: cute.Pointer, cm2: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    nc = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    gx = cute.make_tensor(x, _run_layout())
    gsum = cute.make_tensor(csum, cute.make_layout(NC))
    gm2 = cute.make_tensor(cm2, cute.make_layout(NC))
    part_sum = cute.make_tensor(cute.arch.alloc_smem(cutlass.Float64, WARPS), cute.make_layout(WARPS))
    part_m2 = cute.make_tensor(cute.arch.alloc_smem(cutlass.Float64, WARPS), cute.make_layout(WARPS))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.Float32, num_bits_per_copy=128)
    rv = cute.make_rmem_tensor((VEC, PIECES), cutlass.Float32)  # column-major: [None, k] contiguous
    for k in cutlass.range_constexpr(PIECES):
        cute.copy(copy128, gx[nc, k, tidx, None], rv[None, k])

    # Pass 1: the run's sum, in float64.
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
    mean = total / cutlass.Float64(HW)

    # Pass 2: squared deviations about the channel mean, from the registers.
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
    if tidx == 0:
        total_m2 = cutlass.Float64(0.0)
        for w in cutlass.range_constexpr(WARPS):
            total_m2 = total_m2 + part_m2[w]
        gsum[nc] = total
        gm2[nc] = total_m2


@cute.kernel
def groupnorm_silu(x: cute.Pointer, weight: cute.Pointer, bias: cute.Pointer, csum: cute.Pointer,
                   cm2: cute.Pointer, y: cute.Pointer, eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    nc = (NC - 1) - cute.arch.block_idx()[0]   # (sample, channel), last first
    first = (nc // CPG) * CPG                  # first (sample, channel) of the group
    c = nc % CHANNELS
    gx = cute.make_tensor(x, _run_layout())
    gy = cute.make_tensor(y, _run_layout())
    gw = cute.make_tensor(weight, cute.make_layout(CHANNELS))
    gb = cute.make_tensor(bias, cute.make_layout(CHANNELS))
    gsum = cute.make_tensor(csum, cute.make_layout(NC))
    gm2 = cute.make_tensor(cm2, cute.make_layout(NC))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.Float32, num_bits_per_copy=128)
    rv = cute.make_rmem_tensor((VEC, PIECES), cutlass.Float32)  # column-major: [None, k] contiguous
    for k in cutlass.range_constexpr(PIECES):
        cute.copy(copy128, gx[nc, k, tidx, None], rv[None, k])

    # Group statistics from the 10 channel moments (float64, Chan's formula).
    rs = cute.make_rmem_tensor((CPG,), cutlass.Float64)
    rm = cute.make_rmem_tensor((CPG,), cutlass.Float64)
    for j in cutlass.range_constexpr(CPG):
        rs[j] = gsum[first + j]
        rm[j] = gm2[first + j]
    total = cutlass.Float64(0.0)
    for j in cutlass.range_constexpr(CPG):
        total = total + rs[j]
    mean = total / cutlass.Float64(GROUP_LEN)
    m2 = cutlass.Float64(0.0)
    for j in cutlass.range_constexpr(CPG):
        dm = rs[j] / cutlass.Float64(HW) - mean
        m2 = m2 + (rm[j] + cutlass.Float64(HW) * (dm * dm))
    var = m2 / cutlass.Float64(GROUP_LEN)
    rstd = cutlass.Float64(1.0) / cute.math.sqrt(var + eps.to(cutlass.Float64))
    mean_f = mean.to(cutlass.Float32)
    rstd_f = rstd.to(cutlass.Float32)

    w = gw[c]
    b = gb[c]
    ro = cute.make_rmem_tensor((VEC, PIECES), cutlass.Float32)  # column-major: [None, k] contiguous
    for k in cutlass.range_constexpr(PIECES):
        for e in cutlass.range_constexpr(VEC):
            h = (rv[e, k] - mean_f) * rstd_f * w + b
            ro[e, k] = h / (cutlass.Float32(1.0) + cute.math.exp(-h))
    for k in cutlass.range_constexpr(PIECES):
        cute.copy(copy128, ro[None, k], gy[nc, k, tidx, None])


MKB_PLAN = """/* mkb:plan
scratch csum fp64[batch * channels]
scratch cm2 fp64[batch * channels]
launch channel_moments grid(batch * channels) block(256) args(x, csum, cm2)
launch groupnorm_silu grid(batch * channels) block(256) args(x, weight, bias, csum, cm2, y, f32(eps))
*/"""
