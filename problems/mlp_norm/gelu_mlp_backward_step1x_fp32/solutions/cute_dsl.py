"""MetaKernelBench #37 (reconstructed: spec.json's notes), the tanh-GELU MLP backward in CuTe DSL,
fp32-accurate on tensor cores: the algorithm of solutions/cuda.cu, five launches. Notation: dy = grad_output,
x = hidden_states, p = fc1_output, act = gelu_output (as [T, features], T = batch_size * seq_len),
w1 = fc1_weight, w2 = fc2_weight; db1/db2/dw1/dw2/dx are the grad_fc1_bias/... outputs.
  1. colsum_dy: db2 = sum_t dy (block (32, 8): 32 columns x 8 row lanes, partials through shared memory);
     also zeroes db1 for the atomics of launch 2.
  2. bwd_dh: da = dy w2 (M = T, N = intermediate, K = hidden; never stored); epilogue:
     dh = da * gelu_tanh'(p) stored to scratch, db1 += column sums of dh (per thread over its rows,
     warp shuffles over the 8 lanes sharing a column, one fp32 atomic per column per warp).
  3. bwd_dw2: dw2 = dy^T act (M = hidden, N = intermediate, K = T).
  4. bwd_dw1: dw1 = dh^T x (M = intermediate, N = hidden, K = T).
  5. bwd_dx:  dx = dh w1   (M = T, N = hidden, K = intermediate).

GEMM core: 128x128x32 block tiles, 256 threads (8 warps as 2 along M x 4 along N, each a 64x32 warp
tile), a 4-stage cp.async pipeline in 147456 bytes of dynamic shared memory. Operands are K-contiguous
(tiles stored row x k, rows padded to 36 floats) or M/N-contiguous (tiles stored k x row, rows padded
to 136 floats); both paddings keep the fragment reads free of bank conflicts. Products are 3xTF32 on
mma.sync m16n8k8 (the PTX instruction emitted with llvm.inline_asm; fragment layout of the PTX ISA, as
cuda.cu): each fp32 operand v is split into hi = v rounded to TF32 ((bits + 0x1000) & 0xffffe000) and
lo = v - hi (exact in fp32, truncated to TF32 by the MMA); the product is lo*hi' + hi*lo' + hi*hi'.
Every 32-wide k tile is summed by the MMAs into a fresh partial accumulator that is then added to the
main fp32 accumulator with an ordinary fp32 add (tensor-core accumulation truncates). tanh is the
accurate one (math.tanh, not tanh.approx).

Status: compile-checked only (sm_90a); not yet run on a GPU at these shapes. Expected speed: close to
cuda.cu (same tiling, pipeline and instruction mix), well ahead of the eager cuBLAS SGEMM baseline.
Shapes: T = 64 * 128 = 8192, hidden = 2048, intermediate = 8192 (all multiples of 128)."""
import cutlass
import cutlass.cute as cute
from cutlass.cutlass_dsl import T, dsl_user_op
from cutlass._mlir.dialects import llvm

F32 = cutlass.Float32
U32 = cutlass.Uint32

TOKENS = 64 * 128   # batch_size * seq_len
HIDDEN = 2048
FFN = 8192          # intermediate_size
# ---------------------------------------------------------------------------------------------------
# 3xTF32 GEMM core (the GEMM of solutions/cuda.cu)
BM = 128
BN = 128
BK = 32
STAGES = 4
THREADS = 256
KPAD = BK + 4                    # padded row (floats) of a K-contiguous tile: conflict-free fragments
MPAD = BM + 8                    # padded row (floats) of an M/N-contiguous tile (BM == BN)
TILE = BM * KPAD                 # 4608 floats per operand tile (>= BK * MPAD = 4352)
STAGE = 2 * TILE                 # A tile then B tile
SMEM_BYTES = STAGES * STAGE * 4  # 147456: the plan's shared(147456)
assert SMEM_BYTES == 147456 and BM == BN and BK * MPAD <= TILE


@dsl_user_op
def split_tf32(v, *, loc=None, ip=None):
    """(hi, lo) as TF32 bit patterns: hi = v rounded to 10 mantissa bits (to nearest, ties away, as
    cvt.rna.tf32.f32 for finite v), lo = v - hi (exact in fp32; the MMA reads its top 10 mantissa bits)."""
    bits = llvm.bitcast(T.i32(), F32(v).ir_value(loc=loc, ip=ip), loc=loc, ip=ip)
    res = llvm.inline_asm(
        llvm.StructType.get_literal([T.i32(), T.i32()]), [bits],
        "{\n\t.reg .b32 h;\n\t.reg .f32 vf, hf, lf;\n\t"
        "add.u32 h, $2, 4096;\n\tand.b32 h, h, -8192;\n\t"
        "mov.b32 vf, $2;\n\tmov.b32 hf, h;\n\tsub.rn.f32 lf, vf, hf;\n\t"
        "mov.b32 $1, lf;\n\tmov.b32 $0, h;\n\t}",
        "=r,=r,r", has_side_effects=False, is_align_stack=False, asm_dialect=llvm.AsmDialect.AD_ATT,
        loc=loc, ip=ip)
    hi = U32(llvm.extractvalue(T.i32(), res, [0], loc=loc, ip=ip))
    lo = U32(llvm.extractvalue(T.i32(), res, [1], loc=loc, ip=ip))
    return hi, lo


@dsl_user_op
def mma_tf32(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1, *, loc=None, ip=None):
    """mma.sync m16n8k8 row.col f32.tf32.tf32.f32: returns d + a * b (4 fp32 values).
    a0..a3 = A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4); b0, b1 = B(k = t, n = g), B(k = t + 4, n = g);
    d0..d3 = C(g, 2t), C(g, 2t + 1), C(g + 8, 2t), C(g + 8, 2t + 1) (g = lane / 4, t = lane % 4)."""
    ops = [U32(v).ir_value(loc=loc, ip=ip) for v in (a0, a1, a2, a3, b0, b1)]
    ops += [F32(v).ir_value(loc=loc, ip=ip) for v in (d0, d1, d2, d3)]
    res = llvm.inline_asm(
        llvm.StructType.get_literal([T.f32()] * 4), ops,
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
        "{$10,$11,$12,$13};",
        "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", has_side_effects=False, is_align_stack=False,
        asm_dialect=llvm.AsmDialect.AD_ATT, loc=loc, ip=ip)
    return [F32(llvm.extractvalue(T.f32(), res, [i], loc=loc, ip=ip)) for i in range(4)]


@cute.jit
def load_stage(cp16, gA, gB, s_a, s_b, st, kt, m0, n0, tid, A_K: cutlass.Constexpr, B_K: cutlass.Constexpr,
               ROWS_A: cutlass.Constexpr):
    """cp.async of K tile kt of both operands into stage st (1024 16-byte chunks per operand, 4 per thread)."""
    for i in cutlass.range_constexpr(4):
        c = tid + i * THREADS
        if cutlass.const_expr(A_K):
            r = c // 8
            q = c % 8
            ra = m0 + r
            if cutlass.const_expr(ROWS_A % BM != 0):
                ra = cutlass.min(ra, ROWS_A - 1)   # rows past the end: a valid row, its outputs unused
            cute.copy(cp16, gA[ra, kt * (BK // 4) + q, None], s_a[st, r, q, None])
        else:
            k = c // 32
            q = c % 32
            cute.copy(cp16, gA[kt * BK + k, m0 // 4 + q, None], s_a[st, k, q, None])
        if cutlass.const_expr(B_K):
            r = c // 8
            q = c % 8
            cute.copy(cp16, gB[n0 + r, kt * (BK // 4) + q, None], s_b[st, r, q, None])
        else:
            k = c // 32
            q = c % 32
            cute.copy(cp16, gB[kt * BK + k, n0 // 4 + q, None], s_b[st, k, q, None])


@cute.jit
def gemm_3xtf32(a_ptr: cute.Pointer, b_ptr: cute.Pointer, acc: cute.Tensor, m0, n0, K: cutlass.Constexpr,
                ROWS_A: cutlass.Constexpr, ROWS_B: cutlass.Constexpr, A_K: cutlass.Constexpr,
                B_K: cutlass.Constexpr):
    """acc[mt, nt, e] = the thread's fragments of the 128x128 tile at (m0, n0) of C = A B^T, A [ROWS_A, K],
    B [ROWS_B, K] in the index sense. A_K: A stored [ROWS_A][K] (K-contiguous), else [K][ROWS_A];
    likewise B_K for B. Fragment (mt, nt), e: row m0 + wm*64 + mt*16 + g + 8*(e // 2),
    column n0 + wn*32 + nt*8 + 2t + (e % 2), warp = 4 wm + wn."""
    KT = K // BK
    tid = cute.arch.thread_idx()[0]
    lane = tid % 32
    warp = tid // 32
    wm = warp // 4
    wn = warp % 4
    g = lane // 4
    t = lane % 4

    # global operands as (row, 16-byte piece, element) along their contiguous dimension
    if cutlass.const_expr(A_K):
        gA = cute.make_tensor(a_ptr, cute.make_layout((ROWS_A, K // 4, 4), stride=(K, 4, 1)))
    else:
        gA = cute.make_tensor(a_ptr, cute.make_layout((K, ROWS_A // 4, 4), stride=(ROWS_A, 4, 1)))
    if cutlass.const_expr(B_K):
        gB = cute.make_tensor(b_ptr, cute.make_layout((ROWS_B, K // 4, 4), stride=(K, 4, 1)))
    else:
        gB = cute.make_tensor(b_ptr, cute.make_layout((K, ROWS_B // 4, 4), stride=(ROWS_B, 4, 1)))
    smem = cute.arch.get_dyn_smem(F32, alignment=16)
    # shared tiles: copy views (stage, row, piece, element), fragment views (stage, row, k)
    if cutlass.const_expr(A_K):
        s_a = cute.make_tensor(smem, cute.make_layout((STAGES, BM, BK // 4, 4), stride=(STAGE, KPAD, 4, 1)))
        f_a = cute.make_tensor(smem, cute.make_layout((STAGES, BM, BK), stride=(STAGE, KPAD, 1)))
    else:
        s_a = cute.make_tensor(smem, cute.make_layout((STAGES, BK, BM // 4, 4), stride=(STAGE, MPAD, 4, 1)))
        f_a = cute.make_tensor(smem, cute.make_layout((STAGES, BM, BK), stride=(STAGE, 1, MPAD)))
    smem_b = smem + TILE
    if cutlass.const_expr(B_K):
        s_b = cute.make_tensor(smem_b, cute.make_layout((STAGES, BN, BK // 4, 4), stride=(STAGE, KPAD, 4, 1)))
        f_b = cute.make_tensor(smem_b, cute.make_layout((STAGES, BN, BK), stride=(STAGE, KPAD, 1)))
    else:
        s_b = cute.make_tensor(smem_b, cute.make_layout((STAGES, BK, BN // 4, 4), stride=(STAGE, MPAD, 4, 1)))
        f_b = cute.make_tensor(smem_b, cute.make_layout((STAGES, BN, BK), stride=(STAGE, 1, MPAD)))

    cp16 = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cute.nvgpu.cpasync.LoadCacheMode.GLOBAL), F32,
                               num_bits_per_copy=128)
    for i in cutlass.range_constexpr(4):
        for j in cutlass.range_constexpr(4):
            for e in cutlass.range_constexpr(4):
                acc[i, j, e] = F32(0.0)
    part = cute.make_rmem_tensor((4, 4, 4), F32)

    for s in cutlass.range_constexpr(STAGES - 1):   # prologue: tiles 0 .. STAGES - 2
        load_stage(cp16, gA, gB, s_a, s_b, s, s, m0, n0, tid, A_K, B_K, ROWS_A)
        cute.arch.cp_async_commit_group()

    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # tile kt has landed (this thread's copies)
        cute.arch.sync_threads()                    # everyone's copies visible; tile kt - 1 no longer read
        nk = kt + STAGES - 1
        if nk < KT:                                 # refill the stage tile kt - 1 used
            load_stage(cp16, gA, gB, s_a, s_b, nk % STAGES, nk, m0, n0, tid, A_K, B_K, ROWS_A)
        cute.arch.cp_async_commit_group()           # possibly empty: keeps the group count uniform
        st = kt % STAGES

        for i in cutlass.range_constexpr(4):
            for j in cutlass.range_constexpr(4):
                for e in cutlass.range_constexpr(4):
                    part[i, j, e] = F32(0.0)
        for kk in cutlass.range_constexpr(0, BK, 8):
            bh = []
            bl = []
            for nt in cutlass.range_constexpr(4):
                n = wn * 32 + nt * 8 + g
                h0, l0 = split_tf32(f_b[st, n, kk + t])
                h1, l1 = split_tf32(f_b[st, n, kk + t + 4])
                bh.append((h0, h1))
                bl.append((l0, l1))
            for mt in cutlass.range_constexpr(4):
                r = wm * 64 + mt * 16 + g
                ah0, al0 = split_tf32(f_a[st, r, kk + t])
                ah1, al1 = split_tf32(f_a[st, r + 8, kk + t])
                ah2, al2 = split_tf32(f_a[st, r, kk + t + 4])
                ah3, al3 = split_tf32(f_a[st, r + 8, kk + t + 4])
                for nt in cutlass.range_constexpr(4):
                    d = mma_tf32(part[mt, nt, 0], part[mt, nt, 1], part[mt, nt, 2], part[mt, nt, 3],
                                 al0, al1, al2, al3, bh[nt][0], bh[nt][1])
                    d = mma_tf32(d[0], d[1], d[2], d[3], ah0, ah1, ah2, ah3, bl[nt][0], bl[nt][1])
                    d = mma_tf32(d[0], d[1], d[2], d[3], ah0, ah1, ah2, ah3, bh[nt][0], bh[nt][1])
                    for e in cutlass.range_constexpr(4):
                        part[mt, nt, e] = d[e]
        for i in cutlass.range_constexpr(4):        # fresh partial sums into the fp32 accumulator
            for j in cutlass.range_constexpr(4):
                for e in cutlass.range_constexpr(4):
                    acc[i, j, e] = acc[i, j, e] + part[i, j, e]
    cute.arch.cp_async_wait_group(0)

assert TOKENS % BM == 0 and HIDDEN % BM == 0 and FFN % BM == 0

GELU_K = 0.7978845608028654   # sqrt(2 / pi)
GELU_C = 0.044715


@cute.kernel
def colsum_dy(dy: cute.Pointer, db2: cute.Pointer, db1: cute.Pointer):
    tx = cute.arch.thread_idx()[0]
    ty = cute.arch.thread_idx()[1]
    bx = cute.arch.block_idx()[0]
    gdy = cute.make_tensor(dy, cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1)))
    gdb2 = cute.make_tensor(db2, cute.make_layout(HIDDEN))
    gdb1 = cute.make_tensor(db1, cute.make_layout(FFN))
    partial = cute.make_tensor(cute.arch.alloc_smem(F32, 8 * 33), cute.make_layout((8, 32), stride=(33, 1)))
    c = bx * 32 + tx
    s = F32(0.0)
    for r in cutlass.range(ty, TOKENS, 8):
        s = s + gdy[r, c]
    partial[ty, tx] = s
    cute.arch.sync_threads()
    if ty == 0:
        for y in cutlass.range_constexpr(1, 8):
            s = s + partial[y, tx]
        gdb2[c] = s
    j = bx * 256 + ty * 32 + tx          # 64 blocks x 256 threads cover the 8192 entries of db1
    if j < FFN:
        gdb1[j] = F32(0.0)


@cute.kernel
def bwd_dh(dy: cute.Pointer, w2: cute.Pointer, p: cute.Pointer, dh: cute.Pointer, db1: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((4, 4, 4), F32)
    # da = dy w2: A = dy [T, H] K-contiguous, B = w2 [H, I] = [K][N] N-contiguous
    gemm_3xtf32(dy, w2, acc, m0, n0, HIDDEN, TOKENS, FFN, True, False)

    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    t = lane % 4
    gh = cute.make_tensor(p, cute.make_layout((TOKENS, FFN // 2, 2), stride=(FFN, 2, 1)))
    gdh = cute.make_tensor(dh, cute.make_layout((TOKENS, FFN // 2, 2), stride=(FFN, 2, 1)))
    cp8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    hv = cute.make_rmem_tensor((2,), F32)
    dv = cute.make_rmem_tensor((2,), F32)
    colsum = cute.make_rmem_tensor((4, 2), F32)
    for nt in cutlass.range_constexpr(4):
        c2 = (n0 + (warp % 4) * 32 + nt * 8 + 2 * t) // 2     # column pair
        colsum[nt, 0] = F32(0.0)
        colsum[nt, 1] = F32(0.0)
        for mt in cutlass.range_constexpr(4):
            for hh in cutlass.range_constexpr(2):
                row = m0 + (warp // 4) * 64 + mt * 16 + g + 8 * hh
                cute.copy(cp8, gh[row, c2, None], hv)
                for e in cutlass.range_constexpr(2):
                    v = hv[e]
                    th = cute.math.tanh(F32(GELU_K) * (v + F32(GELU_C) * v * v * v))
                    grad = F32(0.5) * (F32(1.0) + th) + F32(0.5) * v * (F32(1.0) - th * th) * F32(GELU_K) * (
                        F32(1.0) + F32(3.0 * GELU_C) * v * v)
                    dv[e] = acc[mt, nt, 2 * hh + e] * grad
                    colsum[nt, e] = colsum[nt, e] + dv[e]
                cute.copy(cp8, dv, gdh[row, c2, None])
    # reduce over the 8 lanes of equal t (g = lane / 4), then one atomic per column per warp
    for nt in cutlass.range_constexpr(4):
        for e in cutlass.range_constexpr(2):
            s = colsum[nt, e]
            s = s + cute.arch.shuffle_sync_bfly(s, 4)
            s = s + cute.arch.shuffle_sync_bfly(s, 8)
            s = s + cute.arch.shuffle_sync_bfly(s, 16)
            if lane < 4:
                cute.arch.atomic_add(db1 + (n0 + (warp % 4) * 32 + nt * 8 + 2 * t + e), s)


@cute.jit
def store_tile(c: cute.Pointer, acc: cute.Tensor, m0, n0, ROWS: cutlass.Constexpr, COLS: cutlass.Constexpr):
    """Plain epilogue: C[row, col .. col + 1] = the accumulator fragment pairs, C [ROWS, COLS] row-major."""
    tid = cute.arch.thread_idx()[0]
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    t = lane % 4
    gc = cute.make_tensor(c, cute.make_layout((ROWS, COLS // 2, 2), stride=(COLS, 2, 1)))
    cp8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    ov = cute.make_rmem_tensor((2,), F32)
    for nt in cutlass.range_constexpr(4):
        c2 = (n0 + (warp % 4) * 32 + nt * 8 + 2 * t) // 2
        for mt in cutlass.range_constexpr(4):
            for hh in cutlass.range_constexpr(2):
                row = m0 + (warp // 4) * 64 + mt * 16 + g + 8 * hh
                ov[0] = acc[mt, nt, 2 * hh]
                ov[1] = acc[mt, nt, 2 * hh + 1]
                cute.copy(cp8, ov, gc[row, c2, None])


@cute.kernel
def bwd_dw2(dy: cute.Pointer, act: cute.Pointer, dw2: cute.Pointer):
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((4, 4, 4), F32)
    # dw2 = dy^T act: A = dy [T, H] = [K][M] M-contiguous, B = act [T, I] = [K][N] N-contiguous
    gemm_3xtf32(dy, act, acc, m0, n0, TOKENS, HIDDEN, FFN, False, False)
    store_tile(dw2, acc, m0, n0, HIDDEN, FFN)


@cute.kernel
def bwd_dw1(dh: cute.Pointer, x: cute.Pointer, dw1: cute.Pointer):
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((4, 4, 4), F32)
    # dw1 = dh^T x: A = dh [T, I] = [K][M] M-contiguous, B = x [T, H] = [K][N] N-contiguous
    gemm_3xtf32(dh, x, acc, m0, n0, TOKENS, FFN, HIDDEN, False, False)
    store_tile(dw1, acc, m0, n0, FFN, HIDDEN)


@cute.kernel
def bwd_dx(dh: cute.Pointer, w1: cute.Pointer, dx: cute.Pointer):
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((4, 4, 4), F32)
    # dx = dh w1: A = dh [T, I] K-contiguous, B = w1 [I, H] = [K][N] N-contiguous
    gemm_3xtf32(dh, w1, acc, m0, n0, FFN, TOKENS, HIDDEN, True, False)
    store_tile(dx, acc, m0, n0, TOKENS, HIDDEN)


MKB_PLAN = """/* mkb:plan
scratch dh fp32[batch_size * seq_len * intermediate_size]
launch colsum_dy grid(hidden_size / 32) block(32, 8) args(grad_output, grad_fc2_bias, grad_fc1_bias)
launch bwd_dh grid(intermediate_size / 128, batch_size * seq_len / 128) block(256) shared(147456)
  args(grad_output, fc2_weight, fc1_output, dh, grad_fc1_bias)
launch bwd_dw2 grid(intermediate_size / 128, hidden_size / 128) block(256) shared(147456)
  args(grad_output, gelu_output, grad_fc2_weight)
launch bwd_dw1 grid(hidden_size / 128, intermediate_size / 128) block(256) shared(147456)
  args(dh, hidden_states, grad_fc1_weight)
launch bwd_dx grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(147456)
  args(dh, fc1_weight, grad_hidden_states)
*/"""
