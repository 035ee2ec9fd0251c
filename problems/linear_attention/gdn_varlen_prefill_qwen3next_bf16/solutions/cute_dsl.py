"""Gated delta-rule varlen prefill (Qwen3-Next) in CuTe DSL: the algorithm of solutions/cuda.cu, one launch.
A 128-thread block per (32 value rows, value head, sequence): 4 x 16 x 4 = 256 blocks. Row v of the k-last
state is column v of the [K, V] state the rule works on and rows are independent: thread (row r, part p)
keeps 32 of row v's 128 key channels in registers (float4 group j holds channels (4j + p) * 4 .. + 3) over
the sequence's tokens. Per token: old = g * S, old_v = k . old (four fma chains over the thread's groups,
(r0 + r1) + (r2 + r3), two shuffles over the row's 4 threads), new_v = beta * v + (1 - beta) * old_v,
S = (old - k * old_v) + k * new_v, out = bf16(scale * (q . S)). The next token's q and k (head h / 2), v and
gate (thread 0: g and beta with eager's fp32 operations) are staged in shared memory (double buffer, global
loads issued before this token's arithmetic); one barrier per token.

Rounding as the cuda solution: the state arithmetic through inline-PTX mul.rn / add.rn / sub.rn / fma.rn
(nothing contracted); the gate's exp and log1p in Float64 (libdevice's accurate routines; the DSL's fp32 exp
is an ex2.approx sequence) rounded to fp32 once, beta's quotient correctly rounded."""
import cutlass
import cutlass.cute as cute

TOTAL, NSEQ, HQK, HV, D = 959, 4, 8, 16, 128
GROUP = HV // HQK
ROWS, PARTS = 32, 4
THREADS = ROWS * PARTS                # 128 == D
PER = D // PARTS                      # 32 channels per thread
GROUPS = PER // 4                     # 8 float4 groups
F32, F64, BF16, I32 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16, cutlass.Int32
assert THREADS == D and D % ROWS == 0


def add_rn(a, b):
    return F32(cute.arch.inline_ptx("add.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def sub_rn(a, b):
    return F32(cute.arch.inline_ptx("sub.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def fma_rn(a, b, c):
    return F32(cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                    read_only_args=[a, b, c]))


def exp_f32(x):
    return F32(cute.math.exp(F64(x)))


def log1p_f32(x):
    return F32(cute.math.log(F64(1.0) + F64(x)))


def gate_of(av, bv, neg_a, bias):
    """g = exp(neg_a * softplus(a + bias)), beta = 1 / (1 + exp(-b)): eager's fp32 operations."""
    x = add_rn(av.to(F32), bias)
    softplus = cutlass.select_(x > F32(20.0), x, log1p_f32(exp_f32(x)))
    return exp_f32(mul_rn(neg_a, softplus)), F32(1.0) / add_rn(F32(1.0), exp_f32(F32(0.0) - bv.to(F32)))


def row_sum(r):
    """(r0 + r1) + (r2 + r3), then xor 1 and 2 over the row's 4 threads."""
    s = add_rn(add_rn(r[0], r[1]), add_rn(r[2], r[3]))
    s = add_rn(s, F32(cute.arch.shuffle_sync_bfly(s, 1)))
    return add_rn(s, F32(cute.arch.shuffle_sync_bfly(s, 2)))


@cute.kernel
def gdn_prefill(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, state: cute.Pointer, A_log: cute.Pointer,
                a: cute.Pointer, dt_bias: cute.Pointer, b: cute.Pointer, cu_seqlens: cute.Pointer,
                output: cute.Pointer, new_state: cute.Pointer, scale: cutlass.Float32):
    tid = cute.arch.thread_idx()[0]
    r = tid // PARTS
    part = tid % PARTS
    bx, h, seq = cute.arch.block_idx()
    hk = h // GROUP
    r0 = bx * ROWS
    row = r0 + r
    gcu = cute.make_tensor(cu_seqlens, cute.make_layout(NSEQ + 1))
    first = I32(gcu[seq])
    last = I32(gcu[seq + 1])
    neg_a = F32(0.0) - exp_f32(cute.make_tensor(A_log, cute.make_layout(HV))[h])
    bias = cute.make_tensor(dt_bias, cute.make_layout(HV))[h]

    qk = cute.make_layout((TOTAL, HQK, D), stride=(HQK * D, D, 1))
    gq, gk = cute.make_tensor(q, qk), cute.make_tensor(k, qk)
    vo = cute.make_layout((TOTAL, HV, D), stride=(HV * D, D, 1))
    gv, go = cute.make_tensor(v, vo), cute.make_tensor(output, vo)
    gate = cute.make_layout((TOTAL, HV), stride=(HV, 1))
    ga, gb = cute.make_tensor(a, gate), cute.make_tensor(b, gate)
    # state rows as (seq, h, row, float4 group, 4)
    mats = cute.make_layout((NSEQ, HV, D, D // 4, 4), stride=(HV * D * D, D * D, D, 4, 1))
    gs, gns = cute.make_tensor(state, mats), cute.make_tensor(new_state, mats)

    vec = cute.make_layout((2, D // 4, 4), stride=(D, 4, 1))          # (buffer, float4 group, element)
    s_q = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * D, alignment=16), vec)
    s_k = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * D, alignment=16), vec)
    s_v = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * ROWS), cute.make_layout((2, ROWS), stride=(ROWS, 1)))
    s_gb = cute.make_tensor(cute.arch.alloc_smem(F32, 4), cute.make_layout((2, 2), stride=(2, 1)))  # (buf, g|beta)

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    S = cute.make_rmem_tensor(cute.make_layout((GROUPS, 4), stride=(4, 1)), F32)
    for j in cutlass.range_constexpr(GROUPS):
        cute.copy(c16, gs[seq, h, row, j * PARTS + part, None], S[j, None])
    if first < last:
        s_q[0, tid // 4, tid % 4] = gq[first, hk, tid].to(F32)
        s_k[0, tid // 4, tid % 4] = gk[first, hk, tid].to(F32)
        if tid < ROWS:
            s_v[0, tid] = gv[first, h, r0 + tid].to(F32)
        if tid == 0:
            g0, b0 = gate_of(ga[first, h], gb[first, h], neg_a, bias)
            s_gb[0, 0] = g0
            s_gb[0, 1] = b0
    cute.arch.sync_threads()

    kk = cute.make_rmem_tensor(cute.make_layout((GROUPS, 4), stride=(4, 1)), F32)
    qq = cute.make_rmem_tensor((4,), F32)
    acc = cute.make_rmem_tensor((4,), F32)
    for tok in cutlass.range(first, last):
        buf = (tok - first) & 1
        nxt = tok + 1
        nq = BF16(0.0)
        nk = BF16(0.0)
        nv = BF16(0.0)
        if nxt < last:
            nq = gq[nxt, hk, tid]
            nk = gk[nxt, hk, tid]
            if tid < ROWS:
                nv = gv[nxt, h, r0 + tid]
        g = s_gb[buf, 0]
        beta = s_gb[buf, 1]
        for e in cutlass.range_constexpr(4):
            acc[e] = F32(0.0)
        for j in cutlass.range_constexpr(GROUPS):
            cute.copy(c16, s_k[buf, j * PARTS + part, None], kk[j, None])
            for e in cutlass.range_constexpr(4):
                S[j, e] = mul_rn(g, S[j, e])
                acc[e] = fma_rn(kk[j, e], S[j, e], acc[e])
        old_v = row_sum(acc)
        new_v = add_rn(mul_rn(beta, s_v[buf, r]), mul_rn(sub_rn(F32(1.0), beta), old_v))
        for e in cutlass.range_constexpr(4):
            acc[e] = F32(0.0)
        for j in cutlass.range_constexpr(GROUPS):
            cute.copy(c16, s_q[buf, j * PARTS + part, None], qq)
            for e in cutlass.range_constexpr(4):
                S[j, e] = add_rn(sub_rn(S[j, e], mul_rn(kk[j, e], old_v)), mul_rn(kk[j, e], new_v))
                acc[e] = fma_rn(qq[e], S[j, e], acc[e])
        out = row_sum(acc)
        if part == 0:
            go[tok, h, row] = mul_rn(scale, out).to(BF16)
        if nxt < last:                # the other buffer was last read before the previous barrier
            s_q[buf ^ 1, tid // 4, tid % 4] = nq.to(F32)
            s_k[buf ^ 1, tid // 4, tid % 4] = nk.to(F32)
            if tid < ROWS:
                s_v[buf ^ 1, tid] = nv.to(F32)
            if tid == 0:
                g1, b1 = gate_of(ga[nxt, h], gb[nxt, h], neg_a, bias)
                s_gb[buf ^ 1, 0] = g1
                s_gb[buf ^ 1, 1] = b1
        cute.arch.sync_threads()

    for j in cutlass.range_constexpr(GROUPS):
        cute.copy(c16, S[j, None], gns[seq, h, row, j * PARTS + part, None])


MKB_PLAN = """/* mkb:plan
launch gdn_prefill grid(head_size / 32, num_v_heads, num_seqs) block(128)
  args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, output, new_state, f32(scale))
*/"""
