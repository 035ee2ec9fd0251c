# Measured on an H200 (2026-12-03) at the previous shapes (2048 x 3072 x 12288): 16126 us against the eager
# baseline's 12574 us (0.78x). Kept to show the DSL, and declared in spec.json as slower than the baseline
# (beats_baseline: false): a SIMT fp32 FMA GEMM does not beat cuBLAS's SGEMM, and a 3xTF32 tensor-core path
# is not written in this port. solutions/cuda.cu is the fast solution.
"""MetaKernelBench #37 (reconstructed: spec.json's notes), the tanh-GELU MLP backward in TIRx, fp32 accuracy
with plain fp32 FMA GEMMs (no TF32; register-tiled SIMT), the algorithm of solutions/cuda.cu with
deterministic bias-gradient sums. Notation: dy = grad_output, x = hidden_states, p = fc1_output,
act = gelu_output (as [T, features], T = batch_size * seq_len = 8192), w1 = fc1_weight, w2 = fc2_weight:
  1. colsum_dy:  db2 = sum_t dy (float64 accumulation, 8 row lanes x 32 columns per CTA, rounded once).
  2. bwd_dh:     da = dy W2 (M = T, N = intermediate, K = hidden; never stored); epilogue: th = tanhf(k (v + c v^3))
                 with v = p and dh = da * (0.5 (1 + th) + 0.5 v (1 - th^2) k (1 + 3 c v^2)) stored (scratch),
                 plus the column sums of dh over the CTA's 128 rows (fp32 over each thread's 8 rows, then the
                 16 thread partials in float64) into dbp[T / 128, intermediate] (float64 scratch).
  3. colsum_db1: db1 = sum of dbp's 64 rows (float64, rounded once).
  4. bwd_dw2:    dW2 = dy^T act (M = hidden, N = intermediate, K = T).
  5. bwd_dw1:    dW1 = dh^T x  (M = intermediate, N = hidden, K = T).
  6. bwd_dx:     dx = dh W1    (M = T, N = hidden, K = intermediate).
GEMM core (one T.macro, operand layouts as Python flags): 128 x 128 output tile per 256-thread CTA, K tiles of
16; each thread owns an 8 x 8 block (rows 64 * (i / 4) + 4 * (tid / 16) + i % 4, columns
64 * (j / 4) + 4 * (tid % 16) + j % 4) in fp32 FMA with blocked summation: each K tile's 16 products are summed
from zero into a partial (tacc) that is then added to the running fp32 sum (as cuda.cu's per-tile partials; a
single FMA chain over K = 12288 failed dx's allowance on the H200 by 4%, 1 element of 6.3M).
Operand tiles live in shared memory as [k][m] / [k][n] (row stride 132 floats): a K-contiguous operand is
loaded as float4 along K and stored transposed, an M/N-contiguous one is loaded and stored as float4 rows.
Double-buffered: the next tile's global loads are in flight while the current one is multiplied, one barrier
per tile. Shapes are fixed: T = 8192, hidden = 2048, intermediate = 8192 (all multiples of 128).
Compile-checked only at these shapes. GEMM kernels: __launch_bounds__(256, 1): one CTA per SM.
Expected speed: SIMT fp32, roughly at or somewhat below the eager cuBLAS SGEMM baseline, several times slower
than solutions/cuda.cu's 3xTF32 tensor-core GEMMs."""
from tvm.script import tirx as T

TOKENS = 64 * 128   # batch_size * seq_len
HIDDEN = 2048
FFN = 8192          # intermediate_size

BM = 128            # tile rows (M)
BN = 128            # tile columns (N)
BK = 16             # K tile
LDS = 132           # row stride (floats) of a [k][m] / [k][n] shared tile
TILE = BK * LDS     # floats per shared tile buffer
THREADS = 256
GELU_K = 0.7978845608028654   # sqrt(2 / pi)
GELU_C = 0.044715

assert TOKENS % BM == 0 and FFN % BN == 0 and HIDDEN % BN == 0
assert TOKENS % BK == 0 and HIDDEN % BK == 0 and FFN % BK == 0
assert BM * BK // 4 == 2 * THREADS and BN * BK // 4 == 2 * THREADS and BM // 8 * BN <= TILE


@T.macro
def gemm(A, B, acc, tacc, a_s, b_s, ra, rb, af, bf, m0, n0, tx, KDIM, LDA, LDB, A_K, B_K):
    # acc[i * 8 + j] = sum_k A(m0 + row_i, k) * B(k, n0 + col_j) for k < KDIM (each K tile of 16 summed from
    # zero into tacc, then added to acc), where
    #   A(m, k) = A[m * LDA + k] if A_K (K-contiguous) else A[k * LDA + m],
    #   B(k, n) = B[n * LDB + k] if B_K (K-contiguous) else B[k * LDB + n].
    # Staging of a K tile, 2 float4 per operand per thread (p = 0, 1):
    #   K-contiguous: row 64 p + tx / 4, k 4 (tx % 4) .. + 4 -> shared [k][row] (4 scalar stores)
    #   M/N-contiguous: k 8 p + tx / 32, rows 4 (tx % 32) .. + 4 -> shared [k][row] (one float4 store)
    for e in T.unroll(64):
        acc[e] = T.float32(0)
    for p in T.unroll(2):
        if A_K:
            for e in T.vectorized(4):
                ra[p * 4 + e] = A[(m0 + p * 64 + tx // 4) * LDA + tx % 4 * 4 + e]
        else:
            for e in T.vectorized(4):
                ra[p * 4 + e] = A[(p * 8 + tx // 32) * LDA + m0 + tx % 32 * 4 + e]
        if B_K:
            for e in T.vectorized(4):
                rb[p * 4 + e] = B[(n0 + p * 64 + tx // 4) * LDB + tx % 4 * 4 + e]
        else:
            for e in T.vectorized(4):
                rb[p * 4 + e] = B[(p * 8 + tx // 32) * LDB + n0 + tx % 32 * 4 + e]
    for p in T.unroll(2):
        if A_K:
            for e in T.unroll(4):
                a_s[(tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = ra[p * 4 + e]
        else:
            for e in T.vectorized(4):
                a_s[(p * 8 + tx // 32) * LDS + tx % 32 * 4 + e] = ra[p * 4 + e]
        if B_K:
            for e in T.unroll(4):
                b_s[(tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = rb[p * 4 + e]
        else:
            for e in T.vectorized(4):
                b_s[(p * 8 + tx // 32) * LDS + tx % 32 * 4 + e] = rb[p * 4 + e]
    T.cuda.cta_sync()
    for kt in T.serial(KDIM // BK):
        # K tile kt + 1 -> registers (in flight during this tile's products)
        if kt + 1 < KDIM // BK:
            for p in T.unroll(2):
                if A_K:
                    for e in T.vectorized(4):
                        ra[p * 4 + e] = A[(m0 + p * 64 + tx // 4) * LDA + (kt + 1) * BK + tx % 4 * 4 + e]
                else:
                    for e in T.vectorized(4):
                        ra[p * 4 + e] = A[((kt + 1) * BK + p * 8 + tx // 32) * LDA + m0 + tx % 32 * 4 + e]
                if B_K:
                    for e in T.vectorized(4):
                        rb[p * 4 + e] = B[(n0 + p * 64 + tx // 4) * LDB + (kt + 1) * BK + tx % 4 * 4 + e]
                else:
                    for e in T.vectorized(4):
                        rb[p * 4 + e] = B[((kt + 1) * BK + p * 8 + tx // 32) * LDB + n0 + tx % 32 * 4 + e]
        # products of K tile kt (buffer kt % 2)
        for e in T.unroll(64):
            tacc[e] = T.float32(0)
        for kk in T.unroll(BK):
            for h in T.unroll(2):
                for e in T.vectorized(4):
                    af[h * 4 + e] = a_s[kt % 2 * TILE + kk * LDS + h * 64 + tx // 16 * 4 + e]
                for e in T.vectorized(4):
                    bf[h * 4 + e] = b_s[kt % 2 * TILE + kk * LDS + h * 64 + tx % 16 * 4 + e]
            for i in T.unroll(8):
                for j in T.unroll(8):
                    tacc[i * 8 + j] = tacc[i * 8 + j] + af[i] * bf[j]
        # blocked summation: the tile's 16-term partial is added to the running fp32 sums once per tile
        for e in T.unroll(64):
            acc[e] = acc[e] + tacc[e]
        # registers -> buffer (kt + 1) % 2 (every thread finished tile kt - 1: the barrier below)
        if kt + 1 < KDIM // BK:
            for p in T.unroll(2):
                if A_K:
                    for e in T.unroll(4):
                        a_s[(kt + 1) % 2 * TILE + (tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = ra[p * 4 + e]
                else:
                    for e in T.vectorized(4):
                        a_s[(kt + 1) % 2 * TILE + (p * 8 + tx // 32) * LDS + tx % 32 * 4 + e] = ra[p * 4 + e]
                if B_K:
                    for e in T.unroll(4):
                        b_s[(kt + 1) % 2 * TILE + (tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = rb[p * 4 + e]
                else:
                    for e in T.vectorized(4):
                        b_s[(kt + 1) % 2 * TILE + (p * 8 + tx // 32) * LDS + tx % 32 * 4 + e] = rb[p * 4 + e]
        T.cuda.cta_sync()


@T.macro
def store_tile(C, acc, res, m0, n0, tx, LDC):
    # C[(m0 + row_i) * LDC + n0 + col_j] = acc[i * 8 + j], float4 stores
    for i in T.unroll(8):
        for h in T.unroll(2):
            for e in T.unroll(4):
                res[e] = acc[i * 8 + h * 4 + e]
            for e in T.vectorized(4):
                C[(m0 + i // 4 * 64 + tx // 16 * 4 + i % 4) * LDC + n0 + h * 64 + tx % 16 * 4 + e] = res[e]


@T.prim_func
def colsum_dy(dy_ptr: T.handle, db2_ptr: T.handle):
    # db2[c] = sum_t dy[t, c]: CTA bx has columns 32 bx + lane; warp w sums rows w, w + 8, ... in float64
    a_dy = T.match_buffer(dy_ptr, (TOKENS * HIDDEN,), "float32")
    b_db2 = T.match_buffer(db2_ptr, (HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([HIDDEN // 32])
    tx = T.thread_id([THREADS])
    s = T.alloc_buffer((1,), "float64", scope="local")
    parts = T.alloc_buffer((THREADS,), "float64", scope="shared")
    s[0] = T.float64(0)
    for r in T.serial(TOKENS // 64):
        for u in T.unroll(8):
            s[0] = s[0] + T.Cast("float64", a_dy[((r * 8 + u) * 8 + tx // 32) * HIDDEN + bx * 32 + tx % 32])
    parts[tx] = s[0]
    T.cuda.cta_sync()
    if tx < 32:
        s[0] = T.float64(0)
        for w in T.unroll(8):
            s[0] = s[0] + parts[w * 32 + tx]
        b_db2[bx * 32 + tx] = T.Cast("float32", s[0])


@T.prim_func
def bwd_dh(dy_ptr: T.handle, w2_ptr: T.handle, p_ptr: T.handle, dh_ptr: T.handle, dbp_ptr: T.handle):
    a_dy = T.match_buffer(dy_ptr, (TOKENS * HIDDEN,), "float32")
    b_w2 = T.match_buffer(w2_ptr, (HIDDEN * FFN,), "float32")
    c_h = T.match_buffer(p_ptr, (TOKENS * FFN,), "float32")
    e_dh = T.match_buffer(dh_ptr, (TOKENS * FFN,), "float32")
    f_dbp = T.match_buffer(dbp_ptr, ((TOKENS // BM) * FFN,), "float64")
    T.device_entry()
    bx = T.cta_id([(TOKENS // BM) * (FFN // BN)])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1): acc + tacc = 128 regs
        acc = T.alloc_buffer((64,), "float32", scope="local")
        tacc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((8,), "float32", scope="local")
        rb = T.alloc_buffer((8,), "float32", scope="local")
        hv = T.alloc_buffer((4,), "float32", scope="local")
        dv = T.alloc_buffer((4,), "float32", scope="local")
        th = T.alloc_buffer((1,), "float32", scope="local")
        cs = T.alloc_buffer((8,), "float32", scope="local")
        s = T.alloc_buffer((1,), "float64", scope="local")
        a_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        # CTA bx: M tile bx / 64 (rows), N tile bx % 64 (intermediate); dy K-contiguous, w2 N-contiguous
        gemm(a_dy, b_w2, acc, tacc, a_s, b_s, ra, rb, af, bf, bx // (FFN // BN) * BM, bx % (FFN // BN) * BN, tx,
             HIDDEN, HIDDEN, FFN, True, False)
        for e in T.unroll(8):
            cs[e] = T.float32(0)
        for i in T.unroll(8):
            for h in T.unroll(2):
                for e in T.vectorized(4):
                    hv[e] = c_h[(bx // (FFN // BN) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * FFN
                                + bx % (FFN // BN) * BN + h * 64 + tx % 16 * 4 + e]
                for e in T.unroll(4):
                    th[0] = T.tanh(T.float32(GELU_K) * (hv[e] + T.float32(GELU_C) * (hv[e] * hv[e] * hv[e])))
                    dv[e] = acc[i * 8 + h * 4 + e] * (
                        T.float32(0.5) * (T.float32(1) + th[0])
                        + T.float32(0.5) * hv[e] * (T.float32(1) - th[0] * th[0])
                        * (T.float32(GELU_K) * (T.float32(1) + T.float32(3 * GELU_C) * (hv[e] * hv[e]))))
                    cs[h * 4 + e] = cs[h * 4 + e] + dv[e]
                for e in T.vectorized(4):
                    e_dh[(bx // (FFN // BN) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * FFN
                         + bx % (FFN // BN) * BN + h * 64 + tx % 16 * 4 + e] = dv[e]
        # column sums over the tile's 128 rows: thread (r = tx / 16, c = tx % 16) holds 8 rows of columns
        # 64 h + 4 c + e; a_s is free (the GEMM ended with a barrier) and holds part[r][column]
        for h in T.unroll(2):
            for e in T.vectorized(4):
                a_s[tx // 16 * BN + h * 64 + tx % 16 * 4 + e] = cs[h * 4 + e]
        T.cuda.cta_sync()
        if tx < BN:
            s[0] = T.float64(0)
            for r in T.unroll(16):
                s[0] = s[0] + T.Cast("float64", a_s[r * BN + tx])
            f_dbp[bx // (FFN // BN) * FFN + bx % (FFN // BN) * BN + tx] = s[0]


@T.prim_func
def colsum_db1(dbp_ptr: T.handle, db1_ptr: T.handle):
    # db1[j] = sum over the 64 M tiles of dbp[m, j] (float64), rounded once
    a_dbp = T.match_buffer(dbp_ptr, ((TOKENS // BM) * FFN,), "float64")
    b_db1 = T.match_buffer(db1_ptr, (FFN,), "float32")
    T.device_entry()
    bx = T.cta_id([FFN // THREADS])
    tx = T.thread_id([THREADS])
    s = T.alloc_buffer((1,), "float64", scope="local")
    s[0] = T.float64(0)
    for m in T.unroll(TOKENS // BM):
        s[0] = s[0] + a_dbp[m * FFN + bx * THREADS + tx]
    b_db1[bx * THREADS + tx] = T.Cast("float32", s[0])


@T.prim_func
def bwd_dw2(dy_ptr: T.handle, act_ptr: T.handle, dw2_ptr: T.handle):
    # dW2 = dy^T a: M = hidden, N = ffn, K = tokens; dy [tokens, hidden] M-contiguous, a [tokens, ffn] N-contiguous
    a_dy = T.match_buffer(dy_ptr, (TOKENS * HIDDEN,), "float32")
    b_act = T.match_buffer(act_ptr, (TOKENS * FFN,), "float32")
    c_dw2 = T.match_buffer(dw2_ptr, (HIDDEN * FFN,), "float32")
    T.device_entry()
    bx = T.cta_id([(HIDDEN // BM) * (FFN // BN)])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1): acc + tacc = 128 regs
        acc = T.alloc_buffer((64,), "float32", scope="local")
        tacc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((8,), "float32", scope="local")
        rb = T.alloc_buffer((8,), "float32", scope="local")
        res = T.alloc_buffer((4,), "float32", scope="local")
        a_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        gemm(a_dy, b_act, acc, tacc, a_s, b_s, ra, rb, af, bf, bx // (FFN // BN) * BM, bx % (FFN // BN) * BN, tx,
             TOKENS, HIDDEN, FFN, False, False)
        store_tile(c_dw2, acc, res, bx // (FFN // BN) * BM, bx % (FFN // BN) * BN, tx, FFN)


@T.prim_func
def bwd_dw1(dh_ptr: T.handle, x_ptr: T.handle, dw1_ptr: T.handle):
    # dW1 = dh^T x: M = ffn, N = hidden, K = tokens; dh [tokens, ffn] M-contiguous, x [tokens, hidden] N-contiguous
    a_dh = T.match_buffer(dh_ptr, (TOKENS * FFN,), "float32")
    b_x = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "float32")
    c_dw1 = T.match_buffer(dw1_ptr, (FFN * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([(FFN // BM) * (HIDDEN // BN)])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1): acc + tacc = 128 regs
        acc = T.alloc_buffer((64,), "float32", scope="local")
        tacc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((8,), "float32", scope="local")
        rb = T.alloc_buffer((8,), "float32", scope="local")
        res = T.alloc_buffer((4,), "float32", scope="local")
        a_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        gemm(a_dh, b_x, acc, tacc, a_s, b_s, ra, rb, af, bf, bx // (HIDDEN // BN) * BM, bx % (HIDDEN // BN) * BN, tx,
             TOKENS, FFN, HIDDEN, False, False)
        store_tile(c_dw1, acc, res, bx // (HIDDEN // BN) * BM, bx % (HIDDEN // BN) * BN, tx, HIDDEN)


@T.prim_func
def bwd_dx(dh_ptr: T.handle, w1_ptr: T.handle, dx_ptr: T.handle):
    # dx = dh W1: M = tokens, N = hidden, K = ffn; dh [tokens, ffn] K-contiguous, w1 [ffn, hidden] N-contiguous
    a_dh = T.match_buffer(dh_ptr, (TOKENS * FFN,), "float32")
    b_w1 = T.match_buffer(w1_ptr, (FFN * HIDDEN,), "float32")
    c_dx = T.match_buffer(dx_ptr, (TOKENS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([(TOKENS // BM) * (HIDDEN // BN)])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1): acc + tacc = 128 regs
        acc = T.alloc_buffer((64,), "float32", scope="local")
        tacc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((8,), "float32", scope="local")
        rb = T.alloc_buffer((8,), "float32", scope="local")
        res = T.alloc_buffer((4,), "float32", scope="local")
        a_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        gemm(a_dh, b_w1, acc, tacc, a_s, b_s, ra, rb, af, bf, bx // (HIDDEN // BN) * BM, bx % (HIDDEN // BN) * BN, tx,
             FFN, FFN, HIDDEN, True, False)
        store_tile(c_dx, acc, res, bx // (HIDDEN // BN) * BM, bx % (HIDDEN // BN) * BN, tx, HIDDEN)


MKB_PLAN = """/* mkb:plan
scratch dh fp32[batch_size * seq_len * intermediate_size]
scratch dbp fp64[(batch_size * seq_len / 128) * intermediate_size]
launch colsum_dy grid(hidden_size / 32) block(256) args(grad_output, grad_fc2_bias)
launch bwd_dh grid((batch_size * seq_len / 128) * (intermediate_size / 128)) block(256)
  args(grad_output, fc2_weight, fc1_output, dh, dbp)
launch colsum_db1 grid(intermediate_size / 256) block(256) args(dbp, grad_fc1_bias)
launch bwd_dw2 grid((hidden_size / 128) * (intermediate_size / 128)) block(256) args(grad_output, gelu_output, grad_fc2_weight)
launch bwd_dw1 grid((intermediate_size / 128) * (hidden_size / 128)) block(256) args(dh, hidden_states, grad_fc1_weight)
launch bwd_dx grid((batch_size * seq_len / 128) * (hidden_size / 128)) block(256) args(dh, fc1_weight, grad_hidden_states)
*/"""
