"""Fused q_norm + k_norm (per-head RMSNorm, head_dim 128, bf16) in CuTe DSL: the algorithm of
solutions/cuda.cu. One 288-thread block per token covers its 36 head rows (32 of q, then 4 of k) as
576 16-byte pieces, 16 lanes per head row (8 bf16 each). Thread t takes pieces t and t + 288: the first
is always a q row (head t / 16 < 18); the second is head 18 + t / 16, a q row for t < 224 and a k row
for the last two warps (224 = 7 * 32, so the q/k choice is warp-uniform). Both 128-bit loads are issued
before any arithmetic; the sum of squares is reduced over the row's aligned half-warp with butterfly
shuffles (offsets 8, 4, 2, 1). Rounding as the eager reference: fp32 statistics,
n = bf16(h * rsqrt(ms + eps)), out = bf16(float(w) * float(n))."""
import cutlass
import cutlass.cute as cute

TOKENS = 16384
Q_HEADS = 32
K_HEADS = 4
HEAD_DIM = 128
VEC = 8                              # bf16 per 16-byte piece
LANES_PER_HEAD = HEAD_DIM // VEC     # 16
THREADS = (Q_HEADS + K_HEADS) * LANES_PER_HEAD // 2   # 288, two pieces each
SPLIT = Q_HEADS * LANES_PER_HEAD - THREADS            # 224: threads whose second piece is still q
SECOND_HEAD = THREADS // LANES_PER_HEAD               # 18: head of piece t + 288 is 18 + t / 16

assert SPLIT % 32 == 0 and THREADS % 32 == 0


@cute.jit
def _normalize(rx: cute.Tensor, rw: cute.Tensor, ro: cute.Tensor, eps: cutlass.Float32):
    """ro = bf16(float(w) * float(bf16(h * rsqrt(mean(h^2) + eps)))) for this lane's 8 values of a row."""
    square_sum = cutlass.Float32(0.0)
    for e in cutlass.range_constexpr(VEC):
        h = rx[e].to(cutlass.Float32)
        square_sum = square_sum + h * h
    # The 16 lanes of one head row are an aligned half-warp: xor offsets below 16 stay inside it.
    square_sum = cute.arch.warp_reduction_sum(square_sum, threads_in_group=LANES_PER_HEAD)
    inv = cute.math.rsqrt(square_sum / cutlass.Float32(HEAD_DIM) + eps)
    for e in cutlass.range_constexpr(VEC):
        n = (rx[e].to(cutlass.Float32) * inv).to(cutlass.BFloat16)
        ro[e] = (rw[e].to(cutlass.Float32) * n.to(cutlass.Float32)).to(cutlass.BFloat16)


@cute.kernel
def qk_rmsnorm(q: cute.Pointer, k: cute.Pointer, q_weight: cute.Pointer, k_weight: cute.Pointer,
               q_out: cute.Pointer, k_out: cute.Pointer, eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    token = cute.arch.block_idx()[0]
    part = tidx % LANES_PER_HEAD  # which 8 columns of the head row

    # Head rows as (row, piece, element): every piece is 16 contiguous, 16-byte aligned bytes.
    q_rows = cute.make_layout((TOKENS * Q_HEADS, LANES_PER_HEAD, VEC), stride=(HEAD_DIM, VEC, 1))
    k_rows = cute.make_layout((TOKENS * K_HEADS, LANES_PER_HEAD, VEC), stride=(HEAD_DIM, VEC, 1))
    w_row = cute.make_layout((LANES_PER_HEAD, VEC), stride=(VEC, 1))
    gq = cute.make_tensor(q, q_rows)
    gk = cute.make_tensor(k, k_rows)
    gqo = cute.make_tensor(q_out, q_rows)
    gko = cute.make_tensor(k_out, k_rows)
    gqw = cute.make_tensor(q_weight, w_row)
    gkw = cute.make_tensor(k_weight, w_row)

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.BFloat16, num_bits_per_copy=128)
    rx0 = cute.make_rmem_tensor((VEC,), cutlass.BFloat16)
    rx1 = cute.make_rmem_tensor((VEC,), cutlass.BFloat16)
    rw0 = cute.make_rmem_tensor((VEC,), cutlass.BFloat16)
    rw1 = cute.make_rmem_tensor((VEC,), cutlass.BFloat16)
    ro0 = cute.make_rmem_tensor((VEC,), cutlass.BFloat16)
    ro1 = cute.make_rmem_tensor((VEC,), cutlass.BFloat16)

    row0 = token * Q_HEADS + tidx // LANES_PER_HEAD                          # q head t / 16
    cute.copy(copy128, gq[row0, part, None], rx0)
    if tidx < SPLIT:                                                         # q head 18 + t / 16
        cute.copy(copy128, gq[row0 + SECOND_HEAD, part, None], rx1)
        cute.copy(copy128, gqw[part, None], rw1)
    else:                                                                    # k head t / 16 - 14
        cute.copy(copy128, gk[token * K_HEADS + (tidx - SPLIT) // LANES_PER_HEAD, part, None], rx1)
        cute.copy(copy128, gkw[part, None], rw1)
    cute.copy(copy128, gqw[part, None], rw0)

    _normalize(rx0, rw0, ro0, eps)
    cute.copy(copy128, ro0, gqo[row0, part, None])
    _normalize(rx1, rw1, ro1, eps)
    if tidx < SPLIT:
        cute.copy(copy128, ro1, gqo[row0 + SECOND_HEAD, part, None])
    else:
        cute.copy(copy128, ro1, gko[token * K_HEADS + (tidx - SPLIT) // LANES_PER_HEAD, part, None])


MKB_PLAN = """/* mkb:plan
launch qk_rmsnorm grid(tokens) block(288) args(q, k, q_weight, k_weight, q_out, k_out, f32(eps))
*/"""
