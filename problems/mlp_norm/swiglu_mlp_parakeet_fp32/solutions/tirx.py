# Measured on an H200 (2026-12-03) for the earlier Parakeet version of this problem (LayerNorm + plain SiLU
# MLP, 8000 tokens, the same GEMM core): 3486 us against the eager baseline's 3206 us (0.92x). Kept to
# show the DSL, and declared in spec.json as slower than the baseline (beats_baseline: false): a SIMT
# fp32 FMA GEMM is at best level with cuBLAS's SGEMM, and a 3xTF32 tensor-core path is not written in
# this port. solutions/cuda.cu is the fast solution.
"""SwiGLU MLP (original #32, reconstructed) in TIRx, fp32: out = (silu(gate) * up) @ w_down^T with
gate, up = (x @ w_gate_up^T).chunk(2, -1) (the first half gates), with plain fp32 FMA GEMMs (no TF32;
register-tiled SIMT), two launches as in solutions/cuda.cu:
  1. swiglu_up: each CTA computes 128 rows x 64 gate columns j and the 64 up columns I + j (its B tile's
     two halves), so each thread holds gate and up of the same 4 columns; the epilogue gates as eager
     rounds it: s = 1 / (1 + expf(-gate)), g = gate * s, act = g * up (M = tokens, K = hidden).
  2. mlp_down:  out = act @ w_down^T (M = tokens, N = hidden, K = intermediate).
GEMM core (a T.macro shared by both): 128 x 128 output tile per 256-thread CTA, K tiles of 16; each thread
owns an 8 x 8 block (rows 64 * (i / 4) + 4 * (tid / 16) + i % 4, columns 64 * (j / 4) + 4 * (tid % 16) + j % 4)
in fp32 FMA with blocked summation: each K tile's 16 products are summed from zero into a partial that is then
added to the running fp32 sum. Both operands are K-contiguous; each K tile is loaded as float4 along K into
registers and stored transposed into shared memory as [k][m] (row stride 132 floats), double-buffered (next
tile's loads in flight during the current tile's products, one barrier per tile).
Shapes are fixed: tokens = 64 x 128 = 8192, hidden = 1024, intermediate = 4096.
Status: compile-checked only in this form (the GEMM core ran on the H200 in the earlier version). Expected
speed: SIMT fp32, roughly at or somewhat below the eager cuBLAS SGEMM baseline, several times slower than
solutions/cuda.cu's 3xTF32 tensor-core GEMMs."""
from tvm.script import tirx as T

TOKENS = 8192       # batch_size * seq_len
HIDDEN = 1024       # hidden_size
INTER = 4096        # intermediate_size (w_gate_up has 2 * INTER rows)

BM = 128            # tile rows (M)
BN = 128            # tile columns (N)
BK = 16             # K tile
LDS = 132           # row stride (floats) of a [k][m] / [k][n] shared tile
TILE = BK * LDS     # floats per shared tile buffer
THREADS = 256
MT = (TOKENS + BM - 1) // BM    # 64 M tiles

assert INTER % 64 == 0 and HIDDEN % BN == 0 and HIDDEN % BK == 0 and INTER % BK == 0
assert BM * BK // 4 == 2 * THREADS


@T.macro
def gemm_kmajor(A, B, acc, tacc, a_s, b_s, ra, rb, af, bf, m0, n0, tx, KDIM, MLAST, BHALF):
    # acc[i * 8 + j] = sum_k A[m0 + row_i, k] * B[n0 + col_j, k]; A is [*, KDIM], B is [*, KDIM] (both K-contiguous).
    # Blocked summation: each K tile's 16 products are summed from zero into tacc, then added to acc.
    # Tile columns 0..63 are B rows n0 .., columns 64..127 B rows n0 + BHALF .. (BHALF = 64: one contiguous
    # block of 128 rows; BHALF = INTER: 64 gate rows and the 64 matching up rows of the fused weight).
    # A rows past MLAST are read from row MLAST instead; their results are not stored.
    # Staging: chunk c = tx + p * 256 (p = 0, 1) holds row c / 4 = 64 p + tx / 4, k 4 (tx % 4) .. + 4.
    for e in T.unroll(64):
        acc[e] = T.float32(0)
    for p in T.unroll(2):
        for e in T.vectorized(4):
            ra[p * 4 + e] = A[T.min(m0 + p * 64 + tx // 4, MLAST) * KDIM + tx % 4 * 4 + e]
        for e in T.vectorized(4):
            rb[p * 4 + e] = B[(n0 + p * BHALF + tx // 4) * KDIM + tx % 4 * 4 + e]
    for p in T.unroll(2):
        for e in T.unroll(4):
            a_s[(tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = ra[p * 4 + e]
            b_s[(tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = rb[p * 4 + e]
    T.cuda.cta_sync()
    for kt in T.serial(KDIM // BK):
        if kt + 1 < KDIM // BK:
            for p in T.unroll(2):
                for e in T.vectorized(4):
                    ra[p * 4 + e] = A[T.min(m0 + p * 64 + tx // 4, MLAST) * KDIM + (kt + 1) * BK + tx % 4 * 4 + e]
                for e in T.vectorized(4):
                    rb[p * 4 + e] = B[(n0 + p * BHALF + tx // 4) * KDIM + (kt + 1) * BK + tx % 4 * 4 + e]
        for e in T.unroll(64):
            tacc[e] = T.float32(0)
        for kk in T.unroll(BK):
            for h in T.unroll(2):
                for e in T.vectorized(4):
                    af[h * 4 + e] = a_s[kt % 2 * TILE + kk * LDS + h * 64 + tx // 16 * 4 + e]
                for e in T.vectorized(4):
                    bf[h * 4 + e] = b_s[kt % 2 * TILE + kk * LDS + h * 64 + tx % 16 * 4 + e]
            for i in T.unroll(8):
                for j in T.unroll(8):
                    tacc[i * 8 + j] = tacc[i * 8 + j] + af[i] * bf[j]
        # blocked summation: the tile's 16-term partial is added to the running fp32 sums once per tile
        for e in T.unroll(64):
            acc[e] = acc[e] + tacc[e]
        if kt + 1 < KDIM // BK:
            for p in T.unroll(2):
                for e in T.unroll(4):
                    a_s[(kt + 1) % 2 * TILE + (tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = ra[p * 4 + e]
                    b_s[(kt + 1) % 2 * TILE + (tx % 4 * 4 + e) * LDS + p * 64 + tx // 4] = rb[p * 4 + e]
        T.cuda.cta_sync()


@T.prim_func
def swiglu_up(x_ptr: T.handle, w_ptr: T.handle, act_ptr: T.handle):
    a_x = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "float32")
    b_w = T.match_buffer(w_ptr, (2 * INTER * HIDDEN,), "float32")
    d_act = T.match_buffer(act_ptr, (TOKENS * INTER,), "float32")
    T.device_entry()
    bx = T.cta_id([MT * (INTER // 64)])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1): acc + tacc = 128 regs
        acc = T.alloc_buffer((64,), "float32", scope="local")
        tacc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((8,), "float32", scope="local")
        rb = T.alloc_buffer((8,), "float32", scope="local")
        res = T.alloc_buffer((4,), "float32", scope="local")
        hv = T.alloc_buffer((1,), "float32", scope="local")
        sv = T.alloc_buffer((1,), "float32", scope="local")
        a_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        # CTA bx: M tile bx / 64, act columns (bx % 64) * 64 .. + 63; acc[i * 8 + e] gate, acc[i * 8 + 4 + e] up
        gemm_kmajor(a_x, b_w, acc, tacc, a_s, b_s, ra, rb, af, bf, bx // (INTER // 64) * BM, bx % (INTER // 64) * 64,
                    tx, HIDDEN, TOKENS - 1, INTER)
        for i in T.unroll(8):
            if bx // (INTER // 64) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < TOKENS:
                for e in T.unroll(4):
                    hv[0] = acc[i * 8 + e]
                    sv[0] = T.float32(1) / (T.float32(1) + T.call_pure_extern("float32", "expf", T.float32(0) - hv[0]))
                    res[e] = hv[0] * sv[0] * acc[i * 8 + 4 + e]     # (gate * s) * up, each product rounded
                for e in T.vectorized(4):
                    d_act[(bx // (INTER // 64) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * INTER
                          + bx % (INTER // 64) * 64 + tx % 16 * 4 + e] = res[e]


@T.prim_func
def mlp_down(act_ptr: T.handle, w_ptr: T.handle, out_ptr: T.handle):
    a_act = T.match_buffer(act_ptr, (TOKENS * INTER,), "float32")
    b_w = T.match_buffer(w_ptr, (HIDDEN * INTER,), "float32")
    e_out = T.match_buffer(out_ptr, (TOKENS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([MT * (HIDDEN // BN)])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1): acc + tacc = 128 regs
        acc = T.alloc_buffer((64,), "float32", scope="local")
        tacc = T.alloc_buffer((64,), "float32", scope="local")
        af = T.alloc_buffer((8,), "float32", scope="local")
        bf = T.alloc_buffer((8,), "float32", scope="local")
        ra = T.alloc_buffer((8,), "float32", scope="local")
        rb = T.alloc_buffer((8,), "float32", scope="local")
        res = T.alloc_buffer((4,), "float32", scope="local")
        a_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        b_s = T.alloc_buffer((2 * TILE,), "float32", scope="shared")
        # CTA bx: M tile bx / 8, N tile bx % 8
        gemm_kmajor(a_act, b_w, acc, tacc, a_s, b_s, ra, rb, af, bf, bx // (HIDDEN // BN) * BM,
                    bx % (HIDDEN // BN) * BN, tx, INTER, TOKENS - 1, 64)
        for i in T.unroll(8):
            if bx // (HIDDEN // BN) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4 < TOKENS:
                for h in T.unroll(2):
                    for e in T.unroll(4):
                        res[e] = acc[i * 8 + h * 4 + e]
                    for e in T.vectorized(4):
                        e_out[(bx // (HIDDEN // BN) * BM + i // 4 * 64 + tx // 16 * 4 + i % 4) * HIDDEN
                              + bx % (HIDDEN // BN) * BN + h * 64 + tx % 16 * 4 + e] = res[e]


MKB_PLAN = """/* mkb:plan
scratch act fp32[batch_size * seq_len * intermediate_size]
launch swiglu_up grid(ceil_div(batch_size * seq_len, 128) * (intermediate_size / 64)) block(256)
  args(x, w_gate_up, act)
launch mlp_down grid(ceil_div(batch_size * seq_len, 128) * (hidden_size / 128)) block(256)
  args(act, w_down, out)
*/"""
