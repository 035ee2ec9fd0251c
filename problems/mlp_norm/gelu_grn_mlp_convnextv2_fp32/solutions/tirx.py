"""ConvNeXt V2 MLP (original #30, reconstructed: Linear C->4C -> GELU -> GRN -> Linear 4C->C) in TIRx, fp32
accuracy with plain fp32 FMA GEMMs (no TF32), three launches, the algorithm of solutions/cuda.cu with a SIMT
GEMM core:
  1. gemm1_gelu_grnsum: x @ w1^T (fp32 FFMA), epilogue adds b1, applies the exact GELU
     0.5 v (1 + erf(v / sqrt 2)), stores h and writes the GRN's per-(row tile, image, channel) partial sums
     of squares (a 128-row tile spans at most two images of 3136 rows: one partial for each, reduced over
     the tile's rows in shared memory; deterministic, no atomics).
  2. grn_scale: per image, sums of squares = the partials of the (up to 26) row tiles that hold its rows,
     Gx = sqrt(.), den = mean_j Gx + eps, sc = gamma * (Gx / den) + 1.
  3. gemm2_grn: (h * sc + beta) @ w2^T + b2 (fp32 FFMA); the GRN affine is applied to every A element as
     it is staged in registers, so the GRN output never goes to memory (g = h * (gamma * Nx + 1) + beta:
     a few fp32 ulps from eager's four-step rounding, which reference.md allows).
GEMM core (both GEMMs, operands K-contiguous: x @ W^T): 128 x 128 block tile, K tile 16, 256 threads,
each a register-tiled 8 x 8 block: rows 64 h + 4 (t / 16) + i, columns 64 h' + 4 (t % 16) + j (h, h', i,
j < 2, 2, 4, 4); shared tiles are stored K-major-transposed ([k][128 + 4 pad]) and double-buffered; the next
K tile is loaded into registers (16-byte loads) while the current one is multiplied, one barrier per tile.
Each K tile's 16-term products are summed from zero and then added to the running fp32 sums (blocked
summation, as cuda.cu's per-tile partials).
Status: compile-checked only in this form; the earlier ConvNeXt version of this file (same GEMM core, with a
LayerNorm launch, 14 x 14 images, dim 512) ran on the H200 and passed.
Expected speed: FFMA GEMMs (K = 128 and 512), well below cuda.cu's 3xTF32 tensor-core GEMMs, but the eager
baseline also makes nine memory passes over the 411 MB intermediate, which this fusion removes; expected to
beat it, not measured.
Shapes are fixed: rows = 64 * 56 * 56 = 200704 = 1568 * 128, dim = 128, hidden = 512."""
from tvm.script import tirx as T

BATCH = 64
HW = 56 * 56
ROWS = BATCH * HW             # 200704
DIM = 128
HID = 512

BM = 128                      # block tile (rows and columns)
BK = 16                       # K tile
LDS = BM + 4                  # padded row of a transposed shared tile
TILE = BK * LDS               # floats per shared tile buffer
THREADS = 256
MT = ROWS // BM               # 1568 row tiles
GPER = HID // THREADS         # channels per grn_scale thread
QT = (HW + BM - 1) // BM + 1  # most row tiles one image's rows touch

assert ROWS % BM == 0 and HID % BM == 0 and DIM % BM == 0 and DIM % BK == 0 and HID % BK == 0
assert BM <= HW and 2 * 16 * BM <= 2 * TILE and HID % THREADS == 0


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


# ---- 1. GEMM 1 + bias + GELU + GRN partial sums of squares ----------------------------------------------

@T.prim_func
def gemm1_gelu_grnsum(x_ptr: T.handle, w1_ptr: T.handle, b1_ptr: T.handle, h_ptr: T.handle, ssp_ptr: T.handle):
    x = T.match_buffer(x_ptr, (ROWS * DIM,), "float32")
    w1 = T.match_buffer(w1_ptr, (HID * DIM,), "float32")
    b1 = T.match_buffer(b1_ptr, (HID,), "float32")
    h = T.match_buffer(h_ptr, (ROWS * HID,), "float32")
    ssp = T.match_buffer(ssp_ptr, (MT * 2 * HID,), "float32")   # [row tile][image img0, img0 + 1][channel]
    T.device_entry()
    bx = T.cta_id([MT * (HID // BM)])                # row tile bx / 16, column tile bx % (HID // BM)
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
    gemm_nt(x, w1, DIM, bx // (HID // BM) * BM, bx % (HID // BM) * BM, As, Bs, ra, rb, af, bf, acc, tacc, tx, False, None, None, None,
            None)
    # epilogue: thread rows bx / 4 * 128 + 64 (i / 4) + 4 (tx / 16) + i % 4, columns 64 hh + 4 (tx % 16) + e
    for hh in T.unroll(2):
        for e in T.vectorized(4):
            bias[hh * 4 + e] = b1[bx % (HID // BM) * BM + hh * 64 + tx % 16 * 4 + e]
    for j in T.unroll(8):
        slo[j] = T.float32(0)
        shi[j] = T.float32(0)
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e] + bias[hh * 4 + e]
                o[e] = T.float32(0.5) * o[e] * (T.float32(1) + T.erf(o[e] * T.float32(0.70710678118654752)))
                # the row belongs to image img0 = row0 / 3136 or to img0 + 1
                if bx // (HID // BM) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < (bx // (HID // BM) * BM // HW + 1) * HW:
                    slo[hh * 4 + e] = slo[hh * 4 + e] + o[e] * o[e]
                else:
                    shi[hh * 4 + e] = shi[hh * 4 + e] + o[e] * o[e]
            for e in T.vectorized(4):
                h[(bx // (HID // BM) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HID + bx % (HID // BM) * BM + hh * 64 + tx % 16 * 4
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
    ssp[(bx // (HID // BM) * 2 + tx // 128) * HID + bx % (HID // BM) * BM + tx % 128] = red[0]


# ---- 2. GRN scale per (image, channel) -----------------------------------------------------------------

@T.prim_func
def grn_scale(ssp_ptr: T.handle, grn_gamma_ptr: T.handle, sc_ptr: T.handle, eps: T.float32):
    ssp = T.match_buffer(ssp_ptr, (MT * 2 * HID,), "float32")
    grn_gamma = T.match_buffer(grn_gamma_ptr, (HID,), "float32")
    sc = T.match_buffer(sc_ptr, (BATCH * HID,), "float32")
    T.device_entry()
    bx = T.cta_id([BATCH])
    tx = T.thread_id([THREADS])
    gx = T.alloc_buffer((GPER,), "float32", scope="local")
    s = T.alloc_buffer((2,), "float32", scope="local")
    part = T.alloc_buffer((THREADS // 32,), "float32", scope="shared")
    # image bx has rows HW bx .. HW bx + HW - 1: row tiles q0 = HW bx / 128 .. (HW bx + HW - 1) / 128 (at most QT);
    # in row tile mt its partial is half bx - (128 mt) / HW (0 or 1)
    s[0] = T.float32(0)
    for j in T.unroll(GPER):
        gx[j] = T.float32(0)
        for q in T.serial(QT):
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
    for j in T.unroll(GPER):
        sc[bx * HID + tx + THREADS * j] = grn_gamma[tx + THREADS * j] * (gx[j] / s[1]) + T.float32(1)


# ---- 3. GEMM 2 on the GRN output + bias ----------------------------------------------------------------

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
    bx = T.cta_id([MT * (DIM // BM)])                # row tile bx / 4, column tile bx % (DIM // BM)
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
    gemm_nt(h, w2, HID, bx // (DIM // BM) * BM, bx % (DIM // BM) * BM, As, Bs, ra, rb, af, bf, acc, tacc, tx, True, sc, grn_beta, sv, bv)
    for hh in T.unroll(2):
        for e in T.vectorized(4):
            bias[hh * 4 + e] = b2[bx % (DIM // BM) * BM + hh * 64 + tx % 16 * 4 + e]
    for i in T.unroll(8):
        for hh in T.unroll(2):
            for e in T.unroll(4):
                o[e] = acc[i * 8 + hh * 4 + e] + bias[hh * 4 + e]
            for e in T.vectorized(4):
                y[(bx // (DIM // BM) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * DIM + bx % (DIM // BM) * BM + hh * 64 + tx % 16 * 4
                  + e] = o[e]


MKB_PLAN = """/* mkb:plan
# rows = batch_size * height * width = 200704 = 1568 row tiles of 128
scratch h fp32[batch_size * height * width * hidden_dim]
scratch ssp fp32[(batch_size * height * width / 128) * 2 * hidden_dim]
scratch sc fp32[batch_size * hidden_dim]
launch gemm1_gelu_grnsum grid((batch_size * height * width / 128) * (hidden_dim / 128)) block(256)
  args(x, w1, b1, h, ssp)
launch grn_scale grid(batch_size) block(256) args(ssp, gamma, sc, f32(eps))
launch gemm2_grn grid((batch_size * height * width / 128) * (dim / 128)) block(256)
  args(h, w2, b2, sc, beta, y)
*/"""
