"""expert_parallel_execution_backward_mimo_fp32 in CuTe DSL: the algorithm of solutions/cuda.cu (ten launches,
fp32 FMA products, SIMT 128 x 128 tiles, 8 x 8 per thread, K slices of 8 double-buffered in shared memory
with the next slice prefetched into registers; no TF32). Every routed row is laid out expert after expert.
With p = x W_g^T, q = x W_u^T, a = silu(p), h = a * q and v = g_out W_d per routed row (g_out the token's
output gradient, w its routing weight):
  grad_topk_weights = sum_i h_i v_i (the reference's sum over hidden of g_out * (h W_d^T): one product less)
  grad_down[e]      = sum_rows (w g_out)^T h (h recomputed from p, q as the tiles load; written once)
  grad_p = (w v) q silu'(p), grad_q = (w v) a (the reference's elementwise steps and roundings)
  grad_gate[e], grad_up[e] = sum_rows grad_p^T x, grad_q^T x (one launch; written once)
  grad_hidden[t]    = sum over the token's rows of [grad_p | grad_q] @ [W_g; W_u] (one K = 2048 product,
                      added with fp32 atomics into a zeroed output: the order of a token's 8 adds is not fixed)
The SGEMM main loop is one @cute.jit function; each product passes its two operand loaders (functools.partial
of @cute.jit loaders, compile-time arguments) as the cuda solution passes lambdas: "trans" operands come as
rows along k (thread t fetches index t / 2, k = k0 + 4 (t % 2) .. + 3), "direct" ones as k-rows (k-row t / 32,
indices 4 (t % 32) .. + 3). A CTA past the last tile skips its body (no early exit in the DSL).
Compile-checked only (no GPU here)."""
import functools

import cutlass
import cutlass.cute as cute

F32 = cutlass.Float32
I32, I64 = cutlass.Int32, cutlass.Int64

T = 6144             # num_tokens
H = 4096             # hidden_size
I = 1024             # intermediate_size
E = 256              # num_routed_experts
TOPK = 8
NR = T * TOPK        # routed rows
BM, BN, BK = 128, 128, 8
assert E * I * H < 2 ** 31 and NR * I < 2 ** 31 and T * H < 2 ** 31 and I % 256 == 0   # row_backward: 256 threads


@cute.jit
def ld4(src: cute.Tensor, reg: cute.Tensor):
    """reg[0..3] <- the 4 contiguous fp32 of src (a 16-byte load)."""
    cute.copy(cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128), src, reg)


@cute.jit
def zero4(reg: cute.Tensor):
    for i in cutlass.range_constexpr(4):
        reg[i] = F32(0.0)


@cute.jit
def silu(x):
    return x / (F32(1.0) + cute.math.exp(-x))


@cute.jit
def find_expert(gto: cute.Tensor, experts, tile):
    lo = I32(0)
    hi = experts
    for it in cutlass.range_constexpr(10):      # 256 experts need 8 halvings
        if hi - lo > 1:
            mid = (lo + hi) // 2
            if gto[mid] <= tile:
                lo = mid
            else:
                hi = mid
    return lo


@cute.jit
def sgemm_mainloop(acc: cute.Tensor, fa: cutlass.Constexpr, fb: cutlass.Constexpr, a_trans: cutlass.Constexpr,
                   b_trans: cutlass.Constexpr, k_dim, t):
    """acc[i, j] (rows 4 ty + i / 64 + 4 ty + i - 4, columns likewise with tx) = the 128 x 128 product over
    k_dim of the operands fa, fb deliver (fa(k0, reg) fills this thread's 4 values of slice k0)."""
    As = cute.arch.alloc_smem(F32, 2 * BK * BM, alignment=16)
    Bs = cute.arch.alloc_smem(F32, 2 * BK * BN, alignment=16)
    sA = cute.make_tensor(As, cute.make_layout((2, BK, BM), stride=(BK * BM, BM, 1)))
    sB = cute.make_tensor(Bs, cute.make_layout((2, BK, BN), stride=(BK * BN, BN, 1)))
    sA4 = cute.make_tensor(As, cute.make_layout((2, BK, BM // 4, 4), stride=(BK * BM, BM, 4, 1)))
    sB4 = cute.make_tensor(Bs, cute.make_layout((2, BK, BN // 4, 4), stride=(BK * BN, BN, 4, 1)))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    tx = t % 16
    ty = t // 16
    ra = cute.make_rmem_tensor((4,), F32)
    rb = cute.make_rmem_tensor((4,), F32)
    acc.fill(0.0)
    fa(0, ra)
    fb(0, rb)
    store_slice(sA, sA4, ra, 0, a_trans, t)
    store_slice(sB, sB4, rb, 0, b_trans, t)
    cute.arch.sync_threads()
    for k0 in cutlass.range(0, k_dim, BK):
        buf = (k0 // BK) & 1
        more = k0 + BK < k_dim
        if more:
            fa(k0 + BK, ra)
            fb(k0 + BK, rb)
        for kk in cutlass.range_constexpr(BK):
            a = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), F32)
            b = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), F32)
            cute.copy(c16, sA4[buf, kk, ty, None], a[0, None])
            cute.copy(c16, sA4[buf, kk, 16 + ty, None], a[1, None])
            cute.copy(c16, sB4[buf, kk, tx, None], b[0, None])
            cute.copy(c16, sB4[buf, kk, 16 + tx, None], b[1, None])
            for i in cutlass.range_constexpr(8):
                for j in cutlass.range_constexpr(8):
                    acc[i, j] = acc[i, j] + a[i // 4, i % 4] * b[j // 4, j % 4]
        if more:
            store_slice(sA, sA4, ra, buf ^ 1, a_trans, t)
            store_slice(sB, sB4, rb, buf ^ 1, b_trans, t)
        cute.arch.sync_threads()


@cute.jit
def store_slice(s: cute.Tensor, s4: cute.Tensor, reg: cute.Tensor, buf, trans: cutlass.Constexpr, t):
    if cutlass.const_expr(trans):
        for i in cutlass.range_constexpr(4):
            s[buf, 4 * (t % 2) + i, t // 2] = reg[i]
    else:
        cute.copy(cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128), reg,
                  s4[buf, t // 32, t % 32, None])


@cute.jit
def acc_row(i: cutlass.Constexpr, t):
    return 4 * (t // 16) + i if i < 4 else 64 + 4 * (t // 16) + i - 4


@cute.jit
def acc_col4(h: cutlass.Constexpr, t):
    """The 16-byte column chunk of columns acc_col(4 h) .. + 3."""
    return (t % 16) + 16 * h


@cute.jit
def store_acc_rows(acc: cute.Tensor, out4: cute.Tensor, r, i: cutlass.Constexpr, c4base, t):
    """Row i of acc (8 columns as two 16-byte chunks) to out4[r, c4base + acc_col4(h), :]."""
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    for h in cutlass.range_constexpr(2):
        v = cute.make_rmem_tensor((4,), F32)
        for j in cutlass.range_constexpr(4):
            v[j] = acc[i, 4 * h + j]
        cute.copy(c16, v, out4[r, c4base + acc_col4(h, t), None])


# ---- operand loaders (bound with functools.partial; called as f(k0, reg)) ----------------------------------
@cute.jit
def load_rows_trans(src4: cute.Tensor, row, valid, t, k0, reg: cute.Tensor):
    """Trans operand: 4 values of row `row` at k0 + 4 (t % 2), zero when not valid."""
    if valid:
        ld4(src4[row, k0 // 4 + t % 2, None], reg)
    else:
        zero4(reg)


@cute.jit
def load_kmajor(src4: cute.Tensor, krow0, c4, t, k0, reg: cute.Tensor):
    """Direct operand: 4 values of k-row krow0 + k0 + t / 32 at chunk c4 + t % 32."""
    ld4(src4[krow0 + k0 + t // 32, c4 + t % 32, None], reg)


@cute.jit
def load_gd_a(go4: cute.Tensor, gtok: cute.Tensor, grw: cute.Tensor, lo, hi, m0, t, k0, reg: cute.Tensor):
    """grad_down's A: (w g_out[token])[m0 + 4 (t % 32) ..] of routed row lo + k0 + t / 32."""
    r = lo + k0 + t // 32
    if r < hi:
        w = grw[r]
        ld4(go4[gtok[r], m0 // 4 + t % 32, None], reg)
        for i in cutlass.range_constexpr(4):
            reg[i] = reg[i] * w
    else:
        zero4(reg)


@cute.jit
def load_gd_b(p4: cute.Tensor, q4: cute.Tensor, lo, hi, n0, t, k0, reg: cute.Tensor):
    """grad_down's B: h = silu(p) * q at columns n0 + 4 (t % 32) .. of routed row lo + k0 + t / 32."""
    r = lo + k0 + t // 32
    if r < hi:
        pa = cute.make_rmem_tensor((4,), F32)
        qb = cute.make_rmem_tensor((4,), F32)
        ld4(p4[r, n0 // 4 + t % 32, None], pa)
        ld4(q4[r, n0 // 4 + t % 32, None], qb)
        for i in cutlass.range_constexpr(4):
            reg[i] = silu(pa[i]) * qb[i]
    else:
        zero4(reg)


@cute.jit
def load_rows_direct(src4: cute.Tensor, lo, hi, c4, t, k0, reg: cute.Tensor):
    """Direct operand over routed rows: row lo + k0 + t / 32 of src at chunk c4 + t % 32, zero past hi."""
    r = lo + k0 + t // 32
    if r < hi:
        ld4(src4[r, c4 + t % 32, None], reg)
    else:
        zero4(reg)


@cute.jit
def load_tok_direct(x4: cute.Tensor, gtok: cute.Tensor, lo, hi, c4, t, k0, reg: cute.Tensor):
    """Direct operand: x[token of routed row lo + k0 + t / 32] at chunk c4 + t % 32, zero past hi."""
    r = lo + k0 + t // 32
    if r < hi:
        ld4(x4[gtok[r], c4 + t % 32, None], reg)
    else:
        zero4(reg)


@cute.jit
def load_gh_a(gp4: cute.Tensor, gq4: cute.Tensor, ar, valid, t, k0, reg: cute.Tensor):
    """grad_hidden's A: [grad_p | grad_q] of routed row ar at k = k0 + 4 (t % 2)."""
    if valid:
        k = k0 + 4 * (t % 2)
        if k < I:
            ld4(gp4[ar, k // 4, None], reg)
        else:
            ld4(gq4[ar, (k - I) // 4, None], reg)
    else:
        zero4(reg)


@cute.jit
def load_gh_b(wg4: cute.Tensor, wu4: cute.Tensor, e, n0, t, k0, reg: cute.Tensor):
    """grad_hidden's B: row k = k0 + t / 32 of [W_g[e]; W_u[e]] at columns n0 + 4 (t % 32) .."""
    k = k0 + t // 32
    if k < I:
        ld4(wg4[e * I + k, n0 // 4 + t % 32, None], reg)
    else:
        ld4(wu4[e * I + k - I, n0 // 4 + t % 32, None], reg)


def rows4(ptr, rows, cols):
    """A row-major fp32 [rows, cols] buffer as (row, 16-byte chunk, 4)."""
    return cute.make_tensor(ptr, cute.make_layout((rows, cols // 4, 4), stride=(cols, 4, 1)))


# ---- kernels ----------------------------------------------------------------------------------------------
@cute.kernel
def fill_f32(out: cute.Pointer, v: cutlass.Float32, n: cutlass.Int64):
    go = cute.make_tensor(out, cute.make_layout(T * H))
    start = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    step = cute.arch.grid_dim()[0] * 256
    for i in cutlass.range(start, n.to(I32), step):     # n = tokens * hidden < 2^31
        go[i] = v


@cute.kernel
def count_experts(counts: cute.Pointer, indices: cute.Pointer, n: cutlass.Int64):
    i = I64(cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0])
    gi = cute.make_tensor(indices, cute.make_layout(NR))
    if i < n:
        cute.arch.atomic_add(counts + gi[i].to(I32), I32(1))


@cute.kernel
def expert_offsets(seg: cute.Pointer, tile_off: cute.Pointer, counts: cute.Pointer, experts: cutlass.Int32):
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gto = cute.make_tensor(tile_off, cute.make_layout(E + 1))
    gc = cute.make_tensor(counts, cute.make_layout(E))
    if cute.arch.thread_idx()[0] == 0:
        rows = I32(0)
        tiles = I32(0)
        for e in cutlass.range(experts):
            gseg[e] = rows
            gto[e] = tiles
            rows = rows + gc[e]
            tiles = tiles + (gc[e] + BM - 1) // BM
        gseg[experts] = rows
        gto[experts] = tiles


@cute.kernel
def place_rows(row_token: cute.Pointer, row_slot: cute.Pointer, row_w: cute.Pointer, cursor: cute.Pointer,
               indices: cute.Pointer, topk_weights: cute.Pointer, seg: cute.Pointer, cells: cutlass.Int64,
               top_k: cutlass.Int32):
    """Rows expert after expert (any order inside an expert); each row's token, slot and routing weight."""
    i = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gi = cute.make_tensor(indices, cute.make_layout(NR))
    gw = cute.make_tensor(topk_weights, cute.make_layout(NR))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    grt = cute.make_tensor(row_token, cute.make_layout(NR))
    grs = cute.make_tensor(row_slot, cute.make_layout(NR))
    grw = cute.make_tensor(row_w, cute.make_layout(NR))
    if I64(i) < cells:
        e = gi[i].to(I32)
        p = gseg[e] + cute.arch.atomic_add(cursor + e, I32(1))
        grt[p] = i // top_k
        grs[p] = i % top_k
        grw[p] = gw[i]


@cute.kernel
def gate_up_products(p: cute.Pointer, q: cute.Pointer, x: cute.Pointer, row_token: cute.Pointer,
                     w_gate: cute.Pointer, w_up: cute.Pointer, seg: cute.Pointer, tile_off: cute.Pointer,
                     experts: cutlass.Int32, inter: cutlass.Int32, hidden: cutlass.Int32):
    """p (tile columns < I) or q (>= I) = x[token] @ [W_g[e]; W_u[e]]^T."""
    t = cute.arch.thread_idx()[0]
    tile = cute.arch.block_idx()[1]
    gto = cute.make_tensor(tile_off, cute.make_layout(E + 1))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gtok = cute.make_tensor(row_token, cute.make_layout(NR))
    if tile < gto[experts]:
        e = find_expert(gto, experts, tile)
        row0 = gseg[e] + (tile - gto[e]) * BM
        row_end = gseg[e + 1]
        n0 = cute.arch.block_idx()[0] * BN
        wrow0 = n0
        W = w_gate
        out = p
        if n0 >= I:
            wrow0 = n0 - I
            W = w_up
            out = q
        ar = row0 + t // 2
        valid = ar < row_end
        a_row = I32(0)
        if valid:
            a_row = gtok[ar]
        acc = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), F32)
        fa = functools.partial(load_rows_trans, rows4(x, T, H), a_row, valid, t)
        fb = functools.partial(load_rows_trans, rows4(W, E * I, H), e * I + wrow0 + t // 2, True, t)
        sgemm_mainloop(acc, fa, fb, True, True, H, t)
        out4 = rows4(out, NR, I)
        for i in cutlass.range_constexpr(8):
            r = row0 + acc_row(i, t)
            if r < row_end:
                store_acc_rows(acc, out4, r, i, wrow0 // 4, t)


@cute.kernel
def down_backward_product(v: cute.Pointer, grad_output: cute.Pointer, row_token: cute.Pointer, w_down: cute.Pointer,
                          seg: cute.Pointer, tile_off: cute.Pointer, experts: cutlass.Int32, inter: cutlass.Int32,
                          hidden: cutlass.Int32):
    """v = g_out[token] @ W_d[e] (W_d[e]: [hidden, inter])."""
    t = cute.arch.thread_idx()[0]
    tile = cute.arch.block_idx()[1]
    gto = cute.make_tensor(tile_off, cute.make_layout(E + 1))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gtok = cute.make_tensor(row_token, cute.make_layout(NR))
    if tile < gto[experts]:
        e = find_expert(gto, experts, tile)
        row0 = gseg[e] + (tile - gto[e]) * BM
        row_end = gseg[e + 1]
        n0 = cute.arch.block_idx()[0] * BN
        ar = row0 + t // 2
        valid = ar < row_end
        a_row = I32(0)
        if valid:
            a_row = gtok[ar]
        acc = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), F32)
        fa = functools.partial(load_rows_trans, rows4(grad_output, T, H), a_row, valid, t)
        fb = functools.partial(load_kmajor, rows4(w_down, E * H, I), e * H, n0 // 4, t)
        sgemm_mainloop(acc, fa, fb, True, False, H, t)
        out4 = rows4(v, NR, I)
        for i in cutlass.range_constexpr(8):
            r = row0 + acc_row(i, t)
            if r < row_end:
                store_acc_rows(acc, out4, r, i, n0 // 4, t)


@cute.kernel
def grad_down_weights(grad_down: cute.Pointer, grad_output: cute.Pointer, row_w: cute.Pointer, p: cute.Pointer,
                      q: cute.Pointer, row_token: cute.Pointer, seg: cute.Pointer, inter: cutlass.Int32,
                      hidden: cutlass.Int32):
    """grad_down[e][m][n] = sum over e's rows of (w g_out[token])[m] * h[n]: one 128 x 128 tile of one expert's
    [hidden, inter] gradient per block, K over the expert's rows; written, not added."""
    t = cute.arch.thread_idx()[0]
    bx, by, e = cute.arch.block_idx()
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gtok = cute.make_tensor(row_token, cute.make_layout(NR))
    grw = cute.make_tensor(row_w, cute.make_layout(NR))
    lo = gseg[e]
    hi = gseg[e + 1]
    m0 = by * BM
    n0 = bx * BN
    acc = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), F32)
    fa = functools.partial(load_gd_a, rows4(grad_output, T, H), gtok, grw, lo, hi, m0, t)
    fb = functools.partial(load_gd_b, rows4(p, NR, I), rows4(q, NR, I), lo, hi, n0, t)
    sgemm_mainloop(acc, fa, fb, False, False, hi - lo, t)
    out4 = rows4(grad_down, E * H, I)
    for i in cutlass.range_constexpr(8):
        store_acc_rows(acc, out4, e * H + m0 + acc_row(i, t), i, n0 // 4, t)


@cute.kernel
def row_backward(grad_topk: cute.Pointer, p: cute.Pointer, q: cute.Pointer, v: cute.Pointer, row_w: cute.Pointer,
                 row_token: cute.Pointer, row_slot: cute.Pointer, inter: cutlass.Int32, top_k: cutlass.Int32):
    """One block per routed row: grad_topk_weights[token, slot] = sum_i h_i v_i; then in place p <- grad_p,
    q <- grad_q with the reference's elementwise roundings."""
    tid = cute.arch.thread_idx()[0]
    r = cute.arch.block_idx()[0]
    gp = cute.make_tensor(p, cute.make_layout((NR, I), stride=(I, 1)))
    gq = cute.make_tensor(q, cute.make_layout((NR, I), stride=(I, 1)))
    gv = cute.make_tensor(v, cute.make_layout((NR, I), stride=(I, 1)))
    grw = cute.make_tensor(row_w, cute.make_layout(NR))
    gtok = cute.make_tensor(row_token, cute.make_layout(NR))
    gslot = cute.make_tensor(row_slot, cute.make_layout(NR))
    gtk = cute.make_tensor(grad_topk, cute.make_layout(NR))
    partial = cute.make_tensor(cute.arch.alloc_smem(F32, 8), cute.make_layout(8))
    w = grw[r]
    dot = F32(0.0)
    for it in cutlass.range_constexpr(I // 256):
        i = tid + 256 * it
        x = gp[r, i]
        up = gq[r, i]
        a = silu(x)
        vk = gv[r, i]
        dot = dot + (a * up) * vk
        grad_inter = vk * w
        s = F32(1.0) / (F32(1.0) + cute.math.exp(-x))
        silu_grad = s * (F32(1.0) + x * (F32(1.0) - s))
        gp[r, i] = (grad_inter * up) * silu_grad
        gq[r, i] = grad_inter * a
    for o in cutlass.range_constexpr(5):
        dot = dot + cute.arch.shuffle_sync_bfly(dot, 16 >> o)
    if tid % 32 == 0:
        partial[tid // 32] = dot
    cute.arch.sync_threads()
    if tid == 0:
        s = F32(0.0)
        for j in cutlass.range_constexpr(8):
            s = s + partial[j]
        gtk[gtok[r] * top_k + gslot[r]] = s


@cute.kernel
def grad_gate_up_weights(grad_gate: cute.Pointer, grad_up: cute.Pointer, gp: cute.Pointer, gq: cute.Pointer,
                         x: cute.Pointer, row_token: cute.Pointer, seg: cute.Pointer, experts: cutlass.Int32,
                         inter: cutlass.Int32, hidden: cutlass.Int32):
    """grad_gate[e] (z < experts) or grad_up[e] (z >= experts) = sum over e's rows of grad_p^T (grad_q^T) x[token]."""
    t = cute.arch.thread_idx()[0]
    bx, by, z = cute.arch.block_idx()
    e = z % experts
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gtok = cute.make_tensor(row_token, cute.make_layout(NR))
    lo = gseg[e]
    hi = gseg[e + 1]
    A = gp
    out = grad_gate
    if z >= experts:
        A = gq
        out = grad_up
    m0 = by * BM
    n0 = bx * BN
    acc = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), F32)
    fa = functools.partial(load_rows_direct, rows4(A, NR, I), lo, hi, m0 // 4, t)
    fb = functools.partial(load_tok_direct, rows4(x, T, H), gtok, lo, hi, n0 // 4, t)
    sgemm_mainloop(acc, fa, fb, False, False, hi - lo, t)
    out4 = rows4(out, E * I, H)
    for i in cutlass.range_constexpr(8):
        store_acc_rows(acc, out4, e * I + m0 + acc_row(i, t), i, n0 // 4, t)


@cute.kernel
def grad_hidden_product(grad_hidden: cute.Pointer, gp: cute.Pointer, gq: cute.Pointer, w_gate: cute.Pointer,
                        w_up: cute.Pointer, row_token: cute.Pointer, seg: cute.Pointer, tile_off: cute.Pointer,
                        experts: cutlass.Int32, inter: cutlass.Int32, hidden: cutlass.Int32):
    """grad_hidden[token] += [grad_p | grad_q] @ [W_g[e]; W_u[e]] (fp32 atomics)."""
    t = cute.arch.thread_idx()[0]
    tile = cute.arch.block_idx()[1]
    gto = cute.make_tensor(tile_off, cute.make_layout(E + 1))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gtok = cute.make_tensor(row_token, cute.make_layout(NR))
    if tile < gto[experts]:
        e = find_expert(gto, experts, tile)
        row0 = gseg[e] + (tile - gto[e]) * BM
        row_end = gseg[e + 1]
        n0 = cute.arch.block_idx()[0] * BN
        ar = row0 + t // 2
        acc = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), F32)
        fa = functools.partial(load_gh_a, rows4(gp, NR, I), rows4(gq, NR, I), ar, ar < row_end, t)
        fb = functools.partial(load_gh_b, rows4(w_gate, E * I, H), rows4(w_up, E * I, H), e, n0, t)
        sgemm_mainloop(acc, fa, fb, True, False, 2 * I, t)
        for i in cutlass.range_constexpr(8):
            r = row0 + acc_row(i, t)
            if r < row_end:
                dst = grad_hidden + (gtok[r] * H + n0)
                for j in cutlass.range_constexpr(8):
                    col = 4 * (t % 16) + j if j < 4 else 64 + 4 * (t % 16) + j - 4
                    cute.arch.atomic_add(dst + col, acc[i, j])


MKB_PLAN = """/* mkb:plan
scratch counts int32[num_routed_experts] zeroed
scratch cursor int32[num_routed_experts] zeroed
scratch seg int32[num_routed_experts + 1]
scratch tile_off int32[num_routed_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_slot int32[num_tokens * num_experts_per_token]
scratch row_w fp32[num_tokens * num_experts_per_token]
scratch p fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch q fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch v fp32[num_tokens * num_experts_per_token * intermediate_size]
launch count_experts grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(counts, topk_indices, i64(num_tokens * num_experts_per_token))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_routed_experts))
launch place_rows grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(row_token, row_slot, row_w, cursor, topk_indices, topk_weights, seg, i64(num_tokens * num_experts_per_token),
       i32(num_experts_per_token))
launch gate_up_products grid(2 * intermediate_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(p, q, hidden_states, row_token, gate_weights, up_weights, seg, tile_off, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
launch down_backward_product grid(intermediate_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(v, grad_output, row_token, down_weights, seg, tile_off, i32(num_routed_experts), i32(intermediate_size), i32(hidden_size))
launch grad_down_weights grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_output, row_w, p, q, row_token, seg, i32(intermediate_size), i32(hidden_size))
launch row_backward grid(num_tokens * num_experts_per_token) block(256)
  args(grad_topk_weights, p, q, v, row_w, row_token, row_slot, i32(intermediate_size), i32(num_experts_per_token))
launch grad_gate_up_weights grid(hidden_size / 128, intermediate_size / 128, 2 * num_routed_experts) block(256)
  args(grad_gate_weights, grad_up_weights, p, q, hidden_states, row_token, seg, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
launch fill_f32 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_hidden_states, f32(0), i64(num_tokens * hidden_size))
launch grad_hidden_product grid(hidden_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(grad_hidden_states, p, q, gate_weights, up_weights, row_token, seg, tile_off, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
*/"""
