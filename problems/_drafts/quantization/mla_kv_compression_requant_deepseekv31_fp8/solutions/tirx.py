"""DeepSeek-V3.1 MLA KV compression with blockwise FP8 (e4m3) quantization and re-quantization of the
normalized latent, in TIRx: the algorithm of solutions/cuda.cu.

  1. quant_act: 1 x 128 activation blocks of hidden_states, a warp per block (4 values a lane): amax by
     warp_max, scale = __fmul_rn(amax, fp32(1/448)), codes e4m3(clamp(__fdiv_rn(x, scale), -448, 448)).
  2. quant_weight_a / quant_weight_b: the 128 x 128 blocks of kv_a_proj_weight [640, 7168] and
     kv_b_proj_weight [32768, 512], a 256-thread CTA per block (thread t: 64 values of row t / 2).
  3. gemm_kv_a: c = dq(x) dq(W_a)^T for 640 columns on mma.sync m16n8k32 e4m3 (128 x 128 tiles, 8 warps as
     2 x 4, 128-wide K steps in a 4-stage cp.async ring into XOR-swizzled shared memory, each K block added
     as fma(part, sx[row] * sw[tile], acc)); bf16; columns 0..511 to the latent scratch, 512..575 to k_pe,
     576..639 (padding) dropped.
  4. latent_norm_quant: a warp per token: the fma-chain sum of squares (lane l: elements 128 j + 4 l ..),
     warp_sum, rstd = rsqrtf(ss * (1/512) + eps), n = bf16(v * rstd), a = bf16(w * n), then a's four
     1 x 128 blocks quantized as in step 1.
  5. gemm_kv_b: the same GEMM core over K = 512, rounded to bf16 into kv_expanded ([T, 32768] row-major).
fp32(1/448) and eps come in as plan arguments."""
from tvm.script import tirx as T

BATCH, SEQ, HID = 64, 256, 7168
M = BATCH * SEQ                       # tokens
RANK, ROPE, NA = 512, 64, 640         # latent width, rope key width, padded kv_a output
NB_OUT = 32768                        # kv_b output features (128 heads x 256)
STAGES = 4
TILE = 128 * 128
STB = 2 * TILE
assert HID % 128 == 0 and RANK % 128 == 0 and HID // 128 >= STAGES - 1 and RANK // 128 >= STAGES - 1


@T.prim_func
def quant_act(x_ptr: T.handle, q_ptr: T.handle, s_ptr: T.handle, inv_max: T.float32, fp8_max: T.float32):
    X = T.match_buffer(x_ptr, (M * HID,), "bfloat16")
    Q = T.match_buffer(q_ptr, (M * HID,), "float8_e4m3fn")
    S = T.match_buffer(s_ptr, (M * HID // 128,), "float32")
    T.device_entry()
    bx = T.cta_id([M * HID // 1024])
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
def quant_block(W, QW, SW, by, bx, tx, wv, qv, m, red, inv_max, fp8_max):
    # the 128 x 128 block (by, bx): thread tx owns 64 values of row tx // 2
    for j in T.unroll(8):
        for e in T.vectorized(8):
            wv[j * 8 + e] = W[by * 128 + tx // 2, bx * 128 + tx % 2 * 64 + j * 8 + e]
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
            QW[by * 128 + tx // 2, bx * 128 + tx % 2 * 64 + j * 8 + e] = qv[j * 8 + e]
    if tx == 0:
        SW[by, bx] = m[0]


@T.prim_func
def quant_weight_a(w_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle, inv_max: T.float32, fp8_max: T.float32):
    W = T.match_buffer(w_ptr, (NA, HID), "bfloat16")
    QW = T.match_buffer(qw_ptr, (NA, HID), "float8_e4m3fn")
    SW = T.match_buffer(sw_ptr, (NA // 128, HID // 128), "float32")
    T.device_entry()
    bx, by = T.cta_id([HID // 128, NA // 128])
    tx = T.thread_id([256])
    wv = T.alloc_buffer((64,), "bfloat16", scope="local")
    qv = T.alloc_buffer((64,), "float8_e4m3fn", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((8,), "float32", scope="shared")
    quant_block(W, QW, SW, by, bx, tx, wv, qv, m, red, inv_max, fp8_max)


@T.prim_func
def quant_weight_b(w_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle, inv_max: T.float32, fp8_max: T.float32):
    W = T.match_buffer(w_ptr, (NB_OUT, RANK), "bfloat16")
    QW = T.match_buffer(qw_ptr, (NB_OUT, RANK), "float8_e4m3fn")
    SW = T.match_buffer(sw_ptr, (NB_OUT // 128, RANK // 128), "float32")
    T.device_entry()
    bx, by = T.cta_id([RANK // 128, NB_OUT // 128])
    tx = T.thread_id([256])
    wv = T.alloc_buffer((64,), "bfloat16", scope="local")
    qv = T.alloc_buffer((64,), "float8_e4m3fn", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((8,), "float32", scope="shared")
    quant_block(W, QW, SW, by, bx, tx, wv, qv, m, red, inv_max, fp8_max)


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
def gemm_tile(sm, A, SA, B, SB, KBLK, by, bx, tx, acc, part, af, bf, srow, f):
    # acc = the CTA's 128 x 128 tile (rows 128 by.., B rows 128 bx..) of dq(A) dq(B)^T over KBLK K blocks
    for mt in T.unroll(4):
        for nt in T.unroll(4):
            for e in T.unroll(4):
                acc[mt, nt, e] = T.float32(0)
    for st in T.unroll(STAGES - 1):
        load_stage(sm, st, A, B, by * 128, bx * 128, st, tx)
        T.ptx.cp.async_.commit_group()
    for kb in T.serial(KBLK):
        T.ptx.cp.async_.wait_group(STAGES - 2)
        T.cuda.cta_sync()
        if kb + STAGES - 1 < KBLK:
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


@T.prim_func
def gemm_kv_a(qx_ptr: T.handle, sx_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle, latent_ptr: T.handle,
              kpe_ptr: T.handle):
    A = T.match_buffer(qx_ptr, (M, HID), "uint8")
    SA = T.match_buffer(sx_ptr, (M, HID // 128), "float32")
    B = T.match_buffer(qw_ptr, (NA, HID), "uint8")
    SB = T.match_buffer(sw_ptr, (NA // 128, HID // 128), "float32")
    LAT = T.match_buffer(latent_ptr, (M, RANK), "bfloat16")
    KPE = T.match_buffer(kpe_ptr, (M, ROPE), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([NA // 128, M // 128])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STB,), "uint8", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        part = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        srow = T.alloc_buffer((8,), "float32", scope="local")
        f = T.alloc_buffer((1,), "float32", scope="local")
        yv = T.alloc_buffer((2,), "bfloat16", scope="local")
        gemm_tile(sm, A, SA, B, SB, HID // 128, by, bx, tx, acc, part, af, bf, srow, f)
        # acc[mt, nt, 2h + e]: token 128 by + 64 wm + 16 mt + lane // 4 + 8 h, column 128 bx + 32 wn + 8 nt + 2 (lane % 4) + e
        for mt in T.unroll(4):
            for h in T.unroll(2):
                for nt in T.unroll(4):
                    for e in T.unroll(2):
                        yv[e] = T.Cast("bfloat16", acc[mt, nt, 2 * h + e])
                    if bx < RANK // 128:
                        for e in T.vectorized(2):
                            LAT[by * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8,
                                bx * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = yv[e]
                    elif tx // 32 % 4 < 2:          # columns 512..575 (the rope key); 576..639 are padding
                        for e in T.vectorized(2):
                            KPE[by * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8,
                                tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = yv[e]


@T.prim_func
def latent_norm_quant(latent_ptr: T.handle, w_ptr: T.handle, q_ptr: T.handle, s_ptr: T.handle, eps: T.float32,
                      inv_max: T.float32, fp8_max: T.float32):
    LAT = T.match_buffer(latent_ptr, (M, RANK), "bfloat16")
    W = T.match_buffer(w_ptr, (RANK,), "bfloat16")
    Q = T.match_buffer(q_ptr, (M, RANK), "float8_e4m3fn")
    S = T.match_buffer(s_ptr, (M, RANK // 128), "float32")
    T.device_entry()
    bx = T.cta_id([M // 8])
    tx = T.thread_id([256])
    lv = T.alloc_buffer((16,), "bfloat16", scope="local")
    wv = T.alloc_buffer((16,), "bfloat16", scope="local")
    v = T.alloc_buffer((16,), "float32", scope="local")
    qv = T.alloc_buffer((16,), "float8_e4m3fn", scope="local")
    ss = T.alloc_buffer((1,), "float32", scope="local")
    sc = T.alloc_buffer((4,), "float32", scope="local")
    # token 8 bx + tx // 32; lane tx % 32 holds elements 128 j + 4 (tx % 32) + e of block j
    for j in T.unroll(4):
        for e in T.vectorized(4):
            lv[j * 4 + e] = LAT[bx * 8 + tx // 32, j * 128 + tx % 32 * 4 + e]
        for e in T.vectorized(4):
            wv[j * 4 + e] = W[j * 128 + tx % 32 * 4 + e]
    ss[0] = T.float32(0)
    for i in T.unroll(16):
        v[i] = T.Cast("float32", lv[i])
        ss[0] = T.call_pure_extern("float32", "__fmaf_rn", v[i], v[i], ss[0])
    ss[0] = T.cuda.warp_sum(ss[0], 32)
    ss[0] = T.rsqrt(ss[0] * T.float32(1.0 / RANK) + eps)
    for j in T.unroll(4):
        sc[j] = T.float32(0)
        for e in T.unroll(4):
            v[j * 4 + e] = T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", wv[j * 4 + e])
                                                    * T.Cast("float32", T.Cast("bfloat16", v[j * 4 + e] * ss[0]))))
            sc[j] = T.max(sc[j], T.abs(v[j * 4 + e]))
        sc[j] = T.cuda.warp_max(sc[j], 32)
        sc[j] = T.call_pure_extern("float32", "__fmul_rn", sc[j], inv_max)
        for e in T.unroll(4):
            qv[j * 4 + e] = T.Cast("float8_e4m3fn", T.min(T.max(T.call_pure_extern("float32", "__fdiv_rn", v[j * 4 + e], sc[j]),
                                                                T.float32(0) - fp8_max), fp8_max))
        for e in T.vectorized(4):
            Q[bx * 8 + tx // 32, j * 128 + tx % 32 * 4 + e] = qv[j * 4 + e]
        if tx % 32 == 0:
            S[bx * 8 + tx // 32, j] = sc[j]


@T.prim_func
def gemm_kv_b(qa_ptr: T.handle, sa_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle, out_ptr: T.handle):
    A = T.match_buffer(qa_ptr, (M, RANK), "uint8")
    SA = T.match_buffer(sa_ptr, (M, RANK // 128), "float32")
    B = T.match_buffer(qw_ptr, (NB_OUT, RANK), "uint8")
    SB = T.match_buffer(sw_ptr, (NB_OUT // 128, RANK // 128), "float32")
    OUT = T.match_buffer(out_ptr, (M, NB_OUT), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([NB_OUT // 128, M // 128])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STB,), "uint8", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        part = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        srow = T.alloc_buffer((8,), "float32", scope="local")
        f = T.alloc_buffer((1,), "float32", scope="local")
        yv = T.alloc_buffer((2,), "bfloat16", scope="local")
        gemm_tile(sm, A, SA, B, SB, RANK // 128, by, bx, tx, acc, part, af, bf, srow, f)
        for mt in T.unroll(4):
            for h in T.unroll(2):
                for nt in T.unroll(4):
                    for e in T.unroll(2):
                        yv[e] = T.Cast("bfloat16", acc[mt, nt, 2 * h + e])
                    for e in T.vectorized(2):
                        OUT[by * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8,
                            bx * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = yv[e]


MKB_PLAN = """/* mkb:plan
scratch qx uint8[batch_size * seq_len * hidden_size]
scratch sx fp32[batch_size * seq_len * hidden_size / 128]
scratch qwa uint8[kv_a_output_dim_padded * hidden_size]
scratch swa fp32[kv_a_output_dim_padded * hidden_size / 16384]
scratch qwb uint8[kv_b_output_dim * kv_lora_rank]
scratch swb fp32[kv_b_output_dim * kv_lora_rank / 16384]
scratch latent bf16[batch_size * seq_len * kv_lora_rank]
scratch qa uint8[batch_size * seq_len * kv_lora_rank]
scratch sa fp32[batch_size * seq_len * kv_lora_rank / 128]
launch quant_act grid(batch_size * seq_len * hidden_size / 1024) block(256)
  args(hidden_states, qx, sx, f32(1 / e4m3_max), f32(e4m3_max))
launch quant_weight_a grid(hidden_size / 128, kv_a_output_dim_padded / 128) block(256)
  args(kv_a_proj_weight, qwa, swa, f32(1 / e4m3_max), f32(e4m3_max))
launch quant_weight_b grid(kv_lora_rank / 128, kv_b_output_dim / 128) block(256)
  args(kv_b_proj_weight, qwb, swb, f32(1 / e4m3_max), f32(e4m3_max))
launch gemm_kv_a grid(kv_a_output_dim_padded / 128, batch_size * seq_len / 128) block(256) shared(131072)
  args(qx, sx, qwa, swa, latent, k_pe)
launch latent_norm_quant grid(batch_size * seq_len / 8) block(256)
  args(latent, kv_a_layernorm_weight, qa, sa, f32(eps), f32(1 / e4m3_max), f32(e4m3_max))
launch gemm_kv_b grid(kv_b_output_dim / 128, batch_size * seq_len / 128) block(256) shared(131072)
  args(qa, sa, qwb, swb, kv_expanded)
*/"""
