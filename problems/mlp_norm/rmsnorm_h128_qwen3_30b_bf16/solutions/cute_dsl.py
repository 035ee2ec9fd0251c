"""RMSNorm over rows of 128 bf16 in CuTe DSL: the algorithm of solutions/cuda.cu. Each row is one aligned
half-warp of 16 lanes, each lane holding 8 contiguous values (one 128-bit load, one 128-bit store); a
256-thread block covers 16 rows, and 520128 = 16 * 32508 rows fill whole blocks. The sum of squares is
reduced inside the half-warp with butterfly shuffles (offsets 8, 4, 2, 1). fp32 throughout and one
rounding: y = bf16((x * rsqrt(mean(x^2) + eps)) * float(w))."""
import cutlass
import cutlass.cute as cute

ROWS = 520128                    # batch_size
HIDDEN = 128
VEC = 8                          # bf16 per 16-byte piece
LANES = HIDDEN // VEC            # 16 lanes per row
THREADS = 256
ROWS_PER_BLOCK = THREADS // LANES  # 16
F32 = cutlass.Float32
BF16 = cutlass.BFloat16

assert ROWS % ROWS_PER_BLOCK == 0


@cute.kernel
def rmsnorm_h128(hidden_states: cute.Pointer, weight: cute.Pointer, y: cute.Pointer, eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    row = cute.arch.block_idx()[0] * ROWS_PER_BLOCK + tidx // LANES
    part = tidx % LANES

    rows = cute.make_layout((ROWS, LANES, VEC), stride=(HIDDEN, VEC, 1))
    gx = cute.make_tensor(hidden_states, rows)
    gy = cute.make_tensor(y, rows)
    gw = cute.make_tensor(weight, cute.make_layout((LANES, VEC), stride=(VEC, 1)))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor((VEC,), BF16)
    rw = cute.make_rmem_tensor((VEC,), BF16)
    ro = cute.make_rmem_tensor((VEC,), BF16)
    cute.copy(copy128, gx[row, part, None], rx)
    cute.copy(copy128, gw[part, None], rw)

    square_sum = F32(0.0)
    for e in cutlass.range_constexpr(VEC):
        h = rx[e].to(F32)
        square_sum = square_sum + h * h
    square_sum = cute.arch.warp_reduction_sum(square_sum, threads_in_group=LANES)
    inv = cute.math.rsqrt(square_sum / F32(HIDDEN) + eps)
    for e in cutlass.range_constexpr(VEC):
        ro[e] = ((rx[e].to(F32) * inv) * rw[e].to(F32)).to(BF16)
    cute.copy(copy128, ro, gy[row, part, None])


MKB_PLAN = """/* mkb:plan
launch rmsnorm_h128 grid(32508) block(256) args(hidden_states, weight, y, f32(eps))
*/"""
