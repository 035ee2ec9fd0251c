"""Causal absorbed-MLA paged prefill (16 heads, ckv 512, kpe 64, page size 1) in CuTe DSL: the kernel of
solutions/cuda.cu on bf16 tensor cores, one 128-thread CTA per query token, its whole causal window in
one CTA (no split, no merge). The tensor-core and copy instructions are written with cute.arch.inline_ptx
(cp.async, ldmatrix, ldmatrix.trans, mma.sync), so the fragment layouts are those of the PTX ISA, as in the
cuda solution and the TIRx port (solutions/tirx.py), whose indexing this is.

Query token t = qo_indptr[s] + i of sequence s (found by the thread tidx < 28 with qo_indptr[tidx] <= t <
qo_indptr[tidx + 1]) sees the first min(kv_len, kv_len - q_len + i + 1) tokens of the sequence's KV, pages
kv_indices[kv_indptr[s] + j] (a page is a token). The 16 heads are the 16 rows of one m16 tensor-core tile,
so each latent row (512 ckv + 64 kpe bf16) is read once per query token for all heads. Per 64-token tile,
copied to shared memory with cp.async (rows padded by 16 bytes, so the 8 row addresses of an ldmatrix fall
in distinct banks):
  S = [q_nope | q_pe] . [ckv | kpe]^T   mma.sync m16n8k16 bf16, fp32 accumulation (exact products);
                                        warp w computes the logits of tokens 16w .. 16w + 15
  online softmax in fp32, base 2 (logits times sm_scale * log2(e), a plan argument); the row maxima and
                                        sums of the four warps meet in shared memory
  O += P . ckv                          P rounded to bf16 and staged in shared memory, ckv through
                                        ldmatrix.trans; warp w owns output columns 128w .. 128w + 127
Token rows past the window's end re-read its last token (the cuda solution zero-fills them); their logits
are masked to -inf, so their weights are exactly 0. At the end O / sum is rounded once to bf16 and
lse = max + log2(sum) (-inf and zeros for an empty window, which the fixed indptr tuples never give).
The cuda solution reads the A and B fragments with 32-bit shared loads, this port with ldmatrix: the same
values in the same registers."""
import cutlass
import cutlass.cute as cute

HEADS, CKV, KPE, BATCH, TOTAL_Q, NUM_PAGES, NUM_INDICES = 16, 512, 64, 28, 1954, 989669, 2044
TILE, THREADS = 64, 128
CKV_STRIDE, KPE_STRIDE, P_STRIDE = CKV + 8, KPE + 8, TILE + 8   # padded shared rows (bf16 elements)
QN_OFF = 0
QP_OFF = QN_OFF + HEADS * CKV_STRIDE
KC_OFF = QP_OFF + HEADS * KPE_STRIDE
KP_OFF = KC_OFF + TILE * CKV_STRIDE
PS_OFF = KP_OFF + TILE * KPE_STRIDE
SMEM_ELEMS = PS_OFF + HEADS * P_STRIDE
F32, BF16, I32, I64, U32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32, cutlass.Int64, cutlass.Uint32
NEG_INF = float("-inf")
assert SMEM_ELEMS * 2 == 97024 and BATCH <= THREADS == 128
assert NUM_PAGES * CKV < 2**31 and TOTAL_Q * HEADS * CKV < 2**31


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
def mla_prefill_query(q_nope: cute.Pointer, q_pe: cute.Pointer, ckv: cute.Pointer, kpe: cute.Pointer,
                      qo_indptr: cute.Pointer, kv_indptr: cute.Pointer, kv_indices: cute.Pointer,
                      output: cute.Pointer, lse: cute.Pointer, scale_log2: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    b = cute.arch.block_idx()[0]
    lane = tidx % 32
    warp = tidx // 32
    g = lane // 4
    qo = cute.make_tensor(qo_indptr, cute.make_layout(BATCH + 1))
    kvp = cute.make_tensor(kv_indptr, cute.make_layout(BATCH + 1))
    indices = cute.make_tensor(kv_indices, cute.make_layout(NUM_INDICES))
    gout = cute.make_tensor(output, cute.make_layout((TOTAL_Q, HEADS, CKV), stride=(HEADS * CKV, CKV, 1)))
    glse = cute.make_tensor(lse, cute.make_layout((TOTAL_Q, HEADS), stride=(HEADS, 1)))
    sbase = cute.arch.get_dyn_smem(BF16, alignment=128)
    sm = cute.make_tensor(sbase, cute.make_layout(SMEM_ELEMS))
    found = cute.make_tensor(cute.arch.alloc_smem(I32, 1), cute.make_layout(1))
    tok = cute.make_tensor(cute.arch.alloc_smem(I32, TILE), cute.make_layout(TILE))
    red_max = cute.make_tensor(cute.arch.alloc_smem(F32, 4 * HEADS), cute.make_layout((4, HEADS), stride=(HEADS, 1)))
    red_sum = cute.make_tensor(cute.arch.alloc_smem(F32, 4 * HEADS), cute.make_layout((4, HEADS), stride=(HEADS, 1)))

    # Which sequence: the one whose query rows hold b (every sequence has at least one).
    if tidx == 0:
        found[0] = I32(0)
    cute.arch.sync_threads()
    if tidx < BATCH:
        if (qo[tidx] <= b) & (b < qo[tidx + 1]):
            found[0] = tidx
    cute.arch.sync_threads()
    sq = found[0]
    # the window: KV positions 0 .. (kv_len - q_len) + i of the sequence, as slots begin .. end - 1 of kv_indices
    begin = kvp[sq]
    kv_len = kvp[sq + 1] - begin
    end = begin + cutlass.max(I32(0), cutlass.min(kv_len, kv_len - (qo[sq + 1] - qo[sq]) + (b - qo[sq]) + 1))
    n_tiles = (end - begin + (TILE - 1)) // TILE

    # Q of the token: 16 heads x (512 + 64), into padded rows.
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
        if tidx < TILE:   # past the window's end: its last token (masked below)
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
        cute.arch.cp_async_wait_group(0)   # the Q copies too, in the first tile
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

        # Scale into base 2, mask the rows past the window, tile row maxima (s[nt, e]: head g + 8 (e / 2),
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
            m_use[r] = cutlass.select_(mx[r] == F32(NEG_INF), F32(0.0), mx[r])
            alpha[r] = cute.math.exp2(m_run[r] - m_use[r])
            m_run[r] = mx[r]
            rsum[r] = F32(0.0)
        for nt in cutlass.range_constexpr(2):
            for e in cutlass.range_constexpr(4):
                s[nt, e] = cute.math.exp2(s[nt, e] - m_use[e // 2])
                sm[PS_OFF + (g + e // 2 * 8) * P_STRIDE + warp * 16 + nt * 8 + lane % 4 * 2 + e % 2] = \
                    s[nt, e].to(BF16)
            for r in cutlass.range_constexpr(2):
                rsum[r] = rsum[r] + (s[nt, 2 * r] + s[nt, 2 * r + 1])
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
    cute.arch.cp_async_wait_group(0)   # the Q copies, where the window is empty

    # output = O / sum (bf16, rounded once), lse = max + log2(sum) per head.
    for r in cutlass.range_constexpr(2):
        rsum[r] = cutlass.select_(l_run[r] > F32(0.0), F32(1.0) / l_run[r], F32(0.0))
    for j in cutlass.range_constexpr(16):
        for r in cutlass.range_constexpr(2):
            for e in cutlass.range_constexpr(2):
                gout[b, g + r * 8, warp * 128 + j * 8 + lane % 4 * 2 + e] = (acc[j, r * 2 + e] * rsum[r]).to(BF16)
    if warp == 0:
        if lane % 4 == 0:
            for r in cutlass.range_constexpr(2):
                glse[b, g + r * 8] = cutlass.select_(l_run[r] > F32(0.0), m_run[r] + cute.math.log2(l_run[r]),
                                                     F32(NEG_INF))


MKB_PLAN = """/* mkb:plan
launch mla_prefill_query grid(total_q) block(128) shared(97024)
  args(q_nope, q_pe, ckv_cache, kpe_cache, qo_indptr, kv_indptr, kv_indices, output, lse,
       f32(sm_scale * 1.4426950408889634))
*/"""
