"""Causal paged GQA prefill (16 query heads, 1 KV head, head dim 128, page size 64) in TIRx: the flash-attention
forward of solutions/cuda.cu on bf16 tensor cores (mma.sync m16n8k16, fp32 accumulation), online softmax in
fp32, base 2.

Rows: for request b and KV head g (g = 0: one KV head), the 16 query heads of g's group are packed with
the tokens into rows r = i * 16 + hh (query i, head 16 g + hh), so each K/V tile loaded serves all 16 heads
(a warp's 16 rows are one query's 16 heads). A CTA of 4 warps (16 rows each) owns 64 such rows of one
request and walks the request's keys in tiles of 64, gathered page by page (key j is slot j % 64 of page kv_indices[kv_indptr[b] + j / 64]) with cp.async
into double-buffered shared memory; shared rows are padded by 16 bytes so that the 8 row addresses of an
ldmatrix fall in distinct banks (the cuda solution XOR-swizzles instead). kv_len = 64 (pages - 1) +
kv_last_page_len[b]. Key tiles past the causal limit of the tile's last row are never loaded. Where the
cuda solution zero-fills, the copies here re-read a valid row (Q rows past the request: its last packed
row; keys past the tile's key limit: the last key it may see); those keys are masked to -inf (weight
exactly 0) and those rows are not stored. The mask (bottom-right causal: key j allowed for row r iff
j < min(kv_len, r / 16 + 1 + kv_len - q_len)) is applied in every tile (a no-op on the tiles the cuda
solution leaves unmasked). Logits are (q.k) in fp32 times sm_scale * log2(e) (a plan argument), so the
running maximum and the LSE are in base 2 directly. The softmax weights are rounded to bf16 for the P.V
product (the A operand is built from the S accumulators in registers); their row sums stay fp32; the
output is divided by the fp32 row sum and rounded to bf16 once.

CTA x = item (one KV head). The row tiles of all requests are numbered in order (an inclusive Hillis-Steele
scan of the per-request tile counts in shared memory) and taken from the last one backwards, item 0 being
the last tile, as in the cuda solution (the longest rows start first). The grid is an upper bound: CTAs
past the first tile do nothing."""
from tvm.script import tirx as T

QO_HEADS, KV_HEADS, D, PAGE = 16, 1, 128, 64
GROUP = QO_HEADS // KV_HEADS                  # 16 query heads per KV head
BATCH, TOTAL_Q, NUM_INDICES, NUM_PAGES = 15, 969, 969, 4166
BM, BN, THREADS = 64, 64, 128                 # packed rows, keys per tile; 4 warps
BM_SHIFT, BN_SHIFT, PAGE_SHIFT = 6, 6, 6
STRIDE = D + 8                                # padded shared rows (bf16 elements)
Q_TILE = K_TILE = V_TILE = 64 * STRIDE
SMEM = (Q_TILE + 2 * K_TILE + 2 * V_TILE) * 2  # bytes of dynamic shared memory: the plan's shared(...)
ITEMS = -(-TOTAL_Q * GROUP // BM) + BATCH     # an upper bound on the row tiles (the plan's grid)
CHUNKS = D // 8                               # 16-byte chunks per row
NB, DB = BN // 8, D // 8                      # n-blocks of S and of O per warp row block
NEG_INF = float("-inf")
assert NUM_PAGES * PAGE * KV_HEADS * D < 2**31 and TOTAL_Q * QO_HEADS * D < 2**31
assert SMEM == 87040 and BATCH <= THREADS == 128 and BM == 1 << BM_SHIFT and BN == 1 << BN_SHIFT
assert PAGE == 1 << PAGE_SHIFT and BM == 16 * (THREADS // 32) and (BN * CHUNKS) % THREADS == 0


@T.macro
def load_kv_tile(sm, K, V, IDX, slot, kv_first, n0, n_keys, g, tx):
    # keys n0 .. n0 + BN - 1 of the request into K/V buffer `slot`; keys past n_keys re-read key n_keys - 1
    for i in T.unroll(BN * CHUNKS // THREADS):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([Q_TILE + slot * K_TILE + (tx // CHUNKS + i * (THREADS // CHUNKS)) * STRIDE + tx % CHUNKS * 8]),
            K.ptr_to([IDX[kv_first + T.shift_right(T.min(n0 + tx // CHUNKS + i * (THREADS // CHUNKS), n_keys - 1),
                                                   PAGE_SHIFT)],
                      T.bitwise_and(T.min(n0 + tx // CHUNKS + i * (THREADS // CHUNKS), n_keys - 1), PAGE - 1),
                      g, tx % CHUNKS * 8]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([Q_TILE + 2 * K_TILE + slot * V_TILE + (tx // CHUNKS + i * (THREADS // CHUNKS)) * STRIDE
                       + tx % CHUNKS * 8]),
            V.ptr_to([IDX[kv_first + T.shift_right(T.min(n0 + tx // CHUNKS + i * (THREADS // CHUNKS), n_keys - 1),
                                                   PAGE_SHIFT)],
                      T.bitwise_and(T.min(n0 + tx // CHUNKS + i * (THREADS // CHUNKS), n_keys - 1), PAGE - 1),
                      g, tx % CHUNKS * 8]), 16)


@T.prim_func
def paged_prefill_fa(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, qo_indptr_ptr: T.handle,
                     kv_indptr_ptr: T.handle, indices_ptr: T.handle, last_len_ptr: T.handle, out_ptr: T.handle,
                     lse_ptr: T.handle, scale_log2: T.float32):
    Q = T.match_buffer(q_ptr, (TOTAL_Q, QO_HEADS, D), "bfloat16")
    K = T.match_buffer(k_ptr, (NUM_PAGES, PAGE, KV_HEADS, D), "bfloat16")
    V = T.match_buffer(v_ptr, (NUM_PAGES, PAGE, KV_HEADS, D), "bfloat16")
    QO = T.match_buffer(qo_indptr_ptr, (BATCH + 1,), "int32")
    KVP = T.match_buffer(kv_indptr_ptr, (BATCH + 1,), "int32")
    IDX = T.match_buffer(indices_ptr, (NUM_INDICES,), "int32")
    LAST = T.match_buffer(last_len_ptr, (BATCH,), "int32")
    OUT = T.match_buffer(out_ptr, (TOTAL_Q, QO_HEADS, D), "bfloat16")
    LSE = T.match_buffer(lse_ptr, (TOTAL_Q, QO_HEADS), "float32")
    T.device_entry()
    bx = T.cta_id([KV_HEADS * ITEMS])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((Q_TILE + 2 * K_TILE + 2 * V_TILE,), "bfloat16", scope="shared.dyn")
    scan = T.alloc_buffer((2, THREADS), "int32", scope="shared")
    found = T.alloc_buffer((2,), "int32", scope="shared")       # request (-1: none), its tile (from the first)
    # info: 0 qs, 1 rows (q_len * GROUP), 2 first page slot, 3 kv_len, 4 r0, 5 key tiles, 6 delta, 7 n_keys
    info = T.alloc_buffer((8,), "int32", scope="local")
    lim = T.alloc_buffer((2,), "int32", scope="local")          # key limits of the thread's two rows
    s = T.alloc_buffer((NB, 4), "float32", scope="local")
    o = T.alloc_buffer((DB, 4), "float32", scope="local")
    af = T.alloc_buffer((4,), "uint32", scope="local")
    bf = T.alloc_buffer((4,), "uint32", scope="local")
    ob = T.alloc_buffer((2,), "bfloat16", scope="local")
    # per row half r (rows lane / 4 and lane / 4 + 8): running max, running sum, tile max, max used, rescale, tile sum
    m_run = T.alloc_buffer((2,), "float32", scope="local")
    l_run = T.alloc_buffer((2,), "float32", scope="local")
    mx = T.alloc_buffer((2,), "float32", scope="local")
    m_use = T.alloc_buffer((2,), "float32", scope="local")
    alpha = T.alloc_buffer((2,), "float32", scope="local")
    rsum = T.alloc_buffer((2,), "float32", scope="local")

    # Which request and row tile: inclusive scan of the per-request tile counts; item = total - 1 - bx.
    if tx == 0:
        found[0] = -1
        found[1] = 0
    if tx < BATCH:
        scan[0, tx] = T.shift_right((QO[tx + 1] - QO[tx]) * GROUP + (BM - 1), BM_SHIFT)
    else:
        scan[0, tx] = 0
    for step in T.unroll(7):                  # offsets 1 .. 64; step k reads row k % 2, writes the other
        T.cuda.cta_sync()
        if tx >= (1 << step):
            scan[(step + 1) % 2, tx] = scan[step % 2, tx] + scan[step % 2, tx - (1 << step)]
        else:
            scan[(step + 1) % 2, tx] = scan[step % 2, tx]
    T.cuda.cta_sync()
    if tx < BATCH:   # scan[1, THREADS - 1] is the total tile count
        if scan[1, THREADS - 1] - 1 - bx // KV_HEADS < scan[1, tx]:
            if scan[1, THREADS - 1] - 1 - bx // KV_HEADS >= scan[1, tx] - T.shift_right(
                    (QO[tx + 1] - QO[tx]) * GROUP + (BM - 1), BM_SHIFT):
                found[0] = tx
                found[1] = scan[1, THREADS - 1] - 1 - bx // KV_HEADS - scan[1, tx] + T.shift_right(
                    (QO[tx + 1] - QO[tx]) * GROUP + (BM - 1), BM_SHIFT)
    T.cuda.cta_sync()

    if found[0] >= 0:  # uniform over the CTA
        info[0] = QO[found[0]]
        info[1] = (QO[found[0] + 1] - info[0]) * GROUP
        info[2] = KVP[found[0]]
        info[3] = T.Select(KVP[found[0] + 1] > info[2],
                           (KVP[found[0] + 1] - info[2] - 1) * PAGE + LAST[found[0]], 0)
        info[4] = found[1] * BM
        info[6] = info[3] - info[1] // GROUP
        # keys any row of the tile sees: n_keys = min(kv_len, last query + delta + 1)
        info[7] = T.max(0, T.min(info[3], (T.min(info[4] + BM, info[1]) - 1) // GROUP + info[6] + 1))
        info[5] = T.shift_right(info[7] + (BN - 1), BN_SHIFT)
        for r in T.unroll(2):
            lim[r] = T.min(info[3], (info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8) // GROUP + info[6] + 1)

        for i in T.unroll(BM * CHUNKS // THREADS):   # the Q tile; rows past the request re-read its last row
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([(tx // CHUNKS + i * (THREADS // CHUNKS)) * STRIDE + tx % CHUNKS * 8]),
                Q.ptr_to([info[0] + T.min(info[4] + tx // CHUNKS + i * (THREADS // CHUNKS), info[1] - 1) // GROUP,
                          bx % KV_HEADS * GROUP
                          + T.min(info[4] + tx // CHUNKS + i * (THREADS // CHUNKS), info[1] - 1) % GROUP,
                          tx % CHUNKS * 8]), 16)
        if info[5] > 0:
            load_kv_tile(sm, K, V, IDX, 0, info[2], 0, info[7], bx % KV_HEADS, tx)
        T.ptx.cp.async_.commit_group()

        for db in T.unroll(DB):
            for e in T.unroll(4):
                o[db, e] = T.float32(0)
        for r in T.unroll(2):
            m_run[r] = T.float32(NEG_INF)
            l_run[r] = T.float32(0)

        for it in T.serial(info[5]):
            if it + 1 < info[5]:
                load_kv_tile(sm, K, V, IDX, (it + 1) % 2, info[2], (it + 1) * BN, info[7], bx % KV_HEADS, tx)
                T.ptx.cp.async_.commit_group()
                T.ptx.cp.async_.wait_group(1)
            else:
                T.ptx.cp.async_.wait_group(0)
            T.cuda.cta_sync()

            # S = Q K^T for this warp's 16 rows and the tile's BN keys.
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.float32(0)
            for kc in T.unroll(D // 16):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[0], af[1], af[2], af[3],
                    sm.ptr_to([(tx // 32 * 16 + tx % 16) * STRIDE + kc * 16 + tx % 32 // 16 * 8]))
                for nb2 in T.unroll(BN // 16):
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                        bf[0], bf[1], bf[2], bf[3],
                        sm.ptr_to([Q_TILE + it % 2 * K_TILE + (nb2 * 16 + tx % 8 + tx % 32 // 16 * 8) * STRIDE
                                   + kc * 16 + tx % 16 // 8 * 8]))
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        s[2 * nb2, 0], s[2 * nb2, 1], s[2 * nb2, 2], s[2 * nb2, 3],
                        af[0], af[1], af[2], af[3], bf[0], bf[1],
                        s[2 * nb2, 0], s[2 * nb2, 1], s[2 * nb2, 2], s[2 * nb2, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        s[2 * nb2 + 1, 0], s[2 * nb2 + 1, 1], s[2 * nb2 + 1, 2], s[2 * nb2 + 1, 3],
                        af[0], af[1], af[2], af[3], bf[2], bf[3],
                        s[2 * nb2 + 1, 0], s[2 * nb2 + 1, 1], s[2 * nb2 + 1, 2], s[2 * nb2 + 1, 3])

            # Scale to base 2 and mask: s[nb, e] is key it*BN + 8nb + 2(lane % 4) + e % 2 of packed row
            # r0 + 16 warp + lane / 4 + 8 (e / 2), whose limit is lim[e / 2].
            for r in T.unroll(2):
                mx[r] = T.float32(NEG_INF)
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.Select(it * BN + nb * 8 + tx % 4 * 2 + e % 2 >= lim[e // 2],
                                        T.float32(NEG_INF), s[nb, e] * scale_log2)
                for r in T.unroll(2):
                    mx[r] = T.max(mx[r], T.max(s[nb, 2 * r], s[nb, 2 * r + 1]))
            for r in T.unroll(2):   # a row's 64 keys are spread over the 4 lanes of a quad
                mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 1, 32, 32))
                mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 2, 32, 32))
                mx[r] = T.max(m_run[r], mx[r])
                m_use[r] = T.Select(mx[r] == T.float32(NEG_INF), T.float32(0), mx[r])
                alpha[r] = T.exp2(m_run[r] - m_use[r])
                m_run[r] = mx[r]
                rsum[r] = T.float32(0)
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.exp2(s[nb, e] - m_use[e // 2])
                for r in T.unroll(2):
                    rsum[r] = rsum[r] + (s[nb, 2 * r] + s[nb, 2 * r + 1])
            for r in T.unroll(2):
                l_run[r] = l_run[r] * alpha[r] + rsum[r]
            for db in T.unroll(DB):
                for e in T.unroll(4):
                    o[db, e] = o[db, e] * alpha[e // 2]

            # O += P V: the S accumulators of two neighbouring 8-key blocks are the A fragment of 16 keys.
            for kc in T.unroll(BN // 16):
                for hh in T.unroll(2):
                    for rr in T.unroll(2):   # af[2 hh + rr] = bf16 pair of s[2 kc + hh, 2 rr], s[2 kc + hh, 2 rr + 1]
                        af[hh * 2 + rr] = T.bitwise_or(
                            T.Cast("uint32", T.reinterpret("uint16", T.Cast("bfloat16", s[2 * kc + hh, 2 * rr]))),
                            T.shift_left(T.Cast("uint32", T.reinterpret(
                                "uint16", T.Cast("bfloat16", s[2 * kc + hh, 2 * rr + 1]))), T.uint32(16)))
                for db2 in T.unroll(D // 16):
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                        bf[0], bf[1], bf[2], bf[3],
                        sm.ptr_to([Q_TILE + 2 * K_TILE + it % 2 * V_TILE
                                   + (kc * 16 + tx % 8 + tx % 16 // 8 * 8) * STRIDE + db2 * 16 + tx % 32 // 16 * 8]))
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        o[2 * db2, 0], o[2 * db2, 1], o[2 * db2, 2], o[2 * db2, 3],
                        af[0], af[1], af[2], af[3], bf[0], bf[1],
                        o[2 * db2, 0], o[2 * db2, 1], o[2 * db2, 2], o[2 * db2, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        o[2 * db2 + 1, 0], o[2 * db2 + 1, 1], o[2 * db2 + 1, 2], o[2 * db2 + 1, 3],
                        af[0], af[1], af[2], af[3], bf[2], bf[3],
                        o[2 * db2 + 1, 0], o[2 * db2 + 1, 1], o[2 * db2 + 1, 2], o[2 * db2 + 1, 3])
            T.cuda.cta_sync()   # the next iteration refills the buffer just read
        T.ptx.cp.async_.wait_group(0)   # the Q copies, where no key tile was loaded

        # Finish: the row sums over the quad, normalize, store the bf16 output and the base-2 LSE.
        for r in T.unroll(2):
            l_run[r] = l_run[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), l_run[r], 1, 32, 32)
            l_run[r] = l_run[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), l_run[r], 2, 32, 32)
            rsum[r] = T.Select(l_run[r] > T.float32(0), T.float32(1) / l_run[r], T.float32(0))
        for r in T.unroll(2):
            if info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8 < info[1]:
                for db in T.unroll(DB):
                    for e in T.unroll(2):
                        ob[e] = T.Cast("bfloat16", o[db, r * 2 + e] * rsum[r])
                    for e in T.vectorized(2):
                        OUT[info[0] + (info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8) // GROUP,
                            bx % KV_HEADS * GROUP + (info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8) % GROUP,
                            db * 8 + tx % 4 * 2 + e] = ob[e]
                if tx % 4 == 0:
                    LSE[info[0] + (info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8) // GROUP,
                        bx % KV_HEADS * GROUP + (info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8) % GROUP] = T.Select(
                        l_run[r] > T.float32(0), m_run[r] + T.log2(l_run[r]), T.float32(NEG_INF))


MKB_PLAN = """/* mkb:plan
launch paged_prefill_fa grid(num_kv_heads * (ceil_div(total_q * 16, 64) + batch_size)) block(128) shared(87040)
  args(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, kv_last_page_len, output, lse,
       f32(sm_scale * 1.4426950408889634))
*/"""
