"""capacity_factor_expert_dispatch_qwen3_coder_480b_bf16 in CuTe DSL: the algorithm of solutions/cuda.cu.
Only admitted rows are computed, never the zero padding.
  1. admit_kernel: a 1024-thread block per expert walks the tokens in ascending order (a block scan of
     hits: warp inclusive scans by shfl.up, then a scan of the 32 warp sums); the first `capacity` get a
     row of the expert's buffer with their bf16 weight (as fp32), every (token, slot) learns its row or -1;
  2. gate_up_kernel: one grouped bf16 GEMM computes gate and up together for the admitted rows (A rows
     gathered straight from hidden_states, B tiles of 64 gate + 64 up columns interleaved by 8) and writes
     h = silu(gate) * up rounded to bf16 once;
  3. down_kernel: the same engine, y = (h @ Wd) * weight, rounded to bf16 once;
  4. combine_kernel: per token, its admitted rows summed in fp32 in slot order, rounded once.
GEMM engine (the cuda solution's): 128 x 128 tiles, K steps of 64, 3 cp.async stages in XOR-swizzled
shared memory, 4 warps of 64 x 64, mma.sync m16n8k16 bf16 with fp32 accumulation (inline PTX); A
fragments by ldmatrix, B ([expert, in, out]: k-rows of n-contiguous data) by ldmatrix.trans. CTAs run
expert by expert, n tile by n tile, m tile fastest; thread 0 finds its tile (the DSL has no early exit:
a CTA past the last tile skips the body). The weights exceed 2^31 elements: each expert's slab is
addressed from a 64-bit offset pointer. Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

F32, BF16 = cutlass.Float32, cutlass.BFloat16
I32, I64, U32, U8 = cutlass.Int32, cutlass.Int64, cutlass.Uint32, cutlass.Uint8

T = 8192             # num_tokens
H = 6144             # hidden_size
I = 2560             # moe_intermediate_size
E = 160              # num_experts
TOPK = 8
CAP = 512            # capacity = int(T * 8 / E * 1.25)
STAGES, STAGE = 3, 32768
assert CAP == int(T * TOPK / E * 1.25) and STAGES * STAGE == 98304
assert E * CAP * H < 2 ** 31 and T * H < 2 ** 31 and H * I < 2 ** 31


@cute.jit
def cp_async16(dst_smem, src_gmem):
    cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                         read_only_args=[dst_smem.toint(), src_gmem.toint()])


@cute.jit
def ldsm4(addr_smem):
    return cute.arch.inline_ptx("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
                                write_only_types=[U32] * 4, read_only_args=[addr_smem.toint()])


@cute.jit
def ldsm4t(addr_smem):
    return cute.arch.inline_ptx(
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
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
def swz_a(r, c):
    """Byte offset of chunk c of row r of an A tile (128 rows x 128 bytes)."""
    return r * 128 + ((c ^ (r & 7)) << 4)


@cute.jit
def swz_b(r, c):
    """Byte offset of chunk c (0..15) of k-row r of a B tile (64 k-rows x 256 bytes)."""
    return r * 256 + ((c ^ (r & 7)) << 4)


@cute.jit
def grouped_gemm(a: cute.Pointer, a_index: cute.Pointer, b0: cute.Pointer, b1: cute.Pointer, count: cute.Pointer,
                 c: cute.Pointer, rowscale: cute.Pointer, swiglu: cutlass.Constexpr, N: cutlass.Constexpr,
                 K: cutlass.Constexpr):
    """Expert e owns rows e * CAP .. e * CAP + count[e]; the A row of row p is A[a_index[p]] (swiglu) or
    A[p]; B = B0 + e * K * N ([K][N], N contiguous), for gate/up also B1."""
    TILE_N = 64 if swiglu else 128
    NT = N // TILE_N
    KT = K // 64
    tid = cute.arch.thread_idx()[0]
    warp = tid >> 5
    lane = tid & 31
    gcount = cute.make_tensor(count, cute.make_layout(E))
    info = cute.make_tensor(cute.arch.alloc_smem(I32, 4), cute.make_layout(4))
    arow = cute.make_tensor(cute.arch.alloc_smem(I32, 128), cute.make_layout(128))
    sbase = cute.arch.get_dyn_smem(U8, alignment=1024)
    if tid == 0:
        rem = cute.arch.block_idx()[0]
        ef = I32(-1)
        m0f = I32(-1)
        n0f = I32(0)
        for e in cutlass.range(E):
            mt = (gcount[e] + 127) // 128
            if ef < 0:
                if rem < mt * NT:
                    ef = e
                    n0f = (rem // mt) * TILE_N
                    m0f = (rem % mt) * 128
                else:
                    rem = rem - mt * NT
        info[0] = ef
        info[1] = m0f
        info[2] = n0f
    cute.arch.sync_threads()
    e = info[0]
    m0 = info[1]
    n0 = info[2]
    if m0 >= 0:                                  # the same on every thread of the CTA
        rows = cutlass.min(128, gcount[e] - m0)
        row0 = e * CAP + m0
        p = row0 + cutlass.min(tid, rows - 1)
        if cutlass.const_expr(swiglu):
            arow[tid] = cute.make_tensor(a_index, cute.make_layout(E * CAP))[p]
        else:
            arow[tid] = p
        cute.arch.sync_threads()
        pb0 = b0 + I64(e) * (K * N)             # the expert's [K][N] slab (the weights pass 2^31 elements)
        pb1 = b1 + I64(e) * (K * N)
        acc = cute.make_rmem_tensor(cute.make_layout((4, 8, 4), stride=(32, 4, 1)), F32)
        acc.fill(0.0)
        for st in cutlass.range_constexpr(STAGES - 1):
            load_stage(a, pb0, pb1, arow, sbase, st, st * 64, n0, tid, swiglu, N, K)
            cute.arch.cp_async_commit_group()
        wm = (warp >> 1) * 64
        wn = (warp & 1) * 64
        mi = lane >> 3
        for kt in cutlass.range(KT):
            cute.arch.cp_async_wait_group(STAGES - 2)
            cute.arch.sync_threads()
            nxt = kt + STAGES - 1
            if nxt < KT:
                load_stage(a, pb0, pb1, arow, sbase, nxt % STAGES, nxt * 64, n0, tid, swiglu, N, K)
            cute.arch.cp_async_commit_group()
            sa = sbase + (kt % STAGES) * STAGE
            sb = sa + 16384
            for ks in cutlass.range_constexpr(4):
                ra = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
                rb = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
                for mt in cutlass.range_constexpr(4):
                    x0, x1, x2, x3 = ldsm4(sa + swz_a(wm + mt * 16 + (lane & 15), ks * 2 + (lane >> 4)))
                    ra[mt, 0] = x0
                    ra[mt, 1] = x1
                    ra[mt, 2] = x2
                    ra[mt, 3] = x3
                for np_ in cutlass.range_constexpr(4):
                    y0, y1, y2, y3 = ldsm4t(sb + swz_b(ks * 16 + (mi & 1) * 8 + (lane & 7),
                                                       wn // 8 + np_ * 2 + (mi >> 1)))
                    rb[np_, 0] = y0
                    rb[np_, 1] = y1
                    rb[np_, 2] = y2
                    rb[np_, 3] = y3
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
        gc = cute.make_tensor(cute.recast_ptr(c, dtype=U32), cute.make_layout((E * CAP, N // 2), stride=(N // 2, 1)))
        for mt in cutlass.range_constexpr(4):
            for hh in cutlass.range_constexpr(2):
                r = wm + mt * 16 + gq + 8 * hh
                if r < rows:
                    crow = row0 + r
                    if cutlass.const_expr(swiglu):
                        for j in cutlass.range_constexpr(4):
                            g0 = acc[mt, 2 * j, 2 * hh]
                            g1 = acc[mt, 2 * j, 2 * hh + 1]
                            u0 = acc[mt, 2 * j + 1, 2 * hh]
                            u1 = acc[mt, 2 * j + 1, 2 * hh + 1]
                            gc[crow, (n0 + wn // 2 + 8 * j) // 2 + q] = pack_bf16x2(
                                g0 / (F32(1.0) + cute.math.exp(-g0)) * u0, g1 / (F32(1.0) + cute.math.exp(-g1)) * u1)
                    else:
                        s = cute.make_tensor(rowscale, cute.make_layout(E * CAP))[crow]
                        for nt in cutlass.range_constexpr(8):
                            gc[crow, (n0 + wn + 8 * nt) // 2 + q] = pack_bf16x2(acc[mt, nt, 2 * hh] * s,
                                                                              acc[mt, nt, 2 * hh + 1] * s)


@cute.jit
def load_stage(a, pb0, pb1, arow: cute.Tensor, sbase, slot, k0, n0, tid, swiglu: cutlass.Constexpr,
               N: cutlass.Constexpr, K: cutlass.Constexpr):
    """Stage `slot` <- k rows k0 .. k0 + 63: the 128 gathered A rows (64 columns each) and the B tile (64
    k-rows of 128 columns: gate/up chunks alternate by 8 columns when swiglu)."""
    sa = sbase + slot * STAGE
    sb = sa + 16384
    for i in cutlass.range_constexpr(8):
        c = tid + 128 * i
        r = c >> 3
        ch = c & 7
        cp_async16(sa + swz_a(r, ch), a + (arow[r] * K + k0 + ch * 8))
        kr = c >> 4
        bc = c & 15
        if cutlass.const_expr(swiglu):
            off = (k0 + kr) * N + n0 + (bc >> 1) * 8
            src = pb0 + off
            if (bc & 1) == 1:
                src = pb1 + off
            cp_async16(sb + swz_b(kr, bc), src)
        else:
            cp_async16(sb + swz_b(kr, bc), pb0 + ((k0 + kr) * N + n0 + bc * 8))


@cute.kernel
def admit_kernel(sel: cute.Pointer, routing_weights: cute.Pointer, count: cute.Pointer, adm_tok: cute.Pointer,
                 adm_w: cute.Pointer, slot: cute.Pointer, tokens: cutlass.Int32, cap: cutlass.Int32):
    tid = cute.arch.thread_idx()[0]
    e = cute.arch.block_idx()[0]
    lane = tid & 31
    warp = tid >> 5
    gsel = cute.make_tensor(sel, cute.make_layout((T, 4, 2), stride=(TOPK, 2, 1)))
    grw = cute.make_tensor(routing_weights, cute.make_layout(T * TOPK))
    gcount = cute.make_tensor(count, cute.make_layout(E))
    gtok = cute.make_tensor(adm_tok, cute.make_layout(E * CAP))
    gw = cute.make_tensor(adm_w, cute.make_layout(E * CAP))
    gslot = cute.make_tensor(slot, cute.make_layout(T * TOPK))
    warp_sums = cute.make_tensor(cute.arch.alloc_smem(I32, 32), cute.make_layout(32))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), I64, num_bits_per_copy=128)
    base = I32(0)                    # the same in every thread: each adds the same warp_sums[31]
    for t0 in cutlass.range(0, tokens, 1024):
        t = t0 + tid
        hit = I32(0)
        kk = I32(0)
        if t < tokens:
            v = cute.make_rmem_tensor(cute.make_layout((4, 2), stride=(2, 1)), I64)
            for j in cutlass.range_constexpr(4):
                cute.copy(c16, gsel[t, j, None], v[j, None])
            for k in cutlass.range_constexpr(TOPK):
                m = v[k // 2, k % 2] == I64(e)
                hit = cutlass.select_(m, I32(1), hit)
                kk = cutlass.select_(m, I32(k), kk)
        incl = hit
        for o in cutlass.range_constexpr(5):
            n = cute.arch.shuffle_sync_up(incl, 1 << o)
            incl = cutlass.select_(lane >= (1 << o), incl + n, incl)
        if lane == 31:
            warp_sums[warp] = incl
        cute.arch.sync_threads()
        if warp == 0:
            ws = warp_sums[lane]
            for o in cutlass.range_constexpr(5):
                n = cute.arch.shuffle_sync_up(ws, 1 << o)
                ws = cutlass.select_(lane >= (1 << o), ws + n, ws)
            warp_sums[lane] = ws
        cute.arch.sync_threads()
        before = I32(0)
        if warp > 0:
            before = warp_sums[warp - 1]
        rank = base + before + incl - hit
        if hit == 1:
            if rank < cap:
                gtok[e * cap + rank] = t
                gw[e * cap + rank] = grw[t * TOPK + kk].to(F32)
                gslot[t * TOPK + kk] = e * cap + rank
            else:
                gslot[t * TOPK + kk] = I32(-1)
        base = base + warp_sums[31]
        cute.arch.sync_threads()         # warp_sums is rewritten by the next round
    if tid == 0:
        gcount[e] = cutlass.min(base, cap)


@cute.kernel
def gate_up_kernel(x: cute.Pointer, adm_tok: cute.Pointer, wg: cute.Pointer, wu: cute.Pointer, count: cute.Pointer,
                   h: cute.Pointer, cap: cutlass.Int32):
    grouped_gemm(x, adm_tok, wg, wu, count, h, adm_tok, True, I, H)


@cute.kernel
def down_kernel(h: cute.Pointer, wd: cute.Pointer, count: cute.Pointer, adm_w: cute.Pointer, y: cute.Pointer,
                cap: cutlass.Int32):
    grouped_gemm(h, count, wd, wd, count, y, adm_w, False, H, I)


@cute.kernel
def combine_kernel(y: cute.Pointer, slot: cute.Pointer, out: cute.Pointer, tokens: cutlass.Int32):
    gy = cute.make_tensor(y, cute.make_layout((E * CAP, H // 8, 8), stride=(H, 8, 1)))
    go = cute.make_tensor(out, cute.make_layout((T, H // 8, 8), stride=(H, 8, 1)))
    gslot = cute.make_tensor(slot, cute.make_layout(T * TOPK))
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
            p = gslot[t * TOPK + k]
            if p >= 0:
                rv = cute.make_rmem_tensor((8,), BF16)
                cute.copy(c16, gy[p, c, None], rv)
                acc.store(acc.load() + rv.load().to(F32))
        ro = cute.make_rmem_tensor((8,), BF16)
        ro.store(acc.load().to(BF16))
        cute.copy(c16, ro, go[t, c, None])


MKB_PLAN = """/* mkb:plan
scratch count int32[num_experts]
scratch adm_tok int32[num_experts * capacity]
scratch adm_w fp32[num_experts * capacity]
scratch slot int32[num_tokens * num_experts_per_tok]
scratch h bf16[num_experts * capacity * moe_intermediate_size]
scratch y bf16[num_experts * capacity * hidden_size]
launch admit_kernel grid(num_experts) block(1024)
  args(selected_experts, routing_weights, count, adm_tok, adm_w, slot, i32(num_tokens), i32(capacity))
launch gate_up_kernel grid(num_experts * capacity / 128 * (moe_intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, adm_tok, expert_gate_weights, expert_up_weights, count, h, i32(capacity))
launch down_kernel grid(num_experts * capacity / 128 * (hidden_size / 128)) block(128) shared(98304)
  args(h, expert_down_weights, count, adm_w, y, i32(capacity))
launch combine_kernel grid(8192) block(256) args(y, slot, output, i32(num_tokens))
*/"""
