"""Backward of Kokoro-82M's PL-BERT (ALBERT) post-LN residual + gelu_new feed-forward block, fp32, activations
recomputed, in CuTe DSL. The algorithm of solutions/cuda.cu with every GEMM as a register-tiled fp32 FFMA GEMM
(no TF32):
  forward   h = x W1^T + b1, a = gelu_new(h), z = x + (a W2^T + b2), LayerNorm statistics of z
  backward  dz = LN-backward(dy), dln_weight = sum dy*zhat, dln_bias = sum dy, db2 = sum dz,
            dh = (dz W2) * gelu_new'(h), db1 = sum dh, dx = dz + dh W1, dW2 = dz^T a, dW1 = dh^T x
GEMM core (six GEMMs): C[m, n] = sum_k A[m, k] B[n, k] with both operands K-contiguous. Operands that are not
(W2 and W1 as right factors, and the token-reduced weight gradients' dz, a, dh, x) are first transposed by
a 32x32 shared-memory transpose kernel (about 0.4 GB of extra traffic, small next to 155 GFLOP of FFMA).
Block tile 128 x 128, K tile 32, 256 threads as 16 x 16, thread (tm, tn) owns rows tm + 16 i and columns
tn + 16 j (i, j < 8); 16-byte cp.async into a 4-deep shared ring (rows padded to 36 floats, conflict-free
16-byte fragment reads); per 4-wide k chunk 8 + 8 float4 fragment reads and 256 FFMAs. Each K tile's
products are summed from zero, then added to the running fp32 sums (cuda.cu's per-tile restart). The weight
gradients (K = 8192 tokens) are split-K by 8 into fp32 partials, then summed (deterministic).
Epilogues: fwd_up stores a and the pre-activation h; fwd_down stores z = x + (acc + b2); bwd_dh recomputes
tanh from h and applies the eager autograd chain of NewGELUActivation (du = da*v, dv = da*u,
ds = dv*(1 - t^2), dw = ds*k, dp = dw*0.044715, dh = dw + dp*(3 h^2) + du*0.5); bwd_dx adds dz. The forward
GELU follows the eager op chain too (u = 0.5 h, p = h^3, q = 0.044715 p, w = h + q, s = k w, t = tanh s,
a = u (1 + t)). ln_backward: one warp per row (768 = 32 lanes x 6 float4), 32 rows per block, per-block
column partials of dy*zhat, dy and dz; column partials of dh for db1; small kernels sum the partials.
Shapes: tokens 8192 = 64 * 128, hidden 768 = 6 * 128, inter 2048 = 16 * 128, all multiples of 32.
Status: compile-checked only (sm_90a, no spills); never run on a GPU by its author. Expected speed: FFMA-bound,
roughly 2-3x slower than cuda.cu's 3xTF32 tensor-core GEMMs, around the cuBLAS-SGEMM eager baseline."""
import cutlass
import cutlass.cute as cute

TOKENS = 8192
HIDDEN = 768
INTER = 2048
SPLIT = 8                    # split-K of the weight gradients
F32 = cutlass.Float32
GK = 0.7978845608            # sqrt(2 / pi) as transformers writes it
GC = 0.044715

BM = 128
BN = 128
BK = 32
LDS = BK + 4                 # padded shared row, floats (144 bytes)
KCH = BK // 4                # 16-byte chunks per tile row
STAGES = 4
THREADS = 256
TM = 16
TN = 16
RM = BM // TM                # 8
RN = BN // TN                # 8
A_STAGE = BM * LDS
B_STAGE = BN * LDS
GEMM_SMEM = STAGES * (A_STAGE + B_STAGE) * 4          # 147456 bytes
LN_ROWS = 32                 # rows per ln_backward block
LN_PARTS = TOKENS // LN_ROWS # 256
CP_ROWS = 128                # rows per col_partials block
CP_PARTS = TOKENS // CP_ROWS # 64
assert TOKENS % (SPLIT * BK) == 0 and TOKENS % BM == 0 and HIDDEN % BN == 0 and INTER % BN == 0
assert HIDDEN % BK == 0 and INTER % BK == 0 and GEMM_SMEM == 147456 and HIDDEN == 32 * 24


# ---- GEMM core -------------------------------------------------------------------------------------------

@cute.jit
def load_tile(gA: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, cpa: cute.CopyAtom,
              tid: cutlass.Int32, m0: cutlass.Int32, n0: cutlass.Int32, kt: cutlass.Int32, stage: cutlass.Int32):
    # chunk id = tid + 256 p: tile row id / 8, 16-byte column chunk id % 8; kt is the global K tile index
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


@cute.jit
def gemm_tile(gA: cute.Tensor, gB: cute.Tensor, m0: cutlass.Int32, n0: cutlass.Int32, kt0: cutlass.Int32,
              acc: cute.Tensor, KT: cutlass.Constexpr):
    """acc = A[m0 + r, K tiles kt0 .. kt0 + KT) . B[n0 + c, same]^T for this thread's rows and columns."""
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    base = cute.arch.get_dyn_smem(F32, alignment=16)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, KCH, 4), stride=(A_STAGE, LDS, 4, 1)))
    sB = cute.make_tensor(base + STAGES * A_STAGE, cute.make_layout((STAGES, BN, KCH, 4), stride=(B_STAGE, LDS, 4, 1)))
    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cute.nvgpu.LoadCacheMode.GLOBAL), F32,
                              num_bits_per_copy=128)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    fa = cute.make_rmem_tensor((4, RM), F32)
    fb = cute.make_rmem_tensor((4, RN), F32)
    tacc = cute.make_rmem_tensor((RM, RN), F32)
    for i in cutlass.range_constexpr(RM):
        for j in cutlass.range_constexpr(RN):
            acc[i, j] = F32(0.0)
    for s in cutlass.range_constexpr(STAGES - 1):
        load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, kt0 + s, s)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        cute.arch.sync_threads()                     # ... everyone's; stage (kt - 1) % STAGES is free
        nk = kt + STAGES - 1
        if nk < KT:
            load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, kt0 + nk, nk % STAGES)
        cute.arch.cp_async_commit_group()            # possibly empty: keeps the group count uniform
        compute_tile(sA, sB, kt % STAGES, tm, tn, acc, tacc, fa, fb, c128)
    cute.arch.cp_async_wait_group(0)


def operand(ptr, rows, k):
    """A K-contiguous [rows][k] matrix as (row, 16-byte chunk, element)."""
    return cute.make_tensor(ptr, cute.make_layout((rows, k // 4, 4), stride=(k, 4, 1)))


# ---- forward GEMMs -----------------------------------------------------------------------------------------

@cute.kernel
def fwd_up(x: cute.Pointer, w1: cute.Pointer, b1: cute.Pointer, act: cute.Pointer, hpre: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((RM, RN), F32)
    gemm_tile(operand(x, TOKENS, HIDDEN), operand(w1, INTER, HIDDEN), m0, n0, 0, acc, HIDDEN // BK)
    gb1 = cute.make_tensor(b1, cute.make_layout(INTER))
    ga = cute.make_tensor(act, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    gh = cute.make_tensor(hpre, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        bias = gb1[col]
        for i in cutlass.range_constexpr(RM):
            r = m0 + tm + TM * i
            h = acc[i, j] + bias
            u = F32(0.5) * h
            p = h * h * h
            w = h + F32(GC) * p
            t = cute.math.tanh(F32(GK) * w)
            ga[r, col] = u * (F32(1.0) + t)
            gh[r, col] = h


@cute.kernel
def fwd_down(act: cute.Pointer, w2: cute.Pointer, b2: cute.Pointer, x: cute.Pointer, z: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((RM, RN), F32)
    gemm_tile(operand(act, TOKENS, INTER), operand(w2, HIDDEN, INTER), m0, n0, 0, acc, INTER // BK)
    gb2 = cute.make_tensor(b2, cute.make_layout(HIDDEN))
    gx = cute.make_tensor(x, cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1)))
    gz = cute.make_tensor(z, cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1)))
    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        bias = gb2[col]
        for i in cutlass.range_constexpr(RM):
            r = m0 + tm + TM * i
            gz[r, col] = gx[r, col] + (acc[i, j] + bias)


# ---- LayerNorm backward ------------------------------------------------------------------------------------

@cute.kernel
def ln_backward(z: cute.Pointer, dy: cute.Pointer, w: cute.Pointer, dz: cute.Pointer, pgam: cute.Pointer,
                pbet: cute.Pointer, pb2: cute.Pointer, eps: cutlass.Float32):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    bidx = cute.arch.block_idx()[0]
    # (row, q, lane, element): lane l's q-th vector is columns 4 (32 q + l) .. + 3
    rows = cute.make_layout((TOKENS, 6, 32, 4), stride=(HIDDEN, 128, 4, 1))
    gz = cute.make_tensor(z, rows)
    gdy = cute.make_tensor(dy, rows)
    gdz = cute.make_tensor(dz, rows)
    gw = cute.make_tensor(w, cute.make_layout((6, 32, 4), stride=(128, 4, 1)))
    parts = cute.make_layout((LN_PARTS, HIDDEN), stride=(HIDDEN, 1))
    gpg = cute.make_tensor(pgam, parts)
    gpb = cute.make_tensor(pbet, parts)
    gpz = cute.make_tensor(pb2, parts)
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8 * HIDDEN, alignment=16),
                           cute.make_layout((8, 6, 32, 4), stride=(HIDDEN, 128, 4, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)

    pg = cute.make_rmem_tensor((4, 6), F32)     # column partials: dy*zhat, dy, dz ([None, q] contiguous)
    pb = cute.make_rmem_tensor((4, 6), F32)
    pz = cute.make_rmem_tensor((4, 6), F32)
    zv = cute.make_rmem_tensor((4, 6), F32)
    gv = cute.make_rmem_tensor((4, 6), F32)
    dv = cute.make_rmem_tensor((4, 6), F32)
    wv = cute.make_rmem_tensor((4, 6), F32)
    ov = cute.make_rmem_tensor((4, 6), F32)
    for q in cutlass.range_constexpr(6):
        cute.copy(c128, gw[q, lane, None], wv[None, q])
        for e in cutlass.range_constexpr(4):
            pg[e, q] = F32(0.0)
            pb[e, q] = F32(0.0)
            pz[e, q] = F32(0.0)

    for rr in cutlass.range(warp, LN_ROWS, 8):
        row = bidx * LN_ROWS + rr
        s = F32(0.0)
        for q in cutlass.range_constexpr(6):
            cute.copy(c128, gz[row, q, lane, None], zv[None, q])
            cute.copy(c128, gdy[row, q, lane, None], dv[None, q])
            s = s + ((zv[0, q] + zv[1, q]) + (zv[2, q] + zv[3, q]))
        mean = cute.arch.warp_reduction_sum(s) * F32(1.0 / HIDDEN)
        sq = F32(0.0)
        for q in cutlass.range_constexpr(6):
            a0 = zv[0, q] - mean
            a1 = zv[1, q] - mean
            a2 = zv[2, q] - mean
            a3 = zv[3, q] - mean
            sq = sq + ((a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3))
        rstd = cute.math.rsqrt(cute.arch.warp_reduction_sum(sq) * F32(1.0 / HIDDEN) + eps)
        s1 = F32(0.0)                            # sum g
        s2 = F32(0.0)                            # sum g * zhat
        for q in cutlass.range_constexpr(6):
            for e in cutlass.range_constexpr(4):
                zh = (zv[e, q] - mean) * rstd
                zv[e, q] = zh                    # zv now holds zhat
                g = dv[e, q] * wv[e, q]
                gv[e, q] = g
                s1 = s1 + g
                s2 = s2 + g * zh
                pg[e, q] = pg[e, q] + dv[e, q] * zh
                pb[e, q] = pb[e, q] + dv[e, q]
        m1 = cute.arch.warp_reduction_sum(s1) * F32(1.0 / HIDDEN)
        m2 = cute.arch.warp_reduction_sum(s2) * F32(1.0 / HIDDEN)
        for q in cutlass.range_constexpr(6):
            for e in cutlass.range_constexpr(4):
                o = rstd * (gv[e, q] - m1 - zv[e, q] * m2)
                ov[e, q] = o
                pz[e, q] = pz[e, q] + o
            cute.copy(c128, ov[None, q], gdz[row, q, lane, None])

    # combine the 8 warps' column partials, one quantity at a time
    for k in cutlass.range_constexpr(3):
        src = pg
        dst = gpg
        if cutlass.const_expr(k == 1):
            src = pb
            dst = gpb
        if cutlass.const_expr(k == 2):
            src = pz
            dst = gpz
        for q in cutlass.range_constexpr(6):
            cute.copy(c128, src[None, q], red[warp, q, lane, None])
        cute.arch.sync_threads()
        for c in cutlass.range(tid, HIDDEN, THREADS):
            t = F32(0.0)
            for wv_ in cutlass.range_constexpr(8):
                t = t + red[wv_, c // 128, (c // 4) % 32, c % 4]
            dst[bidx, c] = t
        cute.arch.sync_threads()


def make_sum_partials(parts, cols):
    @cute.kernel
    def sum_partials(part: cute.Pointer, out: cute.Pointer):
        """out[c] = sum_p part[p, c]"""
        c = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
        gp = cute.make_tensor(part, cute.make_layout((parts, cols), stride=(cols, 1)))
        go = cute.make_tensor(out, cute.make_layout(cols))
        if c < cols:
            s = F32(0.0)
            for p in cutlass.range(parts):
                s = s + gp[p, c]
            go[c] = s
    return sum_partials


sum_partials_ln = make_sum_partials(LN_PARTS, HIDDEN)
sum_partials_b1 = make_sum_partials(CP_PARTS, INTER)


@cute.kernel
def col_partials(m: cute.Pointer, part: cute.Pointer):
    """part[y, c] = sum of dh[r, c] over rows r in [128 y, 128 y + 128)"""
    c = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    y = cute.arch.block_idx()[1]
    gm = cute.make_tensor(m, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    gp = cute.make_tensor(part, cute.make_layout((CP_PARTS, INTER), stride=(INTER, 1)))
    s = F32(0.0)
    for r in cutlass.range(CP_ROWS):
        s = s + gm[y * CP_ROWS + r, c]
    gp[y, c] = s


# ---- backward GEMMs ----------------------------------------------------------------------------------------

@cute.kernel
def bwd_dh(dz: cute.Pointer, w2t: cute.Pointer, hpre: cute.Pointer, dh: cute.Pointer):
    """da = dz W2 (B = W2^T [inter][hidden]); dh = da * gelu_new'(h) through the eager autograd chain."""
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((RM, RN), F32)
    gemm_tile(operand(dz, TOKENS, HIDDEN), operand(w2t, INTER, HIDDEN), m0, n0, 0, acc, HIDDEN // BK)
    gh = cute.make_tensor(hpre, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    gdh = cute.make_tensor(dh, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        for i in cutlass.range_constexpr(RM):
            r = m0 + tm + TM * i
            h = gh[r, col]
            u = F32(0.5) * h
            p = h * h * h
            w = h + F32(GC) * p
            t = cute.math.tanh(F32(GK) * w)
            v = F32(1.0) + t
            da = acc[i, j]
            du = da * v
            dv = da * u
            ds = dv * (F32(1.0) - t * t)
            dw = ds * F32(GK)
            dp = dw * F32(GC)
            gdh[r, col] = dw + dp * (F32(3.0) * (h * h)) + du * F32(0.5)


@cute.kernel
def bwd_dx(dh: cute.Pointer, w1t: cute.Pointer, dz: cute.Pointer, dx: cute.Pointer):
    """dx = dz + dh W1 (B = W1^T [hidden][inter])"""
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((RM, RN), F32)
    gemm_tile(operand(dh, TOKENS, INTER), operand(w1t, HIDDEN, INTER), m0, n0, 0, acc, INTER // BK)
    gdz = cute.make_tensor(dz, cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1)))
    gdx = cute.make_tensor(dx, cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1)))
    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        for i in cutlass.range_constexpr(RM):
            r = m0 + tm + TM * i
            gdx[r, col] = gdz[r, col] + acc[i, j]


def make_weight_grad(mrows, ncols):
    @cute.kernel
    def weight_grad(at: cute.Pointer, bt: cute.Pointer, part: cute.Pointer):
        """part[s] [mrows][ncols] = sum over tokens of split s of A^T[m, t] B^T[n, t] (A^T, B^T token-contiguous)"""
        tid = cute.arch.thread_idx()[0]
        tm = tid // TN
        tn = tid % TN
        n0 = cute.arch.block_idx()[0] * BN
        m0 = cute.arch.block_idx()[1] * BM
        s = cute.arch.block_idx()[2]
        acc = cute.make_rmem_tensor((RM, RN), F32)
        per = TOKENS // SPLIT // BK                  # K tiles per split
        gemm_tile(operand(at, mrows, TOKENS), operand(bt, ncols, TOKENS), m0, n0, s * per, acc, per)
        gp = cute.make_tensor(part, cute.make_layout((SPLIT, mrows, ncols), stride=(mrows * ncols, ncols, 1)))
        for j in cutlass.range_constexpr(RN):
            col = n0 + tn + TN * j
            for i in cutlass.range_constexpr(RM):
                gp[s, m0 + tm + TM * i, col] = acc[i, j]
    return weight_grad


bwd_dw2 = make_weight_grad(HIDDEN, INTER)    # dW2 = dz^T a:  A^T = dz^T [hidden][tokens], B^T = a^T [inter][tokens]
bwd_dw1 = make_weight_grad(INTER, HIDDEN)    # dW1 = dh^T x:  A^T = dh^T [inter][tokens],  B^T = x^T [hidden][tokens]


def make_sum_splits(n):
    @cute.kernel
    def sum_splits(part: cute.Pointer, out: cute.Pointer):
        """out[i] = sum_s part[s, i], 16-byte vectors"""
        i = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
        gp = cute.make_tensor(part, cute.make_layout((SPLIT, n // 4, 4), stride=(n, 4, 1)))
        go = cute.make_tensor(out, cute.make_layout((n // 4, 4), stride=(4, 1)))
        c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
        acc = cute.make_rmem_tensor((4,), F32)
        v = cute.make_rmem_tensor((4,), F32)
        if i < n // 4:
            cute.copy(c128, gp[0, i, None], acc)
            for s in cutlass.range_constexpr(1, SPLIT):
                cute.copy(c128, gp[s, i, None], v)
                for e in cutlass.range_constexpr(4):
                    acc[e] = acc[e] + v[e]
            cute.copy(c128, acc, go[i, None])
    return sum_splits


sum_splits = make_sum_splits(HIDDEN * INTER)


# ---- transposes ----------------------------------------------------------------------------------------------

def make_transpose(rows, cols):
    @cute.kernel
    def transpose(src: cute.Pointer, dst: cute.Pointer):
        """dst[c, r] = src[r, c] for a [rows][cols] source; 32 x 32 tiles, block (32, 8)"""
        tx = cute.arch.thread_idx()[0]
        ty = cute.arch.thread_idx()[1]
        c0 = cute.arch.block_idx()[0] * 32
        r0 = cute.arch.block_idx()[1] * 32
        gs = cute.make_tensor(src, cute.make_layout((rows, cols), stride=(cols, 1)))
        gd = cute.make_tensor(dst, cute.make_layout((cols, rows), stride=(rows, 1)))
        tile = cute.make_tensor(cute.arch.alloc_smem(F32, 32 * 33), cute.make_layout((32, 32), stride=(33, 1)))
        for k in cutlass.range_constexpr(4):
            tile[ty + 8 * k, tx] = gs[r0 + ty + 8 * k, c0 + tx]
        cute.arch.sync_threads()
        for k in cutlass.range_constexpr(4):
            gd[c0 + ty + 8 * k, r0 + tx] = tile[tx, ty + 8 * k]
    return transpose


transpose_w1 = make_transpose(INTER, HIDDEN)      # W1 [inter][hidden] -> W1^T
transpose_w2 = make_transpose(HIDDEN, INTER)      # W2 [hidden][inter] -> W2^T
transpose_th = make_transpose(TOKENS, HIDDEN)     # x, dz [tokens][hidden] -> [hidden][tokens]
transpose_ti = make_transpose(TOKENS, INTER)      # a, dh [tokens][inter] -> [inter][tokens]


MKB_PLAN = """/* mkb:plan
scratch act fp32[tokens * inter]
scratch hpre fp32[tokens * inter]
scratch z fp32[tokens * hidden]
scratch dz fp32[tokens * hidden]
scratch dh fp32[tokens * inter]
scratch w1t fp32[hidden * inter]
scratch w2t fp32[inter * hidden]
scratch xt fp32[hidden * tokens]
scratch dzt fp32[hidden * tokens]
scratch actt fp32[inter * tokens]
scratch dht fp32[inter * tokens]
scratch pgam fp32[(tokens / 32) * hidden]
scratch pbet fp32[(tokens / 32) * hidden]
scratch pb2 fp32[(tokens / 32) * hidden]
scratch pb1 fp32[(tokens / 128) * inter]
scratch w2part fp32[8 * hidden * inter]
scratch w1part fp32[8 * inter * hidden]
launch transpose_w1 grid(hidden / 32, inter / 32) block(32, 8) args(W1, w1t)
launch transpose_w2 grid(inter / 32, hidden / 32) block(32, 8) args(W2, w2t)
launch transpose_th grid(hidden / 32, tokens / 32) block(32, 8) args(x, xt)
launch fwd_up grid(inter / 128, tokens / 128) block(256) shared(147456) args(x, W1, b1, act, hpre)
launch fwd_down grid(hidden / 128, tokens / 128) block(256) shared(147456) args(act, W2, b2, x, z)
launch ln_backward grid(tokens / 32) block(256) args(z, dy, ln_weight, dz, pgam, pbet, pb2, f32(eps))
launch sum_partials_ln grid(ceil_div(hidden, 256)) block(256) args(pgam, dln_weight)
launch sum_partials_ln grid(ceil_div(hidden, 256)) block(256) args(pbet, dln_bias)
launch sum_partials_ln grid(ceil_div(hidden, 256)) block(256) args(pb2, db2)
launch bwd_dh grid(inter / 128, tokens / 128) block(256) shared(147456) args(dz, w2t, hpre, dh)
launch col_partials grid(inter / 256, tokens / 128) block(256) args(dh, pb1)
launch sum_partials_b1 grid(ceil_div(inter, 256)) block(256) args(pb1, db1)
launch bwd_dx grid(hidden / 128, tokens / 128) block(256) shared(147456) args(dh, w1t, dz, dx)
launch transpose_th grid(hidden / 32, tokens / 32) block(32, 8) args(dz, dzt)
launch transpose_ti grid(inter / 32, tokens / 32) block(32, 8) args(act, actt)
launch transpose_ti grid(inter / 32, tokens / 32) block(32, 8) args(dh, dht)
launch bwd_dw2 grid(inter / 128, hidden / 128, 8) block(256) shared(147456) args(dzt, actt, w2part)
launch bwd_dw1 grid(hidden / 128, inter / 128, 8) block(256) shared(147456) args(dht, xt, w1part)
launch sum_splits grid(ceil_div(hidden * inter / 4, 256)) block(256) args(w2part, dW2)
launch sum_splits grid(ceil_div(inter * hidden / 4, 256)) block(256) args(w1part, dW1)
*/"""
