"""Ling 2.0 MTP input (shifted embedding, two RMSNorms, concat, eh_proj) in TIRx, the algorithm of
solutions/cuda.cu with mma.sync tensor cores instead of wgmma, two launches:
  1. shift_embed_dual_rmsnorm: one 512-thread CTA per token t = b * seq + s: e = embedding[ids[b, s + 1]]
     (id 0 for s = seq - 1), h = hidden_states[t]; fp32 sums of squares (warp shuffles + 16 warp partials);
     cat[t] = [bf16(enorm_w * bf16(e * re)), bf16(hnorm_w * bf16(h * rh))] (bf16 [tokens, 8192]).
  2. eh_proj: y = bf16(cat @ W^T) (8192 x 4096 x 8192).
GEMM core: 128 x 128 output tile per 256-thread CTA, 8 warps of 64 x 32 (4 x 4 mma.sync.m16n8k16 bf16 ->
fp32 tiles, T.ptx.mma), operands from shared memory with ldmatrix.x4, K in steps of 64 through a 3-slot
cp.async.cg ring (96 KiB dynamic shared memory, 2 CTAs per SM), 128-byte shared rows with the 16-byte chunk
index XOR-swizzled by row % 8. Tiles: 8192 = 64 * 128, 4096 = 32 * 128, 8192 = 128 * 64.
Compile-checked only (no GPU was available to the author); the ldmatrix / mma lane maps and the tile
indexing were checked with a numpy emulation. Expected speed: roughly 0.5-0.7x of solutions/cuda.cu, so
slower than the baseline's cuBLAS GEMM at these shapes, where the GEMM dominates: declared so in the spec.
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

BATCH = 32
SEQ = 256
TOKENS = BATCH * SEQ
HIDDEN = 4096
VOCAB = 157184
KDIM = 2 * HIDDEN
PREP = 512                       # shift_embed_dual_rmsnorm's threads: 8 columns each

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
assert TOKENS % BM == 0 and HIDDEN % BN == 0 and KDIM % BK == 0 and HIDDEN == PREP * 8


@T.prim_func
def shift_embed_dual_rmsnorm(input_ids_ptr: T.handle, embedding_ptr: T.handle, hidden_states_ptr: T.handle,
                             enorm_weight_ptr: T.handle, hnorm_weight_ptr: T.handle, cat_ptr: T.handle,
                             eps: T.float32):
    a_input_ids = T.match_buffer(input_ids_ptr, (TOKENS,), "int64")
    b_embedding = T.match_buffer(embedding_ptr, (VOCAB * HIDDEN,), "bfloat16")
    c_hidden_states = T.match_buffer(hidden_states_ptr, (TOKENS * HIDDEN,), "bfloat16")
    d_enorm_weight = T.match_buffer(enorm_weight_ptr, (HIDDEN,), "bfloat16")
    e_hnorm_weight = T.match_buffer(hnorm_weight_ptr, (HIDDEN,), "bfloat16")
    f_cat = T.match_buffer(cat_ptr, (TOKENS * KDIM,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([PREP])
    idv = T.alloc_buffer((1,), "int32", scope="local")
    ev = T.alloc_buffer((8,), "bfloat16", scope="local")
    hv = T.alloc_buffer((8,), "bfloat16", scope="local")
    wv = T.alloc_buffer((8,), "bfloat16", scope="local")
    ov = T.alloc_buffer((8,), "bfloat16", scope="local")
    sq = T.alloc_buffer((2,), "float32", scope="local")
    rs = T.alloc_buffer((2,), "float32", scope="local")
    parts = T.alloc_buffer((2 * (PREP // 32),), "float32", scope="shared")   # [warp][e, h]
    idv[0] = 0
    if bx % SEQ + 1 < SEQ:
        idv[0] = T.Cast("int32", a_input_ids[bx + 1])
    for k in T.vectorized(8):
        ev[k] = b_embedding[idv[0] * HIDDEN + tx * 8 + k]
    for k in T.vectorized(8):
        hv[k] = c_hidden_states[bx * HIDDEN + tx * 8 + k]
    sq[0] = T.float32(0)
    sq[1] = T.float32(0)
    for k in T.unroll(8):
        sq[0] = sq[0] + T.Cast("float32", ev[k]) * T.Cast("float32", ev[k])
        sq[1] = sq[1] + T.Cast("float32", hv[k]) * T.Cast("float32", hv[k])
    sq[0] = T.cuda.warp_sum(sq[0], 32)
    sq[1] = T.cuda.warp_sum(sq[1], 32)
    if tx % 32 == 0:
        parts[tx // 32 * 2] = sq[0]
        parts[tx // 32 * 2 + 1] = sq[1]
    T.cuda.cta_sync()
    sq[0] = T.float32(0)
    sq[1] = T.float32(0)
    for w in T.unroll(PREP // 32):
        sq[0] = sq[0] + parts[w * 2]
        sq[1] = sq[1] + parts[w * 2 + 1]
    rs[0] = T.rsqrt(sq[0] / T.float32(HIDDEN) + eps)
    rs[1] = T.rsqrt(sq[1] / T.float32(HIDDEN) + eps)
    for k in T.vectorized(8):
        wv[k] = d_enorm_weight[tx * 8 + k]
    for k in T.unroll(8):
        ov[k] = T.Cast("bfloat16", T.Cast("float32", wv[k]) * T.Cast("float32", T.Cast(
            "bfloat16", T.Cast("float32", ev[k]) * rs[0])))
    for k in T.vectorized(8):
        f_cat[bx * KDIM + tx * 8 + k] = ov[k]
    for k in T.vectorized(8):
        wv[k] = e_hnorm_weight[tx * 8 + k]
    for k in T.unroll(8):
        ov[k] = T.Cast("bfloat16", T.Cast("float32", wv[k]) * T.Cast("float32", T.Cast(
            "bfloat16", T.Cast("float32", hv[k]) * rs[1])))
    for k in T.vectorized(8):
        f_cat[bx * KDIM + HIDDEN + tx * 8 + k] = ov[k]


@T.prim_func
def eh_proj(cat_ptr: T.handle, eh_proj_weight_ptr: T.handle, y_ptr: T.handle):
    a_cat = T.match_buffer(cat_ptr, (TOKENS * KDIM,), "bfloat16")
    b_eh_proj_weight = T.match_buffer(eh_proj_weight_ptr, (HIDDEN * KDIM,), "bfloat16")
    c_y = T.match_buffer(y_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([HIDDEN // BN, TOKENS // BM])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    gemm_mainloop(sm, acc, af, bfr, a_cat, KDIM, by * BM, b_eh_proj_weight, KDIM, bx * BN, 0, KDIM // BK, tx)
    for mi in T.unroll(4):
        for ni in T.unroll(4):
            for eh in T.unroll(2):
                for e in T.unroll(2):
                    ov[e] = T.Cast("bfloat16", acc[(mi * 4 + ni) * 4 + eh * 2 + e])
                for e in T.vectorized(2):
                    c_y[(by * BM + tx // 128 * 64 + mi * 16 + tx % 32 // 4 + eh * 8) * HIDDEN
                        + bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e] = ov[e]


MKB_PLAN = """/* mkb:plan
scratch cat bf16[batch_size * seq_len * concat_size]
launch shift_embed_dual_rmsnorm grid(batch_size * seq_len) block(512)
  args(input_ids, word_embeddings, hidden_states, enorm_weight, hnorm_weight, cat, f32(rms_norm_eps))
launch eh_proj grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(98304) args(cat, eh_proj_weight, output)
*/"""
