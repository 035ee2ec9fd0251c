"""correction_bias_shared_expert_ernie_bf16 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. router_logits_kernel: 32 tokens x 64 experts per block through shared memory, fp64 accumulation
     (the bf16 x fp32 products are exact in fp64), rounded to fp32 once;
  2. route_kernel: a warp per token: softmax (max and sum by butterflies), + bias, 8 rounds of a warp
     argmax (ties to the lower expert), weight = bf16(biased / max(sum, norm_min)); experts' token
     counts by int atomics;
  3. offsets_kernel, fill_pairs: the (token, slot) pairs grouped by expert (counts -> offsets -> slots,
     order inside an expert immaterial); the shared expert is one group of every token (cnt2);
  4. gate_up_routed / gate_up_shared: one grouped bf16 GEMM computes gate and up together (64 + 64 B rows
     interleaved by 8 share each A tile, gathered straight from hidden_states for the routed pairs) and
     writes h = silu(gate) * up rounded to bf16 once;
  5. down_routed (rows times their weight, bf16) and down_shared (fp32);
  6. combine_kernel: per token, the shared fp32 row plus its 8 weighted expert rows in slot order,
     rounded to bf16 once.
GEMM engine (the cuda solution's): 128 x 128 tiles, K steps of 64, 3 cp.async stages in XOR-swizzled
shared memory, 4 warps of 64 x 64, ldmatrix + mma.sync m16n8k16 bf16 (inline PTX), fp32 accumulation;
CTAs run group by group, n tile by n tile, m tile fastest; thread 0 finds its tile and a CTA past the
last tile skips the body (no early exit in the DSL). Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

F32, F64, BF16 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16
I32, I64, U32, U8 = cutlass.Int32, cutlass.Int64, cutlass.Uint32, cutlass.Uint8

T = 64 * 128         # tokens
H = 8192             # hidden_size
E = 64               # num_experts
TOPK = 8
I = 3584             # intermediate_size
IS = 7168            # shared_intermediate_size
NP = T * TOPK        # routed pairs
STAGES, STAGE = 3, 32768
EPI_SWIGLU, EPI_SCALE_BF16, EPI_F32 = 0, 1, 2
NEG_INF = float("-inf")
assert STAGES * STAGE == 98304 and NP * H < 2 ** 31 and T * IS < 2 ** 31 and I * H < 2 ** 31


@cute.jit
def cp_async16(dst_smem, src_gmem):
    cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                         read_only_args=[dst_smem.toint(), src_gmem.toint()])


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
def pack_bf16x2(lo, hi):
    """bf16x2 word (lo in the low half), each value rounded to nearest even once."""
    return cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                read_only_args=[hi, lo])


@cute.jit
def swz(r, c):
    """Byte offset of chunk c (8 bf16) of row r in a tile of 64 bf16 per row."""
    return r * 128 + ((c ^ (r & 7)) << 4)


@cute.jit
def put4(r: cute.Tensor, i, x):
    x0, x1, x2, x3 = x
    r[i, 0] = x0
    r[i, 1] = x1
    r[i, 2] = x2
    r[i, 3] = x3


@cute.jit
def load_stage(a, pb0, pb1, arow: cute.Tensor, sbase, slot, k0, n0, tid, epi: cutlass.Constexpr, K: cutlass.Constexpr):
    """Stage `slot` <- k columns k0 .. k0 + 63 of the 128 gathered A rows and of the 128 B rows (gate/up:
    B row r is row n0 + (r / 16) * 8 + r % 8 of the gate weight when (r / 8) is even, of up when odd)."""
    sa = sbase + slot * STAGE
    sb = sa + 16384
    for i in cutlass.range_constexpr(8):
        c = tid + 128 * i
        r = c >> 3
        ch = c & 7
        cp_async16(sa + swz(r, ch), a + (arow[r] * K + k0 + ch * 8))
        if cutlass.const_expr(epi == EPI_SWIGLU):
            off = (n0 + (r >> 4) * 8 + (r & 7)) * K + k0 + ch * 8
            src = pb0 + off
            if ((r >> 3) & 1) == 1:
                src = pb1 + off
            cp_async16(sb + swz(r, ch), src)
        else:
            cp_async16(sb + swz(r, ch), pb0 + ((n0 + r) * K + k0 + ch * 8))


@cute.jit
def grouped_gemm(a: cute.Pointer, a_index: cute.Pointer, b0: cute.Pointer, b1: cute.Pointer, b_stride: cutlass.Constexpr,
                 cnt: cute.Pointer, off: cute.Pointer, groups: cutlass.Constexpr, N: cutlass.Constexpr,
                 K: cutlass.Constexpr, c: cute.Pointer, rowscale: cute.Pointer, epi: cutlass.Constexpr,
                 gather: cutlass.Constexpr):
    """Group g owns output rows off[g] .. off[g] + cnt[g]; its A rows are A[a_index[row]] (gather) or
    A[row]; its B rows are B0 + g * b_stride (and B1 for gate/up), [n][k] K-major; N is the output width."""
    TILE_N = 64 if epi == EPI_SWIGLU else 128
    NT = N // TILE_N
    KT = K // 64
    tid = cute.arch.thread_idx()[0]
    warp = tid >> 5
    lane = tid & 31
    gcnt = cute.make_tensor(cnt, cute.make_layout(groups))
    goff = cute.make_tensor(off, cute.make_layout(groups))
    info = cute.make_tensor(cute.arch.alloc_smem(I32, 4), cute.make_layout(4))
    arow = cute.make_tensor(cute.arch.alloc_smem(I32, 128), cute.make_layout(128))
    sbase = cute.arch.get_dyn_smem(U8, alignment=1024)
    if tid == 0:
        rem = cute.arch.block_idx()[0]
        gf = I32(-1)
        m0f = I32(-1)
        n0f = I32(0)
        for g in cutlass.range(groups):
            mt = (gcnt[g] + 127) // 128
            if gf < 0:
                if rem < mt * NT:
                    gf = g
                    n0f = (rem // mt) * TILE_N
                    m0f = (rem % mt) * 128
                else:
                    rem = rem - mt * NT
        info[0] = gf
        info[1] = m0f
        info[2] = n0f
    cute.arch.sync_threads()
    g = info[0]
    m0 = info[1]
    n0 = info[2]
    if m0 >= 0:                                  # the same on every thread of the CTA
        rows = cutlass.min(128, gcnt[g] - m0)
        row0 = goff[g] + m0
        p = row0 + cutlass.min(tid, rows - 1)
        if cutlass.const_expr(gather):
            arow[tid] = cute.make_tensor(a_index, cute.make_layout(NP))[p]
        else:
            arow[tid] = p
        cute.arch.sync_threads()
        pb0 = b0 + I64(g) * b_stride
        pb1 = b1 + I64(g) * b_stride
        acc = cute.make_rmem_tensor(cute.make_layout((4, 8, 4), stride=(32, 4, 1)), F32)
        acc.fill(0.0)
        for st in cutlass.range_constexpr(STAGES - 1):
            load_stage(a, pb0, pb1, arow, sbase, st, st * 64, n0, tid, epi, K)
            cute.arch.cp_async_commit_group()
        wm = (warp >> 1) * 64
        wn = (warp & 1) * 64
        for kt in cutlass.range(KT):
            cute.arch.cp_async_wait_group(STAGES - 2)
            cute.arch.sync_threads()
            nxt = kt + STAGES - 1
            if nxt < KT:
                load_stage(a, pb0, pb1, arow, sbase, nxt % STAGES, nxt * 64, n0, tid, epi, K)
            cute.arch.cp_async_commit_group()
            sa = sbase + (kt % STAGES) * STAGE
            sb = sa + 16384
            for ks in cutlass.range_constexpr(4):
                ra = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
                rb = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
                for mt in cutlass.range_constexpr(4):
                    put4(ra, mt, ldsm4(sa + swz(wm + mt * 16 + (lane & 15), ks * 2 + (lane >> 4))))
                for np_ in cutlass.range_constexpr(4):
                    put4(rb, np_, ldsm4(sb + swz(wn + np_ * 16 + (lane >> 4) * 8 + (lane & 7), ks * 2 + ((lane >> 3) & 1))))
                for mt in cutlass.range_constexpr(4):
                    for nt in cutlass.range_constexpr(8):
                        d0, d1, d2, d3 = mma_bf16(acc[mt, nt, 0], acc[mt, nt, 1], acc[mt, nt, 2], acc[mt, nt, 3],
                                                  ra[mt, 0], ra[mt, 1], ra[mt, 2], ra[mt, 3],
                                                  rb[nt // 2, (nt % 2) * 2], rb[nt // 2, (nt % 2) * 2 + 1])
                        acc[mt, nt, 0] = d0
                        acc[mt, nt, 1] = d1
                        acc[mt, nt, 2] = d2
                        acc[mt, nt, 3] = d3
        cute.arch.cp_async_wait_group(0)
        gq = lane >> 2
        q = lane & 3
        for mt in cutlass.range_constexpr(4):
            for hh in cutlass.range_constexpr(2):
                r = wm + mt * 16 + gq + 8 * hh
                if r < rows:
                    crow = row0 + r
                    if cutlass.const_expr(epi == EPI_SWIGLU):
                        # logical n tile 2j: gate columns n0 + wn / 2 + 8 j .., 2j + 1: the same up columns
                        gc = cute.make_tensor(cute.recast_ptr(c, dtype=U32), cute.make_layout((NP, N // 2), stride=(N // 2, 1)))
                        for j in cutlass.range_constexpr(4):
                            g0 = acc[mt, 2 * j, 2 * hh]
                            g1 = acc[mt, 2 * j, 2 * hh + 1]
                            u0 = acc[mt, 2 * j + 1, 2 * hh]
                            u1 = acc[mt, 2 * j + 1, 2 * hh + 1]
                            gc[crow, (n0 + wn // 2 + 8 * j) // 2 + q] = pack_bf16x2(
                                g0 / (F32(1.0) + cute.math.exp(-g0)) * u0, g1 / (F32(1.0) + cute.math.exp(-g1)) * u1)
                    elif cutlass.const_expr(epi == EPI_SCALE_BF16):
                        gc = cute.make_tensor(cute.recast_ptr(c, dtype=U32), cute.make_layout((NP, N // 2), stride=(N // 2, 1)))
                        s = cute.make_tensor(rowscale, cute.make_layout(NP))[crow]
                        for nt in cutlass.range_constexpr(8):
                            gc[crow, (n0 + wn + 8 * nt) // 2 + q] = pack_bf16x2(acc[mt, nt, 2 * hh] * s,
                                                                              acc[mt, nt, 2 * hh + 1] * s)
                    else:
                        gf32 = cute.make_tensor(c, cute.make_layout((T, N // 2, 2), stride=(N, 2, 1)))
                        c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
                        for nt in cutlass.range_constexpr(8):
                            v = cute.make_rmem_tensor((2,), F32)
                            v[0] = acc[mt, nt, 2 * hh]
                            v[1] = acc[mt, nt, 2 * hh + 1]
                            cute.copy(c8, v, gf32[crow, (n0 + wn + 8 * nt) // 2 + q, None])


@cute.kernel
def router_logits_kernel(x: cute.Pointer, w: cute.Pointer, logits: cute.Pointer):
    """router_logits[t, e] = sum_k float(x[t, k]) * gate_weight[e, k]: 32 tokens x 64 experts per block,
    256 threads with 2 x 4 outputs each (tokens tr, tr + 16; experts ec + 16 j), fp64 accumulation."""
    tid = cute.arch.thread_idx()[0]
    t0 = cute.arch.block_idx()[0] * 32
    gx = cute.make_tensor(x, cute.make_layout((T, H), stride=(H, 1)))
    gw = cute.make_tensor(w, cute.make_layout((E, H), stride=(H, 1)))
    gl = cute.make_tensor(logits, cute.make_layout((T, E), stride=(E, 1)))
    xs = cute.make_tensor(cute.arch.alloc_smem(F32, 32 * 65), cute.make_layout((32, 65), stride=(65, 1)))
    ws = cute.make_tensor(cute.arch.alloc_smem(F32, 64 * 65), cute.make_layout((64, 65), stride=(65, 1)))
    tr = tid >> 4
    ec = tid & 15
    acc = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), F64)
    acc.fill(0.0)
    for k0 in cutlass.range(0, H, 64):
        for it in cutlass.range_constexpr(32 * 64 // 256):
            i = tid + 256 * it
            xs[i >> 6, i & 63] = gx[t0 + (i >> 6), k0 + (i & 63)].to(F32)
        for it in cutlass.range_constexpr(64 * 64 // 256):
            i = tid + 256 * it
            ws[i >> 6, i & 63] = gw[i >> 6, k0 + (i & 63)]
        cute.arch.sync_threads()
        for k in cutlass.range(64, unroll=4):
            a0 = xs[tr, k].to(F64)
            a1 = xs[tr + 16, k].to(F64)
            for j in cutlass.range_constexpr(4):
                b = ws[ec + 16 * j, k].to(F64)
                acc[0, j] = a0 * b + acc[0, j]          # the product is exact in fp64
                acc[1, j] = a1 * b + acc[1, j]
        cute.arch.sync_threads()
    for i in cutlass.range_constexpr(2):
        for j in cutlass.range_constexpr(4):
            gl[t0 + tr + 16 * i, ec + 16 * j] = acc[i, j].to(F32)


@cute.kernel
def route_kernel(logits: cute.Pointer, bias: cute.Pointer, norm_min: cutlass.Float32, sel: cute.Pointer,
                 wsel: cute.Pointer, count: cute.Pointer, tokens: cutlass.Int32):
    t = (cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]) >> 5
    lane = cute.arch.lane_idx()
    gl = cute.make_tensor(logits, cute.make_layout((T, E), stride=(E, 1)))
    gb = cute.make_tensor(bias, cute.make_layout(E))
    gsel = cute.make_tensor(sel, cute.make_layout(NP))
    gws = cute.make_tensor(wsel, cute.make_layout(NP))
    gcount = cute.make_tensor(count, cute.make_layout(E))
    if t < tokens:                           # a whole warp
        x0 = gl[t, lane]
        x1 = gl[t, lane + 32]
        m = cute.arch.fmax(x0, x1)
        for o in cutlass.range_constexpr(5):
            m = cute.arch.fmax(m, cute.arch.shuffle_sync_bfly(m, 16 >> o))
        e0 = cute.math.exp(x0 - m)
        e1 = cute.math.exp(x1 - m)
        s = e0 + e1
        for o in cutlass.range_constexpr(5):
            s = s + cute.arch.shuffle_sync_bfly(s, 16 >> o)
        v0 = e0 / s + gb[lane]
        v1 = e1 / s + gb[lane + 32]
        my_e = I32(0)
        my_v = F32(0.0)
        total = F32(0.0)
        for k in cutlass.range_constexpr(TOPK):
            best = F32(NEG_INF)
            where = I32(1 << 30)
            b0 = v0 > best
            best = cutlass.select_(b0, v0, best)
            where = cutlass.select_(b0, lane, where)
            b1 = v1 > best
            best = cutlass.select_(b1, v1, best)
            where = cutlass.select_(b1, lane + 32, where)
            for o in cutlass.range_constexpr(5):
                ob = cute.arch.shuffle_sync_bfly(best, 16 >> o)
                ow = cute.arch.shuffle_sync_bfly(where, 16 >> o)
                take = (ob > best) | ((ob == best) & (ow < where))
                best = cutlass.select_(take, ob, best)
                where = cutlass.select_(take, ow, where)
            v0 = cutlass.select_(where == lane, F32(NEG_INF), v0)
            v1 = cutlass.select_(where == lane + 32, F32(NEG_INF), v1)
            if lane == k:
                my_e = where
                my_v = best
            total = total + best
        if lane < TOPK:
            gsel[t * TOPK + lane] = my_e
            gws[t * TOPK + lane] = (my_v / cute.arch.fmax(total, norm_min)).to(BF16).to(F32)
            cute.arch.atomic_add(gcount.iterator + my_e, I32(1))


@cute.kernel
def offsets_kernel(count: cute.Pointer, off: cute.Pointer, cnt2: cute.Pointer, tokens: cutlass.Int32):
    gcount = cute.make_tensor(count, cute.make_layout(E))
    goff = cute.make_tensor(off, cute.make_layout(E + 1))
    gc2 = cute.make_tensor(cnt2, cute.make_layout(2))
    if cute.arch.thread_idx()[0] == 0:
        o = I32(0)
        for e in cutlass.range_constexpr(E):
            goff[e] = o
            o = o + gcount[e]
        goff[E] = o
        gc2[0] = tokens                     # shared expert: one group of every token
        gc2[1] = I32(0)                     # its offset


@cute.kernel
def fill_pairs(sel: cute.Pointer, wsel: cute.Pointer, off: cute.Pointer, cursor: cute.Pointer,
               pair_token: cute.Pointer, pair_w: cute.Pointer, pair_of: cute.Pointer, n: cutlass.Int32):
    i = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gsel = cute.make_tensor(sel, cute.make_layout(NP))
    gws = cute.make_tensor(wsel, cute.make_layout(NP))
    goff = cute.make_tensor(off, cute.make_layout(E + 1))
    gcur = cute.make_tensor(cursor, cute.make_layout(E))
    gpt = cute.make_tensor(pair_token, cute.make_layout(NP))
    gpw = cute.make_tensor(pair_w, cute.make_layout(NP))
    gpo = cute.make_tensor(pair_of, cute.make_layout(NP))
    if i < n:
        e = gsel[i]
        p = goff[e] + cute.arch.atomic_add(gcur.iterator + e, I32(1))
        gpt[p] = i // TOPK
        gpw[p] = gws[i]
        gpo[i] = p


@cute.kernel
def gate_up_routed(x: cute.Pointer, pair_token: cute.Pointer, wg: cute.Pointer, wu: cute.Pointer, count: cute.Pointer,
                   off: cute.Pointer, h: cute.Pointer):
    grouped_gemm(x, pair_token, wg, wu, I * H, count, off, E, I, H, h, pair_token, EPI_SWIGLU, True)


@cute.kernel
def gate_up_shared(x: cute.Pointer, wg: cute.Pointer, wu: cute.Pointer, cnt2: cute.Pointer, h: cute.Pointer):
    grouped_gemm(x, cnt2, wg, wu, 0, cnt2, cnt2 + 1, 1, IS, H, h, cnt2, EPI_SWIGLU, False)


@cute.kernel
def down_routed(h: cute.Pointer, wd: cute.Pointer, count: cute.Pointer, off: cute.Pointer, pair_w: cute.Pointer,
                y: cute.Pointer):
    grouped_gemm(h, count, wd, wd, H * I, count, off, E, H, I, y, pair_w, EPI_SCALE_BF16, False)


@cute.kernel
def down_shared(h: cute.Pointer, wd: cute.Pointer, cnt2: cute.Pointer, y: cute.Pointer):
    grouped_gemm(h, cnt2, wd, wd, 0, cnt2, cnt2 + 1, 1, H, IS, y, y, EPI_F32, False)


@cute.kernel
def combine_kernel(shared: cute.Pointer, y: cute.Pointer, pair_of: cute.Pointer, out: cute.Pointer,
                   tokens: cutlass.Int32):
    gs = cute.make_tensor(shared, cute.make_layout((T, H // 8, 2, 4), stride=(H, 8, 4, 1)))
    gy = cute.make_tensor(y, cute.make_layout((NP, H // 8, 8), stride=(H, 8, 1)))
    go = cute.make_tensor(out, cute.make_layout((T, H // 8, 8), stride=(H, 8, 1)))
    gpo = cute.make_tensor(pair_of, cute.make_layout(NP))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    c16f = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    n = tokens * (H // 8)
    start = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    step = cute.arch.grid_dim()[0] * 256
    for i in cutlass.range(start, n, step):
        t = i // (H // 8)
        c = i % (H // 8)
        acc = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), F32)
        cute.copy(c16f, gs[t, c, 0, None], acc[0, None])
        cute.copy(c16f, gs[t, c, 1, None], acc[1, None])
        for k in cutlass.range_constexpr(TOPK):
            p = gpo[t * TOPK + k]
            rv = cute.make_rmem_tensor((8,), BF16)
            cute.copy(c16, gy[p, c, None], rv)
            for j in cutlass.range_constexpr(8):
                acc[j // 4, j % 4] = acc[j // 4, j % 4] + rv[j].to(F32)
        ro = cute.make_rmem_tensor((8,), BF16)
        for j in cutlass.range_constexpr(8):
            ro[j] = acc[j // 4, j % 4].to(BF16)
        cute.copy(c16, ro, go[t, c, None])


MKB_PLAN = """/* mkb:plan
scratch sel int32[batch_size * seq_len * top_k]
scratch wsel fp32[batch_size * seq_len * top_k]
scratch count int32[num_experts] zeroed
scratch cursor int32[num_experts] zeroed
scratch off int32[num_experts + 1]
scratch cnt2 int32[2]
scratch pair_token int32[batch_size * seq_len * top_k]
scratch pair_w fp32[batch_size * seq_len * top_k]
scratch pair_of int32[batch_size * seq_len * top_k]
scratch h bf16[batch_size * seq_len * top_k * intermediate_size]
scratch hs bf16[batch_size * seq_len * shared_intermediate_size]
scratch y bf16[batch_size * seq_len * top_k * hidden_size]
scratch ys fp32[batch_size * seq_len * hidden_size]
launch router_logits_kernel grid(batch_size * seq_len / 32) block(256) args(hidden_states, gate_weight, router_logits)
launch route_kernel grid(batch_size * seq_len * 32 / 256) block(256)
  args(router_logits, e_score_correction_bias, f32(norm_min), sel, wsel, count, i32(batch_size * seq_len))
launch offsets_kernel grid(1) block(32) args(count, off, cnt2, i32(batch_size * seq_len))
launch fill_pairs grid(batch_size * seq_len * top_k / 256) block(256)
  args(sel, wsel, off, cursor, pair_token, pair_w, pair_of, i32(batch_size * seq_len * top_k))
launch gate_up_routed grid((batch_size * seq_len * top_k / 128 + num_experts) * (intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, pair_token, expert_gate_proj, expert_up_proj, count, off, h)
launch gate_up_shared grid(batch_size * seq_len / 128 * (shared_intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, shared_gate_proj, shared_up_proj, cnt2, hs)
launch down_routed grid((batch_size * seq_len * top_k / 128 + num_experts) * (hidden_size / 128)) block(128) shared(98304)
  args(h, expert_down_proj, count, off, pair_w, y)
launch down_shared grid(batch_size * seq_len / 128 * (hidden_size / 128)) block(128) shared(98304)
  args(hs, shared_down_proj, cnt2, ys)
launch combine_kernel grid(8192) block(256) args(ys, y, pair_of, output, i32(batch_size * seq_len))
*/"""
