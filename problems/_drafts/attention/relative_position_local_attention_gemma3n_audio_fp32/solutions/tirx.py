"""Gemma 3n audio local attention (#12), fp32, in TIRx: the three launches of solutions/cuda.cu.
  1. qkv_proj_3xtf32: the three projections x @ W^T on tensor cores with the cuda solution's 3xTF32 split
     (T.ptx.cvt.rna.tf32.f32: big = tf32(a), small = tf32(a - big); a*b ~ small*big' + big*small' +
     big*big', in that order, through T.ptx.mma...m16n8k8...tf32). Each 32-deep k tile is summed by the
     tensor core from zero (the first mma of a tile takes C = 0) and added to fp32 register accumulators,
     so the sum over K = 512 keeps fp32 accuracy. Block tile 128 rows x 128 columns of one of q, k, v
     (grid.x = 3 * 4, the weight chosen by a CTA-uniform branch), 8 warps as 4 (M) x 2 (N), warp tile
     32 x 64, BK = 32, 3-stage cp.async ring, shared rows padded to 36 floats (conflict-free fragment
     loads). Rows past the last frame re-read the last row and are not stored. q's epilogue applies
     (q * q_scale) * softplus(per_dim_scale) with eager's two roundings; q_scale = 0.125 * (1 /
     log1pf(expf(0))) and softplus (x > 20 ? x : log1pf(expf(x))) through the CUDA functions by name
     (T.call_pure_extern), as the cuda solution computes them.
  2. rel_pos_table: P[r] = [sin(r * inv), cos(r * inv)] @ pos_proj_weight^T for distances r = 0..12, one
     CTA per distance, a thread per output column (float4 weight loads, the cuda solution's sum order).
  3. local_attention: a CTA owns 32 consecutive frames of one batch row and 4 heads (128 threads, warp =
     head, lane = frame); the keys and values of frames t0 - 12 .. t0 + 31 are staged in shared memory
     (rows of 257 floats: lanes reading different rows hit different banks; frames outside the row are
     zeros). Per query: 13 logits q.k + q.P[r] (two fmaf chains over the 64 dims), soft cap
     tanhf(l / cap) * cap, softmax over the valid keys (max, expf, sum, divide), weighted sum of values
     (an fmaf chain over the 13 keys); outputs are staged in shared memory and stored coalesced.
The valid flags of the staged frames live in a static shared int array (the cuda solution appends them
to its dynamic shared memory): the plan's shared() is 103776, 176 bytes less."""
from tvm.script import tirx as T

BATCH, SEQ, HID, HEAD_DIM = 64, 1721, 512, 64
ROWS = BATCH * SEQ                        # 110144 projected rows
NUM_TS = 256

# ---- 3xTF32 projection GEMM ----
BM, BN, BK, STAGES = 128, 128, 32, 3
THREADS = 256
LD = BK + 4                               # 36 floats = 144 bytes per shared row
A_TILE = BM * LD                          # floats per stage's A (and B) tile
STAGE_F = 2 * A_TILE                      # 9216 floats per stage
GEMM_SMEM = STAGES * STAGE_F * 4          # 110592 bytes: the plan's shared(...)
KTILES = HID // BK                        # 16
COL_TILES = HID // BN                     # 4
MT = -(-ROWS // BM)                       # 861 row tiles (the last one half full)
assert GEMM_SMEM == 110592 and BM * BK // 4 == 4 * THREADS and MT == 861


@T.macro
def load_stage(sm, slot, X, WQ, WK, WV, which, ctile, m0, k0, tx):
    # 128 rows x 8 chunks of 4 floats for A (x rows, clamped to the last row) and for B (weight rows):
    # thread tx copies chunk tx % 8 of rows tx // 8 + 32 i
    for i in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STAGE_F + (tx // 8 + 32 * i) * LD + tx % 8 * 4]),
            X.ptr_to([T.min(m0 + tx // 8 + 32 * i, ROWS - 1), k0 + tx % 8 * 4]), 16)
    for i in T.unroll(4):
        if which == 0:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([slot * STAGE_F + A_TILE + (tx // 8 + 32 * i) * LD + tx % 8 * 4]),
                WQ.ptr_to([ctile * BN + tx // 8 + 32 * i, k0 + tx % 8 * 4]), 16)
        elif which == 1:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([slot * STAGE_F + A_TILE + (tx // 8 + 32 * i) * LD + tx % 8 * 4]),
                WK.ptr_to([ctile * BN + tx // 8 + 32 * i, k0 + tx % 8 * 4]), 16)
        else:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([slot * STAGE_F + A_TILE + (tx // 8 + 32 * i) * LD + tx % 8 * 4]),
                WV.ptr_to([ctile * BN + tx // 8 + 32 * i, k0 + tx % 8 * 4]), 16)


@T.macro
def store_pair(OUT, row, col, ov):
    for e in T.vectorized(2):
        OUT[row, col + e] = ov[e]


@T.prim_func
def qkv_proj_3xtf32(x_ptr: T.handle, wq_ptr: T.handle, wk_ptr: T.handle, wv_ptr: T.handle, pds_ptr: T.handle,
                    q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle):
    X = T.match_buffer(x_ptr, (ROWS, HID), "float32")
    WQ = T.match_buffer(wq_ptr, (HID, HID), "float32")
    WK = T.match_buffer(wk_ptr, (HID, HID), "float32")
    WV = T.match_buffer(wv_ptr, (HID, HID), "float32")
    PDS = T.match_buffer(pds_ptr, (HEAD_DIM,), "float32")
    Q = T.match_buffer(q_ptr, (ROWS, HID), "float32")
    K = T.match_buffer(k_ptr, (ROWS, HID), "float32")
    V = T.match_buffer(v_ptr, (ROWS, HID), "float32")
    T.device_entry()
    bx, by = T.cta_id([3 * COL_TILES, MT])       # bx: which (bx // 4: q, k, v) and column tile (bx % 4)
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1), as the cuda solution
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        sc = T.alloc_buffer((3,), "float32", scope="local")      # q_scale, softplus of the two columns
        ov = T.alloc_buffer((2,), "float32", scope="local")
        # warp w: rows 32 (w // 2) .., columns 64 (w % 2) ..; lane: g = lane // 4, t = lane % 4
        for mi in T.unroll(2):
            for ni in T.unroll(8):
                for e in T.unroll(4):
                    acc[mi, ni, e] = T.float32(0)
        for s in T.unroll(STAGES - 1):
            load_stage(sm, s, X, WQ, WK, WV, bx // COL_TILES, bx % COL_TILES, by * BM, s * BK, tx)
            T.ptx.cp.async_.commit_group()
        for kt in T.serial(KTILES):
            T.ptx.cp.async_.wait_group(STAGES - 2)   # tile kt has landed (one group is committed per iteration)
            T.cuda.cta_sync()                        # ... for every thread; stage (kt - 1) % 3 is free again
            if kt + STAGES - 1 < KTILES:
                load_stage(sm, (kt + STAGES - 1) % STAGES, X, WQ, WK, WV, bx // COL_TILES, bx % COL_TILES, by * BM,
                           (kt + STAGES - 1) * BK, tx)
            T.ptx.cp.async_.commit_group()
            # A fragments of the 32-deep tile (m16 x k8, row-major): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4),
            # a3 (g + 8, t + 4), each split into big and small tf32 parts
            for mi in T.unroll(2):
                for ks in T.unroll(4):
                    for e in T.unroll(4):
                        fv[0] = sm[kt % STAGES * STAGE_F + (tx // 64 * 32 + mi * 16 + tx % 32 // 4 + e % 2 * 8) * LD
                                   + ks * 8 + tx % 4 + e // 2 * 4]
                        T.ptx.cvt.rna.tf32.f32(a_big[mi, ks, e], fv[0])
                        T.ptx.cvt.rna.tf32.f32(a_small[mi, ks, e], fv[0] - T.reinterpret("float32", a_big[mi, ks, e]))
            for n2 in T.unroll(4):
                # B fragments (k8 x n8, col): b0 (k = t, n = g), b1 (k = t + 4, n = g) of n tiles 2 n2 + j
                for j in T.unroll(2):
                    for ks in T.unroll(4):
                        for e in T.unroll(2):
                            fv[0] = sm[kt % STAGES * STAGE_F + A_TILE
                                       + (tx // 32 % 2 * 64 + (n2 * 2 + j) * 8 + tx % 32 // 4) * LD + ks * 8 + tx % 4 + e * 4]
                            T.ptx.cvt.rna.tf32.f32(b_big[j, ks, e], fv[0])
                            T.ptx.cvt.rna.tf32.f32(b_small[j, ks, e], fv[0] - T.reinterpret("float32", b_big[j, ks, e]))
                # the tile's 32-deep partial product from zero: small*big, big*small, big*big per k step of 8
                for j in T.unroll(2):
                    for mi in T.unroll(2):
                        T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                            d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
                            a_small[mi, 0, 0], a_small[mi, 0, 1], a_small[mi, 0, 2], a_small[mi, 0, 3],
                            b_big[j, 0, 0], b_big[j, 0, 1],
                            T.float32(0), T.float32(0), T.float32(0), T.float32(0))
                for j in T.unroll(2):
                    for mi in T.unroll(2):
                        T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                            d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
                            a_big[mi, 0, 0], a_big[mi, 0, 1], a_big[mi, 0, 2], a_big[mi, 0, 3],
                            b_small[j, 0, 0], b_small[j, 0, 1],
                            d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3])
                for j in T.unroll(2):
                    for mi in T.unroll(2):
                        T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                            d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
                            a_big[mi, 0, 0], a_big[mi, 0, 1], a_big[mi, 0, 2], a_big[mi, 0, 3],
                            b_big[j, 0, 0], b_big[j, 0, 1],
                            d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3])
                for ks in T.unroll(1, 4):
                    for j in T.unroll(2):
                        for mi in T.unroll(2):
                            T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                                d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
                                a_small[mi, ks, 0], a_small[mi, ks, 1], a_small[mi, ks, 2], a_small[mi, ks, 3],
                                b_big[j, ks, 0], b_big[j, ks, 1],
                                d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3])
                    for j in T.unroll(2):
                        for mi in T.unroll(2):
                            T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                                d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
                                a_big[mi, ks, 0], a_big[mi, ks, 1], a_big[mi, ks, 2], a_big[mi, ks, 3],
                                b_small[j, ks, 0], b_small[j, ks, 1],
                                d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3])
                    for j in T.unroll(2):
                        for mi in T.unroll(2):
                            T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                                d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
                                a_big[mi, ks, 0], a_big[mi, ks, 1], a_big[mi, ks, 2], a_big[mi, ks, 3],
                                b_big[j, ks, 0], b_big[j, ks, 1],
                                d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3])
                for j in T.unroll(2):
                    for mi in T.unroll(2):
                        for e in T.unroll(4):
                            acc[mi, n2 * 2 + j, e] = acc[mi, n2 * 2 + j, e] + d[j, mi, e]
        T.ptx.cp.async_.wait_group(0)

        # acc[mi, ni, 2h + e]: row 32 (w // 2) + 16 mi + g + 8 h, column 64 (w % 2) + 8 ni + 2 t + e of the tile
        sc[0] = T.float32(0.125) * (T.float32(1) / T.call_pure_extern(
            "float32", "log1pf", T.call_pure_extern("float32", "expf", T.float32(0))))
        for mi in T.unroll(2):
            for h in T.unroll(2):
                if by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8 < ROWS:
                    for ni in T.unroll(8):
                        if bx // COL_TILES == 0:
                            for e in T.unroll(2):
                                sc[1] = PDS[(tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e) % HEAD_DIM]
                                sc[2] = T.Select(sc[1] > T.float32(20), sc[1], T.call_pure_extern(
                                    "float32", "log1pf", T.call_pure_extern("float32", "expf", sc[1])))
                                ov[e] = (acc[mi, ni, h * 2 + e] * sc[0]) * sc[2]
                            store_pair(Q, by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8,
                                       bx % COL_TILES * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2, ov)
                        else:
                            for e in T.unroll(2):
                                ov[e] = acc[mi, ni, h * 2 + e]
                            if bx // COL_TILES == 1:
                                store_pair(K, by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8,
                                           bx % COL_TILES * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2, ov)
                            else:
                                store_pair(V, by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8,
                                           bx % COL_TILES * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2, ov)


# ---- relative-position table: P[r, o] = sum_j sig_r[j] * Wpos[o, j] ----
WINDOW = 13                               # distances 0..12


@T.prim_func
def rel_pos_table(table_ptr: T.handle, inv_ptr: T.handle, wpos_ptr: T.handle):
    TAB = T.match_buffer(table_ptr, (WINDOW, HID), "float32")
    INV = T.match_buffer(inv_ptr, (NUM_TS,), "float32")
    WPOS = T.match_buffer(wpos_ptr, (HID, HID), "float32")
    T.device_entry()
    r = T.cta_id([WINDOW])
    tx = T.thread_id([HID])                   # thread tx: output column o = tx
    sig = T.alloc_buffer((HID,), "float32", scope="shared")
    wv = T.alloc_buffer((4,), "float32", scope="local")
    s = T.alloc_buffer((1,), "float32", scope="local")
    if tx < NUM_TS:
        sig[tx] = T.sin(T.Cast("float32", r) * INV[tx])
    else:
        sig[tx] = T.cos(T.Cast("float32", r) * INV[tx - NUM_TS])
    T.cuda.cta_sync()
    s[0] = T.float32(0)
    for j in T.serial(HID // 4):
        for e in T.vectorized(4):
            wv[e] = WPOS[tx, j * 4 + e]
        s[0] = s[0] + sig[4 * j] * wv[0] + sig[4 * j + 1] * wv[1] + sig[4 * j + 2] * wv[2] + sig[4 * j + 3] * wv[3]
    TAB[r, tx] = s[0]


# ---- local attention ----
FRAMES = 32                               # query frames per CTA
KROWS = FRAMES + WINDOW - 1               # 44 staged key rows: frames t0 - 12 .. t0 + 31
GROUP_HEADS = 4
GW = GROUP_HEADS * HEAD_DIM               # 256 floats of a row per head group
SLD = GW + 1                              # 257
ATT_SMEM = (2 * KROWS * SLD + WINDOW * GW) * 4   # 103776 bytes: the plan's shared(...)
ATT_THREADS = 128
assert ATT_SMEM == 103776 and KROWS * GW // 4 == 22 * ATT_THREADS and FRAMES * GW == 64 * ATT_THREADS


@T.prim_func
def local_attention(out_ptr: T.handle, q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, table_ptr: T.handle,
                    mask_ptr: T.handle, cap: T.float32):
    OUT = T.match_buffer(out_ptr, (BATCH, SEQ, HID), "float32")      # [B, T, N, H] as [B, T, N * H]
    Q = T.match_buffer(q_ptr, (BATCH, SEQ, HID), "float32")
    K = T.match_buffer(k_ptr, (BATCH, SEQ, HID), "float32")
    V = T.match_buffer(v_ptr, (BATCH, SEQ, HID), "float32")
    TAB = T.match_buffer(table_ptr, (WINDOW, HID), "float32")
    MASK = T.match_buffer(mask_ptr, (BATCH, SEQ), "uint8")
    T.device_entry()
    bx, by, bz = T.cta_id([-(-SEQ // FRAMES), 2, BATCH])     # frames 32 bx .., head group by, batch row bz
    tx = T.thread_id([ATT_THREADS])
    sm = T.alloc_buffer((2 * KROWS * SLD + WINDOW * GW,), "float32", scope="shared.dyn")   # ks | vs | ptab
    valid = T.alloc_buffer((KROWS,), "int32", scope="shared")
    kv4 = T.alloc_buffer((4,), "float32", scope="local")
    vv4 = T.alloc_buffer((4,), "float32", scope="local")
    qr = T.alloc_buffer((HEAD_DIM,), "float32", scope="local")
    p = T.alloc_buffer((WINDOW,), "float32", scope="local")
    st = T.alloc_buffer((4,), "float32", scope="local")       # ac, bd, max, sum
    # staged row r (0..43) is frame bx * 32 - 12 + r; chunk (tx + 128 i) % 64 of 4 floats of row (tx + 128 i) // 64
    for i in T.unroll(KROWS * GW // 4 // ATT_THREADS):
        if bx * FRAMES - (WINDOW - 1) + (tx + ATT_THREADS * i) // 64 >= 0 and \
                bx * FRAMES - (WINDOW - 1) + (tx + ATT_THREADS * i) // 64 < SEQ:
            for e in T.vectorized(4):
                kv4[e] = K[bz, bx * FRAMES - (WINDOW - 1) + (tx + ATT_THREADS * i) // 64,
                           by * GW + (tx + ATT_THREADS * i) % 64 * 4 + e]
            for e in T.vectorized(4):
                vv4[e] = V[bz, bx * FRAMES - (WINDOW - 1) + (tx + ATT_THREADS * i) // 64,
                           by * GW + (tx + ATT_THREADS * i) % 64 * 4 + e]
        else:
            for e in T.unroll(4):
                kv4[e] = T.float32(0)
                vv4[e] = T.float32(0)
        for e in T.unroll(4):
            sm[(tx + ATT_THREADS * i) // 64 * SLD + (tx + ATT_THREADS * i) % 64 * 4 + e] = kv4[e]
            sm[KROWS * SLD + (tx + ATT_THREADS * i) // 64 * SLD + (tx + ATT_THREADS * i) % 64 * 4 + e] = vv4[e]
    for i in T.serial(WINDOW * GW // ATT_THREADS):
        sm[2 * KROWS * SLD + tx + ATT_THREADS * i] = TAB[(tx + ATT_THREADS * i) // GW, by * GW + (tx + ATT_THREADS * i) % GW]
    if tx < KROWS:
        valid[tx] = T.Select(bx * FRAMES - (WINDOW - 1) + tx >= 0 and bx * FRAMES - (WINDOW - 1) + tx < SEQ, 1, 0)
        if valid[tx] == 1:
            valid[tx] = T.Select(MASK[bz, bx * FRAMES - (WINDOW - 1) + tx] == T.uint8(0), 1, 0)

    # warp = local head hl = tx // 32, lane = frame i = tx % 32 of the CTA: query frame t = bx * 32 + i
    if bx * FRAMES + tx % 32 < SEQ:
        for dq in T.unroll(HEAD_DIM // 4):
            for e in T.vectorized(4):
                qr[dq * 4 + e] = Q[bz, bx * FRAMES + tx % 32, by * GW + tx // 32 * HEAD_DIM + dq * 4 + e]
    T.cuda.cta_sync()

    if bx * FRAMES + tx % 32 < SEQ:
        st[2] = T.float32(float("-inf"))
        for r in T.unroll(WINDOW):
            # key frame t - r: staged row i + 12 - r
            st[0] = T.float32(0)
            st[1] = T.float32(0)
            for dd in T.unroll(HEAD_DIM):
                st[0] = T.call_pure_extern("float32", "fmaf", qr[dd], sm[(tx % 32 + (WINDOW - 1) - r) * SLD + tx // 32 * HEAD_DIM + dd], st[0])
                st[1] = T.call_pure_extern("float32", "fmaf", qr[dd], sm[2 * KROWS * SLD + r * GW + tx // 32 * HEAD_DIM + dd], st[1])
            p[r] = T.Select(valid[tx % 32 + (WINDOW - 1) - r] == 1, T.tanh((st[0] + st[1]) / cap) * cap,
                            T.float32(float("-inf")))
            st[2] = T.max(st[2], p[r])
        st[3] = T.float32(0)
        for r in T.unroll(WINDOW):
            p[r] = T.Select(valid[tx % 32 + (WINDOW - 1) - r] == 1, T.exp(p[r] - st[2]), T.float32(0))
            st[3] = st[3] + p[r]
        for r in T.unroll(WINDOW):
            p[r] = p[r] / st[3]
    T.cuda.cta_sync()   # the staged keys are free: they become the output staging area
    if bx * FRAMES + tx % 32 < SEQ:
        for dd in T.serial(HEAD_DIM):
            st[0] = T.float32(0)
            for r in T.unroll(WINDOW):
                st[0] = T.call_pure_extern("float32", "fmaf", p[r], sm[KROWS * SLD + (tx % 32 + (WINDOW - 1) - r) * SLD + tx // 32 * HEAD_DIM + dd], st[0])
            sm[tx % 32 * SLD + tx // 32 * HEAD_DIM + dd] = st[0]
    T.cuda.cta_sync()
    for i in T.serial(FRAMES * GW // ATT_THREADS):
        if bx * FRAMES + (tx + ATT_THREADS * i) // GW < SEQ:
            OUT[bz, bx * FRAMES + (tx + ATT_THREADS * i) // GW, by * GW + (tx + ATT_THREADS * i) % GW] = \
                sm[(tx + ATT_THREADS * i) // GW * SLD + (tx + ATT_THREADS * i) % GW]


MKB_PLAN = """/* mkb:plan
scratch qs fp32[batch_size * seq_len * hidden_size]
scratch ks fp32[batch_size * seq_len * hidden_size]
scratch vs fp32[batch_size * seq_len * hidden_size]
scratch ptab fp32[num_rel_positions * hidden_size]
launch qkv_proj_3xtf32 grid(12, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(hidden_states, q_proj_weight, k_proj_weight, v_proj_weight, per_dim_scale, qs, ks, vs)
launch rel_pos_table grid(num_rel_positions) block(512) args(ptab, inv_timescales, pos_proj_weight)
launch local_attention grid(ceil_div(seq_len, 32), 2, batch_size) block(128) shared(103776)
  args(context_vectors, qs, ks, vs, ptab, mask, f32(attention_logits_soft_cap))
*/"""
