"""Paged MLA cache gather + e4m3 dequantization in CuTe DSL: the algorithm of solutions/cuda.cu.

Thread i handles 8 consecutive bytes (chunk c = i % 72) of output row t = i / 72: it finds the row's
request by walking the running sum of seq_lens, reads the 8 e4m3 bytes of the entry with one 8-byte load,
widens them to fp32 (exact), multiplies by the fp32 scale (the one rounding of reference.md) and writes
32 bytes with two 16-byte stores. 4096 * 72 items are exactly 1152 blocks of 256 threads."""
import cutlass
import cutlass.cute as cute

NUM_REQUESTS = 8
BLOCK_SIZE = 16
NUM_BLOCKS = 1024                 # also the block-table width
ENTRY = 576
TOTAL_TOKENS = 4096
CHUNK = 8                         # bytes (e4m3 values) per thread
CHUNKS = ENTRY // CHUNK           # 72
THREADS = 256
F32, I32, FP8 = cutlass.Float32, cutlass.Int32, cutlass.Float8E4M3FN

assert TOTAL_TOKENS * CHUNKS % THREADS == 0


@cute.kernel
def gather_dequant(src_cache: cute.Pointer, block_table: cute.Pointer, seq_lens: cute.Pointer,
                   gathered: cute.Pointer, scale: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    lens = cute.make_tensor(seq_lens, cute.make_layout(NUM_REQUESTS))
    table = cute.make_tensor(block_table, cute.make_layout(NUM_REQUESTS * NUM_BLOCKS))
    # entries as (block * 16 + slot, chunk, byte), read as e4m3 values
    cache = cute.make_tensor(cute.recast_ptr(src_cache, dtype=FP8),
                             cute.make_layout((NUM_BLOCKS * BLOCK_SIZE, CHUNKS, CHUNK), stride=(ENTRY, CHUNK, 1)))
    # output row t as (chunk, element, half): half h of chunk c is 4 contiguous floats
    out = cute.make_tensor(gathered, cute.make_layout((TOTAL_TOKENS, CHUNKS, 4, 2), stride=(ENTRY, CHUNK, 1, 4)))

    i = bidx * THREADS + tidx
    t = i // CHUNKS
    c = i - t * CHUNKS
    r = I32(0)
    first = I32(0)
    running = I32(0)
    for k in cutlass.range_constexpr(NUM_REQUESTS - 1):
        running = running + lens[k]
        if t >= running:
            r = r + 1
            first = running
    p = t - first
    block = table[r * NUM_BLOCKS + p // BLOCK_SIZE]
    entry = block * BLOCK_SIZE + p % BLOCK_SIZE

    copy8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), FP8, num_bits_per_copy=64)
    copy16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    raw = cute.make_rmem_tensor((CHUNK,), FP8)
    cute.copy(copy8, cache[entry, c, None], raw)
    vals = cute.make_rmem_tensor(cute.make_layout((4, 2), stride=(1, 4)), F32)  # element k at offset k
    vals.store(raw.load().to(F32) * scale)
    for h in cutlass.range_constexpr(2):
        cute.copy(copy16, vals[None, h], out[t, c, None, h])


MKB_PLAN = """/* mkb:plan
launch gather_dequant grid(ceil_div(total_tokens * 72, 256)) block(256) args(src_cache, block_table, seq_lens, gathered, f32(scale))
*/"""
