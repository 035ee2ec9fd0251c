"""Gated linear attention (GLA) in CuTe DSL: the algorithm of solutions/cuda.cu, one launch. A 256-thread
block per (32 value channels, b, h): 16 x 32 = 512 blocks. Every state column is an independent recurrence
starting from zero: thread (column c, part p) keeps 32 of column c's 256 key channels in registers for the
1024 tokens (float4 group j holds channels (8j + p) * 4 .. + 3). Per token: h = fma(k, v_c, h * exp(gk))
channel by channel, then o_c = sum_k (q_k * scale) * h_k: four fma chains over the thread's groups,
(a0 + a1) + (a2 + a3), and three shuffles over the column's 8 threads. The next token's q * scale, k and
exp(gk) (one channel per thread) and v are staged in shared memory (double buffer, global loads issued before
this token's arithmetic); one barrier per token.

Rounding as the cuda solution (output bf16, so multiply-adds are fused where it fuses them): inline-PTX
mul.rn / fma.rn / add.rn, so the DSL contracts nothing else; exp(gk) in Float64 (libdevice's accurate
routine; the DSL's fp32 exp is an ex2.approx sequence) rounded once to fp32, within an ulp of CUDA's expf."""
import cutlass
import cutlass.cute as cute

BATCH, SEQ, HEADS, K, V = 8, 1024, 4, 256, 512
COLS, PARTS = 32, 8
THREADS = COLS * PARTS                # 256 == K: one staged channel per thread
PER = K // PARTS                      # 32 key channels per thread
GROUPS = PER // 4                     # 8 float4 groups
F32, F64, BF16 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16
assert THREADS == K and V % COLS == 0


def add_rn(a, b):
    return F32(cute.arch.inline_ptx("add.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def fma_rn(a, b, c):
    return F32(cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                    read_only_args=[a, b, c]))


def exp_f32(x):
    return F32(cute.math.exp(F64(x)))


@cute.kernel
def gla_recurrent(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, gk: cute.Pointer, o: cute.Pointer,
                  seq_len: cutlass.Int32, num_heads: cutlass.Int32, scale: cutlass.Float32):
    tid = cute.arch.thread_idx()[0]
    col = tid // PARTS
    part = tid % PARTS
    bx, by, _ = cute.arch.block_idx()
    b = by // HEADS
    h = by % HEADS
    c0 = bx * COLS
    column = c0 + col
    krows = cute.make_layout((BATCH, SEQ, HEADS, K), stride=(SEQ * HEADS * K, HEADS * K, K, 1))
    vrows = cute.make_layout((BATCH, SEQ, HEADS, V), stride=(SEQ * HEADS * V, HEADS * V, V, 1))
    gq, gk_, gg = cute.make_tensor(q, krows), cute.make_tensor(k, krows), cute.make_tensor(gk, krows)
    gv, go = cute.make_tensor(v, vrows), cute.make_tensor(o, vrows)

    vec = cute.make_layout((2, K // 4, 4), stride=(K, 4, 1))          # (buffer, float4 group, element)
    s_q = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * K, alignment=16), vec)
    s_k = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * K, alignment=16), vec)
    s_e = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * K, alignment=16), vec)
    s_v = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * COLS), cute.make_layout((2, COLS), stride=(COLS, 1)))

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    S = cute.make_rmem_tensor(cute.make_layout((GROUPS, 4), stride=(4, 1)), F32)
    S.fill(0.0)

    s_q[0, tid // 4, tid % 4] = mul_rn(gq[b, 0, h, tid].to(F32), scale)
    s_k[0, tid // 4, tid % 4] = gk_[b, 0, h, tid].to(F32)
    s_e[0, tid // 4, tid % 4] = exp_f32(gg[b, 0, h, tid].to(F32))
    if tid < COLS:
        s_v[0, tid] = gv[b, 0, h, c0 + tid].to(F32)
    cute.arch.sync_threads()

    ee = cute.make_rmem_tensor((4,), F32)
    xx = cute.make_rmem_tensor((4,), F32)
    yy = cute.make_rmem_tensor((4,), F32)
    acc = cute.make_rmem_tensor((4,), F32)
    for t in cutlass.range(seq_len):
        buf = t & 1
        nq = BF16(0.0)
        nk = BF16(0.0)
        ng = BF16(0.0)
        nv = BF16(0.0)
        if t + 1 < seq_len:           # next token's operands, in flight during this token's arithmetic
            nq = gq[b, t + 1, h, tid]
            nk = gk_[b, t + 1, h, tid]
            ng = gg[b, t + 1, h, tid]
            if tid < COLS:
                nv = gv[b, t + 1, h, c0 + tid]
        vc = s_v[buf, col]
        for e in cutlass.range_constexpr(4):
            acc[e] = F32(0.0)
        for j in cutlass.range_constexpr(GROUPS):
            cute.copy(c16, s_e[buf, j * PARTS + part, None], ee)
            cute.copy(c16, s_k[buf, j * PARTS + part, None], xx)
            cute.copy(c16, s_q[buf, j * PARTS + part, None], yy)
            for e in cutlass.range_constexpr(4):
                S[j, e] = fma_rn(xx[e], vc, mul_rn(S[j, e], ee[e]))
                acc[e] = fma_rn(yy[e], S[j, e], acc[e])
        out = add_rn(add_rn(acc[0], acc[1]), add_rn(acc[2], acc[3]))
        for i in cutlass.range_constexpr(3):
            out = add_rn(out, F32(cute.arch.shuffle_sync_bfly(out, 1 << i)))
        if part == 0:
            go[b, t, h, column] = out.to(BF16)
        if t + 1 < seq_len:           # the other buffer was last read before the previous barrier
            s_q[buf ^ 1, tid // 4, tid % 4] = mul_rn(nq.to(F32), scale)
            s_k[buf ^ 1, tid // 4, tid % 4] = nk.to(F32)
            s_e[buf ^ 1, tid // 4, tid % 4] = exp_f32(ng.to(F32))
            if tid < COLS:
                s_v[buf ^ 1, tid] = nv.to(F32)
        cute.arch.sync_threads()


MKB_PLAN = """/* mkb:plan
launch gla_recurrent grid(value_dim / 32, batch_size * num_heads) block(256)
  args(q, k, v, gk, o, i32(seq_len), i32(num_heads), f32(scale))
*/"""
