"""group_limited_topk_routing_ringflash_bf16 in CuTe DSL: the algorithm of solutions/cuda.cu, one launch.
A block takes 64 tokens and all 256 experts: the router product on the bf16 tensor cores (fp32
accumulation; the products of bf16 values are exact in fp32; each slice's partial added to the logits
with a rounding fp32 add, since the mma's accumulation truncates), K in slices of 64 staged through padded
shared tiles (row stride 144 bytes) with the next slice prefetched into registers; 8 warps of 16 tokens x
128 experts; then the 64 x 256 logits go to shared memory (reusing the tiles' space) and each warp routes
8 tokens in fp32, lane l holding expert 32 g + l of every group g: sigmoid, + bias, each group's two best
(first maximum by lane, then the maximum of the rest), the 4 best groups by rank (ties to the lower group),
8 rounds of a warp argmax over the kept groups (ties to the lower expert), the unbiased scores renormalized:
w / (sum + eps) * scale.
The cuda solution's WMMA 16x16x16 fragments (not in the DSL) are replaced by ldmatrix + mma.sync m16n8k16
bf16 (inline PTX) over the same tiles, warps and k order; the accumulators go to the same shared logits
tile through the PTX ISA's fragment layout (c0, c1 at row g, columns 2q, 2q + 1; c2, c3 at row g + 8).
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

F32, BF16 = cutlass.Float32, cutlass.BFloat16
I32, I64, U32 = cutlass.Int32, cutlass.Int64, cutlass.Uint32

T = 16384            # num_tokens
E = 256              # num_experts
D = 4096             # gating_dim
GROUPS, TOPK_GROUPS, TOPK = 8, 4, 8
BM, BK, THREADS = 64, 64, 256
LDA = BK + 8         # padded strides (elements)
LDB = BK + 8
LDL = E + 4
TILE_BYTES = (BM * LDA + E * LDB) * 2
LOGIT_BYTES = BM * LDL * 4
NEG_INF = float("-inf")
assert LOGIT_BYTES >= TILE_BYTES and LOGIT_BYTES == 66560 and T * D < 2 ** 31


@cute.jit
def ldsm4(addr_smem):
    return cute.arch.inline_ptx("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
                                write_only_types=[U32] * 4, read_only_args=[addr_smem.toint()])


@cute.jit
def mma_bf16(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1):
    return cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, c0, c1, c2, c3])


@cute.jit
def warp_max(v):
    for o in cutlass.range_constexpr(5):
        v = cute.arch.fmax(v, cute.arch.shuffle_sync_bfly(v, 16 >> o))
    return v


@cute.jit
def warp_min_i(v):
    for o in cutlass.range_constexpr(5):
        v = cutlass.min(v, cute.arch.shuffle_sync_bfly(v, 16 >> o))
    return v


@cute.jit
def load_global(gx: cute.Tensor, gw: cute.Tensor, ra: cute.Tensor, rb: cute.Tensor, row0, k0, tokens, tid):
    """The K slice k0 .. k0 + 63 into registers: 2 16-byte chunks of hidden_states (zero past the last
    token), 8 of the weight per thread."""
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    for i in cutlass.range_constexpr(BM * BK // 8 // THREADS):
        idx = tid + i * THREADS
        m = idx // (BK // 8)
        c = idx % (BK // 8)
        if row0 + m < tokens:
            cute.copy(c16, gx[row0 + m, k0 // 8 + c, None], ra[i, None])
        else:
            for w in cutlass.range_constexpr(4):
                ra[i, w] = U32(0)
    for i in cutlass.range_constexpr(E * BK // 8 // THREADS):
        idx = tid + i * THREADS
        cute.copy(c16, gw[idx // (BK // 8), k0 // 8 + idx % (BK // 8), None], rb[i, None])


@cute.kernel
def route_fused(hidden: cute.Pointer, weight: cute.Pointer, expert_bias: cute.Pointer, topk_indices: cute.Pointer,
                topk_weights: cute.Pointer, tokens: cutlass.Int32, dim: cutlass.Int32, scale: cutlass.Float32,
                eps: cutlass.Float32):
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    row0 = cute.arch.block_idx()[0] * BM
    smem = cute.arch.get_dyn_smem(BF16, alignment=128)
    As = smem
    Bs = smem + BM * LDA
    As32 = cute.make_tensor(cute.recast_ptr(As, dtype=U32), cute.make_layout((BM, 9, 4), stride=(LDA // 2, 4, 1)))
    Bs32 = cute.make_tensor(cute.recast_ptr(Bs, dtype=U32), cute.make_layout((E, 9, 4), stride=(LDB // 2, 4, 1)))
    L2 = cute.make_tensor(cute.recast_ptr(smem, dtype=F32), cute.make_layout((BM, LDL // 2, 2), stride=(LDL, 2, 1)))
    L = cute.make_tensor(cute.recast_ptr(smem, dtype=F32), cute.make_layout((BM, LDL), stride=(LDL, 1)))
    gx = cute.make_tensor(cute.recast_ptr(hidden, dtype=U32), cute.make_layout((T, D // 8, 4), stride=(D // 2, 4, 1)))
    gw = cute.make_tensor(cute.recast_ptr(weight, dtype=U32), cute.make_layout((E, D // 8, 4), stride=(D // 2, 4, 1)))
    gb = cute.make_tensor(expert_bias, cute.make_layout(E))
    gidx = cute.make_tensor(topk_indices, cute.make_layout(T * TOPK))
    gwt = cute.make_tensor(topk_weights, cute.make_layout(T * TOPK))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)

    # warp w computes rows 16 (w % 4) .. + 16 against experts 128 (w / 4) .. + 128: 16 n8 tiles
    wm = warp % 4
    wn = warp // 4
    ra = cute.make_rmem_tensor(cute.make_layout((BM * BK // 8 // THREADS, 4), stride=(4, 1)), U32)
    rb = cute.make_rmem_tensor(cute.make_layout((E * BK // 8 // THREADS, 4), stride=(4, 1)), U32)
    acc = cute.make_rmem_tensor(cute.make_layout((16, 4), stride=(4, 1)), F32)
    acc.fill(0.0)
    # each 64-wide k slice is summed on the tensor cores into a fresh partial, then added to acc with an
    # fp32 add that rounds to nearest: the mma's own accumulation truncates, and over K = 4096 in one
    # accumulator the logits drift toward zero past the allowance (spec notes)
    part = cute.make_rmem_tensor(cute.make_layout((16, 4), stride=(4, 1)), F32)
    load_global(gx, gw, ra, rb, row0, 0, tokens, tid)
    for kt in cutlass.range(D // BK):
        cute.arch.sync_threads()
        for i in cutlass.range_constexpr(BM * BK // 8 // THREADS):
            idx = tid + i * THREADS
            cute.copy(c16, ra[i, None], As32[idx // (BK // 8), idx % (BK // 8), None])
        for i in cutlass.range_constexpr(E * BK // 8 // THREADS):
            idx = tid + i * THREADS
            cute.copy(c16, rb[i, None], Bs32[idx // (BK // 8), idx % (BK // 8), None])
        cute.arch.sync_threads()
        if kt + 1 < D // BK:
            load_global(gx, gw, ra, rb, row0, (kt + 1) * BK, tokens, tid)
        part.fill(0.0)
        for kk in cutlass.range_constexpr(BK // 16):
            fa = cute.make_rmem_tensor((4,), U32)
            a0, a1, a2, a3 = ldsm4(As + ((wm * 16 + (lane & 15)) * LDA + kk * 16 + (lane >> 4) * 8))
            fa[0] = a0
            fa[1] = a1
            fa[2] = a2
            fa[3] = a3
            for f in cutlass.range_constexpr(8):
                b0, b1, b2, b3 = ldsm4(Bs + ((wn * 128 + f * 16 + (lane >> 4) * 8 + (lane & 7)) * LDB + kk * 16
                                             + ((lane >> 3) & 1) * 8))
                for j in cutlass.range_constexpr(2):
                    n = 2 * f + j
                    d0, d1, d2, d3 = mma_bf16(part[n, 0], part[n, 1], part[n, 2], part[n, 3], fa[0], fa[1], fa[2],
                                              fa[3], b0 if j == 0 else b2, b1 if j == 0 else b3)
                    part[n, 0] = d0
                    part[n, 1] = d1
                    part[n, 2] = d2
                    part[n, 3] = d3
        for n in cutlass.range_constexpr(16):
            for e in cutlass.range_constexpr(4):
                acc[n, e] = acc[n, e] + part[n, e]
    cute.arch.sync_threads()
    g8 = lane >> 2
    q = lane & 3
    for nt in cutlass.range_constexpr(16):
        cp = (wn * 128 + nt * 8) // 2 + q
        v = cute.make_rmem_tensor(cute.make_layout((2, 2), stride=(2, 1)), F32)
        v[0, 0] = acc[nt, 0]
        v[0, 1] = acc[nt, 1]
        v[1, 0] = acc[nt, 2]
        v[1, 1] = acc[nt, 3]
        cute.copy(c8, v[0, None], L2[wm * 16 + g8, cp, None])
        cute.copy(c8, v[1, None], L2[wm * 16 + g8 + 8, cp, None])
    cute.arch.sync_threads()

    bias = cute.make_rmem_tensor((GROUPS,), F32)
    for g in cutlass.range_constexpr(GROUPS):
        bias[g] = gb[32 * g + lane].to(F32)
    for rr in cutlass.range_constexpr(BM // (THREADS // 32)):
        m = warp * (BM // (THREADS // 32)) + rr
        t = row0 + m
        if t < tokens:
            score = cute.make_rmem_tensor((GROUPS,), F32)
            biased = cute.make_rmem_tensor((GROUPS,), F32)
            group_score = cute.make_rmem_tensor((GROUPS,), F32)
            for g in cutlass.range_constexpr(GROUPS):
                score[g] = F32(1.0) / (F32(1.0) + cute.math.exp(-L[m, 32 * g + lane]))
                biased[g] = score[g] + bias[g]
            for g in cutlass.range_constexpr(GROUPS):
                m1 = warp_max(biased[g])
                first = warp_min_i(cutlass.select_(biased[g] == m1, lane, I32(32)))
                group_score[g] = m1 + warp_max(cutlass.select_(lane == first, F32(NEG_INF), biased[g]))
            keep = cute.make_rmem_tensor((GROUPS,), I32)
            for g in cutlass.range_constexpr(GROUPS):
                rank = I32(0)
                for h in cutlass.range_constexpr(GROUPS):
                    if cutlass.const_expr(h < g):
                        rank = rank + cutlass.select_(group_score[h] >= group_score[g], I32(1), I32(0))
                    else:
                        rank = rank + cutlass.select_(group_score[h] > group_score[g], I32(1), I32(0))
                keep[g] = cutlass.select_(rank < TOPK_GROUPS, I32(1), I32(0))
            total = F32(0.0)
            my_expert = I32(0)
            my_score = F32(0.0)
            for i in cutlass.range_constexpr(TOPK):
                best = F32(NEG_INF)
                best_g = I32(-1)
                for g in cutlass.range_constexpr(GROUPS):
                    better = (keep[g] == 1) & (biased[g] > best)
                    best = cutlass.select_(better, biased[g], best)
                    best_g = cutlass.select_(better, I32(g), best_g)
                top = warp_max(best)
                e = warp_min_i(cutlass.select_((best == top) & (best_g >= 0), 32 * best_g + lane, I32(1 << 20)))
                s = F32(0.0)
                for g in cutlass.range_constexpr(GROUPS):
                    s = cutlass.select_(e // 32 == g, score[g], s)
                picked = cute.arch.shuffle_sync(s, e % 32)
                for g in cutlass.range_constexpr(GROUPS):   # taken: out of the later rounds
                    biased[g] = cutlass.select_((lane == e % 32) & (e // 32 == g), F32(NEG_INF), biased[g])
                if lane == i:
                    my_expert = e
                    my_score = picked
                total = total + picked
            if lane < TOPK:
                gidx[t * TOPK + lane] = my_expert.to(I64)
                gwt[t * TOPK + lane] = my_score / (total + eps) * scale


MKB_PLAN = """/* mkb:plan
launch route_fused grid(ceil_div(num_tokens, 64)) block(256) shared(66560)
  args(hidden_states, weight, expert_bias, topk_indices, topk_weights, i32(num_tokens), i32(gating_dim),
       f32(routed_scaling_factor), f32(weight_sum_eps))
*/"""
