"""Qwen3-VL multimodal embedding with an NVFP4 vision projection, in TIRx: the algorithm of solutions/cuda.cu
(Hopper has no fp4 tensor cores).

  1. act_amax: the vision features' amax: a grid-stride loop of 16-byte loads, warp_max, one shared slot per
     warp, and atomicMax of the float's bits (non-negative floats order as integers) into zeroed scratch.
  2. act_quant: one thread per 16-element block, the reference's NVFP4 quantization: encode = 2688 / amax
     (__fdiv_rn; 1 when amax is 0), decode = __frcp_rn(encode), s8 = e4m3(clamp(bmax * fp32(1/6) * encode)),
     d = s8 * decode, codes of clamp(x / d, -6, 6) (__fdiv_rn) by the e2m1 thresholds (ties to even); stored
     as the bf16 value E2M1[code] * s8 (exact: at most 6 significant bits).
  3. weight_dequant: one thread per 16-element block of the packed weight: E2M1[nibble] * s8 as bf16 (low
     nibble first).
  4. vision_positions: per sequence, a 1024-thread CTA: each masked position's rank from __ballot_sync and
     __popc per warp plus the counts of the warps before it; vrow[b, j] = the j-th masked position (-1 past
     the count), replaced[b, s] = 1 for the positions taken.
  5. text_rows: the embedding row of every position not replaced (16-byte copies).
  6. vision_gemm: [12288 x 3584] x [8192 x 3584]^T on the bf16 tensor cores: 128 x 128 tiles, 8 warps as
     2 x 4, 64-wide K steps in a 4-stage cp.async ring (128-byte rows, chunk c of row r at c ^ (r % 8)),
     ldmatrix.x4 and mma.sync m16n8k16 (exact products, fp32 sums); times decode_act * decode_weight,
     bf16, + bias, bf16, written at output[b, vrow[b, j]].
fp32(1/6) comes in as a plan argument (f32(1 / e2m1_max))."""
from tvm.script import tirx as T

BATCH, SEQ, VT, H, VH, VOCAB = 32, 1024, 384, 8192, 3584, 151936
ROWS = BATCH * VT                      # 12288 vision rows
NX = ROWS * VH                         # vision feature elements
NW = H * VH                            # weight elements
AMAX_CTAS = 1056
AMAX_ITERS = (NX // 8 + AMAX_CTAS * 256 - 1) // (AMAX_CTAS * 256)
BK = 64                                # bf16 elements per 128-byte K step
STAGES = 4
TILE = 128 * BK                        # bf16 elements of one operand tile
ST = 2 * TILE
assert NX % 16 == 0 and (NX // 16) % 256 == 0 and (NW // 16) % 256 == 0 and VT % 128 == 0 and VH % BK == 0
assert H % (256 * 8) == 0


def e2m1_mag(a):
    # |E2M1| nearest to a >= 0 (ties to even): [0, .25] 0, (.25, .75) .5, [.75, 1.25] 1, (1.25, 1.75) 1.5,
    # [1.75, 2.5] 2, (2.5, 3.5) 3, [3.5, 5] 4, above 5: 6
    return T.Select(a <= T.float32(0.25), T.float32(0), T.Select(a < T.float32(0.75), T.float32(0.5), T.Select(
        a <= T.float32(1.25), T.float32(1), T.Select(a < T.float32(1.75), T.float32(1.5), T.Select(
            a <= T.float32(2.5), T.float32(2), T.Select(a < T.float32(3.5), T.float32(3), T.Select(
                a <= T.float32(5), T.float32(4), T.float32(6))))))))


def e2m1_value(code):
    # E2M1[code] for a 4-bit code (int32): magnitude code & 7, sign bit 3
    return T.Select(T.bitwise_and(code, 8) != 0, T.float32(0) - e2m1_table(T.bitwise_and(code, 7)),
                    e2m1_table(T.bitwise_and(code, 7)))


def e2m1_table(m):
    return T.Select(m < 4, T.Cast("float32", m) * T.float32(0.5), T.Select(m == 4, T.float32(2), T.Select(
        m == 5, T.float32(3), T.Select(m == 6, T.float32(4), T.float32(6)))))


@T.prim_func
def act_amax(x_ptr: T.handle, amax_ptr: T.handle):
    X = T.match_buffer(x_ptr, (NX,), "bfloat16")
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    T.device_entry()
    bx = T.cta_id([AMAX_CTAS])
    tx = T.thread_id([256])
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((8,), "float32", scope="shared")
    m[0] = T.float32(0)
    for it in T.serial(AMAX_ITERS):
        if (it * AMAX_CTAS + bx) * 256 + tx < NX // 8:
            for e in T.vectorized(8):
                xv[e] = X[((it * AMAX_CTAS + bx) * 256 + tx) * 8 + e]
            for e in T.unroll(8):
                m[0] = T.max(m[0], T.abs(T.Cast("float32", xv[e])))
    m[0] = T.cuda.warp_max(m[0], 32)
    if tx % 32 == 0:
        red[tx // 32] = m[0]
    T.cuda.cta_sync()
    if tx == 0:
        for i in T.unroll(8):
            m[0] = T.max(m[0], red[i])
        T.evaluate(T.call_extern("int32", "atomicMax", T.address_of(AMAX[0]), T.reinterpret("int32", m[0])))


@T.prim_func
def act_quant(x_ptr: T.handle, amax_ptr: T.handle, a_ptr: T.handle, inv6: T.float32):
    X = T.match_buffer(x_ptr, (NX,), "bfloat16")
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    A = T.match_buffer(a_ptr, (NX,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([NX // 16 // 256])
    tx = T.thread_id([256])
    xv = T.alloc_buffer((16,), "bfloat16", scope="local")
    av = T.alloc_buffer((16,), "bfloat16", scope="local")
    sc = T.alloc_buffer((5,), "float32", scope="local")      # amax, encode, decode, s8, d
    q = T.alloc_buffer((1,), "float32", scope="local")
    for e in T.vectorized(8):
        xv[e] = X[(bx * 256 + tx) * 16 + e]
    for e in T.vectorized(8):
        xv[8 + e] = X[(bx * 256 + tx) * 16 + 8 + e]
    sc[0] = T.reinterpret("float32", AMAX[0])
    sc[1] = T.Select(sc[0] > T.float32(0), T.call_pure_extern("float32", "__fdiv_rn", T.float32(2688), sc[0]), T.float32(1))
    sc[2] = T.call_pure_extern("float32", "__frcp_rn", sc[1])
    sc[0] = T.float32(0)                                      # now the block's max |x|
    for e in T.unroll(16):
        sc[0] = T.max(sc[0], T.abs(T.Cast("float32", xv[e])))
    sc[3] = T.Cast("float32", T.Cast("float8_e4m3fn", T.min(T.max(T.call_pure_extern(
        "float32", "__fmul_rn", T.call_pure_extern("float32", "__fmul_rn", sc[0], inv6), sc[1]), T.float32(-448)), T.float32(448))))
    sc[4] = T.call_pure_extern("float32", "__fmul_rn", sc[3], sc[2])
    for e in T.unroll(16):
        q[0] = T.min(T.max(T.call_pure_extern("float32", "__fdiv_rn", T.Cast("float32", xv[e]), sc[4]), T.float32(-6)), T.float32(6))
        av[e] = T.Cast("bfloat16", T.Select(q[0] < T.float32(0), T.float32(0) - e2m1_mag(T.abs(q[0])), e2m1_mag(T.abs(q[0]))) * sc[3])
    for e in T.vectorized(8):
        A[(bx * 256 + tx) * 16 + e] = av[e]
    for e in T.vectorized(8):
        A[(bx * 256 + tx) * 16 + 8 + e] = av[8 + e]


@T.prim_func
def weight_dequant(packed_ptr: T.handle, scale_ptr: T.handle, w_ptr: T.handle):
    P = T.match_buffer(packed_ptr, (NW // 2,), "uint8")
    S = T.match_buffer(scale_ptr, (NW // 16,), "float8_e4m3fn")
    W = T.match_buffer(w_ptr, (NW,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([NW // 16 // 256])
    tx = T.thread_id([256])
    pv = T.alloc_buffer((8,), "uint8", scope="local")
    wv = T.alloc_buffer((16,), "bfloat16", scope="local")
    s8 = T.alloc_buffer((1,), "float32", scope="local")
    for e in T.vectorized(8):
        pv[e] = P[(bx * 256 + tx) * 8 + e]
    s8[0] = T.Cast("float32", S[bx * 256 + tx])
    for j in T.unroll(8):
        wv[2 * j] = T.Cast("bfloat16", e2m1_value(T.bitwise_and(T.Cast("int32", pv[j]), 15)) * s8[0])
        wv[2 * j + 1] = T.Cast("bfloat16", e2m1_value(T.shift_right(T.Cast("int32", pv[j]), 4)) * s8[0])
    for e in T.vectorized(8):
        W[(bx * 256 + tx) * 16 + e] = wv[e]
    for e in T.vectorized(8):
        W[(bx * 256 + tx) * 16 + 8 + e] = wv[8 + e]


@T.prim_func
def vision_positions(mask_ptr: T.handle, vrow_ptr: T.handle, replaced_ptr: T.handle):
    MASK = T.match_buffer(mask_ptr, (BATCH, SEQ), "uint8")
    VROW = T.match_buffer(vrow_ptr, (BATCH, VT), "int32")
    REP = T.match_buffer(replaced_ptr, (BATCH, SEQ), "uint8")
    T.device_entry()
    bx = T.cta_id([BATCH])
    tx = T.thread_id([SEQ])
    counts = T.alloc_buffer((32,), "int32", scope="shared")
    bal = T.alloc_buffer((1,), "uint32", scope="local")
    before = T.alloc_buffer((1,), "int32", scope="local")
    bal[0] = T.call_extern("uint32", "__ballot_sync", T.uint32(0xFFFFFFFF), T.Cast("int32", MASK[bx, tx] != T.uint8(0)))
    if tx % 32 == 0:
        counts[tx // 32] = T.call_extern("int32", "__popc", bal[0])
    T.cuda.cta_sync()
    before[0] = T.call_extern("int32", "__popc", T.bitwise_and(bal[0], T.shift_left(T.uint32(1), T.Cast("uint32", tx % 32)) - T.uint32(1)))
    for w in T.serial(tx // 32):
        before[0] = before[0] + counts[w]
    if tx < VT:
        VROW[bx, tx] = -1
    T.cuda.cta_sync()
    if MASK[bx, tx] != T.uint8(0) and before[0] < VT:
        VROW[bx, before[0]] = tx
        REP[bx, tx] = T.uint8(1)
    else:
        REP[bx, tx] = T.uint8(0)


@T.prim_func
def text_rows(ids_ptr: T.handle, table_ptr: T.handle, replaced_ptr: T.handle, out_ptr: T.handle):
    IDS = T.match_buffer(ids_ptr, (BATCH * SEQ,), "int64")
    TAB = T.match_buffer(table_ptr, (VOCAB, H), "bfloat16")
    REP = T.match_buffer(replaced_ptr, (BATCH * SEQ,), "uint8")
    OUT = T.match_buffer(out_ptr, (BATCH * SEQ, H), "bfloat16")
    T.device_entry()
    bx = T.cta_id([BATCH * SEQ])
    tx = T.thread_id([256])
    v = T.alloc_buffer((H // 256,), "bfloat16", scope="local")
    if REP[bx] == T.uint8(0):
        for i in T.unroll(H // 256 // 8):
            for e in T.vectorized(8):
                v[i * 8 + e] = TAB[T.Cast("int32", IDS[bx]), i * 2048 + tx * 8 + e]
        for i in T.unroll(H // 256 // 8):
            for e in T.vectorized(8):
                OUT[bx, i * 2048 + tx * 8 + e] = v[i * 8 + e]


@T.macro
def load_stage(sm, slot, A, B, m0, n0, kt, tx):
    for j in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + (tx // 8 + 32 * j) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            A.ptr_to([m0 + tx // 8 + 32 * j, kt * BK + tx % 8 * 8]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + TILE + (tx // 8 + 32 * j) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            B.ptr_to([n0 + tx // 8 + 32 * j, kt * BK + tx % 8 * 8]), 16)


@T.macro
def mma_stage(sm, sa, sb, acc, af, bf, lane):
    for ks in T.unroll(4):
        for mt in T.unroll(4):      # A rows 16 mt + lane % 16, 16-byte chunk 2 ks + lane // 16
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                sm.ptr_to([sa + (mt * 16 + lane % 16) * BK + T.bitwise_xor(ks * 2 + lane // 16, lane % 8) * 8]))
        for np in T.unroll(2):      # B rows 16 np + lane % 8 + 8 (lane // 16), chunk 2 ks + lane // 8 % 2
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(bf[np * 4], bf[np * 4 + 1], bf[np * 4 + 2], bf[np * 4 + 3],
                sm.ptr_to([sb + (np * 16 + lane % 8 + lane // 16 * 8) * BK + T.bitwise_xor(ks * 2 + lane // 8 % 2, lane % 8) * 8]))
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[mt, nt, 0], acc[mt, nt, 1], acc[mt, nt, 2], acc[mt, nt, 3],
                    af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3], bf[nt * 2], bf[nt * 2 + 1],
                    acc[mt, nt, 0], acc[mt, nt, 1], acc[mt, nt, 2], acc[mt, nt, 3])


@T.prim_func
def vision_gemm(a_ptr: T.handle, w_ptr: T.handle, amax_ptr: T.handle, wdec_ptr: T.handle, bias_ptr: T.handle,
                vrow_ptr: T.handle, out_ptr: T.handle):
    A = T.match_buffer(a_ptr, (ROWS, VH), "bfloat16")
    W = T.match_buffer(w_ptr, (H, VH), "bfloat16")
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    WDEC = T.match_buffer(wdec_ptr, (1,), "float32")
    BIAS = T.match_buffer(bias_ptr, (H,), "bfloat16")
    VROW = T.match_buffer(vrow_ptr, (ROWS,), "int32")
    OUT = T.match_buffer(out_ptr, (BATCH, SEQ, H), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([H // 128, ROWS // 128])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * ST,), "bfloat16", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        sc = T.alloc_buffer((2,), "float32", scope="local")
        pos = T.alloc_buffer((1,), "int32", scope="local")
        yv = T.alloc_buffer((2,), "bfloat16", scope="local")
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                for e in T.unroll(4):
                    acc[mt, nt, e] = T.float32(0)
        for s in T.unroll(STAGES - 1):
            load_stage(sm, s, A, W, by * 128, bx * 128, s, tx)
            T.ptx.cp.async_.commit_group()
        for kt in T.serial(VH // BK):
            T.ptx.cp.async_.wait_group(STAGES - 2)
            T.cuda.cta_sync()
            if kt + STAGES - 1 < VH // BK:
                load_stage(sm, (kt + STAGES - 1) % STAGES, A, W, by * 128, bx * 128, kt + STAGES - 1, tx)
            T.ptx.cp.async_.commit_group()
            mma_stage(sm, kt % STAGES * ST + tx // 128 * 64 * BK, kt % STAGES * ST + TILE + tx // 32 % 4 * 32 * BK,
                      acc, af, bf, tx % 32)
        T.ptx.cp.async_.wait_group(0)
        # the activation's decode (__frcp_rn of its encode) times the weight's
        sc[0] = T.reinterpret("float32", AMAX[0])
        sc[1] = T.call_pure_extern("float32", "__frcp_rn", T.Select(sc[0] > T.float32(0), T.call_pure_extern(
            "float32", "__fdiv_rn", T.float32(2688), sc[0]), T.float32(1))) * WDEC[0]
        # acc[mt, nt, 2h + e]: row 64 wm + 16 mt + lane // 4 + 8 h (vision row by * 128 + r of sequence by // 3),
        # column 32 wn + 8 nt + 2 (lane % 4) + e
        for mt in T.unroll(4):
            for h in T.unroll(2):
                pos[0] = VROW[by * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8]
                if pos[0] >= 0:
                    for nt in T.unroll(4):
                        for e in T.unroll(2):
                            yv[e] = T.Cast("bfloat16", T.Cast("float32", T.Cast("bfloat16", acc[mt, nt, 2 * h + e] * sc[1]))
                                           + T.Cast("float32", BIAS[bx * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e]))
                        for e in T.vectorized(2):
                            OUT[by // 3, pos[0], bx * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = yv[e]


MKB_PLAN = """/* mkb:plan
scratch amax_bits int32[1] zeroed
scratch a_bf16 bf16[batch_size * num_vision_tokens * vision_hidden_size]
scratch w_bf16 bf16[hidden_size * vision_hidden_size]
scratch vrow int32[batch_size * num_vision_tokens]
scratch replaced uint8[batch_size * seq_len]
launch act_amax grid(1056) block(256) args(vision_features, amax_bits)
launch act_quant grid(batch_size * num_vision_tokens * vision_hidden_size / 16 / 256) block(256)
  args(vision_features, amax_bits, a_bf16, f32(1 / e2m1_max))
launch weight_dequant grid(hidden_size * vision_hidden_size / 16 / 256) block(256)
  args(vision_proj_weight_fp4, vision_proj_weight_scale, w_bf16)
launch vision_positions grid(batch_size) block(1024) args(vision_token_mask, vrow, replaced)
launch text_rows grid(batch_size * seq_len) block(256) args(input_ids, embed_weight, replaced, output)
launch vision_gemm grid(hidden_size / 128, batch_size * num_vision_tokens / 128) block(256) shared(131072)
  args(a_bf16, w_bf16, amax_bits, vision_proj_global_decode, vision_proj_bias, vrow, output)
*/"""
