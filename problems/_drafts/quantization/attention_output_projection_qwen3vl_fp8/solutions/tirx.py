"""Qwen3-VL o_proj with blockwise FP8 (e4m3) quantization in TIRx: the algorithm of solutions/cuda.cu.

  1. quant_act: 1 x 128 activation blocks, a warp per block (lane l holds columns 4l .. 4l + 3, an 8-byte
     load): amax by warp_max, scale = amax * fp32(1/448) (__fmul_rn), codes e4m3(clamp(x / scale)) with the
     IEEE division (__fdiv_rn) and the __nv_fp8_e4m3 constructor (round to nearest even, satfinite).
  2. quant_weight: 128 x 128 weight blocks in the weight's own [N, K] layout, a 256-thread CTA per block
     (thread t: 64 values of row t / 2), amax by warp_max and one shared slot per warp.
  3. gemm_fp8_bias: 128 x 128 output tiles, 8 warps as 2 x 4 (a warp 64 x 32), 128-wide K steps (one scale
     block each) in a 4-stage cp.async ring (131072 bytes of dynamic shared memory), 128-byte rows with the
     16-byte chunk c of row r at c ^ (r % 8), ldmatrix.x4 fragments and mma.sync m16n8k32 e4m3 (exact fp8
     products, fp32 accumulation). Each K block is accumulated from zero on its own and added into the
     result as fma(part, sx[row] * sw[tile], acc); the epilogue adds the bias and rounds to bf16 once.
fp32(1/448) comes in as a plan argument (f32(1 / e4m3_max)), so no printed constant decides a rounding."""
from tvm.script import tirx as T

M, N, K = 16384, 7680, 7680          # tokens, hidden_size, input_dim
KB = K // 128                        # scale blocks along K
STAGES = 4
TILE = 128 * 128                     # bytes of one operand tile (128 rows of 128 fp8)
STB = 2 * TILE                       # bytes per stage: A tile then B tile
assert M % 128 == 0 and N % 128 == 0 and K % 128 == 0 and KB >= STAGES - 1


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


@T.prim_func
def quant_weight(w_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle, inv_max: T.float32, fp8_max: T.float32):
    W = T.match_buffer(w_ptr, (N, K), "bfloat16")
    QW = T.match_buffer(qw_ptr, (N, K), "float8_e4m3fn")
    SW = T.match_buffer(sw_ptr, (N // 128, KB), "float32")
    T.device_entry()
    bx, by = T.cta_id([KB, N // 128])
    tx = T.thread_id([256])
    wv = T.alloc_buffer((64,), "bfloat16", scope="local")
    qv = T.alloc_buffer((64,), "float8_e4m3fn", scope="local")
    m = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((8,), "float32", scope="shared")
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


@T.macro
def load_stage(sm, slot, A, B, m0, n0, kb, tx):
    # A rows m0 .., B rows n0 .., K columns 128 kb ..: thread tx copies chunk tx % 8 of rows tx // 8 + 32 j
    for j in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STB + (tx // 8 + 32 * j) * 128 + T.bitwise_xor(tx % 8, tx // 8 % 8) * 16]),
            A.ptr_to([m0 + tx // 8 + 32 * j, kb * 128 + tx % 8 * 16]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STB + TILE + (tx // 8 + 32 * j) * 128 + T.bitwise_xor(tx % 8, tx // 8 % 8) * 16]),
            B.ptr_to([n0 + tx // 8 + 32 * j, kb * 128 + tx % 8 * 16]), 16)


@T.macro
def mma_stage(sm, sa, sb, part, af, bf, lane):
    # one 128-wide K block of the warp's 64 x 32: sa / sb = byte offsets of its first A / B row
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


@T.prim_func
def gemm_fp8_bias(qx_ptr: T.handle, sx_ptr: T.handle, qw_ptr: T.handle, sw_ptr: T.handle, bias_ptr: T.handle,
                  out_ptr: T.handle):
    A = T.match_buffer(qx_ptr, (M, K), "uint8")
    SA = T.match_buffer(sx_ptr, (M, KB), "float32")
    B = T.match_buffer(qw_ptr, (N, K), "uint8")
    SB = T.match_buffer(sw_ptr, (N // 128, KB), "float32")
    BIAS = T.match_buffer(bias_ptr, (N,), "bfloat16")
    OUT = T.match_buffer(out_ptr, (M, N), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([N // 128, M // 128])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STB,), "uint8", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        part = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        srow = T.alloc_buffer((8,), "float32", scope="local")
        f = T.alloc_buffer((1,), "float32", scope="local")
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                for e in T.unroll(4):
                    acc[mt, nt, e] = T.float32(0)
        for s in T.unroll(STAGES - 1):
            load_stage(sm, s, A, B, by * 128, bx * 128, s, tx)
            T.ptx.cp.async_.commit_group()
        for kb in T.serial(KB):
            T.ptx.cp.async_.wait_group(STAGES - 2)          # this thread's copies of block kb landed
            T.cuda.cta_sync()                               # everyone's; the slot of kb - 1 is free again
            if kb + STAGES - 1 < KB:
                load_stage(sm, (kb + STAGES - 1) % STAGES, A, B, by * 128, bx * 128, kb + STAGES - 1, tx)
            T.ptx.cp.async_.commit_group()
            for mt in T.unroll(4):
                for h in T.unroll(2):  # rows 64 wm + 16 mt + g + 8 h
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
                            acc[mt, nt, h * 2 + e] = T.call_pure_extern("float32", "__fmaf_rn", part[mt, nt, h * 2 + e], f[0], acc[mt, nt, h * 2 + e])
        T.ptx.cp.async_.wait_group(0)
        # acc[mt, nt, 2h + e]: row 64 wm + 16 mt + lane // 4 + 8 h, column 32 wn + 8 nt + 2 (lane % 4) + e
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                for h in T.unroll(2):
                    for e in T.unroll(2):
                        OUT[by * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8, bx * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = \
                            T.Cast("bfloat16", acc[mt, nt, h * 2 + e] + T.Cast("float32", BIAS[bx * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e]))


MKB_PLAN = """/* mkb:plan
scratch qx uint8[num_tokens * input_dim]
scratch sx fp32[num_tokens * input_dim / 128]
scratch qw uint8[hidden_size * input_dim]
scratch sw fp32[hidden_size * input_dim / 16384]
launch quant_act grid(num_tokens * input_dim / 1024) block(256) args(attn_output, qx, sx, f32(1 / e4m3_max), f32(e4m3_max))
launch quant_weight grid(input_dim / 128, hidden_size / 128) block(256) args(o_proj_weight, qw, sw, f32(1 / e4m3_max), f32(e4m3_max))
launch gemm_fp8_bias grid(hidden_size / 128, num_tokens / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, o_proj_bias, output)
*/"""
