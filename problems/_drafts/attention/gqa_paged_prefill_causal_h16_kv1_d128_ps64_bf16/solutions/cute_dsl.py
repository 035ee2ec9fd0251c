"""Causal paged GQA prefill (16 query heads, 1 KV head, head dim 128, page size 64) in CuTe DSL: the
flash-attention forward of solutions/cuda.cu on bf16 tensor cores (mma.sync m16n8k16, fp32 accumulation),
online softmax in fp32, base 2. The tensor-core and copy instructions are written with cute.arch.inline_ptx
(cp.async, ldmatrix, ldmatrix.trans, mma.sync, cvt.rn.bf16x2), so the fragment layouts are those of the
PTX ISA, exactly as in the cuda solution; the indexing is that of the TIRx port (solutions/tirx.py).

Rows: for request b and KV head g (g = 0: one KV head), the 16 query heads of g's group are packed with
the tokens into rows r = i * 16 + hh (query i, head 16 g + hh), so each K/V tile loaded serves all 16 heads
(a warp's 16 rows are one query's 16 heads). A CTA of 4 warps (16 rows each) owns 64 such rows of one
request and walks the request's keys in tiles of 64, gathered page by page (key j is slot j % 64 of page kv_indices[kv_indptr[b] + j / 64]) with cp.async
into double-buffered shared memory; shared rows are padded by 16 bytes so that the 8 row addresses of an
ldmatrix fall in distinct banks (the cuda solution XOR-swizzles instead). kv_len = 64 (pages - 1) +
kv_last_page_len[b]. Key tiles past the causal limit of the tile's last row are never loaded. Where the
cuda solution zero-fills, the copies here re-read a valid row (Q rows past the request: its last packed
row; keys past the tile's key limit: the last key it may see); those keys are masked to -inf (weight
exactly 0) and those rows are not stored. The mask (bottom-right causal: key j allowed for row r iff
j < min(kv_len, r / 16 + 1 + kv_len - q_len)) is applied in every tile (a no-op on the tiles the cuda
solution leaves unmasked). Logits are (q.k) in fp32 times sm_scale * log2(e) (a plan argument), so the
running maximum and the LSE are in base 2 directly. The softmax weights are rounded to bf16 for the P.V
product (the A operand is built from the S accumulators in registers); their row sums stay fp32; the
output is divided by the fp32 row sum and rounded to bf16 once.

CTA x = item (one KV head). The row tiles of all requests are numbered in order (an inclusive Hillis-Steele
scan of the per-request tile counts in shared memory) and taken from the last one backwards, item 0 being
the last tile, as in the cuda solution (the longest rows start first). The grid is an upper bound: CTAs
past the first tile do nothing."""
import cutlass
import cutlass.cute as cute

QO_HEADS, KV_HEADS, D, PAGE = 16, 1, 128, 64
GROUP = QO_HEADS // KV_HEADS                  # 16 query heads per KV head
BATCH, TOTAL_Q, NUM_INDICES, NUM_PAGES = 15, 969, 969, 4166
BM, BN, THREADS = 64, 64, 128                 # packed rows, keys per tile; 4 warps
STRIDE = D + 8                                # padded shared rows (bf16 elements)
Q_TILE = K_TILE = V_TILE = 64 * STRIDE
SMEM = (Q_TILE + 2 * K_TILE + 2 * V_TILE) * 2  # bytes of dynamic shared memory: the plan's shared(...)
CHUNKS = D // 8                               # 16-byte chunks per row
NB, DB = BN // 8, D // 8                      # n-blocks of S and of O per warp row block
F32, BF16, I32, I64, U32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32, cutlass.Int64, cutlass.Uint32
NEG_INF = float("-inf")
assert NUM_PAGES * PAGE * KV_HEADS * D < 2**31 and TOTAL_Q * QO_HEADS * D < 2**31
assert SMEM == 87040 and BATCH <= THREADS == 128 and BM == 16 * (THREADS // 32) and (BN * CHUNKS) % THREADS == 0


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
def load_kv_tile(sbase, k, v, idx, slot, kv_first, n0, n_keys, g, tidx):
    """Keys n0 .. n0 + BN - 1 of the request into K/V buffer `slot`; keys past n_keys re-read key n_keys - 1."""
    for i in cutlass.range_constexpr(BN * CHUNKS // THREADS):
        r = tidx // CHUNKS + i * (THREADS // CHUNKS)
        j = cutlass.min(n0 + r, n_keys - 1)
        off = ((I64(idx[kv_first + j // PAGE]) * PAGE + j % PAGE) * KV_HEADS + g) * D + tidx % CHUNKS * 8
        cp_async16(sbase + (Q_TILE + slot * K_TILE + r * STRIDE + tidx % CHUNKS * 8), k + off)
        cp_async16(sbase + (Q_TILE + 2 * K_TILE + slot * V_TILE + r * STRIDE + tidx % CHUNKS * 8), v + off)


@cute.kernel
def paged_prefill_fa(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, qo_indptr: cute.Pointer,
                     kv_indptr: cute.Pointer, kv_indices: cute.Pointer, last_page_len: cute.Pointer,
                     out: cute.Pointer, lse: cute.Pointer, scale_log2: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    bx = cute.arch.block_idx()[0]
    lane = tidx % 32
    warp = tidx // 32
    g = bx % KV_HEADS
    qo = cute.make_tensor(qo_indptr, cute.make_layout(BATCH + 1))
    kvp = cute.make_tensor(kv_indptr, cute.make_layout(BATCH + 1))
    last = cute.make_tensor(last_page_len, cute.make_layout(BATCH))
    idx = cute.make_tensor(kv_indices, cute.make_layout(NUM_INDICES))
    gout = cute.make_tensor(out, cute.make_layout((TOTAL_Q, QO_HEADS, D), stride=(QO_HEADS * D, D, 1)))
    glse = cute.make_tensor(lse, cute.make_layout((TOTAL_Q, QO_HEADS), stride=(QO_HEADS, 1)))
    sbase = cute.arch.get_dyn_smem(BF16, alignment=128)
    scan = cute.make_tensor(cute.arch.alloc_smem(I32, 2 * THREADS), cute.make_layout((2, THREADS), stride=(THREADS, 1)))
    found = cute.make_tensor(cute.arch.alloc_smem(I32, 2), cute.make_layout(2))

    # Which request and row tile: inclusive scan of the per-request tile counts; item = total - 1 - bx.
    if tidx == 0:
        found[0] = I32(-1)
        found[1] = I32(0)
    cnt = I32(0)
    if tidx < BATCH:
        cnt = ((qo[tidx + 1] - qo[tidx]) * GROUP + (BM - 1)) // BM
    scan[0, tidx] = cnt
    for step in cutlass.range_constexpr(7):   # offsets 1 .. 64; step k reads row k % 2, writes the other
        cute.arch.sync_threads()
        add = I32(0)
        if tidx >= (1 << step):
            add = scan[step % 2, tidx - (1 << step)]
        scan[(step + 1) % 2, tidx] = scan[step % 2, tidx] + add
    cute.arch.sync_threads()
    item = scan[1, THREADS - 1] - 1 - bx // KV_HEADS   # scan[1, THREADS - 1]: the total tile count
    if tidx < BATCH:
        incl = scan[1, tidx]
        if (item < incl) & (item >= incl - cnt):
            found[0] = tidx
            found[1] = item + cnt - incl
    cute.arch.sync_threads()

    b = found[0]
    if b >= 0:  # uniform over the CTA
        qs = qo[b]
        rows = (qo[b + 1] - qs) * GROUP
        kv_first = kvp[b]
        kv_len = I32(0)
        if kvp[b + 1] > kv_first:
            kv_len = (kvp[b + 1] - kv_first - 1) * PAGE + last[b]
        delta = kv_len - rows // GROUP
        r0 = found[1] * BM
        # keys any row of the tile sees: n_keys = min(kv_len, last query + delta + 1)
        n_keys = cutlass.max(I32(0), cutlass.min(kv_len, (cutlass.min(r0 + BM, rows) - 1) // GROUP + delta + 1))
        n_tiles = (n_keys + (BN - 1)) // BN

        for i in cutlass.range_constexpr(BM * CHUNKS // THREADS):   # the Q tile; rows past the request re-read
            r = tidx // CHUNKS + i * (THREADS // CHUNKS)
            rc = cutlass.min(r0 + r, rows - 1)
            cp_async16(sbase + (r * STRIDE + tidx % CHUNKS * 8),
                       q + ((I64(qs + rc // GROUP) * QO_HEADS + g * GROUP + rc % GROUP) * D + tidx % CHUNKS * 8))
        if n_tiles > 0:
            load_kv_tile(sbase, k, v, idx, 0, kv_first, 0, n_keys, g, tidx)
        cute.arch.cp_async_commit_group()

        s = cute.make_rmem_tensor(cute.make_layout((NB, 4), stride=(4, 1)), F32)
        o = cute.make_rmem_tensor(cute.make_layout((DB, 4), stride=(4, 1)), F32)
        o.fill(0.0)
        # per row half r (rows lane / 4 and lane / 4 + 8): running max and sum; tile max, max used, rescale, sum
        m_run = cute.make_rmem_tensor((2,), F32)
        l_run = cute.make_rmem_tensor((2,), F32)
        mx = cute.make_rmem_tensor((2,), F32)
        m_use = cute.make_rmem_tensor((2,), F32)
        alpha = cute.make_rmem_tensor((2,), F32)
        rsum = cute.make_rmem_tensor((2,), F32)
        m_run.fill(NEG_INF)
        l_run.fill(0.0)
        row_a = r0 + warp * 16 + lane // 4       # packed row of accumulator elements e = 0, 1; e = 2, 3: row_a + 8
        lim0 = cutlass.min(kv_len, row_a // GROUP + delta + 1)
        lim1 = cutlass.min(kv_len, (row_a + 8) // GROUP + delta + 1)

        for it in cutlass.range(n_tiles):
            if it + 1 < n_tiles:
                load_kv_tile(sbase, k, v, idx, (it + 1) % 2, kv_first, (it + 1) * BN, n_keys, g, tidx)
                cute.arch.cp_async_commit_group()
                cute.arch.cp_async_wait_group(1)
            else:
                cute.arch.cp_async_wait_group(0)
            cute.arch.sync_threads()
            k_off = Q_TILE + it % 2 * K_TILE
            v_off = Q_TILE + 2 * K_TILE + it % 2 * V_TILE

            # S = Q K^T for this warp's 16 rows and the tile's BN keys.
            s.fill(0.0)
            for kc in cutlass.range_constexpr(D // 16):
                a0, a1, a2, a3 = ldmatrix_x4(sbase + ((warp * 16 + lane % 16) * STRIDE + kc * 16 + lane // 16 * 8))
                for nb2 in cutlass.range_constexpr(BN // 16):
                    b0, b1, b2, b3 = ldmatrix_x4(
                        sbase + (k_off + (nb2 * 16 + lane % 8 + lane // 16 * 8) * STRIDE + kc * 16 + lane % 16 // 8 * 8))
                    mma16816(s, 2 * nb2, a0, a1, a2, a3, b0, b1)
                    mma16816(s, 2 * nb2 + 1, a0, a1, a2, a3, b2, b3)

            # Scale to base 2 and mask: s[nb, e] is key it*BN + 8nb + 2(lane % 4) + e % 2 of packed row
            # row_a + 8 (e / 2), whose key limit is lim0 or lim1.
            mx.fill(NEG_INF)
            for nb in cutlass.range_constexpr(NB):
                for e in cutlass.range_constexpr(4):
                    j = it * BN + nb * 8 + lane % 4 * 2 + e % 2
                    lim = lim0 if e < 2 else lim1
                    s[nb, e] = cutlass.select_(j >= lim, F32(NEG_INF), s[nb, e] * scale_log2)
                for r in cutlass.range_constexpr(2):
                    mx[r] = cute.arch.fmax(mx[r], cute.arch.fmax(s[nb, 2 * r], s[nb, 2 * r + 1]))
            for r in cutlass.range_constexpr(2):   # a row's keys are spread over the 4 lanes of a quad
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 1))
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 2))
                mx[r] = cute.arch.fmax(m_run[r], mx[r])
                m_use[r] = cutlass.select_(mx[r] == F32(NEG_INF), F32(0.0), mx[r])
                alpha[r] = cute.math.exp2(m_run[r] - m_use[r])
                m_run[r] = mx[r]
                rsum[r] = F32(0.0)
            for nb in cutlass.range_constexpr(NB):
                for e in cutlass.range_constexpr(4):
                    s[nb, e] = cute.math.exp2(s[nb, e] - m_use[e // 2])
                for r in cutlass.range_constexpr(2):
                    rsum[r] = rsum[r] + (s[nb, 2 * r] + s[nb, 2 * r + 1])
            for r in cutlass.range_constexpr(2):
                l_run[r] = l_run[r] * alpha[r] + rsum[r]
            for db in cutlass.range_constexpr(DB):
                for e in cutlass.range_constexpr(4):
                    o[db, e] = o[db, e] * alpha[e // 2]

            # O += P V: the S accumulators of two neighbouring 8-key blocks are the A fragment of 16 keys.
            for kc in cutlass.range_constexpr(BN // 16):
                p0 = pack_bf16x2(s[2 * kc, 0], s[2 * kc, 1])
                p1 = pack_bf16x2(s[2 * kc, 2], s[2 * kc, 3])
                p2 = pack_bf16x2(s[2 * kc + 1, 0], s[2 * kc + 1, 1])
                p3 = pack_bf16x2(s[2 * kc + 1, 2], s[2 * kc + 1, 3])
                for db2 in cutlass.range_constexpr(D // 16):
                    b0, b1, b2, b3 = ldmatrix_x4_trans(
                        sbase + (v_off + (kc * 16 + lane % 8 + lane % 16 // 8 * 8) * STRIDE + db2 * 16 + lane // 16 * 8))
                    mma16816(o, 2 * db2, p0, p1, p2, p3, b0, b1)
                    mma16816(o, 2 * db2 + 1, p0, p1, p2, p3, b2, b3)
            cute.arch.sync_threads()   # the next iteration refills the buffer just read
        cute.arch.cp_async_wait_group(0)   # the Q copies, where no key tile was loaded

        # Finish: the row sums over the quad, normalize, store the bf16 output and the base-2 LSE.
        for r in cutlass.range_constexpr(2):
            l_run[r] = l_run[r] + cute.arch.shuffle_sync_bfly(l_run[r], 1)
            l_run[r] = l_run[r] + cute.arch.shuffle_sync_bfly(l_run[r], 2)
            rsum[r] = cutlass.select_(l_run[r] > F32(0.0), F32(1.0) / l_run[r], F32(0.0))
        for r in cutlass.range_constexpr(2):
            row = row_a + r * 8
            if row < rows:
                t = qs + row // GROUP
                h = g * GROUP + row % GROUP
                for db in cutlass.range_constexpr(DB):
                    for e in cutlass.range_constexpr(2):
                        gout[t, h, db * 8 + lane % 4 * 2 + e] = (o[db, r * 2 + e] * rsum[r]).to(BF16)
                if lane % 4 == 0:
                    glse[t, h] = cutlass.select_(l_run[r] > F32(0.0), m_run[r] + cute.math.log2(l_run[r]),
                                                 F32(NEG_INF))


MKB_PLAN = """/* mkb:plan
launch paged_prefill_fa grid(num_kv_heads * (ceil_div(total_q * 16, 64) + batch_size)) block(128) shared(87040)
  args(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, kv_last_page_len, output, lse,
       f32(sm_scale * 1.4426950408889634))
*/"""
