"""Paged GQA decode (32 query heads, 8 KV heads, head dim 128, page size 1) in CuTe DSL: the split-K
flash decoding of solutions/cuda.cu.

decode_partial: one 128-thread block per (chunk of up to 256 tokens of one request, KV head). The four
  query heads of the KV head share each K and V row read. A half-warp streams its own tokens, 16 lanes x
  8 dims = one 256-byte row with one 16-byte load per lane, four tokens per step with all eight loads
  issued first, and keeps an online softmax per query head in base 2 (max m, sum l, o[8] in fp32). Past
  the chunk's end a lane re-reads the chunk's last row and the score is masked to -inf. The eight
  half-warp states are merged through shared memory into one fp32 partial (m, l, o[128]) per
  (chunk, query head).
decode_combine: one 512-thread block per (query head, request) merges the request's partials:
  M = max m_c, L = sum l_c 2^(m_c - M), o = sum o_c 2^(m_c - M) / L rounded to bf16 once, lse = M + log2 L.
Chunks are numbered request after request: request b owns ceil(T_b / 256) of them, starting at cs[b];
every block rebuilds cs from kv_indptr in shared memory. Logits are (q.k) in fp32 times
sm_scale * log2(e) (a plan argument), so exp2 gives the softmax and log2 of the sum the base-2 LSE."""
import cutlass
import cutlass.cute as cute

BATCH, HEADS, KV_HEADS, DIM, NUM_PAGES = 64, 32, 8, 128, 68237
GROUP = HEADS // KV_HEADS                       # 4 query heads per KV head
CHUNK = 256                                     # tokens per split
THREADS = 128                                   # 8 half-warps
HALF_WARPS = THREADS // 16
UNROLL = 4                                      # tokens per half-warp per step
STEP = HALF_WARPS * UNROLL                      # tokens per block step
COMBINE = 512
GROUPS = COMBINE // DIM                         # chunk groups in the combine
TOTAL_TOKENS = 58966                            # KV_INDPTR[-1]
SLOTS = (-(-TOTAL_TOKENS // CHUNK) + BATCH) * HEADS  # partial slots the plan's scratch holds
F32, BF16, I32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32
NEG_INF = float("-inf")
LOG2_E = 1.4426950408889634
assert GROUP * DIM % THREADS == 0 and DIM % 16 == 0


@cute.jit
def chunk_starts(indptr, cs, tidx):
    """cs[b] = sum over b' < b of ceil(T_b' / CHUNK); cs[BATCH] = total chunks. Ends with a barrier."""
    if tidx < BATCH:
        cs[tidx + 1] = (indptr[tidx + 1] - indptr[tidx] + (CHUNK - 1)) // CHUNK
    if tidx == 0:
        cs[0] = I32(0)
    cute.arch.sync_threads()
    if tidx == 0:
        running = I32(0)
        for b in cutlass.range_constexpr(BATCH):
            running = running + cs[b + 1]
            cs[b + 1] = running
    cute.arch.sync_threads()


@cute.kernel
def decode_partial(q: cute.Pointer, k_cache: cute.Pointer, v_cache: cute.Pointer, kv_indptr: cute.Pointer,
                   kv_indices: cute.Pointer, part_o: cute.Pointer, part_ml: cute.Pointer, scale_log2: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    chunk, kv_head, _ = cute.arch.block_idx()
    warp = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()
    sub = lane % 16
    half = lane // 16
    half_warp = tidx // 16

    indptr = cute.make_tensor(kv_indptr, cute.make_layout(BATCH + 1))
    indices = cute.make_tensor(kv_indices, cute.make_layout(TOTAL_TOKENS))
    gq = cute.make_tensor(q, cute.make_layout((BATCH * HEADS, DIM // 8, 8), stride=(DIM, 8, 1)))
    rows = cute.make_layout((NUM_PAGES * KV_HEADS, DIM // 8, 8), stride=(DIM, 8, 1))  # (page * 8 + head, piece, elt)
    gk = cute.make_tensor(k_cache, rows)
    gv = cute.make_tensor(v_cache, rows)
    go = cute.make_tensor(part_o, cute.make_layout(SLOTS * DIM))
    gml = cute.make_tensor(part_ml, cute.make_layout(SLOTS * 2))
    cs = cute.make_tensor(cute.arch.alloc_smem(I32, BATCH + 1), cute.make_layout(BATCH + 1))
    merge_m = cute.make_tensor(cute.arch.alloc_smem(F32, HALF_WARPS * GROUP), cute.make_layout(HALF_WARPS * GROUP))
    merge_l = cute.make_tensor(cute.arch.alloc_smem(F32, HALF_WARPS * GROUP), cute.make_layout(HALF_WARPS * GROUP))
    merge_o = cute.make_tensor(cute.arch.alloc_smem(F32, HALF_WARPS * GROUP * DIM),
                               cute.make_layout(HALF_WARPS * GROUP * DIM))
    copy16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)

    chunk_starts(indptr, cs, tidx)
    if chunk < cs[BATCH]:  # uniform over the block
        lo = I32(0)
        hi = I32(BATCH)
        mid = I32(0)
        for _ in cutlass.range_constexpr(7):  # cs[lo] <= chunk < cs[hi]
            if hi - lo > 1:
                mid = (lo + hi) // 2
                if cs[mid] <= chunk:
                    lo = mid
                else:
                    hi = mid
        b = lo
        seq_start = indptr[b]
        length = indptr[b + 1] - seq_start
        t0 = (chunk - cs[b]) * CHUNK
        t1 = cutlass.min(t0 + CHUNK, length)

        pair = cute.make_layout((GROUP, 8), stride=(8, 1))
        rq = cute.make_rmem_tensor(pair, BF16)
        for g in cutlass.range_constexpr(GROUP):
            cute.copy(copy16, gq[b * HEADS + kv_head * GROUP + g, sub, None], rq[g, None])
        qf = cute.make_rmem_tensor(pair, F32)
        qf.store(rq.load().to(F32))
        m = cute.make_rmem_tensor((GROUP,), F32)
        ls = cute.make_rmem_tensor((GROUP,), F32)
        o = cute.make_rmem_tensor(pair, F32)
        m.fill(NEG_INF)
        ls.fill(0.0)
        o.fill(0.0)

        tokens = cute.make_layout((UNROLL, 8), stride=(8, 1))
        rk = cute.make_rmem_tensor(tokens, BF16)
        rv = cute.make_rmem_tensor(tokens, BF16)
        kf = cute.make_rmem_tensor(tokens, F32)
        vf = cute.make_rmem_tensor(tokens, F32)
        s = cute.make_rmem_tensor((UNROLL, GROUP), F32)
        # Warp w covers tokens t0 + 8w + 32i + (4 * half + u): the loop bound is uniform over the warp.
        for warp_base in cutlass.range(t0 + warp * 2 * UNROLL, t1, STEP):
            base = warp_base + half * UNROLL
            for u in cutlass.range_constexpr(UNROLL):
                j = cutlass.min(base + u, t1 - 1)  # past the end: re-read the last row, masked below
                row = indices[seq_start + j] * KV_HEADS + kv_head
                cute.copy(copy16, gk[row, sub, None], rk[u, None])
                cute.copy(copy16, gv[row, sub, None], rv[u, None])
            kf.store(rk.load().to(F32))
            vf.store(rv.load().to(F32))
            for u in cutlass.range_constexpr(UNROLL):
                for g in cutlass.range_constexpr(GROUP):
                    dot = F32(0.0)
                    for e in cutlass.range_constexpr(8):
                        dot = dot + qf[g, e] * kf[u, e]
                    dot = cute.arch.warp_reduction_sum(dot, threads_in_group=16)
                    s[u, g] = cutlass.select_(base + u < t1, dot * scale_log2, F32(NEG_INF))
            for g in cutlass.range_constexpr(GROUP):
                m_new = m[g]
                for u in cutlass.range_constexpr(UNROLL):
                    m_new = cute.arch.fmax(m_new, s[u, g])
                # nothing valid yet: keep the state (exp2 of -inf - 0 is 0 for every term)
                m_safe = cutlass.select_(m_new > F32(NEG_INF), m_new, F32(0.0))
                alpha = cute.math.exp2(m[g] - m_safe)
                acc_l = ls[g] * alpha
                for e in cutlass.range_constexpr(8):
                    o[g, e] = o[g, e] * alpha
                for u in cutlass.range_constexpr(UNROLL):
                    p = cute.math.exp2(s[u, g] - m_safe)
                    acc_l = acc_l + p
                    for e in cutlass.range_constexpr(8):
                        o[g, e] = o[g, e] + p * vf[u, e]
                ls[g] = acc_l
                m[g] = m_new

        # Merge the eight half-warp states of the block.
        for g in cutlass.range_constexpr(GROUP):
            if sub == 0:
                merge_m[half_warp * GROUP + g] = m[g]
                merge_l[half_warp * GROUP + g] = ls[g]
            for e in cutlass.range_constexpr(8):
                merge_o[(half_warp * GROUP + g) * DIM + sub * 8 + e] = o[g, e]
        cute.arch.sync_threads()
        for g in cutlass.range_constexpr(GROUP):  # thread tidx finishes dim tidx of every query head
            big = F32(NEG_INF)
            for w in cutlass.range_constexpr(HALF_WARPS):
                big = cute.arch.fmax(big, merge_m[w * GROUP + g])
            total = F32(0.0)
            acc = F32(0.0)
            for w in cutlass.range_constexpr(HALF_WARPS):
                mw = merge_m[w * GROUP + g]
                weight = cutlass.select_(mw > F32(NEG_INF), cute.math.exp2(mw - big), F32(0.0))
                total = total + merge_l[w * GROUP + g] * weight
                acc = acc + merge_o[(w * GROUP + g) * DIM + tidx] * weight
            slot = chunk * HEADS + kv_head * GROUP + g
            go[slot * DIM + tidx] = acc
            if tidx == 0:
                gml[slot * 2] = big
                gml[slot * 2 + 1] = total


@cute.kernel
def decode_combine(part_o: cute.Pointer, part_ml: cute.Pointer, kv_indptr: cute.Pointer, output: cute.Pointer,
                   lse: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    h, b, _ = cute.arch.block_idx()
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    indptr = cute.make_tensor(kv_indptr, cute.make_layout(BATCH + 1))
    go = cute.make_tensor(part_o, cute.make_layout(SLOTS * DIM))
    gml = cute.make_tensor(part_ml, cute.make_layout(SLOTS * 2))
    gout = cute.make_tensor(output, cute.make_layout(BATCH * HEADS * DIM))
    glse = cute.make_tensor(lse, cute.make_layout(BATCH * HEADS))
    cs = cute.make_tensor(cute.arch.alloc_smem(I32, BATCH + 1), cute.make_layout(BATCH + 1))
    red_max = cute.make_tensor(cute.arch.alloc_smem(F32, COMBINE // 32), cute.make_layout(COMBINE // 32))
    red_sum = cute.make_tensor(cute.arch.alloc_smem(F32, COMBINE // 32), cute.make_layout(COMBINE // 32))
    partial = cute.make_tensor(cute.arch.alloc_smem(F32, COMBINE), cute.make_layout(COMBINE))
    chunk_starts(indptr, cs, tidx)
    c0 = cs[b]
    c1 = cs[b + 1]

    big = F32(NEG_INF)
    for c in cutlass.range(c0 + tidx, c1, COMBINE):
        big = cute.arch.fmax(big, gml[(c * HEADS + h) * 2])
    big = cute.arch.warp_reduction_max(big)
    if lane == 0:
        red_max[warp] = big
    cute.arch.sync_threads()
    big = cute.arch.warp_reduction_max(red_max[lane % (COMBINE // 32)], threads_in_group=COMBINE // 32)

    total = F32(0.0)
    for c in cutlass.range(c0 + tidx, c1, COMBINE):
        mc = gml[(c * HEADS + h) * 2]
        total = total + cutlass.select_(mc > F32(NEG_INF), gml[(c * HEADS + h) * 2 + 1] * cute.math.exp2(mc - big),
                                        F32(0.0))
    total = cute.arch.warp_reduction_sum(total)
    if lane == 0:
        red_sum[warp] = total
    cute.arch.sync_threads()
    total = cute.arch.warp_reduction_sum(red_sum[lane % (COMBINE // 32)], threads_in_group=COMBINE // 32)

    group = tidx // DIM
    d = tidx % DIM
    acc = F32(0.0)
    for c in cutlass.range(c0 + group, c1, GROUPS):
        mc = gml[(c * HEADS + h) * 2]
        acc = acc + cutlass.select_(mc > F32(NEG_INF), go[(c * HEADS + h) * DIM + d] * cute.math.exp2(mc - big),
                                    F32(0.0))
    partial[tidx] = acc
    cute.arch.sync_threads()
    if group == 0:
        for k in cutlass.range_constexpr(1, GROUPS):
            acc = acc + partial[k * DIM + d]
        empty = (c1 == c0) | (total == F32(0.0))
        gout[(b * HEADS + h) * DIM + d] = F32(cutlass.select_(empty, F32(0.0), acc / total)).to(BF16)
        if d == 0:
            glse[b * HEADS + h] = cutlass.select_(empty, F32(NEG_INF), big + cute.math.log2(total))


MKB_PLAN = """/* mkb:plan
scratch part_o fp32[(ceil_div(num_kv_indices, 256) + batch_size) * num_qo_heads * head_dim]
scratch part_ml fp32[(ceil_div(num_kv_indices, 256) + batch_size) * num_qo_heads * 2]
launch decode_partial grid(ceil_div(num_kv_indices, 256) + batch_size, num_kv_heads) block(128)
  args(q, k_cache, v_cache, kv_indptr, kv_indices, part_o, part_ml, f32(sm_scale * 1.4426950408889634))
launch decode_combine grid(num_qo_heads, batch_size) block(512) args(part_o, part_ml, kv_indptr, output, lse)
*/"""
