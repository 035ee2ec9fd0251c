"""DSA top-k indexer (64 fp8 index heads, head dim 128, 64-token pages, top 2048) in CuTe DSL: the two launches
of solutions/cuda.cu (and of the TIRx port).

1. indexer_scores: one 256-thread CTA per (page slot, sequence) of the sequences longer than topk (a shorter
   sequence keeps all its tokens whatever their scores, so its scores are never needed). The q bytes of the
   sequence and the key bytes of the page are read as 32-bit words, widened from e4m3 (exact:
   cvt.rn.f16x2.e4m3x2, then f16 to f32, inline PTX) into shared memory, transposed with padded rows
   (qT[d][h], kT[d][t], pitch 65); thread (th, tt) = (tid / 16, tid % 16) accumulates the dot products of
   heads th + 16 i and tokens tt + 16 j (4 x 4, fp32 FMA over the 128 dims); then
   score[t] = sum_h w[h] * relu(scale[t] * dot[h][t]) (16 partial sums per token through shared memory, added
   in a fixed order) into the scratch scores [batch, 43 * 64]. The page's fp32 scales are read as fp32 words
   at byte 8192 + 4 t of the page.
2. indexer_select: one 1024-thread CTA per sequence. A short sequence writes its tokens in order and the -1
   fill. A long one (3 positions per thread) finds the 2048th largest score by a bitwise search over
   order-preserving integer keys (a block-wide count per bit and position: bar.red.popc, the instruction of
   __syncthreads_count, inline PTX), keeps every key above it and the lowest positions among the keys equal
   to it, and writes the kept positions in ascending order (exclusive scans over the CTA in shared memory)
   as global token ids page * 64 + offset."""
import cutlass
import cutlass.cute as cute

HEADS, DIM, PAGE, NUM_PAGES, MAXP, BATCH, TOPK = 64, 128, 64, 11923, 43, 31, 2048
PAGE_BYTES = PAGE * (DIM + 4)         # 8448: 64 keys of 128 bytes, then 64 fp32 scales
PAGE_WORDS = PAGE_BYTES // 4          # 2112
PITCH = 65                            # padded shared row: conflict-free transposed access
SEL_THREADS, PER_THREAD = 1024, 3     # 3072 >= 43 * 64 positions per sequence
F32, I32, U32 = cutlass.Float32, cutlass.Int32, cutlass.Uint32
assert SEL_THREADS * PER_THREAD >= MAXP * PAGE and TOPK % SEL_THREADS == 0 and NUM_PAGES * PAGE_BYTES < 2**31


@cute.jit
def e4m3x4_to_f32(word):
    """The four e4m3 bytes of a 32-bit word (byte 0 first) as four exact fp32 values. (inline_ptx substitutes
    only the {$rN}/{$wN} operands: a literal PTX brace is written once.)"""
    return cute.arch.inline_ptx(
        "{ .reg .b16 l, h, p0, p1, q0, q1; .reg .b32 p, q; mov.b32 {l, h}, {$r0}; "
        "cvt.rn.f16x2.e4m3x2 p, l; cvt.rn.f16x2.e4m3x2 q, h; mov.b32 {p0, p1}, p; mov.b32 {q0, q1}, q; "
        "cvt.f32.f16 {$w0}, p0; cvt.f32.f16 {$w1}, p1; cvt.f32.f16 {$w2}, q0; cvt.f32.f16 {$w3}, q1; }",
        write_only_types=[F32] * 4, read_only_args=[word])


@cute.jit
def block_count(pred):
    """The number of threads of the CTA whose pred is nonzero (a barrier, as __syncthreads_count)."""
    return cute.arch.inline_ptx(
        "{ .reg .pred p; setp.ne.s32 p, {$r0}, 0; bar.red.popc.u32 {$w0}, 0, p; }",
        write_only_types=[I32], read_only_args=[pred])


@cute.kernel
def indexer_scores(q_index_fp8: cute.Pointer, k_cache: cute.Pointer, weights: cute.Pointer, seq_lens: cute.Pointer,
                   block_table: cute.Pointer, scores: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    slot, b, _ = cute.arch.block_idx()
    qw = cute.make_tensor(cute.recast_ptr(q_index_fp8, dtype=U32), cute.make_layout(BATCH * HEADS * DIM // 4))
    kw = cute.make_tensor(cute.recast_ptr(k_cache, dtype=U32), cute.make_layout(NUM_PAGES * PAGE_WORDS))
    kf = cute.make_tensor(cute.recast_ptr(k_cache, dtype=F32), cute.make_layout(NUM_PAGES * PAGE_WORDS))
    gw = cute.make_tensor(weights, cute.make_layout((BATCH, HEADS), stride=(HEADS, 1)))
    lens = cute.make_tensor(seq_lens, cute.make_layout(BATCH))
    table = cute.make_tensor(block_table, cute.make_layout((BATCH, MAXP), stride=(MAXP, 1)))
    sc = cute.make_tensor(scores, cute.make_layout((BATCH, MAXP * PAGE), stride=(MAXP * PAGE, 1)))
    sm = cute.make_tensor(cute.arch.get_dyn_smem(F32, alignment=16), cute.make_layout(2 * DIM * PITCH))  # qT, kT
    partial = cute.make_tensor(cute.arch.alloc_smem(F32, 16 * PAGE), cute.make_layout((16, PAGE), stride=(PAGE, 1)))
    scale_s = cute.make_tensor(cute.arch.alloc_smem(F32, PAGE), cute.make_layout(PAGE))
    weight_s = cute.make_tensor(cute.arch.alloc_smem(F32, HEADS), cute.make_layout(HEADS))

    n = lens[b]
    if (n > TOPK) & (slot * PAGE < n):   # uniform over the CTA
        page = table[b, slot]
        for k in cutlass.range_constexpr(HEADS * DIM // 4 // 256):   # word w = tid + 256 k: row 4w / 128
            w = tid + 256 * k
            q0, q1, q2, q3 = e4m3x4_to_f32(qw[b * (HEADS * DIM // 4) + w])
            k0, k1, k2, k3 = e4m3x4_to_f32(kw[page * PAGE_WORDS + w])
            base = (w * 4 % DIM) * PITCH + w * 4 // DIM
            sm[base] = q0
            sm[base + PITCH] = q1
            sm[base + 2 * PITCH] = q2
            sm[base + 3 * PITCH] = q3
            sm[DIM * PITCH + base] = k0
            sm[DIM * PITCH + base + PITCH] = k1
            sm[DIM * PITCH + base + 2 * PITCH] = k2
            sm[DIM * PITCH + base + 3 * PITCH] = k3
        if tid < PAGE:
            scale_s[tid] = kf[page * PAGE_WORDS + PAGE * DIM // 4 + tid]
            weight_s[tid] = gw[b, tid]
        cute.arch.sync_threads()

        th = tid // 16
        tt = tid % 16
        acc = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), F32)
        acc.fill(0.0)
        qr = cute.make_rmem_tensor((4,), F32)
        kr = cute.make_rmem_tensor((4,), F32)
        for d0 in cutlass.range(DIM // 4):
            for dd in cutlass.range_constexpr(4):
                for i in cutlass.range_constexpr(4):
                    qr[i] = sm[(d0 * 4 + dd) * PITCH + th + 16 * i]
                for j in cutlass.range_constexpr(4):
                    kr[j] = sm[DIM * PITCH + (d0 * 4 + dd) * PITCH + tt + 16 * j]
                for i in cutlass.range_constexpr(4):
                    for j in cutlass.range_constexpr(4):
                        acc[i, j] = acc[i, j] + qr[i] * kr[j]
        for j in cutlass.range_constexpr(4):
            part = F32(0.0)
            for i in cutlass.range_constexpr(4):
                part = part + weight_s[th + 16 * i] * cute.arch.fmax(scale_s[tt + 16 * j] * acc[i, j], F32(0.0))
            partial[th, tt + 16 * j] = part
        cute.arch.sync_threads()
        if tid < PAGE:
            total = F32(0.0)
            for g in cutlass.range_constexpr(16):
                total = total + partial[g, tid]
            if slot * PAGE + tid < n:
                sc[b, slot * PAGE + tid] = total


@cute.jit
def exclusive_scan(scan, v, tid):
    """The sum of v over the threads before tid (1024 threads): Hillis-Steele over shared scan[2][1024]."""
    scan[0, tid] = v
    for step in cutlass.range_constexpr(10):
        cute.arch.sync_threads()
        add = I32(0)
        if tid >= (1 << step):
            add = scan[step % 2, tid - (1 << step)]
        scan[(step + 1) % 2, tid] = scan[step % 2, tid] + add
    cute.arch.sync_threads()
    before = scan[0, tid] - v       # 10 steps: the inclusive sums are in row 0
    cute.arch.sync_threads()        # scan is reused by the next call
    return before


@cute.kernel
def indexer_select(scores: cute.Pointer, seq_lens: cute.Pointer, block_table: cute.Pointer,
                   topk_indices: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    b = cute.arch.block_idx()[0]
    sc = cute.make_tensor(scores, cute.make_layout((BATCH, MAXP * PAGE), stride=(MAXP * PAGE, 1)))
    lens = cute.make_tensor(seq_lens, cute.make_layout(BATCH))
    table = cute.make_tensor(block_table, cute.make_layout((BATCH, MAXP), stride=(MAXP, 1)))
    out = cute.make_tensor(topk_indices, cute.make_layout((BATCH, TOPK), stride=(TOPK, 1)))
    scan = cute.make_tensor(cute.arch.alloc_smem(I32, 2 * SEL_THREADS),
                            cute.make_layout((2, SEL_THREADS), stride=(SEL_THREADS, 1)))
    n = lens[b]
    if n <= TOPK:   # every token is kept, in order
        for jj in cutlass.range_constexpr(TOPK // SEL_THREADS):
            j = tid + SEL_THREADS * jj
            out[b, j] = cutlass.select_(j < n, table[b, j // PAGE] * PAGE + j % PAGE, I32(-1))
    else:
        key = cute.make_rmem_tensor((PER_THREAD,), U32)
        valid = cute.make_rmem_tensor((PER_THREAD,), I32)
        keep = cute.make_rmem_tensor((PER_THREAD,), I32)
        for e in cutlass.range_constexpr(PER_THREAD):   # order-preserving key of the score; 0 past the end
            i = tid * PER_THREAD + e
            u = cute.arch.inline_ptx("mov.b32 {$w0}, {$r0};", write_only_types=[U32],
                                     read_only_args=[sc[b, cutlass.min(i, n - 1)]])
            valid[e] = cutlass.select_(i < n, I32(1), I32(0))
            key[e] = cutlass.select_(i < n, cutlass.select_((u & U32(0x80000000)) != U32(0), u ^ U32(0xFFFFFFFF),
                                                            u | U32(0x80000000)), U32(0))
        # The largest threshold with at least TOPK keys at or above it: the TOPK-th largest key.
        thr = U32(0)
        for bit in cutlass.range_constexpr(32):
            cand = thr | U32(1 << (31 - bit))
            count = I32(0)
            for e in cutlass.range_constexpr(PER_THREAD):
                count = count + block_count(cutlass.select_((valid[e] != 0) & (key[e] >= cand), I32(1), I32(0)))
            thr = cutlass.select_(count >= TOPK, cand, thr)
        above = I32(0)
        my_equal = I32(0)
        for e in cutlass.range_constexpr(PER_THREAD):
            above = above + block_count(cutlass.select_((valid[e] != 0) & (key[e] > thr), I32(1), I32(0)))
            my_equal = my_equal + cutlass.select_((valid[e] != 0) & (key[e] == thr), I32(1), I32(0))
        # keep: every key above the threshold, and the lowest TOPK - above positions among those equal to it
        rank = exclusive_scan(scan, my_equal, tid)
        my_kept = I32(0)
        for e in cutlass.range_constexpr(PER_THREAD):
            equal = (valid[e] != 0) & (key[e] == thr)
            keep[e] = cutlass.select_(equal, cutlass.select_(rank < TOPK - above, I32(1), I32(0)),
                                      cutlass.select_((valid[e] != 0) & (key[e] > thr), I32(1), I32(0)))
            rank = rank + cutlass.select_(equal, I32(1), I32(0))
            my_kept = my_kept + keep[e]
        pos = exclusive_scan(scan, my_kept, tid)
        for e in cutlass.range_constexpr(PER_THREAD):
            i = tid * PER_THREAD + e
            if (keep[e] != 0) & (pos < TOPK):
                out[b, pos] = table[b, i // PAGE] * PAGE + i % PAGE
            pos = pos + keep[e]


MKB_PLAN = """/* mkb:plan
scratch scores fp32[batch_size * max_num_pages * page_size]
launch indexer_scores grid(max_num_pages, batch_size) block(256) shared(66560)
  args(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, scores)
launch indexer_select grid(batch_size) block(1024) args(scores, seq_lens, block_table, topk_indices)
*/"""
