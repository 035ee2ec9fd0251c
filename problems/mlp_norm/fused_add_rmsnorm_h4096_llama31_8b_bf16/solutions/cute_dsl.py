"""Fused add + RMSNorm (Llama 3.1 8B, hidden 4096, bf16) in CuTe DSL: the algorithm of solutions/cuda.cu.

One 512-thread block per row; thread t owns columns 8t .. 8t + 7, one 16-byte vector of each tensor
(512 * 8 = 4096 = hidden exactly). The thread issues its 128-bit loads of x, residual and weight before
any arithmetic, forms the fp32 sum s = x + residual in registers and keeps it there for the second
pass (the row is read from DRAM once). The sum
of squares is reduced over the block: butterfly shuffles within each warp, one shared-memory slot per
warp, one barrier, then every warp reads the 16 slots (lane l takes slot l % 16) and finishes the sum
with four butterfly shuffles inside aligned half-warps, so no second barrier is needed. Then y is written
with one 128-bit store.

Rounding as reference.md: fp32 throughout, s = float(x) + float(residual); ms = sum s^2 / 4096;
y = bf16((s * rsqrt(ms + eps)) * float(weight)), the only rounding."""
import cutlass
import cutlass.cute as cute

TOKENS = 14509                # batch_size
HIDDEN = 4096
VEC = 8                       # bf16 per 16-byte vector
THREADS = HIDDEN // VEC       # 512
WARPS = THREADS // 32         # 16
BF16 = cutlass.BFloat16
F32 = cutlass.Float32

assert THREADS * VEC == HIDDEN and WARPS == 16


@cute.kernel
def fused_add_rmsnorm(x: cute.Pointer, residual: cute.Pointer, weight: cute.Pointer, y: cute.Pointer,
                      eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    row = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()

    # Rows as (row, thread, element): thread t owns columns 8t .. 8t + 7 (16 aligned bytes).
    rows = cute.make_layout((TOKENS, THREADS, VEC), stride=(HIDDEN, VEC, 1))
    gx = cute.make_tensor(x, rows)
    gr = cute.make_tensor(residual, rows)
    gy = cute.make_tensor(y, rows)
    gw = cute.make_tensor(weight, cute.make_layout((THREADS, VEC), stride=(VEC, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, WARPS), cute.make_layout(WARPS))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor((VEC,), BF16)
    rr = cute.make_rmem_tensor((VEC,), BF16)
    rw = cute.make_rmem_tensor((VEC,), BF16)
    rs = cute.make_rmem_tensor((VEC,), F32)
    ro = cute.make_rmem_tensor((VEC,), BF16)

    # All three loads are issued before any arithmetic.
    cute.copy(copy128, gx[row, tidx, None], rx)
    cute.copy(copy128, gr[row, tidx, None], rr)
    cute.copy(copy128, gw[tidx, None], rw)

    square_sum = F32(0.0)
    for k in cutlass.range_constexpr(VEC):
        s = rx[k].to(F32) + rr[k].to(F32)                 # s = x + residual, fp32
        rs[k] = s
        square_sum = square_sum + s * s

    # Block reduction: warp butterfly, one slot per warp, one barrier, then each half-warp sums the
    # 16 slots (offsets 8, 4, 2, 1 stay inside an aligned half-warp), so every lane holds the total.
    square_sum = cute.arch.warp_reduction_sum(square_sum)
    if lane == 0:
        red[warp] = square_sum
    cute.arch.sync_threads()
    total = red[lane % WARPS]
    total = cute.arch.warp_reduction_sum(total, threads_in_group=WARPS)
    inv = cute.math.rsqrt(total / F32(HIDDEN) + eps)

    for k in cutlass.range_constexpr(VEC):
        ro[k] = ((rs[k] * inv) * rw[k].to(F32)).to(BF16)  # y = bf16((s * rsqrt(ms + eps)) * weight)
    cute.copy(copy128, ro, gy[row, tidx, None])


MKB_PLAN = """/* mkb:plan
launch fused_add_rmsnorm grid(batch_size) block(512) args(hidden_states, residual, weight, y, f32(eps))
*/"""
