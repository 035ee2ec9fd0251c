"""Q/K/V projections (1024 -> 8 heads x 128, no bias) with a per-head RMSNorm of q and k (#41, Gemma 3n
audio shapes), fp32, in CuTe DSL, one launch. The algorithm of solutions/cuda.cu (one block = a row tile x one
head of q, k or v, the RMSNorm over head_dim in the epilogue) with the GEMM as a register-tiled fp32 FFMA GEMM
(no TF32):
  - grid (3 * heads, ceil_div(rows, 64)); blockIdx.x / 8 picks q, k or v (block-uniform branch, the same
    inlined main loop in each branch), blockIdx.x % 8 the head; block tile 64 rows x 128 columns.
  - 256 threads as 8 (M) x 32 (N): warp w owns rows w + 8 i (i < 8), lane l owns columns l + 32 j (j < 4):
    32 fp32 accumulators; a row's 128 columns live in one warp, so the RMSNorm sum is one warp reduction.
  - K tiles of 32 go global -> shared with 16-byte cp.async in a 3-deep ring (rows padded to 36 floats:
    conflict-free 16-byte fragment reads). Each K tile's products are summed from zero and then added to
    the running fp32 sums (cuda.cu's per-tile restart), so the accumulation error stays below cuBLAS's.
  - rows = batch_size * seq_len = 8192 = 128 * 64 (the clamp of rows past the end never triggers).
  - RMSNorm in the baseline's form: ms = sum(Q^2) / 128, r = rsqrt(ms + eps), q = (Q * r) * weight.
Adapted from the port for the earlier 1536 -> 8 x 192 shapes, which passed on an H200; this version is
compile-checked only. beats_baseline false: FFMA-bound, expected near the eager baseline's cuBLAS SGEMMs
(it saves their 12 norm launches), so it is not claimed to beat them."""
import cutlass
import cutlass.cute as cute

FRAMES = 64 * 128           # batch_size * seq_len rows
HIDDEN = 1024
HEADS = 8
HEAD_DIM = 128
F32 = cutlass.Float32

BM = 64
BN = HEAD_DIM                # one head per block
BK = 32
LDS = BK + 4                 # padded shared row, floats (144 bytes)
KCH = BK // 4                # 16-byte chunks per tile row
STAGES = 3
THREADS = 256
TM = 8                       # threads along M (= warps)
TN = 32                      # threads along N (= lanes)
RM = BM // TM                # 8 rows per thread
RN = BN // TN                # 4 columns per thread
A_STAGE = BM * LDS
B_STAGE = BN * LDS
GEMM_SMEM = STAGES * (A_STAGE + B_STAGE) * 4          # 82944 bytes
KT = HIDDEN // BK            # 32
assert HEADS * HEAD_DIM == HIDDEN and HIDDEN % BK == 0 and TM * TN == THREADS
assert BM * KCH % THREADS == 0 and BN * KCH % THREADS == 0 and GEMM_SMEM == 82944


@cute.jit
def load_tile(gA: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, cpa: cute.CopyAtom,
              tid: cutlass.Int32, m0: cutlass.Int32, head: cutlass.Int32, kt: cutlass.Int32, stage: cutlass.Int32):
    # chunk id = tid + 256 p: tile row id / 8, 16-byte column chunk id % 8
    for p in cutlass.range_constexpr(BM * KCH // THREADS):
        cid = tid + THREADS * p
        r = cid // KCH
        c = cid % KCH
        row = m0 + r
        if row > FRAMES - 1:
            row = FRAMES - 1                 # clamp: the row is computed but never stored
        cute.copy(cpa, gA[row, kt * KCH + c, None], sA[stage, r, c, None])
    for p in cutlass.range_constexpr(BN * KCH // THREADS):
        cid = tid + THREADS * p
        r = cid // KCH
        c = cid % KCH
        cute.copy(cpa, gB[head, r, kt * KCH + c, None], sB[stage, r, c, None])


@cute.jit
def compute_tile(sA: cute.Tensor, sB: cute.Tensor, stage: cutlass.Int32, tm: cutlass.Int32, tn: cutlass.Int32,
                 acc: cute.Tensor, tacc: cute.Tensor, fa: cute.Tensor, fb: cute.Tensor, c128: cute.CopyAtom):
    for i in cutlass.range_constexpr(RM):
        for j in cutlass.range_constexpr(RN):
            tacc[i, j] = F32(0.0)
    for kk in cutlass.range_constexpr(KCH):
        for i in cutlass.range_constexpr(RM):
            cute.copy(c128, sA[stage, tm + TM * i, kk, None], fa[None, i])
        for j in cutlass.range_constexpr(RN):
            cute.copy(c128, sB[stage, tn + TN * j, kk, None], fb[None, j])
        for e in cutlass.range_constexpr(4):
            for i in cutlass.range_constexpr(RM):
                for j in cutlass.range_constexpr(RN):
                    tacc[i, j] = tacc[i, j] + fa[e, i] * fb[e, j]
    for i in cutlass.range_constexpr(RM):
        for j in cutlass.range_constexpr(RN):
            acc[i, j] = acc[i, j] + tacc[i, j]


@cute.jit
def project_head(gA: cute.Tensor, w: cute.Pointer, out: cute.Pointer, nw: cute.Pointer, eps: cutlass.Float32,
                 head: cutlass.Int32, m0: cutlass.Int32, sA: cute.Tensor, sB: cute.Tensor, normalize: cutlass.Constexpr):
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    # weight rows as (head, row within the head, 16-byte chunk, element); output as (frame, head, column)
    gB = cute.make_tensor(w, cute.make_layout((HEADS, HEAD_DIM, HIDDEN // 4, 4),
                                              stride=(HEAD_DIM * HIDDEN, HIDDEN, 4, 1)))
    go = cute.make_tensor(out, cute.make_layout((FRAMES, HEADS, HEAD_DIM), stride=(HIDDEN, HEAD_DIM, 1)))
    gnw = cute.make_tensor(nw, cute.make_layout(HEAD_DIM))

    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cute.nvgpu.LoadCacheMode.GLOBAL), F32,
                              num_bits_per_copy=128)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    fa = cute.make_rmem_tensor((4, RM), F32)
    fb = cute.make_rmem_tensor((4, RN), F32)
    acc = cute.make_rmem_tensor((RM, RN), F32)
    tacc = cute.make_rmem_tensor((RM, RN), F32)
    for i in cutlass.range_constexpr(RM):
        for j in cutlass.range_constexpr(RN):
            acc[i, j] = F32(0.0)

    for s in cutlass.range_constexpr(STAGES - 1):
        load_tile(gA, gB, sA, sB, cpa, tid, m0, head, s, s)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        cute.arch.sync_threads()                     # ... everyone's; stage (kt - 1) % STAGES is free
        nk = kt + STAGES - 1
        if nk < KT:
            load_tile(gA, gB, sA, sB, cpa, tid, m0, head, nk, nk % STAGES)
        cute.arch.cp_async_commit_group()            # possibly empty: keeps the group count uniform
        compute_tile(sA, sB, kt % STAGES, tm, tn, acc, tacc, fa, fb, c128)
    cute.arch.cp_async_wait_group(0)

    if cutlass.const_expr(normalize):
        for i in cutlass.range_constexpr(RM):
            ss = F32(0.0)
            for j in cutlass.range_constexpr(RN):
                ss = ss + acc[i, j] * acc[i, j]
            ss = cute.arch.warp_reduction_sum(ss)   # the warp holds the row's 128 columns
            r = cute.math.rsqrt(ss / F32(HEAD_DIM) + eps)
            row = m0 + tm + TM * i
            if row < FRAMES:
                for j in cutlass.range_constexpr(RN):
                    col = tn + TN * j
                    go[row, head, col] = (acc[i, j] * r) * gnw[col]
    else:
        for i in cutlass.range_constexpr(RM):
            row = m0 + tm + TM * i
            if row < FRAMES:
                for j in cutlass.range_constexpr(RN):
                    go[row, head, tn + TN * j] = acc[i, j]


@cute.kernel
def qkv_rmsnorm(x: cute.Pointer, wq: cute.Pointer, wk: cute.Pointer, wv: cute.Pointer, q_norm_w: cute.Pointer,
                k_norm_w: cute.Pointer, q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, eps: cutlass.Float32):
    which = cute.arch.block_idx()[0] // HEADS     # 0: q, 1: k, 2: v (block-uniform)
    head = cute.arch.block_idx()[0] % HEADS
    m0 = cute.arch.block_idx()[1] * BM
    gA = cute.make_tensor(x, cute.make_layout((FRAMES, HIDDEN // 4, 4), stride=(HIDDEN, 4, 1)))
    base = cute.arch.get_dyn_smem(F32, alignment=16)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, KCH, 4), stride=(A_STAGE, LDS, 4, 1)))
    sB = cute.make_tensor(base + STAGES * A_STAGE, cute.make_layout((STAGES, BN, KCH, 4), stride=(B_STAGE, LDS, 4, 1)))
    if which == 0:
        project_head(gA, wq, q, q_norm_w, eps, head, m0, sA, sB, True)
    elif which == 1:
        project_head(gA, wk, k, k_norm_w, eps, head, m0, sA, sB, True)
    else:
        project_head(gA, wv, v, q_norm_w, eps, head, m0, sA, sB, False)


MKB_PLAN = """/* mkb:plan
launch qkv_rmsnorm grid(3 * num_heads, ceil_div(batch_size * seq_len, 64)) block(256) shared(82944)
  args(hidden_states, q_weight, k_weight, v_weight, q_norm_weight, k_norm_weight, q, k, v, f32(eps))
*/"""
