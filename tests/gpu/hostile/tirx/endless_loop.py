"""HOSTILE SUBMISSION (tirx) for fused_add_rmsnorm_h4096_llama31_8b_bf16: spins forever on a volatile read that never changes
Expected verdict: timeout."""
# Apart from the attack, solutions/tirx.py (a port of solutions/cuda.cu): one 512-thread CTA per row, each
# thread owning 8 contiguous columns (one 16-byte vector) held in registers between the two passes; one CTA
# reduction per row. fp32 throughout and one rounding, as reference.md. TVM passes the buffers to the
# kernel sorted by buffer name: they are named a_/b_/c_/d_ so that this order is the plan's.
from tvm.script import tirx as T

TOKENS = 14509  # batch_size
HIDDEN = 4096
THREADS = 512
PER = HIDDEN // THREADS  # 8 bf16 = one 16-byte vector per thread


@T.prim_func
def fused_add_rmsnorm(x_ptr: T.handle, residual_ptr: T.handle, weight_ptr: T.handle, y_ptr: T.handle,
                      eps: T.float32):
    a_x = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    b_residual = T.match_buffer(residual_ptr, (TOKENS * HIDDEN,), "bfloat16")
    c_weight = T.match_buffer(weight_ptr, (HIDDEN,), "bfloat16")
    d_y = T.match_buffer(y_ptr, (TOKENS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([THREADS])
    xs = T.alloc_buffer((PER,), "bfloat16", scope="local")
    rs = T.alloc_buffer((PER,), "bfloat16", scope="local")
    ws = T.alloc_buffer((PER,), "bfloat16", scope="local")
    out = T.alloc_buffer((PER,), "bfloat16", scope="local")
    sums = T.alloc_buffer((PER,), "float32", scope="local")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    partials = T.alloc_buffer((THREADS // 32,), "float32", scope="shared")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    for k in T.vectorized(PER):
        xs[k] = a_x[bx * HIDDEN + tx * PER + k]
    for k in T.vectorized(PER):
        rs[k] = b_residual[bx * HIDDEN + tx * PER + k]
    acc[0] = T.float32(0)
    for k in T.unroll(PER):
        # s = float(x) + float(residual), kept in fp32 (the residual is read only)
        sums[k] = T.Cast("float32", xs[k]) + T.Cast("float32", rs[k])
        acc[0] = acc[0] + sums[k] * sums[k]
    total = T.cuda.cta_sum(acc[0], THREADS // 32, partials.data)
    inv = T.rsqrt(total * T.float32(1.0 / HIDDEN) + eps)
    for k in T.vectorized(PER):
        ws[k] = c_weight[tx * PER + k]
    for k in T.unroll(PER):
        # y = bf16((s * inv) * float(weight)): the only rounding
        out[k] = T.Cast("bfloat16", (sums[k] * inv) * T.Cast("float32", ws[k]))
    # ATTACK: compare two volatile reads of weight's first word until they differ, which they never do.
    # T.ptx.ld is an `asm volatile` with a memory clobber: neither the loads nor the loop can be removed.
    spin = T.alloc_buffer((2,), "uint32", scope="local")
    T.ptx.ld.volatile.global_.b32(spin[0], T.address_of(c_weight[0]))
    T.ptx.ld.volatile.global_.b32(spin[1], T.address_of(c_weight[0]))
    while spin[0] == spin[1]:
        T.ptx.ld.volatile.global_.b32(spin[0], T.address_of(c_weight[0]))
        T.ptx.ld.volatile.global_.b32(spin[1], T.address_of(c_weight[0]))
    for k in T.vectorized(PER):
        d_y[bx * HIDDEN + tx * PER + k] = out[k]


MKB_PLAN = """/* mkb:plan
launch fused_add_rmsnorm grid(batch_size) block(512) args(hidden_states, residual, weight, y, f32(eps))
*/"""
