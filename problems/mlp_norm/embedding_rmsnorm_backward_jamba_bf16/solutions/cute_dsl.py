"""Fused backward of embedding lookup + RMSNorm (Jamba sizes: hidden 4096, vocabulary 65536) in CuTe DSL:
the algorithm of solutions/cuda.cu.

1. count_ids: counts[v] = how many tokens have id v (int atomics into a zeroed scratch).
2. prepare_rows: one block per vocabulary row: an absent id gets its bf16 zero row; a shared id gets a
   zeroed fp32 accumulator row in `sums`.
3. rmsnorm_backward (persistent, 264 blocks of 512 threads x 8 columns): per token, gh = rstd * (g - n *
   mean(g * n)) in fp32 with one block reduction; the weight gradient summed per thread in registers; gh
   goes straight to its bf16 table row when its id is unique, else into the id's accumulator row with
   fp32 atomics.
4. finish_rows: the shared ids' accumulator rows, rounded once to bf16.
5. grad_weight_reduce: sums the 264 per-block weight-gradient rows and rounds once.
All arithmetic is fp32; the only roundings are the final bf16 casts (reference.md)."""
import cutlass
import cutlass.cute as cute

TOKENS = 64 * 256
HIDDEN = 4096
VOCAB = 65536
VEC = 8                        # columns per thread
THREADS = HIDDEN // VEC        # 512
WARPS = THREADS // 32          # 16
PARTS = 264                    # rmsnorm_backward's grid: 2 resident blocks per SM x 132 SMs
BF16 = cutlass.BFloat16
F32 = cutlass.Float32
I32 = cutlass.Int32

assert THREADS * VEC == HIDDEN


@cute.kernel
def count_ids(ids: cute.Pointer, counts: cute.Pointer, tokens: cutlass.Int32):
    t = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gids = cute.make_tensor(ids, cute.make_layout(TOKENS))
    if t < tokens:
        cute.arch.atomic_add(counts + I32(gids[t]), I32(1))


@cute.kernel
def prepare_rows(counts: cute.Pointer, grad_embedding: cute.Pointer, sums: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    v = cute.arch.block_idx()[0]
    gc = cute.make_tensor(counts, cute.make_layout(VOCAB))
    rows = cute.make_layout((VOCAB, THREADS, VEC), stride=(HIDDEN, VEC, 1))
    gdt = cute.make_tensor(grad_embedding, rows)
    gsum = cute.make_tensor(sums, rows)
    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    copy128f = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    c = gc[v]
    if c == 0:
        zero = cute.make_rmem_tensor((VEC,), BF16)
        for k in cutlass.range_constexpr(VEC):
            zero[k] = BF16(0.0)
        cute.copy(copy128, zero, gdt[v, tidx, None])
    if c > 1:
        zerof = cute.make_rmem_tensor((VEC,), F32)
        for k in cutlass.range_constexpr(VEC):
            zerof[k] = F32(0.0)
        cute.copy(copy128f, zerof, gsum[v, tidx, None])


@cute.kernel
def rmsnorm_backward(grad_output: cute.Pointer, ids: cute.Pointer, hidden: cute.Pointer, rstd: cute.Pointer,
                     weight: cute.Pointer, counts: cute.Pointer, grad_embedding: cute.Pointer, sums: cute.Pointer,
                     gw_partial: cute.Pointer, tokens: cutlass.Int32):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    step = cute.arch.grid_dim()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()

    rows = cute.make_layout((TOKENS, THREADS, VEC), stride=(HIDDEN, VEC, 1))
    ggo = cute.make_tensor(grad_output, rows)
    ghs = cute.make_tensor(hidden, rows)
    gids = cute.make_tensor(ids, cute.make_layout(TOKENS))
    grs = cute.make_tensor(rstd, cute.make_layout(TOKENS))
    gc = cute.make_tensor(counts, cute.make_layout(VOCAB))
    gdt = cute.make_tensor(grad_embedding, cute.make_layout((VOCAB, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    gw = cute.make_tensor(weight, cute.make_layout((THREADS, VEC), stride=(VEC, 1)))
    gpart = cute.make_tensor(gw_partial, cute.make_layout((PARTS, THREADS, VEC), stride=(HIDDEN, VEC, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * WARPS), cute.make_layout((2, WARPS), stride=(WARPS, 1)))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    copy128f = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)

    rw = cute.make_rmem_tensor((VEC,), BF16)
    cute.copy(copy128, gw[tidx, None], rw)
    acc = cute.make_rmem_tensor((VEC,), F32)
    for k in cutlass.range_constexpr(VEC):
        acc[k] = F32(0.0)
    rgo = cute.make_rmem_tensor((VEC,), BF16)
    rhs = cute.make_rmem_tensor((VEC,), F32)
    g = cute.make_rmem_tensor((VEC,), F32)
    gh = cute.make_rmem_tensor((VEC,), F32)
    out = cute.make_rmem_tensor((VEC,), BF16)

    parity = I32(0)
    for t in cutlass.range(bidx, tokens, step):
        cute.copy(copy128, ggo[t, tidx, None], rgo)
        cute.copy(copy128f, ghs[t, tidx, None], rhs)
        r = grs[t]
        dot = F32(0.0)
        for k in cutlass.range_constexpr(VEC):
            dy = rgo[k].to(F32)
            n = rhs[k] * r
            g[k] = dy * rw[k].to(F32)
            acc[k] = acc[k] + dy * n
            dot = dot + g[k] * n
        dot = cute.arch.warp_reduction_sum(dot)
        if lane == 0:
            red[parity, warp] = dot
        cute.arch.sync_threads()
        total = F32(0.0)
        for w in cutlass.range_constexpr(WARPS):
            total = total + red[parity, w]
        parity = parity ^ 1

        mean = total / F32(HIDDEN)  # (g * n).mean(-1)
        for k in cutlass.range_constexpr(VEC):
            gh[k] = r * (g[k] - (rhs[k] * r) * mean)
        v = I32(gids[t])
        if gc[v] == 1:
            for k in cutlass.range_constexpr(VEC):
                out[k] = gh[k].to(BF16)
            cute.copy(copy128, out, gdt[v, tidx, None])
        else:
            base = sums + (v * HIDDEN + tidx * VEC)
            for k in cutlass.range_constexpr(VEC):
                cute.arch.atomic_add(base + k, gh[k])

    cute.copy(copy128f, acc, gpart[bidx, tidx, None])


@cute.kernel
def finish_rows(counts: cute.Pointer, sums: cute.Pointer, grad_embedding: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    v = cute.arch.block_idx()[0]
    gc = cute.make_tensor(counts, cute.make_layout(VOCAB))
    rows = cute.make_layout((VOCAB, THREADS, VEC), stride=(HIDDEN, VEC, 1))
    gdt = cute.make_tensor(grad_embedding, rows)
    gsum = cute.make_tensor(sums, rows)
    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    copy128f = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    if gc[v] > 1:
        s = cute.make_rmem_tensor((VEC,), F32)
        out = cute.make_rmem_tensor((VEC,), BF16)
        cute.copy(copy128f, gsum[v, tidx, None], s)
        for k in cutlass.range_constexpr(VEC):
            out[k] = s[k].to(BF16)
        cute.copy(copy128, out, gdt[v, tidx, None])


@cute.kernel
def grad_weight_reduce(gw_partial: cute.Pointer, grad_weight: cute.Pointer, parts: cutlass.Int32):
    """grad_weight[c] = bf16(sum over parts of gw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes."""
    tx = cute.arch.thread_idx()[0]
    ty = cute.arch.thread_idx()[1]
    c = cute.arch.block_idx()[0] * 32 + tx
    gpart = cute.make_tensor(gw_partial, cute.make_layout((PARTS, HIDDEN), stride=(HIDDEN, 1)))
    gdw = cute.make_tensor(grad_weight, cute.make_layout(HIDDEN))
    part_sums = cute.make_tensor(cute.arch.alloc_smem(F32, 32 * 33), cute.make_layout((32, 32), stride=(33, 1)))
    acc = F32(0.0)
    for p in cutlass.range(ty, parts, 32):
        acc = acc + gpart[p, c]
    part_sums[ty, tx] = acc
    cute.arch.sync_threads()
    if ty == 0:
        total = F32(0.0)
        for y in cutlass.range(32, unroll=8):
            total = total + part_sums[y, tx]
        gdw[c] = total.to(BF16)


MKB_PLAN = """/* mkb:plan
# 264 = 2 resident 512-thread blocks per SM x 132 SMs, as cuda.cu.
scratch counts int32[vocab_size] zeroed
scratch sums fp32[vocab_size * hidden_size]
scratch gw_partial fp32[264 * hidden_size]
launch count_ids grid(ceil_div(batch_size * seq_len, 256)) block(256) args(input_ids, counts, i32(batch_size * seq_len))
launch prepare_rows grid(vocab_size) block(512) args(counts, grad_embedding, sums)
launch rmsnorm_backward grid(264) block(512)
  args(grad_output, input_ids, hidden_states_fp32, rstd, norm_weight, counts, grad_embedding, sums, gw_partial,
       i32(batch_size * seq_len))
launch finish_rows grid(vocab_size) block(512) args(counts, sums, grad_embedding)
launch grad_weight_reduce grid(hidden_size / 32) block(32, 32) args(gw_partial, grad_weight, i32(264))
*/"""
