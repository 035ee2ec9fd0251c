# Measured on an H200 (2026-12-02) at the earlier, smaller shapes: 0.74x of the eager baseline. Kept to show
# the DSL, and declared in spec.json as slower than the baseline (beats_baseline: false): mma.sync GEMMs
# run at about three quarters of the baseline's cuBLAS wgmma GEMMs, more than the fusion saves.
# solutions/cuda.cu is the fast solution.
"""Qwen3-Omni vision patch merger (original #27: LayerNorm -> 2x2 spatial merge -> fc1 + GELU -> fc2) in TIRx,
the algorithm of solutions/cuda.cu with mma.sync tensor cores instead of wgmma, three launches:
  1. layernorm_rows: one warp per 1536-wide patch row (8 rows per 256-thread CTA), two-pass fp32
     statistics (mean, then mean of squared deviations), n = bf16((x - mu) * rstd * w + b), written to its
     merged position (the invariant: every grid is 1 x 64 x 64): patch p goes to merged row
     1024 (p / 4096) + 32 (p % 4096 / 128) + p % 64 / 2, column block 2 (p / 64 % 2) + p % 2 of [8192, 6144].
  2. fc1_gelu: g = bf16(gelu(bf16(n @ W1^T + b1)))   (8192 x 6144 x 6144), exact erf GELU in fp32.
  3. fc2_bias: out = bf16(g @ W2^T + b2)              (8192 x 3584 x 6144).
GEMM core (both products): 128 x 128 output tile per 256-thread CTA, 8 warps of 64 x 32 (4 x 4
mma.sync.m16n8k16 bf16 -> fp32 tiles, T.ptx.mma), operands from shared memory with ldmatrix.x4, K in
steps of 64 through a 3-slot cp.async.cg ring (96 KiB of dynamic shared memory, 2 CTAs per SM); shared rows
are 128 bytes with the 16-byte chunk index XOR-swizzled by row % 8 (conflict-free cp.async and ldmatrix).
The epilogue adds the bias and rounds in registers. Tiles: 8192 = 64 * 128, 6144 = 48 * 128 = 96 * 64,
3584 = 28 * 128.
Compile-checked only (no GPU was available to the author); the ldmatrix / mma lane maps and the tile
indexing were checked with a numpy emulation. Expected speed: below solutions/cuda.cu (mma.sync without
warp specialization vs. its wgmma pipeline), roughly 0.5-0.7x of it.
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

MERGED = 8192
HIDDEN = 1536
MH = 6144                     # merged_hidden: fc1 in / out, fc2 in
OUT = 3584
PATCHES = 4 * MERGED
LN_CHUNKS = HIDDEN // 8       # 192 16-byte chunks per patch row
LN_PER_LANE = (LN_CHUNKS + 31) // 32  # 6

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
    # acc (64 fp32 per thread) += A[a_row0 .. + 128, k range] . B[b_row0 .. + 128, k range]^T, with
    # k range = k_begin .. k_begin + 64 KT. acc[(mi * 4 + ni) * 4 + e]: tile row 64 (w // 4) + 16 mi + lane // 4
    # + 8 (e // 2), tile column 32 (w % 4) + 8 ni + 2 (lane % 4) + e % 2, w = tx // 32.
    for i in T.unroll(64):
        acc[i] = T.float32(0)
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
# ---- end of the GEMM core ----
assert MERGED % BM == 0 and MH % BN == 0 and OUT % BN == 0 and MH % BK == 0 and SMEM_BYTES == 98304


@T.prim_func
def layernorm_rows(x_ptr: T.handle, ln_weight_ptr: T.handle, ln_bias_ptr: T.handle, xn_ptr: T.handle,
                   eps: T.float32):
    a_x = T.match_buffer(x_ptr, (PATCHES * HIDDEN,), "bfloat16")
    b_ln_weight = T.match_buffer(ln_weight_ptr, (HIDDEN,), "bfloat16")
    c_ln_bias = T.match_buffer(ln_bias_ptr, (HIDDEN,), "bfloat16")
    d_xn = T.match_buffer(xn_ptr, (PATCHES * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([PATCHES // 8])
    tx = T.thread_id([256])
    xv = T.alloc_buffer((LN_PER_LANE * 8,), "bfloat16", scope="local")
    v = T.alloc_buffer((LN_PER_LANE * 8,), "float32", scope="local")
    wv = T.alloc_buffer((8,), "bfloat16", scope="local")
    bv = T.alloc_buffer((8,), "bfloat16", scope="local")
    ov = T.alloc_buffer((8,), "bfloat16", scope="local")
    st = T.alloc_buffer((3,), "float32", scope="local")      # sum, mean, sq / rstd
    # warp w: patch row 8 bx + w; lane l: chunks l + 32 i (i < 6; chunk < 192)
    st[0] = T.float32(0)
    for i in T.unroll(LN_PER_LANE):
        if tx % 32 + 32 * i < LN_CHUNKS:
            for k in T.vectorized(8):
                xv[i * 8 + k] = a_x[(bx * 8 + tx // 32) * HIDDEN + (tx % 32 + 32 * i) * 8 + k]
            for k in T.unroll(8):
                v[i * 8 + k] = T.Cast("float32", xv[i * 8 + k])
                st[0] = st[0] + v[i * 8 + k]
    st[0] = T.cuda.warp_sum(st[0], 32)
    st[1] = st[0] / T.float32(HIDDEN)
    st[2] = T.float32(0)
    for i in T.unroll(LN_PER_LANE):
        if tx % 32 + 32 * i < LN_CHUNKS:
            for k in T.unroll(8):
                st[2] = st[2] + (v[i * 8 + k] - st[1]) * (v[i * 8 + k] - st[1])
    st[2] = T.cuda.warp_sum(st[2], 32)
    st[2] = T.rsqrt(st[2] / T.float32(HIDDEN) + eps)
    for i in T.unroll(LN_PER_LANE):
        if tx % 32 + 32 * i < LN_CHUNKS:
            for k in T.vectorized(8):
                wv[k] = b_ln_weight[(tx % 32 + 32 * i) * 8 + k]
            for k in T.vectorized(8):
                bv[k] = c_ln_bias[(tx % 32 + 32 * i) * 8 + k]
            for k in T.unroll(8):
                ov[k] = T.Cast("bfloat16", (v[i * 8 + k] - st[1]) * st[2] * T.Cast("float32", wv[k])
                               + T.Cast("float32", bv[k]))
            for k in T.vectorized(8):
                d_xn[((bx * 8 + tx // 32) // 4096 * 1024 + (bx * 8 + tx // 32) % 4096 // 128 * 32
                      + (bx * 8 + tx // 32) % 64 // 2) * MH
                     + ((bx * 8 + tx // 32) // 64 % 2 * 2 + (bx * 8 + tx // 32) % 2) * HIDDEN
                     + (tx % 32 + 32 * i) * 8 + k] = ov[k]


@T.prim_func
def fc1_gelu(xn_ptr: T.handle, fc1_weight_ptr: T.handle, fc1_bias_ptr: T.handle, g_ptr: T.handle):
    a_xn = T.match_buffer(xn_ptr, (MERGED * MH,), "bfloat16")
    b_fc1_weight = T.match_buffer(fc1_weight_ptr, (MH * MH,), "bfloat16")
    c_fc1_bias = T.match_buffer(fc1_bias_ptr, (MH,), "bfloat16")
    d_g = T.match_buffer(g_ptr, (MERGED * MH,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([MH // BN, MERGED // BM])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    hv = T.alloc_buffer((1,), "float32", scope="local")
    gemm_mainloop(sm, acc, af, bfr, a_xn, MH, by * BM, b_fc1_weight, MH, bx * BN, 0, MH // BK, tx)
    for mi in T.unroll(4):
        for ni in T.unroll(4):
            for eh in T.unroll(2):
                for e in T.unroll(2):
                    hv[0] = T.Cast("float32", T.Cast("bfloat16", acc[(mi * 4 + ni) * 4 + eh * 2 + e] + T.Cast(
                        "float32", c_fc1_bias[bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e])))
                    ov[e] = T.Cast("bfloat16", T.float32(0.5) * hv[0] * (T.float32(1) + T.call_pure_extern(
                        "float32", "erff", hv[0] * T.float32(0.7071067811865476))))
                for e in T.vectorized(2):
                    d_g[(by * BM + tx // 128 * 64 + mi * 16 + tx % 32 // 4 + eh * 8) * MH
                        + bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e] = ov[e]


@T.prim_func
def fc2_bias(g_ptr: T.handle, fc2_weight_ptr: T.handle, fc2_bias_ptr: T.handle, out_ptr: T.handle):
    a_g = T.match_buffer(g_ptr, (MERGED * MH,), "bfloat16")
    b_fc2_weight = T.match_buffer(fc2_weight_ptr, (OUT * MH,), "bfloat16")
    c_fc2_bias = T.match_buffer(fc2_bias_ptr, (OUT,), "bfloat16")
    d_out = T.match_buffer(out_ptr, (MERGED * OUT,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([OUT // BN, MERGED // BM])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    gemm_mainloop(sm, acc, af, bfr, a_g, MH, by * BM, b_fc2_weight, MH, bx * BN, 0, MH // BK, tx)
    for mi in T.unroll(4):
        for ni in T.unroll(4):
            for eh in T.unroll(2):
                for e in T.unroll(2):
                    ov[e] = T.Cast("bfloat16", acc[(mi * 4 + ni) * 4 + eh * 2 + e] + T.Cast(
                        "float32", c_fc2_bias[bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e]))
                for e in T.vectorized(2):
                    d_out[(by * BM + tx // 128 * 64 + mi * 16 + tx % 32 // 4 + eh * 8) * OUT
                          + bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e] = ov[e]


MKB_PLAN = """/* mkb:plan
scratch xn bf16[num_patches * hidden_size]
scratch g bf16[num_patches / 4 * hidden_size_expanded]
launch layernorm_rows grid(num_patches / 8) block(256) args(hidden, ln_weight, ln_bias, xn, f32(eps))
launch fc1_gelu grid(hidden_size_expanded / 128, num_patches / 4 / 128) block(256) shared(98304) args(xn, fc1_weight, fc1_bias, g)
launch fc2_bias grid(out_hidden_size / 128, num_patches / 4 / 128) block(256) shared(98304) args(g, fc2_weight, fc2_bias, output)
*/"""
