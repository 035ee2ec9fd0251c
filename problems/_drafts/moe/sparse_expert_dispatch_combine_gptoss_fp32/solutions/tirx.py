"""GPT-OSS sparse experts in fp32, a TIRx port of solutions/cuda.cu (same six launches, same SGEMM core, same
rounding points):
  1. count_experts: a thread per (token, slot), atomicAdd on the expert's count.
  2. expert_offsets: one thread: each expert's first row (seg) and first 128-row tile (tile_off).
  3. place_rows: a thread per token sorts its 4 experts ascending and takes a row of each (atomic cursor):
     row_token / row_expert / row_weight per row, pos_sorted[t, j] = the row of its j-th smallest expert.
  4. gate_up_glu: the grouped gate/up product (x rows gathered through row_token as the tiles load) and, in
     the epilogue, bias, clamps and GLU; a thread owns whole (gate, up) column pairs, so only the 2880-wide
     GLU output goes to memory.
  5. down_weighted: the grouped down product, epilogue (acc + bias) * routing weight.
  6. combine: a CTA per token adds its 4 rows in ascending expert order (fp32, index_add_ order).
SGEMM core (a T.macro): 128 x 128 tile per 256-thread CTA, K slices of 8 double-buffered through shared
memory (A stored [k][m] transposed from float4 row loads, B [k][n] from float4 loads of the N-contiguous
weight), each thread an 8 x 8 block: rows 4 (tid / 16) + i and 64 + 4 (tid / 16) + i, columns likewise with
tid % 16; one fp32 FMA chain per output over K, as cuda.cu (no TF32). CTA (x, y): column tile x, row tile y
of the tile list (tile y belongs to the expert found by a binary search in tile_off; tiles past the last
one exit). gate_up_projection has 2.1e9 elements: its buffer has int64 extents and its indices are int64."""
from tvm.script import tirx as T

TOKENS, HIDDEN, INTER, EXPERTS, TOPK = 16384, 2880, 2880, 128, 4
ROWS = TOKENS * TOPK                         # routed rows
BM, BN, BK = 128, 128, 8
THREADS = 256
N1, K1 = 2 * INTER, HIDDEN                   # gate/up product: [rows, 5760] = x[rows, 2880] @ W[2880, 5760]
N2, K2 = HIDDEN, INTER                       # down product
TILES = (ROWS + BM - 1) // BM + EXPERTS      # bound on the row tiles of all experts
SEARCH = EXPERTS.bit_length()                # binary-search steps over tile_off (8 for 128 experts)
assert K1 % BK == 0 and K2 % BK == 0 and N1 % 4 == 0 and N2 % 4 == 0 and HIDDEN % 4 == 0 and TOPK <= 8


@T.macro
def locate(tile_off, tile, lo, hi):
    # lo[0] = the expert e with tile_off[e] <= tile < tile_off[e + 1] (cuda.cu's binary search)
    lo[0] = 0
    hi[0] = EXPERTS
    for it in T.serial(SEARCH):
        if hi[0] - lo[0] > 1:
            if tile_off[(lo[0] + hi[0]) // 2] <= tile:
                lo[0] = (lo[0] + hi[0]) // 2
            else:
                hi[0] = (lo[0] + hi[0]) // 2


@T.macro
def sgemm_tile(acc, A, a_base, a_ok, W, w_base, n0, NDIM, KDIM, a_s, b_s, ra, rb, af, bf, tx):
    # acc[i * 8 + j] = sum_k A[a_base(row) + k] * W[w_base + k * NDIM + col]; thread tx loads A row tx / 2 of
    # the tile (a_base: its first element, a_ok: the row exists) at k = 4 (tx % 2) .. + 3 and W row k = tx / 32
    # at columns n0 + 4 (tx % 32) .. + 3 (zero past NDIM).
    for e in T.unroll(64):
        acc[e] = T.float32(0)
    if a_ok[0] == 1:
        for e in T.vectorized(4):
            ra[e] = A[a_base[0] + tx % 2 * 4 + e]
    else:
        for e in T.unroll(4):
            ra[e] = T.float32(0)
    if n0 + tx % 32 * 4 < NDIM:
        for e in T.vectorized(4):
            rb[e] = W[w_base + T.Cast("int64", tx // 32 * NDIM + n0 + tx % 32 * 4 + e)]
    else:
        for e in T.unroll(4):
            rb[e] = T.float32(0)
    for e in T.unroll(4):
        a_s[(tx % 2 * 4 + e) * BM + tx // 2] = ra[e]
    for e in T.vectorized(4):
        b_s[tx // 32 * BN + tx % 32 * 4 + e] = rb[e]
    T.cuda.cta_sync()
    for kt in T.serial(KDIM // BK):
        if kt + 1 < KDIM // BK:
            if a_ok[0] == 1:
                for e in T.vectorized(4):
                    ra[e] = A[a_base[0] + (kt + 1) * BK + tx % 2 * 4 + e]
            if n0 + tx % 32 * 4 < NDIM:
                for e in T.vectorized(4):
                    rb[e] = W[w_base + T.Cast("int64", ((kt + 1) * BK + tx // 32) * NDIM + n0 + tx % 32 * 4 + e)]
        for kk in T.unroll(BK):
            for h in T.unroll(2):
                for e in T.vectorized(4):
                    af[h * 4 + e] = a_s[kt % 2 * (BK * BM) + kk * BM + h * 64 + tx // 16 * 4 + e]
                for e in T.vectorized(4):
                    bf[h * 4 + e] = b_s[kt % 2 * (BK * BN) + kk * BN + h * 64 + tx % 16 * 4 + e]
            for i in T.unroll(8):
                for j in T.unroll(8):
                    acc[i * 8 + j] = acc[i * 8 + j] + af[i] * bf[j]
        if kt + 1 < KDIM // BK:
            for e in T.unroll(4):
                a_s[(kt + 1) % 2 * (BK * BM) + (tx % 2 * 4 + e) * BM + tx // 2] = ra[e]
            for e in T.vectorized(4):
                b_s[(kt + 1) % 2 * (BK * BN) + tx // 32 * BN + tx % 32 * 4 + e] = rb[e]
        T.cuda.cta_sync()


@T.prim_func
def count_experts(counts_ptr: T.handle, idx_ptr: T.handle):
    COUNTS = T.match_buffer(counts_ptr, (EXPERTS,), "int32")
    IDX = T.match_buffer(idx_ptr, (ROWS,), "int64")
    T.device_entry()
    bx = T.cta_id([(ROWS + 255) // 256])
    tx = T.thread_id([256])
    if bx * 256 + tx < ROWS:
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
            tiles[0] = tiles[0] + (COUNTS[e] + BM - 1) // BM
        SEG[EXPERTS] = rows[0]
        TOFF[EXPERTS] = tiles[0]


@T.prim_func
def place_rows(rtok_ptr: T.handle, rexp_ptr: T.handle, rw_ptr: T.handle, pos_ptr: T.handle, cursor_ptr: T.handle,
               idx_ptr: T.handle, weights_ptr: T.handle, seg_ptr: T.handle):
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    REXP = T.match_buffer(rexp_ptr, (ROWS,), "int32")
    RW = T.match_buffer(rw_ptr, (ROWS,), "float32")
    POS = T.match_buffer(pos_ptr, (ROWS,), "int32")
    CURSOR = T.match_buffer(cursor_ptr, (EXPERTS,), "int32")
    IDX = T.match_buffer(idx_ptr, (ROWS,), "int64")
    RWT = T.match_buffer(weights_ptr, (TOKENS * EXPERTS,), "float32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx = T.cta_id([(TOKENS + 255) // 256])
    tx = T.thread_id([256])
    ex = T.alloc_buffer((TOPK,), "int32", scope="local")
    tmp = T.alloc_buffer((1,), "int32", scope="local")
    p = T.alloc_buffer((1,), "int32", scope="local")
    if bx * 256 + tx < TOKENS:
        for j in T.unroll(TOPK):
            ex[j] = T.Cast("int32", IDX[(bx * 256 + tx) * TOPK + j])
        for a in T.serial(1, TOPK):            # insertion sort, ascending
            for b in T.serial(a):
                if ex[a - b - 1] > ex[a - b]:
                    tmp[0] = ex[a - b]
                    ex[a - b] = ex[a - b - 1]
                    ex[a - b - 1] = tmp[0]
        for j in T.unroll(TOPK):
            p[0] = SEG[ex[j]] + T.cuda.atomic_add(T.address_of(CURSOR[ex[j]]), 1)
            RTOK[p[0]] = bx * 256 + tx
            REXP[p[0]] = ex[j]
            RW[p[0]] = RWT[(bx * 256 + tx) * EXPERTS + ex[j]]
            POS[(bx * 256 + tx) * TOPK + j] = p[0]


@T.prim_func
def gate_up_glu(gated_ptr: T.handle, x_ptr: T.handle, rtok_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle,
                seg_ptr: T.handle, toff_ptr: T.handle, alpha: T.float32, limit: T.float32):
    GATED = T.match_buffer(gated_ptr, (ROWS * INTER,), "float32")
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "float32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    W = T.match_buffer(w_ptr, (T.int64(EXPERTS * K1 * N1),), "float32")
    BIAS = T.match_buffer(bias_ptr, (EXPERTS * N1,), "float32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by = T.cta_id([(N1 + BN - 1) // BN, TILES])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        acc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((4,), "float32", scope="local")
        rb = T.alloc_buffer((4,), "float32", scope="local")
        lo = T.alloc_buffer((1,), "int32", scope="local")
        hi = T.alloc_buffer((1,), "int32", scope="local")
        a_base = T.alloc_buffer((1,), "int32", scope="local")
        a_ok = T.alloc_buffer((1,), "int32", scope="local")
        g = T.alloc_buffer((1,), "float32", scope="local")
        u = T.alloc_buffer((1,), "float32", scope="local")
        sig = T.alloc_buffer((1,), "float32", scope="local")
        outv = T.alloc_buffer((2,), "float32", scope="local")
        a_s = T.alloc_buffer((2 * BK * BM,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * BK * BN,), "float32", scope="shared")
        if by < TOFF[EXPERTS]:
            locate(TOFF, by, lo, hi)
            # row0 = SEG[e] + (by - TOFF[e]) * BM, rows end at SEG[e + 1]; e = lo[0]
            a_ok[0] = T.Select(SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + tx // 2 < SEG[lo[0] + 1], 1, 0)
            a_base[0] = 0
            if a_ok[0] == 1:
                a_base[0] = RTOK[SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + tx // 2] * K1
            sgemm_tile(acc, X, a_base, a_ok, W, T.Cast("int64", lo[0]) * (K1 * N1), bx * BN, N1, K1,
                       a_s, b_s, ra, rb, af, bf, tx)
            for i in T.unroll(8):
                if SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < SEG[lo[0] + 1]:
                    for h in T.unroll(2):
                        if bx * BN + h * 64 + tx % 16 * 4 < N1:
                            for p in T.unroll(2):
                                g[0] = T.min(acc[i * 8 + h * 4 + p * 2]
                                             + BIAS[lo[0] * N1 + bx * BN + h * 64 + tx % 16 * 4 + p * 2], limit)
                                u[0] = T.min(T.max(acc[i * 8 + h * 4 + p * 2 + 1]
                                                   + BIAS[lo[0] * N1 + bx * BN + h * 64 + tx % 16 * 4 + p * 2 + 1],
                                                   T.float32(0) - limit), limit)
                                sig[0] = T.float32(1) / (T.float32(1) + T.exp(T.float32(0) - g[0] * alpha))
                                outv[p] = (u[0] + T.float32(1)) * (g[0] * sig[0])
                            for p in T.vectorized(2):
                                GATED[(SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER
                                      + (bx * BN + h * 64 + tx % 16 * 4) // 2 + p] = outv[p]


@T.prim_func
def down_weighted(weighted_ptr: T.handle, gated_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, rw_ptr: T.handle,
                  seg_ptr: T.handle, toff_ptr: T.handle):
    WEIGHTED = T.match_buffer(weighted_ptr, (ROWS * N2,), "float32")
    GATED = T.match_buffer(gated_ptr, (ROWS * INTER,), "float32")
    W = T.match_buffer(w_ptr, (T.int64(EXPERTS * K2 * N2),), "float32")
    BIAS = T.match_buffer(bias_ptr, (EXPERTS * N2,), "float32")
    RW = T.match_buffer(rw_ptr, (ROWS,), "float32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by = T.cta_id([(N2 + BN - 1) // BN, TILES])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        acc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((4,), "float32", scope="local")
        rb = T.alloc_buffer((4,), "float32", scope="local")
        lo = T.alloc_buffer((1,), "int32", scope="local")
        hi = T.alloc_buffer((1,), "int32", scope="local")
        a_base = T.alloc_buffer((1,), "int32", scope="local")
        a_ok = T.alloc_buffer((1,), "int32", scope="local")
        wgt = T.alloc_buffer((1,), "float32", scope="local")
        outv = T.alloc_buffer((4,), "float32", scope="local")
        a_s = T.alloc_buffer((2 * BK * BM,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * BK * BN,), "float32", scope="shared")
        if by < TOFF[EXPERTS]:
            locate(TOFF, by, lo, hi)
            a_ok[0] = T.Select(SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + tx // 2 < SEG[lo[0] + 1], 1, 0)
            a_base[0] = (SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + tx // 2) * K2
            sgemm_tile(acc, GATED, a_base, a_ok, W, T.Cast("int64", lo[0]) * (K2 * N2), bx * BN, N2, K2,
                       a_s, b_s, ra, rb, af, bf, tx)
            for i in T.unroll(8):
                if SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < SEG[lo[0] + 1]:
                    wgt[0] = RW[SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4]
                    for h in T.unroll(2):
                        if bx * BN + h * 64 + tx % 16 * 4 < N2:
                            for e in T.unroll(4):
                                outv[e] = (acc[i * 8 + h * 4 + e]
                                           + BIAS[lo[0] * N2 + bx * BN + h * 64 + tx % 16 * 4 + e]) * wgt[0]
                            for e in T.vectorized(4):
                                WEIGHTED[(SEG[lo[0]] + (by - TOFF[lo[0]]) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * N2
                                         + bx * BN + h * 64 + tx % 16 * 4 + e] = outv[e]


@T.prim_func
def combine(out_ptr: T.handle, weighted_ptr: T.handle, pos_ptr: T.handle):
    OUT = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "float32")
    WEIGHTED = T.match_buffer(weighted_ptr, (ROWS * HIDDEN,), "float32")
    POS = T.match_buffer(pos_ptr, (ROWS,), "int32")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([256])
    s = T.alloc_buffer((4,), "float32", scope="local")
    v = T.alloc_buffer((4,), "float32", scope="local")
    for it in T.serial((HIDDEN // 4 + 255) // 256):
        if it * 1024 + tx * 4 < HIDDEN:
            for e in T.unroll(4):
                s[e] = T.float32(0)
            for j in T.serial(TOPK):                    # ascending expert order, a rounding per add
                for e in T.vectorized(4):
                    v[e] = WEIGHTED[POS[bx * TOPK + j] * HIDDEN + it * 1024 + tx * 4 + e]
                for e in T.unroll(4):
                    s[e] = s[e] + v[e]
            for e in T.vectorized(4):
                OUT[bx * HIDDEN + it * 1024 + tx * 4 + e] = s[e]


MKB_PLAN = """/* mkb:plan
scratch counts int32[num_local_experts] zeroed
scratch cursor int32[num_local_experts] zeroed
scratch seg int32[num_local_experts + 1]
scratch tile_off int32[num_local_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_expert int32[num_tokens * num_experts_per_token]
scratch row_weight fp32[num_tokens * num_experts_per_token]
scratch pos_sorted int32[num_tokens * num_experts_per_token]
scratch gated fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch weighted fp32[num_tokens * num_experts_per_token * hidden_size]
launch count_experts grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256) args(counts, router_indices)
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts)
launch place_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(row_token, row_expert, row_weight, pos_sorted, cursor, router_indices, routing_weights, seg)
launch gate_up_glu grid(ceil_div(2 * intermediate_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(gated, hidden_states, row_token, gate_up_projection, gate_up_projection_bias, seg, tile_off, f32(glu_alpha), f32(glu_limit))
launch down_weighted grid(ceil_div(hidden_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(weighted, gated, down_projection, down_projection_bias, row_weight, seg, tile_off)
launch combine grid(num_tokens) block(256) args(next_states, weighted, pos_sorted)
*/"""
