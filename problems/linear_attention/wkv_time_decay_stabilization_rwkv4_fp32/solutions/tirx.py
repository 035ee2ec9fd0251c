"""RWKV-4 WKV scan in TIRx: the algorithm of solutions/cuda.cu. One thread per channel (batch b, hidden
index a) walks the 1721 tokens once with the state (max, numerator, denominator) in registers; a ring of
DEPTH tokens of key and value is kept in flight (the loads for token t + DEPTH are issued when token t is
consumed), since the scan is memory-bound.

Rounding as reference.md, operation by operation as eager's fp32 kernels: every sum, difference, product
and the quotient through __fadd_rn / __fsub_rn / __fmul_rn / __fdiv_rn (so nothing is contracted into a
multiply-add) and expf (not TVM's fast __expf). Of each pair exp(x - max(x, y)), exp(y - max(x, y)) one is
exp(0) = 1, so each half-step takes one expf of -|y - x| (the same rounded value as the reference's).

TVM passes the buffers to the generated kernel sorted by name: they are named a_ to k_ in declared order."""
from tvm.script import tirx as T

BATCH, SEQ, HIDDEN, DEPTH = 64, 1721, 2048, 8
CHANNELS = BATCH * HIDDEN
ELEMS = BATCH * SEQ * HIDDEN        # 225.6 M: int32 indexing is enough
THREADS = 256
STEPS = (SEQ + DEPTH - 1) // DEPTH
assert CHANNELS % THREADS == 0


def fadd(x, y):
    return T.call_pure_extern("float32", "__fadd_rn", x, y)


def fsub(x, y):
    return T.call_pure_extern("float32", "__fsub_rn", x, y)


def fmul(x, y):
    return T.call_pure_extern("float32", "__fmul_rn", x, y)


def fdiv(x, y):
    return T.call_pure_extern("float32", "__fdiv_rn", x, y)


def expf(x):
    return T.call_pure_extern("float32", "expf", x)


@T.prim_func
def wkv_scan(time_decay_ptr: T.handle, key_ptr: T.handle, time_first_ptr: T.handle, value_ptr: T.handle,
             max_state_ptr: T.handle, num_state_ptr: T.handle, den_state_ptr: T.handle, output_ptr: T.handle,
             max_out_ptr: T.handle, num_out_ptr: T.handle, den_out_ptr: T.handle):
    a_time_decay = T.match_buffer(time_decay_ptr, (HIDDEN,), "float32")
    b_key = T.match_buffer(key_ptr, (ELEMS,), "float32")
    c_time_first = T.match_buffer(time_first_ptr, (HIDDEN,), "float32")
    d_value = T.match_buffer(value_ptr, (ELEMS,), "float32")
    e_max_state = T.match_buffer(max_state_ptr, (CHANNELS,), "float32")
    f_num_state = T.match_buffer(num_state_ptr, (CHANNELS,), "float32")
    g_den_state = T.match_buffer(den_state_ptr, (CHANNELS,), "float32")
    h_output = T.match_buffer(output_ptr, (ELEMS,), "float32")
    i_max_out = T.match_buffer(max_out_ptr, (CHANNELS,), "float32")
    j_num_out = T.match_buffer(num_out_ptr, (CHANNELS,), "float32")
    k_den_out = T.match_buffer(den_out_ptr, (CHANNELS,), "float32")
    T.device_entry()
    bx = T.cta_id([CHANNELS // THREADS])
    tx = T.thread_id([THREADS])
    kb = T.alloc_buffer((DEPTH,), "float32", scope="local")
    vb = T.alloc_buffer((DEPTH,), "float32", scope="local")
    st = T.alloc_buffer((3,), "float32", scope="local")    # max, numerator, denominator
    wu = T.alloc_buffer((2,), "float32", scope="local")    # w = -exp(time_decay), u = time_first
    kv = T.alloc_buffer((2,), "float32", scope="local")    # the token's key and value
    d = T.alloc_buffer((1,), "float32", scope="local")     # y - x of a pair
    e = T.alloc_buffer((1,), "float32", scope="local")     # exp(-|y - x|)
    mw = T.alloc_buffer((1,), "float32", scope="local")
    # channel = bx * THREADS + tx; b = channel // HIDDEN, a = channel % HIDDEN (written inline)
    wu[0] = T.float32(0) - expf(a_time_decay[(bx * THREADS + tx) % HIDDEN])
    wu[1] = c_time_first[(bx * THREADS + tx) % HIDDEN]
    st[0] = e_max_state[bx * THREADS + tx]
    st[1] = f_num_state[bx * THREADS + tx]
    st[2] = g_den_state[bx * THREADS + tx]
    for j in T.unroll(DEPTH):
        kb[j] = b_key[((bx * THREADS + tx) // HIDDEN * SEQ + j) * HIDDEN + (bx * THREADS + tx) % HIDDEN]
        vb[j] = d_value[((bx * THREADS + tx) // HIDDEN * SEQ + j) * HIDDEN + (bx * THREADS + tx) % HIDDEN]
    for t0 in T.serial(STEPS):
        for j in T.unroll(DEPTH):
            if t0 * DEPTH + j < SEQ:
                kv[0] = kb[j]
                kv[1] = vb[j]
                if t0 * DEPTH + j + DEPTH < SEQ:
                    kb[j] = b_key[((bx * THREADS + tx) // HIDDEN * SEQ + t0 * DEPTH + j + DEPTH) * HIDDEN
                                  + (bx * THREADS + tx) % HIDDEN]
                    vb[j] = d_value[((bx * THREADS + tx) // HIDDEN * SEQ + t0 * DEPTH + j + DEPTH) * HIDDEN
                                    + (bx * THREADS + tx) % HIDDEN]
                # output: the pair (max_state, k + u)
                d[0] = fsub(fadd(kv[0], wu[1]), st[0])
                e[0] = expf(T.float32(0) - T.abs(d[0]))
                h_output[((bx * THREADS + tx) // HIDDEN * SEQ + t0 * DEPTH + j) * HIDDEN + (bx * THREADS + tx) % HIDDEN] = fdiv(
                    fadd(fmul(T.Select(d[0] > T.float32(0), e[0], T.float32(1)), st[1]),
                         fmul(T.Select(d[0] > T.float32(0), T.float32(1), e[0]), kv[1])),
                    fadd(fmul(T.Select(d[0] > T.float32(0), e[0], T.float32(1)), st[2]),
                         T.Select(d[0] > T.float32(0), T.float32(1), e[0])))
                # state update: the pair (max_state + w, k)
                mw[0] = fadd(st[0], wu[0])
                d[0] = fsub(kv[0], mw[0])
                e[0] = expf(T.float32(0) - T.abs(d[0]))
                st[1] = fadd(fmul(T.Select(d[0] > T.float32(0), e[0], T.float32(1)), st[1]),
                             fmul(T.Select(d[0] > T.float32(0), T.float32(1), e[0]), kv[1]))
                st[2] = fadd(fmul(T.Select(d[0] > T.float32(0), e[0], T.float32(1)), st[2]),
                             T.Select(d[0] > T.float32(0), T.float32(1), e[0]))
                st[0] = T.max(mw[0], kv[0])
    i_max_out[bx * THREADS + tx] = st[0]
    j_num_out[bx * THREADS + tx] = st[1]
    k_den_out[bx * THREADS + tx] = st[2]


MKB_PLAN = """/* mkb:plan
launch wkv_scan grid(batch_size * attention_hidden_size / 256) block(256)
  args(time_decay, key, time_first, value, max_state, num_state, den_state, output, max_state_out,
       num_state_out, den_state_out)
*/"""
