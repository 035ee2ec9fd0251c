"""DeepSeek-V3 MoE layer on one expert-parallel rank (grouped routing, FP8 block-scaled SwiGLU experts), a TIRx
port of solutions/cuda.cu: the same five launches, tiles, fragment orders and rounding points.
  1. route: one thread per token (the #49 port's scalar routing; cuda.cu uses a warp per token, with the same
     decisions and the same sums): sigmoid scores plus bias, group scores (sum of the two best), the 4 best
     groups, the 8 best experts in order; each local expert (32..63) the token picked gets a row in its list
     (atomic slot: list, pw = s / (sum + 1e-20) * 2.5) and pair_of[t, k] = le * tokens + pos, else -1.
  2. offsets: off[e] = rows before local expert e in the compact per-pair buffers.
  3. gemm1_swiglu: FP8 tensor cores (mma.sync m16n8k32 e4m3, exact fp8 products), a CTA per (expert, 64
     columns of the intermediate, 128 rows), 8 warps of 32 rows x (32 up + 32 gate) (B rows: up and gate rows
     interleaved by 8), K blocks of 128 fp8 in a 4-stage cp.async ring (32 KiB + the 128 activation scales
     per stage, rows of 128 bytes with the upper half of the row swapped on odd rows). Fragments are 16-byte
     shared loads: within a K block the MMA's k order is a fixed permutation of the stored order, the same
     for A and B. Each half of a K block is accumulated from zero and added into fp32 times (activation
     scale * weight block scale); the epilogue writes h = bf16(gate / (1 + exp(-gate)) * up).
  4. gemm2_weighted: bf16 tensor cores (m16n8k16), 128 x 128 tiles, K blocks of 128 in 3 stages; W2's fp8
     values become bf16(float(fp8) * block scale) as the B fragments are formed; y = bf16(acc * pw).
  5. combine: per token and 8 columns, its local experts' rows summed in fp32 (pick order), rounded once.
fp8 tensors are declared uint8 (bytes); shared tiles are one uint32 buffer of dynamic shared memory."""
from tvm.script import tirx as T

TOKENS, HIDDEN, INTER = 14107, 7168, 2048
EXPERTS, GROUPS, PER_GROUP, TOPK_GROUPS, TOPK = 256, 8, 32, 4, 8
LOCAL, OFFSET = 32, 32
SCALING = 2.5
KB1 = HIDDEN // 128                      # K blocks of GEMM1
KB2 = INTER // 128                       # K blocks of GEMM2
NT1 = INTER // 64                        # column tiles of GEMM1
NT2 = HIDDEN // 128                      # column tiles of GEMM2
TILES = (TOKENS * TOPK + 127) // 128 + LOCAL
STAGE1 = (32768 + 512) // 4              # words per GEMM1 stage: A 4096, B 4096, scales 128
STAGE2 = 49152 // 4                      # words per GEMM2 stage: A 8192 (128 x 256 B), B 4096
assert HIDDEN % 128 == 0 and INTER % 128 == 0 and KB1 >= 3 and KB2 >= 2


@T.macro
def locate(COUNT, nt, bid, e, m0, n_tile, idv):
    # e[0] = the expert of CTA bid (experts in order, n-tiles, m-tiles fastest); e[0] = LOCAL: none
    idv[0] = bid
    e[0] = LOCAL
    for ex in T.serial(LOCAL):
        if e[0] == LOCAL:
            if idv[0] < (COUNT[ex] + 127) // 128 * nt:
                e[0] = ex
                n_tile[0] = idv[0] // ((COUNT[ex] + 127) // 128)
                m0[0] = idv[0] % ((COUNT[ex] + 127) // 128) * 128
            else:
                idv[0] = idv[0] - (COUNT[ex] + 127) // 128 * nt


@T.prim_func
def route(l_ptr: T.handle, b_ptr: T.handle, count_ptr: T.handle, list_ptr: T.handle, pw_ptr: T.handle,
          pair_ptr: T.handle):
    LOG = T.match_buffer(l_ptr, (TOKENS, EXPERTS), "float32")
    BIAS = T.match_buffer(b_ptr, (EXPERTS,), "bfloat16")
    COUNT = T.match_buffer(count_ptr, (LOCAL,), "int32")
    LIST = T.match_buffer(list_ptr, (LOCAL * TOKENS,), "int32")
    PW = T.match_buffer(pw_ptr, (LOCAL * TOKENS,), "float32")
    PAIR = T.match_buffer(pair_ptr, (TOKENS * TOPK,), "int32")
    T.device_entry()
    bx = T.cta_id([(TOKENS + 255) // 256])
    tx = T.thread_id([256])
    score = T.alloc_buffer((EXPERTS,), "float32", scope="local")
    biased = T.alloc_buffer((EXPERTS,), "float32", scope="local")
    group = T.alloc_buffer((GROUPS,), "float32", scope="local")
    keep = T.alloc_buffer((GROUPS,), "int32", scope="local")
    taken = T.alloc_buffer((EXPERTS,), "int32", scope="local")
    pick = T.alloc_buffer((TOPK,), "int32", scope="local")
    best = T.alloc_buffer((1,), "float32", scope="local")
    best_i = T.alloc_buffer((1,), "int32", scope="local")
    second = T.alloc_buffer((1,), "float32", scope="local")
    rank = T.alloc_buffer((1,), "int32", scope="local")
    total = T.alloc_buffer((1,), "float32", scope="local")
    pos = T.alloc_buffer((1,), "int32", scope="local")
    if bx * 256 + tx < TOKENS:
        for e in T.serial(EXPERTS):
            score[e] = T.float32(1) / (T.float32(1) + T.exp(T.float32(0) - LOG[bx * 256 + tx, e]))
            biased[e] = score[e] + T.Cast("float32", BIAS[e])
            taken[e] = 0
        for g in T.serial(GROUPS):                   # the sum of the group's two best biased scores
            best[0] = biased[g * PER_GROUP]
            best_i[0] = 0
            for j in T.serial(1, PER_GROUP):
                if biased[g * PER_GROUP + j] > best[0]:
                    best[0] = biased[g * PER_GROUP + j]
                    best_i[0] = j
            second[0] = T.min_value("float32")
            for j in T.serial(PER_GROUP):
                if j != best_i[0] and biased[g * PER_GROUP + j] > second[0]:
                    second[0] = biased[g * PER_GROUP + j]
            group[g] = best[0] + second[0]
        for g in T.serial(GROUPS):                   # the 4 best groups (ties to the lower group)
            rank[0] = 0
            for h in T.serial(GROUPS):
                if group[h] > group[g] or (group[h] == group[g] and h < g):
                    rank[0] = rank[0] + 1
            keep[g] = T.Select(rank[0] < TOPK_GROUPS, 1, 0)
        total[0] = T.float32(0)
        for k in T.serial(TOPK):                     # the 8 best experts of the kept groups, best first
            best[0] = T.min_value("float32")
            best_i[0] = -1
            for e in T.serial(EXPERTS):
                if keep[e // PER_GROUP] == 1 and taken[e] == 0 and (best_i[0] < 0 or biased[e] > best[0]):
                    best[0] = biased[e]
                    best_i[0] = e
            taken[best_i[0]] = 1
            pick[k] = best_i[0]
            total[0] = total[0] + score[best_i[0]]
        for k in T.serial(TOPK):
            if pick[k] >= OFFSET and pick[k] < OFFSET + LOCAL:
                pos[0] = T.cuda.atomic_add(T.address_of(COUNT[pick[k] - OFFSET]), 1)
                LIST[(pick[k] - OFFSET) * TOKENS + pos[0]] = bx * 256 + tx
                PW[(pick[k] - OFFSET) * TOKENS + pos[0]] = score[pick[k]] / (total[0] + T.float32(1e-20)) * T.float32(SCALING)
                PAIR[(bx * 256 + tx) * TOPK + k] = (pick[k] - OFFSET) * TOKENS + pos[0]
            else:
                PAIR[(bx * 256 + tx) * TOPK + k] = -1


@T.prim_func
def offsets(count_ptr: T.handle, off_ptr: T.handle):
    COUNT = T.match_buffer(count_ptr, (LOCAL,), "int32")
    OFF = T.match_buffer(off_ptr, (LOCAL + 1,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([32])
    o = T.alloc_buffer((1,), "int32", scope="local")
    if tx == 0:
        o[0] = 0
        for e in T.serial(LOCAL):
            OFF[e] = o[0]
            o[0] = o[0] + COUNT[e]
        OFF[LOCAL] = o[0]


@T.macro
def load1(smw, HID, HSS, W13, tok, stage, kb, e, n0, tx):
    # A: 128 token rows x 128 fp8 of block kb; B: rows r of W13: up rows n0 + 8 (r / 16) + r % 8 when r / 8 is
    # even, the same gate rows (+ INTER) when odd; chunk c of row r at word r * 32 + 4 (c ^ 4 (r % 2)).
    for i in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            smw.ptr_to([stage * STAGE1 + (tx // 8 + 32 * i) * 32 + T.bitwise_xor(tx % 8, (tx // 8 + 32 * i) % 2 * 4) * 4]),
            HID.ptr_to([tok[tx // 8 + 32 * i] * HIDDEN + kb * 128 + tx % 8 * 16]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            smw.ptr_to([stage * STAGE1 + 4096 + (tx // 8 + 32 * i) * 32
                        + T.bitwise_xor(tx % 8, (tx // 8 + 32 * i) % 2 * 4) * 4]),
            W13.ptr_to([(e * (2 * INTER) + (tx // 8 + 32 * i) // 8 % 2 * INTER + n0 + (tx // 8 + 32 * i) // 16 * 8
                         + (tx // 8 + 32 * i) % 8) * HIDDEN + kb * 128 + tx % 8 * 16]), 16)
    if tx < 128:
        T.ptx.cp.async_.ca.shared.global_(smw.ptr_to([stage * STAGE1 + 8192 + tx]), HSS.ptr_to([kb * TOKENS + tok[tx]]), 4)


@T.prim_func
def gemm1_swiglu(h_ptr: T.handle, hs_ptr: T.handle, w_ptr: T.handle, s_ptr: T.handle, count_ptr: T.handle,
                 list_ptr: T.handle, off_ptr: T.handle, inter_ptr: T.handle):
    HID = T.match_buffer(h_ptr, (TOKENS * HIDDEN,), "uint8")
    HSS = T.match_buffer(hs_ptr, (KB1 * TOKENS,), "float32")
    W13 = T.match_buffer(w_ptr, (LOCAL * 2 * INTER * HIDDEN,), "uint8")
    S13 = T.match_buffer(s_ptr, (LOCAL * (2 * INTER // 128) * KB1,), "float32")
    COUNT = T.match_buffer(count_ptr, (LOCAL,), "int32")
    LIST = T.match_buffer(list_ptr, (LOCAL * TOKENS,), "int32")
    OFF = T.match_buffer(off_ptr, (LOCAL + 1,), "int32")
    H = T.match_buffer(inter_ptr, (TOKENS * TOPK * INTER,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TILES * NT1])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        smw = T.alloc_buffer((4 * STAGE1,), "uint32", scope="shared.dyn", align=1024)
        tok = T.alloc_buffer((128,), "int32", scope="shared")
        e = T.alloc_buffer((1,), "int32", scope="local")
        m0 = T.alloc_buffer((1,), "int32", scope="local")
        ntile = T.alloc_buffer((1,), "int32", scope="local")
        idv = T.alloc_buffer((1,), "int32", scope="local")
        acc = T.alloc_buffer((64,), "float32", scope="local")       # [mt][nt][v]
        part = T.alloc_buffer((32,), "float32", scope="local")      # [nt][v]
        rb = T.alloc_buffer((32,), "uint32", scope="local")         # [nt][4]
        x0 = T.alloc_buffer((4,), "uint32", scope="local")
        x1 = T.alloc_buffer((4,), "uint32", scope="local")
        su = T.alloc_buffer((1,), "float32", scope="local")
        sg = T.alloc_buffer((1,), "float32", scope="local")
        a0 = T.alloc_buffer((1,), "float32", scope="local")
        a1 = T.alloc_buffer((1,), "float32", scope="local")
        outv = T.alloc_buffer((2,), "bfloat16", scope="local")
        locate(COUNT, NT1, bx, e, m0, ntile, idv)
        if e[0] < LOCAL:
            if tx < 128:
                tok[tx] = LIST[e[0] * TOKENS + m0[0] + T.min(tx, T.min(128, COUNT[e[0]] - m0[0]) - 1)]
            T.cuda.cta_sync()
            for v in T.unroll(64):
                acc[v] = T.float32(0)
            for s in T.unroll(3):
                load1(smw, HID, HSS, W13, tok, s, s, e[0], ntile[0] * 64, tx)
                T.ptx.cp.async_.commit_group()
            for kb in T.serial(KB1):
                T.ptx.cp.async_.wait_group(2)
                T.cuda.cta_sync()
                if kb + 3 < KB1:
                    load1(smw, HID, HSS, W13, tok, (kb + 3) % 4, kb + 3, e[0], ntile[0] * 64, tx)
                T.ptx.cp.async_.commit_group()
                su[0] = S13[(e[0] * (2 * INTER // 128) + ntile[0] * 64 // 128) * KB1 + kb]
                sg[0] = S13[(e[0] * (2 * INTER // 128) + (INTER + ntile[0] * 64) // 128) * KB1 + kb]
                for half in T.serial(2):
                    for nt in T.unroll(8):      # B rows wn + 8 nt + g, chunk q + 4 half
                        for v in T.vectorized(4):
                            rb[nt * 4 + v] = smw[kb % 4 * STAGE1 + 4096 + (tx // 32 % 2 * 64 + nt * 8 + tx % 32 // 4) * 32
                                                 + T.bitwise_xor(tx % 4 + 4 * half, tx % 32 // 4 % 2 * 4) * 4 + v]
                    for mt in T.unroll(2):      # A rows wm + 16 mt + g (+ 8)
                        for v in T.vectorized(4):
                            x0[v] = smw[kb % 4 * STAGE1 + (tx // 64 * 32 + mt * 16 + tx % 32 // 4) * 32
                                        + T.bitwise_xor(tx % 4 + 4 * half, tx % 32 // 4 % 2 * 4) * 4 + v]
                        for v in T.vectorized(4):
                            x1[v] = smw[kb % 4 * STAGE1 + (tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8) * 32
                                        + T.bitwise_xor(tx % 4 + 4 * half, tx % 32 // 4 % 2 * 4) * 4 + v]
                        for v in T.unroll(32):
                            part[v] = T.float32(0)
                        for nt in T.unroll(8):
                            for s in T.unroll(2):
                                T.ptx.mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32(
                                    part[nt * 4], part[nt * 4 + 1], part[nt * 4 + 2], part[nt * 4 + 3],
                                    x0[2 * s], x1[2 * s], x0[2 * s + 1], x1[2 * s + 1], rb[nt * 4 + 2 * s], rb[nt * 4 + 2 * s + 1],
                                    part[nt * 4], part[nt * 4 + 1], part[nt * 4 + 2], part[nt * 4 + 3])
                        a0[0] = T.reinterpret("float32", smw[kb % 4 * STAGE1 + 8192 + tx // 64 * 32 + mt * 16 + tx % 32 // 4])
                        a1[0] = T.reinterpret("float32", smw[kb % 4 * STAGE1 + 8192 + tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8])
                        for nt in T.unroll(8):  # odd nt: gate rows
                            if nt % 2 == 1:
                                acc[mt * 32 + nt * 4] = acc[mt * 32 + nt * 4] + part[nt * 4] * (a0[0] * sg[0])
                                acc[mt * 32 + nt * 4 + 1] = acc[mt * 32 + nt * 4 + 1] + part[nt * 4 + 1] * (a0[0] * sg[0])
                                acc[mt * 32 + nt * 4 + 2] = acc[mt * 32 + nt * 4 + 2] + part[nt * 4 + 2] * (a1[0] * sg[0])
                                acc[mt * 32 + nt * 4 + 3] = acc[mt * 32 + nt * 4 + 3] + part[nt * 4 + 3] * (a1[0] * sg[0])
                            else:
                                acc[mt * 32 + nt * 4] = acc[mt * 32 + nt * 4] + part[nt * 4] * (a0[0] * su[0])
                                acc[mt * 32 + nt * 4 + 1] = acc[mt * 32 + nt * 4 + 1] + part[nt * 4 + 1] * (a0[0] * su[0])
                                acc[mt * 32 + nt * 4 + 2] = acc[mt * 32 + nt * 4 + 2] + part[nt * 4 + 2] * (a1[0] * su[0])
                                acc[mt * 32 + nt * 4 + 3] = acc[mt * 32 + nt * 4 + 3] + part[nt * 4 + 3] * (a1[0] * su[0])
            T.ptx.cp.async_.wait_group(0)
            # row r = wm + 16 mt + g + 8 h; columns n0 + wn / 2 + 8 j + 2 q + p: up acc[mt][2j], gate acc[mt][2j + 1]
            for mt in T.unroll(2):
                for h in T.unroll(2):
                    if tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8 * h < T.min(128, COUNT[e[0]] - m0[0]):
                        for j in T.unroll(4):
                            for p in T.unroll(2):
                                outv[p] = T.Cast("bfloat16", acc[mt * 32 + (2 * j + 1) * 4 + 2 * h + p]
                                                 / (T.float32(1) + T.exp(T.float32(0) - acc[mt * 32 + (2 * j + 1) * 4 + 2 * h + p]))
                                                 * acc[mt * 32 + 2 * j * 4 + 2 * h + p])
                            for p in T.vectorized(2):
                                H[(OFF[e[0]] + m0[0] + tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8 * h) * INTER
                                  + ntile[0] * 64 + tx // 32 % 2 * 32 + 8 * j + tx % 4 * 2 + p] = outv[p]


@T.macro
def load2(smw, H, W2, stage, kb, e, n0, row0, rows, tx):
    # A: 128 rows x 128 bf16 (256 B rows, chunk c at word r * 64 + 4 (c ^ r % 2)); B: 128 W2 rows x 128 fp8
    for i in T.unroll(8):
        T.ptx.cp.async_.cg.shared.global_(
            smw.ptr_to([stage * STAGE2 + (tx // 16 + 16 * i) * 64 + T.bitwise_xor(tx % 16, (tx // 16 + 16 * i) % 2) * 4]),
            H.ptr_to([(row0 + T.min(tx // 16 + 16 * i, rows - 1)) * INTER + kb * 128 + tx % 16 * 8]), 16)
    for i in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            smw.ptr_to([stage * STAGE2 + 8192 + (tx // 8 + 32 * i) * 32 + T.bitwise_xor(tx % 8, (tx // 8 + 32 * i) % 2 * 4) * 4]),
            W2.ptr_to([(e * HIDDEN + n0 + tx // 8 + 32 * i) * INTER + kb * 128 + tx % 8 * 16]), 16)


@T.prim_func
def gemm2_weighted(inter_ptr: T.handle, w_ptr: T.handle, s_ptr: T.handle, count_ptr: T.handle, pw_ptr: T.handle,
                   off_ptr: T.handle, y_ptr: T.handle):
    H = T.match_buffer(inter_ptr, (TOKENS * TOPK * INTER,), "bfloat16")
    W2 = T.match_buffer(w_ptr, (LOCAL * HIDDEN * INTER,), "uint8")
    S2 = T.match_buffer(s_ptr, (LOCAL * NT2 * KB2,), "float32")
    COUNT = T.match_buffer(count_ptr, (LOCAL,), "int32")
    PW = T.match_buffer(pw_ptr, (LOCAL * TOKENS,), "float32")
    OFF = T.match_buffer(off_ptr, (LOCAL + 1,), "int32")
    Y = T.match_buffer(y_ptr, (TOKENS * TOPK * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TILES * NT2])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        smw = T.alloc_buffer((3 * STAGE2,), "uint32", scope="shared.dyn", align=1024)
        e = T.alloc_buffer((1,), "int32", scope="local")
        m0 = T.alloc_buffer((1,), "int32", scope="local")
        ntile = T.alloc_buffer((1,), "int32", scope="local")
        idv = T.alloc_buffer((1,), "int32", scope="local")
        acc = T.alloc_buffer((64,), "float32", scope="local")       # [mt][nt][v]
        ra = T.alloc_buffer((64,), "uint32", scope="local")         # [mt][h][j][4]
        rb0 = T.alloc_buffer((4,), "uint32", scope="local")
        rb1 = T.alloc_buffer((4,), "uint32", scope="local")
        bw = T.alloc_buffer((2,), "uint32", scope="local")
        bh = T.alloc_buffer((4,), "bfloat16", scope="local")
        ws = T.alloc_buffer((1,), "float32", scope="local")
        wgt = T.alloc_buffer((1,), "float32", scope="local")
        outv = T.alloc_buffer((2,), "bfloat16", scope="local")
        locate(COUNT, NT2, bx, e, m0, ntile, idv)
        if e[0] < LOCAL:
            for v in T.unroll(64):
                acc[v] = T.float32(0)
            for s in T.unroll(2):
                load2(smw, H, W2, s, s, e[0], ntile[0] * 128, OFF[e[0]] + m0[0], T.min(128, COUNT[e[0]] - m0[0]), tx)
                T.ptx.cp.async_.commit_group()
            for kb in T.serial(KB2):
                T.ptx.cp.async_.wait_group(1)
                T.cuda.cta_sync()
                if kb + 2 < KB2:
                    load2(smw, H, W2, (kb + 2) % 3, kb + 2, e[0], ntile[0] * 128, OFF[e[0]] + m0[0],
                          T.min(128, COUNT[e[0]] - m0[0]), tx)
                T.ptx.cp.async_.commit_group()
                ws[0] = S2[(e[0] * NT2 + ntile[0]) * KB2 + kb]
                # A: rows wm + 16 mt + g + 8 h, chunks 8 (j / 2) + 2 q + j % 2 (32 bf16 = 8 k16 steps)
                for mt in T.unroll(2):
                    for h in T.unroll(2):
                        for j in T.unroll(4):
                            for v in T.vectorized(4):
                                ra[((mt * 2 + h) * 4 + j) * 4 + v] = smw[
                                    kb % 3 * STAGE2 + (tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8 * h) * 64
                                    + T.bitwise_xor(j // 2 * 8 + tx % 4 * 2 + j % 2, (tx % 32 // 4 + 8 * h) % 2) * 4 + v]
                for nt in T.unroll(8):
                    for v in T.vectorized(4):
                        rb0[v] = smw[kb % 3 * STAGE2 + 8192 + (tx // 32 % 2 * 64 + nt * 8 + tx % 32 // 4) * 32
                                     + T.bitwise_xor(tx % 4, tx % 32 // 4 % 2 * 4) * 4 + v]
                    for v in T.vectorized(4):
                        rb1[v] = smw[kb % 3 * STAGE2 + 8192 + (tx // 32 % 2 * 64 + nt * 8 + tx % 32 // 4) * 32
                                     + T.bitwise_xor(tx % 4 + 4, tx % 32 // 4 % 2 * 4) * 4 + v]
                    for s in T.unroll(8):       # 4 fp8 at physical k: word s % 4 of chunk q (s < 4) or q + 4
                        for i in T.unroll(4):   # bf16(float(fp8) * ws): rounded to fp32, then to bf16
                            if s < 4:
                                bh[i] = T.Cast("bfloat16", T.Cast("float32", T.reinterpret("float8_e4m3fn", T.Cast(
                                    "uint8", T.bitwise_and(T.shift_right(rb0[s % 4], T.uint32(8 * i)), T.uint32(255))))) * ws[0])
                            else:
                                bh[i] = T.Cast("bfloat16", T.Cast("float32", T.reinterpret("float8_e4m3fn", T.Cast(
                                    "uint8", T.bitwise_and(T.shift_right(rb1[s % 4], T.uint32(8 * i)), T.uint32(255))))) * ws[0])
                        for i in T.unroll(2):   # bf16 pairs, the lower k in the low half
                            bw[i] = T.bitwise_or(T.Cast("uint32", T.reinterpret("uint16", bh[2 * i])),
                                                 T.shift_left(T.Cast("uint32", T.reinterpret("uint16", bh[2 * i + 1])), T.uint32(16)))
                        for mt in T.unroll(2):
                            T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                                acc[mt * 32 + nt * 4], acc[mt * 32 + nt * 4 + 1], acc[mt * 32 + nt * 4 + 2], acc[mt * 32 + nt * 4 + 3],
                                ra[((mt * 2) * 4 + s // 2) * 4 + s % 2 * 2], ra[((mt * 2 + 1) * 4 + s // 2) * 4 + s % 2 * 2],
                                ra[((mt * 2) * 4 + s // 2) * 4 + s % 2 * 2 + 1], ra[((mt * 2 + 1) * 4 + s // 2) * 4 + s % 2 * 2 + 1],
                                bw[0], bw[1],
                                acc[mt * 32 + nt * 4], acc[mt * 32 + nt * 4 + 1], acc[mt * 32 + nt * 4 + 2], acc[mt * 32 + nt * 4 + 3])
            T.ptx.cp.async_.wait_group(0)
            for mt in T.unroll(2):
                for h in T.unroll(2):
                    if tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8 * h < T.min(128, COUNT[e[0]] - m0[0]):
                        wgt[0] = PW[e[0] * TOKENS + m0[0] + tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8 * h]
                        for nt in T.unroll(8):
                            for p in T.unroll(2):
                                outv[p] = T.Cast("bfloat16", acc[mt * 32 + nt * 4 + 2 * h + p] * wgt[0])
                            for p in T.vectorized(2):
                                Y[(OFF[e[0]] + m0[0] + tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8 * h) * HIDDEN
                                  + ntile[0] * 128 + tx // 32 % 2 * 64 + 8 * nt + tx % 4 * 2 + p] = outv[p]


@T.prim_func
def combine(y_ptr: T.handle, pair_ptr: T.handle, off_ptr: T.handle, out_ptr: T.handle):
    Y = T.match_buffer(y_ptr, (TOKENS * TOPK * HIDDEN,), "bfloat16")
    PAIR = T.match_buffer(pair_ptr, (TOKENS * TOPK,), "int32")
    OFF = T.match_buffer(off_ptr, (LOCAL + 1,), "int32")
    OUT = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([(TOKENS * (HIDDEN // 8) + 255) // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((8,), "float32", scope="local")
    v = T.alloc_buffer((8,), "bfloat16", scope="local")
    o = T.alloc_buffer((8,), "bfloat16", scope="local")
    p = T.alloc_buffer((1,), "int32", scope="local")
    if bx * 256 + tx < TOKENS * (HIDDEN // 8):
        for j in T.unroll(8):
            s[j] = T.float32(0)
        for k in T.serial(TOPK):
            p[0] = PAIR[(bx * 256 + tx) // (HIDDEN // 8) * TOPK + k]
            if p[0] >= 0:
                for j in T.vectorized(8):
                    v[j] = Y[(OFF[p[0] // TOKENS] + p[0] % TOKENS) * HIDDEN + (bx * 256 + tx) % (HIDDEN // 8) * 8 + j]
                for j in T.unroll(8):
                    s[j] = s[j] + T.Cast("float32", v[j])
        for j in T.unroll(8):
            o[j] = T.Cast("bfloat16", s[j])
        for j in T.vectorized(8):
            OUT[(bx * 256 + tx) * 8 + j] = o[j]


MKB_PLAN = """/* mkb:plan
scratch count int32[num_local_experts] zeroed
scratch list int32[num_local_experts * seq_len]
scratch pw fp32[num_local_experts * seq_len]
scratch pair_of int32[seq_len * top_k]
scratch off int32[num_local_experts + 1]
scratch inter bf16[seq_len * top_k * intermediate_size]
scratch y bf16[seq_len * top_k * hidden_size]
launch route grid(ceil_div(seq_len, 256)) block(256) args(routing_logits, routing_bias, count, list, pw, pair_of)
launch offsets grid(1) block(32) args(count, off)
launch gemm1_swiglu grid((ceil_div(seq_len * top_k, 128) + num_local_experts) * (intermediate_size / 64)) block(256) shared(133120)
  args(hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale, count, list, off, inter)
launch gemm2_weighted grid((ceil_div(seq_len * top_k, 128) + num_local_experts) * (hidden_size / 128)) block(256) shared(147456)
  args(inter, gemm2_weights, gemm2_weights_scale, count, pw, off, y)
launch combine grid(ceil_div(seq_len * (hidden_size / 8), 256)) block(256) args(y, pair_of, off, output)
*/"""
