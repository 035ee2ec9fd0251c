"""Paged gather + FP8 upconversion in TIRx (port of solutions/cuda.cu).

One warp per output row (token), four rows per 128-thread CTA. Lane l dequantizes the 16 e4m3 values
[16 l, 16 l + 16) of the entry (group l // 8): widened to fp32 (exact), times the group's fp32 scale in
fp32, rounded to bf16 (the two roundings of reference.md), written with two 16-byte stores; lanes 0..7
also copy 8 of the 64 rope values. The row's request and entry are written as one inline expression
(3 requests: two comparisons against the running sums of seq_lens), so that TVM keeps the accesses
vectorized; the cache is read as bytes (16-byte vector loads), reinterpreted as e4m3 values, as the
little-endian fp32 scale and as the little-endian bf16 rope values."""
from tvm.script import tirx as T

NUM_REQUESTS = 3
BLOCK_SIZE = 64                   # a power of two: the position splits with shifts and masks
NUM_BLOCKS = 16
TABLE_WIDTH = 10                  # max_blocks
ENTRY = 656
NOPE = 512
OUT = 576
TOTAL_TOKENS = 641
SLOTS = NUM_BLOCKS * BLOCK_SIZE
ROWS_PER_CTA = 4
CTAS = (TOTAL_TOKENS + ROWS_PER_CTA - 1) // ROWS_PER_CTA   # 161

assert BLOCK_SIZE == 64 and NUM_REQUESTS == 3


@T.prim_func
def gather_upconvert(cache_ptr: T.handle, table_ptr: T.handle, lens_ptr: T.handle, out_ptr: T.handle):
    cache = T.match_buffer(cache_ptr, (SLOTS * ENTRY,), "uint8")
    table = T.match_buffer(table_ptr, (NUM_REQUESTS * TABLE_WIDTH,), "int32")
    lens = T.match_buffer(lens_ptr, (NUM_REQUESTS,), "int32")
    out = T.match_buffer(out_ptr, (TOTAL_TOKENS * OUT,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([128])
    raw = T.alloc_buffer((16,), "uint8", scope="local")
    scale_bytes = T.alloc_buffer((4,), "uint8", scope="local")
    rope_bytes = T.alloc_buffer((16,), "uint8", scope="local")
    res = T.alloc_buffer((16,), "bfloat16", scope="local")
    rope = T.alloc_buffer((8,), "bfloat16", scope="local")
    # row = bx * 4 + tx // 32; request r = (row >= L0) + (row >= L0 + L1), first row of r = F, position
    # p = row - F; entry byte offset = (table[r, p >> 6] * 64 + (p & 63)) * 656. Written inline each time
    # it is used (see the docstring); shifts and masks instead of // and % on a difference (a TVM 0.27
    # lowering problem).
    if bx * ROWS_PER_CTA + tx // 32 < TOTAL_TOKENS:
        for e in T.vectorized(16):
            raw[e] = cache[(table[(T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], 1, 0)
                + T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], 1, 0)) * TABLE_WIDTH
               + T.shift_right(bx * ROWS_PER_CTA + tx // 32
                               - T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], lens[0] + lens[1],
                                          T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], lens[0], 0)), 6)]
         * BLOCK_SIZE
         + T.bitwise_and(bx * ROWS_PER_CTA + tx // 32
                         - T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], lens[0] + lens[1],
                                    T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], lens[0], 0)), 63)) * ENTRY + tx % 32 * 16 + e]
        for e in T.vectorized(4):
            scale_bytes[e] = cache[(table[(T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], 1, 0)
                + T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], 1, 0)) * TABLE_WIDTH
               + T.shift_right(bx * ROWS_PER_CTA + tx // 32
                               - T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], lens[0] + lens[1],
                                          T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], lens[0], 0)), 6)]
         * BLOCK_SIZE
         + T.bitwise_and(bx * ROWS_PER_CTA + tx // 32
                         - T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], lens[0] + lens[1],
                                    T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], lens[0], 0)), 63)) * ENTRY + NOPE + tx % 32 // 8 * 4 + e]
        if tx % 32 < 8:
            for e in T.vectorized(16):
                rope_bytes[e] = cache[(table[(T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], 1, 0)
                + T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], 1, 0)) * TABLE_WIDTH
               + T.shift_right(bx * ROWS_PER_CTA + tx // 32
                               - T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], lens[0] + lens[1],
                                          T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], lens[0], 0)), 6)]
         * BLOCK_SIZE
         + T.bitwise_and(bx * ROWS_PER_CTA + tx // 32
                         - T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0] + lens[1], lens[0] + lens[1],
                                    T.Select(bx * ROWS_PER_CTA + tx // 32 >= lens[0], lens[0], 0)), 63)) * ENTRY + NOPE + 16 + tx % 32 * 16 + e]
        for e in T.unroll(16):
            # bf16(fp32(float(e4m3) * scale)): the scale is the little-endian fp32 of its four bytes
            res[e] = T.Cast("bfloat16", T.Cast("float32", T.reinterpret("float8_e4m3fn", raw[e]))
                            * T.reinterpret("float32", T.bitwise_or(
                                T.bitwise_or(T.Cast("uint32", scale_bytes[0]), T.shift_left(T.Cast("uint32", scale_bytes[1]), T.uint32(8))),
                                T.bitwise_or(T.shift_left(T.Cast("uint32", scale_bytes[2]), T.uint32(16)),
                                             T.shift_left(T.Cast("uint32", scale_bytes[3]), T.uint32(24))))))
        for h in T.unroll(2):
            for e in T.vectorized(8):
                out[(bx * ROWS_PER_CTA + tx // 32) * OUT + tx % 32 * 16 + h * 8 + e] = res[h * 8 + e]
        if tx % 32 < 8:
            for k in T.unroll(8):
                rope[k] = T.reinterpret("bfloat16", T.bitwise_or(
                    T.Cast("uint16", rope_bytes[2 * k]), T.shift_left(T.Cast("uint16", rope_bytes[2 * k + 1]), T.uint16(8))))
            for e in T.vectorized(8):
                out[(bx * ROWS_PER_CTA + tx // 32) * OUT + NOPE + tx % 32 * 8 + e] = rope[e]


MKB_PLAN = """/* mkb:plan
launch gather_upconvert grid(ceil_div(total_tokens, 4)) block(128) args(cache, block_table, seq_lens, gathered)
*/"""
