"""Causal absorbed-MLA paged prefill (16 heads, ckv 512, kpe 64, page size 1) in TIRx: the kernel of
solutions/cuda.cu on bf16 tensor cores, one 128-thread CTA per query token, its whole causal window in
one CTA (no split, no merge).

Query token t = qo_indptr[s] + i of sequence s (found by the thread tx < 28 with qo_indptr[tx] <= t <
qo_indptr[tx + 1]) sees the first min(kv_len, kv_len - q_len + i + 1) tokens of the sequence's KV, pages
kv_indices[kv_indptr[s] + j] (a page is a token). The 16 heads are the 16 rows of one m16 tensor-core tile,
so each latent row (512 ckv + 64 kpe bf16) is read once per query token for all heads. Per 64-token tile,
copied to shared memory with cp.async (rows padded by 16 bytes, so the 8 row addresses of an ldmatrix fall
in distinct banks):
  S = [q_nope | q_pe] . [ckv | kpe]^T   mma.sync m16n8k16 bf16, fp32 accumulation (exact products);
                                        warp w computes the logits of tokens 16w .. 16w + 15
  online softmax in fp32, base 2 (logits times sm_scale * log2(e), a plan argument); the row maxima and
                                        sums of the four warps meet in shared memory
  O += P . ckv                          P rounded to bf16 and staged in shared memory, ckv through
                                        ldmatrix.trans; warp w owns output columns 128w .. 128w + 127
Token rows past the window's end re-read its last token (the cuda solution zero-fills them); their logits
are masked to -inf, so their weights are exactly 0. At the end O / sum is rounded once to bf16 and
lse = max + log2(sum) (-inf and zeros for an empty window, which the fixed indptr tuples never give).
The cuda solution reads the A and B fragments with 32-bit shared loads, this port with ldmatrix: the same
values in the same registers."""
from tvm.script import tirx as T

HEADS, CKV, KPE, BATCH, TOTAL_Q, NUM_PAGES, NUM_INDICES = 16, 512, 64, 28, 1954, 989669, 2044
TILE, THREADS, TILE_SHIFT = 64, 128, 6
CKV_STRIDE, KPE_STRIDE, P_STRIDE = CKV + 8, KPE + 8, TILE + 8   # padded shared rows (bf16 elements)
QN_OFF = 0
QP_OFF = QN_OFF + HEADS * CKV_STRIDE
KC_OFF = QP_OFF + HEADS * KPE_STRIDE
KP_OFF = KC_OFF + TILE * CKV_STRIDE
PS_OFF = KP_OFF + TILE * KPE_STRIDE
SMEM_ELEMS = PS_OFF + HEADS * P_STRIDE
NEG_INF = float("-inf")
assert SMEM_ELEMS * 2 == 97024 and BATCH <= THREADS == 128 and TILE == 1 << TILE_SHIFT
assert NUM_PAGES * CKV < 2**31 and TOTAL_Q * HEADS * CKV < 2**31


@T.prim_func
def mla_prefill_query(q_nope_ptr: T.handle, q_pe_ptr: T.handle, ckv_ptr: T.handle, kpe_ptr: T.handle,
                      qo_indptr_ptr: T.handle, kv_indptr_ptr: T.handle, indices_ptr: T.handle, output_ptr: T.handle,
                      lse_ptr: T.handle, scale_log2: T.float32):
    QN = T.match_buffer(q_nope_ptr, (TOTAL_Q, HEADS, CKV), "bfloat16")
    QP = T.match_buffer(q_pe_ptr, (TOTAL_Q, HEADS, KPE), "bfloat16")
    KC = T.match_buffer(ckv_ptr, (NUM_PAGES, CKV), "bfloat16")       # [num_pages, 1, 512]: a page is a token
    KP = T.match_buffer(kpe_ptr, (NUM_PAGES, KPE), "bfloat16")
    QO = T.match_buffer(qo_indptr_ptr, (BATCH + 1,), "int32")
    KVP = T.match_buffer(kv_indptr_ptr, (BATCH + 1,), "int32")
    INDICES = T.match_buffer(indices_ptr, (NUM_INDICES,), "int32")
    OUT = T.match_buffer(output_ptr, (TOTAL_Q, HEADS, CKV), "bfloat16")
    LSE = T.match_buffer(lse_ptr, (TOTAL_Q, HEADS), "float32")
    T.device_entry()
    b = T.cta_id([TOTAL_Q])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((SMEM_ELEMS,), "bfloat16", scope="shared.dyn")
    found = T.alloc_buffer((1,), "int32", scope="shared")          # the query token's sequence
    tok = T.alloc_buffer((TILE,), "int32", scope="shared")
    red_max = T.alloc_buffer((4, HEADS), "float32", scope="shared")
    red_sum = T.alloc_buffer((4, HEADS), "float32", scope="shared")
    info = T.alloc_buffer((3,), "int32", scope="local")          # 0 begin, 1 end, 2 tiles
    s = T.alloc_buffer((2, 4), "float32", scope="local")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")
    af = T.alloc_buffer((4,), "uint32", scope="local")
    bf = T.alloc_buffer((4,), "uint32", scope="local")
    ob = T.alloc_buffer((2,), "bfloat16", scope="local")
    # per row half r (head lane / 4, lane / 4 + 8): running max, running sum, tile max, max used, rescale, tile sum
    m_run = T.alloc_buffer((2,), "float32", scope="local")
    l_run = T.alloc_buffer((2,), "float32", scope="local")
    mx = T.alloc_buffer((2,), "float32", scope="local")
    m_use = T.alloc_buffer((2,), "float32", scope="local")
    alpha = T.alloc_buffer((2,), "float32", scope="local")
    rsum = T.alloc_buffer((2,), "float32", scope="local")

    # Which sequence: the one whose query rows hold b (every sequence has at least one).
    if tx == 0:
        found[0] = 0
    T.cuda.cta_sync()
    if tx < BATCH:
        if QO[tx] <= b:
            if b < QO[tx + 1]:
                found[0] = tx
    T.cuda.cta_sync()
    # the window: KV positions 0 .. (kv_len - q_len) + i of the sequence, as slots begin .. end - 1 of kv_indices
    info[0] = KVP[found[0]]
    info[1] = info[0] + T.max(0, T.min(KVP[found[0] + 1] - info[0], KVP[found[0] + 1] - info[0]
                                        - (QO[found[0] + 1] - QO[found[0]]) + (b - QO[found[0]]) + 1))
    info[2] = T.shift_right(info[1] - info[0] + (TILE - 1), TILE_SHIFT)

    # Q of the token: 16 heads x (512 + 64), into padded rows.
    for i in T.unroll(HEADS * CKV // 8 // THREADS):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([QN_OFF + (tx // 64 + i * 2) * CKV_STRIDE + tx % 64 * 8]),
            QN.ptr_to([b, tx // 64 + i * 2, tx % 64 * 8]), 16)
    T.ptx.cp.async_.cg.shared.global_(sm.ptr_to([QP_OFF + tx // 8 * KPE_STRIDE + tx % 8 * 8]),
                                      QP.ptr_to([b, tx // 8, tx % 8 * 8]), 16)

    for r in T.unroll(2):
        m_run[r] = T.float32(NEG_INF)
        l_run[r] = T.float32(0)
    for j in T.unroll(16):
        for e in T.unroll(4):
            acc[j, e] = T.float32(0)

    for it in T.serial(info[2]):
        if tx < TILE:   # past the window's end: its last token (masked below)
            tok[tx] = INDICES[T.min(info[0] + it * TILE + tx, info[1] - 1)]
        T.cuda.cta_sync()
        for i in T.unroll(TILE * CKV // 8 // THREADS):
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([KC_OFF + (tx // 64 + i * 2) * CKV_STRIDE + tx % 64 * 8]),
                KC.ptr_to([tok[tx // 64 + i * 2], tx % 64 * 8]), 16)
        for i in T.unroll(TILE * KPE // 8 // THREADS):
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([KP_OFF + (tx // 8 + i * 16) * KPE_STRIDE + tx % 8 * 8]),
                KP.ptr_to([tok[tx // 8 + i * 16], tx % 8 * 8]), 16)
        T.ptx.cp.async_.commit_group()
        T.ptx.cp.async_.wait_group(0)   # the Q copies too, in the first tile
        T.cuda.cta_sync()

        # S for this warp's 16 tokens (two n8 tiles): A = the 16 heads' q rows, B = the token rows.
        for nt in T.unroll(2):
            for e in T.unroll(4):
                s[nt, e] = T.float32(0)
        for kc in T.unroll(CKV // 16):
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                af[0], af[1], af[2], af[3],
                sm.ptr_to([QN_OFF + tx % 16 * CKV_STRIDE + kc * 16 + tx % 32 // 16 * 8]))
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                bf[0], bf[1], bf[2], bf[3],
                sm.ptr_to([KC_OFF + (tx // 32 * 16 + tx % 8 + tx % 32 // 16 * 8) * CKV_STRIDE + kc * 16
                           + tx % 16 // 8 * 8]))
            for nt in T.unroll(2):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    s[nt, 0], s[nt, 1], s[nt, 2], s[nt, 3], af[0], af[1], af[2], af[3], bf[nt * 2], bf[nt * 2 + 1],
                    s[nt, 0], s[nt, 1], s[nt, 2], s[nt, 3])
        for kc in T.unroll(KPE // 16):
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                af[0], af[1], af[2], af[3],
                sm.ptr_to([QP_OFF + tx % 16 * KPE_STRIDE + kc * 16 + tx % 32 // 16 * 8]))
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                bf[0], bf[1], bf[2], bf[3],
                sm.ptr_to([KP_OFF + (tx // 32 * 16 + tx % 8 + tx % 32 // 16 * 8) * KPE_STRIDE + kc * 16
                           + tx % 16 // 8 * 8]))
            for nt in T.unroll(2):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    s[nt, 0], s[nt, 1], s[nt, 2], s[nt, 3], af[0], af[1], af[2], af[3], bf[nt * 2], bf[nt * 2 + 1],
                    s[nt, 0], s[nt, 1], s[nt, 2], s[nt, 3])

        # Scale into base 2, mask the rows past the window, tile row maxima (s[nt, e]: head lane / 4 +
        # 8 (e / 2), token 16 warp + 8 nt + 2 (lane % 4) + e % 2).
        for r in T.unroll(2):
            mx[r] = T.float32(NEG_INF)
        for nt in T.unroll(2):
            for e in T.unroll(4):
                s[nt, e] = T.Select(info[0] + it * TILE + tx // 32 * 16 + nt * 8 + tx % 4 * 2 + e % 2 < info[1],
                                    s[nt, e] * scale_log2, T.float32(NEG_INF))
            for r in T.unroll(2):
                mx[r] = T.max(mx[r], s[nt, 2 * r])
                mx[r] = T.max(mx[r], s[nt, 2 * r + 1])
        for r in T.unroll(2):
            mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 1, 32, 32))
            mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 2, 32, 32))
        if tx % 4 == 0:
            red_max[tx // 32, tx % 32 // 4] = mx[0]
            red_max[tx // 32, tx % 32 // 4 + 8] = mx[1]
        T.cuda.cta_sync()
        for r in T.unroll(2):
            mx[r] = T.max(m_run[r], T.max(T.max(red_max[0, tx % 32 // 4 + r * 8], red_max[1, tx % 32 // 4 + r * 8]),
                                          T.max(red_max[2, tx % 32 // 4 + r * 8], red_max[3, tx % 32 // 4 + r * 8])))
            m_use[r] = T.Select(mx[r] == T.float32(NEG_INF), T.float32(0), mx[r])
            alpha[r] = T.exp2(m_run[r] - m_use[r])
            m_run[r] = mx[r]
            rsum[r] = T.float32(0)
        for nt in T.unroll(2):
            for e in T.unroll(4):
                s[nt, e] = T.exp2(s[nt, e] - m_use[e // 2])
                sm[PS_OFF + (tx % 32 // 4 + e // 2 * 8) * P_STRIDE + tx // 32 * 16 + nt * 8 + tx % 4 * 2 + e % 2] = \
                    T.Cast("bfloat16", s[nt, e])
            for r in T.unroll(2):
                rsum[r] = rsum[r] + (s[nt, 2 * r] + s[nt, 2 * r + 1])
        for r in T.unroll(2):
            rsum[r] = rsum[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), rsum[r], 1, 32, 32)
            rsum[r] = rsum[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), rsum[r], 2, 32, 32)
        if tx % 4 == 0:
            red_sum[tx // 32, tx % 32 // 4] = rsum[0]
            red_sum[tx // 32, tx % 32 // 4 + 8] = rsum[1]
        T.cuda.cta_sync()
        for r in T.unroll(2):
            l_run[r] = l_run[r] * alpha[r] + ((red_sum[0, tx % 32 // 4 + r * 8] + red_sum[1, tx % 32 // 4 + r * 8])
                                              + (red_sum[2, tx % 32 // 4 + r * 8] + red_sum[3, tx % 32 // 4 + r * 8]))

        # O (this warp's 128 columns) = alpha O + P . ckv
        for j in T.unroll(16):
            for e in T.unroll(4):
                acc[j, e] = acc[j, e] * alpha[e // 2]
        for kc in T.unroll(TILE // 16):
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                af[0], af[1], af[2], af[3],
                sm.ptr_to([PS_OFF + tx % 16 * P_STRIDE + kc * 16 + tx % 32 // 16 * 8]))
            for jj in T.unroll(8):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                    bf[0], bf[1], bf[2], bf[3],
                    sm.ptr_to([KC_OFF + (kc * 16 + tx % 8 + tx % 16 // 8 * 8) * CKV_STRIDE + tx // 32 * 128
                               + jj * 16 + tx % 32 // 16 * 8]))
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[2 * jj, 0], acc[2 * jj, 1], acc[2 * jj, 2], acc[2 * jj, 3],
                    af[0], af[1], af[2], af[3], bf[0], bf[1],
                    acc[2 * jj, 0], acc[2 * jj, 1], acc[2 * jj, 2], acc[2 * jj, 3])
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[2 * jj + 1, 0], acc[2 * jj + 1, 1], acc[2 * jj + 1, 2], acc[2 * jj + 1, 3],
                    af[0], af[1], af[2], af[3], bf[2], bf[3],
                    acc[2 * jj + 1, 0], acc[2 * jj + 1, 1], acc[2 * jj + 1, 2], acc[2 * jj + 1, 3])
        T.cuda.cta_sync()   # tok, the K tiles, P and the reductions are rewritten by the next tile
    T.ptx.cp.async_.wait_group(0)   # the Q copies, where the window is empty

    # output = O / sum (bf16, rounded once), lse = max + log2(sum) per head.
    for r in T.unroll(2):
        rsum[r] = T.Select(l_run[r] > T.float32(0), T.float32(1) / l_run[r], T.float32(0))
    for j in T.unroll(16):
        for r in T.unroll(2):
            for e in T.unroll(2):
                ob[e] = T.Cast("bfloat16", acc[j, r * 2 + e] * rsum[r])
            for e in T.vectorized(2):
                OUT[b, tx % 32 // 4 + r * 8, tx // 32 * 128 + j * 8 + tx % 4 * 2 + e] = ob[e]
    if tx // 32 == 0:
        if tx % 4 == 0:
            for r in T.unroll(2):
                LSE[b, tx // 4 + r * 8] = T.Select(l_run[r] > T.float32(0), m_run[r] + T.log2(l_run[r]),
                                                   T.float32(NEG_INF))


MKB_PLAN = """/* mkb:plan
launch mla_prefill_query grid(total_q) block(128) shared(97024)
  args(q_nope, q_pe, ckv_cache, kpe_cache, qo_indptr, kv_indptr, kv_indices, output, lse,
       f32(sm_scale * 1.4426950408889634))
*/"""
