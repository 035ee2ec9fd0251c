"""Gemma 3 attention-core backward (#10), fp32, in CuTe DSL: the launches and plan of solutions/cuda.cu.
Every product is one batched 3xTF32 GEMM (mma.sync m16n8k8 as inline PTX; each fp32 operand split into
hi = (bits + 0x1000) & 0xffffe000 and lo = v - hi, the MMA truncating lo; per product lo*hi', hi*lo',
hi*hi'; every 32-wide k tile summed into a fresh partial accumulator that is added to the main one with an
ordinary fp32 add), with per-batch operand offsets (z / zdiv) * so + ((z % zdiv) / rep) * si that read
the heads straight out of the projections' [tokens, heads * D] layout (a query head h reads kv head h / 3)
and K split into segments of kseg (a_seg, b_seg apart) that sum the 3 query heads of a kv head inside one
GEMM (dK, dV). 128 x 128 block tiles, 8 warps as 2 (M) x 4 (N) of 64 x 32, BK = 32, 4-stage cp.async
ring (inline PTX), K-contiguous tiles padded to 36 floats and M/N-contiguous ones to 136. Three entry
points as in the cuda solution: gemm_nt (A [M, K], B stored [N, K]), gemm_nn (B [K, N]), gemm_tn (A stored
[K, M]); the epilogue mode at run time: 0 C = acc, 1 C += acc, 2 C = tanh(alpha * acc) (tanhf as tanh in
Float64 rounded once). A launch whose shapes do not fit the tiling writes nothing, as in the cuda solution.
The per-row kernels: fwd_norm_rope (RMSNorm (1 + w) and RoPE, a warp per (token, head) row),
softmax_fwd (causal softmax of cap * tt), softmax_bwd (dS = scaling (1 - tt^2) P (dP - sum dP P) in
place), bwd_norm_rope (RoPE and RMSNorm backward in place, per-block partial column sums of d_n x_hat)
and colsum_final. Their fp32 arithmetic is the cuda solution's in its order, with fma.rn.f32 (inline PTX)
where nvcc contracts a product into a following add or subtract (the sums of squares and dot products,
rsqrt's argument, the rotary pairs, 1 - t^2, the row-norm backward) and nowhere else (PTX read back);
expf is computed in Float64 and rounded once; rsqrtf is rsqrt.approx.f32 as in CUDA.
Compile-checked only (no GPU run)."""
import cutlass
import cutlass.cute as cute

D = 128
BM, BN, BK, STAGES, THREADS = 128, 128, 32, 4, 256
KPAD = BK + 4                    # row stride (floats) of a K-contiguous tile
MPAD = BM + 8                    # row stride (floats) of an M/N-contiguous tile
TILE = BM * KPAD                 # 4608 >= BK * MPAD = 4352
STAGE = 2 * TILE
SMEM = STAGES * STAGE * 4        # 147456: the plan's shared(147456)
F32, F64, I32, I64, U32 = cutlass.Float32, cutlass.Float64, cutlass.Int32, cutlass.Int64, cutlass.Uint32
NEG_INF = float("-inf")
assert SMEM == 147456 and BK * MPAD <= TILE


@cute.jit
def fma_rn(a, b, c):
    return cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                read_only_args=[a, b, c])


@cute.jit
def cp_async16(dst_smem, src_gmem):
    cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                         read_only_args=[dst_smem.toint(), src_gmem.toint()])


@cute.jit
def split(v):
    """hi = v rounded to TF32 (to nearest, ties away), lo = v - hi (exact; the MMA reads its top bits)."""
    hi = cute.arch.inline_ptx("{ .reg .b32 sp_t; add.u32 sp_t, {$r0}, 4096; and.b32 {$w0}, sp_t, -8192; }",
                              write_only_types=[U32], read_only_args=[v])
    lo = cute.arch.inline_ptx("{ .reg .f32 sp_h; mov.b32 sp_h, {$r1}; sub.rn.f32 {$w0}, {$r0}, sp_h; }",
                              write_only_types=[U32], read_only_args=[v, hi])
    return hi, lo


@cute.jit
def mma_tf32(part, i, j, a0, a1, a2, a3, b0, b1):
    r0, r1, r2, r3 = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4,
        read_only_args=[a0, a1, a2, a3, b0, b1, part[i, j, 0], part[i, j, 1], part[i, j, 2], part[i, j, 3]])
    part[i, j, 0] = r0
    part[i, j, 1] = r1
    part[i, j, 2] = r2
    part[i, j, 3] = r3


@cute.jit
def load_tile(sflat, soff, g, ld, row0, k0, tid, K_MAJOR: cutlass.Constexpr):
    """One 128 x 32 tile. K_MAJOR: (r, k) at g[(row0 + r) * ld + k0 + k] -> s[r * KPAD + k];
    else (r, k) at g[(k0 + k) * ld + row0 + r] -> s[k * MPAD + r]."""
    for i in cutlass.range_constexpr(4):
        c = tid + i * THREADS
        if cutlass.const_expr(K_MAJOR):
            r = c // 8
            k = c % 8 * 4
            cp_async16(sflat + (soff + r * KPAD + k), g + (I64(row0 + r) * ld + k0 + k))
        else:
            k = c // 32
            r = c % 32 * 4
            cp_async16(sflat + (soff + k * MPAD + r), g + (I64(k0 + k) * ld + row0 + r))


@cute.jit
def frag(sm, st, off, r, k, K_MAJOR: cutlass.Constexpr):
    val = F32(0.0)
    if cutlass.const_expr(K_MAJOR):
        val = sm[st, off + r * KPAD + k]
    else:
        val = sm[st, off + k * MPAD + r]
    return val


@cute.jit
def batch_off(z, zdiv, so, si, rep):
    return I64(z // zdiv) * so + I64((z % zdiv) // rep) * si


@cute.jit
def gemm_body(a, b, c, M, N, K, kseg, lda, ldb, ldc, zdiv, a_so, a_si, a_rep, a_seg, b_so, b_si, b_rep, b_seg,
              c_so, c_si, c_rep, mode, alpha, A_K: cutlass.Constexpr, B_K: cutlass.Constexpr):
    """C_z[M, N] (op)= A_z[M, K] B_z[K, N], K in segments of kseg (segment s of A a_seg floats after
    segment 0, of B b_seg, k restarting at 0)."""
    gx, gy, z = cute.arch.block_idx()
    ngx, ngy, _ = cute.arch.grid_dim()
    fits = ((M % BM == 0) & (N % BN == 0) & (K % BK == 0) & (kseg % BK == 0) & (K % kseg == 0)
            & (ngx * BN == N) & (ngy * BM == M))
    if fits:
        tid = cute.arch.thread_idx()[0]
        lane = tid % 32
        warp = tid // 32
        wm = warp // 4                     # 2 x 4 warps, each 64 x 32
        wn = warp % 4
        g = lane // 4
        t = lane % 4
        m0 = gy * BM
        n0 = gx * BN
        az = a + batch_off(z, zdiv, a_so, a_si, a_rep)
        bz = b + batch_off(z, zdiv, b_so, b_si, b_rep)
        cz = c + batch_off(z, zdiv, c_so, c_si, c_rep)
        KT = K // BK
        sflat = cute.arch.get_dyn_smem(F32, alignment=16)
        sm = cute.make_tensor(sflat, cute.make_layout((STAGES, STAGE), stride=(STAGE, 1)))
        acc = cute.make_rmem_tensor(cute.make_layout((4, 4, 4), stride=(16, 4, 1)), F32)
        part = cute.make_rmem_tensor(cute.make_layout((4, 4, 4), stride=(16, 4, 1)), F32)
        bh = cute.make_rmem_tensor(cute.make_layout((4, 2), stride=(2, 1)), U32)
        bl = cute.make_rmem_tensor(cute.make_layout((4, 2), stride=(2, 1)), U32)
        ah = cute.make_rmem_tensor((4,), U32)
        al = cute.make_rmem_tensor((4,), U32)
        acc.fill(0.0)

        for s in cutlass.range_constexpr(STAGES - 1):
            if s < KT:
                k0 = s * BK
                seg = k0 // kseg
                kk = k0 - seg * kseg
                load_tile(sflat, s * STAGE, az + I64(seg) * a_seg, lda, m0, kk, tid, A_K)
                load_tile(sflat, s * STAGE + TILE, bz + I64(seg) * b_seg, ldb, n0, kk, tid, B_K)
            cute.arch.cp_async_commit_group()

        for kt in cutlass.range(KT):
            cute.arch.cp_async_wait_group(STAGES - 2)
            cute.arch.sync_threads()
            nk = kt + STAGES - 1
            if nk < KT:
                k0 = nk * BK
                seg = k0 // kseg
                kk = k0 - seg * kseg
                st_n = nk % STAGES
                load_tile(sflat, st_n * STAGE, az + I64(seg) * a_seg, lda, m0, kk, tid, A_K)
                load_tile(sflat, st_n * STAGE + TILE, bz + I64(seg) * b_seg, ldb, n0, kk, tid, B_K)
            cute.arch.cp_async_commit_group()
            st = kt % STAGES
            part.fill(0.0)
            for ks in cutlass.range_constexpr(0, BK, 8):
                for nt in cutlass.range_constexpr(4):
                    n = wn * 32 + nt * 8 + g
                    h0, l0 = split(frag(sm, st, TILE, n, ks + t, B_K))
                    h1, l1 = split(frag(sm, st, TILE, n, ks + t + 4, B_K))
                    bh[nt, 0] = h0
                    bl[nt, 0] = l0
                    bh[nt, 1] = h1
                    bl[nt, 1] = l1
                for mt in cutlass.range_constexpr(4):
                    r = wm * 64 + mt * 16 + g
                    for e in cutlass.range_constexpr(4):
                        hv, lv = split(frag(sm, st, 0, r + (e % 2) * 8, ks + t + (e // 2) * 4, A_K))
                        ah[e] = hv
                        al[e] = lv
                    for nt in cutlass.range_constexpr(4):
                        mma_tf32(part, mt, nt, al[0], al[1], al[2], al[3], bh[nt, 0], bh[nt, 1])
                        mma_tf32(part, mt, nt, ah[0], ah[1], ah[2], ah[3], bl[nt, 0], bl[nt, 1])
                        mma_tf32(part, mt, nt, ah[0], ah[1], ah[2], ah[3], bh[nt, 0], bh[nt, 1])
            for i in cutlass.range_constexpr(4):
                for j in cutlass.range_constexpr(4):
                    for e in cutlass.range_constexpr(4):
                        acc[i, j, e] = acc[i, j, e] + part[i, j, e]
        cute.arch.cp_async_wait_group(0)

        # Fragment (mt, nt): rows g and g + 8 of the 16-row tile, columns 2t and 2t + 1 of the 8-column tile.
        c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
        o2 = cute.make_rmem_tensor((2,), F32)
        old = cute.make_rmem_tensor((2,), F32)
        for mt in cutlass.range_constexpr(4):
            for nt in cutlass.range_constexpr(4):
                for h in cutlass.range_constexpr(2):
                    row = m0 + wm * 64 + mt * 16 + g + h * 8
                    col = n0 + wn * 32 + nt * 8 + 2 * t
                    p = cute.make_tensor(cute.make_ptr(F32, (cz + (I64(row) * ldc + col)).toint(),
                                                       cute.AddressSpace.gmem, assumed_align=8), cute.make_layout(2))
                    o2[0] = acc[mt, nt, 2 * h]
                    o2[1] = acc[mt, nt, 2 * h + 1]
                    if mode == 1:
                        cute.copy(c64, p, old)
                        o2[0] = o2[0] + old[0]
                        o2[1] = o2[1] + old[1]
                    else:
                        if mode == 2:
                            o2[0] = F32(cute.math.tanh(F64(alpha * o2[0])))
                            o2[1] = F32(cute.math.tanh(F64(alpha * o2[1])))
                    cute.copy(c64, o2, p)


@cute.kernel
def gemm_nt(a: cute.Pointer, b: cute.Pointer, c: cute.Pointer, M: cutlass.Int32, N: cutlass.Int32, K: cutlass.Int32,
            kseg: cutlass.Int32, lda: cutlass.Int32, ldb: cutlass.Int32, ldc: cutlass.Int32, zdiv: cutlass.Int32,
            a_so: cutlass.Int64, a_si: cutlass.Int64, a_rep: cutlass.Int32, a_seg: cutlass.Int64,
            b_so: cutlass.Int64, b_si: cutlass.Int64, b_rep: cutlass.Int32, b_seg: cutlass.Int64,
            c_so: cutlass.Int64, c_si: cutlass.Int64, c_rep: cutlass.Int32, mode: cutlass.Int32, alpha: cutlass.Float32):
    gemm_body(a, b, c, M, N, K, kseg, lda, ldb, ldc, zdiv, a_so, a_si, a_rep, a_seg, b_so, b_si, b_rep, b_seg,
              c_so, c_si, c_rep, mode, alpha, True, True)


@cute.kernel
def gemm_nn(a: cute.Pointer, b: cute.Pointer, c: cute.Pointer, M: cutlass.Int32, N: cutlass.Int32, K: cutlass.Int32,
            kseg: cutlass.Int32, lda: cutlass.Int32, ldb: cutlass.Int32, ldc: cutlass.Int32, zdiv: cutlass.Int32,
            a_so: cutlass.Int64, a_si: cutlass.Int64, a_rep: cutlass.Int32, a_seg: cutlass.Int64,
            b_so: cutlass.Int64, b_si: cutlass.Int64, b_rep: cutlass.Int32, b_seg: cutlass.Int64,
            c_so: cutlass.Int64, c_si: cutlass.Int64, c_rep: cutlass.Int32, mode: cutlass.Int32, alpha: cutlass.Float32):
    gemm_body(a, b, c, M, N, K, kseg, lda, ldb, ldc, zdiv, a_so, a_si, a_rep, a_seg, b_so, b_si, b_rep, b_seg,
              c_so, c_si, c_rep, mode, alpha, True, False)


@cute.kernel
def gemm_tn(a: cute.Pointer, b: cute.Pointer, c: cute.Pointer, M: cutlass.Int32, N: cutlass.Int32, K: cutlass.Int32,
            kseg: cutlass.Int32, lda: cutlass.Int32, ldb: cutlass.Int32, ldc: cutlass.Int32, zdiv: cutlass.Int32,
            a_so: cutlass.Int64, a_si: cutlass.Int64, a_rep: cutlass.Int32, a_seg: cutlass.Int64,
            b_so: cutlass.Int64, b_si: cutlass.Int64, b_rep: cutlass.Int32, b_seg: cutlass.Int64,
            c_so: cutlass.Int64, c_si: cutlass.Int64, c_rep: cutlass.Int32, mode: cutlass.Int32, alpha: cutlass.Float32):
    gemm_body(a, b, c, M, N, K, kseg, lda, ldb, ldc, zdiv, a_so, a_si, a_rep, a_seg, b_so, b_si, b_rep, b_seg,
              c_so, c_si, c_rep, mode, alpha, False, False)


# ---- per-row kernels ---------------------------------------------------------------------------------
@cute.jit
def warp_sum(v):
    for o in cutlass.range_constexpr(5):
        v = v + cute.arch.shuffle_sync_bfly(v, 16 >> o)
    return v


@cute.jit
def warp_max(v):
    for o in cutlass.range_constexpr(5):
        v = cute.arch.fmax(v, cute.arch.shuffle_sync_bfly(v, 16 >> o))
    return v


def flat(ptr):
    return cute.make_tensor(ptr, cute.make_layout(1 << 30))


@cute.kernel
def fwd_norm_rope(emb: cute.Pointer, rstd: cute.Pointer, raw: cute.Pointer, w: cute.Pointer, cos_t: cute.Pointer,
                  sin_t: cute.Pointer, rows: cutlass.Int64, heads: cutlass.Int32, eps: cutlass.Float32):
    """RMSNorm (1 + w) and RoPE of each (token, head) row; lane l holds d = l, l + 32, l + 64, l + 96."""
    row = (I64(cute.arch.block_idx()[0]) * 256 + cute.arch.thread_idx()[0]) // 32
    l = cute.arch.thread_idx()[0] % 32
    if row < rows:
        tok = row // heads
        gx, gc, gs, ge, gw = flat(raw), flat(cos_t), flat(sin_t), flat(emb), flat(w)
        v = cute.make_rmem_tensor((4,), F32)
        c = cute.make_rmem_tensor((4,), F32)
        s = cute.make_rmem_tensor((4,), F32)
        n = cute.make_rmem_tensor((4,), F32)
        for j in cutlass.range_constexpr(4):
            v[j] = gx[row * D + l + 32 * j]
            c[j] = gc[tok * D + l + 32 * j]
            s[j] = gs[tok * D + l + 32 * j]
        ss = fma_rn(v[3], v[3], fma_rn(v[2], v[2], fma_rn(v[1], v[1], v[0] * v[0])))
        ss = warp_sum(ss)
        r = cute.math.rsqrt(fma_rn(ss, F32(1.0 / D), eps))
        if l == 0:
            flat(rstd)[row] = r
        for j in cutlass.range_constexpr(4):
            n[j] = v[j] * r * (F32(1.0) + gw[l + 32 * j])
        ge[row * D + l] = fma_rn(n[0], c[0], -(n[2] * s[0]))
        ge[row * D + l + 32] = fma_rn(n[1], c[1], -(n[3] * s[1]))
        ge[row * D + l + 64] = fma_rn(n[2], c[2], n[0] * s[2])
        ge[row * D + l + 96] = fma_rn(n[3], c[3], n[1] * s[3])


@cute.kernel
def softmax_fwd(P: cute.Pointer, tt: cute.Pointer, rows: cutlass.Int64, S: cutlass.Int32, cap: cutlass.Float32):
    """Causal softmax of cap * tt over rows of 256; lane l holds j = l + 32 c; masked entries get P = 0."""
    row = (I64(cute.arch.block_idx()[0]) * 256 + cute.arch.thread_idx()[0]) // 32
    l = cute.arch.thread_idx()[0] % 32
    if (row < rows) & (S == 256):
        i = (row % S).to(I32)
        gt, gp = flat(tt), flat(P)
        v = cute.make_rmem_tensor((8,), F32)
        m = F32(NEG_INF)
        for cc in cutlass.range_constexpr(8):
            j = l + 32 * cc
            v[cc] = cap * gt[row * 256 + j]
            m = cutlass.select_(j <= i, cute.arch.fmax(m, v[cc]), m)
        m = warp_max(m)
        ssum = F32(0.0)
        for cc in cutlass.range_constexpr(8):
            j = l + 32 * cc
            v[cc] = cutlass.select_(j <= i, F32(cute.math.exp(F64(v[cc] - m))), F32(0.0))
            ssum = ssum + v[cc]
        inv = F32(1.0) / warp_sum(ssum)
        for cc in cutlass.range_constexpr(8):
            gp[row * 256 + l + 32 * cc] = v[cc] * inv


@cute.kernel
def softmax_bwd(dP: cute.Pointer, P: cute.Pointer, tt: cute.Pointer, rows: cutlass.Int64, S: cutlass.Int32,
                scaling: cutlass.Float32):
    """dS = scaling * (1 - tt^2) * P * (dP - sum_j dP * P), in place over dP; one warp per row."""
    row = (I64(cute.arch.block_idx()[0]) * 256 + cute.arch.thread_idx()[0]) // 32
    l = cute.arch.thread_idx()[0] % 32
    if (row < rows) & (S == 256):
        base = row * 256
        gd, gp, gt = flat(dP), flat(P), flat(tt)
        dp = cute.make_rmem_tensor((8,), F32)
        p = cute.make_rmem_tensor((8,), F32)
        dot = F32(0.0)
        for cc in cutlass.range_constexpr(8):
            dp[cc] = gd[base + l + 32 * cc]
            p[cc] = gp[base + l + 32 * cc]
            dot = fma_rn(dp[cc], p[cc], dot)
        dot = warp_sum(dot)
        for cc in cutlass.range_constexpr(8):
            tv = gt[base + l + 32 * cc]
            gd[base + l + 32 * cc] = scaling * fma_rn(-tv, tv, F32(1.0)) * p[cc] * (dp[cc] - dot)


@cute.kernel
def bwd_norm_rope(demb: cute.Pointer, partial: cute.Pointer, raw: cute.Pointer, rstd: cute.Pointer, w: cute.Pointer,
                  cos_t: cute.Pointer, sin_t: cute.Pointer, rows: cutlass.Int64, heads: cutlass.Int32):
    """RoPE and RMSNorm backward of each (token, head) row, in place over demb; each block writes its
    partial column sums of d_n * x_hat to partial[block * D + d]. Warps grid-stride over rows."""
    tid = cute.arch.thread_idx()[0]
    l = tid % 32
    warp = tid // 32
    bx = cute.arch.block_idx()[0]
    nblk = cute.arch.grid_dim()[0]
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8 * D), cute.make_layout((8, D), stride=(D, 1)))
    gd, gx, gr, gc, gs, gw, gpart = flat(demb), flat(raw), flat(rstd), flat(cos_t), flat(sin_t), flat(w), flat(partial)
    wp = cute.make_rmem_tensor((4,), F32)
    accw = cute.make_rmem_tensor((4,), F32)
    gv = cute.make_rmem_tensor((4,), F32)
    c = cute.make_rmem_tensor((4,), F32)
    s = cute.make_rmem_tensor((4,), F32)
    xh = cute.make_rmem_tensor((4,), F32)
    dn = cute.make_rmem_tensor((4,), F32)
    accw.fill(0.0)
    for j in cutlass.range_constexpr(4):
        wp[j] = F32(1.0) + gw[l + 32 * j]
    nrows = ((rows - I64(bx) * 8 - warp + I64(nblk) * 8 - 1) // (I64(nblk) * 8)).to(I32)   # this warp's rows
    for it in cutlass.range(nrows):
        row = I64(bx) * 8 + warp + it * (I64(nblk) * 8)
        tok = row // heads
        r = gr[row]
        for j in cutlass.range_constexpr(4):
            gv[j] = gd[row * D + l + 32 * j]
            c[j] = gc[tok * D + l + 32 * j]
            s[j] = gs[tok * D + l + 32 * j]
            xh[j] = gx[row * D + l + 32 * j] * r
        dn[0] = fma_rn(gv[0], c[0], gv[2] * s[2])
        dn[1] = fma_rn(gv[1], c[1], gv[3] * s[3])
        dn[2] = fma_rn(gv[2], c[2], -(gv[0] * s[0]))
        dn[3] = fma_rn(gv[3], c[3], -(gv[1] * s[1]))
        dot = F32(0.0)
        for j in cutlass.range_constexpr(4):
            accw[j] = fma_rn(dn[j], xh[j], accw[j])
            dot = fma_rn(dn[j] * wp[j], xh[j], dot)
        dot = warp_sum(dot) * F32(1.0 / D)
        for j in cutlass.range_constexpr(4):
            gd[row * D + l + 32 * j] = r * fma_rn(-xh[j], dot, dn[j] * wp[j])
    for j in cutlass.range_constexpr(4):
        red[warp, l + 32 * j] = accw[j]
    cute.arch.sync_threads()
    if tid < D:
        ssum = F32(0.0)
        for k in cutlass.range_constexpr(8):
            ssum = ssum + red[k, tid]
        gpart[I64(bx) * D + tid] = ssum


@cute.kernel
def colsum_final(out: cute.Pointer, partial: cute.Pointer, blocks: cutlass.Int32):
    d = cute.arch.thread_idx()[0]
    if d < D:
        gp = flat(partial)
        ssum = F32(0.0)
        for bb in cutlass.range(blocks):
            ssum = ssum + gp[I64(bb) * D + d]
        flat(out)[d] = ssum


MKB_PLAN = """/* mkb:plan
scratch qraw fp32[batch_size * seq_len * q_proj_out]
scratch kraw fp32[batch_size * seq_len * kv_proj_out]
scratch vraw fp32[batch_size * seq_len * kv_proj_out]
scratch qemb fp32[batch_size * seq_len * q_proj_out]
scratch kemb fp32[batch_size * seq_len * kv_proj_out]
scratch qrstd fp32[batch_size * seq_len * num_attention_heads]
scratch krstd fp32[batch_size * seq_len * num_key_value_heads]
scratch tt fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch probs fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch dp fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch ctx fp32[batch_size * seq_len * q_proj_out]
scratch da fp32[batch_size * seq_len * q_proj_out]
scratch dq fp32[batch_size * seq_len * q_proj_out]
scratch dk fp32[batch_size * seq_len * kv_proj_out]
scratch dv fp32[batch_size * seq_len * kv_proj_out]
scratch partq fp32[1024 * head_dim]
scratch partk fp32[1024 * head_dim]
# projections q, k, v = x W^T
launch gemm_nt grid(q_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(hidden_states, q_weight, qraw, i32(batch_size * seq_len), i32(q_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(q_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_nt grid(kv_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(hidden_states, k_weight, kraw, i32(batch_size * seq_len), i32(kv_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(kv_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_nt grid(kv_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(hidden_states, v_weight, vraw, i32(batch_size * seq_len), i32(kv_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(kv_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# q/k RMSNorm + RoPE
launch fwd_norm_rope grid(batch_size * seq_len * num_attention_heads / 8) block(256)
  args(qemb, qrstd, qraw, q_norm_weight, cos, sin, i64(batch_size * seq_len * num_attention_heads), i32(num_attention_heads), f32(rms_norm_eps))
launch fwd_norm_rope grid(batch_size * seq_len * num_key_value_heads / 8) block(256)
  args(kemb, krstd, kraw, k_norm_weight, cos, sin, i64(batch_size * seq_len * num_key_value_heads), i32(num_key_value_heads), f32(rms_norm_eps))
# tt = tanh(scaling / cap * q_h k_g^T), batch z = b * 24 + h, kv head g = h / 3
launch gemm_nt grid(seq_len / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(qemb, kemb, tt, i32(seq_len), i32(seq_len), i32(head_dim), i32(head_dim), i32(q_proj_out), i32(kv_proj_out), i32(seq_len),
       i32(num_attention_heads),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i32(2), f32(scaling / attn_logit_softcapping))
launch softmax_fwd grid(batch_size * num_attention_heads * seq_len / 8) block(256)
  args(probs, tt, i64(batch_size * num_attention_heads * seq_len), i32(seq_len), f32(attn_logit_softcapping))
# ctx[b, i, h] = P_h v_g (flat layout)
launch gemm_nn grid(head_dim / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(probs, vraw, ctx, i32(seq_len), i32(head_dim), i32(seq_len), i32(seq_len), i32(seq_len), i32(kv_proj_out), i32(q_proj_out),
       i32(num_attention_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# grad_o_weight = grad_output^T ctx
launch gemm_tn grid(q_proj_out / 128, hidden_size / 128, 1) block(256) shared(147456)
  args(grad_output, ctx, grad_o_weight, i32(hidden_size), i32(q_proj_out), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(hidden_size), i32(q_proj_out), i32(q_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# d_attn = grad_output o_weight (flat)
launch gemm_nn grid(q_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(grad_output, o_weight, da, i32(batch_size * seq_len), i32(q_proj_out), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(q_proj_out), i32(q_proj_out), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# dP = d_attn_h v_g^T
launch gemm_nt grid(seq_len / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(da, vraw, dp, i32(seq_len), i32(seq_len), i32(head_dim), i32(head_dim), i32(q_proj_out), i32(kv_proj_out), i32(seq_len),
       i32(num_attention_heads),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i32(0), f32(1.0))
launch softmax_bwd grid(batch_size * num_attention_heads * seq_len / 8) block(256)
  args(dp, probs, tt, i64(batch_size * num_attention_heads * seq_len), i32(seq_len), f32(scaling))
# dv[b, :, g] = sum over the 3 heads h of g of P_h^T d_attn_h: batch z = b * 8 + g, K = 3 segments of seq_len
launch gemm_tn grid(head_dim / 128, seq_len / 128, batch_size * num_key_value_heads) block(256) shared(147456)
  args(probs, da, dv, i32(seq_len), i32(head_dim), i32(3 * seq_len), i32(seq_len), i32(seq_len), i32(q_proj_out), i32(kv_proj_out),
       i32(num_key_value_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(3 * seq_len * seq_len), i32(1), i64(seq_len * seq_len),
       i64(seq_len * q_proj_out), i64(3 * head_dim), i32(1), i64(head_dim),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# dq_emb = dS_h k_g (flat)
launch gemm_nn grid(head_dim / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(dp, kemb, dq, i32(seq_len), i32(head_dim), i32(seq_len), i32(seq_len), i32(seq_len), i32(kv_proj_out), i32(q_proj_out),
       i32(num_attention_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(seq_len * seq_len), i32(1), i64(0),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(num_attention_heads / num_key_value_heads), i64(0),
       i64(seq_len * q_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# dk_emb[b, :, g] = sum over h of g of dS_h^T q_h (flat)
launch gemm_tn grid(head_dim / 128, seq_len / 128, batch_size * num_key_value_heads) block(256) shared(147456)
  args(dp, qemb, dk, i32(seq_len), i32(head_dim), i32(3 * seq_len), i32(seq_len), i32(seq_len), i32(q_proj_out), i32(kv_proj_out),
       i32(num_key_value_heads),
       i64(num_attention_heads * seq_len * seq_len), i64(3 * seq_len * seq_len), i32(1), i64(seq_len * seq_len),
       i64(seq_len * q_proj_out), i64(3 * head_dim), i32(1), i64(head_dim),
       i64(seq_len * kv_proj_out), i64(head_dim), i32(1), i32(0), f32(1.0))
# RoPE + RMSNorm backward (in place) and the norm weights' gradients
launch bwd_norm_rope grid(1024) block(256)
  args(dq, partq, qraw, qrstd, q_norm_weight, cos, sin, i64(batch_size * seq_len * num_attention_heads), i32(num_attention_heads))
launch colsum_final grid(1) block(128) args(grad_q_norm_weight, partq, i32(1024))
launch bwd_norm_rope grid(1024) block(256)
  args(dk, partk, kraw, krstd, k_norm_weight, cos, sin, i64(batch_size * seq_len * num_key_value_heads), i32(num_key_value_heads))
launch colsum_final grid(1) block(128) args(grad_k_norm_weight, partk, i32(1024))
# weight gradients d^T x
launch gemm_tn grid(hidden_size / 128, q_proj_out / 128, 1) block(256) shared(147456)
  args(dq, hidden_states, grad_q_weight, i32(q_proj_out), i32(hidden_size), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(q_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_tn grid(hidden_size / 128, kv_proj_out / 128, 1) block(256) shared(147456)
  args(dk, hidden_states, grad_k_weight, i32(kv_proj_out), i32(hidden_size), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_tn grid(hidden_size / 128, kv_proj_out / 128, 1) block(256) shared(147456)
  args(dv, hidden_states, grad_v_weight, i32(kv_proj_out), i32(hidden_size), i32(batch_size * seq_len), i32(batch_size * seq_len),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
# grad_hidden_states = dq Wq + dk Wk + dv Wv (the second and third accumulate)
launch gemm_nn grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(dq, q_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(q_proj_out), i32(q_proj_out),
       i32(q_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(0), f32(1.0))
launch gemm_nn grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(dk, k_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(kv_proj_out), i32(kv_proj_out),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(1), f32(1.0))
launch gemm_nn grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456)
  args(dv, v_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(kv_proj_out), i32(kv_proj_out),
       i32(kv_proj_out), i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i32(1), i64(0), i64(0), i64(0), i32(1), i64(0),
       i64(0), i64(0), i32(1), i32(1), f32(1.0))
*/"""
