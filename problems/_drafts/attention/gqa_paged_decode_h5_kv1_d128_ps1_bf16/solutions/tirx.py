"""Paged GQA decode (5 query heads, 1 KV head, head dim 128, page size 1) in TIRx: the split-K flash
decoding of solutions/cuda.cu.

decode_partial: one 128-thread CTA per (chunk of up to 64 tokens of one request, KV head). The five
  query heads of the KV head share each K and V row read. A half-warp streams its own tokens, 16 lanes x
  8 dims = one 256-byte row with one 16-byte load per lane, four tokens per step with all eight loads
  issued first, and keeps an online softmax per query head in base 2 (max m, sum l, o[8] in fp32). Warp w
  covers tokens t0 + 8w + 32i + (4 * half + u), i < 2; a step whose first token is past the chunk is
  skipped (warp-uniform); a lane past the chunk's end re-reads the chunk's last row and its score is
  masked to -inf. The eight half-warp states are merged through shared memory into one fp32 partial
  (m, l, o[128]) per (chunk, query head).
decode_combine: one 128-thread CTA per (query head, request), thread d owns dim d and walks the request's
  chunks (at most 89 here): M = max m_c, L = sum l_c 2^(m_c - M), o = sum o_c 2^(m_c - M) / L rounded
  to bf16 once, lse = M + log2 L.
Chunks are numbered request after request: request b owns ceil(T_b / 64) of them, starting at cs[b];
every CTA rebuilds cs from kv_indptr in shared memory (thread 0 scans the 63 counts). Logits are (q.k) in
fp32 times sm_scale * log2(e) (a plan argument), so exp2 gives the softmax and log2 of the sum the base-2
LSE. Scalars live in 1-element local buffers (info[], st[]) as the stored TIRx solutions do."""
from tvm.script import tirx as T

BATCH, HEADS, KV_HEADS, DIM, NUM_PAGES = 63, 5, 1, 128, 53173
GROUP = HEADS // KV_HEADS                       # 5 query heads per KV head
CHUNK = 64                                      # tokens per split
CHUNK_SHIFT = 6                                 # log2(CHUNK)
THREADS = 128                                   # 8 half-warps
HALF_WARPS = THREADS // 16
UNROLL = 4                                      # tokens per half-warp per step
STEP = HALF_WARPS * UNROLL                      # 32 tokens per CTA step
STEPS = CHUNK // STEP                           # 8 steps cover a chunk
TOTAL_TOKENS = 19134                            # KV_INDPTR[-1]
CHUNKS = -(-TOTAL_TOKENS // CHUNK) + BATCH      # grid x: an upper bound on the chunks (362)
SLOTS = CHUNKS * HEADS                          # partial slots the plan's scratch holds
NEG_INF = float("-inf")
assert THREADS == DIM and DIM == 16 * 8 and CHUNK == 1 << CHUNK_SHIFT and BATCH <= THREADS


@T.prim_func
def decode_partial(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, indptr_ptr: T.handle,
                   indices_ptr: T.handle, part_o_ptr: T.handle, part_ml_ptr: T.handle, scale_log2: T.float32):
    Q = T.match_buffer(q_ptr, (BATCH * HEADS, DIM), "bfloat16")
    K = T.match_buffer(k_ptr, (NUM_PAGES * KV_HEADS, DIM), "bfloat16")     # row = page * 8 + kv head
    V = T.match_buffer(v_ptr, (NUM_PAGES * KV_HEADS, DIM), "bfloat16")
    INDPTR = T.match_buffer(indptr_ptr, (BATCH + 1,), "int32")
    INDICES = T.match_buffer(indices_ptr, (TOTAL_TOKENS,), "int32")
    PO = T.match_buffer(part_o_ptr, (SLOTS, DIM), "float32")
    PML = T.match_buffer(part_ml_ptr, (SLOTS, 2), "float32")
    T.device_entry()
    chunk, kv_head = T.cta_id([CHUNKS, KV_HEADS])
    tx = T.thread_id([THREADS])
    cs = T.alloc_buffer((BATCH + 1,), "int32", scope="shared")
    merge_m = T.alloc_buffer((HALF_WARPS * GROUP,), "float32", scope="shared")
    merge_l = T.alloc_buffer((HALF_WARPS * GROUP,), "float32", scope="shared")
    merge_o = T.alloc_buffer((HALF_WARPS * GROUP, DIM), "float32", scope="shared")
    # info: 0 lo, 1 hi, 2 mid (binary search; lo ends as the request b), 3 seq_start, 4 t0, 5 t1
    info = T.alloc_buffer((6,), "int32", scope="local")
    qv = T.alloc_buffer((GROUP * 8,), "bfloat16", scope="local")
    kv = T.alloc_buffer((UNROLL * 8,), "bfloat16", scope="local")
    vv = T.alloc_buffer((UNROLL * 8,), "bfloat16", scope="local")
    s = T.alloc_buffer((UNROLL * GROUP,), "float32", scope="local")
    m = T.alloc_buffer((GROUP,), "float32", scope="local")
    ls = T.alloc_buffer((GROUP,), "float32", scope="local")
    o = T.alloc_buffer((GROUP * 8,), "float32", scope="local")
    st = T.alloc_buffer((4,), "float32", scope="local")

    # cs[b] = sum over b' < b of ceil(T_b' / 256); cs[BATCH] = the number of chunks
    if tx < BATCH:
        cs[tx + 1] = T.shift_right(INDPTR[tx + 1] - INDPTR[tx] + (CHUNK - 1), CHUNK_SHIFT)
    if tx == 0:
        cs[0] = 0
    T.cuda.cta_sync()
    if tx == 0:
        for bb in T.serial(BATCH):
            cs[bb + 1] = cs[bb + 1] + cs[bb]
    T.cuda.cta_sync()

    if chunk < cs[BATCH]:  # uniform over the CTA
        info[0] = 0
        info[1] = BATCH
        for _it in T.unroll(7):  # invariant cs[lo] <= chunk < cs[hi]
            if info[1] - info[0] > 1:
                info[2] = T.shift_right(info[0] + info[1], 1)
                if cs[info[2]] <= chunk:
                    info[0] = info[2]
                else:
                    info[1] = info[2]
        info[3] = INDPTR[info[0]]
        info[4] = (chunk - cs[info[0]]) * CHUNK
        info[5] = T.min(info[4] + CHUNK, INDPTR[info[0] + 1] - info[3])

        for g in T.unroll(GROUP):
            for e in T.vectorized(8):
                qv[g * 8 + e] = Q[info[0] * HEADS + kv_head * GROUP + g, tx % 16 * 8 + e]
        for g in T.unroll(GROUP):
            m[g] = T.float32(NEG_INF)
            ls[g] = T.float32(0)
            for e in T.unroll(8):
                o[g * 8 + e] = T.float32(0)

        for it in T.serial(STEPS):
            if info[4] + tx // 32 * 8 + it * STEP < info[5]:  # warp-uniform: the half-warp shuffles stay whole
                for u in T.unroll(UNROLL):  # past the end: re-read the last row (masked below)
                    for e in T.vectorized(8):
                        kv[u * 8 + e] = K[INDICES[info[3] + T.min(info[4] + tx // 16 * UNROLL + it * STEP + u,
                                                                  info[5] - 1)] * KV_HEADS + kv_head,
                                          tx % 16 * 8 + e]
                    for e in T.vectorized(8):
                        vv[u * 8 + e] = V[INDICES[info[3] + T.min(info[4] + tx // 16 * UNROLL + it * STEP + u,
                                                                  info[5] - 1)] * KV_HEADS + kv_head,
                                          tx % 16 * 8 + e]
                for u in T.unroll(UNROLL):
                    for g in T.unroll(GROUP):
                        st[0] = T.float32(0)
                        for e in T.unroll(8):
                            st[0] = st[0] + T.Cast("float32", qv[g * 8 + e]) * T.Cast("float32", kv[u * 8 + e])
                        st[0] = T.cuda.warp_sum(st[0], 16)
                        s[u * GROUP + g] = T.Select(info[4] + tx // 16 * UNROLL + it * STEP + u < info[5],
                                                    st[0] * scale_log2, T.float32(NEG_INF))
                for g in T.unroll(GROUP):
                    st[0] = m[g]
                    for u in T.unroll(UNROLL):
                        st[0] = T.max(st[0], s[u * GROUP + g])
                    # nothing valid yet: a finite stand-in max keeps every exp2 at 0 (no inf - inf)
                    st[1] = T.Select(st[0] > T.float32(NEG_INF), st[0], T.float32(0))
                    st[2] = T.exp2(m[g] - st[1])
                    ls[g] = ls[g] * st[2]
                    for e in T.unroll(8):
                        o[g * 8 + e] = o[g * 8 + e] * st[2]
                    for u in T.unroll(UNROLL):
                        st[3] = T.exp2(s[u * GROUP + g] - st[1])
                        ls[g] = ls[g] + st[3]
                        for e in T.unroll(8):
                            o[g * 8 + e] = o[g * 8 + e] + st[3] * T.Cast("float32", vv[u * 8 + e])
                    m[g] = st[0]

        # Merge the eight half-warp states of the CTA: thread tx finishes dim tx of every query head.
        for g in T.unroll(GROUP):
            if tx % 16 == 0:
                merge_m[tx // 16 * GROUP + g] = m[g]
                merge_l[tx // 16 * GROUP + g] = ls[g]
            for e in T.unroll(8):
                merge_o[tx // 16 * GROUP + g, tx % 16 * 8 + e] = o[g * 8 + e]
        T.cuda.cta_sync()
        for g in T.unroll(GROUP):
            st[0] = T.float32(NEG_INF)
            for w in T.unroll(HALF_WARPS):
                st[0] = T.max(st[0], merge_m[w * GROUP + g])
            st[1] = T.float32(0)
            st[2] = T.float32(0)
            for w in T.unroll(HALF_WARPS):
                st[3] = T.Select(merge_m[w * GROUP + g] > T.float32(NEG_INF),
                                 T.exp2(merge_m[w * GROUP + g] - st[0]), T.float32(0))
                st[1] = st[1] + merge_l[w * GROUP + g] * st[3]
                st[2] = st[2] + merge_o[w * GROUP + g, tx] * st[3]
            PO[chunk * HEADS + kv_head * GROUP + g, tx] = st[2]
            if tx == 0:
                PML[chunk * HEADS + kv_head * GROUP + g, 0] = st[0]
                PML[chunk * HEADS + kv_head * GROUP + g, 1] = st[1]


@T.prim_func
def decode_combine(part_o_ptr: T.handle, part_ml_ptr: T.handle, indptr_ptr: T.handle, output_ptr: T.handle,
                   lse_ptr: T.handle):
    PO = T.match_buffer(part_o_ptr, (SLOTS, DIM), "float32")
    PML = T.match_buffer(part_ml_ptr, (SLOTS, 2), "float32")
    INDPTR = T.match_buffer(indptr_ptr, (BATCH + 1,), "int32")
    OUT = T.match_buffer(output_ptr, (BATCH, HEADS, DIM), "bfloat16")
    LSE = T.match_buffer(lse_ptr, (BATCH, HEADS), "float32")
    T.device_entry()
    h, b = T.cta_id([HEADS, BATCH])
    tx = T.thread_id([DIM])
    cs = T.alloc_buffer((BATCH + 1,), "int32", scope="shared")
    info = T.alloc_buffer((2,), "int32", scope="local")      # the request's chunks [c0, c1)
    st = T.alloc_buffer((4,), "float32", scope="local")      # 0 max, 1 sum, 2 acc, 3 weight

    if tx < BATCH:
        cs[tx + 1] = T.shift_right(INDPTR[tx + 1] - INDPTR[tx] + (CHUNK - 1), CHUNK_SHIFT)
    if tx == 0:
        cs[0] = 0
    T.cuda.cta_sync()
    if tx == 0:
        for bb in T.serial(BATCH):
            cs[bb + 1] = cs[bb + 1] + cs[bb]
    T.cuda.cta_sync()
    info[0] = cs[b]
    info[1] = cs[b + 1]

    st[0] = T.float32(NEG_INF)
    for c in T.serial(info[1] - info[0]):
        st[0] = T.max(st[0], PML[(info[0] + c) * HEADS + h, 0])
    st[1] = T.float32(0)
    st[2] = T.float32(0)
    for c in T.serial(info[1] - info[0]):
        st[3] = T.Select(PML[(info[0] + c) * HEADS + h, 0] > T.float32(NEG_INF),
                         T.exp2(PML[(info[0] + c) * HEADS + h, 0] - st[0]), T.float32(0))
        st[1] = st[1] + PML[(info[0] + c) * HEADS + h, 1] * st[3]
        st[2] = st[2] + PO[(info[0] + c) * HEADS + h, tx] * st[3]
    # an empty request (none in this workload): output 0, lse -inf
    OUT[b, h, tx] = T.Cast("bfloat16", T.Select(st[1] > T.float32(0), st[2] / st[1], T.float32(0)))
    if tx == 0:
        LSE[b, h] = T.Select(st[1] > T.float32(0), st[0] + T.log2(st[1]), T.float32(NEG_INF))


MKB_PLAN = """/* mkb:plan
scratch part_o fp32[(ceil_div(num_kv_indices, 64) + batch_size) * num_qo_heads * head_dim]
scratch part_ml fp32[(ceil_div(num_kv_indices, 64) + batch_size) * num_qo_heads * 2]
launch decode_partial grid(ceil_div(num_kv_indices, 64) + batch_size, num_kv_heads) block(128)
  args(q, k_cache, v_cache, kv_indptr, kv_indices, part_o, part_ml, f32(sm_scale * 1.4426950408889634))
launch decode_combine grid(num_qo_heads, batch_size) block(128) args(part_o, part_ml, kv_indptr, output, lse)
*/"""
