"""sparse_expert_dispatch_combine_gptoss_fp32 in CuTe DSL: the algorithm of solutions/cuda.cu, fp32 throughout
with the reference's rounding points, six launches:
  1. count_experts, 2. expert_offsets, 3. place_rows: every routed row laid out expert after expert; per
     token, the rows of its experts in ascending expert order (the cuda solution's insertion sort as the full
     set of compare-exchanges: the experts are distinct, the same order);
  4. gate_up_glu: the grouped gate/up product (rows gathered from hidden_states as the tiles load) and in its
     epilogue the bias, the clamps and the GLU: each thread holds whole (gate, up) column pairs, so only the
     2880-wide GLU output goes to memory;
  5. down_weighted: the grouped down product, epilogue bias and routing weight (the partial last column tile
     predicated as there);
  6. combine: each token's 4 rows added in ascending expert order (fp32, as index_add_ expert by expert).
The products are fp32 FMA (SIMT, no TF32): 128 x 128 tiles, 8 x 8 outputs per thread, double-buffered K
slices of 8 with the next slice prefetched into registers; the main loop is one @cute.jit function whose
operand loaders are compile-time functools.partial objects (the cuda solution's pointer/predicate pairs).
Every element index fits in 31 bits (gate_up_projection has 2.12e9 elements). A CTA past the last tile skips its body
(no early exit in the DSL). Compile-checked only (no GPU here)."""
import functools

import cutlass
import cutlass.cute as cute

F32 = cutlass.Float32
I32, I64 = cutlass.Int32, cutlass.Int64

T = 16384            # num_tokens
H = 2880             # hidden_size
I = 2880             # intermediate_size
E = 128              # num_local_experts
TOPK = 4
NR = T * TOPK        # routed rows
BM, BN, BK = 128, 128, 8
assert NR * 2 * I < 2 ** 31 and E * H * 2 * I < 2 ** 31 and E * I * H < 2 ** 31 and H % BK == 0 and I % BK == 0 and (2 * I) % BN == 0


@cute.jit
def ld4(src: cute.Tensor, reg: cute.Tensor):
    """reg[0..3] <- the 4 contiguous fp32 of src (a 16-byte load)."""
    cute.copy(cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128), src, reg)


@cute.jit
def zero4(reg: cute.Tensor):
    for i in cutlass.range_constexpr(4):
        reg[i] = F32(0.0)


@cute.jit
def find_expert(gto: cute.Tensor, experts, tile):
    lo = I32(0)
    hi = experts
    for it in cutlass.range_constexpr(9):       # 128 experts need 7 halvings
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
def load_rows_trans(src4: cute.Tensor, row, valid, t, k0, reg: cute.Tensor):
    """A operand (rows along k): 4 values of row `row` at k0 + 4 (t % 2), zero when not valid."""
    if valid:
        ld4(src4[row, k0 // 4 + t % 2, None], reg)
    else:
        zero4(reg)


@cute.jit
def load_kmajor_pred(src4: cute.Tensor, krow0, c4, ok, t, k0, reg: cute.Tensor):
    """B operand (k-rows): 4 values of k-row krow0 + k0 + t / 32 at chunk c4 (columns n0 + 4 (t % 32) ..),
    zero for a column chunk past the matrix (the partial last tile)."""
    if ok:
        ld4(src4[krow0 + k0 + t // 32, c4, None], reg)
    else:
        zero4(reg)


def rows4(ptr, rows, cols):
    """A row-major fp32 [rows, cols] buffer as (row, 16-byte chunk, 4)."""
    return cute.make_tensor(ptr, cute.make_layout((rows, cols // 4, 4), stride=(cols, 4, 1)))


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
def place_rows(row_token: cute.Pointer, row_expert: cute.Pointer, row_weight: cute.Pointer, pos_sorted: cute.Pointer,
               cursor: cute.Pointer, indices: cute.Pointer, routing_weights: cute.Pointer, seg: cute.Pointer,
               tokens: cutlass.Int32, top_k: cutlass.Int32, experts: cutlass.Int32):
    """One thread per token; pos_sorted[t, j]: the row of the token's j-th smallest expert."""
    t = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gi = cute.make_tensor(indices, cute.make_layout(NR))
    grw_in = cute.make_tensor(routing_weights, cute.make_layout((T, E), stride=(E, 1)))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    grt = cute.make_tensor(row_token, cute.make_layout(NR))
    gre = cute.make_tensor(row_expert, cute.make_layout(NR))
    grw = cute.make_tensor(row_weight, cute.make_layout(NR))
    gpos = cute.make_tensor(pos_sorted, cute.make_layout(NR))
    if t < tokens:
        ex = cute.make_rmem_tensor((TOPK,), I32)
        for j in cutlass.range_constexpr(TOPK):
            ex[j] = gi[t * TOPK + j].to(I32)
        for a in cutlass.range_constexpr(1, TOPK):
            for b in cutlass.range_constexpr(a, 0, -1):
                lo = cutlass.min(ex[b - 1], ex[b])
                hi = cutlass.max(ex[b - 1], ex[b])
                ex[b - 1] = lo
                ex[b] = hi
        for j in cutlass.range_constexpr(TOPK):
            e = ex[j]
            p = gseg[e] + cute.arch.atomic_add(cursor + e, I32(1))
            grt[p] = t
            gre[p] = e
            grw[p] = grw_in[t, e]
            gpos[t * TOPK + j] = p


@cute.kernel
def gate_up_glu(gated: cute.Pointer, x: cute.Pointer, row_token: cute.Pointer, gate_up_proj: cute.Pointer,
                gate_up_bias: cute.Pointer, seg: cute.Pointer, tile_off: cute.Pointer, experts: cutlass.Int32,
                n_dim: cutlass.Int32, k_dim: cutlass.Int32, alpha: cutlass.Float32, limit: cutlass.Float32):
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
        a_row = row0 + t // 2
        valid = a_row < row_end
        src_row = I32(0)
        if valid:
            src_row = gtok[a_row]
        acc = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), F32)
        w4 = rows4(gate_up_proj, E * H, 2 * I)           # expert e's k-rows from e * H
        fa = functools.partial(load_rows_trans, rows4(x, T, H), src_row, valid, t)
        fb = functools.partial(load_kmajor_pred, w4, e * H, n0 // 4 + t % 32, True, t)
        sgemm_mainloop(acc, fa, fb, True, False, H, t)
        bias = cute.make_tensor(gate_up_bias, cute.make_layout((E, 2 * I), stride=(2 * I, 1)))
        out = cute.make_tensor(gated, cute.make_layout((NR, I // 2, 2), stride=(I, 2, 1)))
        c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
        for i in cutlass.range_constexpr(8):
            r = row0 + acc_row(i, t)
            if r < row_end:
                for h in cutlass.range_constexpr(2):
                    c = n0 + h * 64 + (t % 16) * 4        # 2 * I is a multiple of the tile: always inside
                    o = cute.make_rmem_tensor((2,), F32)
                    for p in cutlass.range_constexpr(2):
                        g = cute.arch.fmin(acc[i, 4 * h + 2 * p] + bias[e, c + 2 * p], limit)
                        u = cute.arch.fmin(cute.arch.fmax(acc[i, 4 * h + 2 * p + 1] + bias[e, c + 2 * p + 1], -limit),
                                           limit)
                        scaled = g * alpha
                        sig = F32(1.0) / (F32(1.0) + cute.math.exp(-scaled))
                        o[p] = (u + F32(1.0)) * (g * sig)
                    cute.copy(c8, o, out[r, c // 4, None])


@cute.kernel
def down_weighted(weighted: cute.Pointer, gated: cute.Pointer, down_proj: cute.Pointer, down_bias: cute.Pointer,
                  row_weight: cute.Pointer, seg: cute.Pointer, tile_off: cute.Pointer, experts: cutlass.Int32,
                  n_dim: cutlass.Int32, k_dim: cutlass.Int32):
    t = cute.arch.thread_idx()[0]
    tile = cute.arch.block_idx()[1]
    gto = cute.make_tensor(tile_off, cute.make_layout(E + 1))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    grw = cute.make_tensor(row_weight, cute.make_layout(NR))
    if tile < gto[experts]:
        e = find_expert(gto, experts, tile)
        row0 = gseg[e] + (tile - gto[e]) * BM
        row_end = gseg[e + 1]
        n0 = cute.arch.block_idx()[0] * BN
        a_row = row0 + t // 2
        b_col = n0 + (t % 32) * 4
        b_ok = b_col < H
        acc = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), F32)
        w4 = rows4(down_proj, E * I, H)                  # expert e's k-rows from e * I
        fa = functools.partial(load_rows_trans, rows4(gated, NR, I), a_row, a_row < row_end, t)
        fb = functools.partial(load_kmajor_pred, w4, e * I, b_col // 4, b_ok, t)
        sgemm_mainloop(acc, fa, fb, True, False, I, t)
        bias = cute.make_tensor(down_bias, cute.make_layout((E, H), stride=(H, 1)))
        out4 = rows4(weighted, NR, H)
        c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
        for i in cutlass.range_constexpr(8):
            r = row0 + acc_row(i, t)
            if r < row_end:
                w = grw[r]
                for h in cutlass.range_constexpr(2):
                    c = n0 + h * 64 + (t % 16) * 4
                    if c < H:
                        v = cute.make_rmem_tensor((4,), F32)
                        for j in cutlass.range_constexpr(4):
                            v[j] = (acc[i, 4 * h + j] + bias[e, c + j]) * w
                        cute.copy(c16, v, out4[r, c // 4, None])


@cute.kernel
def combine(next_states: cute.Pointer, weighted: cute.Pointer, pos_sorted: cute.Pointer, top_k: cutlass.Int32,
            dim: cutlass.Int32):
    t = cute.arch.block_idx()[0]
    tid = cute.arch.thread_idx()[0]
    gw4 = rows4(weighted, NR, H)
    go4 = rows4(next_states, T, H)
    gpos = cute.make_tensor(pos_sorted, cute.make_layout(NR))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    for it in cutlass.range_constexpr((H // 4 + 255) // 256):
        c4 = tid + 256 * it
        if c4 < H // 4:
            acc = cute.make_rmem_tensor((4,), F32)
            acc.fill(0.0)
            for j in cutlass.range_constexpr(TOPK):
                v = cute.make_rmem_tensor((4,), F32)
                cute.copy(c16, gw4[gpos[t * TOPK + j], c4, None], v)
                for k in cutlass.range_constexpr(4):
                    acc[k] = acc[k] + v[k]
            cute.copy(c16, acc, go4[t, c4, None])


MKB_PLAN = """/* mkb:plan
scratch counts int32[num_local_experts] zeroed
scratch cursor int32[num_local_experts] zeroed
scratch seg int32[num_local_experts + 1]
scratch tile_off int32[num_local_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_expert int32[num_tokens * num_experts_per_token]
scratch row_weight fp32[num_tokens * num_experts_per_token]
scratch pos_sorted int32[num_tokens * num_experts_per_token]
scratch gated fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch weighted fp32[num_tokens * num_experts_per_token * hidden_size]
launch count_experts grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(counts, router_indices, i64(num_tokens * num_experts_per_token))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_local_experts))
launch place_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(row_token, row_expert, row_weight, pos_sorted, cursor, router_indices, routing_weights, seg, i32(num_tokens),
       i32(num_experts_per_token), i32(num_local_experts))
launch gate_up_glu grid(ceil_div(2 * intermediate_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(gated, hidden_states, row_token, gate_up_projection, gate_up_projection_bias, seg, tile_off, i32(num_local_experts),
       i32(2 * intermediate_size), i32(hidden_size), f32(glu_alpha), f32(glu_limit))
launch down_weighted grid(ceil_div(hidden_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(weighted, gated, down_projection, down_projection_bias, row_weight, seg, tile_off, i32(num_local_experts),
       i32(hidden_size), i32(intermediate_size))
launch combine grid(num_tokens) block(256) args(next_states, weighted, pos_sorted, i32(num_experts_per_token), i32(hidden_size))
*/"""
