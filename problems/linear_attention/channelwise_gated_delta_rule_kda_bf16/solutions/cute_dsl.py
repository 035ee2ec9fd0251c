"""KDA (channel-wise gated delta rule) in CuTe DSL: the algorithm of solutions/cuda.cu, two launches.
  1. normalize_qk: one warp per (b, t, h) row, lane l holding channels 4l .. 4l + 3 (8-byte loads): fp32
     sums of squares (a product, then an fma chain, then a butterfly over xor 16 .. 1), sqrt.rn, the clamp
     at eps, one correctly rounded division per element (as F.normalize), q times scale; fp32 rows to the
     scratch buffers qs and kn (16-byte stores).
  2. kda_recurrent: one 128-thread block per (32-column slice of the state, b, h). Each state column is an
     independent recurrence starting from zero: thread (column c, part p) keeps 32 of column c's 128 key
     channels in registers for all 1024 tokens (float4 group j holds channels (4j + p) * 4 .. + 3). A sum
     over the key channels is four fma chains over the thread's groups, (r0 + r1) + (r2 + r3), and two
     shuffles across the column's 4 threads. Per token: S *= exp(g), read = k . S, w = beta * (v - read),
     S += k * w (fma), o = q . S. The next token's kn, qs, exp(g), v and beta are staged in shared memory
     (double buffer, global loads issued before this token's arithmetic), one barrier per token.

Rounding as the cuda solution (output bf16, so multiply-adds are fused where it fuses them): products and
fmas through inline-PTX mul.rn / fma.rn / add.rn / sub.rn, so the DSL contracts nothing else; exp(g) in
Float64 (libdevice's accurate routine; the DSL's fp32 exp is an ex2.approx sequence) rounded once to fp32,
within an ulp of CUDA's expf."""
import cutlass
import cutlass.cute as cute

BATCH, SEQ, HEADS, D = 8, 1024, 16, 128
K, V = D, D
ROWS = BATCH * SEQ * HEADS
COLS, PARTS = 32, 4
THREADS = COLS * PARTS                # 128 == D: one staged element per thread
PER = D // PARTS                      # 32 key channels per thread
GROUPS = PER // 4                     # 8 float4 groups
F32, F64, BF16, I32, I64 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16, cutlass.Int32, cutlass.Int64
assert THREADS == D and D == 32 * 4 and D % COLS == 0 and (ROWS * 32) % 256 == 0


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
def kda_recurrent(kn: cute.Pointer, qs: cute.Pointer, v: cute.Pointer, g: cute.Pointer, beta: cute.Pointer,
                  o: cute.Pointer, seq_len: cutlass.Int32, num_heads: cutlass.Int32):
    tid = cute.arch.thread_idx()[0]
    col = tid // PARTS
    part = tid % PARTS
    bx, by, _ = cute.arch.block_idx()
    b = by // HEADS
    h = by % HEADS
    c0 = bx * COLS
    column = c0 + col
    rows = cute.make_layout((BATCH, SEQ, HEADS, D), stride=(SEQ * HEADS * D, HEADS * D, D, 1))
    gkn, gqs = cute.make_tensor(kn, rows), cute.make_tensor(qs, rows)
    gv, gg, go = cute.make_tensor(v, rows), cute.make_tensor(g, rows), cute.make_tensor(o, rows)
    gbeta = cute.make_tensor(beta, cute.make_layout((BATCH, SEQ, HEADS), stride=(SEQ * HEADS, HEADS, 1)))

    vec = cute.make_layout((2, D // 4, 4), stride=(D, 4, 1))          # (buffer, float4 group, element)
    s_k = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * D, alignment=16), vec)
    s_q = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * D, alignment=16), vec)
    s_e = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * D, alignment=16), vec)
    s_v = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * COLS), cute.make_layout((2, COLS), stride=(COLS, 1)))
    s_beta = cute.make_tensor(cute.arch.alloc_smem(F32, 2), cute.make_layout(2))

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    regs = cute.make_layout((GROUPS, 4), stride=(4, 1))
    S = cute.make_rmem_tensor(regs, F32)
    S.fill(0.0)

    s_k[0, tid // 4, tid % 4] = gkn[b, 0, h, tid]
    s_q[0, tid // 4, tid % 4] = gqs[b, 0, h, tid]
    s_e[0, tid // 4, tid % 4] = exp_f32(gg[b, 0, h, tid].to(F32))
    if tid < COLS:
        s_v[0, tid] = gv[b, 0, h, c0 + tid].to(F32)
    if tid == 0:
        s_beta[0] = gbeta[b, 0, h].to(F32)
    cute.arch.sync_threads()

    kk = cute.make_rmem_tensor(regs, F32)
    ee = cute.make_rmem_tensor((4,), F32)
    qq = cute.make_rmem_tensor((4,), F32)
    acc = cute.make_rmem_tensor((4,), F32)
    for t in cutlass.range(seq_len):
        buf = t & 1
        next_k = F32(0.0)
        next_q = F32(0.0)
        next_g = F32(0.0)
        next_v = F32(0.0)
        next_beta = F32(0.0)
        if t + 1 < seq_len:           # next token's operands, in flight during this token's arithmetic
            next_k = gkn[b, t + 1, h, tid]
            next_q = gqs[b, t + 1, h, tid]
            next_g = gg[b, t + 1, h, tid].to(F32)
            if tid < COLS:
                next_v = gv[b, t + 1, h, c0 + tid].to(F32)
            if tid == 0:
                next_beta = gbeta[b, t + 1, h].to(F32)
        for e in cutlass.range_constexpr(4):
            acc[e] = F32(0.0)
        for j in cutlass.range_constexpr(GROUPS):
            cute.copy(c16, s_k[buf, j * PARTS + part, None], kk[j, None])
            cute.copy(c16, s_e[buf, j * PARTS + part, None], ee)
            for e in cutlass.range_constexpr(4):
                S[j, e] = mul_rn(S[j, e], ee[e])
                acc[e] = fma_rn(kk[j, e], S[j, e], acc[e])
        read = col_sum(acc)
        w = mul_rn(s_beta[buf], sub_rn(s_v[buf, col], read))
        for e in cutlass.range_constexpr(4):
            acc[e] = F32(0.0)
        for j in cutlass.range_constexpr(GROUPS):
            cute.copy(c16, s_q[buf, j * PARTS + part, None], qq)
            for e in cutlass.range_constexpr(4):
                S[j, e] = fma_rn(kk[j, e], w, S[j, e])
                acc[e] = fma_rn(qq[e], S[j, e], acc[e])
        out = col_sum(acc)
        if part == 0:
            go[b, t, h, column] = out.to(BF16)
        if t + 1 < seq_len:           # the other buffer was last read before the previous barrier
            s_k[buf ^ 1, tid // 4, tid % 4] = next_k
            s_q[buf ^ 1, tid // 4, tid % 4] = next_q
            s_e[buf ^ 1, tid // 4, tid % 4] = exp_f32(next_g)
            if tid < COLS:
                s_v[buf ^ 1, tid] = next_v
            if tid == 0:
                s_beta[buf ^ 1] = next_beta
        cute.arch.sync_threads()


MKB_PLAN = """/* mkb:plan
scratch qs fp32[batch_size * seq_len * num_k_heads * head_dim]
scratch kn fp32[batch_size * seq_len * num_k_heads * head_dim]
launch normalize_qk grid(ceil_div(batch_size * seq_len * num_k_heads * 32, 256)) block(256)
  args(q, k, qs, kn, i64(batch_size * seq_len * num_k_heads), f32(scale), f32(norm_eps))
launch kda_recurrent grid(head_dim / 32, batch_size * num_v_heads) block(128)
  args(kn, qs, v, g, beta, o, i32(seq_len), i32(num_v_heads))
*/"""
