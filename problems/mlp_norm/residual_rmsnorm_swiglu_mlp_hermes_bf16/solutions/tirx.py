# Slower than the eager baseline by design (beats_baseline: false in spec.json): SM80-style mma.sync GEMMs
# without wgmma or warp specialisation reach about half of cuBLAS's rate on the 42.9 TFLOP of products
# (the same core measured 0.49x against eager on swiglu_mlp_backward_hermes_bf16). solutions/cuda.cu is
# the fast solution.
"""Residual add + RMSNorm + SwiGLU MLP (original #33: 8192 rows, hidden 16384, intermediate 53248) in TIRx,
with the rounding points of reference.md. Launches:
  1. add_rmsnorm: one 1024-thread CTA per row, 16 columns per thread (two 8-wide chunks):
     s = bf16(x + residual), n = bf16(w * bf16(s * rsqrt(mean(s^2) + eps))) into scratch n [T, H].
  2. gemm_tih: g = bf16(n . gate_weight^T), u = bf16(n . up_weight^T)       [T, I]
  3. swiglu: h = bf16(bf16(silu(g)) * u)                                     [T, I]
  4. gemm_thi: output = bf16(h . down_weight^T)                              [T, H]
GEMM core (from swiglu_mlp_backward_hermes_bf16's tirx.py): 128 x 128 output tile per 256-thread CTA,
8 warps of 64 x 32 (4 x 4 mma.sync.m16n8k16 bf16 -> fp32 tiles, T.ptx.mma), ldmatrix.x4 operands, K in
steps of 64 through a 3-slot cp.async.cg ring (96 KiB dynamic shared memory), 128-byte shared rows
XOR-swizzled by row % 8. Both operands K-contiguous, so nothing is transposed.
Every flat index stays below 2^31 (the largest tensor has 16384 x 53248 = 872M elements).
Compile-checked only (no GPU here).
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOK = 8192
HID = 16384
INT = 53248
NORM_THREADS = 1024
assert HID == 2 * NORM_THREADS * 8
assert HID * INT < 2 ** 31

# ---- GEMM core: C[128 x 128 tile] += A[rows, K] . B[cols, K]^T (both K-contiguous, bf16), fp32 accumulation ----
BM = 128
BN = 128
BK = 64                        # k per stage: 128-byte shared rows
STAGES = 3
THREADS = 256                  # 8 warps: 2 (M) x 4 (N), warp tile 64 x 32 = 4 x 4 mma tiles
A_EL = BM * BK                 # bf16 elements of a stage's A tile
ST_EL = (BM + BN) * BK         # elements per stage
SMEM_BYTES = STAGES * ST_EL * 2  # 98304


@T.macro
def mma_tile(sm, a_off, b_off, acc, af, bfr, lane):
    # One k tile of the warp's 64 x 32 product. a_off / b_off: element offsets of the warp's first A / B row in
    # shared memory (64-element rows; the 16-byte chunk c of row r is stored at chunk c ^ (r % 8)).
    for ks in T.unroll(BK // 16):
        for mi in T.unroll(4):
            # the four 8 x 8 matrices: rows 0-7 / 8-15 (lane % 16) x k chunk 2 ks + lane // 16
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3],
                sm.ptr_to([a_off + (mi * 16 + lane % 16) * BK + T.bitwise_xor(ks * 2 + lane // 16, lane % 8) * 8]))
        for nj in T.unroll(2):
            # B rows (n) 16 nj + 0-7 k lo, 0-7 k hi, 8-15 k lo, 8-15 k hi -> (b0, b1) of n tiles 2 nj, 2 nj + 1
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                bfr[nj * 4], bfr[nj * 4 + 1], bfr[nj * 4 + 2], bfr[nj * 4 + 3],
                sm.ptr_to([b_off + (nj * 16 + lane % 8 + lane // 16 * 8) * BK
                           + T.bitwise_xor(ks * 2 + lane // 8 % 2, lane % 8) * 8]))
        for mi in T.unroll(4):
            for ni in T.unroll(4):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[(mi * 4 + ni) * 4], acc[(mi * 4 + ni) * 4 + 1], acc[(mi * 4 + ni) * 4 + 2],
                    acc[(mi * 4 + ni) * 4 + 3],
                    af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3],
                    bfr[ni * 2], bfr[ni * 2 + 1],
                    acc[(mi * 4 + ni) * 4], acc[(mi * 4 + ni) * 4 + 1], acc[(mi * 4 + ni) * 4 + 2],
                    acc[(mi * 4 + ni) * 4 + 3])


@T.macro
def load_tile(sm, slot, a_buf, lda, a_row0, b_buf, ldb, b_row0, k0, tx):
    # cp.async of A rows a_row0 .. + 128 and B rows b_row0 .. + 128, k0 .. k0 + 64, into stage `slot`:
    # thread tx copies chunk tx % 8 of rows tx // 8 + 32 i.
    for i in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST_EL + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            a_buf.ptr_to([(a_row0 + tx // 8 + 32 * i) * lda + k0 + tx % 8 * 8]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST_EL + A_EL + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            b_buf.ptr_to([(b_row0 + tx // 8 + 32 * i) * ldb + k0 + tx % 8 * 8]), 16)


@T.macro
def gemm_mainloop(sm, acc, af, bfr, a_buf, lda, a_row0, b_buf, ldb, b_row0, k_begin, KT, tx):
    # acc (64 fp32 per thread, zeroed by the caller) += A[a_row0 .. + 128, k range] . B[b_row0 .. + 128, k range]^T, with
    # k range = k_begin .. k_begin + 64 KT. acc[(mi * 4 + ni) * 4 + e]: tile row 64 (w // 4) + 16 mi + lane // 4
    # + 8 (e // 2), tile column 32 (w % 4) + 8 ni + 2 (lane % 4) + e % 2, w = tx // 32.
    for s in T.unroll(STAGES - 1):
        load_tile(sm, s, a_buf, lda, a_row0, b_buf, ldb, b_row0, k_begin + s * BK, tx)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(KT):
        T.ptx.cp.async_.wait_group(STAGES - 2)
        T.cuda.cta_sync()
        if kt + STAGES - 1 < KT:
            load_tile(sm, (kt + STAGES - 1) % STAGES, a_buf, lda, a_row0, b_buf, ldb, b_row0,
                      k_begin + (kt + STAGES - 1) * BK, tx)
        T.ptx.cp.async_.commit_group()
        mma_tile(sm, kt % STAGES * ST_EL + tx // 128 * 64 * BK, kt % STAGES * ST_EL + A_EL + tx // 32 % 4 * 32 * BK,
                 acc, af, bfr, tx % 32)
    T.ptx.cp.async_.wait_group(0)
assert TOK % BM == 0 and HID % BM == 0 and INT % BM == 0 and HID % BK == 0 and INT % BK == 0 and INT % BN == 0


@T.prim_func
def add_rmsnorm(x_ptr: T.handle, residual_ptr: T.handle, weight_ptr: T.handle, n_ptr: T.handle, eps: T.float32):
    a_x = T.match_buffer(x_ptr, (TOK * HID,), "bfloat16")
    b_residual = T.match_buffer(residual_ptr, (TOK * HID,), "bfloat16")
    c_weight = T.match_buffer(weight_ptr, (HID,), "bfloat16")
    d_n = T.match_buffer(n_ptr, (TOK * HID,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOK])
    tx = T.thread_id([NORM_THREADS])
    xv = T.alloc_buffer((16,), "bfloat16", scope="local")
    rv = T.alloc_buffer((16,), "bfloat16", scope="local")
    wv = T.alloc_buffer((16,), "bfloat16", scope="local")
    ov = T.alloc_buffer((16,), "bfloat16", scope="local")
    sq = T.alloc_buffer((1,), "float32", scope="local")
    inv = T.alloc_buffer((1,), "float32", scope="local")
    parts = T.alloc_buffer((NORM_THREADS // 32,), "float32", scope="shared")
    for c in T.unroll(2):
        for k in T.vectorized(8):
            xv[c * 8 + k] = a_x[bx * HID + c * 8192 + tx * 8 + k]
        for k in T.vectorized(8):
            rv[c * 8 + k] = b_residual[bx * HID + c * 8192 + tx * 8 + k]
    sq[0] = T.float32(0)
    for k in T.unroll(16):
        rv[k] = T.Cast("bfloat16", T.Cast("float32", xv[k]) + T.Cast("float32", rv[k]))
        sq[0] = sq[0] + T.Cast("float32", rv[k]) * T.Cast("float32", rv[k])
    sq[0] = T.cuda.warp_sum(sq[0], 32)
    if tx % 32 == 0:
        parts[tx // 32] = sq[0]
    T.cuda.cta_sync()
    sq[0] = T.float32(0)
    for w in T.unroll(NORM_THREADS // 32):
        sq[0] = sq[0] + parts[w]
    inv[0] = T.rsqrt(sq[0] / T.float32(HID) + eps)
    for c in T.unroll(2):
        for k in T.vectorized(8):
            wv[c * 8 + k] = c_weight[c * 8192 + tx * 8 + k]
    for k in T.unroll(16):
        ov[k] = T.Cast("bfloat16", T.Cast("float32", wv[k])
                       * T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", rv[k]) * inv[0])))
    for c in T.unroll(2):
        for k in T.vectorized(8):
            d_n[bx * HID + c * 8192 + tx * 8 + k] = ov[c * 8 + k]


@T.macro
def store_tile(c_buf, ldc, row0, col0, acc, ov, tx):
    # c_buf[row0 + r, col0 + c] = bf16(acc) for the CTA's 128 x 128 tile (pairs of columns as one 4-byte store)
    for mi in T.unroll(4):
        for ni in T.unroll(4):
            for eh in T.unroll(2):
                for e in T.unroll(2):
                    ov[e] = T.Cast("bfloat16", acc[(mi * 4 + ni) * 4 + eh * 2 + e])
                for e in T.vectorized(2):
                    c_buf[(row0 + tx // 128 * 64 + mi * 16 + tx % 32 // 4 + eh * 8) * ldc
                          + col0 + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e] = ov[e]


@T.prim_func
def gemm_tih(a_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle):
    # C [8192, 53248] = bf16(A [8192, 16384] . B [53248, 16384]^T)
    a_A = T.match_buffer(a_ptr, (TOK * HID,), "bfloat16")
    b_B = T.match_buffer(b_ptr, (INT * HID,), "bfloat16")
    c_C = T.match_buffer(c_ptr, (TOK * INT,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([INT // BN, TOK // BM])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    for i in T.unroll(64):
        acc[i] = T.float32(0)
    gemm_mainloop(sm, acc, af, bfr, a_A, HID, by * BM, b_B, HID, bx * BN, 0, HID // BK, tx)
    store_tile(c_C, INT, by * BM, bx * BN, acc, ov, tx)


@T.prim_func
def gemm_thi(a_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle):
    # C [8192, 16384] = bf16(A [8192, 53248] . B [16384, 53248]^T)
    a_A = T.match_buffer(a_ptr, (TOK * INT,), "bfloat16")
    b_B = T.match_buffer(b_ptr, (HID * INT,), "bfloat16")
    c_C = T.match_buffer(c_ptr, (TOK * HID,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([HID // BN, TOK // BM])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    for i in T.unroll(64):
        acc[i] = T.float32(0)
    gemm_mainloop(sm, acc, af, bfr, a_A, INT, by * BM, b_B, INT, bx * BN, 0, INT // BK, tx)
    store_tile(c_C, HID, by * BM, bx * BN, acc, ov, tx)


@T.prim_func
def swiglu(g_ptr: T.handle, u_ptr: T.handle, h_ptr: T.handle):
    a_g = T.match_buffer(g_ptr, (TOK * INT,), "bfloat16")
    b_u = T.match_buffer(u_ptr, (TOK * INT,), "bfloat16")
    c_h = T.match_buffer(h_ptr, (TOK * INT,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOK * INT // 2048])
    tx = T.thread_id([256])
    gv = T.alloc_buffer((8,), "bfloat16", scope="local")
    uv = T.alloc_buffer((8,), "bfloat16", scope="local")
    hv = T.alloc_buffer((8,), "bfloat16", scope="local")
    f = T.alloc_buffer((1,), "float32", scope="local")
    for k in T.vectorized(8):
        gv[k] = a_g[bx * 2048 + tx * 8 + k]
    for k in T.vectorized(8):
        uv[k] = b_u[bx * 2048 + tx * 8 + k]
    for k in T.unroll(8):
        f[0] = T.Cast("float32", gv[k])
        hv[k] = T.Cast("bfloat16", T.Cast("float32", T.Cast("bfloat16", f[0] / (T.float32(1) + T.call_pure_extern(
            "float32", "expf", T.float32(0) - f[0])))) * T.Cast("float32", uv[k]))
    for k in T.vectorized(8):
        c_h[bx * 2048 + tx * 8 + k] = hv[k]


MKB_PLAN = """/* mkb:plan
scratch n bf16[batch_size * seq_len * hidden_size]
scratch g bf16[batch_size * seq_len * intermediate_size]
scratch u bf16[batch_size * seq_len * intermediate_size]
scratch h bf16[batch_size * seq_len * intermediate_size]
launch add_rmsnorm grid(batch_size * seq_len) block(1024) args(hidden_states, residual, norm_weight, n, f32(eps))
launch gemm_tih grid(intermediate_size / 128, batch_size * seq_len / 128) block(256) shared(98304) args(n, gate_weight, g)
launch gemm_tih grid(intermediate_size / 128, batch_size * seq_len / 128) block(256) shared(98304) args(n, up_weight, u)
launch swiglu grid(batch_size * seq_len * intermediate_size / 2048) block(256) args(g, u, h)
launch gemm_thi grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(98304) args(h, down_weight, output)
*/"""
