"""Absorbed-MLA paged decode (16 heads, ckv 512, kpe 64, page size 1) in CuTe DSL: the split-KV flash
decoding of solutions/cuda.cu on bf16 tensor cores. The tensor-core and copy instructions are written with
cute.arch.inline_ptx (cp.async, ldmatrix, ldmatrix.trans, mma.sync), so the fragment layouts are those of
the PTX ISA, as in the cuda solution and the TIRx port.

mla_decode_chunk: one 128-thread CTA per (sequence, chunk of up to 256 of its tokens); the 16 heads are the
  16 rows of one m16 tensor-core tile, so every latent row (512 ckv + 64 kpe bf16) is read once for all
  heads. Per 64-token tile, copied to shared memory with cp.async (rows padded by 16 bytes):
    S = [q_nope | q_pe] . [ckv | kpe]^T   mma.sync m16n8k16 bf16, fp32 accumulation (exact products);
                                          warp w computes the logits of tokens 16w .. 16w + 15
    online softmax in fp32, base 2 (logits times sm_scale * log2(e)); the row maxima and sums of the
                                          four warps meet in shared memory
    O += P . ckv                          P rounded to bf16 and staged in shared memory, ckv through
                                          ldmatrix.trans; warp w owns output columns 128w .. 128w + 127
  Token rows past the chunk's end re-read the chunk's last token (the cuda solution zero-fills them);
  their logits are masked to -inf, so their weights are exactly 0. Each chunk writes its unnormalized fp32
  O, running max and sum.
mla_decode_merge: one 128-thread CTA per (sequence, head), four columns per thread, merges the chunks:
  M = max m_c, L = sum l_c 2^(m_c - M), output = bf16(sum o_c 2^(m_c - M) / L), lse = M + log2 L.
Chunks are numbered sequence after sequence (ceil(L_b / 256) each); the chunk CTA finds its sequence with an
inclusive scan of the per-sequence chunk counts in shared memory. The grid is an upper bound."""
import cutlass
import cutlass.cute as cute

HEADS, CKV, KPE, BATCH, NUM_PAGES, NUM_INDICES = 16, 512, 64, 64, 989669, 75145
TILE, CHUNK, THREADS = 64, 256, 128
CKV_STRIDE, KPE_STRIDE, P_STRIDE = CKV + 8, KPE + 8, TILE + 8   # padded shared rows (bf16 elements)
QN_OFF = 0
QP_OFF = QN_OFF + HEADS * CKV_STRIDE
KC_OFF = QP_OFF + HEADS * KPE_STRIDE
KP_OFF = KC_OFF + TILE * CKV_STRIDE
PS_OFF = KP_OFF + TILE * KPE_STRIDE
SMEM_ELEMS = PS_OFF + HEADS * P_STRIDE
CHUNKS = -(-NUM_INDICES // CHUNK) + BATCH      # grid: an upper bound on the chunk count (358)
F32, BF16, I32, I64, U32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32, cutlass.Int64, cutlass.Uint32
NEG_INF = float("-inf")
assert SMEM_ELEMS * 2 == 97024 and BATCH <= THREADS == 128 and CHUNK % TILE == 0


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


@cute.kernel
def mla_decode_chunk(q_nope: cute.Pointer, q_pe: cute.Pointer, ckv: cute.Pointer, kpe: cute.Pointer,
                     kv_indptr: cute.Pointer, kv_indices: cute.Pointer, part_o: cute.Pointer, part_ml: cute.Pointer,
                     scale_log2: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    c = cute.arch.block_idx()[0]
    lane = tidx % 32
    warp = tidx // 32
    g = lane // 4
    indptr = cute.make_tensor(kv_indptr, cute.make_layout(BATCH + 1))
    indices = cute.make_tensor(kv_indices, cute.make_layout(NUM_INDICES))
    po = cute.make_tensor(part_o, cute.make_layout((CHUNKS, HEADS, CKV), stride=(HEADS * CKV, CKV, 1)))
    pml = cute.make_tensor(part_ml, cute.make_layout((CHUNKS, HEADS, 2), stride=(HEADS * 2, 2, 1)))
    sbase = cute.arch.get_dyn_smem(BF16, alignment=128)
    sm = cute.make_tensor(sbase, cute.make_layout(SMEM_ELEMS))
    scan = cute.make_tensor(cute.arch.alloc_smem(I32, 2 * THREADS), cute.make_layout((2, THREADS), stride=(THREADS, 1)))
    found = cute.make_tensor(cute.arch.alloc_smem(I32, 2), cute.make_layout(2))
    tok = cute.make_tensor(cute.arch.alloc_smem(I32, TILE), cute.make_layout(TILE))
    red_max = cute.make_tensor(cute.arch.alloc_smem(F32, 4 * HEADS), cute.make_layout((4, HEADS), stride=(HEADS, 1)))
    red_sum = cute.make_tensor(cute.arch.alloc_smem(F32, 4 * HEADS), cute.make_layout((4, HEADS), stride=(HEADS, 1)))

    # Which sequence and chunk: inclusive scan of the per-sequence chunk counts.
    if tidx == 0:
        found[0] = I32(-1)
        found[1] = I32(0)
    cnt = I32(0)
    if tidx < BATCH:
        cnt = (indptr[tidx + 1] - indptr[tidx] + (CHUNK - 1)) // CHUNK
    scan[0, tidx] = cnt
    for step in cutlass.range_constexpr(7):   # offsets 1 .. 64; step k reads row k % 2, writes the other
        cute.arch.sync_threads()
        add = I32(0)
        if tidx >= (1 << step):
            add = scan[step % 2, tidx - (1 << step)]
        scan[(step + 1) % 2, tidx] = scan[step % 2, tidx] + add
    cute.arch.sync_threads()
    if tidx < BATCH:
        incl = scan[1, tidx]
        if (c < incl) & (c >= incl - cnt):
            found[0] = tidx
            found[1] = c + cnt - incl
    cute.arch.sync_threads()

    b = found[0]
    if b >= 0:  # uniform over the CTA
        begin = indptr[b] + found[1] * CHUNK
        end = cutlass.min(indptr[b + 1], begin + CHUNK)
        n_tiles = (end - begin + (TILE - 1)) // TILE

        # Q of the sequence: 16 heads x (512 + 64), into padded rows.
        for i in cutlass.range_constexpr(HEADS * CKV // 8 // THREADS):
            r = tidx // 64 + i * 2
            cp_async16(sbase + (QN_OFF + r * CKV_STRIDE + tidx % 64 * 8),
                       q_nope + ((b * HEADS + r) * CKV + tidx % 64 * 8))
        cp_async16(sbase + (QP_OFF + tidx // 8 * KPE_STRIDE + tidx % 8 * 8),
                   q_pe + ((b * HEADS + tidx // 8) * KPE + tidx % 8 * 8))

        s = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), F32)
        acc = cute.make_rmem_tensor(cute.make_layout((16, 4), stride=(4, 1)), F32)
        acc.fill(0.0)
        # per row half r (heads g and g + 8): running max and sum; tile max, max used, rescale, tile sum
        m_run = cute.make_rmem_tensor((2,), F32)
        l_run = cute.make_rmem_tensor((2,), F32)
        mx = cute.make_rmem_tensor((2,), F32)
        m_use = cute.make_rmem_tensor((2,), F32)
        alpha = cute.make_rmem_tensor((2,), F32)
        rsum = cute.make_rmem_tensor((2,), F32)
        m_run.fill(NEG_INF)
        l_run.fill(0.0)

        for it in cutlass.range(n_tiles):
            if tidx < TILE:   # past the chunk's end: the chunk's last token (masked below)
                tok[tidx] = indices[cutlass.min(begin + it * TILE + tidx, end - 1)]
            cute.arch.sync_threads()
            for i in cutlass.range_constexpr(TILE * CKV // 8 // THREADS):
                r = tidx // 64 + i * 2
                cp_async16(sbase + (KC_OFF + r * CKV_STRIDE + tidx % 64 * 8),
                           ckv + (I64(tok[r]) * CKV + tidx % 64 * 8))
            for i in cutlass.range_constexpr(TILE * KPE // 8 // THREADS):
                r = tidx // 8 + i * 16
                cp_async16(sbase + (KP_OFF + r * KPE_STRIDE + tidx % 8 * 8),
                           kpe + (I64(tok[r]) * KPE + tidx % 8 * 8))
            cute.arch.cp_async_commit_group()
            cute.arch.cp_async_wait_group(0)
            cute.arch.sync_threads()

            # S for this warp's 16 tokens (two n8 tiles): A = the 16 heads' q rows, B = the token rows.
            s.fill(0.0)
            for kc in cutlass.range_constexpr(CKV // 16):
                a0, a1, a2, a3 = ldmatrix_x4(sbase + (QN_OFF + lane % 16 * CKV_STRIDE + kc * 16 + lane // 16 * 8))
                b0, b1, b2, b3 = ldmatrix_x4(
                    sbase + (KC_OFF + (warp * 16 + lane % 8 + lane // 16 * 8) * CKV_STRIDE + kc * 16 + lane % 16 // 8 * 8))
                mma16816(s, 0, a0, a1, a2, a3, b0, b1)
                mma16816(s, 1, a0, a1, a2, a3, b2, b3)
            for kc in cutlass.range_constexpr(KPE // 16):
                a0, a1, a2, a3 = ldmatrix_x4(sbase + (QP_OFF + lane % 16 * KPE_STRIDE + kc * 16 + lane // 16 * 8))
                b0, b1, b2, b3 = ldmatrix_x4(
                    sbase + (KP_OFF + (warp * 16 + lane % 8 + lane // 16 * 8) * KPE_STRIDE + kc * 16 + lane % 16 // 8 * 8))
                mma16816(s, 0, a0, a1, a2, a3, b0, b1)
                mma16816(s, 1, a0, a1, a2, a3, b2, b3)

            # Scale into base 2, mask the rows past the chunk, tile row maxima (s[nt, e]: head g + 8 (e / 2),
            # token 16 warp + 8 nt + 2 (lane % 4) + e % 2 of the tile).
            mx.fill(NEG_INF)
            for nt in cutlass.range_constexpr(2):
                for e in cutlass.range_constexpr(4):
                    valid = begin + it * TILE + warp * 16 + nt * 8 + lane % 4 * 2 + e % 2 < end
                    s[nt, e] = cutlass.select_(valid, s[nt, e] * scale_log2, F32(NEG_INF))
                    mx[e // 2] = cute.arch.fmax(mx[e // 2], s[nt, e])
            for r in cutlass.range_constexpr(2):
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 1))
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 2))
            if lane % 4 == 0:
                red_max[warp, g] = mx[0]
                red_max[warp, g + 8] = mx[1]
            cute.arch.sync_threads()
            for r in cutlass.range_constexpr(2):
                mx[r] = cute.arch.fmax(m_run[r], cute.arch.fmax(
                    cute.arch.fmax(red_max[0, g + r * 8], red_max[1, g + r * 8]),
                    cute.arch.fmax(red_max[2, g + r * 8], red_max[3, g + r * 8])))
                m_use[r] = cutlass.select_(mx[r] > F32(NEG_INF), mx[r], F32(0.0))
                alpha[r] = cute.math.exp2(m_run[r] - m_use[r])
                m_run[r] = mx[r]
                rsum[r] = F32(0.0)
            for nt in cutlass.range_constexpr(2):
                for e in cutlass.range_constexpr(4):
                    s[nt, e] = cute.math.exp2(s[nt, e] - m_use[e // 2])
                    rsum[e // 2] = rsum[e // 2] + s[nt, e]
                    sm[PS_OFF + (g + e // 2 * 8) * P_STRIDE + warp * 16 + nt * 8 + lane % 4 * 2 + e % 2] = \
                        s[nt, e].to(BF16)
            for r in cutlass.range_constexpr(2):
                rsum[r] = rsum[r] + cute.arch.shuffle_sync_bfly(rsum[r], 1)
                rsum[r] = rsum[r] + cute.arch.shuffle_sync_bfly(rsum[r], 2)
            if lane % 4 == 0:
                red_sum[warp, g] = rsum[0]
                red_sum[warp, g + 8] = rsum[1]
            cute.arch.sync_threads()
            for r in cutlass.range_constexpr(2):
                l_run[r] = l_run[r] * alpha[r] + ((red_sum[0, g + r * 8] + red_sum[1, g + r * 8])
                                                  + (red_sum[2, g + r * 8] + red_sum[3, g + r * 8]))

            # O (this warp's 128 columns) = alpha O + P . ckv
            for j in cutlass.range_constexpr(16):
                for e in cutlass.range_constexpr(4):
                    acc[j, e] = acc[j, e] * alpha[e // 2]
            for kc in cutlass.range_constexpr(TILE // 16):
                p0, p1, p2, p3 = ldmatrix_x4(sbase + (PS_OFF + lane % 16 * P_STRIDE + kc * 16 + lane // 16 * 8))
                for jj in cutlass.range_constexpr(8):
                    b0, b1, b2, b3 = ldmatrix_x4_trans(
                        sbase + (KC_OFF + (kc * 16 + lane % 8 + lane % 16 // 8 * 8) * CKV_STRIDE + warp * 128
                                 + jj * 16 + lane // 16 * 8))
                    mma16816(acc, 2 * jj, p0, p1, p2, p3, b0, b1)
                    mma16816(acc, 2 * jj + 1, p0, p1, p2, p3, b2, b3)
            cute.arch.sync_threads()   # tok, the K tiles, P and the reductions are rewritten by the next tile

        # Unnormalized partial O [16][512] fp32 and (max, sum) per head.
        for j in cutlass.range_constexpr(16):
            for r in cutlass.range_constexpr(2):
                for e in cutlass.range_constexpr(2):
                    po[c, g + r * 8, warp * 128 + j * 8 + lane % 4 * 2 + e] = acc[j, r * 2 + e]
        if warp == 0:
            if lane % 4 == 0:
                pml[c, g, 0] = m_run[0]
                pml[c, g, 1] = l_run[0]
                pml[c, g + 8, 0] = m_run[1]
                pml[c, g + 8, 1] = l_run[1]


@cute.kernel
def mla_decode_merge(part_o: cute.Pointer, part_ml: cute.Pointer, kv_indptr: cute.Pointer, output: cute.Pointer,
                     lse: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    bx = cute.arch.block_idx()[0]
    b = bx // HEADS
    h = bx % HEADS
    indptr = cute.make_tensor(kv_indptr, cute.make_layout(BATCH + 1))
    po = cute.make_tensor(part_o, cute.make_layout((CHUNKS, HEADS, CKV // 4, 4), stride=(HEADS * CKV, CKV, 4, 1)))
    pml = cute.make_tensor(part_ml, cute.make_layout((CHUNKS, HEADS, 2), stride=(HEADS * 2, 2, 1)))
    gout = cute.make_tensor(output, cute.make_layout((BATCH, HEADS, CKV // 4, 4), stride=(HEADS * CKV, CKV, 4, 1)))
    glse = cute.make_tensor(lse, cute.make_layout((BATCH, HEADS), stride=(HEADS, 1)))
    first = I32(0)
    for sq in cutlass.range(b):
        first = first + (indptr[sq + 1] - indptr[sq] + (CHUNK - 1)) // CHUNK
    count = (indptr[b + 1] - indptr[b] + (CHUNK - 1)) // CHUNK
    m = F32(NEG_INF)
    for i in cutlass.range(count):
        m = cutlass.select_(pml[first + i, h, 1] > F32(0.0), cute.arch.fmax(m, pml[first + i, h, 0]), m)
    total = F32(0.0)
    o = cute.make_rmem_tensor((4,), F32)
    o.fill(0.0)
    ov = cute.make_rmem_tensor((4,), F32)
    copy16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    for i in cutlass.range(count):
        li = pml[first + i, h, 1]
        w = cutlass.select_(li > F32(0.0), cute.math.exp2(pml[first + i, h, 0] - m), F32(0.0))
        total = total + w * li
        cute.copy(copy16, po[first + i, h, tidx, None], ov)
        for e in cutlass.range_constexpr(4):
            o[e] = o[e] + w * ov[e]
    inv = cutlass.select_(total > F32(0.0), F32(1.0) / total, F32(0.0))
    ob = cute.make_rmem_tensor((4,), BF16)
    for e in cutlass.range_constexpr(4):
        ob[e] = (o[e] * inv).to(BF16)
    cute.autovec_copy(ob, gout[b, h, tidx, None])
    if tidx == 0:
        glse[b, h] = cutlass.select_(total > F32(0.0), m + cute.math.log2(total), F32(NEG_INF))


MKB_PLAN = """/* mkb:plan
scratch part_o fp32[(ceil_div(num_kv_indices, 256) + batch_size) * 16 * 512]
scratch part_ml fp32[(ceil_div(num_kv_indices, 256) + batch_size) * 16 * 2]
launch mla_decode_chunk grid(ceil_div(num_kv_indices, 256) + batch_size) block(128) shared(97024)
  args(q_nope, q_pe, ckv_cache, kpe_cache, kv_indptr, kv_indices, part_o, part_ml, f32(sm_scale * 1.4426950408889634))
launch mla_decode_merge grid(batch_size * 16) block(128) args(part_o, part_ml, kv_indptr, output, lse)
*/"""
