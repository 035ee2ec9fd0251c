"""Varlen vision attention (Qwen-Image-Edit-2509 vision tower, #11) in TIRx: the four launches of
solutions/cuda.cu, on bf16 tensor cores with mma.sync m16n8k16 (fp32 accumulation) where the cuda solution
uses WMMA.
  1. qkv_gemm: qkv = bf16(hidden @ qkv_weight^T + qkv_bias) (7168 x 3456 x 1152), the bias added to the
     fp32 accumulator and rounded once.
  2. rope_split: q and k rotated in fp32 (x * cos and rotate_half(x) * sin each rounded to fp32, then their
     sum, with __fmul_rn / __fadd_rn so that nothing is contracted into an FMA), rounded to bf16 once;
     q, k, v written head-major [16, 7168, 72] so that the rows of one head of a sequence are contiguous.
     A thread owns dims 4c .. 4c + 3 and their rotate_half partners 36 + 4c .. 36 + 4c + 3 of one (token,
     head): 8-byte vector loads and stores.
  3. flash_attention: one CTA of 4 warps per (64-query tile of a sequence, head), warp w owning query rows
     16w .. 16w + 15; key tiles of 64 of the same sequence stream through shared memory with cp.async,
     double-buffered. The head dim is padded to 80 with zeros in shared memory (5 k-steps of 16 for
     Q K^T; 10 column blocks of 8 for P V, the last one discarded). Online softmax as the cuda solution:
     raw fp32 logits S, running max m over the valid keys, p = exp2((S - m) * scale * log2(e)) rounded to
     bf16 (the P operand, built in registers from the S accumulators), the row sum of the rounded p added
     per key tile (l = l * alpha + sum), O rescaled by alpha = exp2((m_old - m_new) * scale * log2(e));
     attn = bf16(O / l), token-major [7168, 1152]. Rows past the sequence's end are not zero-filled as in
     the cuda solution: their copies re-read the sequence's last row (finite), keys past the end get p = 0
     and queries past the end are not stored. The CTA finds its sequence by walking cu_seqlens, as the
     cuda solution does; grid.x = ceil(7168 / 64) + 28 is an upper bound, CTAs past the last tile return.
  4. proj_gemm: output = bf16(attn @ proj_weight^T + proj_bias).
GEMM core (launches 1 and 4): the guide's mma.sync core, a 128 x 128 tile per 256-thread CTA, 8 warps of
64 x 32, ldmatrix.x4 operands, k steps of 64 in a 3-stage cp.async ring (98304 bytes of dynamic shared
memory), 128-byte shared rows with 16-byte chunk c of row r at c ^ (r % 8)."""
from tvm.script import tirx as T

TOKENS, HEADS, HEAD_DIM, HALF = 7168, 16, 72, 36
EMBED = HEADS * HEAD_DIM                 # 1152
QKV_DIM = 3 * EMBED                      # 3456
NUM_SEQ = 28
LOG2E = 1.4426950408889634
NEG_INF = float("-inf")

# ---- GEMM core: Y[128 x 128 tile] = bf16(A[rows, K] . W[cols, K]^T + bias) ----
BM, BN, BK, STAGES = 128, 128, 64, 3
ST = (BM + BN) * BK                      # bf16 elements per stage: A tile then B tile
GEMM_SMEM = STAGES * ST * 2              # 98304 bytes: the plan's shared(...)
assert TOKENS % BM == 0 and QKV_DIM % BN == 0 and EMBED % BN == 0 and EMBED % BK == 0 and GEMM_SMEM == 98304


@T.macro
def load_stage(sm, slot, A, B, m0, n0, k0, tx):
    # rows m0.. of A, n0.. of B, columns k0..k0+63: thread tx copies chunk tx % 8 of rows tx // 8 + 32 i
    for i in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            A.ptr_to([m0 + tx // 8 + 32 * i, k0 + tx % 8 * 8]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + BM * BK + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            B.ptr_to([n0 + tx // 8 + 32 * i, k0 + tx % 8 * 8]), 16)


@T.macro
def mma_stage(sm, a0, b0, acc, af, bf, lane):
    # The warp's 64 x 32 product over one 64-wide k tile; a0 / b0: offsets of its first A / B row.
    for ks in T.unroll(BK // 16):
        for mi in T.unroll(4):
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3],
                sm.ptr_to([a0 + (mi * 16 + lane % 16) * BK + T.bitwise_xor(ks * 2 + lane // 16, lane % 8) * 8]))
        for nj in T.unroll(2):
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(bf[nj * 4], bf[nj * 4 + 1], bf[nj * 4 + 2], bf[nj * 4 + 3],
                sm.ptr_to([b0 + (nj * 16 + lane % 8 + lane // 16 * 8) * BK
                           + T.bitwise_xor(ks * 2 + lane // 8 % 2, lane % 8) * 8]))
        for mi in T.unroll(4):
            for ni in T.unroll(4):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[mi, ni, 0], acc[mi, ni, 1], acc[mi, ni, 2], acc[mi, ni, 3],
                    af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3], bf[ni * 2], bf[ni * 2 + 1],
                    acc[mi, ni, 0], acc[mi, ni, 1], acc[mi, ni, 2], acc[mi, ni, 3])


@T.macro
def gemm_bias_tile(A, W, BIAS, Y, KT, sm, acc, af, bf, bv, ov, bx, by, tx):
    for mi in T.unroll(4):
        for ni in T.unroll(4):
            for e in T.unroll(4):
                acc[mi, ni, e] = T.float32(0)
    for s in T.unroll(STAGES - 1):
        load_stage(sm, s, A, W, by * BM, bx * BN, s * BK, tx)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(KT):
        T.ptx.cp.async_.wait_group(STAGES - 2)                   # this thread's copies of tile kt landed
        T.cuda.cta_sync()                                        # everyone's; stage kt - 1 is free again
        if kt + STAGES - 1 < KT:
            load_stage(sm, (kt + STAGES - 1) % STAGES, A, W, by * BM, bx * BN, (kt + STAGES - 1) * BK, tx)
        T.ptx.cp.async_.commit_group()
        mma_stage(sm, kt % STAGES * ST + tx // 128 * 64 * BK, kt % STAGES * ST + BM * BK + tx // 32 % 4 * 32 * BK,
                  acc, af, bf, tx % 32)
    T.ptx.cp.async_.wait_group(0)
    # acc[mi, ni, e]: row 64 (warp // 4) + 16 mi + lane // 4 + 8 (e // 2), column 32 (warp % 4) + 8 ni + 2 (lane % 4) + e % 2
    for ni in T.unroll(4):
        for e in T.unroll(2):
            bv[ni * 2 + e] = T.Cast("float32", BIAS[bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e])
    for mi in T.unroll(4):
        for ni in T.unroll(4):
            for h in T.unroll(2):
                for e in T.unroll(2):
                    ov[e] = T.Cast("bfloat16", acc[mi, ni, h * 2 + e] + bv[ni * 2 + e])
                for e in T.vectorized(2):
                    Y[by * BM + tx // 128 * 64 + mi * 16 + tx % 32 // 4 + h * 8,
                      bx * BN + tx // 32 % 4 * 32 + ni * 8 + tx % 4 * 2 + e] = ov[e]


@T.prim_func
def qkv_gemm(x_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, qkv_ptr: T.handle):
    X = T.match_buffer(x_ptr, (TOKENS, EMBED), "bfloat16")
    W = T.match_buffer(w_ptr, (QKV_DIM, EMBED), "bfloat16")
    BIAS = T.match_buffer(bias_ptr, (QKV_DIM,), "bfloat16")
    QKV = T.match_buffer(qkv_ptr, (TOKENS, QKV_DIM), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([QKV_DIM // BN, TOKENS // BM])          # grid(27, 56)
    tx = T.thread_id([256])
    sm = T.alloc_buffer((STAGES * ST,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bf = T.alloc_buffer((8,), "uint32", scope="local")
    bv = T.alloc_buffer((8,), "float32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    gemm_bias_tile(X, W, BIAS, QKV, EMBED // BK, sm, acc, af, bf, bv, ov, bx, by, tx)


@T.prim_func
def proj_gemm(attn_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, out_ptr: T.handle):
    A = T.match_buffer(attn_ptr, (TOKENS, EMBED), "bfloat16")
    W = T.match_buffer(w_ptr, (EMBED, EMBED), "bfloat16")
    BIAS = T.match_buffer(bias_ptr, (EMBED,), "bfloat16")
    OUT = T.match_buffer(out_ptr, (TOKENS, EMBED), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([EMBED // BN, TOKENS // BM])            # grid(9, 56)
    tx = T.thread_id([256])
    sm = T.alloc_buffer((STAGES * ST,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bf = T.alloc_buffer((8,), "uint32", scope="local")
    bv = T.alloc_buffer((8,), "float32", scope="local")
    ov = T.alloc_buffer((2,), "bfloat16", scope="local")
    gemm_bias_tile(A, W, BIAS, OUT, EMBED // BK, sm, acc, af, bf, bv, ov, bx, by, tx)


# ---- rotary embedding and head-major split: thread g = (token, head, c), c < 9 ----
ROPE_QUADS = HALF // 4                   # 9 groups of 4 dims in each half
ROPE_CTAS = TOKENS * HEADS * ROPE_QUADS // 256
assert TOKENS * HEADS * ROPE_QUADS % 256 == 0 and ROPE_CTAS == 4032


@T.prim_func
def rope_split(qkv_ptr: T.handle, cos_ptr: T.handle, sin_ptr: T.handle, qh_ptr: T.handle, kh_ptr: T.handle,
               vh_ptr: T.handle):
    QKV = T.match_buffer(qkv_ptr, (TOKENS, QKV_DIM), "bfloat16")
    COS = T.match_buffer(cos_ptr, (TOKENS, HEADS, HEAD_DIM), "bfloat16")
    SIN = T.match_buffer(sin_ptr, (TOKENS, HEADS, HEAD_DIM), "bfloat16")
    QH = T.match_buffer(qh_ptr, (HEADS, TOKENS, HEAD_DIM), "bfloat16")
    KH = T.match_buffer(kh_ptr, (HEADS, TOKENS, HEAD_DIM), "bfloat16")
    VH = T.match_buffer(vh_ptr, (HEADS, TOKENS, HEAD_DIM), "bfloat16")
    T.device_entry()
    bx = T.cta_id([ROPE_CTAS])
    tx = T.thread_id([256])
    qv = T.alloc_buffer((8,), "bfloat16", scope="local")      # [lo 4 | hi 4]
    kv = T.alloc_buffer((8,), "bfloat16", scope="local")
    vv = T.alloc_buffer((8,), "bfloat16", scope="local")
    cv = T.alloc_buffer((8,), "bfloat16", scope="local")
    sv = T.alloc_buffer((8,), "bfloat16", scope="local")
    qo = T.alloc_buffer((8,), "bfloat16", scope="local")
    ko = T.alloc_buffer((8,), "bfloat16", scope="local")
    # token (bx * 256 + tx) // 144, head (bx * 256 + tx) // 9 % 16, dims 4 ((bx * 256 + tx) % 9) + 36 hf + e
    for hf in T.unroll(2):
        for e in T.vectorized(4):
            qv[hf * 4 + e] = QKV[(bx * 256 + tx) // 144, (bx * 256 + tx) // 9 % 16 * HEAD_DIM + hf * HALF
                                 + (bx * 256 + tx) % 9 * 4 + e]
        for e in T.vectorized(4):
            kv[hf * 4 + e] = QKV[(bx * 256 + tx) // 144, EMBED + (bx * 256 + tx) // 9 % 16 * HEAD_DIM + hf * HALF
                                 + (bx * 256 + tx) % 9 * 4 + e]
        for e in T.vectorized(4):
            vv[hf * 4 + e] = QKV[(bx * 256 + tx) // 144, 2 * EMBED + (bx * 256 + tx) // 9 % 16 * HEAD_DIM + hf * HALF
                                 + (bx * 256 + tx) % 9 * 4 + e]
        for e in T.vectorized(4):
            cv[hf * 4 + e] = COS[(bx * 256 + tx) // 144, (bx * 256 + tx) // 9 % 16, hf * HALF + (bx * 256 + tx) % 9 * 4 + e]
        for e in T.vectorized(4):
            sv[hf * 4 + e] = SIN[(bx * 256 + tx) // 144, (bx * 256 + tx) // 9 % 16, hf * HALF + (bx * 256 + tx) % 9 * 4 + e]
    for e in T.unroll(4):
        qo[e] = T.Cast("bfloat16", T.call_pure_extern(
            "float32", "__fadd_rn",
            T.call_pure_extern("float32", "__fmul_rn", T.Cast("float32", qv[e]), T.Cast("float32", cv[e])),
            T.call_pure_extern("float32", "__fmul_rn", -T.Cast("float32", qv[4 + e]),
                               T.Cast("float32", sv[e]))))
        qo[4 + e] = T.Cast("bfloat16", T.call_pure_extern(
            "float32", "__fadd_rn",
            T.call_pure_extern("float32", "__fmul_rn", T.Cast("float32", qv[4 + e]), T.Cast("float32", cv[4 + e])),
            T.call_pure_extern("float32", "__fmul_rn", T.Cast("float32", qv[e]), T.Cast("float32", sv[4 + e]))))
        ko[e] = T.Cast("bfloat16", T.call_pure_extern(
            "float32", "__fadd_rn",
            T.call_pure_extern("float32", "__fmul_rn", T.Cast("float32", kv[e]), T.Cast("float32", cv[e])),
            T.call_pure_extern("float32", "__fmul_rn", -T.Cast("float32", kv[4 + e]),
                               T.Cast("float32", sv[e]))))
        ko[4 + e] = T.Cast("bfloat16", T.call_pure_extern(
            "float32", "__fadd_rn",
            T.call_pure_extern("float32", "__fmul_rn", T.Cast("float32", kv[4 + e]), T.Cast("float32", cv[4 + e])),
            T.call_pure_extern("float32", "__fmul_rn", T.Cast("float32", kv[e]), T.Cast("float32", sv[4 + e]))))
    for hf in T.unroll(2):
        for e in T.vectorized(4):
            QH[(bx * 256 + tx) // 9 % 16, (bx * 256 + tx) // 144, hf * HALF + (bx * 256 + tx) % 9 * 4 + e] = qo[hf * 4 + e]
        for e in T.vectorized(4):
            KH[(bx * 256 + tx) // 9 % 16, (bx * 256 + tx) // 144, hf * HALF + (bx * 256 + tx) % 9 * 4 + e] = ko[hf * 4 + e]
        for e in T.vectorized(4):
            VH[(bx * 256 + tx) // 9 % 16, (bx * 256 + tx) // 144, hf * HALF + (bx * 256 + tx) % 9 * 4 + e] = vv[hf * 4 + e]


# ---- flash attention over the sequences ----
TQ, TK, THREADS = 64, 64, 128            # query rows, keys per tile; 4 warps
DP = 80                                  # head dim padded to a multiple of 16
STR = 88                                 # shared row stride (bf16): 176 bytes, ldmatrix rows in distinct banks
TILE = TQ * STR                          # Q tile, each K and V buffer (TK == TQ)
ATT_SMEM = 5 * TILE * 2                  # Q, K x 2, V x 2: 56320 bytes, the plan's shared(...)
TILES = -(-TOKENS // TQ) + NUM_SEQ       # 140: an upper bound on the query tiles
CHUNKS = HEAD_DIM // 8                   # 9 16-byte chunks per 72-wide row
COPIES = -(-TQ * CHUNKS // THREADS)      # 5 rounds of 128 chunk copies cover the 576 chunks of a tile
NB, DB = TK // 8, DP // 8                # n-blocks of S (8) and of O (10, the last one padding)
assert TK == TQ == 64 and ATT_SMEM == 56320 and TQ == 16 * (THREADS // 32)


@T.macro
def load_rows(sm, SRC, dst, head, first, row0, length, tx):
    # rows row0 .. row0 + 63 of the sequence starting at token `first` (rows past `length` re-read row
    # length - 1), the 9 chunks of 8 dims of each, into the shared tile at element offset dst
    for i in T.unroll(COPIES):
        if tx + i * THREADS < TQ * CHUNKS:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([dst + (tx + i * THREADS) // CHUNKS * STR + (tx + i * THREADS) % CHUNKS * 8]),
                SRC.ptr_to([head, first + T.min(row0 + (tx + i * THREADS) // CHUNKS, length - 1),
                            (tx + i * THREADS) % CHUNKS * 8]), 16)


@T.prim_func
def flash_attention(qh_ptr: T.handle, kh_ptr: T.handle, vh_ptr: T.handle, cu_seqlens_ptr: T.handle,
                    attn_ptr: T.handle, scale: T.float32):
    QH = T.match_buffer(qh_ptr, (HEADS, TOKENS, HEAD_DIM), "bfloat16")
    KH = T.match_buffer(kh_ptr, (HEADS, TOKENS, HEAD_DIM), "bfloat16")
    VH = T.match_buffer(vh_ptr, (HEADS, TOKENS, HEAD_DIM), "bfloat16")
    CU = T.match_buffer(cu_seqlens_ptr, (NUM_SEQ,), "int64")
    ATTN = T.match_buffer(attn_ptr, (TOKENS, EMBED), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([TILES, HEADS])                          # grid(140, 16): (query tile, head)
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((5 * TILE,), "bfloat16", scope="shared.dyn")   # Q | K0 | K1 | V0 | V1
    info = T.alloc_buffer((4,), "int32", scope="local")       # 0 start, 1 length (-1: none), 2 tile, 3 key tiles
    c2 = T.alloc_buffer((1,), "float32", scope="local")       # scale * log2(e)
    zv = T.alloc_buffer((8,), "bfloat16", scope="local")
    s = T.alloc_buffer((NB, 4), "float32", scope="local")
    o = T.alloc_buffer((DB, 4), "float32", scope="local")
    af = T.alloc_buffer((4,), "uint32", scope="local")
    bf = T.alloc_buffer((4,), "uint32", scope="local")
    # per row half r (rows lane / 4 and lane / 4 + 8): running max, running sum, tile max, rescale, tile sum
    m_run = T.alloc_buffer((2,), "float32", scope="local")
    l_run = T.alloc_buffer((2,), "float32", scope="local")
    mx = T.alloc_buffer((2,), "float32", scope="local")
    alpha = T.alloc_buffer((2,), "float32", scope="local")
    rsum = T.alloc_buffer((2,), "float32", scope="local")

    # Which sequence and query tile: walk the sequences' tile counts (cu_seqlens holds the ends).
    info[0] = 0
    info[1] = -1
    info[2] = bx
    for q in T.serial(NUM_SEQ):
        if info[1] < 0:
            if info[2] < T.shift_right(T.Cast("int32", CU[q]) - info[0] + (TQ - 1), 6):
                info[1] = T.Cast("int32", CU[q]) - info[0]
            else:
                info[2] = info[2] - T.shift_right(T.Cast("int32", CU[q]) - info[0] + (TQ - 1), 6)
                info[0] = T.Cast("int32", CU[q])
    if info[1] >= 0:  # uniform over the CTA
        info[3] = T.shift_right(info[1] + (TK - 1), 6)
        c2[0] = scale * T.float32(LOG2E)
        # zero the padding dims 72 .. 79 of all 5 tiles (320 rows); cp.async never writes them
        for e in T.unroll(8):
            zv[e] = T.bfloat16(0)
        for i in T.unroll(3):
            if tx + i * THREADS < 5 * TQ:
                for e in T.vectorized(8):
                    sm[(tx + i * THREADS) * STR + HEAD_DIM + e] = zv[e]
        load_rows(sm, QH, 0, by, info[0], info[2] * TQ, info[1], tx)
        load_rows(sm, KH, TILE, by, info[0], 0, info[1], tx)
        load_rows(sm, VH, 3 * TILE, by, info[0], 0, info[1], tx)
        T.ptx.cp.async_.commit_group()

        for db in T.unroll(DB):
            for e in T.unroll(4):
                o[db, e] = T.float32(0)
        for r in T.unroll(2):
            m_run[r] = T.float32(NEG_INF)
            l_run[r] = T.float32(0)

        for it in T.serial(info[3]):
            if it + 1 < info[3]:
                load_rows(sm, KH, TILE + (it + 1) % 2 * TILE, by, info[0], (it + 1) * TK, info[1], tx)
                load_rows(sm, VH, 3 * TILE + (it + 1) % 2 * TILE, by, info[0], (it + 1) * TK, info[1], tx)
                T.ptx.cp.async_.commit_group()
                T.ptx.cp.async_.wait_group(1)
            else:
                T.ptx.cp.async_.wait_group(0)
            T.cuda.cta_sync()

            # S = Q K^T (fp32) for this warp's 16 rows and the tile's 64 keys, over the 80 padded dims.
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.float32(0)
            for kc in T.unroll(DP // 16):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[0], af[1], af[2], af[3],
                    sm.ptr_to([(tx // 32 * 16 + tx % 16) * STR + kc * 16 + tx % 32 // 16 * 8]))
                for nb2 in T.unroll(NB // 2):
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                        bf[0], bf[1], bf[2], bf[3],
                        sm.ptr_to([TILE + it % 2 * TILE + (nb2 * 16 + tx % 8 + tx % 32 // 16 * 8) * STR
                                   + kc * 16 + tx % 16 // 8 * 8]))
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        s[2 * nb2, 0], s[2 * nb2, 1], s[2 * nb2, 2], s[2 * nb2, 3],
                        af[0], af[1], af[2], af[3], bf[0], bf[1],
                        s[2 * nb2, 0], s[2 * nb2, 1], s[2 * nb2, 2], s[2 * nb2, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        s[2 * nb2 + 1, 0], s[2 * nb2 + 1, 1], s[2 * nb2 + 1, 2], s[2 * nb2 + 1, 3],
                        af[0], af[1], af[2], af[3], bf[2], bf[3],
                        s[2 * nb2 + 1, 0], s[2 * nb2 + 1, 1], s[2 * nb2 + 1, 2], s[2 * nb2 + 1, 3])

            # s[nb, e] is key it * 64 + 8 nb + 2 (lane % 4) + e % 2 of query row 16 warp + lane / 4 + 8 (e / 2);
            # keys past the sequence's end get -inf (p = 0, not in the max).
            for r in T.unroll(2):
                mx[r] = T.float32(NEG_INF)
            for nb in T.unroll(NB):
                for e in T.unroll(4):
                    s[nb, e] = T.Select(it * TK + nb * 8 + tx % 4 * 2 + e % 2 >= info[1], T.float32(NEG_INF), s[nb, e])
                    mx[e // 2] = T.max(mx[e // 2], s[nb, e])
            for r in T.unroll(2):   # a row's 64 keys are spread over the 4 lanes of a quad
                mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 1, 32, 32))
                mx[r] = T.max(mx[r], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), mx[r], 2, 32, 32))
                mx[r] = T.max(m_run[r], mx[r])                  # finite: every key tile has a valid key
                alpha[r] = T.exp2((m_run[r] - mx[r]) * c2[0])   # 0 on the first tile (m_run = -inf)
                m_run[r] = mx[r]
                rsum[r] = T.float32(0)
            for nb in T.unroll(NB):
                for e in T.unroll(4):   # p rounded to bf16; the row sum adds the rounded values
                    s[nb, e] = T.Cast("float32", T.Cast("bfloat16", T.exp2((s[nb, e] - mx[e // 2]) * c2[0])))
                    rsum[e // 2] = rsum[e // 2] + s[nb, e]
            for r in T.unroll(2):
                rsum[r] = rsum[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), rsum[r], 1, 32, 32)
                rsum[r] = rsum[r] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), rsum[r], 2, 32, 32)
                l_run[r] = l_run[r] * alpha[r] + rsum[r]
            for db in T.unroll(DB):
                for e in T.unroll(4):
                    o[db, e] = o[db, e] * alpha[e // 2]

            # O += P V: the S accumulators of two neighbouring 8-key blocks are the A fragment of 16 keys.
            for kc in T.unroll(TK // 16):
                for hh in T.unroll(2):
                    for rr in T.unroll(2):   # af[2 hh + rr] = bf16 pair of s[2 kc + hh, 2 rr], s[2 kc + hh, 2 rr + 1]
                        af[hh * 2 + rr] = T.bitwise_or(
                            T.Cast("uint32", T.reinterpret("uint16", T.Cast("bfloat16", s[2 * kc + hh, 2 * rr]))),
                            T.shift_left(T.Cast("uint32", T.reinterpret(
                                "uint16", T.Cast("bfloat16", s[2 * kc + hh, 2 * rr + 1]))), T.uint32(16)))
                for db2 in T.unroll(DB // 2):
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                        bf[0], bf[1], bf[2], bf[3],
                        sm.ptr_to([3 * TILE + it % 2 * TILE
                                   + (kc * 16 + tx % 8 + tx % 16 // 8 * 8) * STR + db2 * 16 + tx % 32 // 16 * 8]))
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        o[2 * db2, 0], o[2 * db2, 1], o[2 * db2, 2], o[2 * db2, 3],
                        af[0], af[1], af[2], af[3], bf[0], bf[1],
                        o[2 * db2, 0], o[2 * db2, 1], o[2 * db2, 2], o[2 * db2, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        o[2 * db2 + 1, 0], o[2 * db2 + 1, 1], o[2 * db2 + 1, 2], o[2 * db2 + 1, 3],
                        af[0], af[1], af[2], af[3], bf[2], bf[3],
                        o[2 * db2 + 1, 0], o[2 * db2 + 1, 1], o[2 * db2 + 1, 2], o[2 * db2 + 1, 3])
            T.cuda.cta_sync()   # the next iteration refills the buffer just read

        # attn = bf16(O / l) for the valid rows; column blocks 0 .. 8 (block 9 is the padding)
        for r in T.unroll(2):
            if info[2] * TQ + tx // 32 * 16 + tx % 32 // 4 + r * 8 < info[1]:
                for db in T.unroll(DB - 1):
                    for e in T.unroll(2):
                        zv[e] = T.Cast("bfloat16", o[db, r * 2 + e] / l_run[r])
                    for e in T.vectorized(2):
                        ATTN[info[0] + info[2] * TQ + tx // 32 * 16 + tx % 32 // 4 + r * 8,
                             by * HEAD_DIM + db * 8 + tx % 4 * 2 + e] = zv[e]


MKB_PLAN = """/* mkb:plan
scratch qkv bf16[total_seq_len * qkv_dim]
scratch qh bf16[total_seq_len * embed_dim]
scratch kh bf16[total_seq_len * embed_dim]
scratch vh bf16[total_seq_len * embed_dim]
scratch attn bf16[total_seq_len * embed_dim]
launch qkv_gemm grid(qkv_dim / 128, total_seq_len / 128) block(256) shared(98304)
  args(hidden_states, qkv_weight, qkv_bias, qkv)
launch rope_split grid(total_seq_len * num_heads * 9 / 256) block(256)
  args(qkv, cos, sin, qh, kh, vh)
launch flash_attention grid(ceil_div(total_seq_len, 64) + num_sequences, num_heads) block(128) shared(56320)
  args(qh, kh, vh, cu_seqlens, attn, f32(scale))
launch proj_gemm grid(embed_dim / 128, total_seq_len / 128) block(256) shared(98304)
  args(attn, proj_weight, proj_bias, output)
*/"""
