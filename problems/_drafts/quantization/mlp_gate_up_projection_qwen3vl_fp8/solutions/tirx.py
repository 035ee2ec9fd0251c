"""Qwen3-VL gate/up projection with SiLU gating from block-scaled FP8 (e4m3) operands, in TIRx: the
algorithm of solutions/cuda.cu.

  1. transpose_bytes (twice): each weight from its K x N input layout to K-major N x K scratch (mma.sync
     wants its B operand K-contiguous, and ldmatrix has no 8-bit transpose on sm_90): 64 x 64 byte tiles
     through shared memory, 16-byte loads and stores.
  2. gemm_gate_up_silu: 128-token x 64-output tiles computing gate and up together. The B tile's 128 rows
     interleave the two weights by 16: tile row r = 32 j + w (w < 32) is gate row n0 + 16 j + w for w < 16
     and up row n0 + 16 j + w - 16 otherwise, so warp column j holds gate (n-tiles 0, 1) and up (n-tiles
     2, 3) of the same 16 outputs. 128-wide K steps (one scale block) in a 4-stage cp.async ring into
     XOR-swizzled shared memory (chunk c of row r at c ^ (r % 8)), ldmatrix.x4 and mma.sync m16n8k32 e4m3;
     each K block accumulated from zero and added as fma(part, scale_x[row] * scale_w[block], acc); the
     epilogue computes gate / (1 + exp(-gate)) * up in fp32 and rounds to bf16 once."""
from tvm.script import tirx as T

M, K, N = 8704, 3584, 18944          # tokens, hidden_size, intermediate_size
KB = K // 128
STAGES = 4
TILE = 128 * 128
STB = 2 * TILE
assert M % 128 == 0 and N % 128 == 0 and K % 128 == 0 and KB >= STAGES - 1


@T.prim_func
def transpose_bytes(in_ptr: T.handle, out_ptr: T.handle):
    SRC = T.match_buffer(in_ptr, (K, N), "uint8")
    DST = T.match_buffer(out_ptr, (N, K), "uint8")
    T.device_entry()
    bx, by = T.cta_id([N // 64, K // 64])
    tx = T.thread_id([256])
    tile = T.alloc_buffer((64, 68), "uint8", scope="shared")
    v = T.alloc_buffer((16,), "uint8", scope="local")
    w = T.alloc_buffer((16,), "uint8", scope="local")
    for e in T.vectorized(16):                       # input row tx // 4, 16 columns from 16 (tx % 4)
        v[e] = SRC[by * 64 + tx // 4, bx * 64 + tx % 4 * 16 + e]
    for j in T.unroll(16):
        tile[tx // 4, tx % 4 * 16 + j] = v[j]
    T.cuda.cta_sync()
    for j in T.unroll(16):                           # output row tx // 4 (an input column), 16 input rows
        w[j] = tile[tx % 4 * 16 + j, tx // 4]
    for e in T.vectorized(16):
        DST[bx * 64 + tx // 4, by * 64 + tx % 4 * 16 + e] = w[e]


@T.macro
def load_stage(sm, slot, A, WG, WU, m0, n0, kb, tx):
    # A rows m0 + tx // 8 + 32 j; B tile row tx // 8 + 32 j: gate (tx < 128) or up row n0 + 16 j + tx // 8 % 16
    for j in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STB + (tx // 8 + 32 * j) * 128 + T.bitwise_xor(tx % 8, tx // 8 % 8) * 16]),
            A.ptr_to([m0 + tx // 8 + 32 * j, kb * 128 + tx % 8 * 16]), 16)
        if tx < 128:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([slot * STB + TILE + (tx // 8 + 32 * j) * 128 + T.bitwise_xor(tx % 8, tx // 8 % 8) * 16]),
                WG.ptr_to([n0 + 16 * j + tx // 8 % 16, kb * 128 + tx % 8 * 16]), 16)
        else:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([slot * STB + TILE + (tx // 8 + 32 * j) * 128 + T.bitwise_xor(tx % 8, tx // 8 % 8) * 16]),
                WU.ptr_to([n0 + 16 * j + tx // 8 % 16, kb * 128 + tx % 8 * 16]), 16)


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
def gemm_gate_up_silu(x_ptr: T.handle, sx_ptr: T.handle, wg_ptr: T.handle, sg_ptr: T.handle, wu_ptr: T.handle,
                      su_ptr: T.handle, out_ptr: T.handle):
    A = T.match_buffer(x_ptr, (M, K), "uint8")
    SA = T.match_buffer(sx_ptr, (M, KB), "float32")
    WG = T.match_buffer(wg_ptr, (N, K), "uint8")
    SG = T.match_buffer(sg_ptr, (N // 128, KB), "float32")
    WU = T.match_buffer(wu_ptr, (N, K), "uint8")
    SU = T.match_buffer(su_ptr, (N // 128, KB), "float32")
    OUT = T.match_buffer(out_ptr, (M, N), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([N // 64, M // 128])
    tx = T.thread_id([256])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STB,), "uint8", scope="shared.dyn", align=1024)
        acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        part = T.alloc_buffer((4, 4, 4), "float32", scope="local")
        af = T.alloc_buffer((16,), "uint32", scope="local")
        bf = T.alloc_buffer((8,), "uint32", scope="local")
        srow = T.alloc_buffer((8,), "float32", scope="local")
        f = T.alloc_buffer((2,), "float32", scope="local")
        gu = T.alloc_buffer((2,), "float32", scope="local")
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                for e in T.unroll(4):
                    acc[mt, nt, e] = T.float32(0)
        for s in T.unroll(STAGES - 1):
            load_stage(sm, s, A, WG, WU, by * 128, bx * 64, s, tx)
            T.ptx.cp.async_.commit_group()
        for kb in T.serial(KB):
            T.ptx.cp.async_.wait_group(STAGES - 2)
            T.cuda.cta_sync()
            if kb + STAGES - 1 < KB:
                load_stage(sm, (kb + STAGES - 1) % STAGES, A, WG, WU, by * 128, bx * 64, kb + STAGES - 1, tx)
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
                for h in T.unroll(2):  # the 64 outputs lie in scale block (64 bx) / 128
                    f[0] = srow[mt * 2 + h] * SG[bx // 2, kb]
                    f[1] = srow[mt * 2 + h] * SU[bx // 2, kb]
                    for nt in T.unroll(4):
                        for e in T.unroll(2):
                            acc[mt, nt, h * 2 + e] = T.call_pure_extern("float32", "__fmaf_rn", part[mt, nt, h * 2 + e], f[nt // 2],
                                                                        acc[mt, nt, h * 2 + e])
        T.ptx.cp.async_.wait_group(0)
        # gate acc[mt, nt, 2h + e] and up acc[mt, nt + 2, 2h + e] (nt < 2): row 64 wm + 16 mt + lane // 4 + 8 h,
        # output column n0 + 16 wn + 8 nt + 2 (lane % 4) + e
        for mt in T.unroll(4):
            for h in T.unroll(2):
                for nt in T.unroll(2):
                    for e in T.unroll(2):
                        gu[0] = acc[mt, nt, h * 2 + e]
                        gu[1] = gu[0] / (T.float32(1) + T.exp(T.float32(0) - gu[0])) * acc[mt, nt + 2, h * 2 + e]
                        OUT[by * 128 + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8, bx * 64 + tx // 32 % 4 * 16 + nt * 8 + tx % 4 * 2 + e] = \
                            T.Cast("bfloat16", gu[1])


MKB_PLAN = """/* mkb:plan
scratch wg_t uint8[hidden_size * intermediate_size]
scratch wu_t uint8[hidden_size * intermediate_size]
launch transpose_bytes grid(intermediate_size / 64, hidden_size / 64) block(256) args(gate_proj_weight, wg_t)
launch transpose_bytes grid(intermediate_size / 64, hidden_size / 64) block(256) args(up_proj_weight, wu_t)
launch gemm_gate_up_silu grid(intermediate_size / 64, m / 128) block(256) shared(131072)
  args(x, scale_x, wg_t, scale_gate, wu_t, scale_up, output)
*/"""
