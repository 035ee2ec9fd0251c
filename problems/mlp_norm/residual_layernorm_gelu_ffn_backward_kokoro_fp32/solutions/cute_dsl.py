"""MetaKernelBench #35 (reconstructed: spec.json's notes), the backward of a post-LN residual tanh-GELU
feed-forward block in fp32 from the saved activations, in CuTe DSL: the algorithm of solutions/cuda.cu with
every GEMM as a register-tiled fp32 FFMA GEMM (no TF32). Notation: dy = grad_output, x = hidden_states,
p = fc1_output, act = gelu_output, n = normalized (as [T, features], T = batch_size * seq_len = 69568):
  dz = rstd * (g - mean(g) - n * mean(g * n)), g = dy * ln_weight, rstd = rsqrt(var + eps);
  dln_weight = sum dy*n, dln_bias = sum dy, db2 = sum dz, dh = (dz W2) * gelu_tanh'(p), db1 = sum dh,
  dx = dz + dh W1, dW2 = dz^T act, dW1 = dh^T x
GEMM core (four GEMMs): C[m, n] = sum_k A[m, k] B[n, k] with both operands K-contiguous. Operands that are not
(W2 and W1 as right factors, and the row-reduced weight gradients' dz, act, dh, x) are first transposed by
a 32x32 shared-memory transpose kernel. Block tile 128 x 128, K tile 32, 256 threads as 16 x 16, thread
(tm, tn) owns rows tm + 16 i and columns tn + 16 j (i, j < 8); 16-byte cp.async into a 4-deep shared ring
(rows padded to 36 floats, conflict-free 16-byte fragment reads); per 4-wide k chunk 8 + 8 float4 fragment
reads and 256 FFMAs. Each K tile's products are summed from zero, then added to the running fp32 sums
(cuda.cu's per-tile restart). T = 69568 is not a multiple of 128: A rows past T are loaded from row T - 1
(valid memory, results dropped) and the epilogues store no row past T. The weight gradients (K = T) are
split-K by 2 (1087 K tiles each) into fp32 partials, then summed (deterministic).
Epilogues: bwd_dh computes gelu_tanh'(p) in one fp32 expression (as cuda.cu); bwd_dx adds dz. ln_backward:
one warp per row (512 = 32 lanes x 4 float4), 32 rows per block, per-block column partials of dy*n, dy and
dz; column partials of dh for db1; small kernels sum the partials.
Status: compile-checked only (sm_90a); never run on a GPU at these shapes. Expected speed: FFMA-bound, around
or below the cuBLAS-SGEMM eager baseline (spec.json: beats_baseline false); cuda.cu is the fast solution."""
import cutlass
import cutlass.cute as cute

TOKENS = 64 * 1087           # batch_size * seq_len = 69568
HIDDEN = 512
INTER = 2048
SPLIT = 2                    # split-K of the weight gradients: TOKENS = 2 * 1087 * 32
F32 = cutlass.Float32
GK = 0.7978845608028654      # sqrt(2 / pi)
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
LN_PARTS = TOKENS // LN_ROWS # 2174
CP_ROWS = 64                 # rows per col_partials block
CP_PARTS = TOKENS // CP_ROWS # 1087
ROW_TILES = (TOKENS + BM - 1) // BM   # 544, the last one partial
LNQ = HIDDEN // 128          # float4 vectors per lane in a LayerNorm row
assert TOKENS % (SPLIT * BK) == 0 and TOKENS % LN_ROWS == 0 and TOKENS % CP_ROWS == 0 and TOKENS % 32 == 0
assert HIDDEN % BN == 0 and INTER % BN == 0 and HIDDEN % 32 == 0 and INTER % 32 == 0
assert HIDDEN % BK == 0 and INTER % BK == 0 and GEMM_SMEM == 147456 and HIDDEN == 128 * LNQ


# ---- GEMM core -------------------------------------------------------------------------------------------

@cute.jit
def load_tile(gA: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, cpa: cute.CopyAtom,
              tid: cutlass.Int32, m0: cutlass.Int32, n0: cutlass.Int32, kt: cutlass.Int32, stage: cutlass.Int32,
              ROWS_A: cutlass.Constexpr):
    # chunk id = tid + 256 p: tile row id / 8, 16-byte column chunk id % 8; kt is the global K tile index.
    # A rows past ROWS_A read row ROWS_A - 1 (valid memory; their results are never stored).
    for p in cutlass.range_constexpr(BM * KCH // THREADS):
        cid = tid + THREADS * p
        r = cid // KCH
        c = cid % KCH
        ra = m0 + r
        if cutlass.const_expr(ROWS_A % BM != 0):
            ra = cutlass.min(ra, ROWS_A - 1)
        cute.copy(cpa, gA[ra, kt * KCH + c, None], sA[stage, r, c, None])
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
              acc: cute.Tensor, KT: cutlass.Constexpr, ROWS_A: cutlass.Constexpr):
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
        load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, kt0 + s, s, ROWS_A)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        cute.arch.sync_threads()                     # ... everyone's; stage (kt - 1) % STAGES is free
        nk = kt + STAGES - 1
        if nk < KT:
            load_tile(gA, gB, sA, sB, cpa, tid, m0, n0, kt0 + nk, nk % STAGES, ROWS_A)
        cute.arch.cp_async_commit_group()            # possibly empty: keeps the group count uniform
        compute_tile(sA, sB, kt % STAGES, tm, tn, acc, tacc, fa, fb, c128)
    cute.arch.cp_async_wait_group(0)


def operand(ptr, rows, k):
    """A K-contiguous [rows][k] matrix as (row, 16-byte chunk, element)."""
    return cute.make_tensor(ptr, cute.make_layout((rows, k // 4, 4), stride=(k, 4, 1)))


# ---- LayerNorm backward ------------------------------------------------------------------------------------

@cute.kernel
def ln_backward(n: cute.Pointer, var: cute.Pointer, dy: cute.Pointer, w: cute.Pointer, dz: cute.Pointer,
                pgam: cute.Pointer, pbet: cute.Pointer, pb2: cute.Pointer, eps: cutlass.Float32):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    bidx = cute.arch.block_idx()[0]
    # (row, q, lane, element): lane l's q-th vector is columns 4 (32 q + l) .. + 3
    rows = cute.make_layout((TOKENS, LNQ, 32, 4), stride=(HIDDEN, 128, 4, 1))
    gn = cute.make_tensor(n, rows)
    gdy = cute.make_tensor(dy, rows)
    gdz = cute.make_tensor(dz, rows)
    gvar = cute.make_tensor(var, cute.make_layout(TOKENS))
    gw = cute.make_tensor(w, cute.make_layout((LNQ, 32, 4), stride=(128, 4, 1)))
    parts = cute.make_layout((LN_PARTS, HIDDEN), stride=(HIDDEN, 1))
    gpg = cute.make_tensor(pgam, parts)
    gpb = cute.make_tensor(pbet, parts)
    gpz = cute.make_tensor(pb2, parts)
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8 * HIDDEN, alignment=16),
                           cute.make_layout((8, LNQ, 32, 4), stride=(HIDDEN, 128, 4, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)

    pg = cute.make_rmem_tensor((4, LNQ), F32)     # column partials: dy*n, dy, dz ([None, q] contiguous)
    pb = cute.make_rmem_tensor((4, LNQ), F32)
    pz = cute.make_rmem_tensor((4, LNQ), F32)
    nv = cute.make_rmem_tensor((4, LNQ), F32)
    gv = cute.make_rmem_tensor((4, LNQ), F32)
    dv = cute.make_rmem_tensor((4, LNQ), F32)
    wv = cute.make_rmem_tensor((4, LNQ), F32)
    ov = cute.make_rmem_tensor((4, LNQ), F32)
    for q in cutlass.range_constexpr(LNQ):
        cute.copy(c128, gw[q, lane, None], wv[None, q])
        for e in cutlass.range_constexpr(4):
            pg[e, q] = F32(0.0)
            pb[e, q] = F32(0.0)
            pz[e, q] = F32(0.0)

    for rr in cutlass.range(warp, LN_ROWS, 8):
        row = bidx * LN_ROWS + rr
        rstd = cute.math.rsqrt(gvar[row] + eps)
        s1 = F32(0.0)                            # sum g
        s2 = F32(0.0)                            # sum g * n
        for q in cutlass.range_constexpr(LNQ):
            cute.copy(c128, gn[row, q, lane, None], nv[None, q])
            cute.copy(c128, gdy[row, q, lane, None], dv[None, q])
            for e in cutlass.range_constexpr(4):
                g = dv[e, q] * wv[e, q]
                gv[e, q] = g
                s1 = s1 + g
                s2 = s2 + g * nv[e, q]
                pg[e, q] = pg[e, q] + dv[e, q] * nv[e, q]
                pb[e, q] = pb[e, q] + dv[e, q]
        m1 = cute.arch.warp_reduction_sum(s1) * F32(1.0 / HIDDEN)
        m2 = cute.arch.warp_reduction_sum(s2) * F32(1.0 / HIDDEN)
        for q in cutlass.range_constexpr(LNQ):
            for e in cutlass.range_constexpr(4):
                o = rstd * (gv[e, q] - m1 - nv[e, q] * m2)
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
        for q in cutlass.range_constexpr(LNQ):
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
    """part[y, c] = sum of dh[r, c] over rows r in [64 y, 64 y + 64)"""
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
def bwd_dh(dz: cute.Pointer, w2t: cute.Pointer, pre: cute.Pointer, dh: cute.Pointer):
    """da = dz W2 (B = W2^T [inter][hidden]); dh = da * gelu_tanh'(p), rows < TOKENS only."""
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((RM, RN), F32)
    gemm_tile(operand(dz, TOKENS, HIDDEN), operand(w2t, INTER, HIDDEN), m0, n0, 0, acc, HIDDEN // BK, TOKENS)
    gp = cute.make_tensor(pre, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    gdh = cute.make_tensor(dh, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        for i in cutlass.range_constexpr(RM):
            r = m0 + tm + TM * i
            if r < TOKENS:
                h = gp[r, col]
                t = cute.math.tanh(F32(GK) * (h + F32(GC) * h * h * h))
                grad = F32(0.5) * (F32(1.0) + t) + F32(0.5) * h * (F32(1.0) - t * t) * F32(GK) * (
                    F32(1.0) + F32(3.0 * GC) * h * h)
                gdh[r, col] = acc[i, j] * grad


@cute.kernel
def bwd_dx(dh: cute.Pointer, w1t: cute.Pointer, dz: cute.Pointer, dx: cute.Pointer):
    """dx = dz + dh W1 (B = W1^T [hidden][inter])"""
    tid = cute.arch.thread_idx()[0]
    tm = tid // TN
    tn = tid % TN
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor((RM, RN), F32)
    gemm_tile(operand(dh, TOKENS, INTER), operand(w1t, HIDDEN, INTER), m0, n0, 0, acc, INTER // BK, TOKENS)
    gdz = cute.make_tensor(dz, cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1)))
    gdx = cute.make_tensor(dx, cute.make_layout((TOKENS, HIDDEN), stride=(HIDDEN, 1)))
    for j in cutlass.range_constexpr(RN):
        col = n0 + tn + TN * j
        for i in cutlass.range_constexpr(RM):
            r = m0 + tm + TM * i
            if r < TOKENS:
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
        gemm_tile(operand(at, mrows, TOKENS), operand(bt, ncols, TOKENS), m0, n0, s * per, acc, per, mrows)
        gp = cute.make_tensor(part, cute.make_layout((SPLIT, mrows, ncols), stride=(mrows * ncols, ncols, 1)))
        for j in cutlass.range_constexpr(RN):
            col = n0 + tn + TN * j
            for i in cutlass.range_constexpr(RM):
                gp[s, m0 + tm + TM * i, col] = acc[i, j]
    return weight_grad


bwd_dw2 = make_weight_grad(HIDDEN, INTER)    # dW2 = dz^T act: A^T = dz^T [hidden][tokens], B^T = act^T [inter][tokens]
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
transpose_ti = make_transpose(TOKENS, INTER)      # act, dh [tokens][inter] -> [inter][tokens]


MKB_PLAN = """/* mkb:plan
scratch dz fp32[batch_size * seq_len * hidden_size]
scratch dh fp32[batch_size * seq_len * intermediate_size]
scratch w1t fp32[hidden_size * intermediate_size]
scratch w2t fp32[intermediate_size * hidden_size]
scratch xt fp32[hidden_size * batch_size * seq_len]
scratch dzt fp32[hidden_size * batch_size * seq_len]
scratch actt fp32[intermediate_size * batch_size * seq_len]
scratch dht fp32[intermediate_size * batch_size * seq_len]
scratch pgam fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pbet fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pb2 fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pb1 fp32[(batch_size * seq_len / 64) * intermediate_size]
scratch w2part fp32[2 * hidden_size * intermediate_size]
scratch w1part fp32[2 * intermediate_size * hidden_size]
launch transpose_w1 grid(hidden_size / 32, intermediate_size / 32) block(32, 8) args(fc1_weight, w1t)
launch transpose_w2 grid(intermediate_size / 32, hidden_size / 32) block(32, 8) args(fc2_weight, w2t)
launch transpose_th grid(hidden_size / 32, batch_size * seq_len / 32) block(32, 8) args(hidden_states, xt)
launch ln_backward grid(batch_size * seq_len / 32) block(256)
  args(normalized, var, grad_output, ln_weight, dz, pgam, pbet, pb2, f32(eps))
launch sum_partials_ln grid(ceil_div(hidden_size, 256)) block(256) args(pgam, grad_ln_weight)
launch sum_partials_ln grid(ceil_div(hidden_size, 256)) block(256) args(pbet, grad_ln_bias)
launch sum_partials_ln grid(ceil_div(hidden_size, 256)) block(256) args(pb2, grad_fc2_bias)
launch bwd_dh grid(intermediate_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(147456)
  args(dz, w2t, fc1_output, dh)
launch col_partials grid(intermediate_size / 256, batch_size * seq_len / 64) block(256) args(dh, pb1)
launch sum_partials_b1 grid(ceil_div(intermediate_size, 256)) block(256) args(pb1, grad_fc1_bias)
launch bwd_dx grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(147456)
  args(dh, w1t, dz, grad_hidden_states)
launch transpose_th grid(hidden_size / 32, batch_size * seq_len / 32) block(32, 8) args(dz, dzt)
launch transpose_ti grid(intermediate_size / 32, batch_size * seq_len / 32) block(32, 8) args(gelu_output, actt)
launch transpose_ti grid(intermediate_size / 32, batch_size * seq_len / 32) block(32, 8) args(dh, dht)
launch bwd_dw2 grid(intermediate_size / 128, hidden_size / 128, 2) block(256) shared(147456) args(dzt, actt, w2part)
launch bwd_dw1 grid(hidden_size / 128, intermediate_size / 128, 2) block(256) shared(147456) args(dht, xt, w1part)
launch sum_splits grid(ceil_div(hidden_size * intermediate_size / 4, 256)) block(256) args(w2part, grad_fc2_weight)
launch sum_splits grid(ceil_div(intermediate_size * hidden_size / 4, 256)) block(256) args(w1part, grad_fc1_weight)
*/"""
