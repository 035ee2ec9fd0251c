"""Qwen3-VL QKV projection with blockwise FP8 (e4m3) quantization and per-head RMSNorm of q and k, in TIRx:
the algorithm of solutions/cuda.cu.

  1. quant_act: 1 x 128 activation blocks, a warp per block (4 values a lane): amax by warp_max,
     scale = __fmul_rn(amax, fp32(1/448)), codes e4m3(clamp(__fdiv_rn(x, scale), -448, 448)) (round to
     nearest even, the __nv_fp8_e4m3 constructor).
  2. quant_weights_qkv: the 128 x 128 blocks of q_weight, k_weight and v_weight into one [9728, 7680] e4m3
     operand (row blocks 0..59 q, 60..67 k, 68..75 v), so each 128-column tile of the product is one head.
  3. gemm_qkv_norm: 128 x 128 tiles, 8 warps as 2 x 4 (a warp 64 x 32), 128-wide K steps (one scale block)
     in a 4-stage cp.async ring into XOR-swizzled shared memory, ldmatrix.x4 and mma.sync m16n8k32 e4m3;
     each K block accumulated from zero and added as fma(part, sx[row] * sw[tile], acc). Epilogue: bias,
     bf16 rounding of the projection; for q and k the head's RMSNorm (a row's sum of squares: fma chain per
     thread, shuffles xor 1 and 2, then the 4 warps of the width added in order through shared memory;
     rsqrtf(sum * (1/128) + eps)), bf16, times the norm weight, bf16; stored to [batch, head, seq, dim].
fp32(1/448) and eps come in as plan arguments."""
from tvm.script import tirx as T

BATCH, SEQ, K = 64, 256, 7680
M = BATCH * SEQ                       # tokens
QH, KVH = 60, 8                       # heads of q and of k / v
NB = QH + 2 * KVH                     # 76 head tiles
N = NB * 128                          # 9728 rows of the fused weight
KB = K // 128
STAGES = 4
TILE = 128 * 128
STB = 2 * TILE
assert SEQ % 128 == 0 and K % 128 == 0 and KB >= STAGES - 1


@T.prim_func
def quant_act(x_ptr: T.handle, q_ptr: T.handle, s_ptr: T.handle, inv_max: T.float32, fp8_max: T.float32):
    X = T.match_buffer(x_ptr, (M * K,), "bfloat16")
    Q = T.match_buffer(q_ptr, (M * K,), "float8_e4m3fn")
    S = T.match_buffer(s_ptr, (M * KB,), "float32")
    T.device_entry()
    bx = T.cta_id([M * K // 1024])
    tx = T.thread_id([256])
    xv = T.alloc_buffer((4,), "bfloat16", scope="local")
    qv = T.alloc_buffer((4,), "float8_e4m3fn", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    for e in T.vectorized(4):
        xv[e] = X[bx * 1024 + tx * 4 + e]
    m[0] = T.float32(0)
    for e in T.unroll(4):
        m[0] = T.max(m[0], T.abs(T.Cast("float32", xv[e])))
    m[0] = T.cuda.warp_max(m[0], 32)
    m[0] = T.call_pure_extern("float32", "__fmul_rn", m[0], inv_max)
    for e in T.unroll(4):
        qv[e] = T.Cast("float8_e4m3fn", T.min(T.max(T.call_pure_extern("float32", "__fdiv_rn", T.Cast("float32", xv[e]), m[0]),
                                                    T.float32(0) - fp8_max), fp8_max))
    for e in T.vectorized(4):
        Q[bx * 1024 + tx * 4 + e] = qv[e]
    if tx % 32 == 0:
        S[bx * 8 + tx // 32] = m[0]


@T.macro
def quant_block(W, r0, QW, SW, rb, bx, tx, wv, qv, m, red, inv_max, fp8_max):
    # the 128 x 128 block at rows r0.. of W, columns 128 bx..: thread tx owns 64 values of row tx // 2;
    # codes to rows 128 rb.. of QW, scale to SW[rb, bx]
    for j in T.unroll(8):
        for e in T.vectorized(8):
            wv[j * 8 + e] = W[r0 + tx // 2, bx * 128 + tx % 2 * 64 + j * 8 + e]
    m[0] = T.float32(0)
    for i in T.unroll(64):
        m[0] = T.max(m[0], T.abs(T.Cast("float32", wv[i])))
    m[0] = T.cuda.warp_max(m[0], 32)
    if tx % 32 == 0:
        red[tx // 32] = m[0]
    T.cuda.cta_sync()
    for i in T.unroll(8):
        m[0] = T.max(m[0], red[i])
    m[0] = T.call_pure_extern("float32", "__fmul_rn", m[0], inv_max)
    for i in T.unroll(64):
        qv[i] = T.Cast("float8_e4m3fn", T.min(T.max(T.call_pure_extern("float32", "__fdiv_rn", T.Cast("float32", wv[i]), m[0]),
                                                    T.float32(0) - fp8_max), fp8_max))
    for j in T.unroll(8):
        for e in T.vectorized(8):
            QW[rb * 128 + tx // 2, bx * 128 + tx % 2 * 64 + j * 8 + e] = qv[j * 8 + e]
    if tx == 0:
        SW[rb, bx] = m[0]


@T.prim_func
def quant_weights_qkv(wq_ptr: T.handle, wk_ptr: T.handle, wv_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle,
                      inv_max: T.float32, fp8_max: T.float32):
    WQ = T.match_buffer(wq_ptr, (QH * 128, K), "bfloat16")
    WK = T.match_buffer(wk_ptr, (KVH * 128, K), "bfloat16")
    WV = T.match_buffer(wv_ptr, (KVH * 128, K), "bfloat16")
    QW = T.match_buffer(qw_ptr, (N, K), "float8_e4m3fn")
    SW = T.match_buffer(sw_ptr, (NB, KB), "float32")
    T.device_entry()
    bx, by = T.cta_id([KB, NB])
    tx = T.thread_id([256])
    wv = T.alloc_buffer((64,), "bfloat16", scope="local")
    qv = T.alloc_buffer((64,), "float8_e4m3fn", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((8,), "float32", scope="shared")
    if by < QH:
        quant_block(WQ, by * 128, QW, SW, by, bx, tx, wv, qv, m, red, inv_max, fp8_max)
    elif by < QH + KVH:
        quant_block(WK, by * 128 - QH * 128, QW, SW, by, bx, tx, wv, qv, m, red, inv_max, fp8_max)
    else:
        quant_block(WV, by * 128 - (QH + KVH) * 128, QW, SW, by, bx, tx, wv, qv, m, red, inv_max, fp8_max)


@T.macro
def load_stage(sm, slot, A, B, m0, n0, kb, tx):
    for j in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STB + (tx // 8 + 32 * j) * 128 + T.bitwise_xor(tx % 8, tx // 8 % 8) * 16]),
            A.ptr_to([m0 + tx // 8 + 32 * j, kb * 128 + tx % 8 * 16]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STB + TILE + (tx // 8 + 32 * j) * 128 + T.bitwise_xor(tx % 8, tx // 8 % 8) * 16]),
            B.ptr_to([n0 + tx // 8 + 32 * j, kb * 128 + tx % 8 * 16]), 16)


@T.macro
def mma_stage(sm, sa, sb, part, af, bf, lane):
    for ks in T.unroll(4):
        for mt in T.unroll(4):      # A rows 16 mt + lane % 16, 16-byte k chunk 2 ks + lane // 16
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                sm.ptr_to([sa + (mt * 16 + lane % 16) * 128 + T.bitwise_xor(ks * 2 + lane // 16, lane % 8) * 16]))
        for np in T.unroll(2):      # B rows 16 np + lane % 8 + 8 (lane // 16), k chunk 2 ks + lane // 8 % 2
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(bf[np * 4], bf[np * 4 + 1], bf[np * 4 + 2], bf[np * 4 + 3],
                sm.ptr_to([sb + (np * 16 + lane % 8 + lane // 16 * 8) * 128 + T.bitwise_xor(ks * 2 + lane // 8 % 2, lane % 8) * 16]))
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                T.ptx.mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32(
                    part[mt, nt, 0], part[mt, nt, 1], part[mt, nt, 2], part[mt, nt, 3],
                    af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3], bf[nt * 2], bf[nt * 2 + 1],
                    part[mt, nt, 0], part[mt, nt, 1], part[mt, nt, 2], part[mt, nt, 3])


@T.macro
def bias_round(acc, BIAS, head, tx):
    # y = bf16(acc + bias), kept as fp32; acc[mt, nt, 2h + e] is head dim 32 wn + 8 nt + 2 (lane % 4) + e
    for nt in T.unroll(4):
        for mt in T.unroll(4):
            for i in T.unroll(4):
                acc[mt, nt, i] = T.Cast("float32", T.Cast("bfloat16", acc[mt, nt, i] + T.Cast(
                    "float32", BIAS[head * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + i % 2])))


@T.macro
def head_norm(acc, NW, red, s, rstd, eps, tx):
    # RMSNorm of each of the tile's 128 rows (one head of one token)
    for mt in T.unroll(4):
        for h in T.unroll(2):
            s[0] = T.float32(0)
            for nt in T.unroll(4):
                s[0] = T.call_pure_extern("float32", "__fmaf_rn", acc[mt, nt, 2 * h], acc[mt, nt, 2 * h],
                                          T.call_pure_extern("float32", "__fmaf_rn", acc[mt, nt, 2 * h + 1], acc[mt, nt, 2 * h + 1], s[0]))
            s[0] = s[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), s[0], 1, 32, 32)
            s[0] = s[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), s[0], 2, 32, 32)
            if tx % 4 == 0:
                red[(tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8) * 4 + tx // 32 % 4] = s[0]
    T.cuda.cta_sync()
    for mt in T.unroll(4):
        for h in T.unroll(2):
            rstd[0] = T.rsqrt((red[(tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8) * 4]
                               + red[(tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8) * 4 + 1]
                               + red[(tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8) * 4 + 2]
                               + red[(tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8) * 4 + 3]) * T.float32(0.0078125) + eps)
            for nt in T.unroll(4):
                for e in T.unroll(2):
                    acc[mt, nt, 2 * h + e] = T.Cast("float32", NW[tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e]) * T.Cast(
                        "float32", T.Cast("bfloat16", acc[mt, nt, 2 * h + e] * rstd[0]))


@T.macro
def store_heads(acc, OUT, head, by, tx, yv):
    # token by * 128 + r (r the tile row) is batch by // 2, position by % 2 * 128 + r
    for mt in T.unroll(4):
        for h in T.unroll(2):
            for nt in T.unroll(4):
                for e in T.unroll(2):
                    yv[e] = T.Cast("bfloat16", acc[mt, nt, 2 * h + e])
                for e in T.vectorized(2):
                    OUT[by // 2, head, by % 2 * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8,
                        tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = yv[e]


@T.prim_func
def gemm_qkv_norm(qx_ptr: T.handle, sx_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle, qb_ptr: T.handle,
                  kb_ptr: T.handle, vb_ptr: T.handle, qn_ptr: T.handle, kn_ptr: T.handle, q_ptr: T.handle,
                  k_ptr: T.handle, v_ptr: T.handle, eps: T.float32):
    A = T.match_buffer(qx_ptr, (M, K), "uint8")
    SA = T.match_buffer(sx_ptr, (M, KB), "float32")
    B = T.match_buffer(qw_ptr, (N, K), "uint8")
    SB = T.match_buffer(sw_ptr, (NB, KB), "float32")
    QB = T.match_buffer(qb_ptr, (QH * 128,), "bfloat16")
    KBIAS = T.match_buffer(kb_ptr, (KVH * 128,), "bfloat16")
    VB = T.match_buffer(vb_ptr, (KVH * 128,), "bfloat16")
    QN = T.match_buffer(qn_ptr, (128,), "bfloat16")
    KN = T.match_buffer(kn_ptr, (128,), "bfloat16")
    QO = T.match_buffer(q_ptr, (BATCH, QH, SEQ, 128), "bfloat16")
    KO = T.match_buffer(k_ptr, (BATCH, KVH, SEQ, 128), "bfloat16")
    VO = T.match_buffer(v_ptr, (BATCH, KVH, SEQ, 128), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([NB, M // 128])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STB,), "uint8", scope="shared.dyn", align=1024)
        red = T.alloc_buffer((128 * 4,), "float32", scope="shared")
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        part = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        srow = T.alloc_buffer((8,), "float32", scope="local")
        f = T.alloc_buffer((1,), "float32", scope="local")
        s = T.alloc_buffer((1,), "float32", scope="local")
        rstd = T.alloc_buffer((1,), "float32", scope="local")
        yv = T.alloc_buffer((2,), "bfloat16", scope="local")
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                for e in T.unroll(4):
                    acc[mt, nt, e] = T.float32(0)
        for st in T.unroll(STAGES - 1):
            load_stage(sm, st, A, B, by * 128, bx * 128, st, tx)
            T.ptx.cp.async_.commit_group()
        for kb in T.serial(KB):
            T.ptx.cp.async_.wait_group(STAGES - 2)
            T.cuda.cta_sync()
            if kb + STAGES - 1 < KB:
                load_stage(sm, (kb + STAGES - 1) % STAGES, A, B, by * 128, bx * 128, kb + STAGES - 1, tx)
            T.ptx.cp.async_.commit_group()
            for mt in T.unroll(4):
                for h in T.unroll(2):           # rows 64 wm + 16 mt + g + 8 h
                    srow[mt * 2 + h] = SA[by * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8, kb]
            for mt in T.unroll(4):
                for nt in T.unroll(4):
                    for e in T.unroll(4):
                        part[mt, nt, e] = T.float32(0)
            mma_stage(sm, kb % STAGES * STB + tx // 128 * 64 * 128, kb % STAGES * STB + TILE + tx // 32 % 4 * 32 * 128,
                      part, af, bf, tx % 32)
            for mt in T.unroll(4):
                for h in T.unroll(2):
                    f[0] = srow[mt * 2 + h] * SB[bx, kb]
                    for nt in T.unroll(4):
                        for e in T.unroll(2):
                            acc[mt, nt, h * 2 + e] = T.call_pure_extern("float32", "__fmaf_rn", part[mt, nt, h * 2 + e], f[0],
                                                                        acc[mt, nt, h * 2 + e])
        T.ptx.cp.async_.wait_group(0)
        if bx < QH:
            bias_round(acc, QB, bx, tx)
            head_norm(acc, QN, red, s, rstd, eps, tx)
            store_heads(acc, QO, bx, by, tx, yv)
        elif bx < QH + KVH:
            bias_round(acc, KBIAS, bx - QH, tx)
            head_norm(acc, KN, red, s, rstd, eps, tx)
            store_heads(acc, KO, bx - QH, by, tx, yv)
        else:
            bias_round(acc, VB, bx - (QH + KVH), tx)
            store_heads(acc, VO, bx - (QH + KVH), by, tx, yv)


MKB_PLAN = """/* mkb:plan
scratch qx uint8[batch_size * seq_len * hidden_size]
scratch sx fp32[batch_size * seq_len * hidden_size / 128]
scratch qw uint8[(q_size + 2 * kv_size) * hidden_size]
scratch sw fp32[(q_size + 2 * kv_size) * hidden_size / 16384]
launch quant_act grid(batch_size * seq_len * hidden_size / 1024) block(256)
  args(hidden_states, qx, sx, f32(1 / e4m3_max), f32(e4m3_max))
launch quant_weights_qkv grid(hidden_size / 128, (q_size + 2 * kv_size) / 128) block(256)
  args(q_weight, k_weight, v_weight, qw, sw, f32(1 / e4m3_max), f32(e4m3_max))
launch gemm_qkv_norm grid((q_size + 2 * kv_size) / 128, batch_size * seq_len / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, q_bias, k_bias, v_bias, q_norm_weight, k_norm_weight, q, k, v, f32(eps))
*/"""
