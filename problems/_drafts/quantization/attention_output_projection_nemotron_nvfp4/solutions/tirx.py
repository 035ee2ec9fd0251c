"""Nemotron attention output projection with NVFP4 operands (activation quantized inside, weight given), in
TIRx: the algorithm of solutions/cuda.cu (Hopper has no fp4 tensor cores).

  1. amax_bf16: max |hidden_states| (grid-stride 16-byte loads, warp_max, a shared slot per warp, atomicMax of
     the float's bits into zeroed scratch).
  2. quantize_expand: each 16-element block quantized with the reference's fp32 recipe (global encode
     min(2688 / amax, FLT_MAX) or 1, decode 1 / encode, both __fdiv_rn; s = e4m3(clamp(amax_b * fp32(1/6) *
     encode)); encode_b = min(1 / (s * decode), FLT_MAX); codes of clamp(x * encode_b, -6, 6) by the e2m1
     bands), written as the bf16 value E2M1[code] * s (exact); expand_nvfp4: the weight's codes expanded the
     same way (low nibble first).
  3. nvfp4_gemm: bf16 mma.sync m16n8k16, 128 x 128 tiles (8 warps of 64 x 32), 64-wide K steps in a 3-stage
     cp.async ring (98304 bytes; chunk c of a 128-byte row r at c ^ (r % 8)), each K step's partial added to
     the total with __fadd_rn (the tensor cores' accumulation truncates); the fp32 output is
     total * (decode_act * decode_weight). Tiles in groups of 8 row tiles sweeping the column tiles."""
from tvm.script import tirx as T

M, K, N = 32768, 4096, 2816            # tokens, input_dim, hidden_size_padded
AMAX_CTAS = 1056
AMAX_ITERS = (M * K // 8 + AMAX_CTAS * 256 - 1) // (AMAX_CTAS * 256)
BK = 64
STAGES = 3
TILE = 128 * BK
ST = 2 * TILE
TN = N // 128                          # column tiles
FLT_MAX = 3.4028234663852886e38
assert (M // 128) % 8 == 0 and N % 128 == 0 and K % BK == 0 and (M * K // 16) % 256 == 0 and (N * K // 16) % 256 == 0


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
    X = T.match_buffer(x_ptr, (M * K,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([AMAX_CTAS])
    tx = T.thread_id([256])
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((8,), "float32", scope="shared")
    m[0] = T.float32(0)
    for it in T.serial(AMAX_ITERS):
        if (it * AMAX_CTAS + bx) * 256 + tx < M * K // 8:
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
    DST = T.match_buffer(dst_ptr, (M * K,), "bfloat16")
    X = T.match_buffer(x_ptr, (M * K,), "bfloat16")
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    T.device_entry()
    bx = T.cta_id([M * K // 16 // 256])
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
def expand_nvfp4(dst_ptr: T.handle, codes_ptr: T.handle, scales_ptr: T.handle):
    DST = T.match_buffer(dst_ptr, (N * K,), "bfloat16")
    P = T.match_buffer(codes_ptr, (N * K // 2,), "uint8")
    S = T.match_buffer(scales_ptr, (N * K // 16,), "float8_e4m3fn")
    T.device_entry()
    bx = T.cta_id([N * K // 16 // 256])
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


@T.prim_func
def nvfp4_gemm(out_ptr: T.handle, a_ptr: T.handle, b_ptr: T.handle, amax_ptr: T.handle, gdb_ptr: T.handle):
    OUT = T.match_buffer(out_ptr, (M, N), "float32")
    A = T.match_buffer(a_ptr, (M, K), "bfloat16")
    B = T.match_buffer(b_ptr, (N, K), "bfloat16")
    AMAX = T.match_buffer(amax_ptr, (1,), "int32")
    GDB = T.match_buffer(gdb_ptr, (1,), "float32")
    T.device_entry()
    bx = T.cta_id([(M // 128) * TN])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * ST,), "bfloat16", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        tot = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        gsc = T.alloc_buffer((1,), "float32", scope="local")
        yv = T.alloc_buffer((2,), "float32", scope="local")
        # tile_of: row tile bx // (8 TN) * 8 + bx % 8, column tile bx % (8 TN) // 8
        zero_acc(acc, tot)
        for s in T.unroll(STAGES - 1):
            load_a(sm, s, A, (bx // (8 * TN) * 8 + bx % 8) * 128, s, tx)
            load_b(sm, s, B, bx % (8 * TN) // 8 * 128, s, tx)
            T.ptx.cp.async_.commit_group()
        for kt in T.serial(K // BK):
            T.ptx.cp.async_.wait_group(STAGES - 2)
            T.cuda.cta_sync()
            if kt + STAGES - 1 < K // BK:
                load_a(sm, (kt + STAGES - 1) % STAGES, A, (bx // (8 * TN) * 8 + bx % 8) * 128, kt + STAGES - 1, tx)
                load_b(sm, (kt + STAGES - 1) % STAGES, B, bx % (8 * TN) // 8 * 128, kt + STAGES - 1, tx)
            T.ptx.cp.async_.commit_group()
            mma_stage(sm, kt % STAGES * ST + tx // 128 * 64 * BK, kt % STAGES * ST + TILE + tx // 32 % 4 * 32 * BK, acc, af, bf, tx % 32)
            promote(acc, tot)
        T.ptx.cp.async_.wait_group(0)
        gsc[0] = T.call_pure_extern("float32", "__fmul_rn", T.call_pure_extern(
            "float32", "__fdiv_rn", T.float32(1), global_encode(T.reinterpret("float32", AMAX[0]))), GDB[0])
        # tot[mt, nt, 2h + e]: row 64 wm + 16 mt + lane // 4 + 8 h, column 32 wn + 8 nt + 2 (lane % 4) + e of the tile
        for mt in T.unroll(4):
            for h in T.unroll(2):
                for nt in T.unroll(4):
                    for e in T.unroll(2):
                        yv[e] = tot[mt, nt, 2 * h + e] * gsc[0]
                    for e in T.vectorized(2):
                        OUT[(bx // (8 * TN) * 8 + bx % 8) * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8,
                            bx % (8 * TN) // 8 * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = yv[e]


MKB_PLAN = """/* mkb:plan
scratch amax fp32[1] zeroed
scratch xa bf16[m * input_dim]
scratch wb bf16[hidden_size_padded * input_dim]
launch amax_bf16 grid(1056) block(256) args(amax, hidden_states)
launch quantize_expand grid(m * input_dim / 16 / 256) block(256) args(xa, hidden_states, amax)
launch expand_nvfp4 grid(hidden_size_padded * input_dim / 16 / 256) block(256) args(wb, weight_fp4, weight_scale)
launch nvfp4_gemm grid((m / 128) * (hidden_size_padded / 128)) block(256) shared(98304)
  args(output, xa, wb, amax, weight_global_decode_scale)
*/"""
