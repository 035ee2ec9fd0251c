"""ConvNeXt V2 MLP (LayerNorm -> Linear C->4C -> GELU -> GRN -> Linear 4C->C) in TIRx, fp32 accuracy with
plain fp32 FMA GEMMs (no TF32), four launches, the algorithm of solutions/cuda.cu with a SIMT GEMM core:
  1. ln_rows: LayerNorm, one warp per 512-wide row held in registers (two-pass statistics, rsqrt).
  2. gemm1_gelu_grnsum: xn @ w1^T (fp32 FFMA), epilogue adds b1, applies the exact GELU
     0.5 v (1 + erf(v / sqrt 2)), stores h and writes the GRN's per-(row tile, image, channel) partial sums
     of squares (a 128-row tile spans at most two images of 196 rows: one partial for each, reduced over
     the tile's rows in shared memory; deterministic, no atomics).
  3. grn_scale: per image, sums of squares = the partials of the (up to 3) row tiles that hold its rows,
     Gx = sqrt(.), den = mean_j Gx + eps, sc = gamma * (Gx / den) + 1.
  4. gemm2_grn: (h * sc + beta) @ w2^T + b2 (fp32 FFMA); the GRN affine is applied to every A element as
     it is staged in registers, so the GRN output never goes to memory (g = h * (gamma * Nx + 1) + beta:
     the rounding reference.md allows).
GEMM core (both GEMMs, operands K-contiguous: x @ W^T): 128 x 128 block tile, K tile 16, 256 threads,
each a register-tiled 8 x 8 block: rows 64 h + 4 (t / 16) + i, columns 64 h' + 4 (t % 16) + j (h, h', i,
j < 2, 2, 4, 4); shared tiles are stored K-major-transposed ([k][128 + 4 pad]) and double-buffered; the next
K tile is loaded into registers (16-byte loads) while the current one is multiplied, one barrier per tile.
Each K tile's 16-term products are summed from zero and then added to the running fp32 sums (blocked
summation: about a third of the rounding error of one FMA chain over K, as cuda.cu's per-tile partials).
Compile-checked only (no GPU run yet). Checked without a GPU: the generated CUDA compiles with nvcc for
sm_90a without spills or local memory, and it was run on the CPU through an emulation shim (one thread per
CUDA thread, barriers for __syncthreads and the shuffles) over all blocks of the four launches at the
problem's shapes: max |y - float64| = 2.4e-6 (numpy's fp32 pipeline: 2.2e-6; one FMA chain per output over
K would give 9.6e-6, hence the blocked summation).
Expected speed: well below cuda.cu's 3xTF32 tensor-core GEMMs (FFMA peak is about a third of what they
reach); roughly on par with or a little slower than the eager baseline, whose two cuBLAS SGEMMs dominate.
Shapes are fixed: rows = 64 * 14 * 14 = 12544 = 98 * 128, dim = 512, hidden = 2048."""
from tvm.script import tirx as T

BATCH = 64
HW = 196
ROWS = BATCH * HW             # 12544
DIM = 512
HID = 2048

BM = 128                      # block tile (rows and columns)
BK = 16                       # K tile
LDS = BM + 4                  # padded row of a transposed shared tile
TILE = BK * LDS               # floats per shared tile buffer
THREADS = 256
MT = ROWS // BM               # 98 row tiles

assert ROWS % BM == 0 and HID % BM == 0 and DIM % BM == 0 and DIM % BK == 0 and HID % BK == 0
assert BM <= HW and 2 * 16 * BM <= 2 * TILE and DIM == 32 * 16 and HID == 8 * THREADS


# ---- GEMM core pieces (macros; indices written out in full so the 16-byte accesses vectorize) ----------

@T.macro
def load_k(X, ld, r0, k0, reg, t):
    # rows r0 + 64 i + t / 4, k k0 + 4 (t % 4) .. + 4 of a K-contiguous operand [rows][ld]
    for i in T.unroll(2):
        for e in T.vectorized(4):
            reg[i * 4 + e] = X[(r0 + i * 64 + t // 4) * ld + k0 + t % 4 * 4 + e]


@T.macro
def store_k(S, buf, reg, t):
    # transposed: element (row, k) -> S[buf][k][row]
    for i in T.unroll(2):
        for e in T.unroll(4):
            S[buf * TILE + (t % 4 * 4 + e) * LDS + i * 64 + t // 4] = reg[i * 4 + e]


@T.macro
def grn_affine(reg, sc, beta, sv, bv, r0, k0, t):
    # reg (rows r0 + 64 i + t / 4, k k0 + 4 (t % 4) + e) = h * sc[image of the row, k] + beta[k]
    for e in T.vectorized(4):
        bv[e] = beta[k0 + t % 4 * 4 + e]
    for i in T.unroll(2):
        for e in T.vectorized(4):
            sv[e] = sc[(r0 + i * 64 + t // 4) // HW * HID + k0 + t % 4 * 4 + e]
        for e in T.unroll(4):
            reg[i * 4 + e] = reg[i * 4 + e] * sv[e] + bv[e]


@T.macro
def tile_products(As, Bs, buf, af, bf, acc, tacc, t):
    # the tile's 16-term partial products start from zero and are added to the running sums once per tile
    # (blocked summation: about a third of the rounding error of one FMA chain over all of K)
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
def gemm_nt(A, B, K, m0, n0, As, Bs, ra, rb, af, bf, acc, tacc, t, GRN, sc, beta, sv, bv):
    # acc (8 x 8 per thread) = A[m0 .. m0 + 128, :K] @ B[n0 .. n0 + 128, :K]^T
    for e in T.unroll(64):
        acc[e] = T.float32(0)
    load_k(A, K, m0, 0, ra, t)
    load_k(B, K, n0, 0, rb, t)
    if GRN:
        grn_affine(ra, sc, beta, sv, bv, m0, 0, t)
    store_k(As, 0, ra, t)
    store_k(Bs, 0, rb, t)
    T.cuda.cta_sync()
    for kt in T.serial(K // BK):
        if kt + 1 < K // BK:
            load_k(A, K, m0, (kt + 1) * BK, ra, t)
            load_k(B, K, n0, (kt + 1) * BK, rb, t)
        tile_products(As, Bs, kt % 2, af, bf, acc, tacc, t)
        # buffer (kt + 1) % 2 was last read in tile kt - 1, which every thread finished (barrier below)
        if kt + 1 < K // BK:
            if GRN:
                grn_affine(ra, sc, beta, sv, bv, m0, (kt + 1) * BK, t)
            store_k(As, (kt + 1) % 2, ra, t)
            store_k(Bs, (kt + 1) % 2, rb, t)
        T.cuda.cta_sync()


# ---- 1. LayerNorm --------------------------------------------------------------------------------------

@T.prim_func
def ln_rows(x_ptr: T.handle, ln_weight_ptr: T.handle, ln_bias_ptr: T.handle, xn_ptr: T.handle, eps: T.float32):
    x = T.match_buffer(x_ptr, (ROWS * DIM,), "float32")
    ln_weight = T.match_buffer(ln_weight_ptr, (DIM,), "float32")
    ln_bias = T.match_buffer(ln_bias_ptr, (DIM,), "float32")
    xn = T.match_buffer(xn_ptr, (ROWS * DIM,), "float32")
    T.device_entry()
    bx = T.cta_id([ROWS // 8])
    tx = T.thread_id([THREADS])
    v = T.alloc_buffer((16,), "float32", scope="local")
    wv = T.alloc_buffer((4,), "float32", scope="local")
    bv = T.alloc_buffer((4,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    st = T.alloc_buffer((4,), "float32", scope="local")   # sum, mean, sum of squares, rstd
    # warp w: row 8 bx + w; lane l: float4 columns l, l + 32, l + 64, l + 96
    for j in T.unroll(4):
        for e in T.vectorized(4):
            v[j * 4 + e] = x[(bx * 8 + tx // 32) * DIM + (tx % 32 + 32 * j) * 4 + e]
    st[0] = T.float32(0)
    for j in T.unroll(4):
        st[0] = st[0] + ((v[j * 4] + v[j * 4 + 1]) + (v[j * 4 + 2] + v[j * 4 + 3]))
    st[1] = T.cuda.warp_sum(st[0], 32) * T.float32(1.0 / DIM)
    st[2] = T.float32(0)
    for j in T.unroll(16):
        st[2] = st[2] + (v[j] - st[1]) * (v[j] - st[1])
    st[3] = T.rsqrt(T.cuda.warp_sum(st[2], 32) * T.float32(1.0 / DIM) + eps)
    for j in T.unroll(4):
        for e in T.vectorized(4):
            wv[e] = ln_weight[(tx % 32 + 32 * j) * 4 + e]
        for e in T.vectorized(4):
            bv[e] = ln_bias[(tx % 32 + 32 * j) * 4 + e]
        for e in T.unroll(4):
            o[e] = (v[j * 4 + e] - st[1]) * st[3] * wv[e] + bv[e]
        for e in T.vectorized(4):
            xn[(bx * 8 + tx // 32) * DIM + (tx % 32 + 32 * j) * 4 + e] = o[e]


# ---- 2. GEMM 1 + bias + GELU + GRN partial sums of squares ---------------------------------------------

@T.prim_func
def gemm1_gelu_grnsum(xn_ptr: T.handle, w1_ptr: T.handle, b1_ptr: T.handle, h_ptr: T.handle, ssp_ptr: T.handle):
    xn = T.match_buffer(xn_ptr, (ROWS * DIM,), "float32")
    w1 = T.match_buffer(w1_ptr, (HID * DIM,), "float32")
    b1 = T.match_buffer(b1_ptr, (HID,), "float32")
    h = T.match_buffer(h_ptr, (ROWS * HID,), "float32")
    ssp = T.match_buffer(ssp_ptr, (MT * 2 * HID,), "float32")   # [row tile][image img0, img0 + 1][channel]
    T.device_entry()
    bx = T.cta_id([MT * (HID // BM)])                # row tile bx / 16, column tile bx % 16
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    bias = T.alloc_buffer((8,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    slo = T.alloc_buffer((8,), "float32", scope="local")
    shi = T.alloc_buffer((8,), "float32", scope="local")
    red = T.alloc_buffer((1,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm_nt(xn, w1, DIM, bx // 16 * BM, bx % 16 * BM, As, Bs, ra, rb, af, bf, acc, tacc, tx, False, None, None, None,
            None)
    # epilogue: thread rows bx / 16 * 128 + 64 (i / 4) + 4 (tx / 16) + i % 4, columns 64 hh + 4 (tx % 16) + e
    for hh in T.unroll(2):
        for e in T.vectorized(4):
            bias[hh * 4 + e] = b1[bx % 16 * BM + hh * 64 + tx % 16 * 4 + e]
    for j in T.unroll(8):
        slo[j] = T.float32(0)
        shi[j] = T.float32(0)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e] + bias[hh * 4 + e]
                o[e] = T.float32(0.5) * o[e] * (T.float32(1) + T.erf(o[e] * T.float32(0.70710678118654752)))
                # the row belongs to image img0 = row0 / 196 or to img0 + 1
                if bx // 16 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < (bx // 16 * BM // HW + 1) * HW:
                    slo[hh * 4 + e] = slo[hh * 4 + e] + o[e] * o[e]
                else:
                    shi[hh * 4 + e] = shi[hh * 4 + e] + o[e] * o[e]
            for e in T.vectorized(4):
                h[(bx // 16 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % 16 * BM + hh * 64 + tx % 16 * 4
                  + e] = o[e]
    # column sums over the 16 thread rows (tx / 16): As (free after the main loop's last barrier) as
    # [image 0/1][tx / 16][128 columns]
    for hh in T.unroll(2):
        for e in T.unroll(4):
            As[(tx // 16) * BM + hh * 64 + tx % 16 * 4 + e] = slo[hh * 4 + e]
            As[(16 + tx // 16) * BM + hh * 64 + tx % 16 * 4 + e] = shi[hh * 4 + e]
    T.cuda.cta_sync()
    red[0] = T.float32(0)
    for y in T.unroll(16):
        red[0] = red[0] + As[(tx // 128 * 16 + y) * BM + tx % 128]
    ssp[(bx // 16 * 2 + tx // 128) * HID + bx % 16 * BM + tx % 128] = red[0]


# ---- 3. GRN scale per (image, channel) -----------------------------------------------------------------

@T.prim_func
def grn_scale(ssp_ptr: T.handle, grn_gamma_ptr: T.handle, sc_ptr: T.handle, eps: T.float32):
    ssp = T.match_buffer(ssp_ptr, (MT * 2 * HID,), "float32")
    grn_gamma = T.match_buffer(grn_gamma_ptr, (HID,), "float32")
    sc = T.match_buffer(sc_ptr, (BATCH * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([BATCH])
    tx = T.thread_id([THREADS])
    gx = T.alloc_buffer((8,), "float32", scope="local")
    s = T.alloc_buffer((2,), "float32", scope="local")
    part = T.alloc_buffer((THREADS // 32,), "float32", scope="shared")
    # image bx has rows 196 bx .. 196 bx + 195: row tiles q0 = 196 bx / 128 .. (196 bx + 195) / 128 (at most 3);
    # in row tile mt its partial is half bx - (128 mt) / 196 (0 or 1)
    s[0] = T.float32(0)
    for j in T.unroll(8):
        gx[j] = T.float32(0)
        for q in T.unroll(3):
            if bx * HW // BM + q <= (bx * HW + HW - 1) // BM:
                gx[j] = gx[j] + ssp[((bx * HW // BM + q) * 2 + bx - (bx * HW // BM + q) * BM // HW) * HID
                                    + tx + THREADS * j]
        gx[j] = T.sqrt(gx[j])
        s[0] = s[0] + gx[j]
    s[0] = T.cuda.warp_sum(s[0], 32)
    if tx % 32 == 0:
        part[tx // 32] = s[0]
    T.cuda.cta_sync()
    s[1] = T.float32(0)
    for w in T.unroll(THREADS // 32):
        s[1] = s[1] + part[w]
    s[1] = s[1] / T.float32(HID) + eps
    for j in T.unroll(8):
        sc[bx * HID + tx + THREADS * j] = grn_gamma[tx + THREADS * j] * (gx[j] / s[1]) + T.float32(1)


# ---- 4. GEMM 2 on the GRN output + bias ----------------------------------------------------------------

@T.prim_func
def gemm2_grn(h_ptr: T.handle, w2_ptr: T.handle, b2_ptr: T.handle, sc_ptr: T.handle, grn_beta_ptr: T.handle,
              y_ptr: T.handle):
    h = T.match_buffer(h_ptr, (ROWS * HID,), "float32")
    w2 = T.match_buffer(w2_ptr, (DIM * HID,), "float32")
    b2 = T.match_buffer(b2_ptr, (DIM,), "float32")
    sc = T.match_buffer(sc_ptr, (BATCH * HID,), "float32")
    grn_beta = T.match_buffer(grn_beta_ptr, (HID,), "float32")
    y = T.match_buffer(y_ptr, (ROWS * DIM,), "float32")
    T.device_entry()
    bx = T.cta_id([MT * (DIM // BM)])                # row tile bx / 4, column tile bx % 4
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((64,), "float32", scope="local")
    tacc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "float32", scope="local")
    bf = T.alloc_buffer((8,), "float32", scope="local")
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    sv = T.alloc_buffer((4,), "float32", scope="local")
    bv = T.alloc_buffer((4,), "float32", scope="local")
    bias = T.alloc_buffer((8,), "float32", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    As = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    Bs = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
    gemm_nt(h, w2, HID, bx // 4 * BM, bx % 4 * BM, As, Bs, ra, rb, af, bf, acc, tacc, tx, True, sc, grn_beta, sv, bv)
    for hh in T.unroll(2):
        for e in T.vectorized(4):
            bias[hh * 4 + e] = b2[bx % 4 * BM + hh * 64 + tx % 16 * 4 + e]
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e] + bias[hh * 4 + e]
            for e in T.vectorized(4):
                y[(bx // 4 * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * DIM + bx % 4 * BM + hh * 64 + tx % 16 * 4
                  + e] = o[e]


MKB_PLAN = """/* mkb:plan
# rows = batch * height * width = 12544 = 98 row tiles of 128; 8 LayerNorm rows per CTA
scratch xn fp32[batch * height * width * dim]
scratch h fp32[batch * height * width * hidden]
scratch ssp fp32[(batch * height * width / 128) * 2 * hidden]
scratch sc fp32[batch * hidden]
launch ln_rows grid(batch * height * width / 8) block(256) args(x, ln_weight, ln_bias, xn, f32(ln_eps))
launch gemm1_gelu_grnsum grid((batch * height * width / 128) * (hidden / 128)) block(256)
  args(xn, w1, b1, h, ssp)
launch grn_scale grid(batch) block(256) args(ssp, grn_gamma, sc, f32(grn_eps))
launch gemm2_grn grid((batch * height * width / 128) * (dim / 128)) block(256)
  args(h, w2, b2, sc, grn_beta, y)
*/"""
