"""Batched K/V block copy in TIRx (port of solutions/cuda.cu): CTA (m, t, q) copies quarter q (16 KiB) of
mapping m's 64 KiB cache block of tensor t (0: K, 1: V); each of the 256 threads moves four 16-byte
vectors, all four loaded into registers before the first store. Sources and destinations are disjoint
(invariant). A pure byte copy: nothing to round."""
from tvm.script import tirx as T

NUM_BLOCKS = 1024
NUM_MAPPINGS = 256
BLOCK_BYTES = 32 * 8 * 256           # 65536
QUARTERS = 4
THREADS = 256
VEC = 16
PER = BLOCK_BYTES // QUARTERS // THREADS // VEC   # 4
BLOCK_WORDS = BLOCK_BYTES // 4
QUARTER_WORDS = BLOCK_WORDS // QUARTERS
WORDS = NUM_BLOCKS * BLOCK_WORDS              # 2^24 words: int32 indexing is enough


@T.prim_func
def copy_blocks(src_k_ptr: T.handle, src_v_ptr: T.handle, dst_k_ptr: T.handle, dst_v_ptr: T.handle,
                mapping_ptr: T.handle):
    # The caches are viewed as 32-bit words, so that a 4-word vectorized access is one 16-byte load/store.
    src_k = T.match_buffer(src_k_ptr, (WORDS,), "int32")
    src_v = T.match_buffer(src_v_ptr, (WORDS,), "int32")
    dst_k = T.match_buffer(dst_k_ptr, (WORDS,), "int32")
    dst_v = T.match_buffer(dst_v_ptr, (WORDS,), "int32")
    mapping = T.match_buffer(mapping_ptr, (NUM_MAPPINGS * 2,), "int64")
    T.device_entry()
    m, t, q = T.cta_id([NUM_MAPPINGS, 2, QUARTERS])
    tx = T.thread_id([THREADS])
    regs = T.alloc_buffer((PER * 4,), "int32", scope="local")
    # (indices written inline: a named index becomes a local variable and defeats vectorization)
    if t == 0:
        for k in T.unroll(PER):
            for e in T.vectorized(4):
                regs[k * 4 + e] = src_k[T.Cast("int32", mapping[m * 2]) * BLOCK_WORDS + q * QUARTER_WORDS
                                        + k * THREADS * 4 + tx * 4 + e]
        for k in T.unroll(PER):
            for e in T.vectorized(4):
                dst_k[T.Cast("int32", mapping[m * 2 + 1]) * BLOCK_WORDS + q * QUARTER_WORDS
                      + k * THREADS * 4 + tx * 4 + e] = regs[k * 4 + e]
    else:
        for k in T.unroll(PER):
            for e in T.vectorized(4):
                regs[k * 4 + e] = src_v[T.Cast("int32", mapping[m * 2]) * BLOCK_WORDS + q * QUARTER_WORDS
                                        + k * THREADS * 4 + tx * 4 + e]
        for k in T.unroll(PER):
            for e in T.vectorized(4):
                dst_v[T.Cast("int32", mapping[m * 2 + 1]) * BLOCK_WORDS + q * QUARTER_WORDS
                      + k * THREADS * 4 + tx * 4 + e] = regs[k * 4 + e]


MKB_PLAN = """/* mkb:plan
launch copy_blocks grid(num_mappings, 2, 4) block(256) args(src_k, src_v, dst_k_out, dst_v_out, block_mapping)
*/"""
