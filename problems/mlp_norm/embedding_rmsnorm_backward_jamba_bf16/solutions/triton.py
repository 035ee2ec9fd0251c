"""Fused backward of embedding lookup + RMSNorm (Jamba, hidden 4096, vocab 65536) in Triton.

The algorithm of cuda.cu, with float atomics (order-free, which reference.md allows) in place of its
per-chunk partial slots:
1. count_ids / scan_counts / bucket_tokens: a counting sort of the token ids. counts[v] (atomics),
   seg_start[v] = exclusive prefix sum, seg_end[v] = seg_start[v] + counts[v] (the cursor after
   bucketing); order[p] = token, sorted_ids[p] = its id for sorted position p.
2. embedding_rmsnorm_backward: program u takes the CHUNK = 32 sorted positions [32u, 32u + 32).
   Per token it recomputes the norm from the gathered table row (the rows of the next two tokens are
   loaded ahead), computes dh = bf16(g*r + grad_q*2h) as eager rounds it, and adds it to an fp32
   running sum while the id stays the same. A segment lying wholly inside the chunk is rounded and
   written to its dembedding row; a segment crossing a chunk boundary is added (fp32 atomics) into
   seg_partial[chunk where the segment starts] (only that chunk's last segment can start there and
   cross out). The weight-gradient terms bf16(dy * bf16(h*r)) are summed in fp32 per program and
   written once as a partial row. Each program also writes the zero rows (ids with count 0) of its
   slice of 64 vocabulary rows, two rows per token, so those stores overlap the token work.
3. merge_segments: for each chunk whose last segment starts in it and crosses out, rounds
   seg_partial[chunk] to bf16 into that id's row.
4. dweight_reduce: sums the per-chunk weight-gradient rows, one rounding.
"""
import triton
import triton.language as tl


# ---- counting sort -----------------------------------------------------------------------------------
@triton.jit
def count_ids(ids_ptr, counts_ptr, tokens, BLOCK: tl.constexpr = 1024):
    t = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    valid = t < tokens
    v = tl.load(ids_ptr + t, mask=valid, other=0)
    tl.atomic_add(counts_ptr + v, tl.full([BLOCK], 1, tl.int32), mask=valid, sem="relaxed")


@triton.jit
def scan_counts(counts_ptr, seg_start_ptr, cursor_ptr, VOCAB: tl.constexpr = 65536, BLOCK: tl.constexpr = 4096):
    carry = 0
    for base in range(0, VOCAB, BLOCK):
        v = base + tl.arange(0, BLOCK)
        c = tl.load(counts_ptr + v)
        start = carry + tl.cumsum(c, axis=0) - c
        tl.store(seg_start_ptr + v, start)
        tl.store(cursor_ptr + v, start)
        carry += tl.sum(c, axis=0)


@triton.jit
def bucket_tokens(ids_ptr, cursor_ptr, order_ptr, sorted_ids_ptr, tokens, BLOCK: tl.constexpr = 1024):
    t = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    valid = t < tokens
    v = tl.load(ids_ptr + t, mask=valid, other=0)
    p = tl.atomic_add(cursor_ptr + v, tl.full([BLOCK], 1, tl.int32), mask=valid, sem="relaxed")
    tl.store(order_ptr + p, t, mask=valid)
    tl.store(sorted_ids_ptr + p, v, mask=valid)


# ---- the fused pass ----------------------------------------------------------------------------------
@triton.jit
def _flush(seg, acc, lo, hi, seg_start_ptr, seg_end_ptr, dtable_ptr, seg_partial_ptr, cols,
           HIDDEN: tl.constexpr, CHUNK: tl.constexpr):
    start = tl.load(seg_start_ptr + seg)
    end = tl.load(seg_end_ptr + seg)
    if (start >= lo) & (end <= hi):  # the whole segment is in this chunk: round once, write the row
        tl.store(dtable_ptr + seg.to(tl.int64) * HIDDEN + cols, acc.to(tl.bfloat16))
    else:
        tl.atomic_add(seg_partial_ptr + (start // CHUNK).to(tl.int64) * HIDDEN + cols, acc, sem="relaxed")


@triton.jit
def _zero_rows(first, last, counts_ptr, dtable_ptr, cols, HIDDEN: tl.constexpr, ZTILE: tl.constexpr):
    """Writes zeros to the rows in [first, first + ZTILE) below `last` whose id does not occur."""
    rows = first + tl.arange(0, ZTILE)
    inside = rows < last
    c = tl.load(counts_ptr + rows, mask=inside, other=1)
    tl.store(dtable_ptr + rows.to(tl.int64)[:, None] * HIDDEN + cols[None, :],
             tl.zeros([ZTILE, HIDDEN], dtype=tl.bfloat16), mask=(inside & (c == 0))[:, None])


@triton.jit
def embedding_rmsnorm_backward(order_ptr, sorted_ids_ptr, seg_start_ptr, seg_end_ptr, counts_ptr, table_ptr,
                               weight_ptr, dy_ptr, dtable_ptr, seg_partial_ptr, dw_partial_ptr, tokens, zero_rows,
                               eps, HIDDEN: tl.constexpr = 4096, VOCAB: tl.constexpr = 65536,
                               CHUNK: tl.constexpr = 32, ZTILE: tl.constexpr = 2):
    unit = tl.program_id(0)
    lo = unit * CHUNK
    hi = tl.minimum(lo + CHUNK, tokens)
    count = hi - lo
    z0 = unit * zero_rows                      # this program's slice of vocabulary rows for the zero rows
    z1 = tl.minimum(z0 + zero_rows, VOCAB)
    cols = tl.arange(0, HIDDEN)
    w = tl.load(weight_ptr + cols).to(tl.float32)
    acc = tl.zeros([HIDDEN], dtype=tl.float32)
    dw = tl.zeros([HIDDEN], dtype=tl.float32)
    seg = tl.load(sorted_ids_ptr + lo)
    # Rows of the next two tokens are in flight while a token is processed (loads two tokens ahead;
    # positions past the chunk are clamped to its last one, a harmless reload).
    j1 = tl.minimum(1, count - 1)
    e1 = tl.load(table_ptr + seg.to(tl.int64) * HIDDEN + cols)
    d1 = tl.load(dy_ptr + tl.load(order_ptr + lo).to(tl.int64) * HIDDEN + cols)
    e2 = tl.load(table_ptr + tl.load(sorted_ids_ptr + lo + j1).to(tl.int64) * HIDDEN + cols)
    d2 = tl.load(dy_ptr + tl.load(order_ptr + lo + j1).to(tl.int64) * HIDDEN + cols)
    for j in range(0, count):
        v = tl.load(sorted_ids_ptr + lo + j)
        ce = e1
        cd = d1
        e1 = e2
        d1 = d2
        jn = tl.minimum(j + 2, count - 1)
        e2 = tl.load(table_ptr + tl.load(sorted_ids_ptr + lo + jn).to(tl.int64) * HIDDEN + cols)
        d2 = tl.load(dy_ptr + tl.load(order_ptr + lo + jn).to(tl.int64) * HIDDEN + cols)
        # zero rows, ZTILE per token, stored while the loads are in flight
        _zero_rows(z0 + j * ZTILE, z1, counts_ptr, dtable_ptr, cols, HIDDEN, ZTILE)
        if v != seg:
            _flush(seg, acc, lo, hi, seg_start_ptr, seg_end_ptr, dtable_ptr, seg_partial_ptr, cols, HIDDEN, CHUNK)
            acc = tl.zeros([HIDDEN], dtype=tl.float32)
            seg = v
        h = ce.to(tl.float32)
        dyf = cd.to(tl.float32)
        g = (dyf * w).to(tl.bfloat16).to(tl.float32)           # grad_n = bf16(dy * weight)
        square_sum = tl.sum(h * h, axis=0)
        dot = tl.sum(g * h, axis=0)
        r = tl.math.rsqrt(tl.math.div_rn(square_sum, HIDDEN * 1.0) + eps)
        grad_q = tl.math.div_rn((-0.5 * dot) * (r * r * r), HIDDEN * 1.0)
        n = (h * r).to(tl.bfloat16).to(tl.float32)             # n = bf16(h * r)
        dw += (dyf * n).to(tl.bfloat16).to(tl.float32)         # bf16(dy * n), fp32 accumulation
        acc += (g * r + grad_q * (2.0 * h)).to(tl.bfloat16).to(tl.float32)  # dh = bf16(grad_h), fp32 per id
    _flush(seg, acc, lo, hi, seg_start_ptr, seg_end_ptr, dtable_ptr, seg_partial_ptr, cols, HIDDEN, CHUNK)
    tl.store(dw_partial_ptr + unit.to(tl.int64) * HIDDEN + cols, dw)
    # zero rows not reached by the token loop (none when zero_rows <= ZTILE * count)
    for z in range(z0 + count * ZTILE, z1, ZTILE):
        _zero_rows(z, z1, counts_ptr, dtable_ptr, cols, HIDDEN, ZTILE)


@triton.jit
def merge_segments(sorted_ids_ptr, seg_start_ptr, seg_end_ptr, seg_partial_ptr, dtable_ptr, tokens,
                   HIDDEN: tl.constexpr = 4096, CHUNK: tl.constexpr = 32):
    unit = tl.program_id(0)
    lo = unit * CHUNK
    hi = tl.minimum(lo + CHUNK, tokens)
    tail = tl.load(sorted_ids_ptr + hi - 1)
    start = tl.load(seg_start_ptr + tail)
    end = tl.load(seg_end_ptr + tail)
    if (start >= lo) & (end > hi):  # the chunk's last segment starts here and crosses out
        cols = tl.arange(0, HIDDEN)
        total = tl.load(seg_partial_ptr + unit.to(tl.int64) * HIDDEN + cols)
        tl.store(dtable_ptr + tail.to(tl.int64) * HIDDEN + cols, total.to(tl.bfloat16))


@triton.jit
def dweight_reduce(dw_partial_ptr, dweight_ptr, parts, HIDDEN: tl.constexpr = 4096, BLOCK_C: tl.constexpr = 32,
                   BLOCK_P: tl.constexpr = 64):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    p = tl.arange(0, BLOCK_P)
    acc = tl.zeros([BLOCK_P, BLOCK_C], dtype=tl.float32)
    for p0 in range(0, parts, BLOCK_P):
        rows = p0 + p
        acc += tl.load(dw_partial_ptr + rows[:, None] * HIDDEN + cols[None, :], mask=(rows < parts)[:, None],
                       other=0.0)
    tl.store(dweight_ptr + cols, tl.sum(acc, axis=0).to(tl.bfloat16))


MKB_PLAN = """/* mkb:plan
# units = ceil_div(tokens, 32) token chunks (1024); program u also writes the zero rows among
# vocabulary rows [u * 64, u * 64 + 64) (64 = ceil_div(vocab, units)), two per token.
scratch counts int32[vocab] zeroed
scratch seg_start int32[vocab]
scratch seg_end int32[vocab]
scratch order int32[tokens]
scratch sorted_ids int32[tokens]
scratch seg_partial fp32[ceil_div(tokens, 32) * hidden] zeroed
scratch dw_partial fp32[ceil_div(tokens, 32) * hidden]
launch count_ids grid(ceil_div(tokens, 1024)) block(256) args(ids, counts, i32(tokens))
launch scan_counts grid(1) block(256) args(counts, seg_start, seg_end)
launch bucket_tokens grid(ceil_div(tokens, 1024)) block(256) args(ids, seg_end, order, sorted_ids, i32(tokens))
launch embedding_rmsnorm_backward grid(ceil_div(tokens, 32)) block(512)
  args(order, sorted_ids, seg_start, seg_end, counts, embedding, weight, dy, dembedding, seg_partial, dw_partial,
       i32(tokens), i32(ceil_div(vocab, ceil_div(tokens, 32))), f32(eps))
launch merge_segments grid(ceil_div(tokens, 32)) block(512)
  args(sorted_ids, seg_start, seg_end, seg_partial, dembedding, i32(tokens))
launch dweight_reduce grid(hidden / 32) block(128) args(dw_partial, dweight, i32(ceil_div(tokens, 32)))
*/"""
