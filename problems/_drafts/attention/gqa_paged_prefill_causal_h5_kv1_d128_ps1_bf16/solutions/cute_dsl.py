"""Causal paged GQA prefill (5 query heads, 1 KV head, head dim 128, page size 1) in CuTe DSL: a flash-attention
forward on bf16 tensor cores (mma.sync m16n8k16, fp32 accumulation) with the online
softmax in fp32, base 2: the kernel of the ragged prefill #08's port with the K and V rows gathered
through kv_indices (key j of request b is page kv_indices[kv_indptr[b] + j]). Unlike solutions/cuda.cu,
which packs the 5 query heads of a KV head into the rows of one tile so that each K/V tile serves the
group, a CTA here serves one query head: the group's CTAs re-read the same K/V tiles, mostly from L2. The tensor-core and copy instructions are written with cute.arch.inline_ptx
(cp.async, ldmatrix, ldmatrix.trans, mma.sync, cvt.rn.bf16x2), so the fragment layouts are those of the
PTX ISA, exactly as in the cuda solution.

One CTA of 4 warps per (request, 64-query tile, query head); warp w owns query rows 16w .. 16w + 15 of the
tile. K and V tiles of 64 keys stream through shared memory with cp.async, double-buffered; key tiles
past the causal limit of the tile's last query are never loaded. Shared rows are padded by 16 bytes so
that the 8 row addresses of an ldmatrix fall in distinct banks. Rows past the end of the request are not
zero-filled as in the cuda solution: their copies re-read the request's last row (a finite value), the
keys are masked to -inf (weight exactly 0) and the queries are not stored. The mask (bottom-right causal,
key j allowed for query i iff j < i + 1 + kv_len - q_len, and j < kv_len) is applied in every tile.
Logits are (q.k) in fp32 times sm_scale * log2(e) (a plan argument), so the running maximum and the LSE
are in base 2 directly. The softmax weights are rounded to bf16 for the P.V product (the A operand is
built from the S accumulators in registers); their row sums stay fp32.

CTA x = item * 5 + head; item counts the query tiles of requests 0, 1, ... in order (an inclusive
Hillis-Steele scan of the per-request tile counts in shared memory finds the request); within a request
the tiles run last-first (the longest rows first). The grid is an upper bound: CTAs past the last tile
do nothing."""
import cutlass
import cutlass.cute as cute

QO_HEADS, KV_HEADS, QK_DIM, VO_DIM = 5, 1, 128, 128
GROUP = QO_HEADS // KV_HEADS                  # 5 query heads per KV head
BATCH, TOTAL_Q, NUM_INDICES, NUM_PAGES = 54, 10847, 10945, 44264
BM, BN, THREADS = 64, 64, 128                 # query rows, keys per tile; 4 warps
QK_STRIDE, VO_STRIDE = QK_DIM + 8, VO_DIM + 8  # padded shared rows (bf16 elements)
Q_TILE, K_TILE, V_TILE = BM * QK_STRIDE, BN * QK_STRIDE, BN * VO_STRIDE
SMEM = (Q_TILE + 2 * K_TILE + 2 * V_TILE) * 2  # bytes of dynamic shared memory: the plan's shared(...)
QK_CHUNKS, VO_CHUNKS = QK_DIM // 8, VO_DIM // 8  # 16-byte chunks per row
NB, DB = BN // 8, VO_DIM // 8                 # n-blocks of S and of O per warp row block
F32, BF16, I32, I64, U32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32, cutlass.Int64, cutlass.Uint32
NEG_INF = float("-inf")
assert NUM_PAGES * KV_HEADS * QK_DIM < 2**31 and SMEM == 87040 and BATCH <= THREADS == 128
assert BM == 16 * (THREADS // 32) and (BM * QK_CHUNKS) % THREADS == 0 and (BN * VO_CHUNKS) % THREADS == 0


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
def load_kv_tile(sbase, k, v, idx, slot, ks, n0, kv_len, kvh, tidx):
    """Keys n0 .. n0 + BN - 1 of the request (pages idx[ks + j]) into K/V buffer `slot`; keys past kv_len
    re-read key kv_len - 1."""
    for i in cutlass.range_constexpr(BN * QK_CHUNKS // THREADS):
        r = tidx // QK_CHUNKS + i * (THREADS // QK_CHUNKS)
        row = idx[ks + cutlass.min(n0 + r, kv_len - 1)]
        cp_async16(sbase + (Q_TILE + slot * K_TILE + r * QK_STRIDE + tidx % QK_CHUNKS * 8),
                   k + ((I64(row) * KV_HEADS + kvh) * QK_DIM + tidx % QK_CHUNKS * 8))
    for i in cutlass.range_constexpr(BN * VO_CHUNKS // THREADS):
        r = tidx // VO_CHUNKS + i * (THREADS // VO_CHUNKS)
        row = idx[ks + cutlass.min(n0 + r, kv_len - 1)]
        cp_async16(sbase + (Q_TILE + 2 * K_TILE + slot * V_TILE + r * VO_STRIDE + tidx % VO_CHUNKS * 8),
                   v + ((I64(row) * KV_HEADS + kvh) * VO_DIM + tidx % VO_CHUNKS * 8))


@cute.kernel
def paged_prefill_fwd(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, qo_indptr: cute.Pointer,
                       kv_indptr: cute.Pointer, kv_indices: cute.Pointer, out: cute.Pointer, lse: cute.Pointer,
                       scale_log2: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    bx = cute.arch.block_idx()[0]
    lane = tidx % 32
    warp = tidx // 32
    item = bx // QO_HEADS
    h = bx % QO_HEADS
    kvh = h // GROUP
    qo = cute.make_tensor(qo_indptr, cute.make_layout(BATCH + 1))
    kvp = cute.make_tensor(kv_indptr, cute.make_layout(BATCH + 1))
    idx = cute.make_tensor(kv_indices, cute.make_layout(NUM_INDICES))
    gout = cute.make_tensor(out, cute.make_layout((TOTAL_Q, QO_HEADS, VO_DIM), stride=(QO_HEADS * VO_DIM, VO_DIM, 1)))
    glse = cute.make_tensor(lse, cute.make_layout((TOTAL_Q, QO_HEADS), stride=(QO_HEADS, 1)))
    sbase = cute.arch.get_dyn_smem(BF16, alignment=128)
    scan = cute.make_tensor(cute.arch.alloc_smem(I32, 2 * THREADS), cute.make_layout((2, THREADS), stride=(THREADS, 1)))
    found = cute.make_tensor(cute.arch.alloc_smem(I32, 2), cute.make_layout(2))

    # Which request and query tile: inclusive scan of the per-request tile counts.
    if tidx == 0:
        found[0] = I32(-1)
        found[1] = I32(0)
    cnt = I32(0)
    if tidx < BATCH:
        cnt = (qo[tidx + 1] - qo[tidx] + (BM - 1)) // BM
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
        if (item < incl) & (item >= incl - cnt):
            found[0] = tidx
            found[1] = item + cnt - incl
    cute.arch.sync_threads()

    b = found[0]
    if b >= 0:  # uniform over the CTA
        qs = qo[b]
        q_len = qo[b + 1] - qs
        ks = kvp[b]
        kv_len = kvp[b + 1] - ks
        delta = kv_len - q_len
        m0 = ((q_len + (BM - 1)) // BM - 1 - found[1]) * BM
        # keys 0 .. n_end - 1 can be seen by some query of this tile: n_end = min(kv_len, m0 + BM + delta)
        n_tiles = (cutlass.min(kv_len, m0 + BM + delta) + (BN - 1)) // BN

        for i in cutlass.range_constexpr(BM * QK_CHUNKS // THREADS):   # the Q tile; rows past q_len re-read
            r = tidx // QK_CHUNKS + i * (THREADS // QK_CHUNKS)
            row = qs + cutlass.min(m0 + r, q_len - 1)
            cp_async16(sbase + (r * QK_STRIDE + tidx % QK_CHUNKS * 8),
                       q + ((I64(row) * QO_HEADS + h) * QK_DIM + tidx % QK_CHUNKS * 8))
        if n_tiles > 0:
            load_kv_tile(sbase, k, v, idx, 0, ks, 0, kv_len, kvh, tidx)
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
        row_i = m0 + warp * 16 + lane // 4       # query of accumulator elements e = 0, 1; e = 2, 3: row_i + 8

        for it in cutlass.range(n_tiles):
            if it + 1 < n_tiles:
                load_kv_tile(sbase, k, v, idx, (it + 1) % 2, ks, (it + 1) * BN, kv_len, kvh, tidx)
                cute.arch.cp_async_commit_group()
                cute.arch.cp_async_wait_group(1)
            else:
                cute.arch.cp_async_wait_group(0)
            cute.arch.sync_threads()
            k_off = Q_TILE + it % 2 * K_TILE
            v_off = Q_TILE + 2 * K_TILE + it % 2 * V_TILE

            # S = Q K^T for this warp's 16 rows and the tile's BN keys.
            s.fill(0.0)
            for kc in cutlass.range_constexpr(QK_DIM // 16):
                a0, a1, a2, a3 = ldmatrix_x4(sbase + ((warp * 16 + lane % 16) * QK_STRIDE + kc * 16 + lane // 16 * 8))
                for nb2 in cutlass.range_constexpr(BN // 16):
                    b0, b1, b2, b3 = ldmatrix_x4(
                        sbase + (k_off + (nb2 * 16 + lane % 8 + lane // 16 * 8) * QK_STRIDE + kc * 16 + lane % 16 // 8 * 8))
                    mma16816(s, 2 * nb2, a0, a1, a2, a3, b0, b1)
                    mma16816(s, 2 * nb2 + 1, a0, a1, a2, a3, b2, b3)

            # Scale to base 2 and mask: s[nb, e] is key it*BN + 8nb + 2(lane % 4) + e % 2 of query row_i + 8 (e / 2).
            mx.fill(NEG_INF)
            for nb in cutlass.range_constexpr(NB):
                for e in cutlass.range_constexpr(4):
                    j = it * BN + nb * 8 + lane % 4 * 2 + e % 2
                    masked = (j >= row_i + (e // 2) * 8 + 1 + delta) | (j >= kv_len)
                    s[nb, e] = cutlass.select_(masked, F32(NEG_INF), s[nb, e] * scale_log2)
                    mx[e // 2] = cute.arch.fmax(mx[e // 2], s[nb, e])
            for r in cutlass.range_constexpr(2):   # a row's keys are spread over the 4 lanes of a quad
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 1))
                mx[r] = cute.arch.fmax(mx[r], cute.arch.shuffle_sync_bfly(mx[r], 2))
                mx[r] = cute.arch.fmax(m_run[r], mx[r])
                m_use[r] = cutlass.select_(mx[r] > F32(NEG_INF), mx[r], F32(0.0))
                alpha[r] = cute.math.exp2(m_run[r] - m_use[r])
                m_run[r] = mx[r]
                rsum[r] = F32(0.0)
            for nb in cutlass.range_constexpr(NB):
                for e in cutlass.range_constexpr(4):
                    s[nb, e] = cute.math.exp2(s[nb, e] - m_use[e // 2])
                    rsum[e // 2] = rsum[e // 2] + s[nb, e]
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
                for db2 in cutlass.range_constexpr(VO_DIM // 16):
                    b0, b1, b2, b3 = ldmatrix_x4_trans(
                        sbase + (v_off + (kc * 16 + lane % 8 + lane % 16 // 8 * 8) * VO_STRIDE + db2 * 16 + lane // 16 * 8))
                    mma16816(o, 2 * db2, p0, p1, p2, p3, b0, b1)
                    mma16816(o, 2 * db2 + 1, p0, p1, p2, p3, b2, b3)
            cute.arch.sync_threads()   # the next iteration refills the buffer just read

        # Finish: the row sums over the quad, normalize, store the bf16 output and the base-2 LSE.
        for r in cutlass.range_constexpr(2):
            l_run[r] = l_run[r] + cute.arch.shuffle_sync_bfly(l_run[r], 1)
            l_run[r] = l_run[r] + cute.arch.shuffle_sync_bfly(l_run[r], 2)
            rsum[r] = cutlass.select_(l_run[r] > F32(0.0), F32(1.0) / l_run[r], F32(0.0))
        for r in cutlass.range_constexpr(2):
            i = row_i + r * 8
            if i < q_len:
                for db in cutlass.range_constexpr(DB):
                    for e in cutlass.range_constexpr(2):
                        gout[qs + i, h, db * 8 + lane % 4 * 2 + e] = (o[db, r * 2 + e] * rsum[r]).to(BF16)
                if lane % 4 == 0:
                    glse[qs + i, h] = cutlass.select_(l_run[r] > F32(0.0), m_run[r] + cute.math.log2(l_run[r]),
                                                      F32(NEG_INF))


MKB_PLAN = """/* mkb:plan
launch paged_prefill_fwd grid(num_qo_heads * (ceil_div(total_q, 64) + batch_size)) block(128) shared(87040)
  args(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, output, lse, f32(sm_scale * 1.4426950408889634))
*/"""
