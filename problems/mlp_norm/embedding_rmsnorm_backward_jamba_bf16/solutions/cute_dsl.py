"""Fused backward of embedding lookup + RMSNorm (Jamba, hidden 4096, vocab 65536) in CuTe DSL: the
algorithm of solutions/cuda.cu, with solutions/triton.py's simplifications (float atomics into one
partial row per crossing segment instead of per-chunk slots; the zero rows in their own launch).

1. count_ids / scan_counts / bucket_tokens: a counting sort of the 32768 token ids. counts[v] (int
   atomics); seg_start[v] = exclusive prefix sum of counts (one 1024-thread block); seg_end[v] starts
   as seg_start[v] and is the bucketing cursor, so afterwards seg_end[v] = seg_start[v] + counts[v].
   order[p] = token, sorted_ids[p] = its id for sorted position p (arbitrary order inside a segment).
2. zero_rows: writes the rows of dembedding whose id does not occur (counts[v] == 0), 64 rows a block
   (their counts staged in shared memory first).
3. embedding_rmsnorm_backward: block u takes the CHUNK = 32 sorted positions [32u, 32u + 32), 512
   threads, thread t owning columns 8t .. 8t + 7 (one 16-byte vector of every row). Per token it
   gathers the table row and the dy row (the next token's rows are loaded during this token's
   reduction), reduces sum h^2 and sum g*h over the row (warp shuffles, then one shared slot per warp,
   double-buffered by token parity so one barrier per token suffices), computes dh = bf16(g*r +
   grad_q*2h) as eager rounds it and adds it to an fp32 running sum while the id stays the same. When a
   segment ends (the next sorted id differs, or the chunk ends): if the whole segment lies in this chunk
   (seg_start >= lo and seg_end <= hi; both read once per position into shared memory) its sum is rounded once and written to the dembedding row;
   otherwise it is added with fp32 atomics into seg_partial[seg_start / 32] (the chunk where the
   segment starts; a crossing segment is the last segment of that chunk, so the slot is its own).
   The weight-gradient terms bf16(dy * bf16(h*r)) are summed in fp32 per thread and written once per
   block as a partial row.
4. merge_segments: for each chunk whose last segment starts in it and crosses out, rounds
   seg_partial[chunk] to bf16 into that id's row.
5. dweight_reduce: sums the 1024 per-chunk weight-gradient rows per column, one rounding.

Rounding points as reference.md: h = fp32(table row), g = bf16(dy * w), r = rsqrt(sum h^2 / 4096 + eps),
grad_q = ((-0.5 * sum g h) * r^3) / 4096, n = bf16(h * r), dweight += bf16(dy * n) (fp32),
dh = bf16(g * r + grad_q * 2h), dembedding = bf16(fp32 sum of dh over the id's tokens)."""
import cutlass
import cutlass.cute as cute

TOKENS = 32768
HIDDEN = 4096
VOCAB = 65536
VEC = 8                        # bf16 per 16-byte vector
THREADS = HIDDEN // VEC        # 512: one 16-byte vector of a row per thread
WARPS = THREADS // 32          # 16
CHUNK = 32                     # sorted positions per block of the fused pass
UNITS = TOKENS // CHUNK        # 1024 chunks
SCAN_THREADS = 1024
SCAN_PER = VOCAB // SCAN_THREADS   # 64 counts per scan thread
ZERO_ROWS = 64                 # vocabulary rows per zero_rows block
BF16 = cutlass.BFloat16
F32 = cutlass.Float32
I32 = cutlass.Int32

assert THREADS * VEC == HIDDEN and TOKENS % CHUNK == 0 and SCAN_PER * SCAN_THREADS == VOCAB
assert VOCAB % ZERO_ROWS == 0 and CHUNK + 1 <= THREADS


# ---- counting sort -----------------------------------------------------------------------------------
@cute.kernel
def count_ids(ids: cute.Pointer, counts: cute.Pointer, tokens: cutlass.Int32):
    t = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gids = cute.make_tensor(ids, cute.make_layout(TOKENS))
    if t < tokens:
        cute.arch.atomic_add(counts + gids[t], I32(1))


@cute.kernel
def scan_counts(counts: cute.Pointer, seg_start: cute.Pointer, seg_end: cute.Pointer):
    """seg_start[v] = seg_end[v] = sum of counts[0 .. v-1]. One block of 1024 threads, 64 ids each."""
    tidx = cute.arch.thread_idx()[0]
    gc = cute.make_tensor(counts, cute.make_layout((SCAN_THREADS, SCAN_PER), stride=(SCAN_PER, 1)))
    gs = cute.make_tensor(seg_start, cute.make_layout((SCAN_THREADS, SCAN_PER), stride=(SCAN_PER, 1)))
    ge = cute.make_tensor(seg_end, cute.make_layout((SCAN_THREADS, SCAN_PER), stride=(SCAN_PER, 1)))
    # Two buffers for a Hillis-Steele inclusive scan of the per-thread totals.
    buf = cute.make_tensor(cute.arch.alloc_smem(I32, 2 * SCAN_THREADS),
                           cute.make_layout((2, SCAN_THREADS), stride=(SCAN_THREADS, 1)))
    local = I32(0)
    for j in cutlass.range(SCAN_PER, unroll=8):
        local = local + gc[tidx, j]
    buf[0, tidx] = local
    cute.arch.sync_threads()
    src = 0
    for step in cutlass.range_constexpr(10):   # offsets 1, 2, ..., 512
        offset = 1 << step
        value = buf[src, tidx]
        if tidx >= offset:
            value = value + buf[src, tidx - offset]
        buf[1 - src, tidx] = value
        cute.arch.sync_threads()
        src = 1 - src
    run = buf[src, tidx] - local               # exclusive prefix of this thread's first id
    for j in cutlass.range(SCAN_PER, unroll=8):
        gs[tidx, j] = run
        ge[tidx, j] = run
        run = run + gc[tidx, j]


@cute.kernel
def bucket_tokens(ids: cute.Pointer, seg_end: cute.Pointer, order: cute.Pointer, sorted_ids: cute.Pointer,
                  tokens: cutlass.Int32):
    t = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gids = cute.make_tensor(ids, cute.make_layout(TOKENS))
    gorder = cute.make_tensor(order, cute.make_layout(TOKENS))
    gsorted = cute.make_tensor(sorted_ids, cute.make_layout(TOKENS))
    if t < tokens:
        v = gids[t]
        p = cute.arch.atomic_add(seg_end + v, I32(1))
        gorder[p] = t
        gsorted[p] = v


# ---- zero rows ---------------------------------------------------------------------------------------
@cute.kernel
def zero_rows(counts: cute.Pointer, dtable: cute.Pointer):
    """Rows [64 b, 64 b + 64) of dembedding whose id does not occur get zeros (one 16 B vector a thread)."""
    tidx = cute.arch.thread_idx()[0]
    v0 = cute.arch.block_idx()[0] * ZERO_ROWS
    gc = cute.make_tensor(counts, cute.make_layout(VOCAB))
    gdt = cute.make_tensor(dtable, cute.make_layout((VOCAB, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    zero = cute.make_rmem_tensor((VEC,), BF16)
    for k in cutlass.range_constexpr(VEC):
        zero[k] = BF16(0.0)
    s_count = cute.make_tensor(cute.arch.alloc_smem(I32, ZERO_ROWS), cute.make_layout(ZERO_ROWS))
    if tidx < ZERO_ROWS:
        s_count[tidx] = gc[v0 + tidx]
    cute.arch.sync_threads()
    for j in cutlass.range(ZERO_ROWS, unroll=8):
        if s_count[j] == 0:
            cute.copy(copy128, zero, gdt[v0 + j, tidx, None])


# ---- the fused pass ----------------------------------------------------------------------------------
@cute.kernel
def embedding_rmsnorm_backward(order: cute.Pointer, sorted_ids: cute.Pointer, seg_start: cute.Pointer,
                               seg_end: cute.Pointer, table: cute.Pointer, weight: cute.Pointer, dy: cute.Pointer,
                               dtable: cute.Pointer, seg_partial: cute.Pointer, dw_partial: cute.Pointer,
                               tokens: cutlass.Int32, eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    unit = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()

    # Rows as (row, thread, element): thread t owns columns 8t .. 8t + 7 (16 aligned bytes).
    gtab = cute.make_tensor(table, cute.make_layout((VOCAB, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    gdt = cute.make_tensor(dtable, cute.make_layout((VOCAB, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    gdy = cute.make_tensor(dy, cute.make_layout((TOKENS, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    gw = cute.make_tensor(weight, cute.make_layout((THREADS, VEC), stride=(VEC, 1)))
    gdwp = cute.make_tensor(dw_partial, cute.make_layout((UNITS, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    gorder = cute.make_tensor(order, cute.make_layout(TOKENS))
    gsorted = cute.make_tensor(sorted_ids, cute.make_layout(TOKENS))
    gstart = cute.make_tensor(seg_start, cute.make_layout(VOCAB))
    gend = cute.make_tensor(seg_end, cute.make_layout(VOCAB))

    s_token = cute.make_tensor(cute.arch.alloc_smem(I32, CHUNK), cute.make_layout(CHUNK))
    s_id = cute.make_tensor(cute.arch.alloc_smem(I32, CHUNK + 1), cute.make_layout(CHUNK + 1))
    # s_start[j], s_end[j]: the sorted-position range of the segment of position lo + j (its id's)
    s_start = cute.make_tensor(cute.arch.alloc_smem(I32, CHUNK), cute.make_layout(CHUNK))
    s_end = cute.make_tensor(cute.arch.alloc_smem(I32, CHUNK), cute.make_layout(CHUNK))
    # red[parity, warp, 0 | 1] = the warp's (sum h^2, sum g h); double-buffered by token parity.
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * WARPS * 2),
                           cute.make_layout((2, WARPS, 2), stride=(WARPS * 2, 2, 1)))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    copy128f = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)

    # Sorted positions [lo, hi); the plan launches ceil_div(tokens, CHUNK) blocks, so lo < tokens.
    lo = unit * CHUNK
    hi = cutlass.min(lo + CHUNK, tokens)
    count = hi - lo
    if tidx < count:
        s_token[tidx] = gorder[lo + tidx]
        own = gsorted[lo + tidx]
        s_id[tidx] = own
        s_start[tidx] = gstart[own]
        s_end[tidx] = gend[own]
    if tidx == CHUNK:
        s_id[count] = I32(-1)          # sentinel: the last segment ends with the chunk
    cute.arch.sync_threads()

    rw = cute.make_rmem_tensor((VEC,), BF16)
    cute.copy(copy128, gw[tidx, None], rw)
    dw = cute.make_rmem_tensor((VEC,), F32)
    acc = cute.make_rmem_tensor((VEC,), F32)
    for k in cutlass.range_constexpr(VEC):
        dw[k] = F32(0.0)
        acc[k] = F32(0.0)

    # This token's vectors (c*) and the next token's (n*), loaded one token ahead.
    ce = cute.make_rmem_tensor((VEC,), BF16)
    cd = cute.make_rmem_tensor((VEC,), BF16)
    ne = cute.make_rmem_tensor((VEC,), BF16)
    nd = cute.make_rmem_tensor((VEC,), BF16)
    out = cute.make_rmem_tensor((VEC,), BF16)
    cute.copy(copy128, gtab[s_id[0], tidx, None], ne)
    cute.copy(copy128, gdy[s_token[0], tidx, None], nd)

    parity = I32(0)
    for j in cutlass.range(count):
        v = s_id[j]
        ce.store(ne.load())
        cd.store(nd.load())
        if j + 1 < count:
            cute.copy(copy128, gtab[s_id[j + 1], tidx, None], ne)
            cute.copy(copy128, gdy[s_token[j + 1], tidx, None], nd)

        # h = fp32(table row); g = grad_n = bf16(dy * weight); sums of h^2 and g * h over the row.
        square_sum = F32(0.0)
        dot = F32(0.0)
        for k in cutlass.range_constexpr(VEC):
            h = ce[k].to(F32)
            g = (cd[k].to(F32) * rw[k].to(F32)).to(BF16).to(F32)
            square_sum = square_sum + h * h
            dot = dot + g * h
        square_sum = cute.arch.warp_reduction_sum(square_sum)
        dot = cute.arch.warp_reduction_sum(dot)
        if lane == 0:
            red[parity, warp, 0] = square_sum
            red[parity, warp, 1] = dot
        cute.arch.sync_threads()
        total_sq = F32(0.0)
        total_dot = F32(0.0)
        for w in cutlass.range_constexpr(WARPS):
            total_sq = total_sq + red[parity, w, 0]
            total_dot = total_dot + red[parity, w, 1]
        parity = parity ^ 1

        # r = rsqrt(mean(h^2) + eps); grad_v = (-0.5 * grad_r) * r^3; grad_q = grad_v / hidden
        r = cute.math.rsqrt(total_sq / F32(HIDDEN) + eps)
        grad_q = ((F32(-0.5) * total_dot) * (r * r * r)) / F32(HIDDEN)
        for k in cutlass.range_constexpr(VEC):
            h = ce[k].to(F32)
            dyk = cd[k].to(F32)
            g = (dyk * rw[k].to(F32)).to(BF16).to(F32)
            n = (h * r).to(BF16).to(F32)                                    # n = bf16(h * r)
            dw[k] = dw[k] + (dyk * n).to(BF16).to(F32)                      # bf16(dy * n), fp32 sum
            acc[k] = acc[k] + (g * r + grad_q * (F32(2.0) * h)).to(BF16).to(F32)  # dh = bf16(grad_h)

        # Segment v ends with this token: write its row, or its part of a crossing segment.
        if s_id[j + 1] != v:
            start = s_start[j]
            end = s_end[j]
            outside = I32(0)
            if start < lo:
                outside = I32(1)
            if end > hi:
                outside = I32(1)
            if outside == 0:
                for k in cutlass.range_constexpr(VEC):
                    out[k] = acc[k].to(BF16)
                cute.copy(copy128, out, gdt[v, tidx, None])
            else:
                base = seg_partial + ((start // CHUNK) * HIDDEN + tidx * VEC)
                for k in cutlass.range_constexpr(VEC):
                    cute.arch.atomic_add(base + k, acc[k])
            for k in cutlass.range_constexpr(VEC):
                acc[k] = F32(0.0)

    cute.copy(copy128f, dw, gdwp[unit, tidx, None])


@cute.kernel
def merge_segments(sorted_ids: cute.Pointer, seg_start: cute.Pointer, seg_end: cute.Pointer,
                   seg_partial: cute.Pointer, dtable: cute.Pointer, tokens: cutlass.Int32):
    """Chunk u's last segment, if it starts in u and goes on past it: dembedding row = bf16(seg_partial[u])."""
    tidx = cute.arch.thread_idx()[0]
    unit = cute.arch.block_idx()[0]
    gsorted = cute.make_tensor(sorted_ids, cute.make_layout(TOKENS))
    gstart = cute.make_tensor(seg_start, cute.make_layout(VOCAB))
    gend = cute.make_tensor(seg_end, cute.make_layout(VOCAB))
    gpart = cute.make_tensor(seg_partial, cute.make_layout((UNITS, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    gdt = cute.make_tensor(dtable, cute.make_layout((VOCAB, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    copy128f = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    lo = unit * CHUNK
    hi = cutlass.min(lo + CHUNK, tokens)
    tail = gsorted[hi - 1]
    start = gstart[tail]
    end = gend[tail]
    if start >= lo:
        if end > hi:
            part = cute.make_rmem_tensor((VEC,), F32)
            out = cute.make_rmem_tensor((VEC,), BF16)
            cute.copy(copy128f, gpart[unit, tidx, None], part)
            for k in cutlass.range_constexpr(VEC):
                out[k] = part[k].to(BF16)
            cute.copy(copy128, out, gdt[tail, tidx, None])


@cute.kernel
def dweight_reduce(dw_partial: cute.Pointer, dweight: cute.Pointer, parts: cutlass.Int32):
    """dweight[c] = bf16(sum over parts of dw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes."""
    tx = cute.arch.thread_idx()[0]
    ty = cute.arch.thread_idx()[1]
    c = cute.arch.block_idx()[0] * 32 + tx
    gpart = cute.make_tensor(dw_partial, cute.make_layout((UNITS, HIDDEN), stride=(HIDDEN, 1)))
    gdw = cute.make_tensor(dweight, cute.make_layout(HIDDEN))
    sums = cute.make_tensor(cute.arch.alloc_smem(F32, 32 * 33), cute.make_layout((32, 32), stride=(33, 1)))
    acc = F32(0.0)
    if c < HIDDEN:
        for p in cutlass.range(ty, parts, 32):
            acc = acc + gpart[p, c]
    sums[ty, tx] = acc
    cute.arch.sync_threads()
    if ty == 0:
        if c < HIDDEN:
            total = F32(0.0)
            for y in cutlass.range(32, unroll=8):
                total = total + sums[y, tx]
            gdw[c] = total.to(BF16)


MKB_PLAN = """/* mkb:plan
# units = ceil_div(tokens, 32) = 1024 chunks of sorted positions.
scratch counts int32[vocab] zeroed
scratch seg_start int32[vocab]
scratch seg_end int32[vocab]
scratch order int32[tokens]
scratch sorted_ids int32[tokens]
scratch seg_partial fp32[ceil_div(tokens, 32) * hidden] zeroed
scratch dw_partial fp32[ceil_div(tokens, 32) * hidden]
launch count_ids grid(ceil_div(tokens, 256)) block(256) args(ids, counts, i32(tokens))
launch scan_counts grid(1) block(1024) args(counts, seg_start, seg_end)
launch bucket_tokens grid(ceil_div(tokens, 256)) block(256) args(ids, seg_end, order, sorted_ids, i32(tokens))
launch zero_rows grid(vocab / 64) block(512) args(counts, dembedding)
launch embedding_rmsnorm_backward grid(ceil_div(tokens, 32)) block(512)
  args(order, sorted_ids, seg_start, seg_end, embedding, weight, dy, dembedding, seg_partial, dw_partial,
       i32(tokens), f32(eps))
launch merge_segments grid(ceil_div(tokens, 32)) block(512)
  args(sorted_ids, seg_start, seg_end, seg_partial, dembedding, i32(tokens))
launch dweight_reduce grid(hidden / 32) block(32, 32) args(dw_partial, dweight, i32(ceil_div(tokens, 32)))
*/"""
