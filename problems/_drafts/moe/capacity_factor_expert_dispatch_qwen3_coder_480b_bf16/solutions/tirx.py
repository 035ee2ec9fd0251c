"""Capacity-factor expert dispatch (Qwen3-Coder-480B experts), a TIRx port of solutions/cuda.cu: the same four
launches, GEMM engine and rounding points; only the admitted rows are multiplied, never the padding.
  1. admit: a CTA of 1024 per expert scans the tokens in ascending order (warp inclusive scans with shuffles,
     then a scan of the 32 warp sums); the first `capacity` that selected the expert are admitted: adm_tok /
     adm_w (the bf16 routing weight as fp32) at slot e * cap + rank, slot[t, k] = that slot or -1 (dropped).
  2. gate_up: one grouped GEMM computes gate and up together (64 gate + 64 up columns interleaved by 8 in
     the B tile, A rows gathered from hidden_states through adm_tok) and writes h = bf16(g / (1 + __expf(-g))
     * u), as cuda.cu (one rounding).
  3. down: the grouped down GEMM of the admitted rows, y = bf16(acc * adm_w).
  4. combine: per token and 8 columns, its admitted rows summed in fp32 (slot order), rounded once.
GEMM engine (a T.macro): 128 x 128 tiles per 128-thread CTA (4 warps of 64 x 64, mma.sync m16n8k16 bf16 ->
fp32), K steps of 64 in a 3-stage cp.async ring; A tiles 128 rows x 128 B, B tiles 64 k-rows x 256 B (the
[expert, in, out] weights are k-rows of N-contiguous data), 16-byte chunk c of row r at c ^ (r % 8); A
fragments by ldmatrix.x4, B fragments by ldmatrix.x4.trans. CTAs run expert by expert, n-tile by n-tile,
m-tile fastest (thread 0 finds its tile; a CTA past the last tile exits). The weight tensors have 2.5e9
elements: int64 extents and int64 indices."""
from tvm.script import tirx as T

TOKENS, HIDDEN, INTER, EXPERTS, TOPK, CAP = 8192, 6144, 2560, 160, 8, 512
STAGE = 16384                       # bf16 elements per stage: A 128 x 64, B 64 x 128
assert HIDDEN % 128 == 0 and INTER % 64 == 0 and HIDDEN % 64 == 0 and CAP % 128 == 0


@T.prim_func
def admit(sel_ptr: T.handle, rw_ptr: T.handle, count_ptr: T.handle, atok_ptr: T.handle, aw_ptr: T.handle,
          slot_ptr: T.handle):
    SEL = T.match_buffer(sel_ptr, (TOKENS * TOPK,), "int64")
    RW = T.match_buffer(rw_ptr, (TOKENS * TOPK,), "bfloat16")
    COUNT = T.match_buffer(count_ptr, (EXPERTS,), "int32")
    ATOK = T.match_buffer(atok_ptr, (EXPERTS * CAP,), "int32")
    AW = T.match_buffer(aw_ptr, (EXPERTS * CAP,), "float32")
    SLOT = T.match_buffer(slot_ptr, (TOKENS * TOPK,), "int32")
    T.device_entry()
    e = T.cta_id([EXPERTS])
    tx = T.thread_id([1024])
    wsum = T.alloc_buffer((32,), "int32", scope="shared")
    base = T.alloc_buffer((1,), "int32", scope="shared")
    sv = T.alloc_buffer((TOPK,), "int64", scope="local")
    hit = T.alloc_buffer((1,), "int32", scope="local")
    kk = T.alloc_buffer((1,), "int32", scope="local")
    incl = T.alloc_buffer((1,), "int32", scope="local")
    nb = T.alloc_buffer((1,), "int32", scope="local")
    ws = T.alloc_buffer((1,), "int32", scope="local")
    rank = T.alloc_buffer((1,), "int32", scope="local")
    if tx == 0:
        base[0] = 0
    T.cuda.cta_sync()
    for t0 in T.serial((TOKENS + 1023) // 1024):
        hit[0] = 0
        kk[0] = 0
        if t0 * 1024 + tx < TOKENS:
            for k2 in T.unroll(TOPK // 2):         # 16-byte loads (two int64 each)
                for k in T.vectorized(2):
                    sv[k2 * 2 + k] = SEL[(t0 * 1024 + tx) * TOPK + k2 * 2 + k]
            for k in T.unroll(TOPK):
                if sv[k] == T.Cast("int64", e):
                    hit[0] = 1
                    kk[0] = k
        incl[0] = hit[0]                 # inclusive scan over the warp
        for i in T.unroll(5):
            nb[0] = T.tvm_warp_shuffle(T.uint32(0xFFFFFFFF), incl[0], tx % 32 - (1 << i), 32, 32)
            if tx % 32 >= (1 << i):
                incl[0] = incl[0] + nb[0]
        if tx % 32 == 31:
            wsum[tx // 32] = incl[0]
        T.cuda.cta_sync()
        if tx < 32:                      # scan of the 32 warp sums
            ws[0] = wsum[tx]
            for i in T.unroll(5):
                nb[0] = T.tvm_warp_shuffle(T.uint32(0xFFFFFFFF), ws[0], tx - (1 << i), 32, 32)
                if tx >= (1 << i):
                    ws[0] = ws[0] + nb[0]
            wsum[tx] = ws[0]
        T.cuda.cta_sync()
        rank[0] = base[0] + incl[0] - hit[0]
        if tx >= 32:
            rank[0] = rank[0] + wsum[tx // 32 - 1]
        if hit[0] == 1:
            if rank[0] < CAP:
                ATOK[e * CAP + rank[0]] = t0 * 1024 + tx
                AW[e * CAP + rank[0]] = T.Cast("float32", RW[(t0 * 1024 + tx) * TOPK + kk[0]])
                SLOT[(t0 * 1024 + tx) * TOPK + kk[0]] = e * CAP + rank[0]
            else:
                SLOT[(t0 * 1024 + tx) * TOPK + kk[0]] = -1
        T.cuda.cta_sync()
        if tx == 0:
            base[0] = base[0] + wsum[31]
        T.cuda.cta_sync()
    if tx == 0:
        COUNT[e] = T.min(base[0], CAP)


@T.macro
def find_tile(COUNT, NT, TN, info, tx, bid):
    # thread 0: expert, m0 and n0 of CTA bid (experts in order, n-tiles, m-tiles fastest); info[1] = -1: none
    if tx == 0:
        info[0] = 0
        info[1] = -1
        info[2] = 0
        info[3] = bid
        for ex in T.serial(EXPERTS):
            if info[1] < 0:
                if info[3] < (COUNT[ex] + 127) // 128 * NT:
                    info[0] = ex
                    info[2] = info[3] // ((COUNT[ex] + 127) // 128) * TN
                    info[1] = info[3] % ((COUNT[ex] + 127) // 128) * 128
                else:
                    info[3] = info[3] - (COUNT[ex] + 127) // 128 * NT
    T.cuda.cta_sync()


@T.macro
def load_stage(swiglu, sm, A, arow, B0, B1, e, N, K, n0, slot, k0, tx):
    # A row r (r = tx / 8 + 16 i), chunk tx % 8; B k-row tx / 16 + 8 i, chunk c = tx % 16: for gate/up the
    # 8 columns (c / 2) * 8 of gate (c even) or up (c odd), else columns c * 8
    for i in T.unroll(8):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STAGE + (tx // 8 + 16 * i) * 64 + T.bitwise_xor(tx % 8, (tx // 8 + 16 * i) % 8) * 8]),
            A.ptr_to([arow[tx // 8 + 16 * i] + k0 + tx % 8 * 8]), 16)
        if swiglu:
            if tx % 2 == 1:
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([slot * STAGE + 8192 + (tx // 16 + 8 * i) * 128 + T.bitwise_xor(tx % 16, (tx // 16 + 8 * i) % 8) * 8]),
                    B1.ptr_to([T.Cast("int64", e) * (K * N) + T.Cast("int64", (k0 + tx // 16 + 8 * i) * N + n0 + tx % 16 // 2 * 8)]), 16)
            else:
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([slot * STAGE + 8192 + (tx // 16 + 8 * i) * 128 + T.bitwise_xor(tx % 16, (tx // 16 + 8 * i) % 8) * 8]),
                    B0.ptr_to([T.Cast("int64", e) * (K * N) + T.Cast("int64", (k0 + tx // 16 + 8 * i) * N + n0 + tx % 16 // 2 * 8)]), 16)
        else:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([slot * STAGE + 8192 + (tx // 16 + 8 * i) * 128 + T.bitwise_xor(tx % 16, (tx // 16 + 8 * i) % 8) * 8]),
                B0.ptr_to([T.Cast("int64", e) * (K * N) + T.Cast("int64", (k0 + tx // 16 + 8 * i) * N + n0 + tx % 16 * 8)]), 16)


@T.macro
def mainloop(swiglu, sm, A, arow, B0, B1, e, N, K, n0, acc, af, bfr, tx):
    for v in T.unroll(128):
        acc[v] = T.float32(0)
    for s in T.unroll(2):
        if s < K // 64:
            load_stage(swiglu, sm, A, arow, B0, B1, e, N, K, n0, s, s * 64, tx)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(K // 64):
        T.ptx.cp.async_.wait_group(1)
        T.cuda.cta_sync()
        if kt + 2 < K // 64:
            load_stage(swiglu, sm, A, arow, B0, B1, e, N, K, n0, (kt + 2) % 3, (kt + 2) * 64, tx)
        T.ptx.cp.async_.commit_group()
        for ks in T.unroll(4):
            # A: rows wm + 16 mt + lane % 16, chunk 2 ks + lane / 16
            for mt in T.unroll(4):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                    sm.ptr_to([kt % 3 * STAGE + (tx // 64 * 64 + mt * 16 + tx % 16) * 64
                               + T.bitwise_xor(ks * 2 + tx % 32 // 16, tx % 8) * 8]))
            # B (transposed): k-rows 16 ks + 8 (mi % 2) + lane % 8, chunk wn / 8 + 2 np + mi / 2, mi = lane / 8
            for np_ in T.unroll(4):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                    bfr[np_ * 4], bfr[np_ * 4 + 1], bfr[np_ * 4 + 2], bfr[np_ * 4 + 3],
                    sm.ptr_to([kt % 3 * STAGE + 8192 + (ks * 16 + tx % 32 // 8 % 2 * 8 + tx % 8) * 128
                               + T.bitwise_xor(tx // 32 % 2 * 8 + np_ * 2 + tx % 32 // 16, tx % 8) * 8]))
            for mt in T.unroll(4):
                for nt in T.unroll(8):
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acc[(mt * 8 + nt) * 4], acc[(mt * 8 + nt) * 4 + 1], acc[(mt * 8 + nt) * 4 + 2], acc[(mt * 8 + nt) * 4 + 3],
                        af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                        bfr[nt // 2 * 4 + nt % 2 * 2], bfr[nt // 2 * 4 + nt % 2 * 2 + 1],
                        acc[(mt * 8 + nt) * 4], acc[(mt * 8 + nt) * 4 + 1], acc[(mt * 8 + nt) * 4 + 2], acc[(mt * 8 + nt) * 4 + 3])
    T.ptx.cp.async_.wait_group(0)


@T.prim_func
def gate_up(x_ptr: T.handle, atok_ptr: T.handle, wg_ptr: T.handle, wu_ptr: T.handle, count_ptr: T.handle,
            h_ptr: T.handle):
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    ATOK = T.match_buffer(atok_ptr, (EXPERTS * CAP,), "int32")
    WG = T.match_buffer(wg_ptr, (T.int64(EXPERTS * HIDDEN * INTER),), "bfloat16")
    WU = T.match_buffer(wu_ptr, (T.int64(EXPERTS * HIDDEN * INTER),), "bfloat16")
    COUNT = T.match_buffer(count_ptr, (EXPERTS,), "int32")
    H = T.match_buffer(h_ptr, (EXPERTS * CAP * INTER,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([EXPERTS * CAP // 128 * (INTER // 64)])
    tx = T.thread_id([128])
    sm = T.alloc_buffer((3 * STAGE,), "bfloat16", scope="shared.dyn", align=1024)
    info = T.alloc_buffer((4,), "int32", scope="shared")
    arow = T.alloc_buffer((128,), "int32", scope="shared")
    acc = T.alloc_buffer((128,), "float32", scope="local")       # [mt][nt][v]
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((16,), "uint32", scope="local")
    outv = T.alloc_buffer((2,), "bfloat16", scope="local")
    find_tile(COUNT, INTER // 64, 64, info, tx, bx)
    if info[1] >= 0:
        arow[tx] = ATOK[info[0] * CAP + info[1] + T.min(tx, T.min(128, COUNT[info[0]] - info[1]) - 1)] * HIDDEN
        T.cuda.cta_sync()
        mainloop(True, sm, X, arow, WG, WU, info[0], INTER, HIDDEN, info[2], acc, af, bfr, tx)
        # row wm + 16 mt + lane / 4 + 8 h; column n0 + wn / 2 + 8 j + 2 (lane % 4) + p: gate acc[mt][2j], up acc[mt][2j + 1]
        for mt in T.unroll(4):
            for h in T.unroll(2):
                if tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h < T.min(128, COUNT[info[0]] - info[1]):
                    for j in T.unroll(4):
                        for p in T.unroll(2):
                            outv[p] = T.Cast("bfloat16", acc[(mt * 8 + 2 * j) * 4 + 2 * h + p]
                                             / (T.float32(1) + T.call_pure_extern("float32", "__expf",
                                                                                  T.float32(0) - acc[(mt * 8 + 2 * j) * 4 + 2 * h + p]))
                                             * acc[(mt * 8 + 2 * j + 1) * 4 + 2 * h + p])
                        for p in T.vectorized(2):
                            H[(info[0] * CAP + info[1] + tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h) * INTER
                              + info[2] + tx // 32 % 2 * 32 + 8 * j + tx % 4 * 2 + p] = outv[p]


@T.prim_func
def down(h_ptr: T.handle, wd_ptr: T.handle, count_ptr: T.handle, aw_ptr: T.handle, y_ptr: T.handle):
    H = T.match_buffer(h_ptr, (EXPERTS * CAP * INTER,), "bfloat16")
    WD = T.match_buffer(wd_ptr, (T.int64(EXPERTS * INTER * HIDDEN),), "bfloat16")
    COUNT = T.match_buffer(count_ptr, (EXPERTS,), "int32")
    AW = T.match_buffer(aw_ptr, (EXPERTS * CAP,), "float32")
    Y = T.match_buffer(y_ptr, (EXPERTS * CAP * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([EXPERTS * CAP // 128 * (HIDDEN // 128)])
    tx = T.thread_id([128])
    sm = T.alloc_buffer((3 * STAGE,), "bfloat16", scope="shared.dyn", align=1024)
    info = T.alloc_buffer((4,), "int32", scope="shared")
    arow = T.alloc_buffer((128,), "int32", scope="shared")
    acc = T.alloc_buffer((128,), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bfr = T.alloc_buffer((16,), "uint32", scope="local")
    outv = T.alloc_buffer((2,), "bfloat16", scope="local")
    sc = T.alloc_buffer((1,), "float32", scope="local")
    find_tile(COUNT, HIDDEN // 128, 128, info, tx, bx)
    if info[1] >= 0:
        arow[tx] = (info[0] * CAP + info[1] + T.min(tx, T.min(128, COUNT[info[0]] - info[1]) - 1)) * INTER
        T.cuda.cta_sync()
        mainloop(False, sm, H, arow, WD, WD, info[0], HIDDEN, INTER, info[2], acc, af, bfr, tx)
        for mt in T.unroll(4):
            for h in T.unroll(2):
                if tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h < T.min(128, COUNT[info[0]] - info[1]):
                    sc[0] = AW[info[0] * CAP + info[1] + tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h]
                    for nt in T.unroll(8):
                        for p in T.unroll(2):
                            outv[p] = T.Cast("bfloat16", acc[(mt * 8 + nt) * 4 + 2 * h + p] * sc[0])
                        for p in T.vectorized(2):
                            Y[(info[0] * CAP + info[1] + tx // 64 * 64 + mt * 16 + tx % 32 // 4 + 8 * h) * HIDDEN
                              + info[2] + tx // 32 % 2 * 64 + 8 * nt + tx % 4 * 2 + p] = outv[p]


@T.prim_func
def combine(y_ptr: T.handle, slot_ptr: T.handle, out_ptr: T.handle):
    Y = T.match_buffer(y_ptr, (EXPERTS * CAP * HIDDEN,), "bfloat16")
    SLOT = T.match_buffer(slot_ptr, (TOKENS * TOPK,), "int32")
    OUT = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS * (HIDDEN // 8) // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((8,), "float32", scope="local")
    v = T.alloc_buffer((8,), "bfloat16", scope="local")
    o = T.alloc_buffer((8,), "bfloat16", scope="local")
    p = T.alloc_buffer((1,), "int32", scope="local")
    for j in T.unroll(8):
        s[j] = T.float32(0)
    for k in T.serial(TOPK):
        p[0] = SLOT[(bx * 256 + tx) // (HIDDEN // 8) * TOPK + k]
        if p[0] >= 0:
            for j in T.vectorized(8):
                v[j] = Y[p[0] * HIDDEN + (bx * 256 + tx) % (HIDDEN // 8) * 8 + j]
            for j in T.unroll(8):
                s[j] = s[j] + T.Cast("float32", v[j])
    for j in T.unroll(8):
        o[j] = T.Cast("bfloat16", s[j])
    for j in T.vectorized(8):
        OUT[(bx * 256 + tx) * 8 + j] = o[j]


MKB_PLAN = """/* mkb:plan
scratch count int32[num_experts]
scratch adm_tok int32[num_experts * capacity]
scratch adm_w fp32[num_experts * capacity]
scratch slot int32[num_tokens * num_experts_per_tok]
scratch h bf16[num_experts * capacity * moe_intermediate_size]
scratch y bf16[num_experts * capacity * hidden_size]
launch admit grid(num_experts) block(1024) args(selected_experts, routing_weights, count, adm_tok, adm_w, slot)
launch gate_up grid(num_experts * capacity / 128 * (moe_intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, adm_tok, expert_gate_weights, expert_up_weights, count, h)
launch down grid(num_experts * capacity / 128 * (hidden_size / 128)) block(128) shared(98304)
  args(h, expert_down_weights, count, adm_w, y)
launch combine grid(num_tokens * (hidden_size / 8) / 256) block(256) args(y, slot, output)
*/"""
