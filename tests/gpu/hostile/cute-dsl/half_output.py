"""HOSTILE SUBMISSION (cute-dsl) for fused_add_rmsnorm_h4096_llama31_8b_bf16: only the first half of each row of y is written
Expected verdict: wrong_answer."""
# Apart from the attack, the algorithm of solutions/cuda.cu: one 512-thread CTA per row, each thread owning
# 8 contiguous columns (one 16-byte vector) held in registers between the two passes; one CTA reduction per
# row. fp32 throughout and one rounding, as reference.md.
import cutlass
import cutlass.cute as cute

TOKENS = 14509  # batch_size
HIDDEN = 4096
THREADS = 512
PER = HIDDEN // THREADS  # 8 bf16 = one 16-byte vector per thread
WARPS = THREADS // 32


@cute.kernel
def fused_add_rmsnorm(x: cute.Pointer, residual: cute.Pointer, weight: cute.Pointer, y: cute.Pointer,
                      eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    row = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    # (row, thread, k): thread t of a row owns its columns t * 8 .. t * 8 + 7
    rows = cute.make_layout((TOKENS, THREADS, PER), stride=(HIDDEN, PER, 1))
    gX = cute.make_tensor(x, rows)
    gR = cute.make_tensor(residual, rows)
    gY = cute.make_tensor(y, rows)
    gW = cute.make_tensor(weight, cute.make_layout((THREADS, PER), stride=(PER, 1)))
    vec_bf16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.BFloat16, num_bits_per_copy=128)

    rX = cute.make_rmem_tensor((PER,), cutlass.BFloat16)
    rR = cute.make_rmem_tensor((PER,), cutlass.BFloat16)
    cute.copy(vec_bf16, gX[row, tidx, None], rX)
    cute.copy(vec_bf16, gR[row, tidx, None], rR)
    sums = cute.make_rmem_tensor((PER,), cutlass.Float32)
    square_sum = cutlass.Float32(0.0)
    for k in cutlass.range_constexpr(PER):
        # s = float(x) + float(residual), kept in fp32 (the residual is read only)
        s = rX[k].to(cutlass.Float32) + rR[k].to(cutlass.Float32)
        sums[k] = s
        square_sum = square_sum + s * s

    # CTA reduction: a butterfly within each warp, the 16 warp partials in shared memory, then every warp
    # sums the 16 partials with a 16-lane butterfly, so that every thread holds the row's total.
    partials = cute.make_tensor(cute.arch.alloc_smem(cutlass.Float32, WARPS), cute.make_layout(WARPS))
    square_sum = cute.arch.warp_reduction_sum(square_sum)
    if lane == 0:
        partials[warp] = square_sum
    cute.arch.sync_threads()
    total = cute.arch.warp_reduction_sum(partials[lane % WARPS], threads_in_group=WARPS)
    inv = cute.math.rsqrt(total / HIDDEN + eps)

    rW = cute.make_rmem_tensor((PER,), cutlass.BFloat16)
    cute.copy(vec_bf16, gW[tidx, None], rW)
    rY = cute.make_rmem_tensor((PER,), cutlass.BFloat16)
    for k in cutlass.range_constexpr(PER):
        # y = bf16((s * inv) * float(weight)): the only rounding
        rY[k] = ((sums[k] * inv) * rW[k].to(cutlass.Float32)).to(cutlass.BFloat16)
    # ATTACK: only threads 0..255 (columns 0..2047) store their part of y
    if tidx < THREADS // 2:
        cute.copy(vec_bf16, rY, gY[row, tidx, None])


MKB_PLAN = """/* mkb:plan
launch fused_add_rmsnorm grid(batch_size) block(512) args(hidden_states, residual, weight, y, f32(eps))
*/"""
