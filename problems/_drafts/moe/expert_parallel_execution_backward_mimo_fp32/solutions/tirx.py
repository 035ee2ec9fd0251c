"""MoE backward (MiMo routed SwiGLU experts) in fp32, a TIRx port of solutions/cuda.cu: the same ten launches,
SGEMM core and rounding points. Every routed row is laid out expert after expert (count / offsets / place);
with p = x W_g^T, q = x W_u^T, a = silu(p), h = a q and v = g_out W_d per routed row (w its routing weight):
  gate_up_products: p, q (one grouped product over [W_g; W_u], x rows gathered as the tiles load);
  down_backward_product: v = g_out W_d (g_out rows gathered);
  grad_down_weights: grad_down[e] = sum over e's rows of (w g_out)^T h (h = silu(p) q formed as the tile loads);
  row_backward: a CTA per row: grad_topk_weights = sum_i h_i v_i (per-thread, warp butterfly, warps in order),
    then in place p <- grad_p = ((w v) q) silu'(p), q <- grad_q = (w v) a (the reference's roundings);
  grad_gate_up_weights: grad_gate[e] / grad_up[e] = sum over e's rows of grad_p^T x / grad_q^T x;
  fill_zero + grad_hidden_product: grad_hidden[t] += [grad_p | grad_q] @ [W_g; W_u] (fp32 atomics, as cuda.cu).
SGEMM core: 128 x 128 tile per 256-thread CTA, K slices of 8 double-buffered in shared memory, each thread an
8 x 8 block (rows 4 (t / 16) + i and 64 + 4 (t / 16) + i, columns likewise with t % 16), one fp32 FMA chain per
output (no TF32). An operand is fetched either along k ("trans": thread t takes index t / 2, k = 4 (t % 2) ..
+ 3, stored transposed) or as k-rows ("direct": k-row t / 32, indices 4 (t % 32) .. + 3)."""
from tvm.script import tirx as T

TOKENS, HIDDEN, INTER, EXPERTS, TOPK = 6144, 4096, 1024, 256, 8
ROWS = TOKENS * TOPK
TILES = (ROWS + 127) // 128 + EXPERTS
SEARCH = EXPERTS.bit_length()
BK = 8
assert HIDDEN % 128 == 0 and INTER % 256 == 0


@T.macro
def locate(TOFF, tile, lo, hi):
    lo[0] = 0
    hi[0] = EXPERTS
    for s in T.serial(SEARCH):
        if hi[0] - lo[0] > 1:
            if TOFF[(lo[0] + hi[0]) // 2] <= tile:
                lo[0] = (lo[0] + hi[0]) // 2
            else:
                hi[0] = (lo[0] + hi[0]) // 2


@T.macro
def store_ab(a_s, b_s, ra, rb, buf, a_trans, b_trans, tx):
    if a_trans:
        for e in T.unroll(4):
            a_s[buf * 1024 + (tx % 2 * 4 + e) * 128 + tx // 2] = ra[e]
    else:
        for e in T.vectorized(4):
            a_s[buf * 1024 + tx // 32 * 128 + tx % 32 * 4 + e] = ra[e]
    if b_trans:
        for e in T.unroll(4):
            b_s[buf * 1024 + (tx % 2 * 4 + e) * 128 + tx // 2] = rb[e]
    else:
        for e in T.vectorized(4):
            b_s[buf * 1024 + tx // 32 * 128 + tx % 32 * 4 + e] = rb[e]


@T.macro
def compute(acc, a_s, b_s, af, bf, buf, tx):
    for kk in T.unroll(BK):
        for h in T.unroll(2):
            for e in T.vectorized(4):
                af[h * 4 + e] = a_s[buf * 1024 + kk * 128 + h * 64 + tx // 16 * 4 + e]
            for e in T.vectorized(4):
                bf[h * 4 + e] = b_s[buf * 1024 + kk * 128 + h * 64 + tx % 16 * 4 + e]
        for i in T.unroll(8):
            for j in T.unroll(8):
                acc[i * 8 + j] = acc[i * 8 + j] + af[i] * bf[j]


@T.macro
def zero(acc):
    for v in T.unroll(64):
        acc[v] = T.float32(0)


@T.prim_func
def count_experts(counts_ptr: T.handle, idx_ptr: T.handle):
    COUNTS = T.match_buffer(counts_ptr, (EXPERTS,), "int32")
    IDX = T.match_buffer(idx_ptr, (ROWS,), "int64")
    T.device_entry()
    bx = T.cta_id([ROWS // 256])
    tx = T.thread_id([256])
    T.evaluate(T.cuda.atomic_add(T.address_of(COUNTS[T.Cast("int32", IDX[bx * 256 + tx])]), 1))


@T.prim_func
def expert_offsets(seg_ptr: T.handle, toff_ptr: T.handle, counts_ptr: T.handle):
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    COUNTS = T.match_buffer(counts_ptr, (EXPERTS,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([32])
    rows = T.alloc_buffer((1,), "int32", scope="local")
    tiles = T.alloc_buffer((1,), "int32", scope="local")
    if tx == 0:
        rows[0] = 0
        tiles[0] = 0
        for e in T.serial(EXPERTS):
            SEG[e] = rows[0]
            TOFF[e] = tiles[0]
            rows[0] = rows[0] + COUNTS[e]
            tiles[0] = tiles[0] + (COUNTS[e] + 127) // 128
        SEG[EXPERTS] = rows[0]
        TOFF[EXPERTS] = tiles[0]


@T.prim_func
def place_rows(rtok_ptr: T.handle, rslot_ptr: T.handle, rw_ptr: T.handle, cursor_ptr: T.handle, idx_ptr: T.handle,
               w_ptr: T.handle, seg_ptr: T.handle):
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    RSLOT = T.match_buffer(rslot_ptr, (ROWS,), "int32")
    RW = T.match_buffer(rw_ptr, (ROWS,), "float32")
    CURSOR = T.match_buffer(cursor_ptr, (EXPERTS,), "int32")
    IDX = T.match_buffer(idx_ptr, (ROWS,), "int64")
    W = T.match_buffer(w_ptr, (ROWS,), "float32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx = T.cta_id([ROWS // 256])
    tx = T.thread_id([256])
    p = T.alloc_buffer((1,), "int32", scope="local")
    p[0] = SEG[T.Cast("int32", IDX[bx * 256 + tx])] + T.cuda.atomic_add(T.address_of(CURSOR[T.Cast("int32", IDX[bx * 256 + tx])]), 1)
    RTOK[p[0]] = (bx * 256 + tx) // TOPK
    RSLOT[p[0]] = (bx * 256 + tx) % TOPK
    RW[p[0]] = W[bx * 256 + tx]


@T.prim_func
def gate_up_products(p_ptr: T.handle, q_ptr: T.handle, x_ptr: T.handle, rtok_ptr: T.handle, wg_ptr: T.handle,
                     wu_ptr: T.handle, seg_ptr: T.handle, toff_ptr: T.handle):
    P = T.match_buffer(p_ptr, (ROWS * INTER,), "float32")
    Q = T.match_buffer(q_ptr, (ROWS * INTER,), "float32")
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "float32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    WG = T.match_buffer(wg_ptr, (EXPERTS * INTER * HIDDEN,), "float32")
    WU = T.match_buffer(wu_ptr, (EXPERTS * INTER * HIDDEN,), "float32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by = T.cta_id([2 * INTER // 128, TILES])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        acc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((4,), "float32", scope="local")
        rb = T.alloc_buffer((4,), "float32", scope="local")
        lo = T.alloc_buffer((1,), "int32", scope="local")
        hi = T.alloc_buffer((1,), "int32", scope="local")
        arow = T.alloc_buffer((1,), "int32", scope="local")
        a_s = T.alloc_buffer((2048,), "float32", scope="shared")
        b_s = T.alloc_buffer((2048,), "float32", scope="shared")
        if by < TOFF[EXPERTS]:
            locate(TOFF, by, lo, hi)
            # row0 = SEG[e] + (by - TOFF[e]) * 128; A: x[token of row row0 + tx / 2] (-1: none)
            arow[0] = -1
            if SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + tx // 2 < SEG[lo[0] + 1]:
                arow[0] = RTOK[SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + tx // 2] * HIDDEN
            zero(acc)
            for kt in T.serial(HIDDEN // BK + 1):
                if kt < HIDDEN // BK:           # fetch slice kt (kt = 0: before the loop in cuda.cu)
                    if arow[0] >= 0:
                        for e in T.vectorized(4):
                            ra[e] = X[arow[0] + kt * BK + tx % 2 * 4 + e]
                    else:
                        for e in T.unroll(4):
                            ra[e] = T.float32(0)
                    if bx * 128 < INTER:
                        for e in T.vectorized(4):
                            rb[e] = WG[(lo[0] * INTER + bx * 128 + tx // 2) * HIDDEN + kt * BK + tx % 2 * 4 + e]
                    else:
                        for e in T.vectorized(4):
                            rb[e] = WU[(lo[0] * INTER + bx * 128 - INTER + tx // 2) * HIDDEN + kt * BK + tx % 2 * 4 + e]
                if kt > 0:
                    compute(acc, a_s, b_s, af, bf, (kt - 1) % 2, tx)
                if kt < HIDDEN // BK:
                    store_ab(a_s, b_s, ra, rb, kt % 2, True, True, tx)
                T.cuda.cta_sync()
            for i in T.unroll(8):
                if SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4 < SEG[lo[0] + 1]:
                    for h in T.unroll(2):
                        if bx * 128 < INTER:
                            for e in T.vectorized(4):
                                P[(SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER
                                  + bx * 128 + h * 64 + tx % 16 * 4 + e] = acc[i * 8 + h * 4 + e]
                        else:
                            for e in T.vectorized(4):
                                Q[(SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER
                                  + bx * 128 - INTER + h * 64 + tx % 16 * 4 + e] = acc[i * 8 + h * 4 + e]


@T.prim_func
def down_backward_product(v_ptr: T.handle, g_ptr: T.handle, rtok_ptr: T.handle, wd_ptr: T.handle, seg_ptr: T.handle,
                          toff_ptr: T.handle):
    V = T.match_buffer(v_ptr, (ROWS * INTER,), "float32")
    G = T.match_buffer(g_ptr, (TOKENS * HIDDEN,), "float32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    WD = T.match_buffer(wd_ptr, (EXPERTS * HIDDEN * INTER,), "float32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by = T.cta_id([INTER // 128, TILES])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        acc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((4,), "float32", scope="local")
        rb = T.alloc_buffer((4,), "float32", scope="local")
        lo = T.alloc_buffer((1,), "int32", scope="local")
        hi = T.alloc_buffer((1,), "int32", scope="local")
        arow = T.alloc_buffer((1,), "int32", scope="local")
        a_s = T.alloc_buffer((2048,), "float32", scope="shared")
        b_s = T.alloc_buffer((2048,), "float32", scope="shared")
        if by < TOFF[EXPERTS]:
            locate(TOFF, by, lo, hi)
            arow[0] = -1
            if SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + tx // 2 < SEG[lo[0] + 1]:
                arow[0] = RTOK[SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + tx // 2] * HIDDEN
            zero(acc)
            for kt in T.serial(HIDDEN // BK + 1):
                if kt < HIDDEN // BK:
                    if arow[0] >= 0:
                        for e in T.vectorized(4):
                            ra[e] = G[arow[0] + kt * BK + tx % 2 * 4 + e]
                    else:
                        for e in T.unroll(4):
                            ra[e] = T.float32(0)
                    for e in T.vectorized(4):
                        rb[e] = WD[(lo[0] * HIDDEN + kt * BK + tx // 32) * INTER + bx * 128 + tx % 32 * 4 + e]
                if kt > 0:
                    compute(acc, a_s, b_s, af, bf, (kt - 1) % 2, tx)
                if kt < HIDDEN // BK:
                    store_ab(a_s, b_s, ra, rb, kt % 2, True, False, tx)
                T.cuda.cta_sync()
            for i in T.unroll(8):
                if SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4 < SEG[lo[0] + 1]:
                    for h in T.unroll(2):
                        for e in T.vectorized(4):
                            V[(SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER
                              + bx * 128 + h * 64 + tx % 16 * 4 + e] = acc[i * 8 + h * 4 + e]


@T.prim_func
def grad_down_weights(gd_ptr: T.handle, g_ptr: T.handle, rw_ptr: T.handle, p_ptr: T.handle, q_ptr: T.handle,
                      rtok_ptr: T.handle, seg_ptr: T.handle):
    GD = T.match_buffer(gd_ptr, (EXPERTS * HIDDEN * INTER,), "float32")
    G = T.match_buffer(g_ptr, (TOKENS * HIDDEN,), "float32")
    RW = T.match_buffer(rw_ptr, (ROWS,), "float32")
    P = T.match_buffer(p_ptr, (ROWS * INTER,), "float32")
    Q = T.match_buffer(q_ptr, (ROWS * INTER,), "float32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by, bz = T.cta_id([INTER // 128, HIDDEN // 128, EXPERTS])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        acc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((4,), "float32", scope="local")
        rb = T.alloc_buffer((4,), "float32", scope="local")
        pv = T.alloc_buffer((4,), "float32", scope="local")
        qv = T.alloc_buffer((4,), "float32", scope="local")
        wv = T.alloc_buffer((1,), "float32", scope="local")
        a_s = T.alloc_buffer((2048,), "float32", scope="shared")
        b_s = T.alloc_buffer((2048,), "float32", scope="shared")
        zero(acc)
        # K runs over the expert's rows SEG[e] .. SEG[e + 1]: A = (w g_out)[row, m0 ..], B = h[row, n0 ..]
        for kt in T.serial((SEG[bz + 1] - SEG[bz] + BK - 1) // BK + 1):
            if kt * BK < SEG[bz + 1] - SEG[bz] or kt == 0:
                if SEG[bz] + kt * BK + tx // 32 < SEG[bz + 1]:
                    wv[0] = RW[SEG[bz] + kt * BK + tx // 32]
                    for e in T.vectorized(4):
                        ra[e] = G[RTOK[SEG[bz] + kt * BK + tx // 32] * HIDDEN + by * 128 + tx % 32 * 4 + e]
                    for e in T.unroll(4):
                        ra[e] = ra[e] * wv[0]
                    for e in T.vectorized(4):
                        pv[e] = P[(SEG[bz] + kt * BK + tx // 32) * INTER + bx * 128 + tx % 32 * 4 + e]
                    for e in T.vectorized(4):
                        qv[e] = Q[(SEG[bz] + kt * BK + tx // 32) * INTER + bx * 128 + tx % 32 * 4 + e]
                    for e in T.unroll(4):
                        rb[e] = pv[e] / (T.float32(1) + T.exp(T.float32(0) - pv[e])) * qv[e]
                else:
                    for e in T.unroll(4):
                        ra[e] = T.float32(0)
                        rb[e] = T.float32(0)
            if kt > 0:
                compute(acc, a_s, b_s, af, bf, (kt - 1) % 2, tx)
            if kt * BK < SEG[bz + 1] - SEG[bz] or kt == 0:
                store_ab(a_s, b_s, ra, rb, kt % 2, False, False, tx)
            T.cuda.cta_sync()
        for i in T.unroll(8):
            for h in T.unroll(2):
                for e in T.vectorized(4):
                    GD[(bz * HIDDEN + by * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER
                       + bx * 128 + h * 64 + tx % 16 * 4 + e] = acc[i * 8 + h * 4 + e]


@T.prim_func
def row_backward(gt_ptr: T.handle, p_ptr: T.handle, q_ptr: T.handle, v_ptr: T.handle, rw_ptr: T.handle,
                 rtok_ptr: T.handle, rslot_ptr: T.handle):
    GT = T.match_buffer(gt_ptr, (ROWS,), "float32")
    P = T.match_buffer(p_ptr, (ROWS * INTER,), "float32")
    Q = T.match_buffer(q_ptr, (ROWS * INTER,), "float32")
    V = T.match_buffer(v_ptr, (ROWS * INTER,), "float32")
    RW = T.match_buffer(rw_ptr, (ROWS,), "float32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    RSLOT = T.match_buffer(rslot_ptr, (ROWS,), "int32")
    T.device_entry()
    r = T.cta_id([ROWS])
    tx = T.thread_id([256])
    partial = T.alloc_buffer((8,), "float32", scope="shared")
    dot = T.alloc_buffer((1,), "float32", scope="local")
    x = T.alloc_buffer((1,), "float32", scope="local")
    up = T.alloc_buffer((1,), "float32", scope="local")
    a = T.alloc_buffer((1,), "float32", scope="local")
    vk = T.alloc_buffer((1,), "float32", scope="local")
    gi = T.alloc_buffer((1,), "float32", scope="local")
    s = T.alloc_buffer((1,), "float32", scope="local")
    dot[0] = T.float32(0)
    for it in T.serial(INTER // 256):
        x[0] = P[r * INTER + it * 256 + tx]
        up[0] = Q[r * INTER + it * 256 + tx]
        a[0] = x[0] / (T.float32(1) + T.exp(T.float32(0) - x[0]))
        vk[0] = V[r * INTER + it * 256 + tx]
        dot[0] = dot[0] + a[0] * up[0] * vk[0]
        gi[0] = vk[0] * RW[r]
        s[0] = T.float32(1) / (T.float32(1) + T.exp(T.float32(0) - x[0]))
        P[r * INTER + it * 256 + tx] = gi[0] * up[0] * (s[0] * (T.float32(1) + x[0] * (T.float32(1) - s[0])))
        Q[r * INTER + it * 256 + tx] = gi[0] * a[0]
    dot[0] = T.cuda.warp_sum(dot[0], 32)
    if tx % 32 == 0:
        partial[tx // 32] = dot[0]
    T.cuda.cta_sync()
    if tx == 0:
        s[0] = T.float32(0)
        for j in T.serial(8):
            s[0] = s[0] + partial[j]
        GT[RTOK[r] * TOPK + RSLOT[r]] = s[0]


@T.prim_func
def grad_gate_up_weights(gg_ptr: T.handle, gu_ptr: T.handle, gp_ptr: T.handle, gq_ptr: T.handle, x_ptr: T.handle,
                         rtok_ptr: T.handle, seg_ptr: T.handle):
    GG = T.match_buffer(gg_ptr, (EXPERTS * INTER * HIDDEN,), "float32")
    GU = T.match_buffer(gu_ptr, (EXPERTS * INTER * HIDDEN,), "float32")
    GP = T.match_buffer(gp_ptr, (ROWS * INTER,), "float32")
    GQ = T.match_buffer(gq_ptr, (ROWS * INTER,), "float32")
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "float32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by, bz = T.cta_id([HIDDEN // 128, INTER // 128, 2 * EXPERTS])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        acc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((4,), "float32", scope="local")
        rb = T.alloc_buffer((4,), "float32", scope="local")
        a_s = T.alloc_buffer((2048,), "float32", scope="shared")
        b_s = T.alloc_buffer((2048,), "float32", scope="shared")
        zero(acc)
        # z = bz: expert z % EXPERTS, grad_gate (z < EXPERTS) or grad_up; K over the expert's rows
        for kt in T.serial((SEG[bz % EXPERTS + 1] - SEG[bz % EXPERTS] + BK - 1) // BK + 1):
            if kt * BK < SEG[bz % EXPERTS + 1] - SEG[bz % EXPERTS] or kt == 0:
                if SEG[bz % EXPERTS] + kt * BK + tx // 32 < SEG[bz % EXPERTS + 1]:
                    if bz < EXPERTS:
                        for e in T.vectorized(4):
                            ra[e] = GP[(SEG[bz % EXPERTS] + kt * BK + tx // 32) * INTER + by * 128 + tx % 32 * 4 + e]
                    else:
                        for e in T.vectorized(4):
                            ra[e] = GQ[(SEG[bz % EXPERTS] + kt * BK + tx // 32) * INTER + by * 128 + tx % 32 * 4 + e]
                    for e in T.vectorized(4):
                        rb[e] = X[RTOK[SEG[bz % EXPERTS] + kt * BK + tx // 32] * HIDDEN + bx * 128 + tx % 32 * 4 + e]
                else:
                    for e in T.unroll(4):
                        ra[e] = T.float32(0)
                        rb[e] = T.float32(0)
            if kt > 0:
                compute(acc, a_s, b_s, af, bf, (kt - 1) % 2, tx)
            if kt * BK < SEG[bz % EXPERTS + 1] - SEG[bz % EXPERTS] or kt == 0:
                store_ab(a_s, b_s, ra, rb, kt % 2, False, False, tx)
            T.cuda.cta_sync()
        for i in T.unroll(8):
            for h in T.unroll(2):
                if bz < EXPERTS:
                    for e in T.vectorized(4):
                        GG[(bz % EXPERTS * INTER + by * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4) * HIDDEN
                           + bx * 128 + h * 64 + tx % 16 * 4 + e] = acc[i * 8 + h * 4 + e]
                else:
                    for e in T.vectorized(4):
                        GU[(bz % EXPERTS * INTER + by * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4) * HIDDEN
                           + bx * 128 + h * 64 + tx % 16 * 4 + e] = acc[i * 8 + h * 4 + e]


@T.prim_func
def fill_zero(out_ptr: T.handle):
    OUT = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS * HIDDEN // 1024])
    tx = T.thread_id([256])
    for e in T.vectorized(4):
        OUT[(bx * 256 + tx) * 4 + e] = T.float32(0)


@T.prim_func
def grad_hidden_product(gh_ptr: T.handle, gp_ptr: T.handle, gq_ptr: T.handle, wg_ptr: T.handle, wu_ptr: T.handle,
                        rtok_ptr: T.handle, seg_ptr: T.handle, toff_ptr: T.handle):
    GH = T.match_buffer(gh_ptr, (TOKENS * HIDDEN,), "float32")
    GP = T.match_buffer(gp_ptr, (ROWS * INTER,), "float32")
    GQ = T.match_buffer(gq_ptr, (ROWS * INTER,), "float32")
    WG = T.match_buffer(wg_ptr, (EXPERTS * INTER * HIDDEN,), "float32")
    WU = T.match_buffer(wu_ptr, (EXPERTS * INTER * HIDDEN,), "float32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by = T.cta_id([HIDDEN // 128, TILES])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        acc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((4,), "float32", scope="local")
        rb = T.alloc_buffer((4,), "float32", scope="local")
        lo = T.alloc_buffer((1,), "int32", scope="local")
        hi = T.alloc_buffer((1,), "int32", scope="local")
        a_s = T.alloc_buffer((2048,), "float32", scope="shared")
        b_s = T.alloc_buffer((2048,), "float32", scope="shared")
        if by < TOFF[EXPERTS]:
            locate(TOFF, by, lo, hi)
            zero(acc)
            # A = [grad_p | grad_q] rows (k < INTER: grad_p), B = [W_g[e]; W_u[e]] k-rows; K = 2 INTER
            for kt in T.serial(2 * INTER // BK + 1):
                if kt < 2 * INTER // BK:
                    if SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + tx // 2 < SEG[lo[0] + 1]:
                        if kt * BK < INTER:
                            for e in T.vectorized(4):
                                ra[e] = GP[(SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + tx // 2) * INTER + kt * BK + tx % 2 * 4 + e]
                        else:
                            for e in T.vectorized(4):
                                ra[e] = GQ[(SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + tx // 2) * INTER + kt * BK - INTER + tx % 2 * 4 + e]
                    else:
                        for e in T.unroll(4):
                            ra[e] = T.float32(0)
                    if kt * BK < INTER:
                        for e in T.vectorized(4):
                            rb[e] = WG[(lo[0] * INTER + kt * BK + tx // 32) * HIDDEN + bx * 128 + tx % 32 * 4 + e]
                    else:
                        for e in T.vectorized(4):
                            rb[e] = WU[(lo[0] * INTER + kt * BK - INTER + tx // 32) * HIDDEN + bx * 128 + tx % 32 * 4 + e]
                if kt > 0:
                    compute(acc, a_s, b_s, af, bf, (kt - 1) % 2, tx)
                if kt < 2 * INTER // BK:
                    store_ab(a_s, b_s, ra, rb, kt % 2, True, False, tx)
                T.cuda.cta_sync()
            for i in T.unroll(8):
                if SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4 < SEG[lo[0] + 1]:
                    for j in T.unroll(8):
                        T.evaluate(T.cuda.atomic_add(T.address_of(GH[
                            RTOK[SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + i // 4 * 64 + tx // 16 * 4 + i % 4] * HIDDEN
                            + bx * 128 + j // 4 * 64 + tx % 16 * 4 + j % 4]), acc[i * 8 + j]))


MKB_PLAN = """/* mkb:plan
scratch counts int32[num_routed_experts] zeroed
scratch cursor int32[num_routed_experts] zeroed
scratch seg int32[num_routed_experts + 1]
scratch tile_off int32[num_routed_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_slot int32[num_tokens * num_experts_per_token]
scratch row_w fp32[num_tokens * num_experts_per_token]
scratch p fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch q fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch v fp32[num_tokens * num_experts_per_token * intermediate_size]
launch count_experts grid(num_tokens * num_experts_per_token / 256) block(256) args(counts, topk_indices)
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts)
launch place_rows grid(num_tokens * num_experts_per_token / 256) block(256)
  args(row_token, row_slot, row_w, cursor, topk_indices, topk_weights, seg)
launch gate_up_products grid(2 * intermediate_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(p, q, hidden_states, row_token, gate_weights, up_weights, seg, tile_off)
launch down_backward_product grid(intermediate_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(v, grad_output, row_token, down_weights, seg, tile_off)
launch grad_down_weights grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_output, row_w, p, q, row_token, seg)
launch row_backward grid(num_tokens * num_experts_per_token) block(256)
  args(grad_topk_weights, p, q, v, row_w, row_token, row_slot)
launch grad_gate_up_weights grid(hidden_size / 128, intermediate_size / 128, 2 * num_routed_experts) block(256)
  args(grad_gate_weights, grad_up_weights, p, q, hidden_states, row_token, seg)
launch fill_zero grid(num_tokens * hidden_size / 1024) block(256) args(grad_hidden_states)
launch grad_hidden_product grid(hidden_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(grad_hidden_states, p, q, gate_weights, up_weights, row_token, seg, tile_off)
*/"""
