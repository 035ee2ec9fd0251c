"""Top-2 softmax routing over 8 experts in TIRx (port of solutions/cuda.cu): one thread per token, one
16-byte load of the 8 bf16 logits, a top-2 over the logits themselves (softmax is increasing) with ties
to the lower expert index, and w1 = 1 / (1 + exp(l0 - l1)), w0 = 1 - w1 (the softmax denominator cancels
in the renormalization). One 8-byte store of the two ids, one 4-byte store of the two bf16 weights.

TVM passes the buffers to the generated kernel sorted by buffer name (then the scalars), not in the order
of the parameters: the buffers are named a_/b_/c_ so that both orders agree with the plan."""
from tvm.script import tirx as T

TOKENS = 262144
EXPERTS = 8
TOP_K = 2
THREADS = 256


@T.prim_func
def top2_softmax(logits_ptr: T.handle, ids_ptr: T.handle, weights_ptr: T.handle, tokens: T.int32):
    a_logits = T.match_buffer(logits_ptr, (TOKENS * EXPERTS,), "bfloat16")
    b_ids = T.match_buffer(ids_ptr, (TOKENS * TOP_K,), "int32")
    c_weights = T.match_buffer(weights_ptr, (TOKENS * TOP_K,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([(TOKENS + THREADS - 1) // THREADS])
    tx = T.thread_id([THREADS])
    values = T.alloc_buffer((EXPERTS,), "bfloat16", scope="local")
    best_value = T.alloc_buffer((1,), "float32", scope="local")
    second_value = T.alloc_buffer((1,), "float32", scope="local")
    best = T.alloc_buffer((1,), "int32", scope="local")
    second = T.alloc_buffer((1,), "int32", scope="local")
    ids = T.alloc_buffer((TOP_K,), "int32", scope="local")
    weights = T.alloc_buffer((TOP_K,), "bfloat16", scope="local")
    w1 = T.alloc_buffer((1,), "float32", scope="local")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    if bx * THREADS + tx < tokens:
        for e in T.vectorized(EXPERTS):
            values[e] = a_logits[(bx * THREADS + tx) * EXPERTS + e]
        best_value[0] = T.Cast("float32", values[0])
        second_value[0] = T.float32(float("-inf"))
        best[0] = 0
        second[0] = -1
        for e in T.unroll(1, EXPERTS):
            # the cuda solution's "if (v > best) {...} else if (v > second) {...}", branch-free; strict
            # comparisons in increasing e, so an equal value never displaces a lower index
            second[0] = T.Select(T.Cast("float32", values[e]) > best_value[0], best[0],
                                 T.Select(T.Cast("float32", values[e]) > second_value[0], e, second[0]))
            second_value[0] = T.Select(T.Cast("float32", values[e]) > best_value[0], best_value[0],
                                       T.Select(T.Cast("float32", values[e]) > second_value[0],
                                                T.Cast("float32", values[e]), second_value[0]))
            best[0] = T.Select(T.Cast("float32", values[e]) > best_value[0], e, best[0])
            best_value[0] = T.Select(T.Cast("float32", values[e]) > best_value[0], T.Cast("float32", values[e]),
                                     best_value[0])
        w1[0] = T.float32(1) / (T.float32(1) + T.exp(best_value[0] - second_value[0]))
        ids[0] = best[0]
        ids[1] = second[0]
        weights[0] = T.Cast("bfloat16", T.float32(1) - w1[0])
        weights[1] = T.Cast("bfloat16", w1[0])
        for k in T.vectorized(TOP_K):
            b_ids[(bx * THREADS + tx) * TOP_K + k] = ids[k]
        for k in T.vectorized(TOP_K):
            c_weights[(bx * THREADS + tx) * TOP_K + k] = weights[k]


MKB_PLAN = """/* mkb:plan
launch top2_softmax grid(ceil_div(tokens, 256)) block(256) args(logits, expert_ids, expert_weights, i32(tokens))
*/"""
