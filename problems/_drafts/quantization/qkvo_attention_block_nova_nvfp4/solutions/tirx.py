"""An NVFP4 attention block (q/k/v/o NVFP4 projections around a causal GQA core with RoPE), in TIRx: the
algorithm of solutions/cuda.cu (Hopper has no fp4 tensor cores).

  1. amax_bf16: max |hidden_states| (grid-stride 16-byte loads, warp_max, a shared slot per warp, atomicMax of
     the float's bits into zeroed scratch); quantize_expand: each 16-element block quantized with the
     reference's fp32 recipe (global encode min(2688 / amax, FLT_MAX) or 1, decode 1 / encode, both
     __fdiv_rn; s = e4m3(clamp(amax_b * fp32(1/6) * encode)); encode_b = min(1 / (s * decode), FLT_MAX);
     codes of clamp(x * encode_b, -6, 6) by the e2m1 bands), written as the bf16 value E2M1[code] * s
     (exact); expand_big / expand_kv: the stored weights' codes expanded the same way (low nibble first).
  2. qkv_gemm: one GEMM for q, k and v (10240 output columns, each 128-column tile in one of them): bf16
     mma.sync m16n8k16, 128 x 128 tiles (8 warps of 64 x 32), 64-wide K steps in a 3-stage cp.async ring
     (98304 bytes; chunk c of a 128-byte row r at c ^ (r % 8)), each K step's partial added to the total
     with __fadd_rn; the epilogue multiplies by decode_x * decode_w (__fmul_rn) and rounds to bf16. Tiles
     are ordered in groups of 8 row tiles sweeping the column tiles (the cuda solution's tile_of).
  3. attention: per (batch, head) 256 threads and 96 KiB: q and k rotated into swizzled [128][128] bf16
     tiles (x * cos and rot * sin each rounded to bf16, their sum rounded), v transposed; scores on
     mma.sync m16n8k16 (a warp's 16 query rows), bf16(bf16(s) * 0.088388346f), -inf above the diagonal,
     the softmax in fp32 over each row's quad (shuffles xor 1, 2), P rounded to bf16 and packed in registers
     as the A operand of P V; P V rounded to bf16, stored [tokens, heads * 128], its max |.| by atomicMax.
  4. quantize_expand of the attention output, expand_big of the o weight, o_gemm (the same GEMM core)."""
from tvm.script import tirx as T

BATCH, SEQ, HID, HEADS, KVH, D = 64, 128, 8192, 64, 8, 128
TOK = BATCH * SEQ                     # 8192 tokens
KV = KVH * D                          # 1024
NQKV = HID + 2 * KV                   # 10240 fused output columns
AMAX_CTAS = 1056
AMAX_ITERS = (TOK * HID // 8 + AMAX_CTAS * 256 - 1) // (AMAX_CTAS * 256)
BK = 64
STAGES = 3
TILE = 128 * BK                       # bf16 elements of one operand tile
ST = 2 * TILE
FLT_MAX = 3.4028234663852886e38
SCALING = 0.08838834764831845         # head_dim ** -0.5 as fp32
assert (TOK // 128) % 8 == 0 and HID % BK == 0 and (TOK * HID // 16) % 256 == 0 and (KV * HID // 16) % 256 == 0


def e2m1_mag(a):
    # nearest |E2M1| of a in [0, 6], ties to even: the reference's bands
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


def global_encode(amax):
    # min(fp32(2688 / amax), FLT_MAX), 1 where that is 0
    return T.Select(T.min(T.call_pure_extern("float32", "__fdiv_rn", T.float32(2688), amax), T.float32(FLT_MAX)) == T.float32(0),
                    T.float32(1), T.min(T.call_pure_extern("float32", "__fdiv_rn", T.float32(2688), amax), T.float32(FLT_MAX)))


@T.prim_func
def amax_bf16(amax_ptr: T.handle, x_ptr: T.handle):
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    X = T.match_buffer(x_ptr, (TOK * HID,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([AMAX_CTAS])
    tx = T.thread_id([256])
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((8,), "float32", scope="shared")
    m[0] = T.float32(0)
    for it in T.serial(AMAX_ITERS):
        if (it * AMAX_CTAS + bx) * 256 + tx < TOK * HID // 8:
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
def quantize_expand(dst_ptr: T.handle, x_ptr: T.handle, amax_ptr: T.handle):
    DST = T.match_buffer(dst_ptr, (TOK * HID,), "bfloat16")
    X = T.match_buffer(x_ptr, (TOK * HID,), "bfloat16")
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    T.device_entry()
    bx = T.cta_id([TOK * HID // 16 // 256])
    tx = T.thread_id([256])
    xv = T.alloc_buffer((16,), "bfloat16", scope="local")
    ov = T.alloc_buffer((16,), "bfloat16", scope="local")
    g = T.alloc_buffer((2,), "float32", scope="local")         # global encode, decode
    sc = T.alloc_buffer((3,), "float32", scope="local")        # block amax, scale s, block encode
    y = T.alloc_buffer((1,), "float32", scope="local")
    for e in T.vectorized(8):
        xv[e] = X[(bx * 256 + tx) * 16 + e]
    for e in T.vectorized(8):
        xv[8 + e] = X[(bx * 256 + tx) * 16 + 8 + e]
    g[0] = global_encode(T.reinterpret("float32", AMAX[0]))
    g[1] = T.call_pure_extern("float32", "__fdiv_rn", T.float32(1), g[0])
    sc[0] = T.float32(0)
    for e in T.unroll(16):
        sc[0] = T.max(sc[0], T.abs(T.Cast("float32", xv[e])))
    sc[1] = T.Cast("float32", T.Cast("float8_e4m3fn", T.min(T.max(T.call_pure_extern("float32", "__fmul_rn", T.call_pure_extern(
        "float32", "__fmul_rn", sc[0], T.call_pure_extern("float32", "__fdiv_rn", T.float32(1), T.float32(6))), g[0]),
        T.float32(-448)), T.float32(448))))
    sc[2] = T.min(T.call_pure_extern("float32", "__fdiv_rn", T.float32(1), T.call_pure_extern("float32", "__fmul_rn", sc[1], g[1])),
                  T.float32(FLT_MAX))
    for e in T.unroll(16):
        y[0] = T.min(T.max(T.call_pure_extern("float32", "__fmul_rn", T.Cast("float32", xv[e]), sc[2]), T.float32(-6)), T.float32(6))
        ov[e] = T.Cast("bfloat16", T.Select(y[0] < T.float32(0), T.float32(0) - e2m1_mag(T.abs(y[0])), e2m1_mag(T.abs(y[0]))) * sc[1])
    for e in T.vectorized(8):
        DST[(bx * 256 + tx) * 16 + e] = ov[e]
    for e in T.vectorized(8):
        DST[(bx * 256 + tx) * 16 + 8 + e] = ov[8 + e]


@T.macro
def expand_blocks(DST, P, S, bx, tx, pv, wv, s8):
    # block b = 256 bx + tx: DST[16 b + j] = bf16(E2M1[code j] * e4m3(S[b])), code 2i low nibble of byte i
    for e in T.vectorized(8):
        pv[e] = P[(bx * 256 + tx) * 8 + e]
    s8[0] = T.Cast("float32", S[bx * 256 + tx])
    for j in T.unroll(8):
        wv[2 * j] = T.Cast("bfloat16", e2m1_value(T.bitwise_and(T.Cast("int32", pv[j]), 15)) * s8[0])
        wv[2 * j + 1] = T.Cast("bfloat16", e2m1_value(T.shift_right(T.Cast("int32", pv[j]), 4)) * s8[0])
    for e in T.vectorized(8):
        DST[(bx * 256 + tx) * 16 + e] = wv[e]
    for e in T.vectorized(8):
        DST[(bx * 256 + tx) * 16 + 8 + e] = wv[8 + e]


@T.prim_func
def expand_big(dst_ptr: T.handle, codes_ptr: T.handle, scales_ptr: T.handle):
    DST = T.match_buffer(dst_ptr, (HID * HID,), "bfloat16")
    P = T.match_buffer(codes_ptr, (HID * HID // 2,), "uint8")
    S = T.match_buffer(scales_ptr, (HID * HID // 16,), "float8_e4m3fn")
    T.device_entry()
    bx = T.cta_id([HID * HID // 16 // 256])
    tx = T.thread_id([256])
    pv = T.alloc_buffer((8,), "uint8", scope="local")
    wv = T.alloc_buffer((16,), "bfloat16", scope="local")
    s8 = T.alloc_buffer((1,), "float32", scope="local")
    expand_blocks(DST, P, S, bx, tx, pv, wv, s8)


@T.prim_func
def expand_kv(dst_ptr: T.handle, codes_ptr: T.handle, scales_ptr: T.handle):
    DST = T.match_buffer(dst_ptr, (KV * HID,), "bfloat16")
    P = T.match_buffer(codes_ptr, (KV * HID // 2,), "uint8")
    S = T.match_buffer(scales_ptr, (KV * HID // 16,), "float8_e4m3fn")
    T.device_entry()
    bx = T.cta_id([KV * HID // 16 // 256])
    tx = T.thread_id([256])
    pv = T.alloc_buffer((8,), "uint8", scope="local")
    wv = T.alloc_buffer((16,), "bfloat16", scope="local")
    s8 = T.alloc_buffer((1,), "float32", scope="local")
    expand_blocks(DST, P, S, bx, tx, pv, wv, s8)


@T.macro
def load_a(sm, slot, A, m0, kt, tx):
    for j in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + (tx // 8 + 32 * j) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            A.ptr_to([m0 + tx // 8 + 32 * j, kt * BK + tx % 8 * 8]), 16)


@T.macro
def load_b(sm, slot, B, r0, kt, tx):
    for j in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + TILE + (tx // 8 + 32 * j) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            B.ptr_to([r0 + tx // 8 + 32 * j, kt * BK + tx % 8 * 8]), 16)


@T.macro
def load_qkv(sm, slot, A, QW, KW, VW, m0, n0, kt, tx):
    load_a(sm, slot, A, m0, kt, tx)
    if n0 < HID:
        load_b(sm, slot, QW, n0, kt, tx)
    elif n0 < HID + KV:
        load_b(sm, slot, KW, n0 - HID, kt, tx)
    else:
        load_b(sm, slot, VW, n0 - (HID + KV), kt, tx)


@T.macro
def mma_stage(sm, sa, sb, acc, af, bf, lane):
    for ks in T.unroll(4):
        for mt in T.unroll(4):      # A rows 16 mt + lane % 16, chunk 2 ks + lane // 16
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                sm.ptr_to([sa + (mt * 16 + lane % 16) * BK + T.bitwise_xor(ks * 2 + lane // 16, lane % 8) * 8]))
        for np in T.unroll(2):      # B rows 16 np + 8 (lane // 16) + lane % 8, chunk 2 ks + lane // 8 % 2
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(bf[np * 4], bf[np * 4 + 1], bf[np * 4 + 2], bf[np * 4 + 3],
                sm.ptr_to([sb + (np * 16 + lane // 16 * 8 + lane % 8) * BK + T.bitwise_xor(ks * 2 + lane // 8 % 2, lane % 8) * 8]))
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[mt, nt, 0], acc[mt, nt, 1], acc[mt, nt, 2], acc[mt, nt, 3],
                    af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3], bf[nt * 2], bf[nt * 2 + 1],
                    acc[mt, nt, 0], acc[mt, nt, 1], acc[mt, nt, 2], acc[mt, nt, 3])


@T.macro
def promote(acc, tot):
    # each K step's partial added to the total with an fp32 add (the tensor cores' accumulation truncates)
    for mt in T.unroll(4):
        for nt in T.unroll(4):
            for e in T.unroll(4):
                tot[mt, nt, e] = T.call_pure_extern("float32", "__fadd_rn", tot[mt, nt, e], acc[mt, nt, e])
                acc[mt, nt, e] = T.float32(0)


@T.macro
def zero_acc(acc, tot):
    for mt in T.unroll(4):
        for nt in T.unroll(4):
            for e in T.unroll(4):
                acc[mt, nt, e] = T.float32(0)
                tot[mt, nt, e] = T.float32(0)


@T.macro
def store_tile(OUT, tot, gsc, m0, c0, tx, yv):
    # tot[mt, nt, 2h + e]: row m0 + 64 wm + 16 mt + lane // 4 + 8 h, column c0 + 32 wn + 8 nt + 2 (lane % 4) + e
    for mt in T.unroll(4):
        for h in T.unroll(2):
            for nt in T.unroll(4):
                for e in T.unroll(2):
                    yv[e] = T.Cast("bfloat16", tot[mt, nt, 2 * h + e] * gsc[0])
                for e in T.vectorized(2):
                    OUT[m0 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8, c0 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = yv[e]


@T.prim_func
def qkv_gemm(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, xa_ptr: T.handle, qw_ptr: T.handle, kw_ptr: T.handle,
             vw_ptr: T.handle, xamax_ptr: T.handle, gdq_ptr: T.handle, gdk_ptr: T.handle, gdv_ptr: T.handle):
    QO = T.match_buffer(q_ptr, (TOK, HID), "bfloat16")
    KO = T.match_buffer(k_ptr, (TOK, KV), "bfloat16")
    VO = T.match_buffer(v_ptr, (TOK, KV), "bfloat16")
    A = T.match_buffer(xa_ptr, (TOK, HID), "bfloat16")
    QW = T.match_buffer(qw_ptr, (HID, HID), "bfloat16")
    KW = T.match_buffer(kw_ptr, (KV, HID), "bfloat16")
    VW = T.match_buffer(vw_ptr, (KV, HID), "bfloat16")
    XAMAX = T.match_buffer(xamax_ptr, (1,), "int32")
    GDQ = T.match_buffer(gdq_ptr, (1,), "float32")
    GDK = T.match_buffer(gdk_ptr, (1,), "float32")
    GDV = T.match_buffer(gdv_ptr, (1,), "float32")
    T.device_entry()
    bx = T.cta_id([(TOK // 128) * (NQKV // 128)])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * ST,), "bfloat16", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        tot = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        gsc = T.alloc_buffer((1,), "float32", scope="local")
        yv = T.alloc_buffer((2,), "bfloat16", scope="local")
        # tile_of: groups of 8 row tiles sweep the column tiles
        zero_acc(acc, tot)
        for s in T.unroll(STAGES - 1):
            load_qkv(sm, s, A, QW, KW, VW, (bx // (8 * (NQKV // 128)) * 8 + bx % 8) * 128, bx % (8 * (NQKV // 128)) // 8 * 128, s, tx)
            T.ptx.cp.async_.commit_group()
        for kt in T.serial(HID // BK):
            T.ptx.cp.async_.wait_group(STAGES - 2)
            T.cuda.cta_sync()
            if kt + STAGES - 1 < HID // BK:
                load_qkv(sm, (kt + STAGES - 1) % STAGES, A, QW, KW, VW, (bx // (8 * (NQKV // 128)) * 8 + bx % 8) * 128,
                         bx % (8 * (NQKV // 128)) // 8 * 128, kt + STAGES - 1, tx)
            T.ptx.cp.async_.commit_group()
            mma_stage(sm, kt % STAGES * ST + tx // 128 * 64 * BK, kt % STAGES * ST + TILE + tx // 32 % 4 * 32 * BK, acc, af, bf, tx % 32)
            promote(acc, tot)
        T.ptx.cp.async_.wait_group(0)
        if bx % (8 * (NQKV // 128)) // 8 * 128 < HID:
            gsc[0] = T.call_pure_extern("float32", "__fmul_rn", T.call_pure_extern(
                "float32", "__fdiv_rn", T.float32(1), global_encode(T.reinterpret("float32", XAMAX[0]))), GDQ[0])
            store_tile(QO, tot, gsc, (bx // (8 * (NQKV // 128)) * 8 + bx % 8) * 128, bx % (8 * (NQKV // 128)) // 8 * 128, tx, yv)
        elif bx % (8 * (NQKV // 128)) // 8 * 128 < HID + KV:
            gsc[0] = T.call_pure_extern("float32", "__fmul_rn", T.call_pure_extern(
                "float32", "__fdiv_rn", T.float32(1), global_encode(T.reinterpret("float32", XAMAX[0]))), GDK[0])
            store_tile(KO, tot, gsc, (bx // (8 * (NQKV // 128)) * 8 + bx % 8) * 128, bx % (8 * (NQKV // 128)) // 8 * 128 - HID, tx, yv)
        else:
            gsc[0] = T.call_pure_extern("float32", "__fmul_rn", T.call_pure_extern(
                "float32", "__fdiv_rn", T.float32(1), global_encode(T.reinterpret("float32", XAMAX[0]))), GDV[0])
            store_tile(VO, tot, gsc, (bx // (8 * (NQKV // 128)) * 8 + bx % 8) * 128, bx % (8 * (NQKV // 128)) // 8 * 128 - (HID + KV), tx, yv)


@T.prim_func
def o_gemm(out_ptr: T.handle, aa_ptr: T.handle, ow_ptr: T.handle, aamax_ptr: T.handle, gdo_ptr: T.handle):
    OUT = T.match_buffer(out_ptr, (TOK, HID), "bfloat16")
    A = T.match_buffer(aa_ptr, (TOK, HID), "bfloat16")
    OW = T.match_buffer(ow_ptr, (HID, HID), "bfloat16")
    AAMAX = T.match_buffer(aamax_ptr, (1,), "int32")
    GDO = T.match_buffer(gdo_ptr, (1,), "float32")
    T.device_entry()
    bx = T.cta_id([(TOK // 128) * (HID // 128)])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * ST,), "bfloat16", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        tot = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        gsc = T.alloc_buffer((1,), "float32", scope="local")
        yv = T.alloc_buffer((2,), "bfloat16", scope="local")
        zero_acc(acc, tot)
        for s in T.unroll(STAGES - 1):
            load_a(sm, s, A, (bx // (8 * (HID // 128)) * 8 + bx % 8) * 128, s, tx)
            load_b(sm, s, OW, bx % (8 * (HID // 128)) // 8 * 128, s, tx)
            T.ptx.cp.async_.commit_group()
        for kt in T.serial(HID // BK):
            T.ptx.cp.async_.wait_group(STAGES - 2)
            T.cuda.cta_sync()
            if kt + STAGES - 1 < HID // BK:
                load_a(sm, (kt + STAGES - 1) % STAGES, A, (bx // (8 * (HID // 128)) * 8 + bx % 8) * 128, kt + STAGES - 1, tx)
                load_b(sm, (kt + STAGES - 1) % STAGES, OW, bx % (8 * (HID // 128)) // 8 * 128, kt + STAGES - 1, tx)
            T.ptx.cp.async_.commit_group()
            mma_stage(sm, kt % STAGES * ST + tx // 128 * 64 * BK, kt % STAGES * ST + TILE + tx // 32 % 4 * 32 * BK, acc, af, bf, tx % 32)
            promote(acc, tot)
        T.ptx.cp.async_.wait_group(0)
        gsc[0] = T.call_pure_extern("float32", "__fmul_rn", T.call_pure_extern(
            "float32", "__fdiv_rn", T.float32(1), global_encode(T.reinterpret("float32", AAMAX[0]))), GDO[0])
        store_tile(OUT, tot, gsc, (bx // (8 * (HID // 128)) * 8 + bx % 8) * 128, bx % (8 * (HID // 128)) // 8 * 128, tx, yv)


def bf16r(x):
    return T.Cast("float32", T.Cast("bfloat16", x))


def bf16_bits(x):
    # the bf16 rounding of fp32 x as the low 16 bits of a uint32
    return T.Cast("uint32", T.reinterpret("uint16", T.Cast("bfloat16", x)))


@T.macro
def rope_chunk(TS, base, Xs, xrow, xcol, CS, SN, tok, s, c, xv, yv, cv, sv, ov):
    # row xrow of Xs, columns xcol + 8c .. + 7 rotated with cos / sin of token tok, into the swizzled tile at
    # TS[base ..], row s, chunk c: x * cos and rot * sin each rounded to bf16, their sum rounded
    for e in T.vectorized(8):
        xv[e] = Xs[xrow, xcol + c * 8 + e]
    for e in T.vectorized(8):
        yv[e] = Xs[xrow, xcol + T.bitwise_xor(c, 8) * 8 + e]
    for e in T.vectorized(8):
        cv[e] = CS[tok, c * 8 + e]
    for e in T.vectorized(8):
        sv[e] = SN[tok, c * 8 + e]
    for e in T.unroll(8):
        ov[e] = T.Cast("bfloat16", bf16r(T.Cast("float32", xv[e]) * T.Cast("float32", cv[e])) + bf16r(
            T.Select(c < 8, T.float32(0) - T.Cast("float32", yv[e]), T.Cast("float32", yv[e])) * T.Cast("float32", sv[e])))
    for e in T.vectorized(8):
        TS[base + s * D + T.bitwise_xor(c, s % 8) * 8 + e] = ov[e]


@T.prim_func
def attention(out_ptr: T.handle, amax_ptr: T.handle, q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, cos_ptr: T.handle,
              sin_ptr: T.handle):
    OUT = T.match_buffer(out_ptr, (TOK, HID), "bfloat16")
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    Q = T.match_buffer(q_ptr, (TOK, HID), "bfloat16")
    K = T.match_buffer(k_ptr, (TOK, KV), "bfloat16")
    V = T.match_buffer(v_ptr, (TOK, KV), "bfloat16")
    CS = T.match_buffer(cos_ptr, (TOK, D), "bfloat16")
    SN = T.match_buffer(sin_ptr, (TOK, D), "bfloat16")
    T.device_entry()
    bx = T.cta_id([BATCH * HEADS])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((3 * SEQ * D,), "bfloat16", scope="shared.dyn", align=1024)   # q tile, k tile, v^T tile
        xv = T.alloc_buffer((8,), "bfloat16", scope="local")
        yv = T.alloc_buffer((8,), "bfloat16", scope="local")
        cv = T.alloc_buffer((8,), "bfloat16", scope="local")
        sv = T.alloc_buffer((8,), "bfloat16", scope="local")
        ov = T.alloc_buffer((8,), "bfloat16", scope="local")
        acc = T.alloc_buffer((16, 4), "float32", scope="local")
        o = T.alloc_buffer((16, 4), "float32", scope="local")
        a = T.alloc_buffer((4,), "uint32", scope="local")
        bb = T.alloc_buffer((4,), "uint32", scope="local")
        pa = T.alloc_buffer((8, 4), "uint32", scope="local")
        st = T.alloc_buffer((3,), "float32", scope="local")        # row max, row sum, |out| max
        # batch bx // 64, head bx % 64, kv head bx % 64 // 8; item it = 256 i + tx: token row it // 16, chunk it % 16
        for i in T.serial(SEQ * (D // 8) // 256):
            rope_chunk(sm, 0, Q, bx // HEADS * SEQ + (i * 256 + tx) // 16, bx % HEADS * D, CS, SN, bx // HEADS * SEQ + (i * 256 + tx) // 16,
                       (i * 256 + tx) // 16, (i * 256 + tx) % 16, xv, yv, cv, sv, ov)
            rope_chunk(sm, SEQ * D, K, bx // HEADS * SEQ + (i * 256 + tx) // 16, bx % HEADS // (HEADS // KVH) * D, CS, SN,
                       bx // HEADS * SEQ + (i * 256 + tx) // 16, (i * 256 + tx) // 16, (i * 256 + tx) % 16, xv, yv, cv, sv, ov)
            # v^T: row d = 8 c + e holds feature d of the 128 keys (keys contiguous, chunk s // 8 swizzled)
            for e in T.vectorized(8):
                xv[e] = V[bx // HEADS * SEQ + (i * 256 + tx) // 16, bx % HEADS // (HEADS // KVH) * D + (i * 256 + tx) % 16 * 8 + e]
            for e in T.unroll(8):
                sm[2 * SEQ * D + ((i * 256 + tx) % 16 * 8 + e) * SEQ
                   + T.bitwise_xor((i * 256 + tx) // 16 // 8, e) * 8 + (i * 256 + tx) // 16 % 8] = xv[e]
        T.cuda.cta_sync()
        for n in T.unroll(16):
            for e in T.unroll(4):
                acc[n, e] = T.float32(0)
                o[n, e] = T.float32(0)
        # scores: the warp's 16 query rows x 128 keys
        for kk in T.unroll(D // 16):
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(a[0], a[1], a[2], a[3], sm.ptr_to(
                [(tx // 32 * 16 + tx % 16) * D + T.bitwise_xor(kk * 2 + tx % 32 // 16, tx % 8) * 8]))
            for np in T.unroll(SEQ // 16):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(bb[0], bb[1], bb[2], bb[3], sm.ptr_to(
                    [SEQ * D + (np * 16 + tx % 32 // 16 * 8 + tx % 8) * D + T.bitwise_xor(kk * 2 + tx % 32 // 8 % 2, tx % 8) * 8]))
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[2 * np, 0], acc[2 * np, 1], acc[2 * np, 2], acc[2 * np, 3], a[0], a[1], a[2], a[3], bb[0], bb[1],
                    acc[2 * np, 0], acc[2 * np, 1], acc[2 * np, 2], acc[2 * np, 3])
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[2 * np + 1, 0], acc[2 * np + 1, 1], acc[2 * np + 1, 2], acc[2 * np + 1, 3], a[0], a[1], a[2], a[3], bb[2], bb[3],
                    acc[2 * np + 1, 0], acc[2 * np + 1, 1], acc[2 * np + 1, 2], acc[2 * np + 1, 3])
        # softmax per row i = 16 warp + lane // 4 + 8 half over its quad; key j = 8 n + 2 (lane % 4) + e
        for half in T.unroll(2):
            st[0] = T.float32(0) - T.infinity("float32")
            for n in T.unroll(16):
                for e in T.unroll(2):
                    acc[n, 2 * half + e] = T.Select(n * 8 + tx % 4 * 2 + e > tx // 32 * 16 + tx % 32 // 4 + half * 8,
                                                    T.float32(0) - T.infinity("float32"),
                                                    bf16r(bf16r(acc[n, 2 * half + e]) * T.float32(SCALING)))
                    st[0] = T.max(st[0], acc[n, 2 * half + e])
            st[0] = T.max(st[0], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), st[0], 1, 32, 32))
            st[0] = T.max(st[0], T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), st[0], 2, 32, 32))
            st[1] = T.float32(0)
            for n in T.unroll(16):
                for e in T.unroll(2):
                    acc[n, 2 * half + e] = T.exp(acc[n, 2 * half + e] - st[0])
                    st[1] = st[1] + acc[n, 2 * half + e]
            st[1] = st[1] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), st[1], 1, 32, 32)
            st[1] = st[1] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), st[1], 2, 32, 32)
            for kk in T.unroll(SEQ // 16):
                pa[kk, half] = T.bitwise_or(bf16_bits(acc[2 * kk, 2 * half] / st[1]),
                                            T.shift_left(bf16_bits(acc[2 * kk, 2 * half + 1] / st[1]), T.uint32(16)))
                pa[kk, 2 + half] = T.bitwise_or(bf16_bits(acc[2 * kk + 1, 2 * half] / st[1]),
                                                T.shift_left(bf16_bits(acc[2 * kk + 1, 2 * half + 1] / st[1]), T.uint32(16)))
        # o = P V: A = P from registers, B = v^T rows (features) 16 np .., keys 16 kk ..
        for kk in T.unroll(SEQ // 16):
            for np in T.unroll(D // 16):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(bb[0], bb[1], bb[2], bb[3], sm.ptr_to(
                    [2 * SEQ * D + (np * 16 + tx % 32 // 16 * 8 + tx % 8) * SEQ + T.bitwise_xor(kk * 2 + tx % 32 // 8 % 2, tx % 8) * 8]))
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    o[2 * np, 0], o[2 * np, 1], o[2 * np, 2], o[2 * np, 3], pa[kk, 0], pa[kk, 1], pa[kk, 2], pa[kk, 3], bb[0], bb[1],
                    o[2 * np, 0], o[2 * np, 1], o[2 * np, 2], o[2 * np, 3])
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    o[2 * np + 1, 0], o[2 * np + 1, 1], o[2 * np + 1, 2], o[2 * np + 1, 3], pa[kk, 0], pa[kk, 1], pa[kk, 2], pa[kk, 3],
                    bb[2], bb[3], o[2 * np + 1, 0], o[2 * np + 1, 1], o[2 * np + 1, 2], o[2 * np + 1, 3])
        st[2] = T.float32(0)
        for half in T.unroll(2):
            for n in T.unroll(D // 8):
                for e in T.unroll(2):
                    ov[e] = T.Cast("bfloat16", o[n, 2 * half + e])
                    st[2] = T.max(st[2], T.abs(T.Cast("float32", ov[e])))
                for e in T.vectorized(2):
                    OUT[bx // HEADS * SEQ + tx // 32 * 16 + tx % 32 // 4 + half * 8, bx % HEADS * D + n * 8 + tx % 4 * 2 + e] = ov[e]
        st[2] = T.cuda.warp_max(st[2], 32)
        if tx % 32 == 0:
            T.evaluate(T.call_extern("int32", "atomicMax", T.address_of(AMAX[0]), T.reinterpret("int32", st[2])))


MKB_PLAN = """/* mkb:plan
scratch xamax fp32[1] zeroed
scratch aamax fp32[1] zeroed
scratch xa bf16[batch_size * seq_len * hidden_size]
scratch qw bf16[q_out_features * hidden_size]
scratch kw bf16[kv_out_features * hidden_size]
scratch vw bf16[kv_out_features * hidden_size]
scratch ow bf16[hidden_size * q_out_features]
scratch q16 bf16[batch_size * seq_len * q_out_features]
scratch k16 bf16[batch_size * seq_len * kv_out_features]
scratch v16 bf16[batch_size * seq_len * kv_out_features]
scratch ao bf16[batch_size * seq_len * q_out_features]
launch amax_bf16 grid(1056) block(256) args(xamax, hidden_states)
launch quantize_expand grid(batch_size * seq_len * hidden_size / 16 / 256) block(256) args(xa, hidden_states, xamax)
launch expand_big grid(q_out_features * hidden_size / 16 / 256) block(256) args(qw, q_weight_fp4, q_scale)
launch expand_kv grid(kv_out_features * hidden_size / 16 / 256) block(256) args(kw, k_weight_fp4, k_scale)
launch expand_kv grid(kv_out_features * hidden_size / 16 / 256) block(256) args(vw, v_weight_fp4, v_scale)
launch qkv_gemm grid((batch_size * seq_len / 128) * ((q_out_features + 2 * kv_out_features) / 128)) block(256) shared(98304)
  args(q16, k16, v16, xa, qw, kw, vw, xamax, q_global_decode_scale, k_global_decode_scale, v_global_decode_scale)
launch attention grid(batch_size * num_heads) block(256) shared(98304) args(ao, aamax, q16, k16, v16, cos, sin)
launch quantize_expand grid(batch_size * seq_len * q_out_features / 16 / 256) block(256) args(xa, ao, aamax)
launch expand_big grid(hidden_size * q_out_features / 16 / 256) block(256) args(ow, o_weight_fp4, o_scale)
launch o_gemm grid((batch_size * seq_len / 128) * (hidden_size / 128)) block(256) shared(98304)
  args(out, xa, ow, aamax, o_global_decode_scale)
*/"""
