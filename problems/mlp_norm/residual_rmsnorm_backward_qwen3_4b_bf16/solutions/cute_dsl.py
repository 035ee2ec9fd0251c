"""Fused backward of residual add + RMSNorm (Qwen3-4B, hidden 2560) in CuTe DSL, forward recomputed:
the algorithm of solutions/cuda.cu.

Kernel 1 (persistent): 264 blocks = 2 per SM on 132 SMs, 320 threads each; a block walks rows
blockIdx.x, blockIdx.x + gridDim.x, ... and each thread owns 8 contiguous columns (one 16-byte vector
of each tensor; 320 * 8 = 2560 = hidden exactly). Per row: one 128-bit load of x, residual, dy, ds
(issued one row ahead, so the next row's loads are in flight during this row's reduction), a single
block reduction of two sums (sum h^2 and sum grad_n * h: butterfly shuffles, then one shared-memory
slot per warp, double-buffered by row parity so one barrier per row suffices), then dx is written.
The weight gradient is accumulated per thread in fp32 registers across the block's rows and written
once per block as an fp32 partial row. Kernel 2 sums the 264 partial rows per column and rounds once.

Rounding points as reference.md: s = bf16(residual + x), h = fp32(s), g = bf16(dy * w),
r = rsqrt(sum h^2 / 2560 + eps), grad_q = ((-0.5 * sum g h) * r^3) / 2560 (IEEE divisions),
n = bf16(h * r), dweight += bf16(dy * n) in fp32, grad_s = bf16(g * r + grad_q * 2h),
dx = bf16(grad_s + ds)."""
import cutlass
import cutlass.cute as cute

TOKENS = 32768
HIDDEN = 2560
VEC = 8                       # bf16 per 16-byte vector
THREADS = HIDDEN // VEC       # 320
WARPS = THREADS // 32         # 10
PARTS = 264                   # kernel 1's grid: 2 resident blocks per SM x 132 SMs
BF16 = cutlass.BFloat16
F32 = cutlass.Float32

assert THREADS * VEC == HIDDEN and THREADS % 32 == 0


@cute.kernel
def residual_rmsnorm_backward(x: cute.Pointer, residual: cute.Pointer, weight: cute.Pointer, dy: cute.Pointer,
                              ds: cute.Pointer, dx: cute.Pointer, dw_partial: cute.Pointer, tokens: cutlass.Int32,
                              eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    step = cute.arch.grid_dim()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()

    # Rows as (row, thread, element): thread t owns columns 8t .. 8t + 7 (16 aligned bytes).
    rows = cute.make_layout((TOKENS, THREADS, VEC), stride=(HIDDEN, VEC, 1))
    gx = cute.make_tensor(x, rows)
    gr = cute.make_tensor(residual, rows)
    gdy = cute.make_tensor(dy, rows)
    gds = cute.make_tensor(ds, rows)
    gdx = cute.make_tensor(dx, rows)
    gw = cute.make_tensor(weight, cute.make_layout((THREADS, VEC), stride=(VEC, 1)))
    gpart = cute.make_tensor(dw_partial, cute.make_layout((PARTS, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    # red[parity, warp, 0 | 1] = the warp's (sum h^2, sum g h); double-buffered by row parity.
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * WARPS * 2),
                           cute.make_layout((2, WARPS, 2), stride=(WARPS * 2, 2, 1)))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    copy128f = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)

    rw = cute.make_rmem_tensor((VEC,), BF16)
    cute.copy(copy128, gw[tidx, None], rw)
    dw = cute.make_rmem_tensor((VEC,), F32)
    for k in cutlass.range_constexpr(VEC):
        dw[k] = F32(0.0)

    # This row's vectors (c*) and the next row's (n*), loaded one row ahead.
    cx = cute.make_rmem_tensor((VEC,), BF16)
    cr = cute.make_rmem_tensor((VEC,), BF16)
    cdy = cute.make_rmem_tensor((VEC,), BF16)
    cds = cute.make_rmem_tensor((VEC,), BF16)
    nx = cute.make_rmem_tensor((VEC,), BF16)
    nr = cute.make_rmem_tensor((VEC,), BF16)
    ndy = cute.make_rmem_tensor((VEC,), BF16)
    nds = cute.make_rmem_tensor((VEC,), BF16)
    out = cute.make_rmem_tensor((VEC,), BF16)

    if bidx < tokens:
        cute.copy(copy128, gx[bidx, tidx, None], nx)
        cute.copy(copy128, gr[bidx, tidx, None], nr)
        cute.copy(copy128, gdy[bidx, tidx, None], ndy)
        cute.copy(copy128, gds[bidx, tidx, None], nds)

    parity = cutlass.Int32(0)
    for row in cutlass.range(bidx, tokens, step):
        cx.store(nx.load())
        cr.store(nr.load())
        cdy.store(ndy.load())
        cds.store(nds.load())
        following = row + step
        if following < tokens:
            cute.copy(copy128, gx[following, tidx, None], nx)
            cute.copy(copy128, gr[following, tidx, None], nr)
            cute.copy(copy128, gdy[following, tidx, None], ndy)
            cute.copy(copy128, gds[following, tidx, None], nds)

        # h = fp32(bf16(residual + x)); g = grad_n = bf16(dy * weight). Both are recomputed after the
        # reduction instead of being kept in registers, as cuda.cu does.
        square_sum = F32(0.0)
        dot = F32(0.0)
        for k in cutlass.range_constexpr(VEC):
            h = (cr[k].to(F32) + cx[k].to(F32)).to(BF16).to(F32)
            g = (cdy[k].to(F32) * rw[k].to(F32)).to(BF16).to(F32)
            square_sum = square_sum + h * h
            dot = dot + g * h
        square_sum = cute.arch.warp_reduction_sum(square_sum)
        dot = cute.arch.warp_reduction_sum(dot)
        if lane == 0:
            red[parity, warp, 0] = square_sum
            red[parity, warp, 1] = dot
        cute.arch.sync_threads()
        total_sq = F32(0.0)
        total_dot = F32(0.0)
        for w in cutlass.range_constexpr(WARPS):
            total_sq = total_sq + red[parity, w, 0]
            total_dot = total_dot + red[parity, w, 1]
        parity = parity ^ 1

        # r = rsqrt(mean(h^2) + eps); grad_v = (-0.5 * grad_r) * r^3; grad_q = grad_v / hidden
        r = cute.math.rsqrt(total_sq / F32(HIDDEN) + eps)
        grad_q = ((F32(-0.5) * total_dot) * (r * r * r)) / F32(HIDDEN)
        for k in cutlass.range_constexpr(VEC):
            h = (cr[k].to(F32) + cx[k].to(F32)).to(BF16).to(F32)
            dyk = cdy[k].to(F32)
            g = (dyk * rw[k].to(F32)).to(BF16).to(F32)
            n = (h * r).to(BF16).to(F32)                            # n = bf16(h * r)
            dw[k] = dw[k] + (dyk * n).to(BF16).to(F32)              # bf16(dy * n), fp32 accumulation
            grad_h = g * r + grad_q * (F32(2.0) * h)
            grad_s = grad_h.to(BF16).to(F32)                        # ToCopyBackward to bf16
            out[k] = (grad_s + cds[k].to(F32)).to(BF16)             # + residual-stream gradient, bf16
        cute.copy(copy128, out, gdx[row, tidx, None])

    cute.copy(copy128f, dw, gpart[bidx, tidx, None])


@cute.kernel
def dweight_reduce(dw_partial: cute.Pointer, dweight: cute.Pointer, parts: cutlass.Int32):
    """dweight[c] = bf16(sum over parts of dw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes."""
    tx = cute.arch.thread_idx()[0]
    ty = cute.arch.thread_idx()[1]
    c = cute.arch.block_idx()[0] * 32 + tx
    gpart = cute.make_tensor(dw_partial, cute.make_layout((PARTS, HIDDEN), stride=(HIDDEN, 1)))
    gdw = cute.make_tensor(dweight, cute.make_layout(HIDDEN))
    sums = cute.make_tensor(cute.arch.alloc_smem(F32, 32 * 33), cute.make_layout((32, 32), stride=(33, 1)))
    acc = F32(0.0)
    if c < HIDDEN:
        for p in cutlass.range(ty, parts, 32):
            acc = acc + gpart[p, c]
    sums[ty, tx] = acc
    cute.arch.sync_threads()
    if ty == 0:
        if c < HIDDEN:
            total = F32(0.0)
            for y in cutlass.range(32, unroll=8):
                total = total + sums[y, tx]
            gdw[c] = total.to(BF16)


MKB_PLAN = """/* mkb:plan
# 264 = 2 resident blocks per SM x 132 SMs, as cuda.cu (at most 96 registers per thread for two
# 320-thread blocks per SM).
scratch dw_partial fp32[264 * hidden]
launch residual_rmsnorm_backward grid(264) block(320)
  args(x, residual, weight, dy, ds, dx, dw_partial, i32(tokens), f32(eps))
launch dweight_reduce grid(ceil_div(hidden, 32)) block(32, 32) args(dw_partial, dweight, i32(264))
*/"""
