"""RMSNorm over rows of 128 bf16 in TIRx (port of solutions/cuda.cu): each row is one aligned half-warp of
16 lanes, each lane holding 8 contiguous values (one 16-byte vector load and store); a 256-thread CTA
covers 16 rows, and 520128 = 16 * 32508 rows fill whole CTAs. The sum of squares is reduced inside the
half-warp with shuffles (xor 8, 4, 2, 1). fp32 throughout and one rounding:
y = bf16((x * rsqrt(mean(x^2) + eps)) * float(w)).

The buffers are named a_.. c_ so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

ROWS = 520128                       # batch_size
HIDDEN = 128
LANES = HIDDEN // 8                 # 16 lanes per row, 8 bf16 (16 bytes) each
THREADS = 256
ROWS_PER_CTA = THREADS // LANES     # 16
CTAS = ROWS // ROWS_PER_CTA         # 32508

assert ROWS % ROWS_PER_CTA == 0


@T.prim_func
def rmsnorm_h128(x_ptr: T.handle, weight_ptr: T.handle, y_ptr: T.handle, eps: T.float32):
    a_x = T.match_buffer(x_ptr, (ROWS * HIDDEN,), "bfloat16")
    b_weight = T.match_buffer(weight_ptr, (HIDDEN,), "bfloat16")
    c_y = T.match_buffer(y_ptr, (ROWS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([THREADS])
    xs = T.alloc_buffer((8,), "bfloat16", scope="local")
    ws = T.alloc_buffer((8,), "bfloat16", scope="local")
    out = T.alloc_buffer((8,), "bfloat16", scope="local")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    for e in T.vectorized(8):
        xs[e] = a_x[(bx * ROWS_PER_CTA + tx // LANES) * HIDDEN + tx % LANES * 8 + e]
    for e in T.vectorized(8):
        ws[e] = b_weight[tx % LANES * 8 + e]
    acc[0] = T.float32(0)
    for e in T.unroll(8):
        acc[0] = acc[0] + T.Cast("float32", xs[e]) * T.Cast("float32", xs[e])
    # The 16 lanes of one row are an aligned half-warp: xor offsets 8, 4, 2, 1 stay inside it.
    acc[0] = T.cuda.warp_sum(acc[0], LANES)
    # inv = rsqrt(ms + eps); ms = sum / 128 (a power of two: the same as sum * (1 / 128))
    acc[0] = T.rsqrt(acc[0] * T.float32(1.0 / HIDDEN) + eps)
    for e in T.unroll(8):
        out[e] = T.Cast("bfloat16", (T.Cast("float32", xs[e]) * acc[0]) * T.Cast("float32", ws[e]))
    for e in T.vectorized(8):
        c_y[(bx * ROWS_PER_CTA + tx // LANES) * HIDDEN + tx % LANES * 8 + e] = out[e]


MKB_PLAN = """/* mkb:plan
launch rmsnorm_h128 grid(32508) block(256) args(hidden_states, weight, y, f32(eps))
*/"""
