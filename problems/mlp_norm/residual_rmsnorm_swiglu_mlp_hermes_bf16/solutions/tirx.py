"""Residual add + RMSNorm + SwiGLU MLP for a 32-token decode step (Llama 3.1 8B shapes) in TIRx, the
algorithm of solutions/cuda.cu (weight streaming on tensor cores), four launches:
  1. add_rmsnorm: one 512-thread CTA per token: residual = bf16(x + residual) (in place),
     n = bf16(bf16(s * rsqrt(mean(s^2) + eps)) * w), 8 columns per thread.
  2. gate_up_swiglu: each CTA owns 64 intermediate columns j: 64 gate rows + the 64 matching up rows
     (the A side of the product, M = 128) against the 32 tokens (the B side, N = 32), full K = 4096.
     The A tile interleaves gate and up rows in blocks of 16 (A row r: block r // 32, half (r // 16) % 2:
     0 gate / 1 up, j = 16 (r // 32) + r % 16), so each warp's two m16 tiles are the gate and up rows of
     the same 16 j and the epilogue applies h = bf16(bf16(silu(bf16 g)) * bf16 u) in registers.
  3. down_proj: 128 output rows per CTA, split-K by 7 (2048 each): 32 x 7 = 224 CTAs, fp32 partials.
  4. down_reduce: y = bf16(sum of the 7 partials in split order).
GEMM core (shared by 2 and 3): mma.sync.m16n8k16 bf16 -> fp32 (T.ptx.mma), operands from
shared memory with ldmatrix.x4; tiles of (128 rows + 32 tokens) x 64 k are fed by a 4-slot cp.async.cg
ring (one barrier per k tile); shared rows are 128 bytes with the 16-byte chunk index XOR-swizzled by
row % 8, so the cp.async stores and the ldmatrix reads are bank-conflict free. 8 warps = 4 (rows) x 2
(tokens), warp tile 32 rows x 16 tokens: 2 x 2 mma tiles.
Compile-checked only (no GPU was available to the author): fragment indexing was checked with a numpy
emulation of the ldmatrix / mma lane maps. Expected speed: close to solutions/cuda.cu (the same
weight-streaming design; about 80-100 us, HBM bound).
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOKENS = 32
HIDDEN = 4096
INTER = 14336
BK = 64                       # k per pipeline stage (128-byte shared rows)
STAGES = 4
THREADS = 256
ROWS = 128                    # A rows per CTA
A_EL = ROWS * BK              # bf16 elements of one stage's A tile
ST_EL = (ROWS + TOKENS) * BK  # elements per stage (A then B)
SMEM_BYTES = STAGES * ST_EL * 2
SPLITS = 7
DOWN_K = INTER // SPLITS      # 2048
NORM_THREADS = HIDDEN // 8    # 512

assert SMEM_BYTES == 81920 and HIDDEN % BK == 0 and DOWN_K % BK == 0 and INTER % 64 == 0 and HIDDEN % ROWS == 0


@T.macro
def mma_stage(sm, a_off, b_off, acc, af, bfr, lane):
    # One k tile (64) of the warp's 32 x 16 product. a_off / b_off: element offsets of the warp's first A row
    # / first B (token) row in shared memory (rows are 64 elements; 16-byte chunk c of row r at c ^ (r % 8)).
    for ks in T.unroll(BK // 16):
        for mi in T.unroll(2):
            # matrices: rows 0-7 / 8-15 (lane % 16) x k chunk 2 ks + lane // 16
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3],
                sm.ptr_to([a_off + (mi * 16 + lane % 16) * BK + T.bitwise_xor(ks * 2 + lane // 16, lane % 8) * 8]))
        # matrices: tokens 0-7 k lo, 0-7 k hi, 8-15 k lo, 8-15 k hi
        T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
            bfr[0], bfr[1], bfr[2], bfr[3],
            sm.ptr_to([b_off + (lane % 8 + lane // 16 * 8) * BK + T.bitwise_xor(ks * 2 + lane // 8 % 2, lane % 8) * 8]))
        for mi in T.unroll(2):
            for ni in T.unroll(2):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[(mi * 2 + ni) * 4], acc[(mi * 2 + ni) * 4 + 1], acc[(mi * 2 + ni) * 4 + 2],
                    acc[(mi * 2 + ni) * 4 + 3],
                    af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3],
                    bfr[ni * 2], bfr[ni * 2 + 1],
                    acc[(mi * 2 + ni) * 4], acc[(mi * 2 + ni) * 4 + 1], acc[(mi * 2 + ni) * 4 + 2],
                    acc[(mi * 2 + ni) * 4 + 3])


@T.prim_func
def add_rmsnorm(x_ptr: T.handle, residual_ptr: T.handle, weight_ptr: T.handle, n_ptr: T.handle, eps: T.float32):
    a_x = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    b_residual = T.match_buffer(residual_ptr, (TOKENS * HIDDEN,), "bfloat16")
    c_weight = T.match_buffer(weight_ptr, (HIDDEN,), "bfloat16")
    d_n = T.match_buffer(n_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([NORM_THREADS])
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    rv = T.alloc_buffer((8,), "bfloat16", scope="local")
    wv = T.alloc_buffer((8,), "bfloat16", scope="local")
    ov = T.alloc_buffer((8,), "bfloat16", scope="local")
    sq = T.alloc_buffer((1,), "float32", scope="local")
    inv = T.alloc_buffer((1,), "float32", scope="local")
    parts = T.alloc_buffer((NORM_THREADS // 32,), "float32", scope="shared")
    for k in T.vectorized(8):
        xv[k] = a_x[bx * HIDDEN + tx * 8 + k]
    for k in T.vectorized(8):
        rv[k] = b_residual[bx * HIDDEN + tx * 8 + k]
    sq[0] = T.float32(0)
    for k in T.unroll(8):
        rv[k] = T.Cast("bfloat16", T.Cast("float32", xv[k]) + T.Cast("float32", rv[k]))
        sq[0] = sq[0] + T.Cast("float32", rv[k]) * T.Cast("float32", rv[k])
    for k in T.vectorized(8):
        b_residual[bx * HIDDEN + tx * 8 + k] = rv[k]
    sq[0] = T.cuda.warp_sum(sq[0], 32)
    if tx % 32 == 0:
        parts[tx // 32] = sq[0]
    T.cuda.cta_sync()
    sq[0] = T.float32(0)
    for w in T.unroll(NORM_THREADS // 32):
        sq[0] = sq[0] + parts[w]
    inv[0] = T.rsqrt(sq[0] / T.float32(HIDDEN) + eps)
    for k in T.vectorized(8):
        wv[k] = c_weight[tx * 8 + k]
    for k in T.unroll(8):
        ov[k] = T.Cast("bfloat16", T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", rv[k]) * inv[0]))
                       * T.Cast("float32", wv[k]))
    for k in T.vectorized(8):
        d_n[bx * HIDDEN + tx * 8 + k] = ov[k]


@T.prim_func
def gate_up_swiglu(n_ptr: T.handle, w_gate_ptr: T.handle, w_up_ptr: T.handle, h_ptr: T.handle):
    a_n = T.match_buffer(n_ptr, (TOKENS * HIDDEN,), "bfloat16")
    b_w_gate = T.match_buffer(w_gate_ptr, (INTER * HIDDEN,), "bfloat16")
    c_w_up = T.match_buffer(w_up_ptr, (INTER * HIDDEN,), "bfloat16")
    d_h = T.match_buffer(h_ptr, (TOKENS * INTER,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([INTER // 64])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((16,), "float32", scope="local")
    af = T.alloc_buffer((8,), "uint32", scope="local")
    bfr = T.alloc_buffer((4,), "uint32", scope="local")
    ev = T.alloc_buffer((3,), "float32", scope="local")
    for i in T.unroll(16):
        acc[i] = T.float32(0)
    # Loads of k tile kt into slot kt % STAGES. A row r = tx // 8 + 32 i: block i, half tx // 128 (uniform per
    # warp), j = j0 + 16 i + (tx // 8) % 16; chunk tx % 8. B (token) row tx // 8, chunk tx % 8.
    for s in T.unroll(STAGES - 1):
        for i in T.unroll(4):
            if tx < 128:
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([s * ST_EL + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                    b_w_gate.ptr_to([(bx * 64 + 16 * i + tx // 8 % 16) * HIDDEN + s * BK + tx % 8 * 8]), 16)
            else:
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([s * ST_EL + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                    c_w_up.ptr_to([(bx * 64 + 16 * i + tx // 8 % 16) * HIDDEN + s * BK + tx % 8 * 8]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([s * ST_EL + A_EL + tx // 8 * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            a_n.ptr_to([tx // 8 * HIDDEN + s * BK + tx % 8 * 8]), 16)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(HIDDEN // BK):
        T.ptx.cp.async_.wait_group(STAGES - 2)
        T.cuda.cta_sync()
        if kt + STAGES - 1 < HIDDEN // BK:
            for i in T.unroll(4):
                if tx < 128:
                    T.ptx.cp.async_.cg.shared.global_(
                        sm.ptr_to([(kt + STAGES - 1) % STAGES * ST_EL + (tx // 8 + 32 * i) * BK
                                   + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                        b_w_gate.ptr_to([(bx * 64 + 16 * i + tx // 8 % 16) * HIDDEN + (kt + STAGES - 1) * BK
                                         + tx % 8 * 8]), 16)
                else:
                    T.ptx.cp.async_.cg.shared.global_(
                        sm.ptr_to([(kt + STAGES - 1) % STAGES * ST_EL + (tx // 8 + 32 * i) * BK
                                   + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                        c_w_up.ptr_to([(bx * 64 + 16 * i + tx // 8 % 16) * HIDDEN + (kt + STAGES - 1) * BK
                                       + tx % 8 * 8]), 16)
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([(kt + STAGES - 1) % STAGES * ST_EL + A_EL + tx // 8 * BK
                           + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                a_n.ptr_to([tx // 8 * HIDDEN + (kt + STAGES - 1) * BK + tx % 8 * 8]), 16)
        T.ptx.cp.async_.commit_group()
        # warp w: A rows 32 (w % 4) .. + 32 (mi 0: gate, mi 1: up of j0 + 16 (w % 4) ..), tokens 16 (w // 4) ..
        mma_stage(sm, kt % STAGES * ST_EL + tx // 32 % 4 * 32 * BK, kt % STAGES * ST_EL + A_EL + tx // 128 * 16 * BK,
                  acc, af, bfr, tx % 32)
    T.ptx.cp.async_.wait_group(0)
    # acc[(mi * 2 + ni) * 4 + e]: A row 16 mi + g + 8 (e // 2) of the warp, token 16 (w // 4) + 8 ni + 2 q + e % 2
    for ni in T.unroll(2):
        for e in T.unroll(4):
            ev[0] = T.Cast("float32", T.Cast("bfloat16", acc[ni * 4 + e]))
            ev[1] = T.Cast("float32", T.Cast("bfloat16", acc[(2 + ni) * 4 + e]))
            ev[2] = T.Cast("float32", T.Cast("bfloat16", ev[0] / (T.float32(1) + T.call_pure_extern(
                "float32", "expf", T.float32(0) - ev[0]))))
            d_h[(tx // 128 * 16 + ni * 8 + tx % 4 * 2 + e % 2) * INTER
                + bx * 64 + tx // 32 % 4 * 16 + tx % 32 // 4 + e // 2 * 8] = T.Cast("bfloat16", ev[2] * ev[1])


@T.prim_func
def down_proj(h_ptr: T.handle, w_down_ptr: T.handle, partial_ptr: T.handle):
    a_h = T.match_buffer(h_ptr, (TOKENS * INTER,), "bfloat16")
    b_w_down = T.match_buffer(w_down_ptr, (HIDDEN * INTER,), "bfloat16")
    c_partial = T.match_buffer(partial_ptr, (SPLITS * TOKENS * HIDDEN,), "float32")
    T.device_entry()
    bx, by = T.cta_id([HIDDEN // ROWS, SPLITS])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((16,), "float32", scope="local")
    af = T.alloc_buffer((8,), "uint32", scope="local")
    bfr = T.alloc_buffer((4,), "uint32", scope="local")
    for i in T.unroll(16):
        acc[i] = T.float32(0)
    # A row r = tx // 8 + 32 i: output row o0 + r; B (token) row tx // 8; k = by * DOWN_K + kt * BK + 8 (tx % 8)
    for s in T.unroll(STAGES - 1):
        for i in T.unroll(4):
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([s * ST_EL + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                b_w_down.ptr_to([(bx * ROWS + tx // 8 + 32 * i) * INTER + by * DOWN_K + s * BK + tx % 8 * 8]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([s * ST_EL + A_EL + tx // 8 * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            a_h.ptr_to([tx // 8 * INTER + by * DOWN_K + s * BK + tx % 8 * 8]), 16)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(DOWN_K // BK):
        T.ptx.cp.async_.wait_group(STAGES - 2)
        T.cuda.cta_sync()
        if kt + STAGES - 1 < DOWN_K // BK:
            for i in T.unroll(4):
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([(kt + STAGES - 1) % STAGES * ST_EL + (tx // 8 + 32 * i) * BK
                               + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                    b_w_down.ptr_to([(bx * ROWS + tx // 8 + 32 * i) * INTER + by * DOWN_K + (kt + STAGES - 1) * BK
                                     + tx % 8 * 8]), 16)
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([(kt + STAGES - 1) % STAGES * ST_EL + A_EL + tx // 8 * BK
                           + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
                a_h.ptr_to([tx // 8 * INTER + by * DOWN_K + (kt + STAGES - 1) * BK + tx % 8 * 8]), 16)
        T.ptx.cp.async_.commit_group()
        mma_stage(sm, kt % STAGES * ST_EL + tx // 32 % 4 * 32 * BK, kt % STAGES * ST_EL + A_EL + tx // 128 * 16 * BK,
                  acc, af, bfr, tx % 32)
    T.ptx.cp.async_.wait_group(0)
    for mi in T.unroll(2):
        for ni in T.unroll(2):
            for e in T.unroll(4):
                c_partial[(by * TOKENS + tx // 128 * 16 + ni * 8 + tx % 4 * 2 + e % 2) * HIDDEN
                          + bx * ROWS + tx // 32 % 4 * 32 + mi * 16 + tx % 32 // 4 + e // 2 * 8] = acc[(mi * 2 + ni) * 4 + e]


@T.prim_func
def down_reduce(partial_ptr: T.handle, y_ptr: T.handle):
    a_partial = T.match_buffer(partial_ptr, (SPLITS * TOKENS * HIDDEN,), "float32")
    b_y = T.match_buffer(y_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS * HIDDEN // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((1,), "float32", scope="local")
    s[0] = T.float32(0)
    for p in T.unroll(SPLITS):
        s[0] = s[0] + a_partial[p * TOKENS * HIDDEN + bx * 256 + tx]
    b_y[bx * 256 + tx] = T.Cast("bfloat16", s[0])


MKB_PLAN = """/* mkb:plan
scratch n bf16[tokens * hidden]
scratch hbuf bf16[tokens * intermediate]
scratch partial fp32[7 * tokens * hidden]
launch add_rmsnorm grid(tokens) block(512) args(x, residual, norm_weight, n, f32(eps))
launch gate_up_swiglu grid(intermediate / 64) block(256) shared(81920) args(n, w_gate, w_up, hbuf)
launch down_proj grid(hidden / 128, 7) block(256) shared(81920) args(hbuf, w_down, partial)
launch down_reduce grid(tokens * hidden / 256) block(256) args(partial, y)
*/"""
