"""Top-2 softmax routing in CuTe DSL: the algorithm of solutions/cuda.cu. One thread per token, 256
tokens per block: each thread copies its 16-byte row of 8 bf16 logits into a register fragment with one
128-bit copy, runs a branch-free top-2 (strict comparisons, so ties go to the lower index), and
w1 = 1 / (1 + exp(l0 - l1)) (the softmax denominator cancels in the renormalization). The two int32 ids
leave as one 64-bit store, the two bf16 weights as one 32-bit store."""
import cutlass
import cutlass.cute as cute

TOKENS = 262144
EXPERTS = 8
TOP_K = 2
THREADS = 256


@cute.kernel
def top2_softmax(logits: cute.Pointer, ids: cute.Pointer, weights: cute.Pointer, tokens: cutlass.Int32):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    t = bidx * THREADS + tidx
    gL = cute.make_tensor(logits, cute.make_layout((TOKENS, EXPERTS), stride=(EXPERTS, 1)))
    gI = cute.make_tensor(ids, cute.make_layout((TOKENS, TOP_K), stride=(TOP_K, 1)))
    gW = cute.make_tensor(weights, cute.make_layout((TOKENS, TOP_K), stride=(TOP_K, 1)))
    # This block's tile of THREADS tokens.
    bL = cute.local_tile(gL, (THREADS, EXPERTS), (bidx, 0))
    bI = cute.local_tile(gI, (THREADS, TOP_K), (bidx, 0))
    bW = cute.local_tile(gW, (THREADS, TOP_K), (bidx, 0))
    if t < tokens:
        load128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.BFloat16, num_bits_per_copy=128)
        rL = cute.make_rmem_tensor((EXPERTS,), cutlass.BFloat16)
        cute.copy(load128, bL[tidx, None], rL)

        best_value = rL[0].to(cutlass.Float32)
        second_value = cutlass.Float32(float("-inf"))
        best = cutlass.Int32(0)
        second = cutlass.Int32(-1)
        for e in cutlass.range_constexpr(1, EXPERTS):
            v = rL[e].to(cutlass.Float32)
            above_best = v > best_value
            above_second = v > second_value
            second_value = cutlass.Float32(cutlass.select_(above_best, best_value,
                                                           cutlass.select_(above_second, v, second_value)))
            second = cutlass.Int32(cutlass.select_(above_best, best, cutlass.select_(above_second, cutlass.Int32(e), second)))
            best_value = cutlass.Float32(cutlass.select_(above_best, v, best_value))
            best = cutlass.Int32(cutlass.select_(above_best, cutlass.Int32(e), best))
        w1 = cutlass.Float32(1.0) / (cutlass.Float32(1.0) + cute.math.exp(best_value - second_value))

        rI = cute.make_rmem_tensor((TOP_K,), cutlass.Int32)
        rI[0] = best
        rI[1] = second
        rW = cute.make_rmem_tensor((TOP_K,), cutlass.BFloat16)
        rW[0] = (cutlass.Float32(1.0) - w1).to(cutlass.BFloat16)
        rW[1] = w1.to(cutlass.BFloat16)
        store64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.Int32, num_bits_per_copy=64)
        store32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.BFloat16, num_bits_per_copy=32)
        cute.copy(store64, rI, bI[tidx, None])
        cute.copy(store32, rW, bW[tidx, None])


MKB_PLAN = """/* mkb:plan
launch top2_softmax grid(ceil_div(tokens, 256)) block(256) args(logits, expert_ids, expert_weights, i32(tokens))
*/"""
