"""Fused RMSNorm backward from saved normalized activations and rstd (Qwen3-4B, hidden 2560) in CuTe DSL:
the algorithm of solutions/cuda.cu.

Kernel 1 (persistent): 264 blocks = 2 per SM on 132 SMs, 320 threads each; a block walks rows
blockIdx.x, blockIdx.x + gridDim.x, ... and each thread owns 8 contiguous columns (one 16-byte vector
of each tensor; 320 * 8 = 2560 = hidden exactly). Per row: one 128-bit load of grad_output and of
normalized plus the row's rstd (issued one row ahead), one block reduction of sum(g * n) (butterfly
shuffles, then one shared-memory slot per warp, double-buffered by row parity so one barrier per row
suffices), then the gradient is written to both outputs. The weight gradient is accumulated per thread
in fp32 registers and written once per block as an fp32 partial row; kernel 2 sums the 264 partial rows
per column and rounds once.

Arithmetic as reference.md, all fp32: g = dy * w, dot = sum(g * n) / 2560, dx = rstd * (g - n * dot),
both outputs bf16(dx); grad_weight = bf16(sum dy * n)."""
import cutlass
import cutlass.cute as cute

ROWS = 64 * 8192
HIDDEN = 2560
VEC = 8                       # bf16 per 16-byte vector
THREADS = HIDDEN // VEC       # 320
WARPS = THREADS // 32         # 10
PARTS = 264                   # kernel 1's grid: 2 resident blocks per SM x 132 SMs
BF16 = cutlass.BFloat16
F32 = cutlass.Float32

assert THREADS * VEC == HIDDEN and THREADS % 32 == 0


@cute.kernel
def rmsnorm_backward(grad_output: cute.Pointer, normalized: cute.Pointer, rstd: cute.Pointer, weight: cute.Pointer,
                     grad_hidden: cute.Pointer, grad_residual: cute.Pointer, gw_partial: cute.Pointer,
                     rows: cutlass.Int32):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    step = cute.arch.grid_dim()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()

    # Rows as (row, thread, element): thread t owns columns 8t .. 8t + 7 (16 aligned bytes).
    layout = cute.make_layout((ROWS, THREADS, VEC), stride=(HIDDEN, VEC, 1))
    ggo = cute.make_tensor(grad_output, layout)
    gn = cute.make_tensor(normalized, layout)
    gh = cute.make_tensor(grad_hidden, layout)
    gres = cute.make_tensor(grad_residual, layout)
    grs = cute.make_tensor(rstd, cute.make_layout(ROWS))
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

    # This row's vectors (c*) and the next row's (n*), loaded one row ahead.
    cgo = cute.make_rmem_tensor((VEC,), BF16)
    cn = cute.make_rmem_tensor((VEC,), BF16)
    ngo = cute.make_rmem_tensor((VEC,), BF16)
    nn = cute.make_rmem_tensor((VEC,), BF16)
    g = cute.make_rmem_tensor((VEC,), F32)
    out = cute.make_rmem_tensor((VEC,), BF16)

    nr = F32(0.0)
    if bidx < rows:
        cute.copy(copy128, ggo[bidx, tidx, None], ngo)
        cute.copy(copy128, gn[bidx, tidx, None], nn)
        nr = grs[bidx].to(F32)

    parity = cutlass.Int32(0)
    for row in cutlass.range(bidx, rows, step):
        cgo.store(ngo.load())
        cn.store(nn.load())
        r = nr
        following = row + step
        if following < rows:
            cute.copy(copy128, ggo[following, tidx, None], ngo)
            cute.copy(copy128, gn[following, tidx, None], nn)
            nr = grs[following].to(F32)

        dot = F32(0.0)
        for k in cutlass.range_constexpr(VEC):
            dy = cgo[k].to(F32)
            n = cn[k].to(F32)
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
            out[k] = (r * (g[k] - cn[k].to(F32) * mean)).to(BF16)
        cute.copy(copy128, out, gh[row, tidx, None])
        cute.copy(copy128, out, gres[row, tidx, None])

    cute.copy(copy128f, acc, gpart[bidx, tidx, None])


@cute.kernel
def grad_weight_reduce(gw_partial: cute.Pointer, grad_weight: cute.Pointer, parts: cutlass.Int32):
    """grad_weight[c] = bf16(sum over parts of gw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes."""
    tx = cute.arch.thread_idx()[0]
    ty = cute.arch.thread_idx()[1]
    c = cute.arch.block_idx()[0] * 32 + tx
    gpart = cute.make_tensor(gw_partial, cute.make_layout((PARTS, HIDDEN), stride=(HIDDEN, 1)))
    gdw = cute.make_tensor(grad_weight, cute.make_layout(HIDDEN))
    sums = cute.make_tensor(cute.arch.alloc_smem(F32, 32 * 33), cute.make_layout((32, 32), stride=(33, 1)))
    acc = F32(0.0)
    if c < HIDDEN:
        for p in cutlass.range(ty, parts, 32):
            acc = acc + gpart[p, c]
    sums[ty, tx] = acc
    cute.arch.sync_threads()
    if ty == 0:
        if c < HIDDEN:
            total = F32(0.0)
            for y in cutlass.range(32, unroll=8):
                total = total + sums[y, tx]
            gdw[c] = total.to(BF16)


MKB_PLAN = """/* mkb:plan
# 264 = 2 resident blocks per SM x 132 SMs, as cuda.cu.
scratch gw_partial fp32[264 * hidden_size]
launch rmsnorm_backward grid(264) block(320)
  args(grad_output, normalized, rstd, weight, grad_hidden_states, grad_residual, gw_partial, i32(batch_size * seq_len))
launch grad_weight_reduce grid(ceil_div(hidden_size, 32)) block(32, 32) args(gw_partial, grad_weight, i32(264))
*/"""
