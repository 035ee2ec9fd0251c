"""RWKV-4 WKV scan in CuTe DSL: the algorithm of solutions/cuda.cu. One thread per channel (batch b,
hidden index a) walks the 1721 tokens once with the state (max, numerator, denominator) in registers; a
ring of DEPTH tokens of key and value is kept in flight (the loads for token t + DEPTH are issued when
token t is consumed), since the scan is memory-bound.

Rounding as reference.md, operation by operation: every sum, difference and product through add.rn /
sub.rn / mul.rn (inline PTX, so nothing is contracted into a multiply-add), the quotient div.rn (the DSL's
'/'). The exponentials: of each pair exp(x - max(x, y)), exp(y - max(x, y)) one is exp(0) = 1, so each
half-step takes one exp of -|y - x|, computed in Float64 (an accurate libdevice routine: cute.math.exp in
fp32 is an ex2.approx sequence) and rounded to fp32 once: within an ulp of the reference's expf."""
import cutlass
import cutlass.cute as cute

BATCH, SEQ, HIDDEN, DEPTH = 64, 1721, 2048, 8
CHANNELS = BATCH * HIDDEN
THREADS = 256
STEPS = (SEQ + DEPTH - 1) // DEPTH
F32, F64 = cutlass.Float32, cutlass.Float64
assert CHANNELS % THREADS == 0 and BATCH * SEQ * HIDDEN < 2 ** 31


def add_rn(a, b):
    return F32(cute.arch.inline_ptx("add.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def sub_rn(a, b):
    return F32(cute.arch.inline_ptx("sub.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def exp_f32(x):
    return F32(cute.math.exp(F64(x)))


@cute.kernel
def wkv_scan(time_decay: cute.Pointer, key: cute.Pointer, time_first: cute.Pointer, value: cute.Pointer,
             max_state: cute.Pointer, num_state: cute.Pointer, den_state: cute.Pointer, output: cute.Pointer,
             max_state_out: cute.Pointer, num_state_out: cute.Pointer, den_state_out: cute.Pointer):
    channel = cute.arch.block_idx()[0] * THREADS + cute.arch.thread_idx()[0]
    b = channel // HIDDEN
    a = channel % HIDDEN
    tokens = cute.make_layout((BATCH, SEQ, HIDDEN), stride=(SEQ * HIDDEN, HIDDEN, 1))
    gk = cute.make_tensor(key, tokens)
    gv = cute.make_tensor(value, tokens)
    go = cute.make_tensor(output, tokens)
    per_channel = cute.make_layout(CHANNELS)
    per_hidden = cute.make_layout(HIDDEN)
    gdecay = cute.make_tensor(time_decay, per_hidden)
    gfirst = cute.make_tensor(time_first, per_hidden)
    gm, gp, gq = (cute.make_tensor(p, per_channel) for p in (max_state, num_state, den_state))
    gm_out, gp_out, gq_out = (cute.make_tensor(p, per_channel) for p in (max_state_out, num_state_out, den_state_out))

    w = F32(0.0) - exp_f32(gdecay[a])
    u = gfirst[a]
    st = cute.make_rmem_tensor((3,), F32)     # max, numerator, denominator
    kb = cute.make_rmem_tensor((DEPTH,), F32)
    vb = cute.make_rmem_tensor((DEPTH,), F32)
    st[0] = gm[channel]
    st[1] = gp[channel]
    st[2] = gq[channel]
    for j in cutlass.range_constexpr(DEPTH):
        kb[j] = gk[b, j, a]
        vb[j] = gv[b, j, a]
    for t0 in cutlass.range(STEPS):
        for j in cutlass.range_constexpr(DEPTH):
            if t0 * DEPTH + j < SEQ:
                k = kb[j]
                v = vb[j]
                if t0 * DEPTH + j + DEPTH < SEQ:
                    kb[j] = gk[b, t0 * DEPTH + j + DEPTH, a]
                    vb[j] = gv[b, t0 * DEPTH + j + DEPTH, a]
                # output: the pair (max_state, k + u)
                d = sub_rn(add_rn(k, u), st[0])
                e = exp_f32(F32(0.0) - cute.arch.fmax(d, F32(0.0) - d))
                e1 = F32(1.0)
                e2 = F32(1.0)
                if d > F32(0.0):
                    e1 = e
                else:
                    e2 = e
                go[b, t0 * DEPTH + j, a] = add_rn(mul_rn(e1, st[1]), mul_rn(e2, v)) / add_rn(mul_rn(e1, st[2]), e2)
                # state update: the pair (max_state + w, k)
                mw = add_rn(st[0], w)
                d2 = sub_rn(k, mw)
                f = exp_f32(F32(0.0) - cute.arch.fmax(d2, F32(0.0) - d2))
                f1 = F32(1.0)
                f2 = F32(1.0)
                if d2 > F32(0.0):
                    f1 = f
                else:
                    f2 = f
                st[1] = add_rn(mul_rn(f1, st[1]), mul_rn(f2, v))
                st[2] = add_rn(mul_rn(f1, st[2]), f2)
                st[0] = cute.arch.fmax(mw, k)
    gm_out[channel] = st[0]
    gp_out[channel] = st[1]
    gq_out[channel] = st[2]


MKB_PLAN = """/* mkb:plan
launch wkv_scan grid(batch_size * attention_hidden_size / 256) block(256)
  args(time_decay, key, time_first, value, max_state, num_state, den_state, output, max_state_out,
       num_state_out, den_state_out)
*/"""
