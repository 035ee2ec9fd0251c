"""Varlen vision attention (Qwen-Image-Edit-2509 vision tower: 7168 packed tokens in 28 sequences, 16 heads of
72) in CuTe DSL: the four launches of solutions/cuda.cu, bf16 tensor cores with fp32 accumulation throughout
(mma.sync m16n8k16; the cuda solution's WMMA 16x16x16 compiles to the same instruction).
  1. qkv_proj: qkv = bf16(hidden @ qkv_weight^T + qkv_bias) (fp32 accumulators plus the bias, one rounding).
  2. rope_split: q and k rotated in fp32, x * cos + rotate_half(x) * sin with the products and the sum
     rounded as written (mul.rn / add.rn in inline PTX, no contraction), one rounding to bf16; q, k, v
     written head-major [16, 7168, 72] so that one head's rows of a sequence are contiguous. A thread does
     4 neighbouring elements (8-byte accesses; 36 is a multiple of 4, so a chunk's partner is one chunk).
  3. flash_attention: one CTA of 4 warps per (64-query tile of a sequence, head), keys in tiles of 64 of the
     same sequence (double-buffered cp.async); S = Q K^T and O += P V on mma.sync (ldmatrix fragments),
     the head dim padded to 80 with zeros in shared memory; online softmax in fp32 as the cuda solution:
     p = exp2((s - m_new) * scale * log2 e), P rounded to bf16 for the product and the row sums adding the
     rounded values, alpha = exp2((m_old - m_new) * scale * log2 e); attn = bf16(O / l), token-major.
  4. out_proj: output = bf16(attn @ proj_weight^T + proj_bias).
The GEMMs use the house CuTe DSL GEMM core of problems/mlp_norm/patch_merger_mlp_qwen3_omni_bf16 (128 x 128
CTA tiles, k tile 64, 3-stage cp.async ring, XOR-swizzled 16-byte chunks, 8 warps as 2 x 4 with 64 x 32 warp
tiles) instead of the cuda solution's 128 x 128 x 32 WMMA tiles: the same products and the same single
rounding, only the fp32 accumulation order within a tile differs. The attention differs from the cuda
solution only in where the softmax runs (in the S accumulators' registers, a row's 64 keys over a quad of
lanes, instead of in shared memory) and in the order of the fp32 row sums; rows past the end of a
sequence re-read its last row (finite) instead of zeros: their keys are masked (weight exactly 0) and their
queries not stored. Compile-checked only (no GPU run)."""
import cutlass
import cutlass.cute as cute

TOKENS, SEQS, HEADS, D, HALF = 7168, 28, 16, 72, 36
EMBED = HEADS * D                  # 1152
QKV = 3 * EMBED                    # 3456
F32, BF16, I32, I64, U32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32, cutlass.Int64, cutlass.Uint32
NEG_INF = float("-inf")

# ---- GEMM tiling ---------------------------------------------------------------------------------------
BM, BN, CH, STAGES, THREADS = 128, 128, 8, 3, 256   # k tile 8 chunks of 8 = 64
MI, NI, WARPS_M = 4, 4, 2
GEMM_SMEM = STAGES * (BM + BN) * CH * 8 * 2         # 98304
assert TOKENS % BM == 0 and QKV % BN == 0 and EMBED % BN == 0 and EMBED % (8 * CH) == 0
assert BM // MI == 16 * WARPS_M and BN // NI == 8 * (THREADS // 32 // WARPS_M) and GEMM_SMEM == 98304

# ---- attention tiling ----------------------------------------------------------------------------------
TQ, TK, ATT_THREADS = 64, 64, 128
DP = 80                            # head dim padded to 5 k-steps of 16
STR = DP + 8                       # shared row stride in bf16 (176 bytes: ldmatrix rows in distinct banks)
TILE = TQ * STR                    # one 64-row tile; Q, then K slots 0/1, then V slots 0/1
ATT_SMEM = 5 * TILE * 2            # 56320 bytes: the plan's shared(...)
CHUNKS = D // 8                    # 9 16-byte chunks of a 72-wide row
NB, DB = TK // 8, DP // 8          # n-blocks of S (8) and of O (10) per warp row block
LOAD_ITERS = (TQ * CHUNKS + ATT_THREADS - 1) // ATT_THREADS   # 5 (576 chunks over 128 threads)
ROPE_VEC = 4
assert ATT_SMEM == 56320 and TQ == 16 * (ATT_THREADS // 32) and HALF % ROPE_VEC == 0 and D % 8 == 0
assert (TOKENS * EMBED) % (256 * ROPE_VEC) == 0 and HEADS * TOKENS * D < 2**31


# ---- bf16 tensor-core GEMM core (the house core of patch_merger_mlp_qwen3_omni_bf16's CuTe DSL port) -----
# C_tile[m, n] = sum_k A[m, k] * B[n, k], both K-major, viewed as (row, k tile, 16-byte chunk, element).
# Shared: STAGES slots of [BM][CH][8] (A) and [BN][CH][8] (B) bf16, chunk index XOR-swizzled by swz(row).
# Warp w = (wm, wn) = (w % WARPS_M, w // WARPS_M) owns 16-row blocks i < MI at rows i * (BM // MI) + wm * 16
# and 8-column blocks j < NI at columns j * (BN // NI) + wn * 8. Per 32-k step, lane (g, q) reads chunk
# 4 step + q of A rows g, g + 8 and of B row g; elements 0..3 feed one m16n8k16, 4..7 a second (A and B
# permuted alike: a dot product does not depend on the order of its k terms).
# acc[i, j, e]: row i * (BM // MI) + wm * 16 + g + 8 (e // 2), column j * (BN // NI) + wn * 8 + 2 q + e % 2.


@cute.jit
def swz(row):
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def gemm_load_stage(gA: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, arow0, brow0, slot, kt,
                    tid):
    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.cpasync.LoadCacheMode.GLOBAL),
                              BF16, num_bits_per_copy=128)
    c = tid % CH
    r0 = tid // CH
    cs = c ^ swz(r0)                       # rows r0 + i * (THREADS / CH) share r0 & 7
    for i in cutlass.range_constexpr(BM // (THREADS // CH)):
        r = r0 + i * (THREADS // CH)
        cute.copy(cpa, gA[arow0 + r, kt, c, None], sA[slot, r, cs, None])
    for i in cutlass.range_constexpr(BN // (THREADS // CH)):
        r = r0 + i * (THREADS // CH)
        cute.copy(cpa, gB[brow0 + r, kt, c, None], sB[slot, r, cs, None])


@cute.jit
def gemm_compute_stage(acc: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, slot, lane, warp):
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    mma = cute.make_mma_atom(cute.nvgpu.warp.MmaF16BF16Op(BF16, F32, (16, 8, 16)))
    g = lane // 4
    q = lane % 4
    wm = warp % WARPS_M
    wn = warp // WARPS_M
    x = swz(g)                             # rows g and g + 8 of every 16-row block: same swizzle
    ra = cute.make_rmem_tensor(cute.make_layout((MI, 2, 8), stride=(16, 8, 1)), BF16)
    rb = cute.make_rmem_tensor(cute.make_layout((NI, 8), stride=(8, 1)), BF16)
    for step in cutlass.range_constexpr(CH // 4):
        chunk = (step * 4 + q) ^ x
        for i in cutlass.range_constexpr(MI):
            row = i * (BM // MI) + wm * 16 + g
            cute.copy(c128, sA[slot, row, chunk, None], ra[i, 0, None])
            cute.copy(c128, sA[slot, row + 8, chunk, None], ra[i, 1, None])
        for j in cutlass.range_constexpr(NI):
            cute.copy(c128, sB[slot, j * (BN // NI) + wn * 8 + g, chunk, None], rb[j, None])
        for i in cutlass.range_constexpr(MI):
            for j in cutlass.range_constexpr(NI):
                cv = cute.make_tensor(acc.iterator + (i * NI + j) * 4, cute.make_layout((4, 1, 1), stride=(1, 0, 0)))
                for h in cutlass.range_constexpr(2):
                    av = cute.make_tensor(ra.iterator + i * 16 + 4 * h,
                                          cute.make_layout(((2, 2, 2), 1, 1), stride=((1, 8, 2), 0, 0)))
                    bv = cute.make_tensor(rb.iterator + j * 8 + 4 * h,
                                          cute.make_layout(((2, 2), 1, 1), stride=((1, 2), 0, 0)))
                    cute.gemm(mma, cv, av, bv, cv)


@cute.jit
def linear_bias_tile(a: cute.Pointer, w: cute.Pointer, bias: cute.Pointer, c: cute.Pointer,
                     N: cutlass.Constexpr, K: cutlass.Constexpr):
    """c[m0.., n0..] = bf16(a[TOKENS, K] @ w[N, K]^T + bias) for this CTA's 128 x 128 tile."""
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    gA = cute.make_tensor(a, cute.make_layout((TOKENS, K // (8 * CH), CH, 8), stride=(K, 8 * CH, 8, 1)))
    gB = cute.make_tensor(w, cute.make_layout((N, K // (8 * CH), CH, 8), stride=(K, 8 * CH, 8, 1)))
    base = cute.arch.get_dyn_smem(BF16, alignment=128)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, CH, 8), stride=(BM * CH * 8, CH * 8, 8, 1)))
    sB = cute.make_tensor(base + STAGES * BM * CH * 8,
                          cute.make_layout((STAGES, BN, CH, 8), stride=(BN * CH * 8, CH * 8, 8, 1)))
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    acc.fill(0.0)
    KT = K // (8 * CH)
    for s in cutlass.range_constexpr(STAGES - 1):
        gemm_load_stage(gA, gB, sA, sB, m0, n0, s, s, tid)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        cute.arch.sync_threads()                    # everyone's; and slot (kt - 1) % STAGES is free
        nxt = kt + (STAGES - 1)
        if nxt < KT:
            gemm_load_stage(gA, gB, sA, sB, m0, n0, nxt % STAGES, nxt, tid)
        cute.arch.cp_async_commit_group()
        gemm_compute_stage(acc, sA, sB, kt % STAGES, lane, warp)
    cute.arch.cp_async_wait_group(0)
    # Epilogue: fp32 accumulator + fp32(bias), one rounding, bf16 pairs.
    g = lane // 4
    q = lane % 4
    wm = warp % WARPS_M
    wn = warp // WARPS_M
    gc = cute.make_tensor(c, cute.make_layout((TOKENS, N // 2, 2), stride=(N, 2, 1)))
    gbias = cute.make_tensor(bias, cute.make_layout((N // 2, 2), stride=(2, 1)))
    b2 = cute.make_rmem_tensor((2,), BF16)
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for j in cutlass.range_constexpr(NI):
        cp = (n0 + j * (BN // NI) + wn * 8) // 2 + q          # column pair index
        cute.copy(c32, gbias[cp, None], b2)
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                m = m0 + i * (BM // MI) + wm * 16 + g + 8 * hr
                for e in cutlass.range_constexpr(2):
                    o2[e] = (acc[i, j, 2 * hr + e] + b2[e].to(F32)).to(BF16)
                cute.copy(c32, o2, gc[m, cp, None])


@cute.kernel
def qkv_proj(x: cute.Pointer, w: cute.Pointer, b: cute.Pointer, qkv: cute.Pointer):
    linear_bias_tile(x, w, b, qkv, QKV, EMBED)


@cute.kernel
def out_proj(attn: cute.Pointer, w: cute.Pointer, b: cute.Pointer, out: cute.Pointer):
    linear_bias_tile(attn, w, b, out, EMBED, EMBED)


# ---- rotary embedding and head-major split ------------------------------------------------------------
@cute.jit
def mul_rn(a, b):
    return cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b])


@cute.jit
def add_rn(a, b):
    return cute.arch.inline_ptx("add.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b])


@cute.kernel
def rope_split(qkv: cute.Pointer, cos_t: cute.Pointer, sin_t: cute.Pointer, qh: cute.Pointer, kh: cute.Pointer,
               vh: cute.Pointer):
    i4 = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]   # chunk of 4 elements of [TOKENS, EMBED]
    t = i4 // (EMBED // ROPE_VEC)
    hc = i4 % (EMBED // ROPE_VEC)
    h = hc // (D // ROPE_VEC)
    c = hc % (D // ROPE_VEC)                                       # chunk of the head: d = 4 c .. 4 c + 3
    pc = (c + HALF // ROPE_VEC) % (D // ROPE_VEC)                  # the partner chunk (d +- 36)
    neg = c < HALF // ROPE_VEC                                     # d < 36: rotate_half gives -x[d + 36]
    gqkv = cute.make_tensor(qkv, cute.make_layout((TOKENS, 3, HEADS, D // ROPE_VEC, ROPE_VEC),
                                                  stride=(QKV, EMBED, D, ROPE_VEC, 1)))
    tab = cute.make_layout((TOKENS * EMBED // ROPE_VEC, ROPE_VEC), stride=(ROPE_VEC, 1))
    gcos = cute.make_tensor(cos_t, tab)
    gsin = cute.make_tensor(sin_t, tab)
    hm = cute.make_layout((HEADS, TOKENS, D // ROPE_VEC, ROPE_VEC), stride=(TOKENS * D, D, ROPE_VEC, 1))
    gq = cute.make_tensor(qh, hm)
    gk = cute.make_tensor(kh, hm)
    gv = cute.make_tensor(vh, hm)
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    regs = cute.make_layout((6, ROPE_VEC), stride=(ROPE_VEC, 1))
    r = cute.make_rmem_tensor(regs, BF16)      # 0 cos, 1 sin, 2 q, 3 q partner, 4 k, 5 k partner
    rv = cute.make_rmem_tensor((ROPE_VEC,), BF16)
    cute.copy(c64, gcos[i4, None], r[0, None])
    cute.copy(c64, gsin[i4, None], r[1, None])
    cute.copy(c64, gqkv[t, 0, h, c, None], r[2, None])
    cute.copy(c64, gqkv[t, 0, h, pc, None], r[3, None])
    cute.copy(c64, gqkv[t, 1, h, c, None], r[4, None])
    cute.copy(c64, gqkv[t, 1, h, pc, None], r[5, None])
    cute.copy(c64, gqkv[t, 2, h, c, None], rv)
    ro = cute.make_rmem_tensor(cute.make_layout((2, ROPE_VEC), stride=(ROPE_VEC, 1)), BF16)
    for w in cutlass.range_constexpr(2):
        for e in cutlass.range_constexpr(ROPE_VEC):
            cv = r[0, e].to(F32)
            sv = r[1, e].to(F32)
            x = r[2 + 2 * w, e].to(F32)
            y = r[3 + 2 * w, e].to(F32)
            rot = cutlass.select_(neg, -y, y)
            ro[w, e] = add_rn(mul_rn(x, cv), mul_rn(rot, sv)).to(BF16)
    cute.copy(c64, ro[0, None], gq[h, t, c, None])
    cute.copy(c64, ro[1, None], gk[h, t, c, None])
    cute.copy(c64, rv, gv[h, t, c, None])


# ---- flash attention over the sequences ----------------------------------------------------------------
@cute.jit
def cp_async16(dst_smem, src_gmem):
    cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                         read_only_args=[dst_smem.toint(), src_gmem.toint()])


@cute.jit
def ldmatrix_x4(addr_smem):
    return cute.arch.inline_ptx("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
                                write_only_types=[U32] * 4, read_only_args=[addr_smem.toint()])


@cute.jit
def ldmatrix_x4_trans(addr_smem):
    return cute.arch.inline_ptx(
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
        write_only_types=[U32] * 4, read_only_args=[addr_smem.toint()])


@cute.jit
def mma16816(acc, i, a0, a1, a2, a3, b0, b1):
    """acc[i, 0..3] += A (a0..a3) . B (b0, b1): mma.sync m16n8k16 row.col, bf16 in, fp32 accumulate."""
    d0, d1, d2, d3 = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4,
        read_only_args=[a0, a1, a2, a3, b0, b1, acc[i, 0], acc[i, 1], acc[i, 2], acc[i, 3]])
    acc[i, 0] = d0
    acc[i, 1] = d1
    acc[i, 2] = d2
    acc[i, 3] = d3


@cute.jit
def pack_bf16x2(lo, hi):
    return cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                read_only_args=[hi, lo])


@cute.jit
def load_rows(sbase, src, soff, row0, n0, seq_len, tidx):
    """Rows n0 .. n0 + 63 of a sequence (head-major rows from row0; rows past seq_len re-read its last row),
    columns 0 .. 71, into the shared tile at bf16 offset soff."""
    for it in cutlass.range_constexpr(LOAD_ITERS):
        cid = tidx + it * ATT_THREADS
        if cutlass.const_expr((it + 1) * ATT_THREADS <= TQ * CHUNKS):
            r = cid // CHUNKS
            cc = cid % CHUNKS
            cp_async16(sbase + (soff + r * STR + cc * 8), src + ((row0 + cutlass.min(n0 + r, seq_len - 1)) * D + cc * 8))
        else:
            if cid < TQ * CHUNKS:
                r = cid // CHUNKS
                cc = cid % CHUNKS
                cp_async16(sbase + (soff + r * STR + cc * 8),
                           src + ((row0 + cutlass.min(n0 + r, seq_len - 1)) * D + cc * 8))


@cute.kernel
def flash_attention(qh: cute.Pointer, kh: cute.Pointer, vh: cute.Pointer, cu_seqlens: cute.Pointer,
                    attn: cute.Pointer, scale: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    bx = cute.arch.block_idx()[0]
    h = cute.arch.block_idx()[1]
    lane = tidx % 32
    warp = tidx // 32
    cu = cute.make_tensor(cu_seqlens, cute.make_layout(SEQS))
    gout = cute.make_tensor(attn, cute.make_layout((TOKENS, HEADS, D // 2, 2), stride=(EMBED, D, 2, 1)))
    sbase = cute.arch.get_dyn_smem(BF16, alignment=128)
    spad = cute.make_tensor(sbase, cute.make_layout((5 * TQ, STR), stride=(STR, 1)))

    # Which sequence and query tile: walk the 28 sequences in order, as the cuda solution does.
    t = I32(bx)
    prev = I32(0)
    start = I32(0)
    seq_len = I32(-1)
    tile = I32(0)
    for s in cutlass.range_constexpr(SEQS):
        end = cu[s].to(I32)
        ntiles = (end - prev + (TQ - 1)) // TQ
        hit = (seq_len < 0) & (t < ntiles)
        start = cutlass.select_(hit, prev, start)
        tile = cutlass.select_(hit, t, tile)
        seq_len = cutlass.select_(hit, end - prev, seq_len)
        t = t - ntiles
        prev = end

    if seq_len >= 0:   # uniform over the CTA; CTAs past the last tile do nothing
        q0 = tile * TQ
        row0 = h * TOKENS + start              # head-major row of the sequence's first token
        # Zero the padded columns 72 .. 79 of every tile once (cp.async never writes them).
        for it in cutlass.range_constexpr((5 * TQ + ATT_THREADS - 1) // ATT_THREADS):
            rr = tidx + it * ATT_THREADS
            if rr < 5 * TQ:
                for e in cutlass.range_constexpr(DP - D):
                    spad[rr, D + e] = BF16(0.0)
        load_rows(sbase, qh, 0, row0, q0, seq_len, tidx)
        load_rows(sbase, kh, TILE, row0, 0, seq_len, tidx)
        load_rows(sbase, vh, 3 * TILE, row0, 0, seq_len, tidx)
        cute.arch.cp_async_commit_group()
        n_tiles = (seq_len + (TK - 1)) // TK
        log2e_scale = scale * F32(1.4426950408889634)

        s = cute.make_rmem_tensor(cute.make_layout((NB, 4), stride=(4, 1)), F32)
        o = cute.make_rmem_tensor(cute.make_layout((DB, 4), stride=(4, 1)), F32)
        o.fill(0.0)
        m_run = cute.make_rmem_tensor((2,), F32)     # per row half (rows lane / 4 and lane / 4 + 8)
        l_run = cute.make_rmem_tensor((2,), F32)
        mx = cute.make_rmem_tensor((2,), F32)
        alpha = cute.make_rmem_tensor((2,), F32)
        rsum = cute.make_rmem_tensor((2,), F32)
        m_run.fill(NEG_INF)
        l_run.fill(0.0)

        for it in cutlass.range(n_tiles):
            if it + 1 < n_tiles:
                load_rows(sbase, kh, TILE + (it + 1) % 2 * TILE, row0, (it + 1) * TK, seq_len, tidx)
                load_rows(sbase, vh, 3 * TILE + (it + 1) % 2 * TILE, row0, (it + 1) * TK, seq_len, tidx)
                cute.arch.cp_async_commit_group()
                cute.arch.cp_async_wait_group(1)
            else:
                cute.arch.cp_async_wait_group(0)
            cute.arch.sync_threads()
            k_off = TILE + it % 2 * TILE
            v_off = 3 * TILE + it % 2 * TILE

            # S = Q K^T for this warp's 16 rows and the tile's 64 keys (k over the padded 80 columns).
            s.fill(0.0)
            for kc in cutlass.range_constexpr(DP // 16):
                a0, a1, a2, a3 = ldmatrix_x4(sbase + ((warp * 16 + lane % 16) * STR + kc * 16 + lane // 16 * 8))
                for nb2 in cutlass.range_constexpr(TK // 16):
                    b0, b1, b2, b3 = ldmatrix_x4(
                        sbase + (k_off + (nb2 * 16 + lane % 8 + lane // 16 * 8) * STR + kc * 16 + lane % 16 // 8 * 8))
                    mma16816(s, 2 * nb2, a0, a1, a2, a3, b0, b1)
                    mma16816(s, 2 * nb2 + 1, a0, a1, a2, a3, b2, b3)

            # Online softmax. s[nb, e] is key it * 64 + 8 nb + 2 (lane % 4) + e % 2 of row half e // 2.
            k_valid = seq_len - it * TK
            mx.fill(NEG_INF)
            for nb in cutlass.range_constexpr(NB):
                for e in cutlass.range_constexpr(4):
                    j = nb * 8 + lane % 4 * 2 + e % 2
                    s[nb, e] = cutlass.select_(j < k_valid, s[nb, e], F32(NEG_INF))
                    mx[e // 2] = cute.arch.fmax(mx[e // 2], s[nb, e])
            for r in cutlass.range_constexpr(2):       # a row's keys are spread over the 4 lanes of a quad
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 1))
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 2))
                mx[r] = cute.arch.fmax(m_run[r], mx[r])                        # m_new (finite: key 0 is valid)
                alpha[r] = cute.math.exp2((m_run[r] - mx[r]) * log2e_scale)   # 0 on the first tile
                m_run[r] = mx[r]
                rsum[r] = F32(0.0)
            for nb in cutlass.range_constexpr(NB):
                for e in cutlass.range_constexpr(4):
                    p = cute.math.exp2((s[nb, e] - mx[e // 2]) * log2e_scale)   # masked keys: exp2(-inf) = 0
                    s[nb, e] = p
                    rsum[e // 2] = rsum[e // 2] + p.to(BF16).to(F32)          # the rounded weights are summed
            for r in cutlass.range_constexpr(2):
                rsum[r] = rsum[r] + cute.arch.shuffle_sync_bfly(rsum[r], 1)
                rsum[r] = rsum[r] + cute.arch.shuffle_sync_bfly(rsum[r], 2)
                l_run[r] = l_run[r] * alpha[r] + rsum[r]
            for db in cutlass.range_constexpr(DB):
                for e in cutlass.range_constexpr(4):
                    o[db, e] = o[db, e] * alpha[e // 2]

            # O += P V: the S accumulators of two neighbouring 8-key blocks are the A fragment of 16 keys.
            for kc in cutlass.range_constexpr(TK // 16):
                p0 = pack_bf16x2(s[2 * kc, 0], s[2 * kc, 1])
                p1 = pack_bf16x2(s[2 * kc, 2], s[2 * kc, 3])
                p2 = pack_bf16x2(s[2 * kc + 1, 0], s[2 * kc + 1, 1])
                p3 = pack_bf16x2(s[2 * kc + 1, 2], s[2 * kc + 1, 3])
                for db2 in cutlass.range_constexpr(DP // 16):
                    b0, b1, b2, b3 = ldmatrix_x4_trans(
                        sbase + (v_off + (kc * 16 + lane % 8 + lane % 16 // 8 * 8) * STR + db2 * 16 + lane // 16 * 8))
                    mma16816(o, 2 * db2, p0, p1, p2, p3, b0, b1)
                    mma16816(o, 2 * db2 + 1, p0, p1, p2, p3, b2, b3)
            cute.arch.sync_threads()   # the next iteration refills the buffers just read

        # attn = bf16(O / l) for the valid rows, columns 0 .. 71 (n-blocks 0 .. 8).
        o2 = cute.make_rmem_tensor((2,), BF16)
        c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
        for r in cutlass.range_constexpr(2):
            i = q0 + warp * 16 + lane // 4 + r * 8
            if i < seq_len:
                for db in cutlass.range_constexpr(D // 8):
                    for e in cutlass.range_constexpr(2):
                        o2[e] = (o[db, r * 2 + e] / l_run[r]).to(BF16)
                    cute.copy(c32, o2, gout[start + i, h, db * 4 + lane % 4, None])


MKB_PLAN = """/* mkb:plan
scratch qkv bf16[total_seq_len * qkv_dim]
scratch qh bf16[total_seq_len * embed_dim]
scratch kh bf16[total_seq_len * embed_dim]
scratch vh bf16[total_seq_len * embed_dim]
scratch attn bf16[total_seq_len * embed_dim]
launch qkv_proj grid(qkv_dim / 128, total_seq_len / 128) block(256) shared(98304)
  args(hidden_states, qkv_weight, qkv_bias, qkv)
launch rope_split grid(total_seq_len * embed_dim / 1024) block(256) args(qkv, cos, sin, qh, kh, vh)
launch flash_attention grid(ceil_div(total_seq_len, 64) + num_sequences, num_heads) block(128) shared(56320)
  args(qh, kh, vh, cu_seqlens, attn, f32(scale))
launch out_proj grid(embed_dim / 128, total_seq_len / 128) block(256) shared(98304)
  args(attn, proj_weight, proj_bias, output)
*/"""
