"""Fused add + RMSNorm in CuTe DSL: one warp per row, four rows per 128-thread block. Each lane adds
its 128 columns (strided by 32, so a warp's accesses are contiguous), writes the rounded sum back to
the residual, and a warp reduction gives the row's mean square; a second pass reads the sums back
(from L2) to normalize. Rounding points as in reference.md."""
import cutlass
import cutlass.cute as cute

TOKENS = 14509
HIDDEN = 4096
ROWS_PER_BLOCK = 4


@cute.kernel
def fused_add_rmsnorm(x: cute.Pointer, residual: cute.Pointer, weight: cute.Pointer, y: cute.Pointer,
                      eps: cutlass.Float32):
    lane = cute.arch.lane_idx()
    row = cute.arch.block_idx()[0] * ROWS_PER_BLOCK + cute.arch.warp_idx()
    rows = cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1))
    gx = cute.make_tensor(x, rows)
    gr = cute.make_tensor(residual, rows)
    gy = cute.make_tensor(y, rows)
    gw = cute.make_tensor(weight, cute.make_layout(HIDDEN))
    if row < TOKENS:
        square_sum = cutlass.Float32(0.0)
        for k in cutlass.range(HIDDEN // 32):
            c = k * 32 + lane
            s = (gx[row, c].to(cutlass.Float32) + gr[row, c].to(cutlass.Float32)).to(cutlass.BFloat16)
            gr[row, c] = s
            h = s.to(cutlass.Float32)
            square_sum = square_sum + h * h
        square_sum = cute.arch.warp_reduction_sum(square_sum)
        inv = cute.math.rsqrt(square_sum / HIDDEN + eps)
        for k in cutlass.range(HIDDEN // 32):
            c = k * 32 + lane
            n = (gr[row, c].to(cutlass.Float32) * inv).to(cutlass.BFloat16)
            gy[row, c] = (n.to(cutlass.Float32) * gw[c].to(cutlass.Float32)).to(cutlass.BFloat16)


MKB_PLAN = """/* mkb:plan
launch fused_add_rmsnorm grid(ceil_div(tokens, 4)) block(128) args(x, residual, weight, y, f32(eps))
*/"""
