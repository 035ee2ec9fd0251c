"""Gated delta rule over 4 draft tokens (Qwen3-Next MTP verification) in CuTe DSL: the algorithm of
solutions/cuda.cu, two launches.
  1. gdn_mtp: one warp per (sequence, value head, value row v); a 256-thread block holds 8 rows of one
     (sequence, head) pair. Row v of the k-last state slot the sequence names (128 fp32; lane l holds
     k = 4l .. 4l + 3, one 16-byte load) is column v of the [K, V] state the rule works on, and rows are
     independent, so the warp keeps its row in registers through the 4 tokens: per token old = g * S,
     old_v = k . old (four-term fma chain per lane, then a butterfly over xor 16, 8, 4, 2, 1),
     new_v = beta * v + (1 - beta) * old_v, S = (old - k * old_v) + k * new_v, output = bf16(scale * (q . S)).
  2. copy_pool: the returned pool is the input pool unchanged (the reference works on clones): a copy of
     one 16-byte vector per thread.

Rounding as the cuda solution: the state arithmetic through inline-PTX mul.rn / add.rn / sub.rn / fma.rn
(nothing contracted), beta's quotient correctly rounded; the gate's exp and log1p in Float64 (libdevice's
accurate routines; the DSL's fp32 exp is an ex2.approx sequence), rounded to fp32 once."""
import cutlass
import cutlass.cute as cute

BATCH, SEQ, HQK, HV, D, POOL = 32, 4, 8, 16, 128, 49
GROUP = HV // HQK
ROWS = 8                              # warps (value rows) per block
PAIRS = BATCH * HV
POOL_VEC = POOL * HV * D * D // 4     # 16-byte vectors in the pool
F32, F64, BF16, I32 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16, cutlass.Int32
assert D == 32 * 4 and D % ROWS == 0 and POOL_VEC % 256 == 0


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


def warp_sum(v):
    for i in range(5):                # trace-time unrolled: xor 16, 8, 4, 2, 1
        v = add_rn(v, F32(cute.arch.shuffle_sync_bfly(v, 16 >> i)))
    return v


@cute.kernel
def gdn_mtp(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, initial_state: cute.Pointer, indices: cute.Pointer,
            A_log: cute.Pointer, a: cute.Pointer, dt_bias: cute.Pointer, b: cute.Pointer, output: cute.Pointer,
            scale: cutlass.Float32):
    warp = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()
    blk = cute.arch.block_idx()[0]
    pair = blk // (D // ROWS)
    row = (blk % (D // ROWS)) * ROWS + warp
    bi = pair // HV
    h = pair % HV
    hk = h // GROUP
    gs = cute.make_tensor(initial_state, cute.make_layout((POOL, HV, D, 32, 4), stride=(HV * D * D, D * D, D, 4, 1)))
    qk = cute.make_layout((BATCH, SEQ, HQK, 32, 4), stride=(SEQ * HQK * D, HQK * D, D, 4, 1))
    gq = cute.make_tensor(q, qk)
    gk = cute.make_tensor(k, qk)
    vo = cute.make_layout((BATCH, SEQ, HV, D), stride=(SEQ * HV * D, HV * D, D, 1))
    gv = cute.make_tensor(v, vo)
    go = cute.make_tensor(output, vo)
    per_tok = cute.make_layout((BATCH, SEQ, HV), stride=(SEQ * HV, HV, 1))
    ga, gb = cute.make_tensor(a, per_tok), cute.make_tensor(b, per_tok)
    gidx = cute.make_tensor(indices, cute.make_layout(BATCH))
    galog = cute.make_tensor(A_log, cute.make_layout(HV))
    gdt = cute.make_tensor(dt_bias, cute.make_layout(HV))

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    s = cute.make_rmem_tensor((4,), F32)
    cute.copy(c16, gs[gidx[bi], h, row, lane, None], s)
    neg_a = F32(0.0) - exp_f32(galog[h])
    bias = gdt[h]
    rk = cute.make_rmem_tensor((4,), BF16)
    rq = cute.make_rmem_tensor((4,), BF16)
    o = cute.make_rmem_tensor((4,), F32)
    for t in cutlass.range_constexpr(SEQ):
        cute.copy(c8, gk[bi, t, hk, lane, None], rk)
        cute.copy(c8, gq[bi, t, hk, lane, None], rq)
        vr = gv[bi, t, h, row].to(F32)
        x = add_rn(ga[bi, t, h].to(F32), bias)
        softplus = x
        if x <= F32(20.0):
            softplus = log1p_f32(exp_f32(x))
        g = exp_f32(mul_rn(neg_a, softplus))
        beta = F32(1.0) / add_rn(F32(1.0), exp_f32(F32(0.0) - gb[bi, t, h].to(F32)))

        kv = rk.load().to(F32)
        qv = rq.load().to(F32)
        for i in cutlass.range_constexpr(4):
            o[i] = mul_rn(g, s[i])
        part = mul_rn(kv[0], o[0])
        for i in cutlass.range_constexpr(1, 4):
            part = fma_rn(kv[i], o[i], part)
        old_v = warp_sum(part)
        new_v = add_rn(mul_rn(beta, vr), mul_rn(sub_rn(F32(1.0), beta), old_v))
        for i in cutlass.range_constexpr(4):
            s[i] = add_rn(sub_rn(o[i], mul_rn(kv[i], old_v)), mul_rn(kv[i], new_v))
        part2 = mul_rn(qv[0], s[0])
        for i in cutlass.range_constexpr(1, 4):
            part2 = fma_rn(qv[i], s[i], part2)
        out = warp_sum(part2)
        if lane == 0:
            go[bi, t, h, row] = mul_rn(scale, out).to(BF16)


@cute.kernel
def copy_pool(src: cute.Pointer, dst: cute.Pointer, n4: cutlass.Int64):
    i = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    vecs = cute.make_layout((POOL_VEC, 4), stride=(4, 1))
    gsrc = cute.make_tensor(src, vecs)
    gdst = cute.make_tensor(dst, vecs)
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    r = cute.make_rmem_tensor((4,), F32)
    if cutlass.Int64(i) < n4:
        cute.copy(c16, gsrc[i, None], r)
        cute.copy(c16, r, gdst[i, None])


MKB_PLAN = """/* mkb:plan
launch gdn_mtp grid(batch_size * num_v_heads * head_size / 8) block(256)
  args(q, k, v, initial_state, initial_state_indices, A_log, a, dt_bias, b, output, f32(scale))
launch copy_pool grid(ceil_div(pool_size * num_v_heads * head_size * head_size / 4, 256)) block(256)
  args(initial_state, final_state, i64(pool_size * num_v_heads * head_size * head_size / 4))
*/"""
