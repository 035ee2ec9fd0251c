"""Batched K/V block copy in CuTe DSL: the algorithm of solutions/cuda.cu.

One launch for both caches: block (m, t, q) copies quarter q (16 KiB) of mapping m's 64 KiB cache block of
tensor t (0: K, 1: V). Each of the 256 threads moves four 16-byte vectors, all four loads issued before
the first store. Sources and destinations are disjoint (invariant), so no block reads what another
writes. A pure byte copy: no arithmetic, nothing to round."""
import cutlass
import cutlass.cute as cute

NUM_BLOCKS = 1024
NUM_MAPPINGS = 256
BLOCK_BYTES = 32 * 8 * 256       # block_size * num_heads * head_dim
QUARTERS = 4
THREADS = 256
VEC = 16                         # bytes per vector copy
PER_THREAD = BLOCK_BYTES // QUARTERS // THREADS // VEC   # 4
U8, I64 = cutlass.Uint8, cutlass.Int64

assert PER_THREAD * THREADS * VEC * QUARTERS == BLOCK_BYTES


def cache_view(ptr):
    # (block, quarter, k, thread, byte): thread t's k-th vector of a quarter is 16 contiguous bytes
    return cute.make_tensor(ptr, cute.make_layout(
        (NUM_BLOCKS, QUARTERS, PER_THREAD, THREADS, VEC),
        stride=(BLOCK_BYTES, BLOCK_BYTES // QUARTERS, THREADS * VEC, VEC, 1)))


@cute.jit
def copy_quarter(src: cute.Tensor, dst: cute.Tensor, source, destination, quarter, tidx):
    copy16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U8, num_bits_per_copy=128)
    frag = cute.make_rmem_tensor(cute.make_layout((PER_THREAD, VEC), stride=(VEC, 1)), U8)
    for k in cutlass.range_constexpr(PER_THREAD):
        cute.copy(copy16, src[source, quarter, k, tidx, None], frag[k, None])
    for k in cutlass.range_constexpr(PER_THREAD):
        cute.copy(copy16, frag[k, None], dst[destination, quarter, k, tidx, None])


@cute.kernel
def copy_blocks(src_k: cute.Pointer, src_v: cute.Pointer, dst_k: cute.Pointer, dst_v: cute.Pointer,
                block_mapping: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    m, tensor, quarter = cute.arch.block_idx()
    mapping = cute.make_tensor(block_mapping, cute.make_layout(NUM_MAPPINGS * 2))
    source = mapping[2 * m]
    destination = mapping[2 * m + 1]
    if tensor == 0:
        copy_quarter(cache_view(src_k), cache_view(dst_k), source, destination, quarter, tidx)
    else:
        copy_quarter(cache_view(src_v), cache_view(dst_v), source, destination, quarter, tidx)


MKB_PLAN = """/* mkb:plan
launch copy_blocks grid(num_mappings, 2, 4) block(256) args(src_k, src_v, dst_k_out, dst_v_out, block_mapping)
*/"""
