"""MetaKernelBench #40 (reconstructed: spec.json's notes), the Gemma 3n AltUp collapse (magnitude-normalized
average of three streams) in TIRx, the algorithm of solutions/cuda.cu (tensor-core GEMM + one collapse pass),
two launches:
  1. altup_unembed_gemm: the two 3072 x 3072 projections proj[z] = hidden_states[z + 1] @ W_{z+1}^T as one
     launch (grid z = stream; the weight chosen by z), bf16 tensor cores with fp32 accumulation (products of
     bf16 values are exact in fp32: the reference's fp32 projection up to summation order), stored as fp32
     [2, tokens, hidden].
  2. altup_collapse: one 384-thread CTA per token, 8 columns per thread: sums of squares of stream 0 and of
     the two projections (fp32, warp shuffles + 12 warp partials), target = sqrt(mean(x0^2)),
     scale_s = target / sqrt(max(mean(p_s^2), eps)), out = bf16((x0 + sum_s p_s * scale_s) / 3) in fp32.
GEMM core: 128 x 128 output tile per 256-thread CTA, 8 warps of 64 x 32 (4 x 4 mma.sync.m16n8k16 bf16 ->
fp32 tiles, T.ptx.mma), ldmatrix.x4 operands, K in steps of 64 through a 3-slot cp.async.cg ring (96 KiB
dynamic shared memory, 2 CTAs per SM), 128-byte shared rows XOR-swizzled by row % 8.
Compile-checked only at these shapes (no GPU run). Expected speed: about 0.7-0.9x of solutions/cuda.cu, far
ahead of the eager fp32 SGEMM baseline.
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOKENS = 64 * 256              # batch_size * seq_len
HIDDEN = 3072
STREAMS = 2                    # projected streams (hidden_states[1], hidden_states[2])
CT = HIDDEN // 8               # 384 collapse threads per token, 8 columns each

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
assert TOKENS % BM == 0 and HIDDEN % BN == 0 and HIDDEN % BK == 0 and CT % 32 == 0


@T.prim_func
def altup_unembed_gemm(hidden_states_ptr: T.handle, weight1_ptr: T.handle, weight2_ptr: T.handle, proj_ptr: T.handle):
    a_hidden_states = T.match_buffer(hidden_states_ptr, ((STREAMS + 1) * TOKENS * HIDDEN,), "bfloat16")
    b_weight1 = T.match_buffer(weight1_ptr, (HIDDEN * HIDDEN,), "bfloat16")
    c_weight2 = T.match_buffer(weight2_ptr, (HIDDEN * HIDDEN,), "bfloat16")
    d_proj = T.match_buffer(proj_ptr, (STREAMS * TOKENS * HIDDEN,), "float32")
    T.device_entry()
    bx, by, bz = T.cta_id([HIDDEN // BN, TOKENS // BM, STREAMS])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "float32", scope="local")
    # stream bz + 1: A rows (bz + 1) * TOKENS + token of the flattened [3 * TOKENS, HIDDEN]; B = W_{bz+1} rows
    if bz == 0:
        gemm_mainloop(sm, acc, af, bfr, a_hidden_states, HIDDEN, (bz + 1) * TOKENS + by * BM, b_weight1, HIDDEN,
                      bx * BN, 0, HIDDEN // BK, tx)
    else:
        gemm_mainloop(sm, acc, af, bfr, a_hidden_states, HIDDEN, (bz + 1) * TOKENS + by * BM, c_weight2, HIDDEN,
                      bx * BN, 0, HIDDEN // BK, tx)
    for mi in T.unroll(4):
        for ni in T.unroll(4):
            for eh in T.unroll(2):
                for e in T.unroll(2):
                    ov[e] = acc[(mi * 4 + ni) * 4 + eh * 2 + e]
                for e in T.vectorized(2):
                    d_proj[(bz * TOKENS + by * BM + tx // 128 * 64 + mi * 16 + tx % 32 // 4 + eh * 8) * HIDDEN
                           + bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e] = ov[e]


@T.prim_func
def altup_collapse(hidden_states_ptr: T.handle, proj_ptr: T.handle, out_ptr: T.handle, eps: T.float32):
    a_hidden_states = T.match_buffer(hidden_states_ptr, ((STREAMS + 1) * TOKENS * HIDDEN,), "bfloat16")
    b_proj = T.match_buffer(proj_ptr, (STREAMS * TOKENS * HIDDEN,), "float32")
    c_out = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([CT])
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    pv = T.alloc_buffer((STREAMS * 8,), "float32", scope="local")
    ov = T.alloc_buffer((8,), "bfloat16", scope="local")
    sq = T.alloc_buffer((3,), "float32", scope="local")
    sc = T.alloc_buffer((3,), "float32", scope="local")
    parts = T.alloc_buffer((CT // 32 * 3,), "float32", scope="shared")   # [warp][x0, p0, p1]
    for k in T.vectorized(8):
        xv[k] = a_hidden_states[bx * HIDDEN + tx * 8 + k]
    for s in T.unroll(STREAMS):
        for h in T.unroll(2):
            for k in T.vectorized(4):
                pv[s * 8 + h * 4 + k] = b_proj[(s * TOKENS + bx) * HIDDEN + tx * 8 + h * 4 + k]
    for j in T.unroll(3):
        sq[j] = T.float32(0)
    for k in T.unroll(8):
        sq[0] = sq[0] + T.Cast("float32", xv[k]) * T.Cast("float32", xv[k])
        for s in T.unroll(STREAMS):
            sq[s + 1] = sq[s + 1] + pv[s * 8 + k] * pv[s * 8 + k]
    for j in T.unroll(3):
        sq[j] = T.cuda.warp_sum(sq[j], 32)
    if tx % 32 == 0:
        for j in T.unroll(3):
            parts[tx // 32 * 3 + j] = sq[j]
    T.cuda.cta_sync()
    for j in T.unroll(3):
        sq[j] = T.float32(0)
        for w in T.unroll(CT // 32):
            sq[j] = sq[j] + parts[w * 3 + j]
    sc[0] = T.sqrt(sq[0] / T.float32(HIDDEN))
    for s in T.unroll(STREAMS):
        sc[s + 1] = sc[0] / T.sqrt(T.max(sq[s + 1] / T.float32(HIDDEN), eps))
    for k in T.unroll(8):
        ov[k] = T.Cast("bfloat16", (T.Cast("float32", xv[k]) + pv[k] * sc[1] + pv[8 + k] * sc[2])
                       * T.float32(1.0 / 3.0))
    for k in T.vectorized(8):
        c_out[bx * HIDDEN + tx * 8 + k] = ov[k]


MKB_PLAN = """/* mkb:plan
scratch proj fp32[2 * batch_size * seq_len * hidden_size]
launch altup_unembed_gemm grid(hidden_size / 128, batch_size * seq_len / 128, 2) block(256) shared(98304)
  args(hidden_states, unembed_weight_1, unembed_weight_2, proj)
launch altup_collapse grid(batch_size * seq_len) block(384) args(hidden_states, proj, out, f32(eps))
*/"""
