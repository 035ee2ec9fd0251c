"""DeepSeek-V3.2 sparse attention (DSA, absorbed MLA: 16 heads, ckv 512, kpe 64, top-2048 selected tokens of a
64-token-page cache) in TIRx: the split-K flash decoding of solutions/cuda.cu on bf16 tensor cores, the
kernels of the MLA decode #14's TIRx port with the chunks taken from the rows of sparse_indices.

dsa_chunk: one 128-thread CTA per (query token q = c / 8, chunk of the 256 index slots 256 (c % 8) ..);
  the 16 heads are the 16 rows of one m16 tensor-core tile, so every selected latent row (512 ckv + 64 kpe
  bf16) is read once for all heads. Token id t is row t of the flattened caches (row t % 64 of page t / 64).
  Per 64-slot tile: the slots go to shared memory, and a tile with no selected token (-1 everywhere: most
  rows select few tokens) is skipped without loading (a shared flag, set by the slots' threads, read
  after the barrier; two flags alternate so that a skipped tile needs no second barrier). Otherwise the
  rows are copied with cp.async (a -1 slot reads token 0, as the reference does, and is masked), and
    S = [q_nope | q_pe] . [ckv | kpe]^T   mma.sync m16n8k16 bf16, fp32 accumulation (exact products);
                                          warp w computes the logits of slots 16w .. 16w + 15
    online softmax in fp32, base 2 (logits times sm_scale * log2(e)); -1 slots masked to -inf; the row
                                          maxima and sums of the four warps meet in shared memory
    O += P . ckv                          P rounded to bf16 and staged in shared memory, ckv through
                                          ldmatrix.trans; warp w owns output columns 128w .. 128w + 127
  Each chunk writes its unnormalized fp32 O, running max and sum (0 where it selected nothing).
dsa_merge: one 128-thread CTA per (query token, head), four columns per thread, merges the 8 chunks that
  selected something: M = max m_c, L = sum l_c 2^(m_c - M), output = bf16(sum o_c 2^(m_c - M) / L),
  lse = M + log2 L (-inf and zeros for a row that selects nothing; none here)."""
from tvm.script import tirx as T

HEADS, CKV, KPE, TOKENS, NUM_PAGES, PAGE, TOPK = 16, 512, 64, 62, 6465, 64, 2048
TILE, CHUNK, THREADS = 64, 256, 128
CHUNKS_PER_ROW = TOPK // CHUNK                 # 8
CKV_STRIDE, KPE_STRIDE, P_STRIDE = CKV + 8, KPE + 8, TILE + 8   # padded shared rows (bf16 elements)
QN_OFF = 0
QP_OFF = QN_OFF + HEADS * CKV_STRIDE
KC_OFF = QP_OFF + HEADS * KPE_STRIDE
KP_OFF = KC_OFF + TILE * CKV_STRIDE
PS_OFF = KP_OFF + TILE * KPE_STRIDE
SMEM_ELEMS = PS_OFF + HEADS * P_STRIDE
CHUNKS = TOKENS * CHUNKS_PER_ROW                # grid: 496
NEG_INF = float("-inf")
assert SMEM_ELEMS * 2 == 97024 and THREADS == 128 and TOPK % CHUNK == 0 and CHUNK % TILE == 0
assert NUM_PAGES * PAGE * CKV < 2**31


@T.prim_func
def dsa_chunk(q_nope_ptr: T.handle, q_pe_ptr: T.handle, ckv_ptr: T.handle, kpe_ptr: T.handle,
              sparse_ptr: T.handle, part_o_ptr: T.handle, part_ml_ptr: T.handle, scale_log2: T.float32):
    QN = T.match_buffer(q_nope_ptr, (TOKENS, HEADS, CKV), "bfloat16")
    QP = T.match_buffer(q_pe_ptr, (TOKENS, HEADS, KPE), "bfloat16")
    KC = T.match_buffer(ckv_ptr, (NUM_PAGES * PAGE, CKV), "bfloat16")    # row t = token id t
    KP = T.match_buffer(kpe_ptr, (NUM_PAGES * PAGE, KPE), "bfloat16")
    SPARSE = T.match_buffer(sparse_ptr, (TOKENS, TOPK), "int32")
    PO = T.match_buffer(part_o_ptr, (CHUNKS, HEADS, CKV), "float32")
    PML = T.match_buffer(part_ml_ptr, (CHUNKS, HEADS, 2), "float32")
    T.device_entry()
    c = T.cta_id([CHUNKS])
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((SMEM_ELEMS,), "bfloat16", scope="shared.dyn")
    flag = T.alloc_buffer((2,), "int32", scope="shared")         # tile it: any selected slot (flag[it % 2])
    tok = T.alloc_buffer((TILE,), "int32", scope="shared")
    red_max = T.alloc_buffer((4, HEADS), "float32", scope="shared")
    red_sum = T.alloc_buffer((4, HEADS), "float32", scope="shared")
    s = T.alloc_buffer((2, 4), "float32", scope="local")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")
    af = T.alloc_buffer((4,), "uint32", scope="local")
    bf = T.alloc_buffer((4,), "uint32", scope="local")
    # per row half r (head lane / 4, lane / 4 + 8): running max, running sum, tile max, max used, rescale, tile sum
    m_run = T.alloc_buffer((2,), "float32", scope="local")
    l_run = T.alloc_buffer((2,), "float32", scope="local")
    mx = T.alloc_buffer((2,), "float32", scope="local")
    m_use = T.alloc_buffer((2,), "float32", scope="local")
    alpha = T.alloc_buffer((2,), "float32", scope="local")
    rsum = T.alloc_buffer((2,), "float32", scope="local")

    if tx == 0:
        flag[0] = 0
        flag[1] = 0
    T.cuda.cta_sync()   # the flags are cleared before any slot thread sets one
    # Q of the token: 16 heads x (512 + 64), into padded rows.
    for i in T.unroll(HEADS * CKV // 8 // THREADS):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([QN_OFF + (tx // 64 + i * 2) * CKV_STRIDE + tx % 64 * 8]),
            QN.ptr_to([c // CHUNKS_PER_ROW, tx // 64 + i * 2, tx % 64 * 8]), 16)
    T.ptx.cp.async_.cg.shared.global_(sm.ptr_to([QP_OFF + tx // 8 * KPE_STRIDE + tx % 8 * 8]),
                                      QP.ptr_to([c // CHUNKS_PER_ROW, tx // 8, tx % 8 * 8]), 16)

    for r in T.unroll(2):
        m_run[r] = T.float32(NEG_INF)
        l_run[r] = T.float32(0)
    for j in T.unroll(16):
        for e in T.unroll(4):
            acc[j, e] = T.float32(0)

    for it in T.serial(CHUNK // TILE):
        if tx < TILE:
            tok[tx] = SPARSE[c // CHUNKS_PER_ROW, c % CHUNKS_PER_ROW * CHUNK + it * TILE + tx]
            if tok[tx] >= 0:
                flag[it % 2] = 1
        if tx == 0:   # the next tile's flag: last read before this tile's first barrier
            flag[(it + 1) % 2] = 0
        T.cuda.cta_sync()
        if flag[it % 2] > 0:  # uniform over the CTA: this tile selects at least one token
            for i in T.unroll(TILE * CKV // 8 // THREADS):
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([KC_OFF + (tx // 64 + i * 2) * CKV_STRIDE + tx % 64 * 8]),
                    KC.ptr_to([T.max(tok[tx // 64 + i * 2], 0), tx % 64 * 8]), 16)
            for i in T.unroll(TILE * KPE // 8 // THREADS):
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([KP_OFF + (tx // 8 + i * 16) * KPE_STRIDE + tx % 8 * 8]),
                    KP.ptr_to([T.max(tok[tx // 8 + i * 16], 0), tx % 8 * 8]), 16)
            T.ptx.cp.async_.commit_group()
            T.ptx.cp.async_.wait_group(0)
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

            # Scale into base 2, mask the -1 slots, tile row maxima (s[nt, e]: head lane / 4 +
            # 8 (e / 2), token 16 warp + 8 nt + 2 (lane % 4) + e % 2).
            for r in T.unroll(2):
                mx[r] = T.float32(NEG_INF)
            for nt in T.unroll(2):
                for e in T.unroll(4):
                    s[nt, e] = T.Select(tok[tx // 32 * 16 + nt * 8 + tx % 4 * 2 + e % 2] >= 0,
                                        s[nt, e] * scale_log2, T.float32(NEG_INF))
                    mx[e // 2] = T.max(mx[e // 2], s[nt, e])
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
                m_use[r] = T.Select(mx[r] > T.float32(NEG_INF), mx[r], T.float32(0))
                alpha[r] = T.exp2(m_run[r] - m_use[r])
                m_run[r] = mx[r]
                rsum[r] = T.float32(0)
            for nt in T.unroll(2):
                for e in T.unroll(4):
                    s[nt, e] = T.exp2(s[nt, e] - m_use[e // 2])
                    rsum[e // 2] = rsum[e // 2] + s[nt, e]
                    sm[PS_OFF + (tx % 32 // 4 + e // 2 * 8) * P_STRIDE + tx // 32 * 16 + nt * 8 + tx % 4 * 2 + e % 2] = \
                        T.Cast("bfloat16", s[nt, e])
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

    T.ptx.cp.async_.commit_group()   # the Q copies, where every tile was skipped
    T.ptx.cp.async_.wait_group(0)
    # Unnormalized partial O [16][512] fp32 and (max, sum) per head.
    for j in T.unroll(16):
        for r in T.unroll(2):
            for e in T.vectorized(2):
                PO[c, tx % 32 // 4 + r * 8, tx // 32 * 128 + j * 8 + tx % 4 * 2 + e] = acc[j, r * 2 + e]
    if tx // 32 == 0:
        if tx % 4 == 0:
            PML[c, tx // 4, 0] = m_run[0]
            PML[c, tx // 4, 1] = l_run[0]
            PML[c, tx // 4 + 8, 0] = m_run[1]
            PML[c, tx // 4 + 8, 1] = l_run[1]


@T.prim_func
def dsa_merge(part_o_ptr: T.handle, part_ml_ptr: T.handle, output_ptr: T.handle, lse_ptr: T.handle):
    PO = T.match_buffer(part_o_ptr, (CHUNKS, HEADS, CKV), "float32")
    PML = T.match_buffer(part_ml_ptr, (CHUNKS, HEADS, 2), "float32")
    OUT = T.match_buffer(output_ptr, (TOKENS, HEADS, CKV), "bfloat16")
    LSE = T.match_buffer(lse_ptr, (TOKENS, HEADS), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS * HEADS])
    tx = T.thread_id([THREADS])
    st = T.alloc_buffer((3,), "float32", scope="local")       # 0 max, 1 sum, 2 weight
    o = T.alloc_buffer((4,), "float32", scope="local")
    ov = T.alloc_buffer((4,), "float32", scope="local")
    ob = T.alloc_buffer((4,), "bfloat16", scope="local")
    st[0] = T.float32(NEG_INF)
    for i in T.unroll(CHUNKS_PER_ROW):
        if PML[bx // HEADS * CHUNKS_PER_ROW + i, bx % HEADS, 1] > T.float32(0):
            st[0] = T.max(st[0], PML[bx // HEADS * CHUNKS_PER_ROW + i, bx % HEADS, 0])
    st[1] = T.float32(0)
    for e in T.unroll(4):
        o[e] = T.float32(0)
    for i in T.unroll(CHUNKS_PER_ROW):
        if PML[bx // HEADS * CHUNKS_PER_ROW + i, bx % HEADS, 1] > T.float32(0):
            st[2] = T.exp2(PML[bx // HEADS * CHUNKS_PER_ROW + i, bx % HEADS, 0] - st[0])
            st[1] = st[1] + st[2] * PML[bx // HEADS * CHUNKS_PER_ROW + i, bx % HEADS, 1]
            for e in T.vectorized(4):
                ov[e] = PO[bx // HEADS * CHUNKS_PER_ROW + i, bx % HEADS, tx * 4 + e]
            for e in T.unroll(4):
                o[e] = o[e] + st[2] * ov[e]
    st[2] = T.Select(st[1] > T.float32(0), T.float32(1) / st[1], T.float32(0))
    for e in T.unroll(4):
        ob[e] = T.Cast("bfloat16", o[e] * st[2])
    for e in T.vectorized(4):
        OUT[bx // HEADS, bx % HEADS, tx * 4 + e] = ob[e]
    if tx == 0:
        LSE[bx // HEADS, bx % HEADS] = T.Select(st[1] > T.float32(0), st[0] + T.log2(st[1]), T.float32(NEG_INF))


MKB_PLAN = """/* mkb:plan
scratch part_o fp32[num_tokens * 8 * 16 * 512]
scratch part_ml fp32[num_tokens * 8 * 16 * 2]
launch dsa_chunk grid(num_tokens * 8) block(128) shared(97024)
  args(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, part_o, part_ml, f32(sm_scale * 1.4426950408889634))
launch dsa_merge grid(num_tokens * 16) block(128) args(part_o, part_ml, output, lse)
*/"""
