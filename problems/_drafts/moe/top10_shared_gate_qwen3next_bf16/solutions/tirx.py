"""Qwen3-Next sparse MoE block (top-10 of 512 experts, gated shared expert), a TIRx port of solutions/cuda.cu:
the same eight launches, tiles, staging and rounding points. cuda.cu's WMMA 16 x 16 x 16 fragments become
mma.sync m16n8k16 (two per WMMA tile) fed by ldmatrix.x4 from the same padded shared tiles (TIRx has no
WMMA); the accumulation order inside a 16-wide k step is the hardware's in both.
  1. router_fused: 64 tokens x 512 experts per CTA (two halves of 256), K steps of 64 prefetched into
     registers, fp32 logits in shared memory; router_logits = bf16(logits); then a warp per token: softmax
     max and sum by butterflies, top-10 by butterfly arg-max (ties to the lower expert), weights
     bf16(p / sum of the 10 p); per-expert counts.
  2. expert_offsets, 3. place_rows: every expert's rows laid out expert after expert; per token, the rows of
     its experts in ascending expert order (pos_sorted).
  4. expert_swiglu / shared_swiglu: per 128-row tile of one expert (the shared expert: one "expert" owning
     every token) x 64 columns, gate and up products (8 warps of 32 x 32) and the SwiGLU in registers:
     h = bf16(bf16(g * bf16(sigmoid(g))) * u) with g, u rounded to bf16.
  5. expert_down: o = h @ D_e^T, rows bf16(bf16(o) * w).
  6. shared_gate_value: bf16(sigmoid(bf16(x . gate))), a warp per token.
  8. shared_down_combine: the shared down product; in its epilogue so = bf16(gv * bf16(so)), the token's
     routed rows added in ascending expert order with a bf16 rounding per add, then bf16(acc + so).
GEMM tiles: 128 x 64 per 256-thread CTA, K slices of 32 staged through registers into shared rows of 40 bf16
(A) and 64-row B tiles (one per weight), output staged through shared fp32 rows of 68 for 16-byte stores.
Shared tiles are uint32 buffers (bf16 pairs); the bf16 tensors they load are declared uint32 in the
router and GEMM kernels (the same bytes)."""
from tvm.script import tirx as T

TOKENS, HIDDEN, EXPERTS, TOPK, INTER, SINTER = 39232, 2048, 512, 10, 512, 512
ROWS = TOKENS * TOPK
RTILES = (ROWS + 127) // 128 + EXPERTS          # row tiles of the routed experts (bound)
STILES = (TOKENS + 127) // 128                  # row tiles of the shared expert
RM, RLDA, RLDL = 64, 36, 516                    # router: tokens per CTA, A/B row stride (words), logits row (floats)
LS0 = (RM + 256) * RLDA                         # word offset of the logits in the router's shared memory
LDSW, LDC = 20, 68                              # GEMM: A/B row stride (words = 40 bf16), C row stride (floats)
SEARCH = EXPERTS.bit_length()
assert HIDDEN % 256 == 0 and INTER % 64 == 0 and HIDDEN % 64 == 0 and TOPK <= 32


@T.macro
def butterfly(v, tmp, op):
    for i in T.unroll(5):
        tmp[0] = T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), v[0], 16 >> i, 32, 32)
        if op == 0:
            v[0] = T.max(v[0], tmp[0])
        elif op == 1:
            v[0] = v[0] + tmp[0]
        else:
            v[0] = T.min(v[0], tmp[0])


@T.prim_func
def router_fused(x_ptr: T.handle, w_ptr: T.handle, rl_ptr: T.handle, sel_ptr: T.handle, rw_ptr: T.handle,
                 counts_ptr: T.handle):
    XW = T.match_buffer(x_ptr, (TOKENS * HIDDEN // 2,), "uint32")
    WW = T.match_buffer(w_ptr, (EXPERTS * HIDDEN // 2,), "uint32")
    RL = T.match_buffer(rl_ptr, (TOKENS * EXPERTS,), "bfloat16")
    SEL = T.match_buffer(sel_ptr, (ROWS,), "int32")
    RW = T.match_buffer(rw_ptr, (ROWS,), "bfloat16")
    COUNTS = T.match_buffer(counts_ptr, (EXPERTS,), "int32")
    T.device_entry()
    bx = T.cta_id([(TOKENS + RM - 1) // RM])
    tx = T.thread_id([256])
    smw = T.alloc_buffer((LS0 + RM * RLDL,), "uint32", scope="shared.dyn", align=128)
    ra = T.alloc_buffer((8,), "uint32", scope="local")
    rb = T.alloc_buffer((32,), "uint32", scope="local")
    acc = T.alloc_buffer((64,), "float32", scope="local")      # 16 n8 tiles x 4
    af = T.alloc_buffer((4,), "uint32", scope="local")
    bfr = T.alloc_buffer((4,), "uint32", scope="local")
    lv = T.alloc_buffer((16,), "float32", scope="local")
    p = T.alloc_buffer((TOPK,), "float32", scope="local")
    fm = T.alloc_buffer((1,), "float32", scope="local")
    fs = T.alloc_buffer((1,), "float32", scope="local")
    ft = T.alloc_buffer((1,), "float32", scope="local")
    tf = T.alloc_buffer((1,), "float32", scope="local")
    best = T.alloc_buffer((1,), "float32", scope="local")
    best_e = T.alloc_buffer((1,), "int32", scope="local")
    ie = T.alloc_buffer((1,), "int32", scope="local")
    it = T.alloc_buffer((1,), "int32", scope="local")
    top_sum = T.alloc_buffer((1,), "float32", scope="local")
    my_e = T.alloc_buffer((1,), "int32", scope="local")
    my_p = T.alloc_buffer((1,), "float32", scope="local")
    for half in T.serial(2):
        for v in T.unroll(64):
            acc[v] = T.float32(0)
        # prefetch k0 = 0: A rows tx / 8 + 32 i, B rows tx / 8 + 32 i of this half, chunk tx % 8 (4 words)
        for i in T.unroll(2):
            if bx * RM + tx // 8 + 32 * i < TOKENS:
                for w in T.vectorized(4):
                    ra[i * 4 + w] = XW[(bx * RM + tx // 8 + 32 * i) * (HIDDEN // 2) + tx % 8 * 4 + w]
            else:
                for w in T.unroll(4):
                    ra[i * 4 + w] = T.uint32(0)
        for i in T.unroll(8):
            for w in T.vectorized(4):
                rb[i * 4 + w] = WW[(half * 256 + tx // 8 + 32 * i) * (HIDDEN // 2) + tx % 8 * 4 + w]
        for kt in T.serial(HIDDEN // 64):
            T.cuda.cta_sync()
            for i in T.unroll(2):
                for w in T.vectorized(4):
                    smw[(tx // 8 + 32 * i) * RLDA + tx % 8 * 4 + w] = ra[i * 4 + w]
            for i in T.unroll(8):
                for w in T.vectorized(4):
                    smw[RM * RLDA + (tx // 8 + 32 * i) * RLDA + tx % 8 * 4 + w] = rb[i * 4 + w]
            T.cuda.cta_sync()
            if kt + 1 < HIDDEN // 64:
                for i in T.unroll(2):
                    if bx * RM + tx // 8 + 32 * i < TOKENS:
                        for w in T.vectorized(4):
                            ra[i * 4 + w] = XW[(bx * RM + tx // 8 + 32 * i) * (HIDDEN // 2) + (kt + 1) * 32 + tx % 8 * 4 + w]
                for i in T.unroll(8):
                    for w in T.vectorized(4):
                        rb[i * 4 + w] = WW[(half * 256 + tx // 8 + 32 * i) * (HIDDEN // 2) + (kt + 1) * 32 + tx % 8 * 4 + w]
            for kk in T.unroll(4):
                # A: rows 16 (warp % 4) + lane % 16, k 16 kk + 8 (lane / 16)
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[0], af[1], af[2], af[3],
                    smw.ptr_to([(tx // 32 % 4 * 16 + tx % 16) * RLDA + kk * 8 + tx % 32 // 16 * 4]))
                for np_ in T.unroll(8):
                    # B: expert rows 128 (warp / 4) + 16 np + 8 (lane / 16) + lane % 8, k 16 kk + 8 (lane / 8 % 2)
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                        bfr[0], bfr[1], bfr[2], bfr[3],
                        smw.ptr_to([RM * RLDA + (tx // 128 * 128 + np_ * 16 + tx % 32 // 16 * 8 + tx % 8) * RLDA
                                    + kk * 8 + tx % 32 // 8 % 2 * 4]))
                    for h in T.unroll(2):
                        T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                            acc[(np_ * 2 + h) * 4], acc[(np_ * 2 + h) * 4 + 1], acc[(np_ * 2 + h) * 4 + 2], acc[(np_ * 2 + h) * 4 + 3],
                            af[0], af[1], af[2], af[3], bfr[h * 2], bfr[h * 2 + 1],
                            acc[(np_ * 2 + h) * 4], acc[(np_ * 2 + h) * 4 + 1], acc[(np_ * 2 + h) * 4 + 2], acc[(np_ * 2 + h) * 4 + 3])
        # logits: row 16 (warp % 4) + lane / 4 (+ 8), expert 256 half + 128 (warp / 4) + 8 n + 2 (lane % 4) (+ 1)
        for n in T.unroll(16):
            for v in T.unroll(4):
                smw[LS0 + (tx // 32 % 4 * 16 + tx % 32 // 4 + v // 2 * 8) * RLDL + half * 256 + tx // 128 * 128 + n * 8
                    + tx % 4 * 2 + v % 2] = T.reinterpret("uint32", acc[n * 4 + v])
    T.cuda.cta_sync()
    for it0 in T.serial(RM * EXPERTS // 256):
        if bx * RM + it0 // 2 < TOKENS:
            RL[(bx * RM + it0 // 2) * EXPERTS + it0 % 2 * 256 + tx] = T.Cast(
                "bfloat16", T.reinterpret("float32", smw[LS0 + it0 // 2 * RLDL + it0 % 2 * 256 + tx]))
    for rr in T.serial(RM // 8):
        if bx * RM + tx // 32 * (RM // 8) + rr < TOKENS:
            fm[0] = T.float32(0) - T.infinity("float32")
            for j in T.unroll(16):
                lv[j] = T.reinterpret("float32", smw[LS0 + (tx // 32 * (RM // 8) + rr) * RLDL + tx % 32 + 32 * j])
                fm[0] = T.max(fm[0], lv[j])
            butterfly(fm, tf, 0)
            fs[0] = T.float32(0)
            for j in T.unroll(16):
                fs[0] = fs[0] + T.exp(lv[j] - fm[0])
            butterfly(fs, tf, 1)
            top_sum[0] = T.float32(0)
            my_e[0] = 0
            my_p[0] = T.float32(0)
            for i in T.serial(TOPK):
                best[0] = T.float32(0) - T.infinity("float32")
                best_e[0] = 1 << 20
                for j in T.unroll(16):
                    if lv[j] > best[0]:
                        best[0] = lv[j]
                        best_e[0] = tx % 32 + 32 * j
                ft[0] = best[0]
                butterfly(ft, tf, 0)
                ie[0] = T.Select(best[0] == ft[0], best_e[0], 1 << 20)
                butterfly(ie, it, 2)
                if ie[0] % 32 == tx % 32:
                    lv[ie[0] // 32] = T.float32(0) - T.infinity("float32")
                p[i] = T.exp(ft[0] - fm[0]) / fs[0]
                top_sum[0] = top_sum[0] + p[i]
                if tx % 32 == i:
                    my_e[0] = ie[0]
                    my_p[0] = p[i]
            if tx % 32 < TOPK:
                SEL[(bx * RM + tx // 32 * (RM // 8) + rr) * TOPK + tx % 32] = my_e[0]
                RW[(bx * RM + tx // 32 * (RM // 8) + rr) * TOPK + tx % 32] = T.Cast("bfloat16", my_p[0] / top_sum[0])
                T.evaluate(T.cuda.atomic_add(T.address_of(COUNTS[my_e[0]]), 1))


@T.prim_func
def expert_offsets(seg_ptr: T.handle, toff_ptr: T.handle, dseg_ptr: T.handle, dtile_ptr: T.handle, counts_ptr: T.handle):
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    DSEG = T.match_buffer(dseg_ptr, (2,), "int32")
    DTILE = T.match_buffer(dtile_ptr, (2,), "int32")
    COUNTS = T.match_buffer(counts_ptr, (EXPERTS,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([32])
    rows = T.alloc_buffer((1,), "int32", scope="local")
    tiles = T.alloc_buffer((1,), "int32", scope="local")
    if tx == 0:
        rows[0] = 0
        tiles[0] = 0
        for e in T.serial(EXPERTS):
            SEG[e] = rows[0]
            TOFF[e] = tiles[0]
            rows[0] = rows[0] + COUNTS[e]
            tiles[0] = tiles[0] + (COUNTS[e] + 127) // 128
        SEG[EXPERTS] = rows[0]
        TOFF[EXPERTS] = tiles[0]
        DSEG[0] = 0
        DSEG[1] = TOKENS
        DTILE[0] = 0
        DTILE[1] = STILES


@T.prim_func
def place_rows(rtok_ptr: T.handle, rw_ptr: T.handle, pos_ptr: T.handle, cursor_ptr: T.handle, sel_ptr: T.handle,
               wts_ptr: T.handle, seg_ptr: T.handle):
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    ROWW = T.match_buffer(rw_ptr, (ROWS,), "bfloat16")
    POS = T.match_buffer(pos_ptr, (ROWS,), "int32")
    CURSOR = T.match_buffer(cursor_ptr, (EXPERTS,), "int32")
    SEL = T.match_buffer(sel_ptr, (ROWS,), "int32")
    WTS = T.match_buffer(wts_ptr, (ROWS,), "bfloat16")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx = T.cta_id([(TOKENS + 255) // 256])
    tx = T.thread_id([256])
    ex = T.alloc_buffer((TOPK,), "int32", scope="local")
    slot = T.alloc_buffer((TOPK,), "int32", scope="local")
    tmp = T.alloc_buffer((2,), "int32", scope="local")
    pp = T.alloc_buffer((1,), "int32", scope="local")
    if bx * 256 + tx < TOKENS:
        for j in T.serial(TOPK):
            ex[j] = SEL[(bx * 256 + tx) * TOPK + j]
            slot[j] = j
        for a in T.serial(1, TOPK):            # insertion sort by expert, slots along
            for b in T.serial(a):
                if ex[a - b - 1] > ex[a - b]:
                    tmp[0] = ex[a - b]
                    tmp[1] = slot[a - b]
                    ex[a - b] = ex[a - b - 1]
                    slot[a - b] = slot[a - b - 1]
                    ex[a - b - 1] = tmp[0]
                    slot[a - b - 1] = tmp[1]
        for j in T.serial(TOPK):
            pp[0] = SEG[ex[j]] + T.cuda.atomic_add(T.address_of(CURSOR[ex[j]]), 1)
            RTOK[pp[0]] = bx * 256 + tx
            ROWW[pp[0]] = WTS[(bx * 256 + tx) * TOPK + slot[j]]
            POS[(bx * 256 + tx) * TOPK + j] = pp[0]


@T.macro
def moe_gemm(mode, nb, A, RTOK, gather, W0, W1, SEGB, TOFFB, groups, NOUT, KDIM, sm, ra, rb, acc, af, bfr, lo, hi, asrc,
             tile, n0, tx):
    # C tile (128 rows of one group x 64 columns) of A @ W_g^T; mode 0: gate and up (W0, W1), else one weight.
    # Rows of group g: SEGB[g] .. SEGB[g + 1]; tiles TOFFB[g] ..; A row r: A[RTOK[r]] (gather) or A[r].
    lo[0] = 0
    hi[0] = groups
    for s in T.serial(SEARCH):
        if hi[0] - lo[0] > 1:
            if TOFFB[(lo[0] + hi[0]) // 2] <= tile:
                lo[0] = (lo[0] + hi[0]) // 2
            else:
                hi[0] = (lo[0] + hi[0]) // 2
    for i in T.unroll(2):                       # this thread's A rows: tx / 4 + 64 i (words; -1: none)
        asrc[i] = -1
        if SEGB[lo[0]] + (tile - TOFFB[lo[0]]) * 128 + tx // 4 + 64 * i < SEGB[lo[0] + 1]:
            if gather == 1:
                asrc[i] = RTOK[SEGB[lo[0]] + (tile - TOFFB[lo[0]]) * 128 + tx // 4 + 64 * i] * (KDIM // 2)
            else:
                asrc[i] = (SEGB[lo[0]] + (tile - TOFFB[lo[0]]) * 128 + tx // 4 + 64 * i) * (KDIM // 2)
    for v in T.unroll(32 * nb):
        acc[v] = T.float32(0)
    for i in T.unroll(2):
        if asrc[i] >= 0:
            for w in T.vectorized(4):
                ra[i * 4 + w] = A[asrc[i] + tx % 4 * 4 + w]
        else:
            for w in T.unroll(4):
                ra[i * 4 + w] = T.uint32(0)
    for w in T.vectorized(4):
        rb[w] = W0[(lo[0] * NOUT + n0 + tx // 4) * (KDIM // 2) + tx % 4 * 4 + w]
    if mode == 0:
        for w in T.vectorized(4):
            rb[4 + w] = W1[(lo[0] * NOUT + n0 + tx // 4) * (KDIM // 2) + tx % 4 * 4 + w]
    for kt in T.serial(KDIM // 32):
        T.cuda.cta_sync()
        for i in T.unroll(2):
            for w in T.vectorized(4):
                sm[(tx // 4 + 64 * i) * LDSW + tx % 4 * 4 + w] = ra[i * 4 + w]
        for b in T.unroll(nb):
            for w in T.vectorized(4):
                sm[128 * LDSW + b * 64 * LDSW + tx // 4 * LDSW + tx % 4 * 4 + w] = rb[b * 4 + w]
        T.cuda.cta_sync()
        if kt + 1 < KDIM // 32:
            for i in T.unroll(2):
                if asrc[i] >= 0:
                    for w in T.vectorized(4):
                        ra[i * 4 + w] = A[asrc[i] + (kt + 1) * 16 + tx % 4 * 4 + w]
            for w in T.vectorized(4):
                rb[w] = W0[(lo[0] * NOUT + n0 + tx // 4) * (KDIM // 2) + (kt + 1) * 16 + tx % 4 * 4 + w]
            if mode == 0:
                for w in T.vectorized(4):
                    rb[4 + w] = W1[(lo[0] * NOUT + n0 + tx // 4) * (KDIM // 2) + (kt + 1) * 16 + tx % 4 * 4 + w]
        for kk in T.unroll(2):
            for i in T.unroll(2):               # A rows 32 (warp % 4) + 16 i + lane % 16
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[i * 4], af[i * 4 + 1], af[i * 4 + 2], af[i * 4 + 3],
                    sm.ptr_to([(tx // 32 % 4 * 32 + i * 16 + tx % 16) * LDSW + kk * 8 + tx % 32 // 16 * 4]))
            for b in T.unroll(nb):
                for j in T.unroll(2):           # B rows 32 (warp / 4) + 16 j + 8 (lane / 16) + lane % 8
                    T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                        bfr[0], bfr[1], bfr[2], bfr[3],
                        sm.ptr_to([128 * LDSW + b * 64 * LDSW + (tx // 128 * 32 + j * 16 + tx % 32 // 16 * 8 + tx % 8) * LDSW
                                   + kk * 8 + tx % 32 // 8 % 2 * 4]))
                    for i in T.unroll(2):
                        for h in T.unroll(2):
                            T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                                acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4], acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4 + 1],
                                acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4 + 2], acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4 + 3],
                                af[i * 4], af[i * 4 + 1], af[i * 4 + 2], af[i * 4 + 3], bfr[h * 2], bfr[h * 2 + 1],
                                acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4], acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4 + 1],
                                acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4 + 2], acc[(((b * 2 + i) * 2 + j) * 2 + h) * 4 + 3])


@T.macro
def store_c(sm, acc, tx):
    # acc[(i, j, h)][v] -> C[32 (warp % 4) + 16 i + lane / 4 + 8 (v / 2), 32 (warp / 4) + 16 j + 8 h + 2 (lane % 4) + v % 2]
    T.cuda.cta_sync()
    for i in T.unroll(2):
        for j in T.unroll(2):
            for h in T.unroll(2):
                for v in T.unroll(4):
                    sm[(tx // 32 % 4 * 32 + i * 16 + tx % 32 // 4 + v // 2 * 8) * LDC + tx // 128 * 32 + j * 16 + h * 8
                       + tx % 4 * 2 + v % 2] = T.reinterpret("uint32", acc[((i * 2 + j) * 2 + h) * 4 + v])
    T.cuda.cta_sync()


@T.macro
def swiglu_gemm(H, XW, RTOK, gather, WG, WU, SEGB, TOFFB, groups, tx, bx, by):
    sm = T.alloc_buffer((128 * LDC,), "uint32", scope="shared")
    ra = T.alloc_buffer((8,), "uint32", scope="local")
    rb = T.alloc_buffer((8,), "uint32", scope="local")
    acc = T.alloc_buffer((64,), "float32", scope="local")
    af = T.alloc_buffer((8,), "uint32", scope="local")
    bfr = T.alloc_buffer((4,), "uint32", scope="local")
    lo = T.alloc_buffer((1,), "int32", scope="local")
    hi = T.alloc_buffer((1,), "int32", scope="local")
    asrc = T.alloc_buffer((2,), "int32", scope="local")
    gu = T.alloc_buffer((3,), "float32", scope="local")
    pk = T.alloc_buffer((8,), "bfloat16", scope="local")
    if by < TOFFB[groups]:
        moe_gemm(0, 2, XW, RTOK, gather, WG, WU, SEGB, TOFFB, groups, INTER, HIDDEN, sm, ra, rb, acc, af, bfr, lo, hi, asrc,
                 by, bx * 64, tx)
        for v in T.unroll(32):                  # gate acc[v], up acc[32 + v]: the same positions
            gu[0] = T.Cast("float32", T.Cast("bfloat16", acc[v]))
            gu[1] = T.Cast("float32", T.Cast("bfloat16", acc[32 + v]))
            gu[2] = T.Cast("float32", T.Cast("bfloat16", gu[0] * T.Cast("float32", T.Cast(
                "bfloat16", T.float32(1) / (T.float32(1) + T.exp(T.float32(0) - gu[0]))))))
            acc[v] = T.Cast("float32", T.Cast("bfloat16", gu[2] * gu[1]))
        store_c(sm, acc, tx)
        for q in T.unroll(4):                   # 128 rows x 8 chunks of 8 columns
            if SEGB[lo[0]] + (by - TOFFB[lo[0]]) * 128 + (tx + 256 * q) // 8 < SEGB[lo[0] + 1]:
                for j in T.unroll(8):
                    pk[j] = T.Cast("bfloat16", T.reinterpret("float32", sm[(tx + 256 * q) // 8 * LDC + tx % 8 * 8 + j]))
                for j in T.vectorized(8):
                    H[(SEGB[lo[0]] + (by - TOFFB[lo[0]]) * 128 + (tx + 256 * q) // 8) * INTER + bx * 64 + tx % 8 * 8 + j] = pk[j]


@T.prim_func
def expert_swiglu(h_ptr: T.handle, x_ptr: T.handle, rtok_ptr: T.handle, wg_ptr: T.handle, wu_ptr: T.handle,
                  seg_ptr: T.handle, toff_ptr: T.handle):
    H = T.match_buffer(h_ptr, (ROWS * INTER,), "bfloat16")
    XW = T.match_buffer(x_ptr, (TOKENS * HIDDEN // 2,), "uint32")
    RTOK = T.match_buffer(rtok_ptr, (ROWS,), "int32")
    WG = T.match_buffer(wg_ptr, (EXPERTS * INTER * HIDDEN // 2,), "uint32")
    WU = T.match_buffer(wu_ptr, (EXPERTS * INTER * HIDDEN // 2,), "uint32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by = T.cta_id([INTER // 64, RTILES])
    tx = T.thread_id([256])
    swiglu_gemm(H, XW, RTOK, 1, WG, WU, SEG, TOFF, EXPERTS, tx, bx, by)


@T.prim_func
def shared_swiglu(h_ptr: T.handle, x_ptr: T.handle, wg_ptr: T.handle, wu_ptr: T.handle, dseg_ptr: T.handle,
                  dtile_ptr: T.handle):
    H = T.match_buffer(h_ptr, (TOKENS * SINTER,), "bfloat16")
    XW = T.match_buffer(x_ptr, (TOKENS * HIDDEN // 2,), "uint32")
    WG = T.match_buffer(wg_ptr, (SINTER * HIDDEN // 2,), "uint32")
    WU = T.match_buffer(wu_ptr, (SINTER * HIDDEN // 2,), "uint32")
    DSEG = T.match_buffer(dseg_ptr, (2,), "int32")
    DTILE = T.match_buffer(dtile_ptr, (2,), "int32")
    T.device_entry()
    bx, by = T.cta_id([SINTER // 64, STILES])
    tx = T.thread_id([256])
    swiglu_gemm(H, XW, DSEG, 0, WG, WU, DSEG, DTILE, 1, tx, bx, by)


@T.prim_func
def expert_down(wtd_ptr: T.handle, h_ptr: T.handle, roww_ptr: T.handle, wd_ptr: T.handle, seg_ptr: T.handle,
                toff_ptr: T.handle):
    WTD = T.match_buffer(wtd_ptr, (ROWS * HIDDEN,), "bfloat16")
    HW = T.match_buffer(h_ptr, (ROWS * INTER // 2,), "uint32")
    ROWW = T.match_buffer(roww_ptr, (ROWS,), "bfloat16")
    WD = T.match_buffer(wd_ptr, (EXPERTS * HIDDEN * INTER // 2,), "uint32")
    SEG = T.match_buffer(seg_ptr, (EXPERTS + 1,), "int32")
    TOFF = T.match_buffer(toff_ptr, (EXPERTS + 1,), "int32")
    T.device_entry()
    bx, by = T.cta_id([HIDDEN // 64, RTILES])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((128 * LDC,), "uint32", scope="shared")
    ra = T.alloc_buffer((8,), "uint32", scope="local")
    rb = T.alloc_buffer((8,), "uint32", scope="local")
    acc = T.alloc_buffer((32,), "float32", scope="local")
    af = T.alloc_buffer((8,), "uint32", scope="local")
    bfr = T.alloc_buffer((4,), "uint32", scope="local")
    lo = T.alloc_buffer((1,), "int32", scope="local")
    hi = T.alloc_buffer((1,), "int32", scope="local")
    asrc = T.alloc_buffer((2,), "int32", scope="local")
    sc = T.alloc_buffer((1,), "float32", scope="local")
    pk = T.alloc_buffer((8,), "bfloat16", scope="local")
    if by < TOFF[EXPERTS]:
        moe_gemm(1, 1, HW, SEG, 0, WD, WD, SEG, TOFF, EXPERTS, HIDDEN, INTER, sm, ra, rb, acc, af, bfr, lo, hi, asrc,
                 by, bx * 64, tx)
        store_c(sm, acc, tx)
        for q in T.unroll(4):
            if SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + (tx + 256 * q) // 8 < SEG[lo[0] + 1]:
                sc[0] = T.Cast("float32", ROWW[SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + (tx + 256 * q) // 8])
                for j in T.unroll(8):
                    pk[j] = T.Cast("bfloat16", T.Cast("float32", T.Cast("bfloat16", T.reinterpret(
                        "float32", sm[(tx + 256 * q) // 8 * LDC + tx % 8 * 8 + j]))) * sc[0])
                for j in T.vectorized(8):
                    WTD[(SEG[lo[0]] + (by - TOFF[lo[0]]) * 128 + (tx + 256 * q) // 8) * HIDDEN + bx * 64 + tx % 8 * 8 + j] = pk[j]


@T.prim_func
def shared_gate_value(gv_ptr: T.handle, x_ptr: T.handle, g_ptr: T.handle):
    GV = T.match_buffer(gv_ptr, (TOKENS,), "bfloat16")
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    G = T.match_buffer(g_ptr, (HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([(TOKENS + 7) // 8])
    tx = T.thread_id([256])
    a = T.alloc_buffer((8,), "bfloat16", scope="local")
    b = T.alloc_buffer((8,), "bfloat16", scope="local")
    s = T.alloc_buffer((1,), "float32", scope="local")
    if bx * 8 + tx // 32 < TOKENS:
        s[0] = T.float32(0)
        for d in T.serial(HIDDEN // 256):
            for j in T.vectorized(8):
                a[j] = X[(bx * 8 + tx // 32) * HIDDEN + d * 256 + tx % 32 * 8 + j]
            for j in T.vectorized(8):
                b[j] = G[d * 256 + tx % 32 * 8 + j]
            for j in T.unroll(8):
                s[0] = s[0] + T.Cast("float32", a[j]) * T.Cast("float32", b[j])
        s[0] = T.cuda.warp_sum(s[0], 32)
        if tx % 32 == 0:
            GV[bx * 8 + tx // 32] = T.Cast("bfloat16", T.float32(1) / (T.float32(1) + T.exp(
                T.float32(0) - T.Cast("float32", T.Cast("bfloat16", s[0])))))


@T.prim_func
def shared_down_combine(out_ptr: T.handle, sh_ptr: T.handle, wd_ptr: T.handle, gv_ptr: T.handle, wtd_ptr: T.handle,
                        pos_ptr: T.handle, dseg_ptr: T.handle, dtile_ptr: T.handle):
    OUT = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "bfloat16")
    SHW = T.match_buffer(sh_ptr, (TOKENS * SINTER // 2,), "uint32")
    WD = T.match_buffer(wd_ptr, (HIDDEN * SINTER // 2,), "uint32")
    GV = T.match_buffer(gv_ptr, (TOKENS,), "bfloat16")
    WTD = T.match_buffer(wtd_ptr, (ROWS * HIDDEN,), "bfloat16")
    POS = T.match_buffer(pos_ptr, (ROWS,), "int32")
    DSEG = T.match_buffer(dseg_ptr, (2,), "int32")
    DTILE = T.match_buffer(dtile_ptr, (2,), "int32")
    T.device_entry()
    bx, by = T.cta_id([HIDDEN // 64, STILES])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((128 * LDC,), "uint32", scope="shared")
    ra = T.alloc_buffer((8,), "uint32", scope="local")
    rb = T.alloc_buffer((8,), "uint32", scope="local")
    acc = T.alloc_buffer((32,), "float32", scope="local")
    af = T.alloc_buffer((8,), "uint32", scope="local")
    bfr = T.alloc_buffer((4,), "uint32", scope="local")
    lo = T.alloc_buffer((1,), "int32", scope="local")
    hi = T.alloc_buffer((1,), "int32", scope="local")
    asrc = T.alloc_buffer((2,), "int32", scope="local")
    shv = T.alloc_buffer((1,), "float32", scope="local")
    ar = T.alloc_buffer((1,), "float32", scope="local")
    if by < DTILE[1]:
        moe_gemm(1, 1, SHW, DSEG, 0, WD, WD, DSEG, DTILE, 1, HIDDEN, SINTER, sm, ra, rb, acc, af, bfr, lo, hi, asrc,
                 by, bx * 64, tx)
        store_c(sm, acc, tx)
        for q in T.serial(32):                  # 128 rows x 64 columns, one element per thread and step
            if by * 128 + (tx + 256 * q) // 64 < TOKENS:
                shv[0] = T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", GV[by * 128 + (tx + 256 * q) // 64])
                                                  * T.Cast("float32", T.Cast("bfloat16", T.reinterpret(
                                                      "float32", sm[(tx + 256 * q) // 64 * LDC + tx % 64])))))
                ar[0] = T.float32(0)
                for j in T.serial(TOPK):        # ascending expert order, a bf16 rounding per add
                    ar[0] = T.Cast("float32", T.Cast("bfloat16", ar[0] + T.Cast("float32", WTD[
                        POS[(by * 128 + (tx + 256 * q) // 64) * TOPK + j] * HIDDEN + bx * 64 + tx % 64])))
                OUT[(by * 128 + (tx + 256 * q) // 64) * HIDDEN + bx * 64 + tx % 64] = T.Cast("bfloat16", ar[0] + shv[0])


MKB_PLAN = """/* mkb:plan
scratch selected int32[num_tokens * top_k]
scratch routing_weights bf16[num_tokens * top_k]
scratch counts int32[num_experts] zeroed
scratch cursor int32[num_experts] zeroed
scratch seg int32[num_experts + 1]
scratch tile_off int32[num_experts + 1]
scratch dense_seg int32[2]
scratch dense_tile int32[2]
scratch row_token int32[num_tokens * top_k]
scratch row_w bf16[num_tokens * top_k]
scratch pos_sorted int32[num_tokens * top_k]
scratch h bf16[num_tokens * top_k * moe_intermediate_size]
scratch weighted bf16[num_tokens * top_k * hidden_size]
scratch shared_h bf16[num_tokens * shared_expert_intermediate_size]
scratch gate_value bf16[num_tokens]
launch router_fused grid(ceil_div(num_tokens, 64)) block(256) shared(178176)
  args(hidden_states, router_weight, router_logits, selected, routing_weights, counts)
launch expert_offsets grid(1) block(32) args(seg, tile_off, dense_seg, dense_tile, counts)
launch place_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(row_token, row_w, pos_sorted, cursor, selected, routing_weights, seg)
launch expert_swiglu grid(moe_intermediate_size / 64, ceil_div(num_tokens * top_k, 128) + num_experts) block(256)
  args(h, hidden_states, row_token, routed_gate_proj, routed_up_proj, seg, tile_off)
launch expert_down grid(hidden_size / 64, ceil_div(num_tokens * top_k, 128) + num_experts) block(256)
  args(weighted, h, row_w, routed_down_proj, seg, tile_off)
launch shared_gate_value grid(ceil_div(num_tokens, 8)) block(256) args(gate_value, hidden_states, shared_expert_gate)
launch shared_swiglu grid(shared_expert_intermediate_size / 64, ceil_div(num_tokens, 128)) block(256)
  args(shared_h, hidden_states, shared_gate_proj, shared_up_proj, dense_seg, dense_tile)
launch shared_down_combine grid(hidden_size / 64, ceil_div(num_tokens, 128)) block(256)
  args(final_hidden_states, shared_h, shared_down_proj, gate_value, weighted, pos_sorted, dense_seg, dense_tile)
*/"""
