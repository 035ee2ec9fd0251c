"""Paged MLA cache gather + e4m3 dequantization in TIRx (port of solutions/cuda.cu).

Thread i handles 8 consecutive bytes (chunk c = i % 72) of output row t = i / 72: it finds the row's
request by walking the running sum of seq_lens, reads the 8 e4m3 values of the entry (eight byte
loads), widens them to fp32 (exact), multiplies by the fp32 scale (the one rounding of reference.md) and
writes them with two 16-byte stores. 4096 * 72 items are exactly 1152 CTAs of 256 threads."""
from tvm.script import tirx as T

NUM_REQUESTS = 8
BLOCK_SIZE = 16
NUM_BLOCKS = 1024                 # also the block-table width
ENTRY = 576
TOTAL_TOKENS = 4096
CHUNK = 8
CHUNKS = ENTRY // CHUNK           # 72
THREADS = 256
CTAS = TOTAL_TOKENS * CHUNKS // THREADS   # 1152

assert TOTAL_TOKENS * CHUNKS % THREADS == 0


@T.prim_func
def gather_dequant(cache_ptr: T.handle, table_ptr: T.handle, lens_ptr: T.handle, out_ptr: T.handle,
                   scale: T.float32):
    cache = T.match_buffer(cache_ptr, (NUM_BLOCKS * BLOCK_SIZE * ENTRY,), "float8_e4m3fn")
    table = T.match_buffer(table_ptr, (NUM_REQUESTS * NUM_BLOCKS,), "int32")
    lens = T.match_buffer(lens_ptr, (NUM_REQUESTS,), "int32")
    out = T.match_buffer(out_ptr, (TOTAL_TOKENS * ENTRY,), "float32")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([THREADS])
    raw = T.alloc_buffer((CHUNK,), "float8_e4m3fn", scope="local")
    vals = T.alloc_buffer((CHUNK,), "float32", scope="local")
    # walk[0]: the row's request, walk[1]: its first row, walk[2]: running sum of seq_lens
    walk = T.alloc_buffer((3,), "int32", scope="local")
    walk[0] = 0
    walk[1] = 0
    walk[2] = 0
    for k in T.unroll(NUM_REQUESTS - 1):
        walk[2] = walk[2] + lens[k]
        if (bx * THREADS + tx) // CHUNKS >= walk[2]:
            walk[0] = walk[0] + 1
            walk[1] = walk[2]
    # entry = block_table[r, p // 16] * 16 + p % 16 with p = t - first; byte offset entry * 576 + 8 c
    walk[2] = (table[walk[0] * NUM_BLOCKS + ((bx * THREADS + tx) // CHUNKS - walk[1]) // BLOCK_SIZE] * BLOCK_SIZE
               + ((bx * THREADS + tx) // CHUNKS - walk[1]) % BLOCK_SIZE) * ENTRY + (bx * THREADS + tx) % CHUNKS * CHUNK
    # byte loads: an index held in a local variable is not vectorized by TVM (it emitted a broken gather),
    # and the eight loads of a warp fall in the same 256 contiguous bytes (L1 hits after the first)
    for e in T.unroll(CHUNK):
        raw[e] = cache[walk[2] + e]
    for e in T.unroll(CHUNK):
        vals[e] = T.Cast("float32", raw[e]) * scale
    for h in T.unroll(2):
        for e in T.vectorized(4):
            out[(bx * THREADS + tx) * CHUNK + h * 4 + e] = vals[h * 4 + e]


MKB_PLAN = """/* mkb:plan
launch gather_dequant grid(ceil_div(total_tokens * 72, 256)) block(256) args(src_cache, block_table, seq_lens, gathered, f32(scale))
*/"""
