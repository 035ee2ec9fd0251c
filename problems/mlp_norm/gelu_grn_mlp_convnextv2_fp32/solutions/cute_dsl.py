"""ConvNeXt V2 channels-last MLP (original #30, reconstructed: Linear 128->512 -> GELU(erf) -> GRN -> Linear
512->128), fp32, in CuTe DSL. The algorithm of solutions/cuda.cu with the two GEMMs as register-tiled fp32 FFMA
GEMMs (no TF32), three launches:
  1. gemm1_gelu_grn: x @ w1^T, epilogue adds b1, applies the exact GELU, stores h and writes the GRN's
     per-(row block, image half, channel) sums of h^2 as deterministic partials (no atomics).
  2. grn_scale: per image, sums the partials of the row blocks holding its 3136 rows, Gx = sqrt(.),
     den = mean(Gx) + eps, sc = gamma * (Gx / den) + 1.
  3. gemm2_grn: (h * sc + beta) @ w2^T + b2; the GRN affine is applied to each A tile in shared memory right
     after it lands (each thread transforms the 16-byte chunks it copied itself, then the block barrier).
     (The GRN is rounded as h * (gamma * Nx + 1) + beta rather than eager's four steps: a few fp32 ulps of g.)
GEMM core (both GEMMs): C[m, n] = sum_k A[m, k] B[n, k], both operands K-contiguous; block tile 128 x 128,
K tile 32, 256 threads as 16 x 16, thread (tm, tn) owns rows tm + 16 i and columns tn + 16 j (i, j < 8):
64 fp32 accumulators. Operand tiles go global -> shared with 16-byte cp.async in a STAGES-deep ring (rows
padded to 36 floats: 16-byte conflict-free fragment reads); per 4-wide k chunk a thread reads 8 + 8 float4
fragments and issues 256 FFMAs. Each K tile's products are summed from zero and then added to the running
fp32 sums (as cuda.cu's per-tile restart), which keeps the accumulation error well below cuBLAS's.
Shapes: T = 64 * 56 * 56 = 200704 = 1568 * 128 rows (3136 per image), dim 128 = 1 * 128, hidden 512 = 4 * 128;
a 128-row block spans at most two images.
Status: compile-checked only (sm_90a); never run on a GPU (the earlier ConvNeXt version of this file, with the
same GEMM core, was run on the H200 and passed). Expected speed: FFMA-bound GEMMs, but with K = 128 and 512
the eager baseline's nine memory passes over the 411 MB intermediate weigh as much as its GEMMs, so the
fusion should still beat it; not measured."""
import cutlass
import cutlass.cute as cute

BATCH = 64
HW = 56 * 56
ROWS = BATCH * HW            # 200704
DIM = 128
HIDDEN = 512
GRN_PER = HIDDEN // 256      # channels per grn_scale thread
F32 = cutlass.Float32

BM = 128
BN = 128
BK = 32
LDS = BK + 4                 # padded shared row, floats (144 bytes)
KCH = BK // 4                # 16-byte chunks per tile row
STAGES = 4
THREADS = 256
TM = 16                      # threads along M
TN = 16                      # threads along N
RM = BM // TM                # 8 rows per thread
RN = BN // TN                # 8 columns per thread
A_STAGE = BM * LDS
B_STAGE = BN * LDS
GEMM_SMEM = STAGES * (A_STAGE + B_STAGE) * 4          # 147456 bytes
MB = ROWS // BM              # 1568 row blocks
assert ROWS % BM == 0 and DIM % BN == 0 and HIDDEN % BN == 0 and DIM % BK == 0 and HIDDEN % BK == 0
assert TM * TN == THREADS and BM <= HW and GEMM_SMEM == 147456
assert HIDDEN % 256 == 0


@cute.jit
def load_tile(gA: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, cpa: cute.CopyAtom,
              tid: cutlass.Int32, m0: cutlass.Int32, n0: cutlass.Int32, kt: cutlass.Int32, stage: cutlass.Int32):
    # chunk id = tid + 256 p: tile row id / 8, 16-byte column chunk id % 8
    for p in cutlass.range_constexpr(BM * KCH // THREADS):
        cid = tid + THREADS * p
        r = cid // KCH
        c = cid % KCH
        cute.copy(cpa, gA[m0 + r, kt * KCH + c, None], sA[stage, r, c, None])
    for p in cutlass.range_constexpr(BN * KCH // THREADS):
        cid = tid + THREADS * p
        r = cid // KCH
        c = cid % KCH
        cute.copy(cpa, gB[n0 + r, kt * KCH + c, None], sB[stage, r, c, None])


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


@cute.kernel
def gemm1_gelu_grn(x: cute.Pointer, w1: cute.Pointer, b1: cute.Pointer, h: cute.Pointer, part: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    n0 = cute.arch.block_idx()[0] * BN
    mb = cute.arch.block_idx()[1]
    m0 = mb * BM
    tm = tid // TN
    tn = tid % TN

    gA = cute.make_tensor(x, cute.make_layout((ROWS, DIM // 4, 4), stride=(DIM, 4, 1)))
    gB = cute.make_tensor(w1, cute.make_layout((HIDDEN, DIM // 4, 4), stride=(DIM, 4, 1)))
    gb1 = cute.make_tensor(b1, cute.make_layout(HIDDEN))
    gh = cute.make_tensor(h, cute.make_layout((ROWS, HIDDEN), stride=(HIDDEN, 1)))
    gpart = cute.make_tensor(part, cute.make_layout((MB, 2, HIDDEN), stride=(2 * HIDDEN, HIDDEN, 1)))
    base = cute.arch.get_dyn_smem(F32, alignment=16)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, KCH, 4), stride=(A_STAGE, LDS, 4, 1)))
    sB = cute.make_tensor(base + STAGES * A_STAGE, cute.make_layout((STAGES, BN, KCH, 4), stride=(B_STAGE, LDS, 4, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8 * 2 * BN, alignment=16),
                           cute.make_layout((8, 2, BN), stride=(2 * BN, BN, 1)))

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

    KT = DIM // BK
    for s in cutlass.range_constexpr(STAGES - 1):
        load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, s, s)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        cute.arch.sync_threads()                     # ... everyone's; stage (kt - 1) % STAGES is free
        nk = kt + STAGES - 1
        if nk < KT:
            load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, nk, nk % STAGES)
        cute.arch.cp_async_commit_group()            # possibly empty: keeps the group count uniform
        compute_tile(sA, sB, kt % STAGES, tm, tn, acc, tacc, fa, fb, c128)
    cute.arch.cp_async_wait_group(0)

    # Epilogue: h = gelu(acc + b1); GRN sums of h^2 split at the image boundary inside the block.
    boundary = (m0 // HW + 1) * HW          # rows >= boundary belong to the block's second image
    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        bias = gb1[col]
        s_lo = F32(0.0)
        s_hi = F32(0.0)
        for i in cutlass.range_constexpr(RM):
            r = m0 + tm + TM * i
            a = acc[i, j] + bias
            v = F32(0.5) * a * (F32(1.0) + cute.math.erf(a * F32(0.70710678118654752)))
            gh[r, col] = v
            if r < boundary:
                s_lo = s_lo + v * v
            else:
                s_hi = s_hi + v * v
        # lanes tn and tn + 16 of a warp hold the same column (tm = 2 warp, 2 warp + 1)
        s_lo = s_lo + cute.arch.shuffle_sync_bfly(s_lo, offset=16)
        s_hi = s_hi + cute.arch.shuffle_sync_bfly(s_hi, offset=16)
        if lane < 16:
            red[warp, 0, tn + TN * j] = s_lo
            red[warp, 1, tn + TN * j] = s_hi
    cute.arch.sync_threads()
    half = tid // BN
    c = tid % BN
    tot = F32(0.0)
    for w in cutlass.range_constexpr(8):
        tot = tot + red[w, half, c]
    gpart[mb, half, n0 + c] = tot


@cute.kernel
def grn_scale(part: cute.Pointer, gamma: cute.Pointer, sc: cute.Pointer, eps: cutlass.Float32):
    tid = cute.arch.thread_idx()[0]
    b = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    gpart = cute.make_tensor(part, cute.make_layout((MB, 2, HIDDEN), stride=(2 * HIDDEN, HIDDEN, 1)))
    gg = cute.make_tensor(gamma, cute.make_layout(HIDDEN))
    gsc = cute.make_tensor(sc, cute.make_layout((BATCH, HIDDEN), stride=(HIDDEN, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8), cute.make_layout(8))
    gx = cute.make_rmem_tensor((GRN_PER,), F32)
    mb_lo = (b * HW) // BM
    mb_hi = (b * HW + HW - 1) // BM
    s = F32(0.0)
    for j in cutlass.range_constexpr(GRN_PER):
        col = tid + 256 * j
        q = F32(0.0)
        for mb in cutlass.range(mb_lo, mb_hi + 1):
            half = cutlass.Int32(1)
            if (mb * BM) // HW == b:
                half = cutlass.Int32(0)                    # image b starts in this block: its rows are the block's first part
            q = q + gpart[mb, half, col]
        gx[j] = cute.math.sqrt(q)
        s = s + gx[j]
    s = cute.arch.warp_reduction_sum(s)
    if lane == 0:
        red[warp] = s
    cute.arch.sync_threads()
    total = F32(0.0)
    for w in cutlass.range_constexpr(8):
        total = total + red[w]
    den = total / F32(HIDDEN) + eps
    for j in cutlass.range_constexpr(GRN_PER):
        col = tid + 256 * j
        gsc[b, col] = gg[col] * (gx[j] / den) + F32(1.0)


@cute.kernel
def gemm2_grn(h: cute.Pointer, w2: cute.Pointer, b2: cute.Pointer, sc: cute.Pointer, beta: cute.Pointer,
              y: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    tm = tid // TN
    tn = tid % TN
    img0 = m0 // HW

    gA = cute.make_tensor(h, cute.make_layout((ROWS, HIDDEN // 4, 4), stride=(HIDDEN, 4, 1)))
    gB = cute.make_tensor(w2, cute.make_layout((DIM, HIDDEN // 4, 4), stride=(HIDDEN, 4, 1)))
    gb2 = cute.make_tensor(b2, cute.make_layout(DIM))
    gy = cute.make_tensor(y, cute.make_layout((ROWS, DIM), stride=(DIM, 1)))
    gsc = cute.make_tensor(sc, cute.make_layout((BATCH, HIDDEN // 4, 4), stride=(HIDDEN, 4, 1)))
    gbeta = cute.make_tensor(beta, cute.make_layout((HIDDEN // 4, 4), stride=(4, 1)))
    base = cute.arch.get_dyn_smem(F32, alignment=16)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, KCH, 4), stride=(A_STAGE, LDS, 4, 1)))
    sB = cute.make_tensor(base + STAGES * A_STAGE, cute.make_layout((STAGES, BN, KCH, 4), stride=(B_STAGE, LDS, 4, 1)))
    # scs[sel, k] = sc of image img0 + sel (sel < 2), betas[k] = beta; (chunk, element) views
    sbase = base + STAGES * (A_STAGE + B_STAGE)
    scs = cute.make_tensor(sbase, cute.make_layout((2, HIDDEN // 4, 4), stride=(HIDDEN, 4, 1)))
    betas = cute.make_tensor(sbase + 2 * HIDDEN, cute.make_layout((HIDDEN // 4, 4), stride=(4, 1)))

    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cute.nvgpu.LoadCacheMode.GLOBAL), F32,
                              num_bits_per_copy=128)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    tv = cute.make_rmem_tensor((4,), F32)
    for i in cutlass.range(tid, HIDDEN // 4, THREADS):
        cute.copy(c128, gsc[img0, i, None], tv)
        cute.copy(c128, tv, scs[0, i, None])
        if img0 + 1 < BATCH:
            cute.copy(c128, gsc[img0 + 1, i, None], tv)
        else:
            for e in cutlass.range_constexpr(4):
                tv[e] = F32(0.0)
        cute.copy(c128, tv, scs[1, i, None])
        cute.copy(c128, gbeta[i, None], tv)
        cute.copy(c128, tv, betas[i, None])
    cute.arch.sync_threads()                         # scs / betas visible to all threads

    fa = cute.make_rmem_tensor((4, RM), F32)
    fb = cute.make_rmem_tensor((4, RN), F32)
    acc = cute.make_rmem_tensor((RM, RN), F32)
    tacc = cute.make_rmem_tensor((RM, RN), F32)
    xv = cute.make_rmem_tensor((4,), F32)
    sv = cute.make_rmem_tensor((4,), F32)
    bv = cute.make_rmem_tensor((4,), F32)
    for i in cutlass.range_constexpr(RM):
        for j in cutlass.range_constexpr(RN):
            acc[i, j] = F32(0.0)

    KT = HIDDEN // BK
    for s in cutlass.range_constexpr(STAGES - 1):
        load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, s, s)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        stage = kt % STAGES
        # GRN affine on the chunks this thread copied itself: a = h * sc[image(row), k] + beta[k]
        for p in cutlass.range_constexpr(BM * KCH // THREADS):
            cid = tid + THREADS * p
            r = cid // KCH
            c = cid % KCH
            sel = (m0 + r) // HW - img0
            cute.copy(c128, sA[stage, r, c, None], xv)
            cute.copy(c128, scs[sel, kt * KCH + c, None], sv)
            cute.copy(c128, betas[kt * KCH + c, None], bv)
            for e in cutlass.range_constexpr(4):
                xv[e] = xv[e] * sv[e] + bv[e]
            cute.copy(c128, xv, sA[stage, r, c, None])
        cute.arch.sync_threads()                     # transformed tile visible; stage (kt-1) % STAGES free
        nk = kt + STAGES - 1
        if nk < KT:
            load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, nk, nk % STAGES)
        cute.arch.cp_async_commit_group()
        compute_tile(sA, sB, stage, tm, tn, acc, tacc, fa, fb, c128)
    cute.arch.cp_async_wait_group(0)

    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        bias = gb2[col]
        for i in cutlass.range_constexpr(RM):
            gy[m0 + tm + TM * i, col] = acc[i, j] + bias


MKB_PLAN = """/* mkb:plan
scratch h fp32[batch_size * height * width * hidden_dim]
scratch part fp32[(batch_size * height * width / 128) * 2 * hidden_dim]
scratch sc fp32[batch_size * hidden_dim]
launch gemm1_gelu_grn grid(hidden_dim / 128, batch_size * height * width / 128) block(256) shared(147456)
  args(x, w1, b1, h, part)
launch grn_scale grid(batch_size) block(256) args(part, gamma, sc, f32(eps))
launch gemm2_grn grid(dim / 128, batch_size * height * width / 128) block(256) shared(153600)
  args(h, w2, b2, sc, beta, y)
*/"""
