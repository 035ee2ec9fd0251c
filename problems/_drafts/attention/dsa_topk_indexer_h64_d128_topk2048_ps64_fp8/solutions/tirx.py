"""DSA top-k indexer (64 fp8 index heads, head dim 128, 64-token pages, top 2048) in TIRx: the two launches of
solutions/cuda.cu.

1. indexer_scores: one 256-thread CTA per (page slot, sequence) of the sequences longer than topk (a shorter
   sequence keeps all its tokens whatever their scores, so its scores are never needed). The q bytes of the
   sequence and the key bytes of the page are widened from e4m3 (exact) into shared memory, transposed with
   padded rows (qT[d][h], kT[d][t], pitch 65); thread (th, tt) = (tx / 16, tx % 16) accumulates the dot
   products of heads th + 16 i and tokens tt + 16 j (4 x 4, fp32 FMA over the 128 dims); then
   score[t] = sum_h w[h] * relu(scale[t] * dot[h][t]) (16 partial sums per token through shared memory, added
   in a fixed order) into the scratch scores [batch, 43 * 64]. A token's fp32 scale is assembled from its
   four little-endian bytes at byte 8192 + 4 t of the page.
2. indexer_select: one 1024-thread CTA per sequence. A short sequence writes its tokens in order and the -1
   fill. A long one (3 positions per thread) finds the 2048th largest score by a bitwise search over
   order-preserving integer keys (__syncthreads_count per bit and position, through T.call_extern), keeps
   every key above it and the lowest positions among the keys equal to it, and writes the kept positions in
   ascending order (exclusive scans over the CTA in shared memory) as global token ids page * 64 + offset."""
from tvm.script import tirx as T

HEADS, DIM, PAGE, NUM_PAGES, MAXP, BATCH, TOPK = 64, 128, 64, 11923, 43, 31, 2048
PAGE_BYTES = PAGE * (DIM + 4)         # 8448: 64 keys of 128 bytes, then 64 fp32 scales
PITCH = 65                            # padded shared row: conflict-free transposed access
SEL_THREADS, PER_THREAD = 1024, 3     # 3072 >= 43 * 64 positions per sequence
assert SEL_THREADS * PER_THREAD >= MAXP * PAGE and TOPK % SEL_THREADS == 0 and NUM_PAGES * PAGE_BYTES < 2**31


@T.prim_func
def indexer_scores(q_ptr: T.handle, k_ptr: T.handle, w_ptr: T.handle, lens_ptr: T.handle, table_ptr: T.handle,
                   scores_ptr: T.handle):
    QB = T.match_buffer(q_ptr, (BATCH * HEADS * DIM,), "float8_e4m3fn")
    KB = T.match_buffer(k_ptr, (NUM_PAGES * PAGE_BYTES,), "int8")
    W = T.match_buffer(w_ptr, (BATCH, HEADS), "float32")
    LENS = T.match_buffer(lens_ptr, (BATCH,), "int32")
    TABLE = T.match_buffer(table_ptr, (BATCH, MAXP), "int32")
    SC = T.match_buffer(scores_ptr, (BATCH, MAXP * PAGE), "float32")
    T.device_entry()
    slot, b = T.cta_id([MAXP, BATCH])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((2 * DIM * PITCH,), "float32", scope="shared.dyn")   # qT [128][65], then kT [128][65]
    partial = T.alloc_buffer((16, PAGE), "float32", scope="shared")
    scale_s = T.alloc_buffer((PAGE,), "float32", scope="shared")
    weight_s = T.alloc_buffer((HEADS,), "float32", scope="shared")
    qv = T.alloc_buffer((4,), "float8_e4m3fn", scope="local")
    kv = T.alloc_buffer((4,), "int8", scope="local")
    sb = T.alloc_buffer((4,), "int8", scope="local")
    acc = T.alloc_buffer((4, 4), "float32", scope="local")
    qr = T.alloc_buffer((4,), "float32", scope="local")
    kr = T.alloc_buffer((4,), "float32", scope="local")
    st = T.alloc_buffer((1,), "float32", scope="local")

    if LENS[b] > TOPK:
        if slot * PAGE < LENS[b]:   # uniform over the CTA
            for k in T.unroll(HEADS * DIM // 4 // 256):   # word w = tx + 256 k: bytes 4w .. 4w + 3, row 4w / 128
                for c in T.vectorized(4):
                    qv[c] = QB[b * (HEADS * DIM) + (tx + 256 * k) * 4 + c]
                for c in T.vectorized(4):
                    kv[c] = KB[TABLE[b, slot] * PAGE_BYTES + (tx + 256 * k) * 4 + c]
                for c in T.unroll(4):
                    sm[((tx + 256 * k) * 4 % DIM + c) * PITCH + (tx + 256 * k) * 4 // DIM] = T.Cast("float32", qv[c])
                    sm[DIM * PITCH + ((tx + 256 * k) * 4 % DIM + c) * PITCH + (tx + 256 * k) * 4 // DIM] = T.Cast(
                        "float32", T.reinterpret("float8_e4m3fn", kv[c]))
            if tx < PAGE:
                for c in T.vectorized(4):
                    sb[c] = KB[TABLE[b, slot] * PAGE_BYTES + PAGE * DIM + tx * 4 + c]
                scale_s[tx] = T.reinterpret("float32", T.bitwise_or(
                    T.bitwise_or(T.Cast("uint32", T.reinterpret("uint8", sb[0])),
                                 T.shift_left(T.Cast("uint32", T.reinterpret("uint8", sb[1])), T.uint32(8))),
                    T.bitwise_or(T.shift_left(T.Cast("uint32", T.reinterpret("uint8", sb[2])), T.uint32(16)),
                                 T.shift_left(T.Cast("uint32", T.reinterpret("uint8", sb[3])), T.uint32(24)))))
                weight_s[tx] = W[b, tx]
            T.cuda.cta_sync()

            for i in T.unroll(4):
                for j in T.unroll(4):
                    acc[i, j] = T.float32(0)
            for d0 in T.serial(DIM // 4):
                for dd in T.unroll(4):
                    for i in T.unroll(4):
                        qr[i] = sm[(d0 * 4 + dd) * PITCH + tx // 16 + 16 * i]
                    for j in T.unroll(4):
                        kr[j] = sm[DIM * PITCH + (d0 * 4 + dd) * PITCH + tx % 16 + 16 * j]
                    for i in T.unroll(4):
                        for j in T.unroll(4):
                            acc[i, j] = acc[i, j] + qr[i] * kr[j]
            for j in T.unroll(4):
                st[0] = T.float32(0)
                for i in T.unroll(4):
                    st[0] = st[0] + weight_s[tx // 16 + 16 * i] * T.max(scale_s[tx % 16 + 16 * j] * acc[i, j], T.float32(0))
                partial[tx // 16, tx % 16 + 16 * j] = st[0]
            T.cuda.cta_sync()
            if tx < PAGE:
                st[0] = T.float32(0)
                for g in T.unroll(16):
                    st[0] = st[0] + partial[g, tx]
                if slot * PAGE + tx < LENS[b]:
                    SC[b, slot * PAGE + tx] = st[0]


@T.macro
def exclusive_scan(scan, v, out, tx):
    # out[0] = sum of v over the threads before tx (1024 threads); Hillis-Steele over shared scan[2][1024]
    scan[0, tx] = v
    for step in T.unroll(10):
        T.cuda.cta_sync()
        if tx >= (1 << step):
            scan[(step + 1) % 2, tx] = scan[step % 2, tx] + scan[step % 2, tx - (1 << step)]
        else:
            scan[(step + 1) % 2, tx] = scan[step % 2, tx]
    T.cuda.cta_sync()
    out[0] = scan[0, tx] - v       # 10 steps: the inclusive sums are in row 0
    T.cuda.cta_sync()              # scan is reused by the next call


@T.prim_func
def indexer_select(scores_ptr: T.handle, lens_ptr: T.handle, table_ptr: T.handle, out_ptr: T.handle):
    SC = T.match_buffer(scores_ptr, (BATCH, MAXP * PAGE), "float32")
    LENS = T.match_buffer(lens_ptr, (BATCH,), "int32")
    TABLE = T.match_buffer(table_ptr, (BATCH, MAXP), "int32")
    OUT = T.match_buffer(out_ptr, (BATCH, TOPK), "int32")
    T.device_entry()
    b = T.cta_id([BATCH])
    tx = T.thread_id([SEL_THREADS])
    scan = T.alloc_buffer((2, SEL_THREADS), "int32", scope="shared")
    key = T.alloc_buffer((PER_THREAD,), "uint32", scope="local")
    keep = T.alloc_buffer((PER_THREAD,), "int32", scope="local")
    thr = T.alloc_buffer((2,), "uint32", scope="local")     # 0 threshold, 1 candidate
    cnt = T.alloc_buffer((6,), "int32", scope="local")      # 0 count, 1 above, 2 my_equal, 3 equal rank, 4 kept, 5 pos

    if LENS[b] <= TOPK:   # every token is kept, in order
        for jj in T.unroll(TOPK // SEL_THREADS):
            OUT[b, tx + SEL_THREADS * jj] = T.Select(
                tx + SEL_THREADS * jj < LENS[b],
                TABLE[b, (tx + SEL_THREADS * jj) // PAGE] * PAGE + (tx + SEL_THREADS * jj) % PAGE, -1)
    else:
        for e in T.unroll(PER_THREAD):   # order-preserving key of the score; 0 for positions past the end
            key[e] = T.Select(
                tx * PER_THREAD + e < LENS[b],
                T.Select(T.bitwise_and(T.reinterpret("uint32", SC[b, T.min(tx * PER_THREAD + e, LENS[b] - 1)]),
                                       T.uint32(0x80000000)) != T.uint32(0),
                         T.bitwise_xor(T.reinterpret("uint32", SC[b, T.min(tx * PER_THREAD + e, LENS[b] - 1)]),
                                       T.uint32(0xFFFFFFFF)),
                         T.bitwise_or(T.reinterpret("uint32", SC[b, T.min(tx * PER_THREAD + e, LENS[b] - 1)]),
                                      T.uint32(0x80000000))),
                T.uint32(0))
        # The largest threshold with at least TOPK keys at or above it: the TOPK-th largest key.
        thr[0] = T.uint32(0)
        for bit in T.unroll(32):
            thr[1] = T.bitwise_or(thr[0], T.shift_left(T.uint32(1), T.uint32(31 - bit)))
            cnt[0] = 0
            for e in T.unroll(PER_THREAD):
                cnt[0] = cnt[0] + T.call_extern("int32", "__syncthreads_count", T.Cast("int32", T.And(
                    tx * PER_THREAD + e < LENS[b], key[e] >= thr[1])))
            if cnt[0] >= TOPK:
                thr[0] = thr[1]
        cnt[1] = 0
        cnt[2] = 0
        for e in T.unroll(PER_THREAD):
            cnt[1] = cnt[1] + T.call_extern("int32", "__syncthreads_count", T.Cast("int32", T.And(
                tx * PER_THREAD + e < LENS[b], key[e] > thr[0])))
            cnt[2] = cnt[2] + T.Select(T.And(tx * PER_THREAD + e < LENS[b], key[e] == thr[0]), 1, 0)
        # keep: every key above the threshold, and the lowest TOPK - above positions among those equal to it
        exclusive_scan(scan, cnt[2], cnt, tx)   # cnt[0] = equal keys before this thread
        cnt[3] = cnt[0]
        cnt[4] = 0
        for e in T.unroll(PER_THREAD):
            if T.And(tx * PER_THREAD + e < LENS[b], key[e] == thr[0]):
                keep[e] = T.Select(cnt[3] < TOPK - cnt[1], 1, 0)
                cnt[3] = cnt[3] + 1
            else:
                keep[e] = T.Select(T.And(tx * PER_THREAD + e < LENS[b], key[e] > thr[0]), 1, 0)
            cnt[4] = cnt[4] + keep[e]
        exclusive_scan(scan, cnt[4], cnt, tx)   # cnt[0] = kept positions before this thread
        cnt[5] = cnt[0]
        for e in T.unroll(PER_THREAD):
            if keep[e] > 0:
                if cnt[5] < TOPK:
                    OUT[b, cnt[5]] = TABLE[b, (tx * PER_THREAD + e) // PAGE] * PAGE + (tx * PER_THREAD + e) % PAGE
                cnt[5] = cnt[5] + 1


MKB_PLAN = """/* mkb:plan
scratch scores fp32[batch_size * max_num_pages * page_size]
launch indexer_scores grid(max_num_pages, batch_size) block(256) shared(66560)
  args(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, scores)
launch indexer_select grid(batch_size) block(1024) args(scores, seq_lens, block_table, topk_indices)
*/"""
