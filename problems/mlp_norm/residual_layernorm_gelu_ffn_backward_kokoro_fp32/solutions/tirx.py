"""MetaKernelBench #35 (reconstructed: spec.json's notes), the backward of a post-LN residual tanh-GELU
feed-forward block in TIRx, fp32, from the saved activations. Notation: dy = grad_output, x = hidden_states,
p = fc1_output, act = gelu_output, n = normalized (as [T, features], T = batch_size * seq_len = 69568):
  dz = rstd * (g - mean(g) - n * mean(g * n)), g = dy * ln_weight, rstd = rsqrt(var + eps);
  dln_weight = sum dy*n, dln_bias = sum dy, db2 = sum dz, dh = (dz W2) * gelu_tanh'(p), db1 = sum dh,
  dx = dz + dh W1, dW2 = dz^T act, dW1 = dh^T x
The algorithm of solutions/cuda.cu with plain fp32 FMA GEMMs (no TF32): four GEMMs with their elementwise work
in the epilogues (bwd_dh writes dh = da * gelu_tanh'(p), gelu' in closed form as cuda.cu, and the per-row-tile
column sums of dh for db1; bwd_dx adds dz), one warp-per-row LayerNorm-backward kernel with per-block column
partials of dy * n, dy and dz, split-K by 4 for the two weight gradients (fp32 partials, then a float64 sum).
All reductions are deterministic (no atomics).
GEMM core: 128 x 128 block tile, K tile 16, 256 threads, each a register-tiled 8 x 8 block: rows
64 (i / 4) + 4 (t / 16) + i % 4, columns 64 (j / 4) + 4 (t % 16) + j % 4. Operands are K-contiguous ([rows][K],
loaded as 16-byte rows and stored transposed) or row-contiguous ([K][rows], stored as is); the shared tiles are
[k][128 + 4] and double-buffered; the next K tile is loaded into registers while the current one is
multiplied, one barrier per tile. Each K tile's 16-term products are summed from zero and then added to the
running fp32 sums (blocked summation). T = 69568 is not a multiple of 128: the GEMMs with M = T read rows past
T from row T - 1 (valid memory) and store nor sum no row past T.
Compile-checked only at these shapes (no GPU run yet). Expected speed: FFMA-bound, around or below the eager
baseline's cuBLAS SGEMMs (spec.json: beats_baseline false); cuda.cu is the fast solution.
Shapes are fixed: T = 69568 = 544 row tiles of 128 (the last one partial) = 4 splits of 17392 = 2174 LayerNorm
blocks of 32 rows, hidden = 512 = 4 * 128, inter = 2048 = 16 * 128."""
from tvm.script import tirx as T

TOK = 64 * 1087               # batch_size * seq_len = 69568
HID = 512
INTER = 2048
SPLIT = 4                     # split-K of the weight gradients
KS = TOK // SPLIT             # 17392 rows per split

BM = 128
BK = 16
LDS = BM + 4
TILE = BK * LDS
THREADS = 256
LN_ROWS = 32                  # LayerNorm-backward rows per block

RT = (TOK + BM - 1) // BM     # 544 row tiles, the last one partial
LNQ = HID // 128              # float4 vectors per lane in a LayerNorm row
HT = HID // BM                # 4 column tiles of hidden
IT = INTER // BM              # 16 column tiles of inter
assert TOK % SPLIT == 0 and HID % BM == 0 and INTER % BM == 0 and KS % BK == 0 and HID % BK == 0
assert INTER % BK == 0 and HID == 128 * LNQ and HID % 256 == 0 and TOK % LN_ROWS == 0 and 2 * 16 * BM <= 2 * TILE

K_GELU = 0.7978845608028654   # sqrt(2 / pi)
C_GELU = 0.044715


# ---- GEMM core (macros; indices written out in full so the 16-byte accesses vectorize) -----------------

@T.macro
def load_op(X, ld, r0, k0, reg, t, KMAJ, ROWS):
    if KMAJ:
        # rows r0 + 64 i + t / 4 (rows past ROWS read row ROWS - 1), k k0 + 4 (t % 4) .. + 4 of X[rows][ld]
        for i in T.unroll(2):
            for e in T.vectorized(4):
                reg[i * 4 + e] = X[T.min(r0 + i * 64 + t // 4, ROWS - 1) * ld + k0 + t % 4 * 4 + e]
    else:
        # k k0 + 8 i + t / 32, rows r0 + 4 (t % 32) .. + 4 of X[k][ld]
        for i in T.unroll(2):
            for e in T.vectorized(4):
                reg[i * 4 + e] = X[(k0 + i * 8 + t // 32) * ld + r0 + t % 32 * 4 + e]


@T.macro
def store_op(S, buf, reg, t, KMAJ):
    # shared tile S[buf][k][row]
    if KMAJ:
        for i in T.unroll(2):
            for e in T.unroll(4):
                S[buf * TILE + (t % 4 * 4 + e) * LDS + i * 64 + t // 4] = reg[i * 4 + e]
    else:
        for i in T.unroll(2):
            for e in T.vectorized(4):
                S[buf * TILE + (i * 8 + t // 32) * LDS + t % 32 * 4 + e] = reg[i * 4 + e]


@T.macro
def tile_products(As, Bs, buf, af, bf, acc, tacc, t):
    for e in T.unroll(64):
        tacc[e] = T.float32(0)
    for kk in T.unroll(BK):
        for h in T.unroll(2):
            for e in T.vectorized(4):
                af[h * 4 + e] = As[buf * TILE + kk * LDS + h * 64 + t // 16 * 4 + e]
        for h in T.unroll(2):
            for e in T.vectorized(4):
                bf[h * 4 + e] = Bs[buf * TILE + kk * LDS + h * 64 + t % 16 * 4 + e]
        for i in T.unroll(8):
            for j in T.unroll(8):
                tacc[i * 8 + j] = tacc[i * 8 + j] + af[i] * bf[j]
    for e in T.unroll(64):
        acc[e] = acc[e] + tacc[e]


@T.macro
def gemm(A, lda, AK, B, ldb, BKM, m0, n0, kb, KT, As, Bs, ra, rb, af, bf, acc, tacc, t, ROWS_A, ROWS_B):
    # acc = sum over k in [kb, kb + 16 KT) of A(m0 + row, k) * B(n0 + col, k)
    for e in T.unroll(64):
        acc[e] = T.float32(0)
    load_op(A, lda, m0, kb, ra, t, AK, ROWS_A)
    load_op(B, ldb, n0, kb, rb, t, BKM, ROWS_B)
    store_op(As, 0, ra, t, AK)
    store_op(Bs, 0, rb, t, BKM)
    T.cuda.cta_sync()
    for kt in T.serial(KT):
        if kt + 1 < KT:
            load_op(A, lda, m0, kb + (kt + 1) * BK, ra, t, AK, ROWS_A)
            load_op(B, ldb, n0, kb + (kt + 1) * BK, rb, t, BKM, ROWS_B)
        tile_products(As, Bs, kt % 2, af, bf, acc, tacc, t)
        # buffer (kt + 1) % 2 was last read in tile kt - 1, which every thread finished (barrier below)
        if kt + 1 < KT:
            store_op(As, (kt + 1) % 2, ra, t, AK)
            store_op(Bs, (kt + 1) % 2, rb, t, BKM)
        T.cuda.cta_sync()


# ---- LayerNorm backward ----------------------------------------------------------------------------------

@T.prim_func
def ln_backward(n_ptr: T.handle, var_ptr: T.handle, dy_ptr: T.handle, lnw_ptr: T.handle, dz_ptr: T.handle,
                pgam_ptr: T.handle, pbet_ptr: T.handle, pb2_ptr: T.handle, eps: T.float32):
    # one warp per row (512 = 32 lanes x 4 float4), 32 rows per block; dz = rstd (g - mean g - n mean(g n)),
    # g = dy * w, rstd = rsqrt(var + eps); column partials [block][col] of dy * n, dy and dz
    nrm = T.match_buffer(n_ptr, (TOK * HID,), "float32")
    var = T.match_buffer(var_ptr, (TOK,), "float32")
    dy = T.match_buffer(dy_ptr, (TOK * HID,), "float32")
    lnw = T.match_buffer(lnw_ptr, (HID,), "float32")
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    pgam = T.match_buffer(pgam_ptr, ((TOK // LN_ROWS) * HID,), "float32")
    pbet = T.match_buffer(pbet_ptr, ((TOK // LN_ROWS) * HID,), "float32")
    pb2 = T.match_buffer(pb2_ptr, ((TOK // LN_ROWS) * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([TOK // LN_ROWS])
    tx = T.thread_id([THREADS])
    nv = T.alloc_buffer((4 * LNQ,), "float32", scope="local")
    gv = T.alloc_buffer((4 * LNQ,), "float32", scope="local")
    dv = T.alloc_buffer((4,), "float32", scope="local")
    wv = T.alloc_buffer((4,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    pg = T.alloc_buffer((4 * LNQ,), "float32", scope="local")
    pb = T.alloc_buffer((4 * LNQ,), "float32", scope="local")
    pz = T.alloc_buffer((4 * LNQ,), "float32", scope="local")
    st = T.alloc_buffer((4,), "float32", scope="local")   # rstd, sum g, sum g n, column sum
    red = T.alloc_buffer(((THREADS // 32) * HID,), "float32", scope="shared")
    for e in T.unroll(4 * LNQ):
        pg[e] = T.float32(0)
        pb[e] = T.float32(0)
        pz[e] = T.float32(0)
    # warp w: rows bx * 32 + 8 rr + w; lane l: columns 4 (32 q + l) .. + 4, q < LNQ
    for rr in T.serial(LN_ROWS // 8):
        st[0] = T.rsqrt(var[bx * LN_ROWS + rr * 8 + tx // 32] + eps)
        st[1] = T.float32(0)
        st[2] = T.float32(0)
        for q in T.unroll(LNQ):
            for e in T.vectorized(4):
                nv[q * 4 + e] = nrm[(bx * LN_ROWS + rr * 8 + tx // 32) * HID + (q * 32 + tx % 32) * 4 + e]
            for e in T.vectorized(4):
                dv[e] = dy[(bx * LN_ROWS + rr * 8 + tx // 32) * HID + (q * 32 + tx % 32) * 4 + e]
            for e in T.vectorized(4):
                wv[e] = lnw[(q * 32 + tx % 32) * 4 + e]
            for e in T.unroll(4):
                gv[q * 4 + e] = dv[e] * wv[e]
                pg[q * 4 + e] = pg[q * 4 + e] + dv[e] * nv[q * 4 + e]
                pb[q * 4 + e] = pb[q * 4 + e] + dv[e]
            st[1] = st[1] + ((gv[q * 4] + gv[q * 4 + 1]) + (gv[q * 4 + 2] + gv[q * 4 + 3]))
            st[2] = st[2] + ((gv[q * 4] * nv[q * 4] + gv[q * 4 + 1] * nv[q * 4 + 1])
                             + (gv[q * 4 + 2] * nv[q * 4 + 2] + gv[q * 4 + 3] * nv[q * 4 + 3]))
        st[1] = T.cuda.warp_sum(st[1], 32) * T.float32(1.0 / HID)
        st[2] = T.cuda.warp_sum(st[2], 32) * T.float32(1.0 / HID)
        for q in T.unroll(LNQ):
            for e in T.unroll(4):
                o[e] = st[0] * (gv[q * 4 + e] - st[1] - nv[q * 4 + e] * st[2])
                pz[q * 4 + e] = pz[q * 4 + e] + o[e]
            for e in T.vectorized(4):
                dz[(bx * LN_ROWS + rr * 8 + tx // 32) * HID + (q * 32 + tx % 32) * 4 + e] = o[e]
    # the 8 warps' column partials, one quantity at a time: red[warp][col]
    for q in T.unroll(LNQ):
        for e in T.vectorized(4):
            red[tx // 32 * HID + (q * 32 + tx % 32) * 4 + e] = pg[q * 4 + e]
    T.cuda.cta_sync()
    for j in T.unroll(HID // THREADS):
        st[3] = T.float32(0)
        for w in T.unroll(THREADS // 32):
            st[3] = st[3] + red[w * HID + j * THREADS + tx]
        pgam[bx * HID + j * THREADS + tx] = st[3]
    T.cuda.cta_sync()
    for q in T.unroll(LNQ):
        for e in T.vectorized(4):
            red[tx // 32 * HID + (q * 32 + tx % 32) * 4 + e] = pb[q * 4 + e]
    T.cuda.cta_sync()
    for j in T.unroll(HID // THREADS):
        st[3] = T.float32(0)
        for w in T.unroll(THREADS // 32):
            st[3] = st[3] + red[w * HID + j * THREADS + tx]
        pbet[bx * HID + j * THREADS + tx] = st[3]
    T.cuda.cta_sync()
    for q in T.unroll(LNQ):
        for e in T.vectorized(4):
            red[tx // 32 * HID + (q * 32 + tx % 32) * 4 + e] = pz[q * 4 + e]
    T.cuda.cta_sync()
    for j in T.unroll(HID // THREADS):
        st[3] = T.float32(0)
        for w in T.unroll(THREADS // 32):
            st[3] = st[3] + red[w * HID + j * THREADS + tx]
        pb2[bx * HID + j * THREADS + tx] = st[3]


# ---- column sums of partials ------------------------------------------------------------------------------

@T.prim_func
def sum_ln_parts(part_ptr: T.handle, out_ptr: T.handle):
    # out[c] = sum over the 2174 LayerNorm blocks p of part[p][c], c < hidden (float64 sum, rounded once)
    part = T.match_buffer(part_ptr, ((TOK // LN_ROWS) * HID,), "float32")
    out = T.match_buffer(out_ptr, (HID,), "float32")
    T.device_entry()
    bx = T.cta_id([HID // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((1,), "float64", scope="local")
    s[0] = T.float64(0)
    for p in T.serial(TOK // LN_ROWS):
        s[0] = s[0] + T.Cast("float64", part[p * HID + bx * 256 + tx])
    out[bx * 256 + tx] = T.Cast("float32", s[0])


@T.prim_func
def sum_db1_parts(pdb1_ptr: T.handle, db1_ptr: T.handle):
    # db1[c] = sum over the 544 row tiles p of pdb1[p][c], c < inter (float64 sum, rounded once)
    pdb1 = T.match_buffer(pdb1_ptr, (RT * INTER,), "float32")
    db1 = T.match_buffer(db1_ptr, (INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([INTER // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((1,), "float64", scope="local")
    s[0] = T.float64(0)
    for p in T.serial(RT):
        s[0] = s[0] + T.Cast("float64", pdb1[p * INTER + bx * 256 + tx])
    db1[bx * 256 + tx] = T.Cast("float32", s[0])


@T.prim_func
def sum_splits(wpart_ptr: T.handle, dw_ptr: T.handle):
    # dw[i] = sum over the 4 splits s of wpart[s][i], float4-wide (float64 sum, rounded once)
    wpart = T.match_buffer(wpart_ptr, (SPLIT * HID * INTER,), "float32")
    dw = T.match_buffer(dw_ptr, (HID * INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([HID * INTER // 4 // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((4,), "float64", scope="local")
    v = T.alloc_buffer((4,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    for e in T.unroll(4):
        s[e] = T.float64(0)
    for p in T.unroll(SPLIT):
        for e in T.vectorized(4):
            v[e] = wpart[p * (HID * INTER) + (bx * 256 + tx) * 4 + e]
        for e in T.unroll(4):
            s[e] = s[e] + T.Cast("float64", v[e])
    for e in T.unroll(4):
        o[e] = T.Cast("float32", s[e])
    for e in T.vectorized(4):
        dw[(bx * 256 + tx) * 4 + e] = o[e]


# ---- backward GEMMs -----------------------------------------------------------------------------------

@T.prim_func
def bwd_dh(dz_ptr: T.handle, w2_ptr: T.handle, p_ptr: T.handle, dh_ptr: T.handle, pdb1_ptr: T.handle):
    # dh = (dz W2) * gelu_tanh'(p) [T][inter] (W2 [hidden][inter] is the [K][N] operand); pdb1[row tile][col] =
    # the tile's column sums of dh (rows < T only)
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    w2 = T.match_buffer(w2_ptr, (HID * INTER,), "float32")
    pre = T.match_buffer(p_ptr, (TOK * INTER,), "float32")
    dh = T.match_buffer(dh_ptr, (TOK * INTER,), "float32")
    pdb1 = T.match_buffer(pdb1_ptr, (RT * INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([RT * IT])     # row tile bx / 16, column tile bx % 16
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    hv = T.alloc_buffer((4,), "float32", scope="local")
    th = T.alloc_buffer((1,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    cs = T.alloc_buffer((8,), "float32", scope="local")
    red = T.alloc_buffer((1,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm(dz, HID, True, w2, INTER, False, bx // IT * BM, bx % IT * BM, 0, HID // BK, As, Bs, ra, rb, af, bf, acc,
         tacc, tx, TOK, INTER)
    for j in T.unroll(8):
        cs[j] = T.float32(0)
    for i in T.unroll(8):
        if bx // IT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < TOK:
            for hh in T.unroll(2):
                for e in T.vectorized(4):
                    hv[e] = pre[(bx // IT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER + bx % IT * BM + hh * 64
                                + tx % 16 * 4 + e]
                for e in T.unroll(4):
                    th[0] = T.tanh(T.float32(K_GELU) * (hv[e] + T.float32(C_GELU) * (hv[e] * hv[e] * hv[e])))
                    o[e] = acc[i * 8 + hh * 4 + e] * (
                        T.float32(0.5) * (T.float32(1) + th[0])
                        + T.float32(0.5) * hv[e] * (T.float32(1) - th[0] * th[0])
                        * (T.float32(K_GELU) * (T.float32(1) + T.float32(3 * C_GELU) * (hv[e] * hv[e]))))
                    cs[hh * 4 + e] = cs[hh * 4 + e] + o[e]
                for e in T.vectorized(4):
                    dh[(bx // IT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER + bx % IT * BM + hh * 64
                       + tx % 16 * 4 + e] = o[e]
    # column sums over the 16 thread rows (tx / 16): As is free after the main loop's last barrier
    for hh in T.unroll(2):
        for e in T.vectorized(4):
            As[tx // 16 * BM + hh * 64 + tx % 16 * 4 + e] = cs[hh * 4 + e]
    T.cuda.cta_sync()
    if tx < BM:
        red[0] = T.float32(0)
        for y in T.unroll(16):
            red[0] = red[0] + As[y * BM + tx]
        pdb1[bx // IT * INTER + bx % IT * BM + tx] = red[0]


@T.prim_func
def bwd_dx(dh_ptr: T.handle, w1_ptr: T.handle, dz_ptr: T.handle, dx_ptr: T.handle):
    # dx = dz + dh W1 [T][hidden] (W1 [inter][hidden] is the [K][N] operand), rows < T only
    dh = T.match_buffer(dh_ptr, (TOK * INTER,), "float32")
    w1 = T.match_buffer(w1_ptr, (INTER * HID,), "float32")
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    dx = T.match_buffer(dx_ptr, (TOK * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([RT * HT])       # row tile bx / 4, column tile bx % 4
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    dv = T.alloc_buffer((4,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm(dh, INTER, True, w1, HID, False, bx // HT * BM, bx % HT * BM, 0, INTER // BK, As, Bs, ra, rb, af, bf, acc,
         tacc, tx, TOK, HID)
    for i in T.unroll(8):
        if bx // HT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < TOK:
            for hh in T.unroll(2):
                for e in T.vectorized(4):
                    dv[e] = dz[(bx // HT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % HT * BM + hh * 64
                               + tx % 16 * 4 + e]
                for e in T.unroll(4):
                    o[e] = dv[e] + acc[i * 8 + hh * 4 + e]
                for e in T.vectorized(4):
                    dx[(bx // HT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % HT * BM + hh * 64
                       + tx % 16 * 4 + e] = o[e]


@T.prim_func
def bwd_dw2(dz_ptr: T.handle, act_ptr: T.handle, w2part_ptr: T.handle):
    # w2part[s] [hidden][inter] = sum over rows of split s of dz[t][m] * act[t][n] (both operands [K][rows])
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    act = T.match_buffer(act_ptr, (TOK * INTER,), "float32")
    w2part = T.match_buffer(w2part_ptr, (SPLIT * HID * INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([SPLIT * HT * IT])   # split bx / 64, row tile bx / 16 % 4, column tile bx % 16
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm(dz, HID, False, act, INTER, False, bx // IT % HT * BM, bx % IT * BM, bx // (HT * IT) * KS, KS // BK, As, Bs,
         ra, rb, af, bf, acc, tacc, tx, HID, INTER)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e]
            for e in T.vectorized(4):
                w2part[bx // (HT * IT) * (HID * INTER) + (bx // IT % HT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4)
                       * INTER + bx % IT * BM + hh * 64 + tx % 16 * 4 + e] = o[e]


@T.prim_func
def bwd_dw1(dh_ptr: T.handle, x_ptr: T.handle, w1part_ptr: T.handle):
    # w1part[s] [inter][hidden] = sum over rows of split s of dh[t][m] * x[t][n] (both operands [K][rows])
    dh = T.match_buffer(dh_ptr, (TOK * INTER,), "float32")
    x = T.match_buffer(x_ptr, (TOK * HID,), "float32")
    w1part = T.match_buffer(w1part_ptr, (SPLIT * INTER * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([SPLIT * IT * HT])   # split bx / 64, row tile bx / 4 % 16, column tile bx % 4
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm(dh, INTER, False, x, HID, False, bx // HT % IT * BM, bx % HT * BM, bx // (HT * IT) * KS, KS // BK, As, Bs,
         ra, rb, af, bf, acc, tacc, tx, INTER, HID)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e]
            for e in T.vectorized(4):
                w1part[bx // (HT * IT) * (INTER * HID) + (bx // HT % IT * BM + i // 4 * 64 + tx // 16 * 4 + i % 4)
                       * HID + bx % HT * BM + hh * 64 + tx % 16 * 4 + e] = o[e]


MKB_PLAN = """/* mkb:plan
# T = batch_size * seq_len = 69568 = 544 row tiles of 128 (last partial) = 4 splits = 2174 LayerNorm blocks of 32
scratch dz fp32[batch_size * seq_len * hidden_size]
scratch dh fp32[batch_size * seq_len * intermediate_size]
scratch pgam fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pbet fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pb2 fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pdb1 fp32[ceil_div(batch_size * seq_len, 128) * intermediate_size]
scratch w2part fp32[4 * hidden_size * intermediate_size]
scratch w1part fp32[4 * intermediate_size * hidden_size]
launch ln_backward grid(batch_size * seq_len / 32) block(256)
  args(normalized, var, grad_output, ln_weight, dz, pgam, pbet, pb2, f32(eps))
launch sum_ln_parts grid(hidden_size / 256) block(256) args(pgam, grad_ln_weight)
launch sum_ln_parts grid(hidden_size / 256) block(256) args(pbet, grad_ln_bias)
launch sum_ln_parts grid(hidden_size / 256) block(256) args(pb2, grad_fc2_bias)
launch bwd_dh grid(ceil_div(batch_size * seq_len, 128) * (intermediate_size / 128)) block(256)
  args(dz, fc2_weight, fc1_output, dh, pdb1)
launch sum_db1_parts grid(intermediate_size / 256) block(256) args(pdb1, grad_fc1_bias)
launch bwd_dx grid(ceil_div(batch_size * seq_len, 128) * (hidden_size / 128)) block(256)
  args(dh, fc1_weight, dz, grad_hidden_states)
launch bwd_dw2 grid(4 * (hidden_size / 128) * (intermediate_size / 128)) block(256) args(dz, gelu_output, w2part)
launch bwd_dw1 grid(4 * (intermediate_size / 128) * (hidden_size / 128)) block(256) args(dh, hidden_states, w1part)
launch sum_splits grid(hidden_size * intermediate_size / 4 / 256) block(256) args(w2part, grad_fc2_weight)
launch sum_splits grid(intermediate_size * hidden_size / 4 / 256) block(256) args(w1part, grad_fc1_weight)
*/"""
