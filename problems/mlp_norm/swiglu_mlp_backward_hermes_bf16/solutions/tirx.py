# Slower than the eager baseline by design (beats_baseline: false in spec.json): its mma.sync GEMMs (no wgmma,
# no warp specialisation) and the operand transposes reach about half of cuBLAS's wgmma rate (this core
# measured 0.49x against eager on the earlier 4096-token version of this problem). solutions/cuda.cu is the
# fast solution.
"""SwiGLU MLP backward from saved activations (original #34: T = 8192 rows, H = 16384, I = 53248) in TIRx, with
the rounding points of reference.md. One mma.sync tensor-core GEMM core (C = A . B^T, both operands
K-contiguous); operands needed K-contiguous the other way round are transposed into scratch first
(shared-memory 64 x 64 tile transposes). Launches:
  transposes: goT = go^T, xT = x^T [H, T]; wdT = down_weight^T [I, H]; wgT, wuT = gate/up_weight^T [H, I]
  1. grad_h = bf16(go . wdT^T)                                   [T, I]   (gemm_t_i_h)
  2. swiglu_bwd (elementwise, fp32 math): h = bf16(act up), grad_act = bf16(grad_h up),
     grad_up = bf16(grad_h act), s = sigmoid(gate), grad_gate = bf16(grad_act s (1 + gate (1 - s)))
  3. transposes hT, dgT, duT [I, T]
  4. grad_down_weight = bf16(goT . hT^T)                         [H, I]   (gemm_h_i_t)
  5. grad_gate_weight = bf16(dgT . xT^T), grad_up_weight = bf16(duT . xT^T)   [I, H]   (gemm_i_h_t)
  6. grad_input = bf16(grad_gate . wgT^T + grad_up . wuT^T)      [T, H]   (one fp32 accumulation over both,
     which reference.md allows)
GEMM core: 128 x 128 output tile per 256-thread CTA, 8 warps of 64 x 32 (4 x 4 mma.sync.m16n8k16 bf16 ->
fp32, T.ptx.mma), ldmatrix.x4 operands, K in steps of 64 through a 3-slot cp.async.cg ring (96 KiB dynamic
shared memory), 128-byte shared rows XOR-swizzled by row % 8. Every flat index stays below 2^31.
Compile-checked only (no GPU here).
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOK = 8192
HID = 16384
INT = 53248
TT = 64                        # transpose tile
TPITCH = TT + 2                # shared pitch of the transpose tile (bf16 elements)

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
# ---- end of the GEMM core ----
assert TOK % BM == 0 and HID % BM == 0 and INT % BM == 0 and TOK % BK == 0 and HID % BK == 0 and INT % BK == 0
assert HID * INT < 2 ** 31
assert TOK % TT == 0 and HID % TT == 0 and INT % TT == 0


@T.macro
def transpose_tile(a_in, b_out, R, C, bx, by, tx, tile, v):
    # b_out[c, r] = a_in[r, c] for the 64 x 64 tile at rows 64 by, columns 64 bx of a_in ([R, C] row-major).
    # Load: rows tx // 8 + 32 i, 8 columns from 8 (tx % 8) (16 bytes). Store: out rows (in columns)
    # tx // 8 + 32 i, 8 out columns (in rows) from 8 (tx % 8).
    for i in T.unroll(2):
        for k in T.vectorized(8):
            v[k] = a_in[(by * TT + tx // 8 + 32 * i) * C + bx * TT + tx % 8 * 8 + k]
        for k in T.unroll(8):
            tile[(tx // 8 + 32 * i) * TPITCH + tx % 8 * 8 + k] = v[k]
    T.cuda.cta_sync()
    for i in T.unroll(2):
        for k in T.unroll(8):
            v[k] = tile[(tx % 8 * 8 + k) * TPITCH + tx // 8 + 32 * i]
        for k in T.vectorized(8):
            b_out[(bx * TT + tx // 8 + 32 * i) * R + by * TT + tx % 8 * 8 + k] = v[k]


@T.macro
def transpose_tile(a_in, b_out, R, C, bx, by, tx, tile, v):
    # b_out[c, r] = a_in[r, c] for the 64 x 64 tile at rows 64 by, columns 64 bx of a_in ([R, C] row-major).
    # Load: rows tx // 8 + 32 i, 8 columns from 8 (tx % 8) (16 bytes). Store: out rows (in columns)
    # tx // 8 + 32 i, 8 out columns (in rows) from 8 (tx % 8).
    for i in T.unroll(2):
        for k in T.vectorized(8):
            v[k] = a_in[(by * TT + tx // 8 + 32 * i) * C + bx * TT + tx % 8 * 8 + k]
        for k in T.unroll(8):
            tile[(tx // 8 + 32 * i) * TPITCH + tx % 8 * 8 + k] = v[k]
    T.cuda.cta_sync()
    for i in T.unroll(2):
        for k in T.unroll(8):
            v[k] = tile[(tx % 8 * 8 + k) * TPITCH + tx // 8 + 32 * i]
        for k in T.vectorized(8):
            b_out[(bx * TT + tx // 8 + 32 * i) * R + by * TT + tx % 8 * 8 + k] = v[k]


@T.prim_func
def transpose_th(in_ptr: T.handle, out_ptr: T.handle):
    # [TOK, HID] -> [HID, TOK]
    a_in = T.match_buffer(in_ptr, (TOK * HID,), "bfloat16")
    b_out = T.match_buffer(out_ptr, (HID * TOK,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([HID // TT, TOK // TT])
    tx = T.thread_id([256])
    tile = T.alloc_buffer((TT * TPITCH,), "bfloat16", scope="shared")
    v = T.alloc_buffer((8,), "bfloat16", scope="local")
    transpose_tile(a_in, b_out, TOK, HID, bx, by, tx, tile, v)


@T.prim_func
def transpose_hi(in_ptr: T.handle, out_ptr: T.handle):
    # [HID, INT] -> [INT, HID]
    a_in = T.match_buffer(in_ptr, (HID * INT,), "bfloat16")
    b_out = T.match_buffer(out_ptr, (INT * HID,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([INT // TT, HID // TT])
    tx = T.thread_id([256])
    tile = T.alloc_buffer((TT * TPITCH,), "bfloat16", scope="shared")
    v = T.alloc_buffer((8,), "bfloat16", scope="local")
    transpose_tile(a_in, b_out, HID, INT, bx, by, tx, tile, v)


@T.prim_func
def transpose_ih(in_ptr: T.handle, out_ptr: T.handle):
    # [INT, HID] -> [HID, INT]
    a_in = T.match_buffer(in_ptr, (INT * HID,), "bfloat16")
    b_out = T.match_buffer(out_ptr, (HID * INT,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([HID // TT, INT // TT])
    tx = T.thread_id([256])
    tile = T.alloc_buffer((TT * TPITCH,), "bfloat16", scope="shared")
    v = T.alloc_buffer((8,), "bfloat16", scope="local")
    transpose_tile(a_in, b_out, INT, HID, bx, by, tx, tile, v)


@T.prim_func
def transpose_ti(in_ptr: T.handle, out_ptr: T.handle):
    # [TOK, INT] -> [INT, TOK]
    a_in = T.match_buffer(in_ptr, (TOK * INT,), "bfloat16")
    b_out = T.match_buffer(out_ptr, (INT * TOK,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([INT // TT, TOK // TT])
    tx = T.thread_id([256])
    tile = T.alloc_buffer((TT * TPITCH,), "bfloat16", scope="shared")
    v = T.alloc_buffer((8,), "bfloat16", scope="local")
    transpose_tile(a_in, b_out, TOK, INT, bx, by, tx, tile, v)


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
def gemm_t_i_h(a_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle):
    # C [TOK, INT] = bf16(A [TOK, HID] . B [INT, HID]^T)
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
def gemm_h_i_t(a_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle):
    # C [HID, INT] = bf16(A [HID, TOK] . B [INT, TOK]^T)
    a_A = T.match_buffer(a_ptr, (HID * TOK,), "bfloat16")
    b_B = T.match_buffer(b_ptr, (INT * TOK,), "bfloat16")
    c_C = T.match_buffer(c_ptr, (HID * INT,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([INT // BN, HID // BM])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    for i in T.unroll(64):
        acc[i] = T.float32(0)
    gemm_mainloop(sm, acc, af, bfr, a_A, TOK, by * BM, b_B, TOK, bx * BN, 0, TOK // BK, tx)
    store_tile(c_C, INT, by * BM, bx * BN, acc, ov, tx)


@T.prim_func
def gemm_i_h_t(a_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle):
    # C [INT, HID] = bf16(A [INT, TOK] . B [HID, TOK]^T)
    a_A = T.match_buffer(a_ptr, (INT * TOK,), "bfloat16")
    b_B = T.match_buffer(b_ptr, (HID * TOK,), "bfloat16")
    c_C = T.match_buffer(c_ptr, (INT * HID,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([HID // BN, INT // BM])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST_EL,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((8,), "uint32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    for i in T.unroll(64):
        acc[i] = T.float32(0)
    gemm_mainloop(sm, acc, af, bfr, a_A, TOK, by * BM, b_B, TOK, bx * BN, 0, TOK // BK, tx)
    store_tile(c_C, HID, by * BM, bx * BN, acc, ov, tx)


@T.prim_func
def gemm_dx(dg_ptr: T.handle, wgt_ptr: T.handle, du_ptr: T.handle, wut_ptr: T.handle, dx_ptr: T.handle):
    # grad_input [T, H] = bf16(dg [T, I] . wgT [H, I]^T + du [T, I] . wuT [H, I]^T), one fp32 accumulation
    a_dg = T.match_buffer(dg_ptr, (TOK * INT,), "bfloat16")
    b_wgt = T.match_buffer(wgt_ptr, (HID * INT,), "bfloat16")
    c_du = T.match_buffer(du_ptr, (TOK * INT,), "bfloat16")
    d_wut = T.match_buffer(wut_ptr, (HID * INT,), "bfloat16")
    e_dx = T.match_buffer(dx_ptr, (TOK * HID,), "bfloat16")
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
    gemm_mainloop(sm, acc, af, bfr, a_dg, INT, by * BM, b_wgt, INT, bx * BN, 0, INT // BK, tx)
    # every warp has finished reading the ring before the second product refills it
    T.cuda.cta_sync()
    gemm_mainloop(sm, acc, af, bfr, c_du, INT, by * BM, d_wut, INT, bx * BN, 0, INT // BK, tx)
    store_tile(e_dx, HID, by * BM, bx * BN, acc, ov, tx)


@T.prim_func
def swiglu_bwd(g_ptr: T.handle, u_ptr: T.handle, act_ptr: T.handle, dh_ptr: T.handle, h_ptr: T.handle,
               dg_ptr: T.handle, du_ptr: T.handle):
    a_g = T.match_buffer(g_ptr, (TOK * INT,), "bfloat16")
    b_u = T.match_buffer(u_ptr, (TOK * INT,), "bfloat16")
    c_act = T.match_buffer(act_ptr, (TOK * INT,), "bfloat16")
    d_dh = T.match_buffer(dh_ptr, (TOK * INT,), "bfloat16")
    e_h = T.match_buffer(h_ptr, (TOK * INT,), "bfloat16")
    f_dg = T.match_buffer(dg_ptr, (TOK * INT,), "bfloat16")
    g_du = T.match_buffer(du_ptr, (TOK * INT,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOK * INT // 2048])
    tx = T.thread_id([256])
    gv = T.alloc_buffer((8,), "bfloat16", scope="local")
    uv = T.alloc_buffer((8,), "bfloat16", scope="local")
    av = T.alloc_buffer((8,), "bfloat16", scope="local")
    dv = T.alloc_buffer((8,), "bfloat16", scope="local")
    hv = T.alloc_buffer((8,), "bfloat16", scope="local")
    gg = T.alloc_buffer((8,), "bfloat16", scope="local")
    uu = T.alloc_buffer((8,), "bfloat16", scope="local")
    f = T.alloc_buffer((3,), "float32", scope="local")     # g, s, grad_act
    for k in T.vectorized(8):
        gv[k] = a_g[bx * 2048 + tx * 8 + k]
    for k in T.vectorized(8):
        uv[k] = b_u[bx * 2048 + tx * 8 + k]
    for k in T.vectorized(8):
        av[k] = c_act[bx * 2048 + tx * 8 + k]
    for k in T.vectorized(8):
        dv[k] = d_dh[bx * 2048 + tx * 8 + k]
    for k in T.unroll(8):
        f[0] = T.Cast("float32", gv[k])
        f[1] = T.float32(1) / (T.float32(1) + T.call_pure_extern("float32", "expf", T.float32(0) - f[0]))
        hv[k] = T.Cast("bfloat16", T.Cast("float32", av[k]) * T.Cast("float32", uv[k]))
        f[2] = T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", dv[k]) * T.Cast("float32", uv[k])))
        uu[k] = T.Cast("bfloat16", T.Cast("float32", dv[k]) * T.Cast("float32", av[k]))
        gg[k] = T.Cast("bfloat16", f[2] * (f[1] * (T.float32(1) + f[0] * (T.float32(1) - f[1]))))
    for k in T.vectorized(8):
        e_h[bx * 2048 + tx * 8 + k] = hv[k]
    for k in T.vectorized(8):
        f_dg[bx * 2048 + tx * 8 + k] = gg[k]
    for k in T.vectorized(8):
        g_du[bx * 2048 + tx * 8 + k] = uu[k]


MKB_PLAN = """/* mkb:plan
scratch goT bf16[hidden_size * batch_size * seq_len]
scratch xT bf16[hidden_size * batch_size * seq_len]
scratch wdT bf16[intermediate_size * hidden_size]
scratch wgT bf16[hidden_size * intermediate_size]
scratch wuT bf16[hidden_size * intermediate_size]
scratch dh bf16[batch_size * seq_len * intermediate_size]
scratch h bf16[batch_size * seq_len * intermediate_size]
scratch dg bf16[batch_size * seq_len * intermediate_size]
scratch du bf16[batch_size * seq_len * intermediate_size]
scratch hT bf16[intermediate_size * batch_size * seq_len]
scratch dgT bf16[intermediate_size * batch_size * seq_len]
scratch duT bf16[intermediate_size * batch_size * seq_len]
launch transpose_th grid(hidden_size / 64, batch_size * seq_len / 64) block(256) args(grad_output, goT)
launch transpose_th grid(hidden_size / 64, batch_size * seq_len / 64) block(256) args(hidden_states, xT)
launch transpose_hi grid(intermediate_size / 64, hidden_size / 64) block(256) args(down_weight, wdT)
launch transpose_ih grid(hidden_size / 64, intermediate_size / 64) block(256) args(gate_weight, wgT)
launch transpose_ih grid(hidden_size / 64, intermediate_size / 64) block(256) args(up_weight, wuT)
launch gemm_t_i_h grid(intermediate_size / 128, batch_size * seq_len / 128) block(256) shared(98304) args(grad_output, wdT, dh)
launch swiglu_bwd grid(batch_size * seq_len * intermediate_size / 2048) block(256) args(gate, up, act, dh, h, dg, du)
launch transpose_ti grid(intermediate_size / 64, batch_size * seq_len / 64) block(256) args(h, hT)
launch transpose_ti grid(intermediate_size / 64, batch_size * seq_len / 64) block(256) args(dg, dgT)
launch transpose_ti grid(intermediate_size / 64, batch_size * seq_len / 64) block(256) args(du, duT)
launch gemm_h_i_t grid(intermediate_size / 128, hidden_size / 128) block(256) shared(98304) args(goT, hT, grad_down_weight)
launch gemm_i_h_t grid(hidden_size / 128, intermediate_size / 128) block(256) shared(98304) args(dgT, xT, grad_gate_weight)
launch gemm_i_h_t grid(hidden_size / 128, intermediate_size / 128) block(256) shared(98304) args(duT, xT, grad_up_weight)
launch gemm_dx grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(98304) args(dg, wgT, du, wuT, grad_input)
*/"""
