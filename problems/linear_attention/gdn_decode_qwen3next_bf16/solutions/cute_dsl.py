"""Gated delta-rule decode (Qwen3-Next) in CuTe DSL: the algorithm of solutions/cuda.cu. One warp per
(sequence, value head, value row v); a 256-thread block holds 8 rows of one (sequence, head) pair. The k-last
state's row v (128 fp32) is column v of the [K, V] state the rule works on: lane l holds k = 4l .. 4l + 3 (one
16-byte load), with the same four elements of k and q (8-byte loads). Per row: old = g * S, old_v = k . old
(four-term fma chain per lane, then a butterfly over xor 16, 8, 4, 2, 1), new_v = beta * v + (1 - beta) * old_v,
S' = (old - k * old_v) + k * new_v, out = scale * (q . S'). Gate and beta are recomputed per warp with eager's
operations (x > 20 passes x through the softplus).

Rounding as the cuda solution: every product, sum and difference of the state arithmetic through inline-PTX
mul.rn / add.rn / sub.rn / fma.rn (nothing contracted or reassociated); the quotient is div.rn (the DSL's '/').
The gate's exp and log1p are computed in Float64 (libdevice's accurate routines; the DSL's fp32 exp is an
ex2.approx sequence) and rounded to fp32 once, within an ulp of CUDA's expf / log1pf."""
import cutlass
import cutlass.cute as cute

BATCH, HQK, HV, D = 64, 8, 16, 128
GROUP = HV // HQK
ROWS = 8                              # warps (value rows) per block
PAIRS = BATCH * HV
BLOCKS = PAIRS * D // ROWS            # 16384
F32, F64, BF16 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16
assert D == 32 * 4 and D % ROWS == 0


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
    for i in range(5):                # trace-time unrolled
        v = add_rn(v, F32(cute.arch.shuffle_sync_bfly(v, 16 >> i)))
    return v


@cute.kernel
def gdn_decode(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, state: cute.Pointer, A_log: cute.Pointer,
               a: cute.Pointer, dt_bias: cute.Pointer, b: cute.Pointer, output: cute.Pointer,
               new_state: cute.Pointer, scale: cutlass.Float32):
    warp = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()
    blk = cute.arch.block_idx()[0]
    pair = blk // (D // ROWS)
    row = (blk % (D // ROWS)) * ROWS + warp
    bi = pair // HV
    h = pair % HV
    hk = h // GROUP
    # state rows as (pair, row, lane, 4): lane's 16 contiguous bytes
    srows = cute.make_layout((PAIRS, D, 32, 4), stride=(D * D, D, 4, 1))
    gs = cute.make_tensor(state, srows)
    gns = cute.make_tensor(new_state, srows)
    qk = cute.make_layout((BATCH, HQK, 32, 4), stride=(HQK * D, D, 4, 1))
    gq = cute.make_tensor(q, qk)
    gk = cute.make_tensor(k, qk)
    gv = cute.make_tensor(v, cute.make_layout((PAIRS, D), stride=(D, 1)))
    go = cute.make_tensor(output, cute.make_layout((PAIRS, D), stride=(D, 1)))
    per_pair = cute.make_layout(PAIRS)
    per_head = cute.make_layout(HV)
    ga, gb = cute.make_tensor(a, per_pair), cute.make_tensor(b, per_pair)
    galog, gdt = cute.make_tensor(A_log, per_head), cute.make_tensor(dt_bias, per_head)

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    rs = cute.make_rmem_tensor((4,), F32)
    rk = cute.make_rmem_tensor((4,), BF16)
    rq = cute.make_rmem_tensor((4,), BF16)
    cute.copy(c16, gs[pair, row, lane, None], rs)
    cute.copy(c8, gk[bi, hk, lane, None], rk)
    cute.copy(c8, gq[bi, hk, lane, None], rq)
    vr = gv[pair, row].to(F32)

    # g = exp(-exp(A_log) * softplus(a + dt_bias)), beta = sigmoid(b): eager's fp32 operations
    x = add_rn(ga[pair].to(F32), gdt[h])
    softplus = x
    if x <= F32(20.0):
        softplus = log1p_f32(exp_f32(x))
    g = exp_f32(mul_rn(F32(0.0) - exp_f32(galog[h]), softplus))
    beta = F32(1.0) / add_rn(F32(1.0), exp_f32(F32(0.0) - gb[pair].to(F32)))

    kv = rk.load().to(F32)
    qv = rq.load().to(F32)
    o = cute.make_rmem_tensor((4,), F32)
    for i in cutlass.range_constexpr(4):
        o[i] = mul_rn(g, rs[i])
    part = mul_rn(kv[0], o[0])
    for i in cutlass.range_constexpr(1, 4):
        part = fma_rn(kv[i], o[i], part)
    old_v = warp_sum(part)
    new_v = add_rn(mul_rn(beta, vr), mul_rn(sub_rn(F32(1.0), beta), old_v))
    ns = cute.make_rmem_tensor((4,), F32)
    for i in cutlass.range_constexpr(4):
        ns[i] = add_rn(sub_rn(o[i], mul_rn(kv[i], old_v)), mul_rn(kv[i], new_v))
    cute.copy(c16, ns, gns[pair, row, lane, None])
    part2 = mul_rn(qv[0], ns[0])
    for i in cutlass.range_constexpr(1, 4):
        part2 = fma_rn(qv[i], ns[i], part2)
    out = warp_sum(part2)
    if lane == 0:
        go[pair, row] = mul_rn(scale, out).to(BF16)


MKB_PLAN = """/* mkb:plan
launch gdn_decode grid(batch_size * num_v_heads * head_size / 8) block(256)
  args(q, k, v, state, A_log, a, dt_bias, b, output, new_state, f32(scale))
*/"""
