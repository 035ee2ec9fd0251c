"""FLUX.1 FeedForward (Linear 3072 -> 12288 + bias, GELU tanh, Linear 12288 -> 3072 + bias) in CuTe DSL,
fp32-accurate on tensor cores: the algorithm of solutions/cuda.cu, two launches.
  1. ff_up:   a = gelu_tanh(x w1^T + b1)   (M = tokens, N = ffn, K = hidden); a is scratch [tokens, ffn]
  2. ff_down: y = a w2^T + b2              (M = tokens, N = hidden, K = ffn)

GEMM core: C = A B^T with both operands K-contiguous here (nn.Linear weights). 128x128x32 block tiles,
256 threads (8 warps as 2 along M x 4 along N, each a 64x32 warp tile), a 4-stage cp.async pipeline in
147456 bytes of dynamic shared memory (K-contiguous tiles with rows padded to 36 floats: conflict-free
fragment reads). Products are 3xTF32 on mma.sync m16n8k8 (the PTX instruction emitted with
llvm.inline_asm; fragment layout of the PTX ISA, as cuda.cu): each fp32 operand v is split into
hi = v rounded to TF32 ((bits + 0x1000) & 0xffffe000) and lo = v - hi (exact in fp32, truncated to TF32
by the MMA); the product is lo*hi' + hi*lo' + hi*hi'. Every 32-wide k tile is summed by the MMAs into a
fresh partial accumulator that is then added to the main fp32 accumulator with an ordinary fp32 add
(tensor-core accumulation truncates; the running sum never goes through it). The epilogues add the
bias (and apply the GELU with the accurate tanh, not tanh.approx) and store float2 pairs.

Status: compile-checked only (sm_90a, ptxas: 197 registers, no spills); not yet run on a GPU.
Expected speed: close to cuda.cu (same tiling, pipeline and instruction mix), i.e. well ahead of the
eager cuBLAS SGEMM baseline.
Shapes: tokens = batch_size * seq_len = 16384, hidden = hidden_dim = 3072, ffn = mlp_hidden_dim = 12288 (all multiples of 128)."""
import cutlass
import cutlass.cute as cute
from cutlass.cutlass_dsl import T, dsl_user_op
from cutlass._mlir.dialects import llvm

F32 = cutlass.Float32
U32 = cutlass.Uint32

TOKENS = 16384  # batch_size * seq_len = 32 * 512
HIDDEN = 3072
FFN = 12288
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

assert TOKENS % BM == 0 and HIDDEN % BN == 0 and FFN % BN == 0 and HIDDEN % BK == 0 and FFN % BK == 0

GELU_K = 0.7978845608028654   # sqrt(2 / pi)
GELU_C = 0.044715


@cute.jit
def gelu_tanh(v):
    return F32(0.5) * v * (F32(1.0) + cute.math.tanh(F32(GELU_K) * (v + F32(GELU_C) * v * v * v)))


@cute.kernel
def ff_up(x: cute.Pointer, w1: cute.Pointer, b1: cute.Pointer, a: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((4, 4, 4), F32)
    gemm_3xtf32(x, w1, acc, m0, n0, HIDDEN, TOKENS, FFN, True, True)

    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    t = lane % 4
    gb = cute.make_tensor(b1, cute.make_layout((FFN // 2, 2), stride=(2, 1)))
    ga = cute.make_tensor(a, cute.make_layout((TOKENS, FFN // 2, 2), stride=(FFN, 2, 1)))
    cp8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    bv = cute.make_rmem_tensor((2,), F32)
    ov = cute.make_rmem_tensor((2,), F32)
    for nt in cutlass.range_constexpr(4):
        c2 = (n0 + (warp % 4) * 32 + nt * 8 + 2 * t) // 2     # column pair
        cute.copy(cp8, gb[c2, None], bv)
        for mt in cutlass.range_constexpr(4):
            row = m0 + (warp // 4) * 64 + mt * 16 + g
            for hh in cutlass.range_constexpr(2):
                for e in cutlass.range_constexpr(2):
                    ov[e] = gelu_tanh(acc[mt, nt, 2 * hh + e] + bv[e])
                cute.copy(cp8, ov, ga[row + 8 * hh, c2, None])


@cute.kernel
def ff_down(a: cute.Pointer, w2: cute.Pointer, b2: cute.Pointer, y: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((4, 4, 4), F32)
    gemm_3xtf32(a, w2, acc, m0, n0, FFN, TOKENS, HIDDEN, True, True)

    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    t = lane % 4
    gb = cute.make_tensor(b2, cute.make_layout((HIDDEN // 2, 2), stride=(2, 1)))
    gy = cute.make_tensor(y, cute.make_layout((TOKENS, HIDDEN // 2, 2), stride=(HIDDEN, 2, 1)))
    cp8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    bv = cute.make_rmem_tensor((2,), F32)
    ov = cute.make_rmem_tensor((2,), F32)
    for nt in cutlass.range_constexpr(4):
        c2 = (n0 + (warp % 4) * 32 + nt * 8 + 2 * t) // 2
        cute.copy(cp8, gb[c2, None], bv)
        for mt in cutlass.range_constexpr(4):
            row = m0 + (warp // 4) * 64 + mt * 16 + g
            for hh in cutlass.range_constexpr(2):
                for e in cutlass.range_constexpr(2):
                    ov[e] = acc[mt, nt, 2 * hh + e] + bv[e]
                cute.copy(cp8, ov, gy[row + 8 * hh, c2, None])


MKB_PLAN = """/* mkb:plan
scratch a fp32[batch_size * seq_len * mlp_hidden_dim]
launch ff_up grid(mlp_hidden_dim / 128, batch_size * seq_len / 128) block(256) shared(147456) args(x, w1, b1, a)
launch ff_down grid(hidden_dim / 128, batch_size * seq_len / 128) block(256) shared(147456) args(a, w2, b2, y)
*/"""
