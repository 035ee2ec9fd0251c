"""Paged gather + FP8 upconversion in CuTe DSL: the algorithm of solutions/cuda.cu.

One warp per output row (token), four rows per 128-thread block. Lane l reads the 16 e4m3 bytes
[16 l, 16 l + 16) of the entry with one 16-byte load (they lie in group l // 8), widens them to fp32
(exact), multiplies by the group's fp32 scale in fp32 and rounds to bf16 (the two roundings of
reference.md), and writes 32 bytes; lanes 0..7 also copy the 128 rope bytes with one 16-byte load and
store each. Entries are 656 = 16 * 41 bytes, so the entry is viewed as 16-byte e4m3 chunks, as 164 fp32
words (the scales are words 128..131) and as 328 bf16 values (rope = values 264..327)."""
import cutlass
import cutlass.cute as cute

NUM_REQUESTS = 3
BLOCK_SIZE = 64
NUM_BLOCKS = 16
TABLE_WIDTH = 10                   # max_blocks
ENTRY = 656
NOPE = 512
OUT = 576
TOTAL_TOKENS = 641
SLOTS = NUM_BLOCKS * BLOCK_SIZE    # entries in the cache
ROWS_PER_BLOCK = 4
F32, BF16, I32, FP8 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32, cutlass.Float8E4M3FN

assert ENTRY % 16 == 0 and NOPE == 32 * 16


@cute.kernel
def gather_upconvert(cache: cute.Pointer, block_table: cute.Pointer, seq_lens: cute.Pointer,
                     gathered: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    row = bidx * ROWS_PER_BLOCK + tidx // 32
    lens = cute.make_tensor(seq_lens, cute.make_layout(NUM_REQUESTS))
    table = cute.make_tensor(block_table, cute.make_layout(NUM_REQUESTS * TABLE_WIDTH))
    values = cute.make_tensor(cute.recast_ptr(cache, dtype=FP8),
                              cute.make_layout((SLOTS, ENTRY // 16, 16), stride=(ENTRY, 16, 1)))
    words = cute.make_tensor(cute.recast_ptr(cache, dtype=F32), cute.make_layout((SLOTS, ENTRY // 4), stride=(ENTRY // 4, 1)))
    halves = cute.make_tensor(cute.recast_ptr(cache, dtype=BF16),
                              cute.make_layout((SLOTS, ENTRY // 16, 8), stride=(ENTRY // 2, 8, 1)))
    out = cute.make_tensor(gathered, cute.make_layout((TOTAL_TOKENS, OUT // 8, 8), stride=(OUT, 8, 1)))
    copy_fp8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), FP8, num_bits_per_copy=128)
    copy_bf16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)

    if row < TOTAL_TOKENS:
        r = I32(0)
        first = I32(0)
        running = I32(0)
        for k in cutlass.range_constexpr(NUM_REQUESTS - 1):
            running = running + lens[k]
            if row >= running:
                r = r + 1
                first = running
        p = row - first
        entry = table[r * TABLE_WIDTH + p // BLOCK_SIZE] * BLOCK_SIZE + p % BLOCK_SIZE

        raw = cute.make_rmem_tensor((16,), FP8)
        cute.copy(copy_fp8, values[entry, lane, None], raw)
        scale = words[entry, NOPE // 4 + lane // 8]
        rope = cute.make_rmem_tensor((8,), BF16)
        if lane < 8:
            cute.copy(copy_bf16, halves[entry, (NOPE + 16) // 16 + lane, None], rope)
        res = cute.make_rmem_tensor(cute.make_layout((8, 2), stride=(1, 8)), BF16)  # element k at offset k
        res.store((raw.load().to(F32) * scale).to(BF16))
        for h in cutlass.range_constexpr(2):
            cute.copy(copy_bf16, res[None, h], out[row, 2 * lane + h, None])
        if lane < 8:
            cute.copy(copy_bf16, rope, out[row, NOPE // 8 + lane, None])


MKB_PLAN = """/* mkb:plan
launch gather_upconvert grid(ceil_div(total_tokens, 4)) block(128) args(cache, block_table, seq_lens, gathered)
*/"""
