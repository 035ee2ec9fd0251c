"""ERNIE 4.5 MoE layer (correction-bias routing, 64 routed SwiGLU experts plus a shared one), a TIRx port of
solutions/cuda.cu: the same nine launches, GEMM engine and rounding points.
  1. router_logits: 32 tokens x 64 experts per CTA, 2 x 4 outputs per thread, bf16 x fp32 products summed in
     fp64 (exact products, fma), rounded once.
  2. route: a warp per token: softmax (butterfly max and sum), + bias, the top 8 by butterfly arg-max (ties to
     the lower expert), weights bf16(biased / max(sum, norm_min)); per-expert counts (atomics).
  3. offsets (one thread) and fill_pairs (a thread per (token, slot): a row in its expert's range, atomic).
  4. gate_up_routed / gate_up_shared: one grouped GEMM computes gate and up together (64 + 64 rows of the
     [out, in] weights interleaved by 8 in the B tile), h = bf16(g / (1 + __expf(-g)) * u) (one rounding).
  5. down_routed: y = bf16(acc * pair weight); down_shared: the shared rows in fp32.
  6. combine: per token and 8 columns, fp32 shared row + its 8 routed rows (slot order), rounded once.
GEMM engine (a T.macro): 128 x 128 tiles per 128-thread CTA (4 warps of 64 x 64, mma.sync m16n8k16 bf16 ->
fp32), K steps of 64 in a 3-stage cp.async ring, tiles of 128-byte rows with 16-byte chunk c of row r at
c ^ (r % 8), A and B fragments by ldmatrix.x4 (both operands K-major); thread 0 finds the CTA's tile
(groups in order, n-tiles, m-tiles fastest); a CTA past the last tile exits."""
from tvm.script import tirx as T

TOKENS, HIDDEN, EXPERTS, TOPK, INTER, SHARED = 8192, 8192, 64, 8, 3584, 7168
PAIRS = TOKENS * TOPK
STAGE = 16384                           # bf16 per stage: A 128 x 64, B 128 x 64
assert HIDDEN % 128 == 0 and INTER % 64 == 0 and SHARED % 64 == 0 and TOKENS % 128 == 0 and PAIRS % 256 == 0


@T.prim_func
def router_logits(x_ptr: T.handle, w_ptr: T.handle, l_ptr: T.handle):
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    W = T.match_buffer(w_ptr, (EXPERTS * HIDDEN,), "float32")
    LOG = T.match_buffer(l_ptr, (TOKENS * EXPERTS,), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS // 32])
    tx = T.thread_id([256])
    xs = T.alloc_buffer((32 * 65,), "float32", scope="shared")
    ws = T.alloc_buffer((64 * 65,), "float32", scope="shared")
    acc = T.alloc_buffer((8,), "float64", scope="local")          # tokens tx / 16 + 16 i, experts tx % 16 + 16 j
    a = T.alloc_buffer((2,), "float64", scope="local")
    b = T.alloc_buffer((1,), "float64", scope="local")
    for v in T.unroll(8):
        acc[v] = T.float64(0)
    for k0 in T.serial(HIDDEN // 64):
        for i in T.unroll(8):
            xs[(tx // 64 + 4 * i) * 65 + tx % 64] = T.Cast("float32", X[(bx * 32 + tx // 64 + 4 * i) * HIDDEN + k0 * 64 + tx % 64])
        for i in T.unroll(16):
            ws[(tx // 64 + 4 * i) * 65 + tx % 64] = W[(tx // 64 + 4 * i) * HIDDEN + k0 * 64 + tx % 64]
        T.cuda.cta_sync()
        for k in T.serial(64):
            a[0] = T.Cast("float64", xs[tx // 16 * 65 + k])
            a[1] = T.Cast("float64", xs[(tx // 16 + 16) * 65 + k])
            for j in T.unroll(4):
                b[0] = T.Cast("float64", ws[(tx % 16 + 16 * j) * 65 + k])
                acc[j] = T.call_pure_extern("float64", "fma", a[0], b[0], acc[j])
                acc[4 + j] = T.call_pure_extern("float64", "fma", a[1], b[0], acc[4 + j])
        T.cuda.cta_sync()
    for i in T.unroll(2):
        for j in T.unroll(4):
            LOG[(bx * 32 + tx // 16 + 16 * i) * EXPERTS + tx % 16 + 16 * j] = T.Cast("float32", acc[i * 4 + j])


@T.prim_func
def route(l_ptr: T.handle, b_ptr: T.handle, sel_ptr: T.handle, ws_ptr: T.handle, count_ptr: T.handle, norm_min: T.float32):
    LOG = T.match_buffer(l_ptr, (TOKENS * EXPERTS,), "float32")
    BIAS = T.match_buffer(b_ptr, (EXPERTS,), "float32")
    SEL = T.match_buffer(sel_ptr, (PAIRS,), "int32")
    WSEL = T.match_buffer(ws_ptr, (PAIRS,), "float32")
    COUNT = T.match_buffer(count_ptr, (EXPERTS,), "int32")
    T.device_entry()
    bx = T.cta_id([TOKENS // 8])
    tx = T.thread_id([256])
    v = T.alloc_buffer((2,), "float32", scope="local")
    ex = T.alloc_buffer((2,), "float32", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    s = T.alloc_buffer((1,), "float32", scope="local")
    best = T.alloc_buffer((1,), "float32", scope="local")
    where = T.alloc_buffer((1,), "int32", scope="local")
    ob = T.alloc_buffer((1,), "float32", scope="local")
    ow = T.alloc_buffer((1,), "int32", scope="local")
    my_e = T.alloc_buffer((1,), "int32", scope="local")
    my_v = T.alloc_buffer((1,), "float32", scope="local")
    total = T.alloc_buffer((1,), "float32", scope="local")
    m[0] = T.max(LOG[(bx * 8 + tx // 32) * EXPERTS + tx % 32], LOG[(bx * 8 + tx // 32) * EXPERTS + tx % 32 + 32])
    m[0] = T.cuda.warp_max(m[0], 32)
    ex[0] = T.exp(LOG[(bx * 8 + tx // 32) * EXPERTS + tx % 32] - m[0])
    ex[1] = T.exp(LOG[(bx * 8 + tx // 32) * EXPERTS + tx % 32 + 32] - m[0])
    s[0] = T.cuda.warp_sum(ex[0] + ex[1], 32)
    v[0] = ex[0] / s[0] + BIAS[tx % 32]
    v[1] = ex[1] / s[0] + BIAS[tx % 32 + 32]
    my_e[0] = 0
    my_v[0] = T.float32(0)
    total[0] = T.float32(0)
    for k in T.serial(TOPK):
        best[0] = T.float32(0) - T.infinity("float32")
        where[0] = 1 << 30
        for j in T.unroll(2):
            if v[j] > best[0]:
                best[0] = v[j]
                where[0] = tx % 32 + 32 * j
        for i in T.unroll(5):            # butterfly arg-max, ties to the lower expert
            ob[0] = T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), best[0], 16 >> i, 32, 32)
            ow[0] = T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), where[0], 16 >> i, 32, 32)
            if ob[0] > best[0] or (ob[0] == best[0] and ow[0] < where[0]):
                best[0] = ob[0]
                where[0] = ow[0]
        if where[0] % 32 == tx % 32:
            v[where[0] // 32] = T.float32(0) - T.infinity("float32")
        if tx % 32 == k:
            my_e[0] = where[0]
            my_v[0] = best[0]
        total[0] = total[0] + best[0]
    if tx % 32 < TOPK:
        SEL[(bx * 8 + tx // 32) * TOPK + tx % 32] = my_e[0]
        WSEL[(bx * 8 + tx // 32) * TOPK + tx % 32] = T.Cast("float32", T.Cast("bfloat16", my_v[0] / T.max(total[0], norm_min)))
        T.evaluate(T.cuda.atomic_add(T.address_of(COUNT[my_e[0]]), 1))


@T.prim_func
def offsets(count_ptr: T.handle, off_ptr: T.handle, cnt2_ptr: T.handle):
    COUNT = T.match_buffer(count_ptr, (EXPERTS,), "int32")
    OFF = T.match_buffer(off_ptr, (EXPERTS + 1,), "int32")
    CNT2 = T.match_buffer(cnt2_ptr, (2,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([32])
    o = T.alloc_buffer((1,), "int32", scope="local")
    if tx == 0:
        o[0] = 0
        for e in T.serial(EXPERTS):
            OFF[e] = o[0]
            o[0] = o[0] + COUNT[e]
        OFF[EXPERTS] = o[0]
        CNT2[0] = TOKENS                 # the shared expert: one group of every token, at offset 0
        CNT2[1] = 0


@T.prim_func
def fill_pairs(sel_ptr: T.handle, ws_ptr: T.handle, off_ptr: T.handle, cursor_ptr: T.handle, ptok_ptr: T.handle,
               pw_ptr: T.handle, pof_ptr: T.handle):
    SEL = T.match_buffer(sel_ptr, (PAIRS,), "int32")
    WSEL = T.match_buffer(ws_ptr, (PAIRS,), "float32")
    OFF = T.match_buffer(off_ptr, (EXPERTS + 1,), "int32")
    CURSOR = T.match_buffer(cursor_ptr, (EXPERTS,), "int32")
    PTOK = T.match_buffer(ptok_ptr, (PAIRS,), "int32")
    PW = T.match_buffer(pw_ptr, (PAIRS,), "float32")
    POF = T.match_buffer(pof_ptr, (PAIRS,), "int32")
    T.device_entry()
    bx = T.cta_id([PAIRS // 256])
    tx = T.thread_id([256])
    p = T.alloc_buffer((1,), "int32", scope="local")
    p[0] = OFF[SEL[bx * 256 + tx]] + T.cuda.atomic_add(T.address_of(CURSOR[SEL[bx * 256 + tx]]), 1)
    PTOK[p[0]] = (bx * 256 + tx) // TOPK
    PW[p[0]] = WSEL[bx * 256 + tx]
    POF[bx * 256 + tx] = p[0]


@T.macro
def find_tile(CNT, cbase, groups, NT, TN, info, tx, bid):
    # thread 0: group, m0, n0 of CTA bid (groups in order, n-tiles, m-tiles fastest); info[1] = -1: none
    if tx == 0:
        info[0] = 0
        info[1] = -1
        info[2] = 0
        info[3] = bid
        for g in T.serial(groups):
            if info[1] < 0:
                if info[3] < (CNT[cbase + g] + 127) // 128 * NT:
                    info[0] = g
                    info[2] = info[3] // ((CNT[cbase + g] + 127) // 128) * TN
                    info[1] = info[3] % ((CNT[cbase + g] + 127) // 128) * 128
                else:
                    info[3] = info[3] - (CNT[cbase + g] + 127) // 128 * NT
    T.cuda.cta_sync()


@T.macro
def load_stage(swiglu, sm, A, arow, B0, B1, bstride, g, K, n0, slot, k0, tx):
    # A row r = tx / 8 + 16 i, chunk tx % 8; B row r: gate/up rows n0 + 8 (r / 16) + r % 8 of Wg (r / 8 even)
    # or Wu (odd), else rows n0 + r
    for i in T.unroll(8):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STAGE + (tx // 8 + 16 * i) * 64 + T.bitwise_xor(tx % 8, (tx // 8 + 16 * i) % 8) * 8]),
            A.ptr_to([arow[tx // 8 + 16 * i] + k0 + tx % 8 * 8]), 16)
        if swiglu:
            if (tx // 8 + 16 * i) // 8 % 2 == 1:
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([slot * STAGE + 8192 + (tx // 8 + 16 * i) * 64 + T.bitwise_xor(tx % 8, (tx // 8 + 16 * i) % 8) * 8]),
                    B1.ptr_to([T.Cast("int64", g) * bstride + T.Cast("int64", (n0 + (tx // 8 + 16 * i) // 16 * 8 + tx // 8 % 8) * K
                                                                   + k0 + tx % 8 * 8)]), 16)
            else:
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([slot * STAGE + 8192 + (tx // 8 + 16 * i) * 64 + T.bitwise_xor(tx % 8, (tx // 8 + 16 * i) % 8) * 8]),
                    B0.ptr_to([T.Cast("int64", g) * bstride + T.Cast("int64", (n0 + (tx // 8 + 16 * i) // 16 * 8 + tx // 8 % 8) * K
                                                                   + k0 + tx % 8 * 8)]), 16)
        else:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([slot * STAGE + 8192 + (tx // 8 + 16 * i) * 64 + T.bitwise_xor(tx % 8, (tx // 8 + 16 * i) % 8) * 8]),
                B0.ptr_to([T.Cast("int64", g) * bstride + T.Cast("int64", (n0 + tx // 8 + 16 * i) * K + k0 + tx % 8 * 8)]), 16)


@T.macro
def mainloop(swiglu, sm, A, arow, B0, B1, bstride, g, K, n0, acc, af, bfr, tx):
    for v in T.unroll(128):
        acc[v] = T.float32(0)
    for s in T.unroll(2):
        if s < K // 64:
            load_stage(swiglu, sm, A, arow, B0, B1, bstride, g, K, n0, s, s * 64, tx)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(K // 64):
        T.ptx.cp.async_.wait_group(1)
        T.cuda.cta_sync()
        if kt + 2 < K // 64:
            load_stage(swiglu, sm, A, arow, B0, B1, bstride, g, K, n0, (kt + 2) % 3, (kt + 2) * 64, tx)
        T.ptx.cp.async_.commit_group()
        for ks in T.unroll(4):
            for mt in T.unroll(4):       # A rows wm + 16 mt + lane % 16, chunk 2 ks + lane / 16
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                    sm.ptr_to([kt % 3 * STAGE + (tx // 64 * 64 + mt * 16 + tx % 16) * 64
                               + T.bitwise_xor(ks * 2 + tx % 32 // 16, tx % 8) * 8]))
            for np_ in T.unroll(4):      # B rows wn + 16 np + 8 (lane / 16) + lane % 8, chunk 2 ks + lane / 8 % 2
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    bfr[np_ * 4], bfr[np_ * 4 + 1], bfr[np_ * 4 + 2], bfr[np_ * 4 + 3],
                    sm.ptr_to([kt % 3 * STAGE + 8192 + (tx // 32 % 2 * 64 + np_ * 16 + tx % 32 // 16 * 8 + tx % 8) * 64
                               + T.bitwise_xor(ks * 2 + tx % 32 // 8 % 2, tx % 8) * 8]))
            for mt in T.unroll(4):
                for nt in T.unroll(8):
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acc[(mt * 8 + nt) * 4], acc[(mt * 8 + nt) * 4 + 1], acc[(mt * 8 + nt) * 4 + 2], acc[(mt * 8 + nt) * 4 + 3],
                        af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                        bfr[nt // 2 * 4 + nt % 2 * 2], bfr[nt // 2 * 4 + nt % 2 * 2 + 1],
                        acc[(mt * 8 + nt) * 4], acc[(mt * 8 + nt) * 4 + 1], acc[(mt * 8 + nt) * 4 + 2], acc[(mt * 8 + nt) * 4 + 3])
    T.ptx.cp.async_.wait_group(0)


@T.macro
def swiglu_epilogue(acc, outv, H, N, row0, rows, n0, tx):
    # row wm + 16 mt + lane / 4 + 8 h; columns n0 + wn / 2 + 8 j + 2 (lane % 4) + p: gate acc[mt][2j], up acc[mt][2j + 1]
    for mt in T.unroll(4):
        for h in T.unroll(2):
            if tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h < rows:
                for j in T.unroll(4):
                    for p in T.unroll(2):
                        outv[p] = T.Cast("bfloat16", acc[(mt * 8 + 2 * j) * 4 + 2 * h + p]
                                         / (T.float32(1) + T.call_pure_extern("float32", "__expf",
                                                                              T.float32(0) - acc[(mt * 8 + 2 * j) * 4 + 2 * h + p]))
                                         * acc[(mt * 8 + 2 * j + 1) * 4 + 2 * h + p])
                    for p in T.vectorized(2):
                        H[(row0 + tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h) * N
                          + n0 + tx // 32 % 2 * 32 + 8 * j + tx % 4 * 2 + p] = outv[p]


@T.prim_func
def gate_up_routed(x_ptr: T.handle, ptok_ptr: T.handle, wg_ptr: T.handle, wu_ptr: T.handle, count_ptr: T.handle,
                   off_ptr: T.handle, h_ptr: T.handle):
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    PTOK = T.match_buffer(ptok_ptr, (PAIRS,), "int32")
    WG = T.match_buffer(wg_ptr, (T.int64(EXPERTS * INTER * HIDDEN),), "bfloat16")
    WU = T.match_buffer(wu_ptr, (T.int64(EXPERTS * INTER * HIDDEN),), "bfloat16")
    COUNT = T.match_buffer(count_ptr, (EXPERTS,), "int32")
    OFF = T.match_buffer(off_ptr, (EXPERTS + 1,), "int32")
    H = T.match_buffer(h_ptr, (PAIRS * INTER,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([(PAIRS // 128 + EXPERTS) * (INTER // 64)])
    tx = T.thread_id([128])
    sm = T.alloc_buffer((3 * STAGE,), "bfloat16", scope="shared.dyn", align=1024)
    info = T.alloc_buffer((4,), "int32", scope="shared")
    arow = T.alloc_buffer((128,), "int32", scope="shared")
    acc = T.alloc_buffer((128,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((16,), "uint32", scope="local")
    outv = T.alloc_buffer((2,), "bfloat16", scope="local")
    find_tile(COUNT, 0, EXPERTS, INTER // 64, 64, info, tx, bx)
    if info[1] >= 0:
        arow[tx] = PTOK[OFF[info[0]] + info[1] + T.min(tx, T.min(128, COUNT[info[0]] - info[1]) - 1)] * HIDDEN
        T.cuda.cta_sync()
        mainloop(True, sm, X, arow, WG, WU, T.int64(INTER * HIDDEN), info[0], HIDDEN, info[2], acc, af, bfr, tx)
        swiglu_epilogue(acc, outv, H, INTER, OFF[info[0]] + info[1], T.min(128, COUNT[info[0]] - info[1]), info[2], tx)


@T.prim_func
def gate_up_shared(x_ptr: T.handle, wg_ptr: T.handle, wu_ptr: T.handle, cnt2_ptr: T.handle, hs_ptr: T.handle):
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    WG = T.match_buffer(wg_ptr, (SHARED * HIDDEN,), "bfloat16")
    WU = T.match_buffer(wu_ptr, (SHARED * HIDDEN,), "bfloat16")
    CNT2 = T.match_buffer(cnt2_ptr, (2,), "int32")
    HS = T.match_buffer(hs_ptr, (TOKENS * SHARED,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS // 128 * (SHARED // 64)])
    tx = T.thread_id([128])
    sm = T.alloc_buffer((3 * STAGE,), "bfloat16", scope="shared.dyn", align=1024)
    info = T.alloc_buffer((4,), "int32", scope="shared")
    arow = T.alloc_buffer((128,), "int32", scope="shared")
    acc = T.alloc_buffer((128,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((16,), "uint32", scope="local")
    outv = T.alloc_buffer((2,), "bfloat16", scope="local")
    find_tile(CNT2, 0, 1, SHARED // 64, 64, info, tx, bx)
    if info[1] >= 0:
        arow[tx] = (CNT2[1] + info[1] + T.min(tx, T.min(128, CNT2[0] - info[1]) - 1)) * HIDDEN
        T.cuda.cta_sync()
        mainloop(True, sm, X, arow, WG, WU, T.int64(0), info[0], HIDDEN, info[2], acc, af, bfr, tx)
        swiglu_epilogue(acc, outv, HS, SHARED, CNT2[1] + info[1], T.min(128, CNT2[0] - info[1]), info[2], tx)


@T.prim_func
def down_routed(h_ptr: T.handle, wd_ptr: T.handle, count_ptr: T.handle, off_ptr: T.handle, pw_ptr: T.handle,
                y_ptr: T.handle):
    H = T.match_buffer(h_ptr, (PAIRS * INTER,), "bfloat16")
    WD = T.match_buffer(wd_ptr, (T.int64(EXPERTS * HIDDEN * INTER),), "bfloat16")
    COUNT = T.match_buffer(count_ptr, (EXPERTS,), "int32")
    OFF = T.match_buffer(off_ptr, (EXPERTS + 1,), "int32")
    PW = T.match_buffer(pw_ptr, (PAIRS,), "float32")
    Y = T.match_buffer(y_ptr, (PAIRS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([(PAIRS // 128 + EXPERTS) * (HIDDEN // 128)])
    tx = T.thread_id([128])
    sm = T.alloc_buffer((3 * STAGE,), "bfloat16", scope="shared.dyn", align=1024)
    info = T.alloc_buffer((4,), "int32", scope="shared")
    arow = T.alloc_buffer((128,), "int32", scope="shared")
    acc = T.alloc_buffer((128,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((16,), "uint32", scope="local")
    outv = T.alloc_buffer((2,), "bfloat16", scope="local")
    sc = T.alloc_buffer((1,), "float32", scope="local")
    find_tile(COUNT, 0, EXPERTS, HIDDEN // 128, 128, info, tx, bx)
    if info[1] >= 0:
        arow[tx] = (OFF[info[0]] + info[1] + T.min(tx, T.min(128, COUNT[info[0]] - info[1]) - 1)) * INTER
        T.cuda.cta_sync()
        mainloop(False, sm, H, arow, WD, WD, T.int64(HIDDEN * INTER), info[0], INTER, info[2], acc, af, bfr, tx)
        for mt in T.unroll(4):
            for h in T.unroll(2):
                if tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h < T.min(128, COUNT[info[0]] - info[1]):
                    sc[0] = PW[OFF[info[0]] + info[1] + tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h]
                    for nt in T.unroll(8):
                        for p in T.unroll(2):
                            outv[p] = T.Cast("bfloat16", acc[(mt * 8 + nt) * 4 + 2 * h + p] * sc[0])
                        for p in T.vectorized(2):
                            Y[(OFF[info[0]] + info[1] + tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h) * HIDDEN
                              + info[2] + tx // 32 % 2 * 64 + 8 * nt + tx % 4 * 2 + p] = outv[p]


@T.prim_func
def down_shared(hs_ptr: T.handle, wd_ptr: T.handle, cnt2_ptr: T.handle, ys_ptr: T.handle):
    HS = T.match_buffer(hs_ptr, (TOKENS * SHARED,), "bfloat16")
    WD = T.match_buffer(wd_ptr, (HIDDEN * SHARED,), "bfloat16")
    CNT2 = T.match_buffer(cnt2_ptr, (2,), "int32")
    YS = T.match_buffer(ys_ptr, (TOKENS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS // 128 * (HIDDEN // 128)])
    tx = T.thread_id([128])
    sm = T.alloc_buffer((3 * STAGE,), "bfloat16", scope="shared.dyn", align=1024)
    info = T.alloc_buffer((4,), "int32", scope="shared")
    arow = T.alloc_buffer((128,), "int32", scope="shared")
    acc = T.alloc_buffer((128,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((16,), "uint32", scope="local")
    find_tile(CNT2, 0, 1, HIDDEN // 128, 128, info, tx, bx)
    if info[1] >= 0:
        arow[tx] = (CNT2[1] + info[1] + T.min(tx, T.min(128, CNT2[0] - info[1]) - 1)) * SHARED
        T.cuda.cta_sync()
        mainloop(False, sm, HS, arow, WD, WD, T.int64(0), info[0], SHARED, info[2], acc, af, bfr, tx)
        for mt in T.unroll(4):
            for h in T.unroll(2):
                if tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h < T.min(128, CNT2[0] - info[1]):
                    for nt in T.unroll(8):
                        for p in T.vectorized(2):
                            YS[(CNT2[1] + info[1] + tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h) * HIDDEN
                               + info[2] + tx // 32 % 2 * 64 + 8 * nt + tx % 4 * 2 + p] = acc[(mt * 8 + nt) * 4 + 2 * h + p]


@T.prim_func
def combine(ys_ptr: T.handle, y_ptr: T.handle, pof_ptr: T.handle, out_ptr: T.handle):
    YS = T.match_buffer(ys_ptr, (TOKENS * HIDDEN,), "float32")
    Y = T.match_buffer(y_ptr, (PAIRS * HIDDEN,), "bfloat16")
    POF = T.match_buffer(pof_ptr, (PAIRS,), "int32")
    OUT = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS * (HIDDEN // 8) // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((8,), "float32", scope="local")
    v = T.alloc_buffer((8,), "bfloat16", scope="local")
    o = T.alloc_buffer((8,), "bfloat16", scope="local")
    for j in T.vectorized(8):
        s[j] = YS[(bx * 256 + tx) * 8 + j]
    for k in T.serial(TOPK):
        for j in T.vectorized(8):
            v[j] = Y[POF[(bx * 256 + tx) // (HIDDEN // 8) * TOPK + k] * HIDDEN + (bx * 256 + tx) % (HIDDEN // 8) * 8 + j]
        for j in T.unroll(8):
            s[j] = s[j] + T.Cast("float32", v[j])
    for j in T.unroll(8):
        o[j] = T.Cast("bfloat16", s[j])
    for j in T.vectorized(8):
        OUT[(bx * 256 + tx) * 8 + j] = o[j]


MKB_PLAN = """/* mkb:plan
scratch sel int32[batch_size * seq_len * top_k]
scratch wsel fp32[batch_size * seq_len * top_k]
scratch count int32[num_experts] zeroed
scratch cursor int32[num_experts] zeroed
scratch off int32[num_experts + 1]
scratch cnt2 int32[2]
scratch pair_token int32[batch_size * seq_len * top_k]
scratch pair_w fp32[batch_size * seq_len * top_k]
scratch pair_of int32[batch_size * seq_len * top_k]
scratch h bf16[batch_size * seq_len * top_k * intermediate_size]
scratch hs bf16[batch_size * seq_len * shared_intermediate_size]
scratch y bf16[batch_size * seq_len * top_k * hidden_size]
scratch ys fp32[batch_size * seq_len * hidden_size]
launch router_logits grid(batch_size * seq_len / 32) block(256) args(hidden_states, gate_weight, router_logits)
launch route grid(batch_size * seq_len / 8) block(256)
  args(router_logits, e_score_correction_bias, sel, wsel, count, f32(norm_min))
launch offsets grid(1) block(32) args(count, off, cnt2)
launch fill_pairs grid(batch_size * seq_len * top_k / 256) block(256) args(sel, wsel, off, cursor, pair_token, pair_w, pair_of)
launch gate_up_routed grid((batch_size * seq_len * top_k / 128 + num_experts) * (intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, pair_token, expert_gate_proj, expert_up_proj, count, off, h)
launch gate_up_shared grid(batch_size * seq_len / 128 * (shared_intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, shared_gate_proj, shared_up_proj, cnt2, hs)
launch down_routed grid((batch_size * seq_len * top_k / 128 + num_experts) * (hidden_size / 128)) block(128) shared(98304)
  args(h, expert_down_proj, count, off, pair_w, y)
launch down_shared grid(batch_size * seq_len / 128 * (hidden_size / 128)) block(128) shared(98304)
  args(hs, shared_down_proj, cnt2, ys)
launch combine grid(batch_size * seq_len * (hidden_size / 8) / 256) block(256) args(ys, y, pair_of, output)
*/"""
