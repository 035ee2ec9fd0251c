"""grouped_routing_block_scale_deepseek_fp8 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. route_kernel: a warp per token, lane l holding experts 8 l .. 8 l + 7 (group l / 4), fp32 as the
     reference: s = 1 / (1 + exp(-logit)), sb = s + bias; each group's two largest sb by a butterfly over
     its 4 lanes; the group's rank among the 8 (ties to the lower group); 8 rounds of a warp argmax over
     the kept groups (ties to the lower expert); the token's local experts get a row of their list by an
     int atomic, their weight s / (sum + 1e-20) * 2.5, and pair_of[t, k] = the list slot (or -1);
  2. offsets_kernel: off[e], the rows before expert e in the compact per-pair buffers;
  3. gemm1_swiglu: GEMM1 on the FP8 tensor cores (mma.sync m16n8k32 e4m3 as inline PTX, exact products):
     a CTA is 128 gathered token rows x (64 up + 64 gate) rows of W13 interleaved by 8, 128-wide K blocks
     through a 4-stage cp.async ring (with the block's 128 activation scales, 4-byte cp.async); each half
     of a K block is accumulated on its own and added into fp32 times (activation scale * weight block
     scale); h = gate / (1 + exp(-gate)) * up rounded to bf16 once;
  4. gemm2_weighted: GEMM2 on the bf16 tensor cores (mma.sync m16n8k16): W2's e4m3 values are converted
     (cvt.rn.f16x2.e4m3x2, exact) and multiplied by the block scale in fp32, then rounded to bf16 once
     while forming fragments; 3-stage ring; y = acc * routing weight, rounded to bf16;
  5. combine_kernel: a token's local expert rows summed in fp32 in k order, rounded once (0 without one).
The CTA -> (expert, m tile, n tile) search is the cuda solution's `locate`, folded into predicates (no
early exit in the DSL); a CTA past the last tile does nothing. Fragments come from 16-byte shared-memory
reads of 32-bit words (4 fp8 or 2 bf16), the MMA's k order a fixed permutation of the stored order, the
same for A and B. Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import cpasync

F32, BF16, F8 = cutlass.Float32, cutlass.BFloat16, cutlass.Float8E4M3FN
I32, U32 = cutlass.Int32, cutlass.Uint32

T = 14107            # seq_len
E = 256              # global experts
L = 32               # local experts
OFFSET = 32          # global id of local expert 0
TOPK = 8
H = 7168             # hidden
I = 2048             # intermediate
KB1 = H // 128       # 56 K blocks of GEMM1
KB2 = I // 128       # 16 K blocks of GEMM2
NP = T * TOPK        # bound on the (token, local expert) rows
SCALING = 2.5
NEG_INF = float("-inf")

ST1, STAGE1 = 4, 32768 + 512        # GEMM1: A 16 KiB, B 16 KiB, 128 activation scales
ST2, STAGE2 = 3, 49152              # GEMM2: A 32 KiB (bf16), B 16 KiB (fp8)
assert ST1 * STAGE1 == 133120 and ST2 * STAGE2 == 147456
assert L * 2 * I * H < 2 ** 31 and T * H < 2 ** 31 and NP * H < 2 ** 31


@cute.jit
def locate(gcount: cute.Tensor, nt: cutlass.Constexpr):
    """The CTA's (expert, first row, n tile): experts in order, n tiles, m tiles fastest; e = -1 past the end."""
    rem = cute.arch.block_idx()[0]
    e_f = I32(-1)
    m0 = I32(0)
    ntile = I32(0)
    for e in cutlass.range_constexpr(L):
        mt = (gcount[e] + 127) // 128
        if e_f < 0:
            if rem < mt * nt:
                e_f = I32(e)
                ntile = rem // mt
                m0 = (rem % mt) * 128
            else:
                rem = rem - mt * nt
    return e_f, m0, ntile


@cute.jit
def cp_async4(dst_smem, src_gmem):
    cute.arch.inline_ptx("cp.async.ca.shared.global [{$r0}], [{$r1}], 4;",
                         read_only_args=[dst_smem.toint(), src_gmem.toint()])


@cute.jit
def mma_e4m3(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1):
    return cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, c0, c1, c2, c3])


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
                                read_only_args=[F32(hi), F32(lo)])


@cute.jit
def e4m3x4_to_f32(w):
    """The 4 e4m3 bytes of w (low byte first) as fp32 (exact, through f16)."""
    return cute.arch.inline_ptx(
        "{\n.reg .b16 l16, h16;\n.reg .b32 p, q;\n.reg .f16 v0, v1, v2, v3;\n"
        "mov.b32 {l16, h16}, {$r0};\n"
        "cvt.rn.f16x2.e4m3x2 p, l16;\ncvt.rn.f16x2.e4m3x2 q, h16;\n"
        "mov.b32 {v0, v1}, p;\nmov.b32 {v2, v3}, q;\n"
        "cvt.f32.f16 {$w0}, v0;\ncvt.f32.f16 {$w1}, v1;\ncvt.f32.f16 {$w2}, v2;\ncvt.f32.f16 {$w3}, v3;\n}",
        write_only_types=[F32] * 4, read_only_args=[w])


@cute.jit
def swz128(r, c):
    """Chunk c (of 8) of a 128-byte row r: the upper half swapped on odd rows."""
    return c ^ ((r & 1) << 2)


@cute.jit
def swz256(r, c):
    """Chunk c (of 16) of a 256-byte row r: neighbours swapped on odd rows."""
    return c ^ (r & 1)


@cute.kernel
def route_kernel(logits: cute.Pointer, bias: cute.Pointer, count: cute.Pointer, lst: cute.Pointer,
                 pw: cute.Pointer, pair_of: cute.Pointer, tokens: cutlass.Int32):
    t = (cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]) >> 5
    lane = cute.arch.lane_idx()
    gl = cute.make_tensor(logits, cute.make_layout((T, 32, 2, 4), stride=(E, 8, 4, 1)))
    gb = cute.make_tensor(bias, cute.make_layout((32, 8), stride=(8, 1)))
    gcount = cute.make_tensor(count, cute.make_layout(L))
    glist = cute.make_tensor(lst, cute.make_layout(L * T))
    gpw = cute.make_tensor(pw, cute.make_layout(L * T))
    gpair = cute.make_tensor(pair_of, cute.make_layout(NP))
    if t < tokens:                           # a whole warp: t is the same on its 32 lanes
        c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
        c16b = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
        rl = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), F32)
        rbias = cute.make_rmem_tensor((8,), BF16)
        cute.copy(c16, gl[t, lane, 0, None], rl[0, None])
        cute.copy(c16, gl[t, lane, 1, None], rl[1, None])
        cute.copy(c16b, gb[lane, None], rbias)
        s = cute.make_rmem_tensor((8,), F32)
        sb = cute.make_rmem_tensor((8,), F32)
        v = cute.make_rmem_tensor((8,), F32)
        a = F32(NEG_INF)
        b = F32(NEG_INF)
        for i in cutlass.range_constexpr(8):
            s[i] = F32(1.0) / (F32(1.0) + cute.math.exp(-rl[i // 4, i % 4]))
            sb[i] = s[i] + rbias[i].to(F32)
            x = sb[i]
            b = cutlass.select_(x > a, a, cutlass.select_(x > b, x, b))
            a = cutlass.select_(x > a, x, a)
        for o in cutlass.range_constexpr(2):     # offsets 1, 2: the group's 4 lanes
            oa = cute.arch.shuffle_sync_bfly(a, 1 << o)
            ob = cute.arch.shuffle_sync_bfly(b, 1 << o)
            lo = cute.arch.fmax(cutlass.min(a, oa), cute.arch.fmax(b, ob))
            a = cute.arch.fmax(a, oa)
            b = lo
        mine = a + b
        mg = lane >> 2
        rank = I32(0)
        for j in cutlass.range_constexpr(8):
            gj = cute.arch.shuffle_sync(mine, 4 * j)
            rank = rank + cutlass.select_((gj > mine) | ((gj == mine) & (mg > j)), I32(1), I32(0))
        for i in cutlass.range_constexpr(8):
            v[i] = cutlass.select_(rank < 4, sb[i], F32(NEG_INF))
        my_e = I32(-1)
        my_s = F32(0.0)
        total = F32(0.0)
        for k in cutlass.range_constexpr(TOPK):
            best = F32(NEG_INF)
            where = I32(1 << 30)
            for i in cutlass.range_constexpr(8):
                better = v[i] > best
                best = cutlass.select_(better, v[i], best)
                where = cutlass.select_(better, lane * 8 + i, where)
            for o in cutlass.range_constexpr(5):
                ob = cute.arch.shuffle_sync_bfly(best, 16 >> o)
                ow = cute.arch.shuffle_sync_bfly(where, 16 >> o)
                take = (ob > best) | ((ob == best) & (ow < where))
                best = cutlass.select_(take, ob, best)
                where = cutlass.select_(take, ow, where)
            sv = F32(0.0)
            for i in cutlass.range_constexpr(8):
                hit = where == lane * 8 + i
                sv = cutlass.select_(hit, s[i], sv)
                v[i] = cutlass.select_(hit, F32(NEG_INF), v[i])
            sv = cute.arch.shuffle_sync(sv, where >> 3)
            total = total + sv
            if lane == k:
                my_e = where
                my_s = sv
        if lane < TOPK:
            slot = I32(-1)
            le = my_e - OFFSET
            if le >= 0:
                if le < L:
                    pos = cute.arch.atomic_add(gcount.iterator + le, I32(1))
                    glist[le * tokens + pos] = t
                    gpw[le * tokens + pos] = my_s / (total + F32(1e-20)) * F32(SCALING)
                    slot = le * tokens + pos
            gpair[t * TOPK + lane] = slot


@cute.kernel
def offsets_kernel(count: cute.Pointer, off: cute.Pointer):
    gcount = cute.make_tensor(count, cute.make_layout(L))
    goff = cute.make_tensor(off, cute.make_layout(L + 1))
    if cute.arch.thread_idx()[0] == 0:
        o = I32(0)
        for e in cutlass.range_constexpr(L):
            goff[e] = o
            o = o + gcount[e]
        goff[L] = o


@cute.kernel
def gemm1_swiglu(hidden: cute.Pointer, hs_scale: cute.Pointer, w13: cute.Pointer, s13: cute.Pointer,
                 count: cute.Pointer, lst: cute.Pointer, off: cute.Pointer, inter: cute.Pointer,
                 tokens: cutlass.Int32):
    tid = cute.arch.thread_idx()[0]
    warp = tid >> 5
    lane = tid & 31
    g = lane >> 2
    q = lane & 3
    gcount = cute.make_tensor(count, cute.make_layout(L))
    glist = cute.make_tensor(lst, cute.make_layout(L * T))
    goff = cute.make_tensor(off, cute.make_layout(L + 1))
    gh = cute.make_tensor(hidden, cute.make_layout((T, KB1, 8, 16), stride=(H, 128, 16, 1)))
    ghs = cute.make_tensor(hs_scale, cute.make_layout((KB1, T, 1), stride=(T, 1, 1)))
    gw = cute.make_tensor(w13, cute.make_layout((L * 2 * I, KB1, 8, 16), stride=(H, 128, 16, 1)))
    gsw = cute.make_tensor(s13, cute.make_layout((L, 2 * I // 128, KB1), stride=(2 * I // 128 * KB1, KB1, 1)))
    gout = cute.make_tensor(cute.recast_ptr(inter, dtype=U32), cute.make_layout((NP, I // 2), stride=(I // 2, 1)))
    base = cute.arch.get_dyn_smem(F8, alignment=1024)
    sA = cute.make_tensor(base, cute.make_layout((ST1, 128, 8, 16), stride=(STAGE1, 128, 16, 1)))
    sB = cute.make_tensor(base + 16384, cute.make_layout((ST1, 128, 8, 16), stride=(STAGE1, 128, 16, 1)))
    sS = cute.make_tensor(cute.recast_ptr(base + 32768, dtype=F32),
                          cute.make_layout((ST1, 128, 1), stride=(STAGE1 // 4, 1, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sA32 = cute.make_tensor(base32, cute.make_layout((ST1, 128, 8, 4), stride=(STAGE1 // 4, 32, 4, 1)))
    sB32 = cute.make_tensor(base32 + 4096, cute.make_layout((ST1, 128, 8, 4), stride=(STAGE1 // 4, 32, 4, 1)))
    tok = cute.make_tensor(cute.arch.alloc_smem(I32, 128), cute.make_layout(128))
    cpa = cute.make_copy_atom(cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), F8, num_bits_per_copy=128)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)

    e, m0, nt_id = locate(gcount, I // 64)
    if e >= 0:                              # the same on every thread of the CTA
        n0 = nt_id * 64
        rows = cutlass.min(128, gcount[e] - m0)
        if tid < 128:
            tok[tid] = glist[e * tokens + m0 + cutlass.min(tid, rows - 1)]
        cute.arch.sync_threads()
        acc = cute.make_rmem_tensor(cute.make_layout((2, 8, 4), stride=(32, 4, 1)), F32)
        acc.fill(0.0)
        wm = (warp >> 1) * 32
        wn = (warp & 1) * 64
        up_blk = n0 // 128
        gate_blk = (I + n0) // 128
        for st in cutlass.range_constexpr(ST1 - 1):
            load_stage1(gh, ghs, gw, sA, sB, sS, tok, e, n0, st, st, tid)
            cute.arch.cp_async_commit_group()
        for kb in cutlass.range(KB1):
            cute.arch.cp_async_wait_group(ST1 - 2)
            cute.arch.sync_threads()
            nxt = kb + ST1 - 1
            if nxt < KB1:
                load_stage1(gh, ghs, gw, sA, sB, sS, tok, e, n0, nxt % ST1, nxt, tid)
            cute.arch.cp_async_commit_group()
            slot = kb % ST1
            su = gsw[e, up_blk, kb]
            sg = gsw[e, gate_blk, kb]
            for half in cutlass.range(2, unroll=1):
                rb = cute.make_rmem_tensor(cute.make_layout((8, 4), stride=(4, 1)), U32)
                for nt in cutlass.range_constexpr(8):
                    r = wn + nt * 8 + g
                    cute.copy(c128, sB32[slot, r, swz128(r, q + 4 * half), None], rb[nt, None])
                for mt in cutlass.range_constexpr(2):
                    ra = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
                    r0 = wm + mt * 16 + g
                    cute.copy(c128, sA32[slot, r0, swz128(r0, q + 4 * half), None], ra[0, None])
                    cute.copy(c128, sA32[slot, r0 + 8, swz128(r0 + 8, q + 4 * half), None], ra[1, None])
                    part = cute.make_rmem_tensor(cute.make_layout((8, 4), stride=(4, 1)), F32)
                    part.fill(0.0)
                    for nt in cutlass.range_constexpr(8):
                        for s2 in cutlass.range_constexpr(2):
                            d0, d1, d2, d3 = mma_e4m3(part[nt, 0], part[nt, 1], part[nt, 2], part[nt, 3],
                                                      ra[0, 2 * s2], ra[1, 2 * s2], ra[0, 2 * s2 + 1],
                                                      ra[1, 2 * s2 + 1], rb[nt, 2 * s2], rb[nt, 2 * s2 + 1])
                            part[nt, 0] = d0
                            part[nt, 1] = d1
                            part[nt, 2] = d2
                            part[nt, 3] = d3
                    a0 = sS[slot, r0, 0]
                    a1 = sS[slot, r0 + 8, 0]
                    for nt in cutlass.range_constexpr(8):
                        ws = sg if nt % 2 == 1 else su
                        f0 = a0 * ws
                        f1 = a1 * ws
                        acc[mt, nt, 0] = acc[mt, nt, 0] + part[nt, 0] * f0
                        acc[mt, nt, 1] = acc[mt, nt, 1] + part[nt, 1] * f0
                        acc[mt, nt, 2] = acc[mt, nt, 2] + part[nt, 2] * f1
                        acc[mt, nt, 3] = acc[mt, nt, 3] + part[nt, 3] * f1
        cute.arch.cp_async_wait_group(0)
        row_base = goff[e] + m0
        for mt in cutlass.range_constexpr(2):
            for hh in cutlass.range_constexpr(2):
                r = wm + mt * 16 + g + 8 * hh
                if r < rows:
                    for j in cutlass.range_constexpr(4):
                        u0 = acc[mt, 2 * j, 2 * hh]
                        u1 = acc[mt, 2 * j, 2 * hh + 1]
                        g0 = acc[mt, 2 * j + 1, 2 * hh]
                        g1 = acc[mt, 2 * j + 1, 2 * hh + 1]
                        h0 = g0 / (F32(1.0) + cute.math.exp(-g0)) * u0
                        h1 = g1 / (F32(1.0) + cute.math.exp(-g1)) * u1
                        gout[row_base + r, (n0 + wn // 2 + 8 * j) // 2 + q] = pack_bf16x2(h0, h1)


@cute.jit
def load_stage1(gh: cute.Tensor, ghs: cute.Tensor, gw: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor,
                sS: cute.Tensor, tok: cute.Tensor, e, n0, slot, kb, tid):
    """Stage `slot` <- K block kb: the 128 gathered token rows, the 128 interleaved W13 rows (B row r: up
    row n0 + (r / 16) * 8 + r % 8 when (r / 8) is even, the same gate row (+ I) when odd), the scales."""
    cpa = cute.make_copy_atom(cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), F8, num_bits_per_copy=128)
    for i in cutlass.range_constexpr(4):
        c = tid + 256 * i
        r = c >> 3
        ch = c & 7
        cute.copy(cpa, gh[tok[r], kb, ch, None], sA[slot, r, swz128(r, ch), None])
        wrow = ((r >> 3) & 1) * I + n0 + (r >> 4) * 8 + (r & 7)
        cute.copy(cpa, gw[e * (2 * I) + wrow, kb, ch, None], sB[slot, r, swz128(r, ch), None])
    if tid < 128:
        cp_async4(sS[slot, tid, None].iterator, ghs[kb, tok[tid], None].iterator)


@cute.jit
def load_stage2(gi: cute.Tensor, gw: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, row0, rows, wrow0, slot,
                kb, tid):
    cpa = cute.make_copy_atom(cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), BF16,
                              num_bits_per_copy=128)
    cpb = cute.make_copy_atom(cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), F8, num_bits_per_copy=128)
    for i in cutlass.range_constexpr(8):
        c = tid + 256 * i
        r = c >> 4
        ch = c & 15
        cute.copy(cpa, gi[row0 + cutlass.min(r, rows - 1), kb, ch, None], sA[slot, r, swz256(r, ch), None])
    for i in cutlass.range_constexpr(4):
        c = tid + 256 * i
        r = c >> 3
        ch = c & 7
        cute.copy(cpb, gw[wrow0 + r, kb, ch, None], sB[slot, r, swz128(r, ch), None])


@cute.kernel
def gemm2_weighted(inter: cute.Pointer, w2: cute.Pointer, s2: cute.Pointer, count: cute.Pointer, pw: cute.Pointer,
                   off: cute.Pointer, y: cute.Pointer, tokens: cutlass.Int32):
    tid = cute.arch.thread_idx()[0]
    warp = tid >> 5
    lane = tid & 31
    g = lane >> 2
    q = lane & 3
    gcount = cute.make_tensor(count, cute.make_layout(L))
    gpw = cute.make_tensor(pw, cute.make_layout(L * T))
    goff = cute.make_tensor(off, cute.make_layout(L + 1))
    gi = cute.make_tensor(inter, cute.make_layout((NP, KB2, 16, 8), stride=(I, 128, 8, 1)))
    gw = cute.make_tensor(w2, cute.make_layout((L * H, KB2, 8, 16), stride=(I, 128, 16, 1)))
    gs2 = cute.make_tensor(s2, cute.make_layout((L, H // 128, KB2), stride=(H // 128 * KB2, KB2, 1)))
    gy = cute.make_tensor(cute.recast_ptr(y, dtype=U32), cute.make_layout((NP, H // 2), stride=(H // 2, 1)))
    base = cute.arch.get_dyn_smem(F8, alignment=1024)
    sA = cute.make_tensor(cute.recast_ptr(base, dtype=BF16),
                          cute.make_layout((ST2, 128, 16, 8), stride=(STAGE2 // 2, 128, 8, 1)))
    sB = cute.make_tensor(base + 32768, cute.make_layout((ST2, 128, 8, 16), stride=(STAGE2, 128, 16, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sA32 = cute.make_tensor(base32, cute.make_layout((ST2, 128, 16, 4), stride=(STAGE2 // 4, 64, 4, 1)))
    sB32 = cute.make_tensor(base32 + 8192, cute.make_layout((ST2, 128, 8, 4), stride=(STAGE2 // 4, 32, 4, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)

    e, m0, nt_id = locate(gcount, H // 128)
    if e >= 0:
        n0 = nt_id * 128
        rows = cutlass.min(128, gcount[e] - m0)
        row0 = goff[e] + m0
        wrow0 = e * H + n0
        acc = cute.make_rmem_tensor(cute.make_layout((2, 8, 4), stride=(32, 4, 1)), F32)
        acc.fill(0.0)
        wm = (warp >> 1) * 32
        wn = (warp & 1) * 64
        for st in cutlass.range_constexpr(ST2 - 1):
            load_stage2(gi, gw, sA, sB, row0, rows, wrow0, st, st, tid)
            cute.arch.cp_async_commit_group()
        for kb in cutlass.range(KB2):
            cute.arch.cp_async_wait_group(ST2 - 2)
            cute.arch.sync_threads()
            nxt = kb + ST2 - 1
            if nxt < KB2:
                load_stage2(gi, gw, sA, sB, row0, rows, wrow0, nxt % ST2, nxt, tid)
            cute.arch.cp_async_commit_group()
            slot = kb % ST2
            ws = gs2[e, nt_id, kb]
            # A: rows g and g + 8 of each m tile, chunks 2q, 2q + 1, 8 + 2q, 9 + 2q (32 bf16: 8 k16 steps)
            ra = cute.make_rmem_tensor(cute.make_layout((2, 2, 4, 4), stride=(32, 16, 4, 1)), U32)
            for mt in cutlass.range_constexpr(2):
                for hh in cutlass.range_constexpr(2):
                    r = wm + mt * 16 + g + 8 * hh
                    for j in cutlass.range_constexpr(4):
                        cute.copy(c128, sA32[slot, r, swz256(r, (j >> 1) * 8 + 2 * q + (j & 1)), None],
                                  ra[mt, hh, j, None])
            for nt in cutlass.range_constexpr(8):
                r = wn + nt * 8 + g
                rb = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
                cute.copy(c128, sB32[slot, r, swz128(r, q), None], rb[0, None])
                cute.copy(c128, sB32[slot, r, swz128(r, q + 4), None], rb[1, None])
                for s in cutlass.range_constexpr(8):
                    f0, f1, f2, f3 = e4m3x4_to_f32(rb[s // 4, s % 4])     # 4 fp8: physical k p0..p3
                    b0 = pack_bf16x2(f0 * ws, f1 * ws)
                    b1 = pack_bf16x2(f2 * ws, f3 * ws)
                    for mt in cutlass.range_constexpr(2):
                        w0 = (s % 2) * 2
                        d0, d1, d2, d3 = mma_bf16(acc[mt, nt, 0], acc[mt, nt, 1], acc[mt, nt, 2], acc[mt, nt, 3],
                                                  ra[mt, 0, s // 2, w0], ra[mt, 1, s // 2, w0],
                                                  ra[mt, 0, s // 2, w0 + 1], ra[mt, 1, s // 2, w0 + 1], b0, b1)
                        acc[mt, nt, 0] = d0
                        acc[mt, nt, 1] = d1
                        acc[mt, nt, 2] = d2
                        acc[mt, nt, 3] = d3
        cute.arch.cp_async_wait_group(0)
        for mt in cutlass.range_constexpr(2):
            for hh in cutlass.range_constexpr(2):
                r = wm + mt * 16 + g + 8 * hh
                if r < rows:
                    wgt = gpw[e * tokens + m0 + r]
                    for nt in cutlass.range_constexpr(8):
                        gy[row0 + r, (n0 + wn + 8 * nt) // 2 + q] = pack_bf16x2(acc[mt, nt, 2 * hh] * wgt,
                                                                              acc[mt, nt, 2 * hh + 1] * wgt)


@cute.kernel
def combine_kernel(y: cute.Pointer, pair_of: cute.Pointer, off: cute.Pointer, out: cute.Pointer,
                   tokens: cutlass.Int32):
    gy = cute.make_tensor(y, cute.make_layout((NP, H // 8, 8), stride=(H, 8, 1)))
    go = cute.make_tensor(out, cute.make_layout((T, H // 8, 8), stride=(H, 8, 1)))
    gpair = cute.make_tensor(pair_of, cute.make_layout(NP))
    goff = cute.make_tensor(off, cute.make_layout(L + 1))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    n = tokens * (H // 8)
    start = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    step = cute.arch.grid_dim()[0] * 256
    for i in cutlass.range(start, n, step):
        t = i // (H // 8)
        c = i % (H // 8)
        acc = cute.make_rmem_tensor((8,), F32)
        acc.fill(0.0)
        for k in cutlass.range_constexpr(TOPK):
            p = gpair[t * TOPK + k]
            if p >= 0:
                row = goff[p // tokens] + p % tokens
                rv = cute.make_rmem_tensor((8,), BF16)
                cute.copy(c16, gy[row, c, None], rv)
                acc.store(acc.load() + rv.load().to(F32))
        ro = cute.make_rmem_tensor((8,), BF16)
        ro.store(acc.load().to(BF16))
        cute.copy(c16, ro, go[t, c, None])


MKB_PLAN = """/* mkb:plan
scratch count int32[num_local_experts] zeroed
scratch list int32[num_local_experts * seq_len]
scratch pw fp32[num_local_experts * seq_len]
scratch pair_of int32[seq_len * top_k]
scratch off int32[num_local_experts + 1]
scratch inter bf16[seq_len * top_k * intermediate_size]
scratch y bf16[seq_len * top_k * hidden_size]
launch route_kernel grid(ceil_div(seq_len * 32, 256)) block(256)
  args(routing_logits, routing_bias, count, list, pw, pair_of, i32(seq_len))
launch offsets_kernel grid(1) block(32) args(count, off)
launch gemm1_swiglu grid((ceil_div(seq_len * top_k, 128) + num_local_experts) * (intermediate_size / 64)) block(256) shared(133120)
  args(hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale, count, list, off, inter, i32(seq_len))
launch gemm2_weighted grid((ceil_div(seq_len * top_k, 128) + num_local_experts) * (hidden_size / 128)) block(256) shared(147456)
  args(inter, gemm2_weights, gemm2_weights_scale, count, pw, off, y, i32(seq_len))
launch combine_kernel grid(8192) block(256) args(y, pair_of, off, output, i32(seq_len))
*/"""
