"""DeltaNet delta rule in CuTe DSL: the algorithm of solutions/cuda.cu, two launches.
  1. normalize_qk: one warp per (b, h, t) row, lane l holding channels 4l .. 4l + 3 (8-byte loads): fp32
     sums of squares (a product, then an fma chain, then a butterfly over xor 16 .. 1), sqrt.rn, the clamp
     at eps, one correctly rounded division per element (as F.normalize), q times scale; fp32 rows to the
     scratch buffers qs and kn (16-byte stores).
  2. delta_rule_recurrent: one 128-thread block per (32-column slice of the state, b, h). Every state column
     is an independent recurrence: thread (column c, part p) holds 32 of column c's 128 key-channel entries
     in registers for the whole sequence (float4 group j holds channels (4j + p) * 4 .. + 3). The sums over
     the key channels are four chains over the thread's groups, (r0 + r1) + (r2 + r3), and two shuffles
     across the column's 4 threads. The next token's kn, qs, v and beta are staged in shared memory (double
     buffer, global loads issued before this token's arithmetic), one barrier per token.

Rounding as the cuda solution and reference.md: the read u = sum_k (S * kn) with each product rounded
before its sum (mul.rn then add.rn), w = (v - u) * beta, S = S + (kn * w) with the product rounded before
the add, the output's sum as fma.rn chains (all inline PTX, so nothing is contracted); one rounding to bf16."""
import cutlass
import cutlass.cute as cute

BATCH, HEADS, SEQ, K, V = 8, 16, 1024, 128, 128
ROWS = BATCH * HEADS * SEQ
PAIRS = BATCH * HEADS
COLS, PARTS = 32, 4
THREADS = COLS * PARTS                # 128 == K: one staged element per thread
PER = K // PARTS                      # 32 key channels per thread
GROUPS = PER // 4                     # 8 float4 groups
F32, BF16, I32, I64 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32, cutlass.Int64
assert THREADS == K and K == 32 * 4 and V % COLS == 0 and (ROWS * 32) % 256 == 0


def add_rn(a, b):
    return F32(cute.arch.inline_ptx("add.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def sub_rn(a, b):
    return F32(cute.arch.inline_ptx("sub.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def fma_rn(a, b, c):
    return F32(cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                    read_only_args=[a, b, c]))


def sumsq4(x):
    s = mul_rn(x[0], x[0])
    for e in range(1, 4):             # trace-time unrolled
        s = fma_rn(x[e], x[e], s)
    return s


def col_sum(r):
    """(r0 + r1) + (r2 + r3), then xor 1 and 2 over the column's 4 threads."""
    s = add_rn(add_rn(r[0], r[1]), add_rn(r[2], r[3]))
    s = add_rn(s, F32(cute.arch.shuffle_sync_bfly(s, 1)))
    return add_rn(s, F32(cute.arch.shuffle_sync_bfly(s, 2)))


@cute.kernel
def normalize_qk(q: cute.Pointer, k: cute.Pointer, qs: cute.Pointer, kn: cute.Pointer, rows: cutlass.Int64,
                 scale: cutlass.Float32, eps: cutlass.Float32):
    row = (cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]) // 32
    lane = cute.arch.lane_idx()
    vin = cute.make_layout((ROWS, 32, 4), stride=(K, 4, 1))
    gq, gk = cute.make_tensor(q, vin), cute.make_tensor(k, vin)
    gqs, gkn = cute.make_tensor(qs, vin), cute.make_tensor(kn, vin)
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    if I64(row) < rows:               # whole warps together
        rq = cute.make_rmem_tensor((4,), BF16)
        rk = cute.make_rmem_tensor((4,), BF16)
        cute.copy(c8, gq[row, lane, None], rq)
        cute.copy(c8, gk[row, lane, None], rk)
        xq = rq.load().to(F32)
        xk = rk.load().to(F32)
        sq = sumsq4(xq)
        sk = sumsq4(xk)
        for i in cutlass.range_constexpr(5):
            sq = add_rn(sq, F32(cute.arch.shuffle_sync_bfly(sq, 16 >> i)))
            sk = add_rn(sk, F32(cute.arch.shuffle_sync_bfly(sk, 16 >> i)))
        qd = cute.arch.fmax(cute.math.sqrt(sq), eps)
        kd = cute.arch.fmax(cute.math.sqrt(sk), eps)
        oq = cute.make_rmem_tensor((4,), F32)
        ok = cute.make_rmem_tensor((4,), F32)
        for e in cutlass.range_constexpr(4):
            oq[e] = mul_rn(xq[e] / qd, scale)
            ok[e] = xk[e] / kd
        cute.copy(c16, oq, gqs[row, lane, None])
        cute.copy(c16, ok, gkn[row, lane, None])


@cute.kernel
def delta_rule_recurrent(kn: cute.Pointer, qs: cute.Pointer, v: cute.Pointer, beta: cute.Pointer,
                         initial_state: cute.Pointer, o: cute.Pointer, final_state: cute.Pointer,
                         seq_len: cutlass.Int32):
    tid = cute.arch.thread_idx()[0]
    col = tid // PARTS
    part = tid % PARTS
    bx, pair, _ = cute.arch.block_idx()
    c0 = bx * COLS
    column = c0 + col
    rowsk = cute.make_layout((PAIRS, SEQ, K), stride=(SEQ * K, K, 1))
    gkn, gqs = cute.make_tensor(kn, rowsk), cute.make_tensor(qs, rowsk)
    vo = cute.make_layout((PAIRS, SEQ, V), stride=(SEQ * V, V, 1))
    gv, go = cute.make_tensor(v, vo), cute.make_tensor(o, vo)
    gbeta = cute.make_tensor(beta, cute.make_layout((PAIRS, SEQ), stride=(SEQ, 1)))
    # the state as (pair, float4 group, element, column): channel = group * 4 + element
    mats = cute.make_layout((PAIRS, K // 4, 4, V), stride=(K * V, 4 * V, V, 1))
    gs, gfs = cute.make_tensor(initial_state, mats), cute.make_tensor(final_state, mats)

    vec = cute.make_layout((2, K // 4, 4), stride=(K, 4, 1))          # (buffer, float4 group, element)
    s_k = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * K, alignment=16), vec)
    s_q = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * K, alignment=16), vec)
    s_v = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * COLS), cute.make_layout((2, COLS), stride=(COLS, 1)))
    s_beta = cute.make_tensor(cute.arch.alloc_smem(F32, 2), cute.make_layout(2))

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    regs = cute.make_layout((GROUPS, 4), stride=(4, 1))
    S = cute.make_rmem_tensor(regs, F32)
    for j in cutlass.range_constexpr(GROUPS):
        for e in cutlass.range_constexpr(4):
            S[j, e] = gs[pair, j * PARTS + part, e, column]

    s_k[0, tid // 4, tid % 4] = gkn[pair, 0, tid]
    s_q[0, tid // 4, tid % 4] = gqs[pair, 0, tid]
    if tid < COLS:
        s_v[0, tid] = gv[pair, 0, c0 + tid].to(F32)
    if tid == 0:
        s_beta[0] = gbeta[pair, 0].to(F32)
    cute.arch.sync_threads()

    kk = cute.make_rmem_tensor(regs, F32)
    qq = cute.make_rmem_tensor((4,), F32)
    acc = cute.make_rmem_tensor((4,), F32)
    for t in cutlass.range(seq_len):
        buf = t & 1
        next_k = F32(0.0)
        next_q = F32(0.0)
        next_v = F32(0.0)
        next_beta = F32(0.0)
        if t + 1 < seq_len:           # next token's operands, in flight during this token's arithmetic
            next_k = gkn[pair, t + 1, tid]
            next_q = gqs[pair, t + 1, tid]
            if tid < COLS:
                next_v = gv[pair, t + 1, c0 + tid].to(F32)
            if tid == 0:
                next_beta = gbeta[pair, t + 1].to(F32)
        for e in cutlass.range_constexpr(4):
            acc[e] = F32(0.0)
        for j in cutlass.range_constexpr(GROUPS):
            cute.copy(c16, s_k[buf, j * PARTS + part, None], kk[j, None])
            for e in cutlass.range_constexpr(4):
                acc[e] = add_rn(acc[e], mul_rn(S[j, e], kk[j, e]))
        read = col_sum(acc)
        w = mul_rn(sub_rn(s_v[buf, col], read), s_beta[buf])
        for e in cutlass.range_constexpr(4):
            acc[e] = F32(0.0)
        for j in cutlass.range_constexpr(GROUPS):
            cute.copy(c16, s_q[buf, j * PARTS + part, None], qq)
            for e in cutlass.range_constexpr(4):
                S[j, e] = add_rn(S[j, e], mul_rn(kk[j, e], w))
                acc[e] = fma_rn(qq[e], S[j, e], acc[e])
        out = col_sum(acc)
        if part == 0:
            go[pair, t, column] = out.to(BF16)
        if t + 1 < seq_len:           # the other buffer was last read before the previous barrier
            s_k[buf ^ 1, tid // 4, tid % 4] = next_k
            s_q[buf ^ 1, tid // 4, tid % 4] = next_q
            if tid < COLS:
                s_v[buf ^ 1, tid] = next_v
            if tid == 0:
                s_beta[buf ^ 1] = next_beta
        cute.arch.sync_threads()

    for j in cutlass.range_constexpr(GROUPS):
        for e in cutlass.range_constexpr(4):
            gfs[pair, j * PARTS + part, e, column] = S[j, e]


MKB_PLAN = """/* mkb:plan
scratch qs fp32[batch_size * num_heads * seq_len * key_dim]
scratch kn fp32[batch_size * num_heads * seq_len * key_dim]
launch normalize_qk grid(ceil_div(batch_size * num_heads * seq_len * 32, 256)) block(256)
  args(q, k, qs, kn, i64(batch_size * num_heads * seq_len), f32(scale), f32(norm_eps))
launch delta_rule_recurrent grid(value_dim / 32, batch_size * num_heads) block(128)
  args(kn, qs, v, beta, initial_state, o, final_state, i32(seq_len))
*/"""
