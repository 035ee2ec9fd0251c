"""Fused backward of embedding lookup + RMSNorm (Jamba, hidden 4096, vocab 65536) in TIRx: the algorithm of
solutions/triton.py (float atomics for the segments that cross a chunk boundary, which reference.md allows;
otherwise as solutions/cuda.cu).

1. count_ids / scan_counts / bucket_tokens: a counting sort of the 32768 token ids. counts[v] (int
   atomics), seg_start[v] = exclusive prefix sum of counts, seg_end[v] = the cursor, seg_start[v] +
   counts[v] after bucketing; order[p] = token and sorted_ids[p] = its id for sorted position p (the order
   inside one id's segment is arbitrary).
2. embedding_rmsnorm_backward: CTA u (512 threads, 8 columns = one 16-byte vector each) takes the 32 sorted
   positions [32u, 32u + 32). Per token it recomputes the norm from the gathered table row (the next
   token's rows are loaded one token ahead), reduces sum h^2 and sum grad_n * h over the row (warp
   shuffles, then 16 warp partials in shared memory double-buffered by token parity: one barrier per
   token), computes dh = bf16(g * r + grad_q * 2h) as eager rounds it and adds it to an fp32 running sum.
   When the id changes (or the chunk ends) the segment is flushed: a segment lying wholly inside the
   chunk is rounded once and written to its dembedding row; a segment crossing a chunk boundary is added
   (fp32 atomics) into seg_partial[seg_start // 32], the row of the chunk where the segment starts (only
   that chunk's last segment can start there and cross out). The weight-gradient terms bf16(dy * bf16(h * r))
   are summed in fp32 per thread and written once per CTA as a partial row. Each CTA also writes the zero
   rows (ids with count 0) of its slice of 64 vocabulary rows, two rows per token, so those stores
   overlap the token work.
3. merge_segments: for each chunk whose last segment starts in it and crosses out, rounds
   seg_partial[chunk] to bf16 into that id's row.
4. dweight_reduce: sums the 1024 per-chunk weight-gradient rows per column, one rounding.
Rounding points follow the eager reference (reference.md); only summation orders differ.

Shapes are static: tokens = 32768 = 1024 chunks x 32 (every chunk is full), vocab = 65536 = 1024 x 64.
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOKENS = 32768
HIDDEN = 4096
VOCAB = 65536
VEC = 8                          # bf16 per 16-byte vector
THREADS = HIDDEN // VEC          # 512
WARPS = THREADS // 32            # 16
CHUNK = 32                       # sorted positions per CTA
UNITS = TOKENS // CHUNK          # 1024 CTAs
ZROWS = VOCAB // UNITS           # 64 vocabulary rows per CTA for the zero rows
ZPER = ZROWS // CHUNK            # 2 zero-row candidates per token
SCAN_THREADS = 1024
SCAN_PER = VOCAB // SCAN_THREADS  # 64 counts per scan thread
SORT_THREADS = 256

assert THREADS * VEC == HIDDEN and UNITS * CHUNK == TOKENS and ZROWS * UNITS == VOCAB
assert ZPER * CHUNK == ZROWS and SCAN_PER * SCAN_THREADS == VOCAB and TOKENS % SORT_THREADS == 0


# ---- counting sort -----------------------------------------------------------------------------------
@T.prim_func
def count_ids(ids_ptr: T.handle, counts_ptr: T.handle):
    a_ids = T.match_buffer(ids_ptr, (TOKENS,), "int32")
    b_counts = T.match_buffer(counts_ptr, (VOCAB,), "int32")
    T.device_entry()
    bx = T.cta_id([TOKENS // SORT_THREADS])
    tx = T.thread_id([SORT_THREADS])
    T.evaluate(T.cuda.atomic_add(T.address_of(b_counts[a_ids[bx * SORT_THREADS + tx]]), 1))


@T.prim_func
def scan_counts(counts_ptr: T.handle, seg_start_ptr: T.handle, seg_end_ptr: T.handle):
    # seg_start[v] = seg_end[v] = exclusive prefix sum of counts (seg_end becomes the end after bucketing).
    # Thread t owns counts [64t, 64t + 64); the 1024 thread totals are scanned in shared memory.
    a_counts = T.match_buffer(counts_ptr, (VOCAB,), "int32")
    b_seg_start = T.match_buffer(seg_start_ptr, (VOCAB,), "int32")
    c_seg_end = T.match_buffer(seg_end_ptr, (VOCAB,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([SCAN_THREADS])
    cnt = T.alloc_buffer((SCAN_PER,), "int32", scope="local")
    local = T.alloc_buffer((1,), "int32", scope="local")
    tmp = T.alloc_buffer((1,), "int32", scope="local")
    run = T.alloc_buffer((1,), "int32", scope="local")
    scan = T.alloc_buffer((SCAN_THREADS,), "int32", scope="shared")
    for q in T.unroll(SCAN_PER // 4):
        for e in T.vectorized(4):
            cnt[q * 4 + e] = a_counts[tx * SCAN_PER + q * 4 + e]
    local[0] = 0
    for e in T.unroll(SCAN_PER):
        local[0] = local[0] + cnt[e]
    scan[tx] = local[0]
    T.cuda.cta_sync()
    # inclusive Hillis-Steele scan over the 1024 totals: 10 steps of distance 1, 2, 4, ..., 512
    for i in T.unroll(10):
        tmp[0] = scan[tx]
        if tx >= T.shift_left(1, i):
            tmp[0] = tmp[0] + scan[tx - T.shift_left(1, i)]
        T.cuda.cta_sync()
        scan[tx] = tmp[0]
        T.cuda.cta_sync()
    run[0] = scan[tx] - local[0]
    for e in T.unroll(SCAN_PER):
        b_seg_start[tx * SCAN_PER + e] = run[0]
        c_seg_end[tx * SCAN_PER + e] = run[0]
        run[0] = run[0] + cnt[e]


@T.prim_func
def bucket_tokens(ids_ptr: T.handle, seg_end_ptr: T.handle, order_ptr: T.handle, sorted_ids_ptr: T.handle):
    a_ids = T.match_buffer(ids_ptr, (TOKENS,), "int32")
    b_seg_end = T.match_buffer(seg_end_ptr, (VOCAB,), "int32")
    c_order = T.match_buffer(order_ptr, (TOKENS,), "int32")
    d_sorted_ids = T.match_buffer(sorted_ids_ptr, (TOKENS,), "int32")
    T.device_entry()
    bx = T.cta_id([TOKENS // SORT_THREADS])
    tx = T.thread_id([SORT_THREADS])
    pos = T.alloc_buffer((1,), "int32", scope="local")
    pos[0] = T.cuda.atomic_add(T.address_of(b_seg_end[a_ids[bx * SORT_THREADS + tx]]), 1)
    c_order[pos[0]] = bx * SORT_THREADS + tx
    d_sorted_ids[pos[0]] = a_ids[bx * SORT_THREADS + tx]


# ---- the fused pass ----------------------------------------------------------------------------------
@T.prim_func
def embedding_rmsnorm_backward(order_ptr: T.handle, sorted_ids_ptr: T.handle, seg_start_ptr: T.handle,
                               seg_end_ptr: T.handle, counts_ptr: T.handle, table_ptr: T.handle,
                               weight_ptr: T.handle, dy_ptr: T.handle, dtable_ptr: T.handle,
                               seg_partial_ptr: T.handle, dw_partial_ptr: T.handle, eps: T.float32):
    a_order = T.match_buffer(order_ptr, (TOKENS,), "int32")
    b_sorted_ids = T.match_buffer(sorted_ids_ptr, (TOKENS,), "int32")
    c_seg_start = T.match_buffer(seg_start_ptr, (VOCAB,), "int32")
    d_seg_end = T.match_buffer(seg_end_ptr, (VOCAB,), "int32")
    e_counts = T.match_buffer(counts_ptr, (VOCAB,), "int32")
    f_table = T.match_buffer(table_ptr, (VOCAB * HIDDEN,), "bfloat16")
    g_weight = T.match_buffer(weight_ptr, (HIDDEN,), "bfloat16")
    h_dy = T.match_buffer(dy_ptr, (TOKENS * HIDDEN,), "bfloat16")
    i_dtable = T.match_buffer(dtable_ptr, (VOCAB * HIDDEN,), "bfloat16")
    j_seg_partial = T.match_buffer(seg_partial_ptr, (UNITS * HIDDEN,), "float32")
    k_dw_partial = T.match_buffer(dw_partial_ptr, (UNITS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([UNITS])
    tx = T.thread_id([THREADS])
    wp = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    # the next token's vectors (loaded one token ahead) and the current token's
    ne = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    nd = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    ce = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    cd = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    out = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    zero = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    dw = T.alloc_buffer((VEC,), "float32", scope="local")
    acc = T.alloc_buffer((VEC,), "float32", scope="local")
    sums = T.alloc_buffer((2,), "float32", scope="local")    # sum h^2, sum grad_n * h
    coef = T.alloc_buffer((2,), "float32", scope="local")    # r, grad_q
    bounds = T.alloc_buffer((2,), "int32", scope="local")    # seg_start, seg_end of the segment being flushed
    s_id = T.alloc_buffer((CHUNK + 1,), "int32", scope="shared")   # ids of the chunk, then -1
    s_token = T.alloc_buffer((CHUNK,), "int32", scope="shared")
    red_sq = T.alloc_buffer((2 * WARPS,), "float32", scope="shared")   # [token parity][warp]
    red_dot = T.alloc_buffer((2 * WARPS,), "float32", scope="shared")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    if tx < CHUNK:
        s_id[tx] = b_sorted_ids[bx * CHUNK + tx]
        s_token[tx] = a_order[bx * CHUNK + tx]
    if tx == CHUNK:
        # a sentinel (ids are >= 0): the chunk's last segment is flushed at its last position, whole or not
        s_id[CHUNK] = -1
    for k in T.vectorized(VEC):
        wp[k] = g_weight[tx * VEC + k]
    for k in T.unroll(VEC):
        dw[k] = T.float32(0)
        acc[k] = T.float32(0)
        zero[k] = T.bfloat16(0)
    T.cuda.cta_sync()
    for k in T.vectorized(VEC):
        ne[k] = f_table[s_id[0] * HIDDEN + tx * VEC + k]
    for k in T.vectorized(VEC):
        nd[k] = h_dy[s_token[0] * HIDDEN + tx * VEC + k]
    for j in T.serial(CHUNK):
        for k in T.vectorized(VEC):
            ce[k] = ne[k]
        for k in T.vectorized(VEC):
            cd[k] = nd[k]
        if j + 1 < CHUNK:
            for k in T.vectorized(VEC):
                ne[k] = f_table[s_id[j + 1] * HIDDEN + tx * VEC + k]
            for k in T.vectorized(VEC):
                nd[k] = h_dy[s_token[j + 1] * HIDDEN + tx * VEC + k]
        # zero rows: vocabulary rows 64 bx + 2 j, 64 bx + 2 j + 1 when their id does not occur
        for z in T.unroll(ZPER):
            if e_counts[bx * ZROWS + j * ZPER + z] == 0:
                for k in T.vectorized(VEC):
                    i_dtable[(bx * ZROWS + j * ZPER + z) * HIDDEN + tx * VEC + k] = zero[k]

        # h = fp32(table row); grad_n = bf16(dy * weight); sums of h^2 and grad_n * h over the row
        sums[0] = T.float32(0)
        sums[1] = T.float32(0)
        for k in T.unroll(VEC):
            sums[0] = sums[0] + T.Cast("float32", ce[k]) * T.Cast("float32", ce[k])
            sums[1] = sums[1] + (T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cd[k])
                                                           * T.Cast("float32", wp[k])))
                                 * T.Cast("float32", ce[k]))
        sums[0] = T.cuda.warp_sum(sums[0], 32)
        sums[1] = T.cuda.warp_sum(sums[1], 32)
        if tx % 32 == 0:
            red_sq[j % 2 * WARPS + tx // 32] = sums[0]
            red_dot[j % 2 * WARPS + tx // 32] = sums[1]
        T.cuda.cta_sync()
        sums[0] = T.float32(0)
        sums[1] = T.float32(0)
        for w in T.unroll(WARPS):
            sums[0] = sums[0] + red_sq[j % 2 * WARPS + w]
            sums[1] = sums[1] + red_dot[j % 2 * WARPS + w]

        # r = rsqrt(mean(h^2) + eps); grad_q = ((-0.5 * grad_r) * r^3) / hidden (exact: a power of two)
        coef[0] = T.rsqrt(sums[0] / T.float32(HIDDEN) + eps)
        coef[1] = ((T.float32(-0.5) * sums[1]) * (coef[0] * coef[0] * coef[0])) / T.float32(HIDDEN)
        for k in T.unroll(VEC):
            # dw += bf16(dy * n), n = bf16(h * r)
            dw[k] = dw[k] + T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cd[k]) * T.Cast(
                "float32", T.Cast("bfloat16", T.Cast("float32", ce[k]) * coef[0]))))
            # acc += dh, dh = bf16(grad_n * r + grad_q * (2 * h))
            acc[k] = acc[k] + T.Cast("float32", T.Cast("bfloat16",
                T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cd[k]) * T.Cast("float32", wp[k])))
                * coef[0] + coef[1] * (T.float32(2) * T.Cast("float32", ce[k]))))

        # the segment of id s_id[j] ends here, or its part in this chunk does: flush it (uniform over the CTA)
        if s_id[j + 1] != s_id[j]:
            bounds[0] = c_seg_start[s_id[j]]
            bounds[1] = d_seg_end[s_id[j]]
            if bounds[0] >= bx * CHUNK and bounds[1] <= bx * CHUNK + CHUNK:
                # wholly inside this chunk: round once, write the row
                for k in T.unroll(VEC):
                    out[k] = T.Cast("bfloat16", acc[k])
                for k in T.vectorized(VEC):
                    i_dtable[s_id[j] * HIDDEN + tx * VEC + k] = out[k]
            else:
                # crosses a chunk boundary: fp32 partial of the chunk where the segment starts
                for k in T.unroll(VEC):
                    T.evaluate(T.cuda.atomic_add(
                        T.address_of(j_seg_partial[bounds[0] // CHUNK * HIDDEN + tx * VEC + k]), acc[k]))
            for k in T.unroll(VEC):
                acc[k] = T.float32(0)
    for k in T.vectorized(4):
        k_dw_partial[bx * HIDDEN + tx * VEC + k] = dw[k]
    for k in T.vectorized(4):
        k_dw_partial[bx * HIDDEN + tx * VEC + 4 + k] = dw[4 + k]


@T.prim_func
def merge_segments(sorted_ids_ptr: T.handle, seg_start_ptr: T.handle, seg_end_ptr: T.handle,
                   seg_partial_ptr: T.handle, dtable_ptr: T.handle):
    # For chunk u: if its last segment starts in it and crosses out, write bf16(seg_partial[u]) to that row.
    a_sorted_ids = T.match_buffer(sorted_ids_ptr, (TOKENS,), "int32")
    b_seg_start = T.match_buffer(seg_start_ptr, (VOCAB,), "int32")
    c_seg_end = T.match_buffer(seg_end_ptr, (VOCAB,), "int32")
    d_seg_partial = T.match_buffer(seg_partial_ptr, (UNITS * HIDDEN,), "float32")
    e_dtable = T.match_buffer(dtable_ptr, (VOCAB * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([UNITS])
    tx = T.thread_id([THREADS])
    tail = T.alloc_buffer((1,), "int32", scope="local")
    part = T.alloc_buffer((VEC,), "float32", scope="local")
    out = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    tail[0] = a_sorted_ids[bx * CHUNK + CHUNK - 1]
    if b_seg_start[tail[0]] >= bx * CHUNK and c_seg_end[tail[0]] > bx * CHUNK + CHUNK:
        for k in T.vectorized(4):
            part[k] = d_seg_partial[bx * HIDDEN + tx * VEC + k]
        for k in T.vectorized(4):
            part[4 + k] = d_seg_partial[bx * HIDDEN + tx * VEC + 4 + k]
        for k in T.unroll(VEC):
            out[k] = T.Cast("bfloat16", part[k])
        for k in T.vectorized(VEC):
            e_dtable[tail[0] * HIDDEN + tx * VEC + k] = out[k]


@T.prim_func
def dweight_reduce(dw_partial_ptr: T.handle, dweight_ptr: T.handle):
    # dweight[c] = bf16(sum over the 1024 parts of dw_partial[p, c]); thread t: column lane t % 32, part lane
    # t // 32 (parts t // 32, t // 32 + 32, ...); then the 32 part lanes of a column are summed in order.
    a_dw_partial = T.match_buffer(dw_partial_ptr, (UNITS * HIDDEN,), "float32")
    b_dweight = T.match_buffer(dweight_ptr, (HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([HIDDEN // 32])
    tx = T.thread_id([1024])
    total = T.alloc_buffer((1,), "float32", scope="local")
    part_sums = T.alloc_buffer((32 * 33,), "float32", scope="shared")
    total[0] = T.float32(0)
    for m in T.unroll(UNITS // 32):
        total[0] = total[0] + a_dw_partial[(tx // 32 + m * 32) * HIDDEN + bx * 32 + tx % 32]
    part_sums[tx // 32 * 33 + tx % 32] = total[0]
    T.cuda.cta_sync()
    if tx < 32:
        total[0] = T.float32(0)
        for p in T.unroll(32):
            total[0] = total[0] + part_sums[p * 33 + tx]
        b_dweight[bx * 32 + tx] = T.Cast("bfloat16", total[0])


MKB_PLAN = """/* mkb:plan
# tokens = 32768 = 1024 chunks of 32 sorted positions; CTA u of the fused pass also writes the zero rows
# among vocabulary rows [64u, 64u + 64), two per token (64 = vocab / 1024).
scratch counts int32[vocab] zeroed
scratch seg_start int32[vocab]
scratch seg_end int32[vocab]
scratch order int32[tokens]
scratch sorted_ids int32[tokens]
scratch seg_partial fp32[ceil_div(tokens, 32) * hidden] zeroed
scratch dw_partial fp32[ceil_div(tokens, 32) * hidden]
launch count_ids grid(tokens / 256) block(256) args(ids, counts)
launch scan_counts grid(1) block(1024) args(counts, seg_start, seg_end)
launch bucket_tokens grid(tokens / 256) block(256) args(ids, seg_end, order, sorted_ids)
launch embedding_rmsnorm_backward grid(tokens / 32) block(512)
  args(order, sorted_ids, seg_start, seg_end, counts, embedding, weight, dy, dembedding, seg_partial, dw_partial,
       f32(eps))
launch merge_segments grid(tokens / 32) block(512) args(sorted_ids, seg_start, seg_end, seg_partial, dembedding)
launch dweight_reduce grid(hidden / 32) block(1024) args(dw_partial, dweight)
*/"""
