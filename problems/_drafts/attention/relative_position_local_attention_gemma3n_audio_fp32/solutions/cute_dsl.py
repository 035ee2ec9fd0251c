"""Gemma 3n audio local attention (#12), fp32, in CuTe DSL: the three launches of solutions/cuda.cu.
  1. qkv_proj_3xtf32: q, k, v = x @ W^T on tensor cores with the cuda solution's 3xTF32 split (big =
     cvt.rna.tf32(a), small = cvt.rna.tf32(a - big); per 32-deep k tile and per output fragment the chain
     small*big' (from zero), big*small', big*big' over the four k8 steps, then one fp32 add into the
     register accumulator). 128 x 128 block tiles of one of q, k, v (grid.x = 3 * 4: the weight and output
     pointers picked per block), 8 warps as 4 (M) x 2 (N) of 32 x 64 (m16n8k8), BK = 32, 3-stage cp.async
     ring, shared rows padded to 36 floats; cvt.rna.tf32 and mma.sync as inline PTX. q's epilogue:
     (acc * q_scale) * softplus(per_dim_scale[h]) with two roundings, softplus = s > 20 ? s : log1p(exp(s))
     with exp and log1p each computed in Float64 and rounded to fp32 once (CUDA's expf / log1pf are
     within an ulp or two of those); q_scale = 0.125 * (1 / log1p(exp(0))) folded in fp32 on the host.
  2. rel_pos_table: P[r][o] = sum_j sig_r[j] * Wpos[o][j] for r = 0..12, sig_r = [sin(r inv), cos(r inv)]
     (r * inv rounded to fp32, sin / cos in Float64 rounded once); one serial fma chain over j per output.
  3. local_attention: a block owns 32 frames of one batch row and 4 heads (128 threads: warp = head,
     lane = frame); keys and values of frames t0 - 12 .. t0 + 31 staged in shared rows of 257 floats,
     the 13 table rows of the 4 heads and the key validity beside them. Per query: 13 logits from two
     serial fma chains (q.k, q.P[r]), (ac + bd) / cap, tanh (Float64, rounded once), * cap; invalid keys
     -inf; exp(l - max) (Float64, rounded once), the sum in r order, p / sum (div.rn); the output a serial
     fma chain over r per dimension, staged in shared memory and stored coalesced.
Every fp32 operation is the cuda solution's, in its order (fma where nvcc contracts or calls fmaf,
written as fma.rn.f32 in inline PTX; the rest as plain fp32 operations whose PTX was read back: no other
fma). Compile-checked only (no GPU run)."""
import math
import struct

import cutlass
import cutlass.cute as cute

B, SEQ, HID, NH, HD = 64, 1721, 512, 8, 64
ROWS = B * SEQ                                      # 110144 GEMM rows
F32, F64, I32, U32, U8 = cutlass.Float32, cutlass.Float64, cutlass.Int32, cutlass.Uint32, cutlass.Uint8
NEG_INF = float("-inf")


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


# q_scale = 0.125f * (1.0f / log1pf(expf(0.0f))) as CUDA evaluates it in fp32 (log1pf(1) = fp32(ln 2))
Q_SCALE = f32(0.125 * f32(1.0 / f32(math.log1p(1.0))))

# ---- GEMM ---------------------------------------------------------------------------------------------
BM, BN, BK, STAGES, THREADS = 128, 128, 32, 3, 256
LD = BK + 4                                         # 36 floats
A_TILE, B_TILE = BM * LD, BN * LD
STAGE = A_TILE + B_TILE                             # 9216 floats
GEMM_SMEM = STAGES * STAGE * 4                      # 110592
KT = HID // BK                                      # 16
MI, NI, KS, GROUP = 2, 8, BK // 8, 2
COL_TILES = HID // BN                               # 4
assert GEMM_SMEM == 110592 and BM * BK // 4 == 4 * THREADS and HID % BN == 0 and BN % HD == 0

# ---- attention ----------------------------------------------------------------------------------------
WIN, FR = 13, 32                                    # distances 0..12; query frames per block
KROWS = FR + WIN - 1                                # 44 staged key rows
GH = 4                                              # heads per block
GW = GH * HD                                        # 256 floats of a row per head group
SLD = GW + 1                                        # 257
ATT_SMEM = (2 * KROWS * SLD + WIN * GW) * 4 + KROWS * 4
assert ATT_SMEM == 103952 and (KROWS * GW // 4) % 128 == 0 and (WIN * GW) % 128 == 0 and (FR * GW) % 128 == 0
assert ROWS * HID < 2**31


@cute.jit
def fma_rn(a, b, c):
    return cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                read_only_args=[a, b, c])


@cute.jit
def split_tf32(x):
    """big = cvt.rna.tf32(x), small = cvt.rna.tf32(x - big), as bit patterns."""
    big = cute.arch.inline_ptx("cvt.rna.tf32.f32 {$w0}, {$r0};", write_only_types=[U32], read_only_args=[x])
    rest = x - F32(cute.arch.inline_ptx("mov.b32 {$w0}, {$r0};", write_only_types=[F32], read_only_args=[big]))
    small = cute.arch.inline_ptx("cvt.rna.tf32.f32 {$w0}, {$r0};", write_only_types=[U32], read_only_args=[rest])
    return big, small


@cute.jit
def mma_tf32(d, a0, a1, a2, a3, b0, b1):
    """d (4 fp32 in a register tensor) += A . B: mma.sync m16n8k8 row.col tf32, fp32 accumulate."""
    r0, r1, r2, r3 = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, d[0], d[1], d[2], d[3]])
    d[0] = r0
    d[1] = r1
    d[2] = r2
    d[3] = r3


@cute.jit
def softplus(s):
    e = F32(cute.math.exp(F64(s)))                  # expf
    sp = F32(cute.math.log1p(F64(e)))               # log1pf
    return cutlass.select_(s > F32(20.0), s, sp)


@cute.jit
def load_stage(x, w, sflat, stage, kt, m0, tid):
    for i in cutlass.range_constexpr(4):
        c = tid + i * THREADS                       # 128 rows x 8 chunks of 4 floats
        row = c // 8
        col = c % 8 * 4
        arow = cutlass.min(m0 + row, ROWS - 1)
        cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                             read_only_args=[(sflat + (stage * STAGE + row * LD + col)).toint(),
                                             (x + (arow * HID + kt * BK + col)).toint()])
    for i in cutlass.range_constexpr(4):
        c = tid + i * THREADS
        row = c // 8
        col = c % 8 * 4
        cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                             read_only_args=[(sflat + (stage * STAGE + A_TILE + row * LD + col)).toint(),
                                             (w + (row * HID + kt * BK + col)).toint()])


@cute.kernel
def qkv_proj_3xtf32(x: cute.Pointer, wq: cute.Pointer, wk: cute.Pointer, wv: cute.Pointer,
                    per_dim_scale: cute.Pointer, q: cute.Pointer, k: cute.Pointer, v: cute.Pointer):
    which = cute.arch.block_idx()[0] // COL_TILES   # 0: q, 1: k, 2: v (block-uniform)
    ctile = cute.arch.block_idx()[0] % COL_TILES
    m0 = cute.arch.block_idx()[1] * BM
    wsel = cutlass.select_(which == 0, wq.toint(), cutlass.select_(which == 1, wk.toint(), wv.toint()))
    osel = cutlass.select_(which == 0, q.toint(), cutlass.select_(which == 1, k.toint(), v.toint()))
    w = cute.make_ptr(F32, wsel, cute.AddressSpace.gmem, assumed_align=256) + ctile * BN * HID
    out = cute.make_ptr(F32, osel, cute.AddressSpace.gmem, assumed_align=256)
    tid = cute.arch.thread_idx()[0]
    lane = tid % 32
    warp = tid // 32
    wm = warp // 2 * 32
    wn = warp % 2 * 64
    g = lane // 4
    t = lane % 4
    sflat = cute.arch.get_dyn_smem(F32, alignment=16)
    sm = cute.make_tensor(sflat, cute.make_layout((STAGES, STAGE), stride=(STAGE, 1)))

    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    acc.fill(0.0)
    abig = cute.make_rmem_tensor(cute.make_layout((MI, KS, 4), stride=(KS * 4, 4, 1)), U32)
    asml = cute.make_rmem_tensor(cute.make_layout((MI, KS, 4), stride=(KS * 4, 4, 1)), U32)
    bbig = cute.make_rmem_tensor(cute.make_layout((GROUP, KS, 2), stride=(KS * 2, 2, 1)), U32)
    bsml = cute.make_rmem_tensor(cute.make_layout((GROUP, KS, 2), stride=(KS * 2, 2, 1)), U32)
    d = cute.make_rmem_tensor(cute.make_layout((GROUP, MI, 4), stride=(MI * 4, 4, 1)), F32)

    for s in cutlass.range_constexpr(STAGES - 1):
        load_stage(x, w, sflat, s, s, m0, tid)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # tile kt has landed (one group committed per iteration)
        cute.arch.sync_threads()                    # for every thread; stage (kt - 1) % STAGES is free again
        nxt = kt + STAGES - 1
        if nxt < KT:
            load_stage(x, w, sflat, nxt % STAGES, nxt, m0, tid)
        cute.arch.cp_async_commit_group()
        st = kt % STAGES
        # A fragments of the 32-deep tile: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
        for mi in cutlass.range_constexpr(MI):
            for ks in cutlass.range_constexpr(KS):
                base = (wm + mi * 16 + g) * LD + ks * 8 + t
                for e in cutlass.range_constexpr(4):
                    bg, sl = split_tf32(sm[st, base + (e % 2) * 8 * LD + (e // 2) * 4])
                    abig[mi, ks, e] = bg
                    asml[mi, ks, e] = sl
        for n2 in cutlass.range_constexpr(0, NI, GROUP):
            # B fragments (k8 x n8): b0 (k = t, n = g), b1 (k = t + 4, n = g); W rows are n, k contiguous
            for j in cutlass.range_constexpr(GROUP):
                bbase = A_TILE + (wn + (n2 + j) * 8 + g) * LD + t
                for ks in cutlass.range_constexpr(KS):
                    for e in cutlass.range_constexpr(2):
                        bg, sl = split_tf32(sm[st, bbase + ks * 8 + e * 4])
                        bbig[j, ks, e] = bg
                        bsml[j, ks, e] = sl
            d.fill(0.0)
            for ks in cutlass.range_constexpr(KS):
                for j in cutlass.range_constexpr(GROUP):
                    for mi in cutlass.range_constexpr(MI):
                        dv = cute.make_tensor(d.iterator + (j * MI + mi) * 4, cute.make_layout(4))
                        mma_tf32(dv, asml[mi, ks, 0], asml[mi, ks, 1], asml[mi, ks, 2], asml[mi, ks, 3],
                                 bbig[j, ks, 0], bbig[j, ks, 1])
                        mma_tf32(dv, abig[mi, ks, 0], abig[mi, ks, 1], abig[mi, ks, 2], abig[mi, ks, 3],
                                 bsml[j, ks, 0], bsml[j, ks, 1])
                        mma_tf32(dv, abig[mi, ks, 0], abig[mi, ks, 1], abig[mi, ks, 2], abig[mi, ks, 3],
                                 bbig[j, ks, 0], bbig[j, ks, 1])
            for j in cutlass.range_constexpr(GROUP):
                for mi in cutlass.range_constexpr(MI):
                    for e in cutlass.range_constexpr(4):
                        acc[mi, n2 + j, e] = acc[mi, n2 + j, e] + d[j, mi, e]
    cute.arch.cp_async_wait_group(0)

    # acc[mi][ni][2h + e] is row wm + mi*16 + g + 8h, column wn + ni*8 + 2t + e of this tile.
    gout = cute.make_tensor(out, cute.make_layout((ROWS, HID // 2, 2), stride=(HID, 2, 1)))
    gpds = cute.make_tensor(per_dim_scale, cute.make_layout(HD))
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    sp = cute.make_rmem_tensor((NI, 2), F32)
    for ni in cutlass.range_constexpr(NI):
        for e in cutlass.range_constexpr(2):
            sp[ni, e] = F32(1.0)
    if which == 0:
        for ni in cutlass.range_constexpr(NI):
            for e in cutlass.range_constexpr(2):
                sp[ni, e] = softplus(gpds[(wn + ni * 8 + 2 * t + e) % HD])
    o2 = cute.make_rmem_tensor((2,), F32)
    for mi in cutlass.range_constexpr(MI):
        for h in cutlass.range_constexpr(2):
            row = m0 + wm + mi * 16 + g + 8 * h
            if row < ROWS:
                for ni in cutlass.range_constexpr(NI):
                    for e in cutlass.range_constexpr(2):
                        a = acc[mi, ni, 2 * h + e]
                        o2[e] = cutlass.select_(which == 0, (a * F32(Q_SCALE)) * sp[ni, e], a)
                    cute.copy(c64, o2, gout[row, (ctile * BN + wn + ni * 8 + 2 * t) // 2, None])


@cute.kernel
def rel_pos_table(table: cute.Pointer, inv: cute.Pointer, wpos: cute.Pointer):
    r = cute.arch.block_idx()[0]
    tid = cute.arch.thread_idx()[0]
    sig = cute.make_tensor(cute.arch.alloc_smem(F32, HID), cute.make_layout(HID))
    ginv = cute.make_tensor(inv, cute.make_layout(HID // 2))
    gw = cute.make_tensor(wpos, cute.make_layout((HID, HID // 4, 4), stride=(HID, 4, 1)))
    gt = cute.make_tensor(table, cute.make_layout((WIN, HID), stride=(HID, 1)))
    a = F32(r) * ginv[tid % (HID // 2)]             # blockDim 512: one element each
    sig[tid] = cutlass.select_(tid < HID // 2, F32(cute.math.sin(F64(a))), F32(cute.math.cos(F64(a))))
    cute.arch.sync_threads()
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    cw = cute.make_rmem_tensor((4,), F32)
    s = F32(0.0)
    for j in cutlass.range(HID // 4):
        cute.copy(c128, gw[tid, j, None], cw)
        for e in cutlass.range_constexpr(4):
            s = fma_rn(sig[4 * j + e], cw[e], s)
    gt[r, tid] = s


@cute.kernel
def local_attention(out: cute.Pointer, q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, table: cute.Pointer,
                    mask: cute.Pointer, cap: cutlass.Float32):
    t0 = cute.arch.block_idx()[0] * FR
    hg = cute.arch.block_idx()[1]
    b = cute.arch.block_idx()[2]
    tid = cute.arch.thread_idx()[0]
    sflat = cute.arch.get_dyn_smem(F32, alignment=16)
    ks = cute.make_tensor(sflat, cute.make_layout((KROWS, SLD), stride=(SLD, 1)))
    vs = cute.make_tensor(sflat + KROWS * SLD, cute.make_layout((KROWS, SLD), stride=(SLD, 1)))
    pt = cute.make_tensor(sflat + 2 * KROWS * SLD, cute.make_layout((WIN, GW), stride=(GW, 1)))
    valid = cute.make_tensor(cute.recast_ptr(sflat + (2 * KROWS * SLD + WIN * GW), dtype=I32), cute.make_layout(KROWS))
    rowv = cute.make_layout((ROWS, HID // 4, 4), stride=(HID, 4, 1))
    gk = cute.make_tensor(k, rowv)
    gv = cute.make_tensor(v, rowv)
    gq = cute.make_tensor(q, rowv)
    gt = cute.make_tensor(table, cute.make_layout((WIN, HID), stride=(HID, 1)))
    gm = cute.make_tensor(mask, cute.make_layout(ROWS))
    go = cute.make_tensor(out, cute.make_layout((ROWS, HID), stride=(HID, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)

    kv = cute.make_rmem_tensor((4,), F32)
    vv = cute.make_rmem_tensor((4,), F32)
    for it in cutlass.range_constexpr(KROWS * GW // 4 // 128):
        idx = tid + it * 128
        r = idx // (GW // 4)
        e = idx % (GW // 4)
        s = t0 - (WIN - 1) + r
        kv.fill(0.0)
        vv.fill(0.0)
        if (s >= 0) & (s < SEQ):
            cute.copy(c128, gk[b * SEQ + s, hg * (GW // 4) + e, None], kv)
            cute.copy(c128, gv[b * SEQ + s, hg * (GW // 4) + e, None], vv)
        for c in cutlass.range_constexpr(4):
            ks[r, e * 4 + c] = kv[c]
            vs[r, e * 4 + c] = vv[c]
    for it in cutlass.range_constexpr(WIN * GW // 128):
        idx = tid + it * 128
        pt[idx // GW, idx % GW] = gt[idx // GW, hg * GW + idx % GW]
    if tid < KROWS:
        s = t0 - (WIN - 1) + tid
        ok = I32(0)
        if (s >= 0) & (s < SEQ):
            ok = cutlass.select_(gm[b * SEQ + s] == U8(0), I32(1), I32(0))
        valid[tid] = ok

    hl = tid // 32                                  # local head (warp)
    i = tid % 32                                    # frame in block (lane)
    t = t0 + i
    active = t < SEQ
    qr = cute.make_rmem_tensor(cute.make_layout((HD // 4, 4), stride=(4, 1)), F32)
    qr.fill(0.0)
    if active:
        for dd in cutlass.range_constexpr(HD // 4):
            cute.copy(c128, gq[b * SEQ + t, hg * (GW // 4) + hl * (HD // 4) + dd, None], qr[dd, None])
    cute.arch.sync_threads()

    p = cute.make_rmem_tensor((WIN,), F32)
    p.fill(0.0)
    if active:
        mx = F32(NEG_INF)
        for r in cutlass.range_constexpr(WIN):
            row = i + WIN - 1 - r                   # key frame t - r
            ac = F32(0.0)
            bd = F32(0.0)
            for dd in cutlass.range_constexpr(HD):
                ac = fma_rn(qr[dd // 4, dd % 4], ks[row, hl * HD + dd], ac)
                bd = fma_rn(qr[dd // 4, dd % 4], pt[r, hl * HD + dd], bd)
            lg = F32(cute.math.tanh(F64((ac + bd) / cap))) * cap
            p[r] = cutlass.select_(valid[row] != 0, lg, F32(NEG_INF))
            mx = cute.arch.fmax(mx, p[r])
        ssum = F32(0.0)
        for r in cutlass.range_constexpr(WIN):
            ex = F32(cute.math.exp(F64(p[r] - mx)))
            p[r] = cutlass.select_(valid[i + WIN - 1 - r] != 0, ex, F32(0.0))
            ssum = ssum + p[r]
        for r in cutlass.range_constexpr(WIN):
            p[r] = p[r] / ssum
    cute.arch.sync_threads()                        # ks is free: it becomes the output staging area
    if active:
        for dd in cutlass.range(HD, unroll=4):
            acc = F32(0.0)
            for r in cutlass.range_constexpr(WIN):
                acc = fma_rn(p[r], vs[i + WIN - 1 - r, hl * HD + dd], acc)
            ks[i, hl * HD + dd] = acc
    cute.arch.sync_threads()
    for it in cutlass.range_constexpr(FR * GW // 128):
        idx = tid + it * 128
        f = idx // GW
        e = idx % GW
        if t0 + f < SEQ:
            go[b * SEQ + t0 + f, hg * GW + e] = ks[f, e]


MKB_PLAN = """/* mkb:plan
scratch qs fp32[batch_size * seq_len * hidden_size]
scratch ks fp32[batch_size * seq_len * hidden_size]
scratch vs fp32[batch_size * seq_len * hidden_size]
scratch ptab fp32[num_rel_positions * hidden_size]
launch qkv_proj_3xtf32 grid(12, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(hidden_states, q_proj_weight, k_proj_weight, v_proj_weight, per_dim_scale, qs, ks, vs)
launch rel_pos_table grid(num_rel_positions) block(512) args(ptab, inv_timescales, pos_proj_weight)
launch local_attention grid(ceil_div(seq_len, 32), 2, batch_size) block(128) shared(103952)
  args(context_vectors, qs, ks, vs, ptab, mask, f32(attention_logits_soft_cap))
*/"""
