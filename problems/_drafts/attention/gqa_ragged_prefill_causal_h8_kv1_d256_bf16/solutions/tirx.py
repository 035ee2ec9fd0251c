"""Fused ragged causal prefill (8 query heads, 1 KV head, head dim 256) in TIRx: the flash-attention
forward of solutions/cuda.cu on bf16 tensor cores (mma.sync m16n8k16, fp32 accumulation) with the online
softmax in fp32, base 2.

One CTA of 4 warps per (request, 64-query tile, query head); warp w owns query rows 16w .. 16w + 15 of the
tile. K and V tiles of 32 keys (head dim 256: 32 keys keep two CTAs of 99 KiB on an SM) stream through shared memory with cp.async, double-buffered; key tiles
past the causal limit of the tile's last query are never loaded. Shared rows are padded by 16 bytes so
that the 8 row addresses of an ldmatrix fall in distinct banks. Rows past the end of the request are not
zero-filled as in the cuda solution: their copies re-read the request's last row (a finite value), the
keys are masked to -inf (weight exactly 0) and the queries are not stored. The mask (bottom-right causal,
key j allowed for query i iff j < i + 1 + kv_len - q_len, and j < kv_len) is applied in every tile.
Logits are (q.k) in fp32 times sm_scale * log2(e) (a plan argument), so the running maximum and the LSE
are in base 2 directly. The softmax weights are rounded to bf16 for the P.V product (the A operand is
built from the S accumulators in registers); their row sums stay fp32.

CTA x = item * 8 + head; item counts the query tiles of requests 0, 1, ... in order (an inclusive
Hillis-Steele scan of the per-request tile counts in shared memory finds the request); within a request
the tiles run last-first (the longest rows first). The grid is an upper bound: CTAs past the last tile
do nothing."""
from tvm.script import tirx as T

QO_HEADS, KV_HEADS, QK_DIM, VO_DIM = 8, 1, 256, 256
GROUP = QO_HEADS // KV_HEADS                  # 8 query heads share the one KV head
BATCH, TOTAL_Q, TOTAL_KV = 63, 3053, 4841
BM, BN, THREADS = 64, 32, 128                 # query rows, keys per tile; 4 warps
BM_SHIFT, BN_SHIFT = 6, 5
QK_STRIDE, VO_STRIDE = QK_DIM + 8, VO_DIM + 8  # padded shared rows (bf16 elements)
Q_TILE, K_TILE, V_TILE = BM * QK_STRIDE, BN * QK_STRIDE, BN * VO_STRIDE
SMEM = (Q_TILE + 2 * K_TILE + 2 * V_TILE) * 2  # bytes of dynamic shared memory: the plan's shared(...)
ITEMS = -(-TOTAL_Q // BM) + BATCH             # an upper bound on the query tiles
QK_CHUNKS, VO_CHUNKS = QK_DIM // 8, VO_DIM // 8  # 16-byte chunks per row
NB, DB = BN // 8, VO_DIM // 8                 # n-blocks of S and of O per warp row block
NEG_INF = float("-inf")
assert SMEM == 101376 and BATCH <= THREADS == 128 and BM == 1 << BM_SHIFT and BN == 1 << BN_SHIFT
assert BM == 16 * (THREADS // 32) and (BM * QK_CHUNKS) % THREADS == 0 and (BN * VO_CHUNKS) % THREADS == 0


@T.macro
def load_kv_tile(sm, K, V, slot, ks, n0, kv_len, kvh, tx):
    # keys n0 .. n0 + BN - 1 of the request into K/V buffer `slot`; keys past kv_len re-read key kv_len - 1
    for i in T.unroll(BN * QK_CHUNKS // THREADS):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([Q_TILE + slot * K_TILE + (tx // QK_CHUNKS + i * (THREADS // QK_CHUNKS)) * QK_STRIDE
                       + tx % QK_CHUNKS * 8]),
            K.ptr_to([ks + T.min(n0 + tx // QK_CHUNKS + i * (THREADS // QK_CHUNKS), kv_len - 1), kvh,
                      tx % QK_CHUNKS * 8]), 16)
    for i in T.unroll(BN * VO_CHUNKS // THREADS):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([Q_TILE + 2 * K_TILE + slot * V_TILE
                       + (tx // VO_CHUNKS + i * (THREADS // VO_CHUNKS)) * VO_STRIDE + tx % VO_CHUNKS * 8]),
            V.ptr_to([ks + T.min(n0 + tx // VO_CHUNKS + i * (THREADS // VO_CHUNKS), kv_len - 1), kvh,
                      tx % VO_CHUNKS * 8]), 16)


@T.prim_func
def ragged_prefill_fwd(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, qo_indptr_ptr: T.handle,
                       kv_indptr_ptr: T.handle, out_ptr: T.handle, lse_ptr: T.handle, scale_log2: T.float32):
    Q = T.match_buffer(q_ptr, (TOTAL_Q, QO_HEADS, QK_DIM), "bfloat16")
    K = T.match_buffer(k_ptr, (TOTAL_KV, KV_HEADS, QK_DIM), "bfloat16")
    V = T.match_buffer(v_ptr, (TOTAL_KV, KV_HEADS, VO_DIM), "bfloat16")
    QO = T.match_buffer(qo_indptr_ptr, (BATCH + 1,), "int32")
    KVP = T.match_buffer(kv_indptr_ptr, (BATCH + 1,), "int32")
    OUT = T.match_buffer(out_ptr, (TOTAL_Q, QO_HEADS, VO_DIM), "bfloat16")
    LSE = T.match_buffer(lse_ptr, (TOTAL_Q, QO_HEADS), "float32")
    T.device_entry()
    bx = T.cta_id([QO_HEADS * ITEMS])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((Q_TILE + 2 * K_TILE + 2 * V_TILE,), "bfloat16", scope="shared.dyn")
    scan = T.alloc_buffer((2, THREADS), "int32", scope="shared")
    found = T.alloc_buffer((2,), "int32", scope="shared")       # request (-1: none), its tile (0 = last)
    # info: 0 qs, 1 q_len, 2 ks, 3 kv_len, 4 m0, 5 key tiles
    info = T.alloc_buffer((6,), "int32", scope="local")
    s = T.alloc_buffer((NB, 4), "float32", scope="local")
    o = T.alloc_buffer((DB, 4), "float32", scope="local")
    af = T.alloc_buffer((4,), "uint32", scope="local")
    bf = T.alloc_buffer((4,), "uint32", scope="local")
    # per row half r (rows lane / 4 and lane / 4 + 8): running max, running sum, tile max, max used, rescale, tile sum
    m_run = T.alloc_buffer((2,), "float32", scope="local")
    l_run = T.alloc_buffer((2,), "float32", scope="local")
    mx = T.alloc_buffer((2,), "float32", scope="local")
    m_use = T.alloc_buffer((2,), "float32", scope="local")
    alpha = T.alloc_buffer((2,), "float32", scope="local")
    rsum = T.alloc_buffer((2,), "float32", scope="local")

    # Which request and query tile: inclusive scan of the per-request tile counts.
    if tx == 0:
        found[0] = -1
        found[1] = 0
    if tx < BATCH:
        scan[0, tx] = T.shift_right(QO[tx + 1] - QO[tx] + (BM - 1), BM_SHIFT)
    else:
        scan[0, tx] = 0
    for step in T.unroll(7):                  # offsets 1 .. 64; step k reads row k % 2, writes the other
        T.cuda.cta_sync()
        if tx >= (1 << step):
            scan[(step + 1) % 2, tx] = scan[step % 2, tx] + scan[step % 2, tx - (1 << step)]
        else:
            scan[(step + 1) % 2, tx] = scan[step % 2, tx]
    T.cuda.cta_sync()
    if tx < BATCH:
        if bx // QO_HEADS < scan[1, tx]:
            if bx // QO_HEADS >= scan[1, tx] - T.shift_right(QO[tx + 1] - QO[tx] + (BM - 1), BM_SHIFT):
                found[0] = tx
                found[1] = bx // QO_HEADS + T.shift_right(QO[tx + 1] - QO[tx] + (BM - 1), BM_SHIFT) - scan[1, tx]
    T.cuda.cta_sync()

    if found[0] >= 0:  # uniform over the CTA
        info[0] = QO[found[0]]
        info[1] = QO[found[0] + 1] - info[0]
        info[2] = KVP[found[0]]
        info[3] = KVP[found[0] + 1] - info[2]
        info[4] = (T.shift_right(info[1] + (BM - 1), BM_SHIFT) - 1 - found[1]) * BM
        # keys 0 .. n_end - 1 can be seen by some query of this tile: n_end = min(kv_len, m0 + BM + delta)
        info[5] = T.shift_right(T.min(info[3], info[4] + BM + info[3] - info[1]) + (BN - 1), BN_SHIFT)

        for i in T.unroll(BM * QK_CHUNKS // THREADS):   # the Q tile; rows past q_len re-read row q_len - 1
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([(tx // QK_CHUNKS + i * (THREADS // QK_CHUNKS)) * QK_STRIDE + tx % QK_CHUNKS * 8]),
                Q.ptr_to([info[0] + T.min(info[4] + tx // QK_CHUNKS + i * (THREADS // QK_CHUNKS), info[1] - 1),
                          bx % QO_HEADS, tx % QK_CHUNKS * 8]), 16)
        if info[5] > 0:
            load_kv_tile(sm, K, V, 0, info[2], 0, info[3], bx % QO_HEADS // GROUP, tx)
        T.ptx.cp.async_.commit_group()

        for db in T.unroll(DB):
            for e in T.unroll(4):
                o[db, e] = T.float32(0)
        for r in T.unroll(2):
            m_run[r] = T.float32(NEG_INF)
            l_run[r] = T.float32(0)

        for it in T.serial(info[5]):
            if it + 1 < info[5]:
                load_kv_tile(sm, K, V, (it + 1) % 2, info[2], (it + 1) * BN, info[3], bx % QO_HEADS // GROUP, tx)
                T.ptx.cp.async_.commit_group()
                T.ptx.cp.async_.wait_group(1)
            else:
                T.ptx.cp.async_.wait_group(0)
            T.cuda.cta_sync()

            # S = Q K^T for this warp's 16 rows and the tile's BN keys.
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.float32(0)
            for kc in T.unroll(QK_DIM // 16):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[0], af[1], af[2], af[3],
                    sm.ptr_to([(tx // 32 * 16 + tx % 16) * QK_STRIDE + kc * 16 + tx % 32 // 16 * 8]))
                for nb2 in T.unroll(BN // 16):
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                        bf[0], bf[1], bf[2], bf[3],
                        sm.ptr_to([Q_TILE + it % 2 * K_TILE + (nb2 * 16 + tx % 8 + tx % 32 // 16 * 8) * QK_STRIDE
                                   + kc * 16 + tx % 16 // 8 * 8]))
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        s[2 * nb2, 0], s[2 * nb2, 1], s[2 * nb2, 2], s[2 * nb2, 3],
                        af[0], af[1], af[2], af[3], bf[0], bf[1],
                        s[2 * nb2, 0], s[2 * nb2, 1], s[2 * nb2, 2], s[2 * nb2, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        s[2 * nb2 + 1, 0], s[2 * nb2 + 1, 1], s[2 * nb2 + 1, 2], s[2 * nb2 + 1, 3],
                        af[0], af[1], af[2], af[3], bf[2], bf[3],
                        s[2 * nb2 + 1, 0], s[2 * nb2 + 1, 1], s[2 * nb2 + 1, 2], s[2 * nb2 + 1, 3])

            # Scale to base 2 and mask: s[nb, e] is key it*BN + 8nb + 2(lane % 4) + e % 2 of query
            # m0 + 16 warp + lane / 4 + 8 (e / 2).
            for r in T.unroll(2):
                mx[r] = T.float32(NEG_INF)
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.Select(
                        T.Or(it * BN + nb * 8 + tx % 4 * 2 + e % 2
                             >= info[4] + tx // 32 * 16 + tx % 32 // 4 + e // 2 * 8 + 1 + info[3] - info[1],
                             it * BN + nb * 8 + tx % 4 * 2 + e % 2 >= info[3]),
                        T.float32(NEG_INF), s[nb, e] * scale_log2)
                    mx[e // 2] = T.max(mx[e // 2], s[nb, e])
            for r in T.unroll(2):   # a row's 32 keys are spread over the 4 lanes of a quad
                mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 1, 32, 32))
                mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 2, 32, 32))
                mx[r] = T.max(m_run[r], mx[r])
                m_use[r] = T.Select(mx[r] > T.float32(NEG_INF), mx[r], T.float32(0))
                alpha[r] = T.exp2(m_run[r] - m_use[r])
                m_run[r] = mx[r]
                rsum[r] = T.float32(0)
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.exp2(s[nb, e] - m_use[e // 2])
                    rsum[e // 2] = rsum[e // 2] + s[nb, e]
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
                for db2 in T.unroll(VO_DIM // 16):
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                        bf[0], bf[1], bf[2], bf[3],
                        sm.ptr_to([Q_TILE + 2 * K_TILE + it % 2 * V_TILE
                                   + (kc * 16 + tx % 8 + tx % 16 // 8 * 8) * VO_STRIDE + db2 * 16 + tx % 32 // 16 * 8]))
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        o[2 * db2, 0], o[2 * db2, 1], o[2 * db2, 2], o[2 * db2, 3],
                        af[0], af[1], af[2], af[3], bf[0], bf[1],
                        o[2 * db2, 0], o[2 * db2, 1], o[2 * db2, 2], o[2 * db2, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        o[2 * db2 + 1, 0], o[2 * db2 + 1, 1], o[2 * db2 + 1, 2], o[2 * db2 + 1, 3],
                        af[0], af[1], af[2], af[3], bf[2], bf[3],
                        o[2 * db2 + 1, 0], o[2 * db2 + 1, 1], o[2 * db2 + 1, 2], o[2 * db2 + 1, 3])
            T.cuda.cta_sync()   # the next iteration refills the buffer just read

        # Finish: the row sums over the quad, normalize, store the bf16 output and the base-2 LSE.
        for r in T.unroll(2):
            l_run[r] = l_run[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), l_run[r], 1, 32, 32)
            l_run[r] = l_run[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), l_run[r], 2, 32, 32)
            rsum[r] = T.Select(l_run[r] > T.float32(0), T.float32(1) / l_run[r], T.float32(0))
        for r in T.unroll(2):
            if info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8 < info[1]:
                for db in T.unroll(DB):
                    for e in T.unroll(2):
                        OUT[info[0] + info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8, bx % QO_HEADS,
                            db * 8 + tx % 4 * 2 + e] = T.Cast("bfloat16", o[db, r * 2 + e] * rsum[r])
                if tx % 4 == 0:
                    LSE[info[0] + info[4] + tx // 32 * 16 + tx % 32 // 4 + r * 8, bx % QO_HEADS] = T.Select(
                        l_run[r] > T.float32(0), m_run[r] + T.log2(l_run[r]), T.float32(NEG_INF))


MKB_PLAN = """/* mkb:plan
launch ragged_prefill_fwd grid(num_qo_heads * (ceil_div(total_q, 64) + batch_size)) block(128) shared(101376)
  args(q, k, v, qo_indptr, kv_indptr, output, lse, f32(sm_scale * 1.4426950408889634))
*/"""
