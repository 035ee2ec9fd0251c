"""Backward of Kokoro-82M's PL-BERT (ALBERT) post-LN feed-forward block in TIRx, fp32, activations recomputed:
  forward   h = x W1^T + b1, a = gelu_tanh(h), z = x + a W2^T + b2, LayerNorm statistics of z
  backward  dz = LN-backward(dy), dW2 = dz^T a, db2 = sum dz, dh = (dz W2) * gelu_tanh'(h),
            dW1 = dh^T x, db1 = sum dh, dx = dz + dh W1, dln_weight = sum dy * zhat, dln_bias = sum dy
The algorithm of solutions/cuda.cu with plain fp32 FMA GEMMs (no TF32): six GEMMs with their elementwise
work in the epilogues (fwd_up writes a and gelu'(h), fwd_down writes z, bwd_dh writes dh and the per-row-tile
column sums of dh for db1, bwd_dx adds dz), one warp-per-row LayerNorm-backward kernel with per-block column
partials of dy * zhat, dy and dz, split-K by 8 for the two weight gradients (fp32 partials, then a float64 sum). All
reductions are deterministic (no atomics).
GEMM core: 128 x 128 block tile, K tile 16, 256 threads, each a register-tiled 8 x 8 block: rows
64 (i / 4) + 4 (t / 16) + i % 4, columns 64 (j / 4) + 4 (t % 16) + j % 4. Operands are K-contiguous ([rows][K],
loaded as 16-byte rows and stored transposed) or row-contiguous ([K][rows], stored as is); the shared tiles are
[k][128 + 4] and double-buffered; the next K tile is loaded into registers while the current one is
multiplied, one barrier per tile. Each K tile's 16-term products are summed from zero and then added to the
running fp32 sums (blocked summation: about a third of the rounding error of one FMA chain over K).
The GELU derivative is formed in closed form as cuda.cu does (gp = 0.5 (1 + t) + 0.5 h (1 - t^2) k (1 + 3 c h^2)),
and dh = da * gp.
Compile-checked only (no GPU run yet). Checked without a GPU: the generated CUDA compiles with nvcc for
sm_90a without spills or local memory, and every kernel was run on the CPU through an emulation shim (one
thread per CUDA thread, barriers for __syncthreads and the shuffles) at the problem's shapes, the GEMMs on
sampled 128 x 128 tiles (first, middle, last) and the other kernels on every block, against float64 numpy:
errors at fp32-BLAS level (dx 9.6e-7, dz 9.0e-7, dln_weight 2.7e-5 of 343, db2 2.3e-5 of 249, dW split
partials 2.9e-5 of 84). The sums of partials are accumulated in float64 and rounded once.
Expected speed: well below cuda.cu's 3xTF32 tensor-core GEMMs (FFMA peak is about a third of it); roughly
on par with or slower than the eager baseline, whose six cuBLAS SGEMMs dominate.
Shapes are fixed: tokens = 8192 = 64 * 128 = 8 splits * 1024, hidden = 768 = 6 * 128, inter = 2048 = 16 * 128."""
from tvm.script import tirx as T

TOK = 8192
HID = 768
INTER = 2048
SPLIT = 8                     # split-K of the weight gradients
KS = TOK // SPLIT             # 1024 tokens per split

BM = 128
BK = 16
LDS = BM + 4
TILE = BK * LDS
THREADS = 256
LN_ROWS = 32                  # LayerNorm-backward rows per block

assert TOK % BM == 0 and HID % BM == 0 and INTER % BM == 0 and KS % BK == 0 and HID % BK == 0
assert INTER % BK == 0 and HID == 32 * 24 and TOK % LN_ROWS == 0 and 2 * 16 * BM <= 2 * TILE

K_GELU = 0.7978845608028654   # sqrt(2 / pi)
C_GELU = 0.044715


# ---- GEMM core (macros; indices written out in full so the 16-byte accesses vectorize) -----------------

@T.macro
def load_op(X, ld, r0, k0, reg, t, KMAJ):
    if KMAJ:
        # rows r0 + 64 i + t / 4, k k0 + 4 (t % 4) .. + 4 of X[rows][ld]
        for i in T.unroll(2):
            for e in T.vectorized(4):
                reg[i * 4 + e] = X[(r0 + i * 64 + t // 4) * ld + k0 + t % 4 * 4 + e]
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
def gemm(A, lda, AK, B, ldb, BKM, m0, n0, kb, KT, As, Bs, ra, rb, af, bf, acc, tacc, t):
    # acc = sum over k in [kb, kb + 16 KT) of A(m0 + row, k) * B(n0 + col, k)
    for e in T.unroll(64):
        acc[e] = T.float32(0)
    load_op(A, lda, m0, kb, ra, t, AK)
    load_op(B, ldb, n0, kb, rb, t, BKM)
    store_op(As, 0, ra, t, AK)
    store_op(Bs, 0, rb, t, BKM)
    T.cuda.cta_sync()
    for kt in T.serial(KT):
        if kt + 1 < KT:
            load_op(A, lda, m0, kb + (kt + 1) * BK, ra, t, AK)
            load_op(B, ldb, n0, kb + (kt + 1) * BK, rb, t, BKM)
        tile_products(As, Bs, kt % 2, af, bf, acc, tacc, t)
        # buffer (kt + 1) % 2 was last read in tile kt - 1, which every thread finished (barrier below)
        if kt + 1 < KT:
            store_op(As, (kt + 1) % 2, ra, t, AK)
            store_op(Bs, (kt + 1) % 2, rb, t, BKM)
        T.cuda.cta_sync()


# ---- forward ------------------------------------------------------------------------------------------

@T.prim_func
def fwd_up(x_ptr: T.handle, w1_ptr: T.handle, b1_ptr: T.handle, act_ptr: T.handle, gp_ptr: T.handle):
    # act = gelu_tanh(x W1^T + b1), gp = gelu_tanh'(.) [tokens][inter]
    x = T.match_buffer(x_ptr, (TOK * HID,), "float32")
    w1 = T.match_buffer(w1_ptr, (INTER * HID,), "float32")
    b1 = T.match_buffer(b1_ptr, (INTER,), "float32")
    act = T.match_buffer(act_ptr, (TOK * INTER,), "float32")
    gp = T.match_buffer(gp_ptr, (TOK * INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([(TOK // BM) * (INTER // BM)])     # row tile bx / 16, column tile bx % 16
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    bias = T.alloc_buffer((8,), "float32", scope="local")
    hv = T.alloc_buffer((1,), "float32", scope="local")
    th = T.alloc_buffer((1,), "float32", scope="local")
    oa = T.alloc_buffer((4,), "float32", scope="local")
    og = T.alloc_buffer((4,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm(x, HID, True, w1, HID, True, bx // 16 * BM, bx % 16 * BM, 0, HID // BK, As, Bs, ra, rb, af, bf, acc, tacc,
         tx)
    for hh in T.unroll(2):
        for e in T.vectorized(4):
            bias[hh * 4 + e] = b1[bx % 16 * BM + hh * 64 + tx % 16 * 4 + e]
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                hv[0] = acc[i * 8 + hh * 4 + e] + bias[hh * 4 + e]
                # NewGELUActivation, one rounded op at a time: t = tanh(k (h + c h^3)), a = (0.5 h) (1 + t)
                th[0] = T.tanh(T.float32(K_GELU) * (hv[0] + T.float32(C_GELU) * (hv[0] * hv[0] * hv[0])))
                oa[e] = (T.float32(0.5) * hv[0]) * (T.float32(1) + th[0])
                og[e] = T.float32(0.5) * (T.float32(1) + th[0]) + T.float32(0.5) * hv[0] * (
                    T.float32(1) - th[0] * th[0]) * T.float32(K_GELU) * (
                    T.float32(1) + T.float32(3 * C_GELU) * hv[0] * hv[0])
            for e in T.vectorized(4):
                act[(bx // 16 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER + bx % 16 * BM + hh * 64
                    + tx % 16 * 4 + e] = oa[e]
            for e in T.vectorized(4):
                gp[(bx // 16 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER + bx % 16 * BM + hh * 64
                   + tx % 16 * 4 + e] = og[e]


@T.prim_func
def fwd_down(act_ptr: T.handle, w2_ptr: T.handle, b2_ptr: T.handle, x_ptr: T.handle, z_ptr: T.handle):
    # z = x + (act W2^T + b2) [tokens][hidden]
    act = T.match_buffer(act_ptr, (TOK * INTER,), "float32")
    w2 = T.match_buffer(w2_ptr, (HID * INTER,), "float32")
    b2 = T.match_buffer(b2_ptr, (HID,), "float32")
    x = T.match_buffer(x_ptr, (TOK * HID,), "float32")
    z = T.match_buffer(z_ptr, (TOK * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([(TOK // BM) * (HID // BM)])       # row tile bx / 6, column tile bx % 6
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    bias = T.alloc_buffer((8,), "float32", scope="local")
    xv = T.alloc_buffer((4,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm(act, INTER, True, w2, INTER, True, bx // 6 * BM, bx % 6 * BM, 0, INTER // BK, As, Bs, ra, rb, af, bf, acc,
         tacc, tx)
    for hh in T.unroll(2):
        for e in T.vectorized(4):
            bias[hh * 4 + e] = b2[bx % 6 * BM + hh * 64 + tx % 16 * 4 + e]
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.vectorized(4):
                xv[e] = x[(bx // 6 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % 6 * BM + hh * 64
                          + tx % 16 * 4 + e]
            for e in T.unroll(4):
                o[e] = xv[e] + (acc[i * 8 + hh * 4 + e] + bias[hh * 4 + e])
            for e in T.vectorized(4):
                z[(bx // 6 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % 6 * BM + hh * 64 + tx % 16 * 4
                  + e] = o[e]


# ---- LayerNorm backward ----------------------------------------------------------------------------------

@T.prim_func
def ln_backward(z_ptr: T.handle, dy_ptr: T.handle, lnw_ptr: T.handle, dz_ptr: T.handle, pgam_ptr: T.handle,
                pbet_ptr: T.handle, pb2_ptr: T.handle, eps: T.float32):
    # one warp per row (768 = 32 lanes x 6 float4), 32 rows per block; dz = rstd (g - mean g - zhat mean(g zhat)),
    # g = dy * w; column partials [block][col] of dy * zhat, dy and dz
    z = T.match_buffer(z_ptr, (TOK * HID,), "float32")
    dy = T.match_buffer(dy_ptr, (TOK * HID,), "float32")
    lnw = T.match_buffer(lnw_ptr, (HID,), "float32")
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    pgam = T.match_buffer(pgam_ptr, ((TOK // LN_ROWS) * HID,), "float32")
    pbet = T.match_buffer(pbet_ptr, ((TOK // LN_ROWS) * HID,), "float32")
    pb2 = T.match_buffer(pb2_ptr, ((TOK // LN_ROWS) * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([TOK // LN_ROWS])
    tx = T.thread_id([THREADS])
    zv = T.alloc_buffer((24,), "float32", scope="local")
    gv = T.alloc_buffer((24,), "float32", scope="local")
    dv = T.alloc_buffer((4,), "float32", scope="local")
    wv = T.alloc_buffer((4,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    pg = T.alloc_buffer((24,), "float32", scope="local")
    pb = T.alloc_buffer((24,), "float32", scope="local")
    pz = T.alloc_buffer((24,), "float32", scope="local")
    st = T.alloc_buffer((6,), "float32", scope="local")   # sum, mean, sum sq, rstd, sum g, sum g zhat
    red = T.alloc_buffer(((THREADS // 32) * HID,), "float32", scope="shared")
    for e in T.unroll(24):
        pg[e] = T.float32(0)
        pb[e] = T.float32(0)
        pz[e] = T.float32(0)
    # warp w: rows bx * 32 + 8 rr + w; lane l: columns 4 (32 q + l) .. + 4, q < 6
    for rr in T.serial(LN_ROWS // 8):
        for q in T.unroll(6):
            for e in T.vectorized(4):
                zv[q * 4 + e] = z[(bx * LN_ROWS + rr * 8 + tx // 32) * HID + (q * 32 + tx % 32) * 4 + e]
        st[0] = T.float32(0)
        for q in T.unroll(6):
            st[0] = st[0] + ((zv[q * 4] + zv[q * 4 + 1]) + (zv[q * 4 + 2] + zv[q * 4 + 3]))
        st[1] = T.cuda.warp_sum(st[0], 32) * T.float32(1.0 / HID)
        st[2] = T.float32(0)
        for q in T.unroll(6):
            st[2] = st[2] + (((zv[q * 4] - st[1]) * (zv[q * 4] - st[1]) + (zv[q * 4 + 1] - st[1]) * (zv[q * 4 + 1] - st[1]))
                             + ((zv[q * 4 + 2] - st[1]) * (zv[q * 4 + 2] - st[1])
                                + (zv[q * 4 + 3] - st[1]) * (zv[q * 4 + 3] - st[1])))
        st[3] = T.rsqrt(T.cuda.warp_sum(st[2], 32) * T.float32(1.0 / HID) + eps)
        st[4] = T.float32(0)
        st[5] = T.float32(0)
        for q in T.unroll(6):
            for e in T.vectorized(4):
                dv[e] = dy[(bx * LN_ROWS + rr * 8 + tx // 32) * HID + (q * 32 + tx % 32) * 4 + e]
            for e in T.vectorized(4):
                wv[e] = lnw[(q * 32 + tx % 32) * 4 + e]
            for e in T.unroll(4):
                zv[q * 4 + e] = (zv[q * 4 + e] - st[1]) * st[3]      # zhat
                gv[q * 4 + e] = dv[e] * wv[e]
                pg[q * 4 + e] = pg[q * 4 + e] + dv[e] * zv[q * 4 + e]
                pb[q * 4 + e] = pb[q * 4 + e] + dv[e]
            st[4] = st[4] + ((gv[q * 4] + gv[q * 4 + 1]) + (gv[q * 4 + 2] + gv[q * 4 + 3]))
            st[5] = st[5] + ((gv[q * 4] * zv[q * 4] + gv[q * 4 + 1] * zv[q * 4 + 1])
                             + (gv[q * 4 + 2] * zv[q * 4 + 2] + gv[q * 4 + 3] * zv[q * 4 + 3]))
        st[4] = T.cuda.warp_sum(st[4], 32) * T.float32(1.0 / HID)
        st[5] = T.cuda.warp_sum(st[5], 32) * T.float32(1.0 / HID)
        for q in T.unroll(6):
            for e in T.unroll(4):
                o[e] = st[3] * (gv[q * 4 + e] - st[4] - zv[q * 4 + e] * st[5])
                pz[q * 4 + e] = pz[q * 4 + e] + o[e]
            for e in T.vectorized(4):
                dz[(bx * LN_ROWS + rr * 8 + tx // 32) * HID + (q * 32 + tx % 32) * 4 + e] = o[e]
    # the 8 warps' column partials, one quantity at a time: red[warp][col]
    for q in T.unroll(6):
        for e in T.vectorized(4):
            red[tx // 32 * HID + (q * 32 + tx % 32) * 4 + e] = pg[q * 4 + e]
    T.cuda.cta_sync()
    for j in T.unroll(HID // THREADS):
        st[0] = T.float32(0)
        for w in T.unroll(THREADS // 32):
            st[0] = st[0] + red[w * HID + j * THREADS + tx]
        pgam[bx * HID + j * THREADS + tx] = st[0]
    T.cuda.cta_sync()
    for q in T.unroll(6):
        for e in T.vectorized(4):
            red[tx // 32 * HID + (q * 32 + tx % 32) * 4 + e] = pb[q * 4 + e]
    T.cuda.cta_sync()
    for j in T.unroll(HID // THREADS):
        st[0] = T.float32(0)
        for w in T.unroll(THREADS // 32):
            st[0] = st[0] + red[w * HID + j * THREADS + tx]
        pbet[bx * HID + j * THREADS + tx] = st[0]
    T.cuda.cta_sync()
    for q in T.unroll(6):
        for e in T.vectorized(4):
            red[tx // 32 * HID + (q * 32 + tx % 32) * 4 + e] = pz[q * 4 + e]
    T.cuda.cta_sync()
    for j in T.unroll(HID // THREADS):
        st[0] = T.float32(0)
        for w in T.unroll(THREADS // 32):
            st[0] = st[0] + red[w * HID + j * THREADS + tx]
        pb2[bx * HID + j * THREADS + tx] = st[0]


# ---- column sums of partials ------------------------------------------------------------------------------

@T.prim_func
def sum_ln_parts(part_ptr: T.handle, out_ptr: T.handle):
    # out[c] = sum over the 256 LayerNorm blocks p of part[p][c], c < hidden (float64 sum, rounded once)
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
    # db1[c] = sum over the 64 row tiles p of pdb1[p][c], c < inter (float64 sum, rounded once)
    pdb1 = T.match_buffer(pdb1_ptr, ((TOK // BM) * INTER,), "float32")
    db1 = T.match_buffer(db1_ptr, (INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([INTER // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((1,), "float64", scope="local")
    s[0] = T.float64(0)
    for p in T.serial(TOK // BM):
        s[0] = s[0] + T.Cast("float64", pdb1[p * INTER + bx * 256 + tx])
    db1[bx * 256 + tx] = T.Cast("float32", s[0])


@T.prim_func
def sum_splits(wpart_ptr: T.handle, dw_ptr: T.handle):
    # dw[i] = sum over the 8 splits s of wpart[s][i], float4-wide (float64 sum, rounded once)
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
def bwd_dh(dz_ptr: T.handle, w2_ptr: T.handle, gp_ptr: T.handle, dh_ptr: T.handle, pdb1_ptr: T.handle):
    # dh = (dz W2) * gp [tokens][inter] (W2 [hidden][inter] is the [K][N] operand); pdb1[row tile][col] = the
    # tile's column sums of dh
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    w2 = T.match_buffer(w2_ptr, (HID * INTER,), "float32")
    gp = T.match_buffer(gp_ptr, (TOK * INTER,), "float32")
    dh = T.match_buffer(dh_ptr, (TOK * INTER,), "float32")
    pdb1 = T.match_buffer(pdb1_ptr, ((TOK // BM) * INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([(TOK // BM) * (INTER // BM)])     # row tile bx / 16, column tile bx % 16
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    gv = T.alloc_buffer((4,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    cs = T.alloc_buffer((8,), "float32", scope="local")
    red = T.alloc_buffer((1,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm(dz, HID, True, w2, INTER, False, bx // 16 * BM, bx % 16 * BM, 0, HID // BK, As, Bs, ra, rb, af, bf, acc,
         tacc, tx)
    for j in T.unroll(8):
        cs[j] = T.float32(0)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.vectorized(4):
                gv[e] = gp[(bx // 16 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER + bx % 16 * BM + hh * 64
                           + tx % 16 * 4 + e]
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e] * gv[e]
                cs[hh * 4 + e] = cs[hh * 4 + e] + o[e]
            for e in T.vectorized(4):
                dh[(bx // 16 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER + bx % 16 * BM + hh * 64
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
        pdb1[bx // 16 * INTER + bx % 16 * BM + tx] = red[0]


@T.prim_func
def bwd_dx(dh_ptr: T.handle, w1_ptr: T.handle, dz_ptr: T.handle, dx_ptr: T.handle):
    # dx = dz + dh W1 [tokens][hidden] (W1 [inter][hidden] is the [K][N] operand)
    dh = T.match_buffer(dh_ptr, (TOK * INTER,), "float32")
    w1 = T.match_buffer(w1_ptr, (INTER * HID,), "float32")
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    dx = T.match_buffer(dx_ptr, (TOK * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([(TOK // BM) * (HID // BM)])       # row tile bx / 6, column tile bx % 6
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
    gemm(dh, INTER, True, w1, HID, False, bx // 6 * BM, bx % 6 * BM, 0, INTER // BK, As, Bs, ra, rb, af, bf, acc,
         tacc, tx)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.vectorized(4):
                dv[e] = dz[(bx // 6 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % 6 * BM + hh * 64
                           + tx % 16 * 4 + e]
            for e in T.unroll(4):
                o[e] = dv[e] + acc[i * 8 + hh * 4 + e]
            for e in T.vectorized(4):
                dx[(bx // 6 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % 6 * BM + hh * 64 + tx % 16 * 4
                   + e] = o[e]


@T.prim_func
def bwd_dw2(dz_ptr: T.handle, act_ptr: T.handle, w2part_ptr: T.handle):
    # w2part[s] [hidden][inter] = sum over tokens of split s of dz[t][m] * act[t][n] (both operands [K][rows])
    dz = T.match_buffer(dz_ptr, (TOK * HID,), "float32")
    act = T.match_buffer(act_ptr, (TOK * INTER,), "float32")
    w2part = T.match_buffer(w2part_ptr, (SPLIT * HID * INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([SPLIT * (HID // BM) * (INTER // BM)])   # split bx / 96, row tile bx / 16 % 6, column tile bx % 16
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
    gemm(dz, HID, False, act, INTER, False, bx // 16 % 6 * BM, bx % 16 * BM, bx // 96 * KS, KS // BK, As, Bs, ra, rb,
         af, bf, acc, tacc, tx)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e]
            for e in T.vectorized(4):
                w2part[bx // 96 * (HID * INTER) + (bx // 16 % 6 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER
                       + bx % 16 * BM + hh * 64 + tx % 16 * 4 + e] = o[e]


@T.prim_func
def bwd_dw1(dh_ptr: T.handle, x_ptr: T.handle, w1part_ptr: T.handle):
    # w1part[s] [inter][hidden] = sum over tokens of split s of dh[t][m] * x[t][n] (both operands [K][rows])
    dh = T.match_buffer(dh_ptr, (TOK * INTER,), "float32")
    x = T.match_buffer(x_ptr, (TOK * HID,), "float32")
    w1part = T.match_buffer(w1part_ptr, (SPLIT * INTER * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([SPLIT * (INTER // BM) * (HID // BM)])   # split bx / 96, row tile bx / 6 % 16, column tile bx % 6
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
    gemm(dh, INTER, False, x, HID, False, bx // 6 % 16 * BM, bx % 6 * BM, bx // 96 * KS, KS // BK, As, Bs, ra, rb,
         af, bf, acc, tacc, tx)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e]
            for e in T.vectorized(4):
                w1part[bx // 96 * (INTER * HID) + (bx // 6 % 16 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID
                       + bx % 6 * BM + hh * 64 + tx % 16 * 4 + e] = o[e]


MKB_PLAN = """/* mkb:plan
# tokens = 8192 = 64 row tiles of 128 = 8 splits of 1024 = 256 LayerNorm blocks of 32 rows
scratch act fp32[tokens * inter]
scratch gp fp32[tokens * inter]
scratch z fp32[tokens * hidden]
scratch dz fp32[tokens * hidden]
scratch dh fp32[tokens * inter]
scratch pgam fp32[(tokens / 32) * hidden]
scratch pbet fp32[(tokens / 32) * hidden]
scratch pb2 fp32[(tokens / 32) * hidden]
scratch pdb1 fp32[(tokens / 128) * inter]
scratch w2part fp32[8 * hidden * inter]
scratch w1part fp32[8 * inter * hidden]
launch fwd_up grid((tokens / 128) * (inter / 128)) block(256) args(x, W1, b1, act, gp)
launch fwd_down grid((tokens / 128) * (hidden / 128)) block(256) args(act, W2, b2, x, z)
launch ln_backward grid(tokens / 32) block(256) args(z, dy, ln_weight, dz, pgam, pbet, pb2, f32(eps))
launch sum_ln_parts grid(hidden / 256) block(256) args(pgam, dln_weight)
launch sum_ln_parts grid(hidden / 256) block(256) args(pbet, dln_bias)
launch sum_ln_parts grid(hidden / 256) block(256) args(pb2, db2)
launch bwd_dh grid((tokens / 128) * (inter / 128)) block(256) args(dz, W2, gp, dh, pdb1)
launch sum_db1_parts grid(inter / 256) block(256) args(pdb1, db1)
launch bwd_dx grid((tokens / 128) * (hidden / 128)) block(256) args(dh, W1, dz, dx)
launch bwd_dw2 grid(8 * (hidden / 128) * (inter / 128)) block(256) args(dz, act, w2part)
launch bwd_dw1 grid(8 * (inter / 128) * (hidden / 128)) block(256) args(dh, x, w1part)
launch sum_splits grid(hidden * inter / 4 / 256) block(256) args(w2part, dW2)
launch sum_splits grid(inter * hidden / 4 / 256) block(256) args(w1part, dW1)
*/"""
