"""top10_shared_gate_qwen3next_bf16 in CuTe DSL: the algorithm of solutions/cuda.cu, eight launches:
  1. router_fused: 64 tokens x 512 experts (two halves of 256) of fp32-accumulated logits on the bf16
     tensor cores, kept in shared memory; writes router_logits (bf16) and, a warp per token, the fp32
     softmax, the top 10 (ties to the lower expert) and bf16 renormalized weights; counts each expert;
  2. expert_offsets, 3. place_rows: every expert's rows laid out expert after expert; per token, the
     positions of its rows in ascending expert order (the order the reference adds them in);
  4. expert_swiglu: per 128-row tile of one expert, the gate and up products and the SwiGLU epilogue on
     the accumulators with the reference's bf16 roundings: h = bf16(bf16(g * bf16(sig(g))) * u);
  5. expert_down: h @ D_e^T, epilogue bf16(bf16(o) * w) per row;
  6. shared_gate_value: bf16(sigmoid(bf16(x . gate))) per token;
  7. expert_swiglu again for the shared expert (one "expert" owning every token);
  8. shared_down_combine: the shared down product; in its epilogue the gated shared output and the
     token's routed rows added in ascending expert order with a bf16 rounding per add, then the final sum.
The cuda solution's WMMA 16x16x16 fragments (opaque layout, not in the DSL) are replaced by mma.sync
m16n8k16 bf16 (inline PTX) over the same tiles, warps and k order, fed by ldmatrix from the same padded
shared tiles (row strides of 144 and 80 bytes); the accumulators go to the same fp32 shared-memory tile
(fragment layout of the PTX ISA: c0, c1 at row g, columns 2q, 2q + 1; c2, c3 at row g + 8), so every
epilogue and rounding point is the cuda solution's. Tiles are register-prefetched (16-byte global loads
into registers, stored to shared memory after the barrier) as there. Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

F32, BF16 = cutlass.Float32, cutlass.BFloat16
I32, U32 = cutlass.Int32, cutlass.Uint32

T = 64 * 613         # num_tokens (39232)
H = 2048             # hidden_size
E = 512              # num_experts
I = 512              # moe_intermediate_size = shared_expert_intermediate_size
TOPK = 10
NP = T * TOPK        # routed rows
NEG_INF = float("-inf")

RM, RK, RHALF, RLDA, RLDL = 64, 64, 256, 72, E + 4
ROUTER_SMEM = (RM * RLDA + RHALF * RLDA) * 2 + RM * RLDL * 4
BM, BN, BK, LDS, LDC = 128, 64, 32, 40, 64 + 4
MAX_TILES = (NP + BM - 1) // BM + E
assert ROUTER_SMEM == 178176 and T % RM == 0 and H % 256 == 0 and NP * H < 2 ** 31 and E * I * H < 2 ** 31


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
def put4(r: cute.Tensor, i, x):
    x0, x1, x2, x3 = x
    r[i, 0] = x0
    r[i, 1] = x1
    r[i, 2] = x2
    r[i, 3] = x3


@cute.jit
def mma_into(acc: cute.Tensor, i, a: cute.Tensor, ai, b: cute.Tensor, nt):
    """acc[i, 0..3] += A fragment a[ai] . B fragment (n8 tile nt of the x4 loads in b)."""
    d0, d1, d2, d3 = mma_bf16(acc[i, 0], acc[i, 1], acc[i, 2], acc[i, 3], a[ai, 0], a[ai, 1], a[ai, 2], a[ai, 3],
                              b[nt // 2, (nt % 2) * 2], b[nt // 2, (nt % 2) * 2 + 1])
    acc[i, 0] = d0
    acc[i, 1] = d1
    acc[i, 2] = d2
    acc[i, 3] = d3


@cute.jit
def round_bf16(v):
    return v.to(BF16).to(F32)


@cute.jit
def sigmoid(v):
    return F32(1.0) / (F32(1.0) + cute.math.exp(-v))


@cute.jit
def warp_max(v):
    for o in cutlass.range_constexpr(5):
        v = cute.arch.fmax(v, cute.arch.shuffle_sync_bfly(v, 16 >> o))
    return v


@cute.jit
def warp_sum(v):
    for o in cutlass.range_constexpr(5):
        v = v + cute.arch.shuffle_sync_bfly(v, 16 >> o)
    return v


@cute.jit
def warp_min_i(v):
    for o in cutlass.range_constexpr(5):
        v = cutlass.min(v, cute.arch.shuffle_sync_bfly(v, 16 >> o))
    return v


@cute.kernel
def router_fused(hidden: cute.Pointer, router_weight: cute.Pointer, router_logits: cute.Pointer, selected: cute.Pointer,
                 routing_weights: cute.Pointer, counts: cute.Pointer, tokens: cutlass.Int32, dim: cutlass.Int32):
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    row0 = cute.arch.block_idx()[0] * RM
    wm = warp % 4
    wn = warp // 4
    smem = cute.arch.get_dyn_smem(BF16, alignment=128)
    As = smem
    Bs = smem + RM * RLDA
    As32 = cute.make_tensor(cute.recast_ptr(As, dtype=U32), cute.make_layout((RM, 9, 4), stride=(RLDA // 2, 4, 1)))
    Bs32 = cute.make_tensor(cute.recast_ptr(Bs, dtype=U32), cute.make_layout((RHALF, 9, 4), stride=(RLDA // 2, 4, 1)))
    Ls = cute.make_tensor(cute.recast_ptr(smem + (RM * RLDA + RHALF * RLDA), dtype=F32),
                          cute.make_layout((RM, RLDL // 2, 2), stride=(RLDL, 2, 1)))
    Lsf = cute.make_tensor(cute.recast_ptr(smem + (RM * RLDA + RHALF * RLDA), dtype=F32),
                           cute.make_layout((RM, RLDL), stride=(RLDL, 1)))
    gx = cute.make_tensor(cute.recast_ptr(hidden, dtype=U32), cute.make_layout((T, H // 8, 4), stride=(H // 2, 4, 1)))
    gw = cute.make_tensor(cute.recast_ptr(router_weight, dtype=U32),
                          cute.make_layout((E, H // 8, 4), stride=(H // 2, 4, 1)))
    gl = cute.make_tensor(router_logits, cute.make_layout((T, E), stride=(E, 1)))
    gsel = cute.make_tensor(selected, cute.make_layout(T * TOPK))
    grw = cute.make_tensor(routing_weights, cute.make_layout(T * TOPK))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    for half in cutlass.range(2):
        ra = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
        rb = cute.make_rmem_tensor(cute.make_layout((8, 4), stride=(4, 1)), U32)
        acc = cute.make_rmem_tensor(cute.make_layout((16, 4), stride=(4, 1)), F32)
        acc.fill(0.0)
        router_load(gx, gw, ra, rb, row0, half, 0, tokens, tid)
        for kt in cutlass.range(H // RK):
            cute.arch.sync_threads()
            for i in cutlass.range_constexpr(2):
                q = tid + 256 * i
                cute.copy(c16, ra[i, None], As32[q // 8, q % 8, None])
            for i in cutlass.range_constexpr(8):
                q = tid + 256 * i
                cute.copy(c16, rb[i, None], Bs32[q // 8, q % 8, None])
            cute.arch.sync_threads()
            if kt + 1 < H // RK:
                router_load(gx, gw, ra, rb, row0, half, (kt + 1) * RK, tokens, tid)
            for kk in cutlass.range_constexpr(RK // 16):
                fa = cute.make_rmem_tensor(cute.make_layout((1, 4), stride=(4, 1)), U32)
                put4(fa, 0, ldsm4(As + ((wm * 16 + (lane & 15)) * RLDA + kk * 16 + (lane >> 4) * 8)))
                for f in cutlass.range_constexpr(8):
                    fb = cute.make_rmem_tensor(cute.make_layout((1, 4), stride=(4, 1)), U32)
                    put4(fb, 0, ldsm4(Bs + ((wn * 128 + f * 16 + (lane >> 4) * 8 + (lane & 7)) * RLDA + kk * 16
                                            + ((lane >> 3) & 1) * 8)))
                    for j in cutlass.range_constexpr(2):
                        mma_into(acc, 2 * f + j, fa, 0, fb, j)
        g = lane >> 2
        q = lane & 3
        for nt in cutlass.range_constexpr(16):
            cp = (half * RHALF + wn * 128 + nt * 8) // 2 + q
            v = cute.make_rmem_tensor(cute.make_layout((2, 2), stride=(2, 1)), F32)
            v[0, 0] = acc[nt, 0]
            v[0, 1] = acc[nt, 1]
            v[1, 0] = acc[nt, 2]
            v[1, 1] = acc[nt, 3]
            cute.copy(c8, v[0, None], Ls[wm * 16 + g, cp, None])
            cute.copy(c8, v[1, None], Ls[wm * 16 + g + 8, cp, None])
    cute.arch.sync_threads()
    for it in cutlass.range(RM * E // 256):
        qq = tid + 256 * it
        m = qq // E
        e = qq % E
        if row0 + m < tokens:
            gl[row0 + m, e] = Lsf[m, e].to(BF16)
    for rr in cutlass.range_constexpr(RM // 8):
        m = warp * (RM // 8) + rr
        t = row0 + m
        if t < tokens:
            l = cute.make_rmem_tensor((E // 32,), F32)
            mx = F32(NEG_INF)
            for j in cutlass.range_constexpr(E // 32):
                l[j] = Lsf[m, lane + 32 * j]
                mx = cute.arch.fmax(mx, l[j])
            mx = warp_max(mx)
            s = F32(0.0)
            for j in cutlass.range_constexpr(E // 32):
                s = s + cute.math.exp(l[j] - mx)
            s = warp_sum(s)
            top_sum = F32(0.0)
            my_expert = I32(0)
            my_p = F32(0.0)
            for i in cutlass.range_constexpr(TOPK):
                best = F32(NEG_INF)
                best_e = I32(1 << 20)
                for j in cutlass.range_constexpr(E // 32):
                    better = l[j] > best
                    best = cutlass.select_(better, l[j], best)
                    best_e = cutlass.select_(better, lane + 32 * j, best_e)
                top = warp_max(best)
                e = warp_min_i(cutlass.select_(best == top, best_e, I32(1 << 20)))
                for j in cutlass.range_constexpr(E // 32):
                    l[j] = cutlass.select_(e == lane + 32 * j, F32(NEG_INF), l[j])
                p = cute.math.exp(top - mx) / s
                top_sum = top_sum + p
                if lane == i:
                    my_expert = e
                    my_p = p
            if lane < TOPK:
                gsel[t * TOPK + lane] = my_expert
                grw[t * TOPK + lane] = (my_p / top_sum).to(BF16)
                cute.arch.atomic_add(counts + my_expert, I32(1))


@cute.jit
def router_load(gx: cute.Tensor, gw: cute.Tensor, ra: cute.Tensor, rb: cute.Tensor, row0, half, k0, tokens, tid):
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    for i in cutlass.range_constexpr(2):
        q = tid + 256 * i
        m = q // 8
        c = q % 8
        if row0 + m < tokens:
            cute.copy(c16, gx[row0 + m, k0 // 8 + c, None], ra[i, None])
        else:
            for w in cutlass.range_constexpr(4):
                ra[i, w] = U32(0)
    for i in cutlass.range_constexpr(8):
        q = tid + 256 * i
        cute.copy(c16, gw[half * RHALF + q // 8, k0 // 8 + q % 8, None], rb[i, None])


@cute.kernel
def expert_offsets(seg: cute.Pointer, tile_off: cute.Pointer, dense_seg: cute.Pointer, dense_tile: cute.Pointer,
                   counts: cute.Pointer, experts: cutlass.Int32, tokens: cutlass.Int32):
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gto = cute.make_tensor(tile_off, cute.make_layout(E + 1))
    gds = cute.make_tensor(dense_seg, cute.make_layout(2))
    gdt = cute.make_tensor(dense_tile, cute.make_layout(2))
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
        gds[0] = I32(0)
        gds[1] = tokens
        gdt[0] = I32(0)
        gdt[1] = (tokens + BM - 1) // BM


@cute.kernel
def place_rows(row_token: cute.Pointer, row_w: cute.Pointer, pos_sorted: cute.Pointer, cursor: cute.Pointer,
               selected: cute.Pointer, routing_weights: cute.Pointer, seg: cute.Pointer, tokens: cutlass.Int32):
    """One thread per token: its experts in ascending order get rows (any order inside an expert);
    pos_sorted[t, j] is the row of its j-th smallest expert. The insertion sort of the cuda solution runs
    as the full set of compare-exchanges (the experts are distinct: the same order)."""
    t = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    grt = cute.make_tensor(row_token, cute.make_layout(NP))
    grw = cute.make_tensor(row_w, cute.make_layout(NP))
    gpos = cute.make_tensor(pos_sorted, cute.make_layout(NP))
    gsel = cute.make_tensor(selected, cute.make_layout(NP))
    gw = cute.make_tensor(routing_weights, cute.make_layout(NP))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    if t < tokens:
        ex = cute.make_rmem_tensor((TOPK,), I32)
        slot = cute.make_rmem_tensor((TOPK,), I32)
        for j in cutlass.range_constexpr(TOPK):
            ex[j] = gsel[t * TOPK + j]
            slot[j] = I32(j)
        for a in cutlass.range_constexpr(1, TOPK):
            for b in cutlass.range_constexpr(a, 0, -1):
                sw = ex[b - 1] > ex[b]
                te = ex[b]
                ts = slot[b]
                ex[b] = cutlass.select_(sw, ex[b - 1], te)
                slot[b] = cutlass.select_(sw, slot[b - 1], ts)
                ex[b - 1] = cutlass.select_(sw, te, ex[b - 1])
                slot[b - 1] = cutlass.select_(sw, ts, slot[b - 1])
        for j in cutlass.range_constexpr(TOPK):
            p = gseg[ex[j]] + cute.arch.atomic_add(cursor + ex[j], I32(1))
            grt[p] = t
            grw[p] = gw[t * TOPK + slot[j]]
            gpos[t * TOPK + j] = p


@cute.jit
def moe_gemm(out: cute.Pointer, x: cute.Pointer, row_token: cute.Pointer, gather, W0: cute.Pointer, W1: cute.Pointer,
             row_w: cute.Pointer, gate_value: cute.Pointer, weighted: cute.Pointer, pos_sorted: cute.Pointer,
             seg: cute.Pointer, tile_off: cute.Pointer, experts, mode: cutlass.Constexpr, n_out: cutlass.Constexpr,
             k_dim: cutlass.Constexpr):
    """Out tile (128 rows of one expert x 64 columns) of A @ W_e^T (W_e: [n_out, k_dim]); A's row r is
    x[row_token[r]] (gather) or x[r]. mode 0: SwiGLU of two weights; 1: down, scaled by row_w; 2: shared
    down plus the combine."""
    KB = 2 if mode == 0 else 1
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    smem = cute.arch.alloc_smem(cutlass.Uint8, BM * LDC * 4, alignment=128)
    As = cute.recast_ptr(smem, dtype=BF16)
    Bs = As + BM * LDS                         # KB tiles of BN x LDS
    As32 = cute.make_tensor(cute.recast_ptr(As, dtype=U32), cute.make_layout((BM, 5, 4), stride=(LDS // 2, 4, 1)))
    Bs32 = cute.make_tensor(cute.recast_ptr(Bs, dtype=U32),
                            cute.make_layout((KB, BN, 5, 4), stride=(BN * LDS // 2, LDS // 2, 4, 1)))
    Cs = cute.make_tensor(cute.recast_ptr(smem, dtype=F32), cute.make_layout((BM, LDC // 2, 2), stride=(LDC, 2, 1)))
    Csf = cute.make_tensor(cute.recast_ptr(smem, dtype=F32), cute.make_layout((BM, LDC), stride=(LDC, 1)))
    gseg = cute.make_tensor(seg, cute.make_layout(E + 1))
    gto = cute.make_tensor(tile_off, cute.make_layout(E + 1))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    tile = cute.arch.block_idx()[1]
    if tile < gto[experts]:
        lo = I32(0)
        hi = experts
        for it in cutlass.range_constexpr(10):      # binary search: 512 experts need 9 halvings
            if hi - lo > 1:
                mid = (lo + hi) // 2
                if gto[mid] <= tile:
                    lo = mid
                else:
                    hi = mid
        e = lo
        row0 = gseg[e] + (tile - gto[e]) * BM
        row_end = gseg[e + 1]
        n0 = cute.arch.block_idx()[0] * BN
        wm = warp % 4
        wn = warp // 4
        c8i = tid % 4                               # which 8 columns of the 32-wide slice this thread loads
        gtok = cute.make_tensor(row_token, cute.make_layout(NP))
        gx = cute.make_tensor(cute.recast_ptr(x, dtype=U32),
                              cute.make_layout((NP, k_dim // 8, 4), stride=(k_dim // 2, 4, 1)))
        w_rows = (e * n_out + n0 + tid // 4)
        gw0 = cute.make_tensor(cute.recast_ptr(W0, dtype=U32),
                               cute.make_layout((E * n_out, k_dim // 8, 4), stride=(k_dim // 2, 4, 1)))
        gw1 = cute.make_tensor(cute.recast_ptr(W1, dtype=U32),
                               cute.make_layout((E * n_out, k_dim // 8, 4), stride=(k_dim // 2, 4, 1)))
        a_src = cute.make_rmem_tensor((2,), I32)
        for i in cutlass.range_constexpr(2):
            r = row0 + tid // 4 + 64 * i
            src = I32(-1)
            if r < row_end:
                src = r
                if gather != 0:
                    src = gtok[r]
            a_src[i] = src
        ra = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
        rb = cute.make_rmem_tensor(cute.make_layout((KB, 4), stride=(4, 1)), U32)
        acc = cute.make_rmem_tensor(cute.make_layout((KB * 2 * 4, 4), stride=(4, 1)), F32)   # (b, i, nt)
        acc.fill(0.0)
        gemm_load(gx, gw0, gw1, a_src, ra, rb, w_rows, 0, c8i, KB)
        for kt in cutlass.range(k_dim // BK):
            cute.arch.sync_threads()
            for i in cutlass.range_constexpr(2):
                cute.copy(c16, ra[i, None], As32[tid // 4 + 64 * i, c8i, None])
            for b in cutlass.range_constexpr(KB):
                cute.copy(c16, rb[b, None], Bs32[b, tid // 4, c8i, None])
            cute.arch.sync_threads()
            if kt + 1 < k_dim // BK:
                gemm_load(gx, gw0, gw1, a_src, ra, rb, w_rows, (kt + 1) * BK, c8i, KB)
            for kk in cutlass.range_constexpr(BK // 16):
                fa = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
                for i in cutlass.range_constexpr(2):
                    put4(fa, i, ldsm4(As + ((wm * 32 + 16 * i + (lane & 15)) * LDS + kk * 16 + (lane >> 4) * 8)))
                for b in cutlass.range_constexpr(KB):
                    fb = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
                    for j in cutlass.range_constexpr(2):
                        put4(fb, j, ldsm4(Bs + (b * BN * LDS + (wn * 32 + 16 * j + (lane >> 4) * 8 + (lane & 7)) * LDS
                                                + kk * 16 + ((lane >> 3) & 1) * 8)))
                    for i in cutlass.range_constexpr(2):
                        for nt in cutlass.range_constexpr(4):
                            mma_into(acc, (b * 2 + i) * 4 + nt, fa, i, fb, nt)
        if cutlass.const_expr(mode == 0):           # gate and up fragments share a layout: elementwise
            for i in cutlass.range_constexpr(2):
                for nt in cutlass.range_constexpr(4):
                    for v in cutlass.range_constexpr(4):
                        gg = round_bf16(acc[i * 4 + nt, v])
                        u = round_bf16(acc[(2 + i) * 4 + nt, v])
                        activated = round_bf16(gg * round_bf16(sigmoid(gg)))
                        acc[i * 4 + nt, v] = round_bf16(activated * u)
        cute.arch.sync_threads()
        g = lane >> 2
        q = lane & 3
        for i in cutlass.range_constexpr(2):
            for nt in cutlass.range_constexpr(4):
                r = wm * 32 + 16 * i + g
                cp = (wn * 32 + nt * 8) // 2 + q
                v2 = cute.make_rmem_tensor(cute.make_layout((2, 2), stride=(2, 1)), F32)
                v2[0, 0] = acc[i * 4 + nt, 0]
                v2[0, 1] = acc[i * 4 + nt, 1]
                v2[1, 0] = acc[i * 4 + nt, 2]
                v2[1, 1] = acc[i * 4 + nt, 3]
                cute.copy(c8, v2[0, None], Cs[r, cp, None])
                cute.copy(c8, v2[1, None], Cs[r + 8, cp, None])
        cute.arch.sync_threads()
        if cutlass.const_expr(mode == 2):
            ggv = cute.make_tensor(gate_value, cute.make_layout(T))
            gwt = cute.make_tensor(weighted, cute.make_layout((NP, n_out), stride=(n_out, 1)))
            gpos = cute.make_tensor(pos_sorted, cute.make_layout(NP))
            gout = cute.make_tensor(out, cute.make_layout((T, n_out), stride=(n_out, 1)))
            for it in cutlass.range(BM * BN // 256):
                qq = tid + 256 * it
                m = qq // BN
                c = qq % BN
                t = row0 + m
                if t < row_end:
                    shared = round_bf16(ggv[t].to(F32) * round_bf16(Csf[m, c]))
                    acc_routed = F32(0.0)
                    for j in cutlass.range_constexpr(TOPK):
                        acc_routed = round_bf16(acc_routed + gwt[gpos[t * TOPK + j], n0 + c].to(F32))
                    gout[t, n0 + c] = (acc_routed + shared).to(BF16)
        else:
            grw = cute.make_tensor(row_w, cute.make_layout(NP))
            gout = cute.make_tensor(out, cute.make_layout((NP, n_out // 8, 8), stride=(n_out, 8, 1)))
            c16b = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
            for it in cutlass.range_constexpr(BM * BN // 8 // 256):
                qq = tid + 256 * it
                m = qq // (BN // 8)
                c = qq % (BN // 8)
                r = row0 + m
                if r < row_end:
                    pk = cute.make_rmem_tensor((8,), BF16)
                    if cutlass.const_expr(mode == 1):
                        scale = grw[r].to(F32)
                        for j in cutlass.range_constexpr(8):
                            pk[j] = (round_bf16(Csf[m, 8 * c + j]) * scale).to(BF16)
                    else:
                        for j in cutlass.range_constexpr(8):
                            pk[j] = Csf[m, 8 * c + j].to(BF16)
                    cute.copy(c16b, pk, gout[r, n0 // 8 + c, None])


@cute.jit
def gemm_load(gx: cute.Tensor, gw0: cute.Tensor, gw1: cute.Tensor, a_src: cute.Tensor, ra: cute.Tensor,
              rb: cute.Tensor, w_rows, k0, c8i, KB: cutlass.Constexpr):
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    for i in cutlass.range_constexpr(2):
        if a_src[i] >= 0:
            cute.copy(c16, gx[a_src[i], k0 // 8 + c8i, None], ra[i, None])
        else:
            for w in cutlass.range_constexpr(4):
                ra[i, w] = U32(0)
    cute.copy(c16, gw0[w_rows, k0 // 8 + c8i, None], rb[0, None])
    if cutlass.const_expr(KB == 2):
        cute.copy(c16, gw1[w_rows, k0 // 8 + c8i, None], rb[1, None])


@cute.kernel
def expert_swiglu(h: cute.Pointer, x: cute.Pointer, row_token: cute.Pointer, gather: cutlass.Int32,
                  gate_proj: cute.Pointer, up_proj: cute.Pointer, seg: cute.Pointer, tile_off: cute.Pointer,
                  experts: cutlass.Int32, n_out: cutlass.Int32, k_dim: cutlass.Int32):
    moe_gemm(h, x, row_token, gather, gate_proj, up_proj, h, h, h, row_token, seg, tile_off, experts, 0, I, H)


@cute.kernel
def expert_down(weighted: cute.Pointer, h: cute.Pointer, row_w: cute.Pointer, down_proj: cute.Pointer,
                seg: cute.Pointer, tile_off: cute.Pointer, experts: cutlass.Int32, n_out: cutlass.Int32,
                k_dim: cutlass.Int32):
    moe_gemm(weighted, h, seg, I32(0), down_proj, down_proj, row_w, h, h, seg, seg, tile_off, experts, 1, H, I)


@cute.kernel
def shared_down_combine(final_states: cute.Pointer, sh: cute.Pointer, down_proj: cute.Pointer, gate_value: cute.Pointer,
                        weighted: cute.Pointer, pos_sorted: cute.Pointer, dense_seg: cute.Pointer,
                        dense_tile: cute.Pointer, n_out: cutlass.Int32, k_dim: cutlass.Int32):
    moe_gemm(final_states, sh, pos_sorted, I32(0), down_proj, down_proj, gate_value, gate_value, weighted, pos_sorted,
             dense_seg, dense_tile, I32(1), 2, H, I)


@cute.kernel
def shared_gate_value(gate_value: cute.Pointer, x: cute.Pointer, gate: cute.Pointer, tokens: cutlass.Int32,
                      dim: cutlass.Int32):
    """bf16(sigmoid(bf16(x . gate))) per token, a warp per token (8 values a lane per 256-column step)."""
    lane = cute.arch.lane_idx()
    t = cute.arch.block_idx()[0] * 8 + cute.arch.warp_idx()
    gx = cute.make_tensor(x, cute.make_layout((T, H // 256, 32, 8), stride=(H, 256, 8, 1)))
    gg = cute.make_tensor(gate, cute.make_layout((H // 256, 32, 8), stride=(256, 8, 1)))
    gv = cute.make_tensor(gate_value, cute.make_layout(T))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if t < tokens:
        acc = F32(0.0)
        for d in cutlass.range_constexpr(H // 256):
            a = cute.make_rmem_tensor((8,), BF16)
            b = cute.make_rmem_tensor((8,), BF16)
            cute.copy(c16, gx[t, d, lane, None], a)
            cute.copy(c16, gg[d, lane, None], b)
            for j in cutlass.range_constexpr(8):
                acc = acc + a[j].to(F32) * b[j].to(F32)
        acc = warp_sum(acc)
        if lane == 0:
            gv[t] = sigmoid(round_bf16(acc)).to(BF16)


MKB_PLAN = """/* mkb:plan
scratch selected int32[num_tokens * top_k]
scratch routing_weights bf16[num_tokens * top_k]
scratch counts int32[num_experts] zeroed
scratch cursor int32[num_experts] zeroed
scratch seg int32[num_experts + 1]
scratch tile_off int32[num_experts + 1]
scratch dense_seg int32[2]
scratch dense_tile int32[2]
scratch row_token int32[num_tokens * top_k]
scratch row_w bf16[num_tokens * top_k]
scratch pos_sorted int32[num_tokens * top_k]
scratch h bf16[num_tokens * top_k * moe_intermediate_size]
scratch weighted bf16[num_tokens * top_k * hidden_size]
scratch shared_h bf16[num_tokens * shared_expert_intermediate_size]
scratch gate_value bf16[num_tokens]
launch router_fused grid(ceil_div(num_tokens, 64)) block(256) shared(178176)
  args(hidden_states, router_weight, router_logits, selected, routing_weights, counts, i32(num_tokens), i32(hidden_size))
launch expert_offsets grid(1) block(32) args(seg, tile_off, dense_seg, dense_tile, counts, i32(num_experts), i32(num_tokens))
launch place_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(row_token, row_w, pos_sorted, cursor, selected, routing_weights, seg, i32(num_tokens))
launch expert_swiglu grid(moe_intermediate_size / 64, ceil_div(num_tokens * top_k, 128) + num_experts) block(256)
  args(h, hidden_states, row_token, i32(1), routed_gate_proj, routed_up_proj, seg, tile_off, i32(num_experts),
       i32(moe_intermediate_size), i32(hidden_size))
launch expert_down grid(hidden_size / 64, ceil_div(num_tokens * top_k, 128) + num_experts) block(256)
  args(weighted, h, row_w, routed_down_proj, seg, tile_off, i32(num_experts), i32(hidden_size), i32(moe_intermediate_size))
launch shared_gate_value grid(ceil_div(num_tokens, 8)) block(256) args(gate_value, hidden_states, shared_expert_gate, i32(num_tokens), i32(hidden_size))
launch expert_swiglu grid(shared_expert_intermediate_size / 64, ceil_div(num_tokens, 128)) block(256)
  args(shared_h, hidden_states, row_token, i32(0), shared_gate_proj, shared_up_proj, dense_seg, dense_tile, i32(1),
       i32(shared_expert_intermediate_size), i32(hidden_size))
launch shared_down_combine grid(hidden_size / 64, ceil_div(num_tokens, 128)) block(256)
  args(final_hidden_states, shared_h, shared_down_proj, gate_value, weighted, pos_sorted, dense_seg, dense_tile,
       i32(hidden_size), i32(shared_expert_intermediate_size))
*/"""
