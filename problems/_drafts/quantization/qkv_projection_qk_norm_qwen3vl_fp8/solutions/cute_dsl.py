"""qkv_projection_qk_norm_qwen3vl_fp8 in CuTe DSL: the algorithm of solutions/cuda.cu, with the three
projections' tiles in three GEMM launches (one per output) instead of one.
  1. quant_act: the 1 x 128 blocks of x once (a warp per block); quant_weight_q/k/v: the 128 x 128 blocks of
     each weight into one [9728, 7680] e4m3 operand (rows 0.. q, 7680.. k, 8704.. v), with the reference's
     arithmetic (scale = amax * fp32(1/448), codes by correctly rounded division, round to nearest even);
  2. gemm_q / gemm_k / gemm_v: 128-token x 128-column tiles (exactly one head) on the FP8 tensor cores
     (problem #52's port: 16-byte shared reads of 4-fp8 words, A and B k-permuted alike, m16n8k32 e4m3 as
     inline PTX, per-k-tile scale promotion, a 4-stage cp.async ring); the epilogue adds the bias, rounds to
     bf16, and for q and k normalizes the head (row sums of squares over a quad by butterflies and over the
     tile's 4 warps through shared memory), rounds, multiplies by the norm weight, rounds, and stores
     [batch, head, seq, dim].
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
F8 = cutlass.Float8E4M3FN
U32 = cutlass.Uint32

B = 64
S = 256
T = B * S            # tokens
HID = 7680           # hidden size (K)
QH = 60              # query heads
KVH = 8              # key/value heads
D = 128              # head dim
NQ = QH * D          # 7680
NKV = KVH * D        # 1024
NALL = NQ + 2 * NKV  # 9728 rows of the e4m3 weight operand
BM = 128
BN = 128
CH = 8
STAGES = 4
THREADS = 256
MI = 4
NI = 4
SMEM = STAGES * (BM + BN) * CH * 16     # 131072
INV_E4M3_MAX = 1.0 / 448.0
assert T % BM == 0 and S % BM == 0 and HID % 128 == 0 and SMEM == 131072
assert T * HID < 2 ** 31 and NALL * HID < 2 ** 31 and T * NQ < 2 ** 31


@cute.jit
def swz(row):
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def e4m3_codes(v: cute.Tensor, scale, out: cute.Tensor, n: cutlass.Constexpr):
    """out[i] = e4m3(clamp(v[i] / scale, -448, 448)) for i < n."""
    q = cute.make_rmem_tensor((n,), F32)
    for i in cutlass.range_constexpr(n):
        q[i] = cutlass.min(cutlass.max(v[i] / scale, F32(-448.0)), F32(448.0))
    out.store(q.load().to(F8))


@cute.kernel
def quant_act(x: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    """A warp per 1 x 128 block of x [T, HID]; lane l holds values 4 l .. 4 l + 3."""
    lane = cute.arch.lane_idx()
    b = cute.arch.block_idx()[0] * (THREADS // 32) + cute.arch.warp_idx()
    blocks = T * (HID // 128)
    gx = cute.make_tensor(x, cute.make_layout((blocks, 32, 4), stride=(128, 4, 1)))
    gq = cute.make_tensor(q, cute.make_layout((blocks, 32, 4), stride=(128, 4, 1)))
    gs = cute.make_tensor(s, cute.make_layout((blocks,), stride=(1,)))
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F8, num_bits_per_copy=32)
    rx = cute.make_rmem_tensor((4,), BF16)
    cute.copy(c64, gx[b, lane, None], rx)
    v = cute.make_rmem_tensor((4,), F32)
    m = F32(0.0)
    for i in cutlass.range_constexpr(4):
        v[i] = rx[i].to(F32)
        m = cute.arch.fmax(m, cute.arch.fmax(v[i], -v[i]))
    m = cute.arch.warp_reduction_max(m)
    scale = m * F32(INV_E4M3_MAX)
    rq = cute.make_rmem_tensor((4,), F8)
    e4m3_codes(v, scale, rq, 4)
    cute.copy(c32, rq, gq[b, lane, None])
    if lane == 0:
        gs[b] = scale


@cute.jit
def quant_block(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer, ROWS: cutlass.Constexpr, COLS: cutlass.Constexpr,
                ROW_OFF: cutlass.Constexpr):
    """Block (kb, nb) of a row-major bf16 [ROWS, COLS] weight, written at rows ROW_OFF.. of the e4m3
    operand and block row ROW_OFF / 128 of its scales: thread t holds 64 values of row t / 2."""
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    kb, nb, _ = cute.arch.block_idx()
    KBc = COLS // 128
    gw = cute.make_tensor(w, cute.make_layout((ROWS, KBc, 2, 8, 8), stride=(COLS, 128, 64, 8, 1)))
    gq = cute.make_tensor(q + ROW_OFF * COLS, cute.make_layout((ROWS, KBc, 2, 4, 16), stride=(COLS, 128, 64, 16, 1)))
    gs = cute.make_tensor(s + (ROW_OFF // 128) * KBc, cute.make_layout((ROWS // 128, KBc), stride=(KBc, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8), cute.make_layout(8))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    c128q = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F8, num_bits_per_copy=128)
    row = nb * 128 + tid // 2
    half = tid % 2
    rw = cute.make_rmem_tensor(cute.make_layout((8, 8), stride=(8, 1)), BF16)
    for c in cutlass.range_constexpr(8):
        cute.copy(c128, gw[row, kb, half, c, None], rw[c, None])
    v = cute.make_rmem_tensor((64,), F32)
    m = F32(0.0)
    for i in cutlass.range_constexpr(64):
        v[i] = rw[i // 8, i % 8].to(F32)
        m = cute.arch.fmax(m, cute.arch.fmax(v[i], -v[i]))
    m = cute.arch.warp_reduction_max(m)
    if lane == 0:
        red[warp] = m
    cute.arch.sync_threads()
    for i in cutlass.range_constexpr(8):
        m = cute.arch.fmax(m, red[i])
    scale = m * F32(INV_E4M3_MAX)
    for c in cutlass.range_constexpr(4):
        part = cute.make_rmem_tensor((16,), F32)
        for i in cutlass.range_constexpr(16):
            part[i] = v[16 * c + i]
        rq = cute.make_rmem_tensor((16,), F8)
        e4m3_codes(part, scale, rq, 16)
        cute.copy(c128q, rq, gq[row, kb, half, c, None])
    if tid == 0:
        gs[nb, kb] = scale


@cute.kernel
def quant_weight_q(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    quant_block(w, q, s, NQ, HID, 0)


@cute.kernel
def quant_weight_k(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    quant_block(w, q, s, NKV, HID, NQ)


@cute.kernel
def quant_weight_v(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    quant_block(w, q, s, NKV, HID, NQ + NKV)


@cute.jit
def mma_e4m3(part: cute.Tensor, a0, a1, a2, a3, b0, b1):
    """part[0..3] += the m16n8k32 e4m3 product of the fragments (a0..a3, b0, b1: 4 fp8 bytes each)."""
    d0, d1, d2, d3 = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, part[0], part[1], part[2], part[3]])
    part[0] = d0
    part[1] = d1
    part[2] = d2
    part[3] = d3


@cute.jit
def gemm_tile(acc: cute.Tensor, a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, m0, n0, nb, tid,
              MROWS: cutlass.Constexpr, NROWS: cutlass.Constexpr, KDIM: cutlass.Constexpr):
    """acc (MI, NI, 4) = the CTA's 128 x 128 tile of dq(A) dq(B)^T: A e4m3 [MROWS, KDIM] with scales
    [MROWS, KDIM / 128], B e4m3 [NROWS, KDIM] with scales [NROWS / 128, KDIM / 128]."""
    KBc = KDIM // 128
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    wm = warp // 4
    gA = cute.make_tensor(a, cute.make_layout((MROWS, KBc, CH, 16), stride=(KDIM, 128, 16, 1)))
    gB = cute.make_tensor(b, cute.make_layout((NROWS, KBc, CH, 16), stride=(KDIM, 128, 16, 1)))
    gsa = cute.make_tensor(sa, cute.make_layout((MROWS, KBc), stride=(KBc, 1)))
    gsb = cute.make_tensor(sb, cute.make_layout((NROWS // 128, KBc), stride=(KBc, 1)))
    base = cute.arch.get_dyn_smem(F8, alignment=128)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, CH, 16), stride=(BM * CH * 16, CH * 16, 16, 1)))
    sB = cute.make_tensor(base + STAGES * BM * CH * 16,
                          cute.make_layout((STAGES, BN, CH, 16), stride=(BN * CH * 16, CH * 16, 16, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sA32 = cute.make_tensor(base32, cute.make_layout((STAGES, BM, CH, 4), stride=(BM * CH * 4, CH * 4, 4, 1)))
    sB32 = cute.make_tensor(base32 + STAGES * BM * CH * 4,
                            cute.make_layout((STAGES, BN, CH, 4), stride=(BN * CH * 4, CH * 4, 4, 1)))
    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.cpasync.LoadCacheMode.GLOBAL),
                              F8, num_bits_per_copy=128)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    lc = tid % CH
    lr0 = tid // CH
    lcs = lc ^ swz(lr0)
    acc.fill(0.0)
    part = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    srow = cute.make_rmem_tensor(cute.make_layout((MI, 2), stride=(2, 1)), F32)
    ra = cute.make_rmem_tensor(cute.make_layout((MI, 2, 4), stride=(8, 4, 1)), U32)
    rb = cute.make_rmem_tensor(cute.make_layout((NI, 4), stride=(4, 1)), U32)
    for s in cutlass.range_constexpr(STAGES - 1):
        for i in cutlass.range_constexpr(BM // (THREADS // CH)):
            r = lr0 + i * (THREADS // CH)
            cute.copy(cpa, gA[m0 + r, s, lc, None], sA[s, r, lcs, None])
            cute.copy(cpa, gB[n0 + r, s, lc, None], sB[s, r, lcs, None])
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KBc):
        cute.arch.cp_async_wait_group(STAGES - 2)
        cute.arch.sync_threads()
        nxt = kt + (STAGES - 1)
        if nxt < KBc:
            slot_n = nxt % STAGES
            for i in cutlass.range_constexpr(BM // (THREADS // CH)):
                r = lr0 + i * (THREADS // CH)
                cute.copy(cpa, gA[m0 + r, nxt, lc, None], sA[slot_n, r, lcs, None])
                cute.copy(cpa, gB[n0 + r, nxt, lc, None], sB[slot_n, r, lcs, None])
        cute.arch.cp_async_commit_group()
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                srow[i, hr] = gsa[m0 + wm * 64 + i * 16 + g + 8 * hr, kt]
        stile = gsb[nb, kt]
        part.fill(0.0)
        slot = kt % STAGES
        q = lane % 4
        wn = warp % 4
        x = swz(g)
        for step in cutlass.range_constexpr(CH // 4):
            chunk = (step * 4 + q) ^ x
            for i in cutlass.range_constexpr(MI):
                row = wm * 64 + i * 16 + g
                cute.copy(c128, sA32[slot, row, chunk, None], ra[i, 0, None])
                cute.copy(c128, sA32[slot, row + 8, chunk, None], ra[i, 1, None])
            for j in cutlass.range_constexpr(NI):
                cute.copy(c128, sB32[slot, wn * 32 + j * 8 + g, chunk, None], rb[j, None])
            for i in cutlass.range_constexpr(MI):
                for j in cutlass.range_constexpr(NI):
                    cv = cute.make_tensor(part.iterator + (i * NI + j) * 4, cute.make_layout((4,), stride=(1,)))
                    for h in cutlass.range_constexpr(2):
                        mma_e4m3(cv, ra[i, 0, 2 * h], ra[i, 1, 2 * h], ra[i, 0, 2 * h + 1], ra[i, 1, 2 * h + 1],
                                 rb[j, 2 * h], rb[j, 2 * h + 1])
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                f = srow[i, hr] * stile
                for j in cutlass.range_constexpr(NI):
                    for e in cutlass.range_constexpr(2):
                        acc[i, j, 2 * hr + e] = acc[i, j, 2 * hr + e] + part[i, j, 2 * hr + e] * f
    cute.arch.cp_async_wait_group(0)


@cute.jit
def project_heads(a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, bias: cute.Pointer,
                  norm_w: cute.Pointer, out: cute.Pointer, eps, HEADS: cutlass.Constexpr, ROW_OFF: cutlass.Constexpr,
                  NORM: cutlass.Constexpr):
    """Tile (head, token block): y = bf16(dq(x) dq(W)^T + bias) for the head's 128 columns (operand rows
    ROW_OFF + 128 head ..); with NORM, n = bf16(y * rsqrt(mean(y^2) + eps)), y = bf16(w * n); stored to
    out [B, HEADS, S, D]."""
    tid = cute.arch.thread_idx()[0]
    head = cute.arch.block_idx()[0]
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    nb = ROW_OFF // 128 + head
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(acc, a, sa, b, sb, m0, nb * BN, nb, tid, T, NALL, HID)
    gb = cute.make_tensor(bias, cute.make_layout((HEADS, D // 2, 2), stride=(D, 2, 1)))
    go = cute.make_tensor(out, cute.make_layout((B, HEADS, S, D // 2, 2), stride=(HEADS * S * D, S * D, D, 2, 1)))
    for j in cutlass.range_constexpr(NI):
        dp = (wn * 32 + j * 8) // 2 + q
        b0 = gb[head, dp, 0].to(F32)
        b1 = gb[head, dp, 1].to(F32)
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                acc[i, j, 2 * hr] = (acc[i, j, 2 * hr] + b0).to(BF16).to(F32)
                acc[i, j, 2 * hr + 1] = (acc[i, j, 2 * hr + 1] + b1).to(BF16).to(F32)
    if cutlass.const_expr(NORM):
        red = cute.make_tensor(cute.arch.alloc_smem(F32, 512), cute.make_layout((128, 4), stride=(4, 1)))
        gw = cute.make_tensor(norm_w, cute.make_layout((D // 2, 2), stride=(2, 1)))
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                ssum = F32(0.0)
                for j in cutlass.range_constexpr(NI):
                    for e in cutlass.range_constexpr(2):
                        ssum = ssum + acc[i, j, 2 * hr + e] * acc[i, j, 2 * hr + e]
                ssum = cute.arch.warp_reduction_sum(ssum, threads_in_group=4)
                if q == 0:
                    red[wm * 64 + i * 16 + g + 8 * hr, wn] = ssum
        cute.arch.sync_threads()
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                r = wm * 64 + i * 16 + g + 8 * hr
                rstd = cute.math.rsqrt((red[r, 0] + red[r, 1] + red[r, 2] + red[r, 3]) * F32(1.0 / D) + eps)
                for j in cutlass.range_constexpr(NI):
                    dp = (wn * 32 + j * 8) // 2 + q
                    for e in cutlass.range_constexpr(2):
                        n = (acc[i, j, 2 * hr + e] * rstd).to(BF16).to(F32)
                        acc[i, j, 2 * hr + e] = gw[dp, e].to(F32) * n
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            t = m0 + wm * 64 + i * 16 + g + 8 * hr
            for j in cutlass.range_constexpr(NI):
                o2[0] = acc[i, j, 2 * hr].to(BF16)
                o2[1] = acc[i, j, 2 * hr + 1].to(BF16)
                cute.copy(c32, o2, go[t // S, head, t % S, (wn * 32 + j * 8) // 2 + q, None])


@cute.kernel
def gemm_q(a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, bias: cute.Pointer, norm_w: cute.Pointer,
           out: cute.Pointer, eps: cutlass.Float32):
    project_heads(a, sa, b, sb, bias, norm_w, out, eps, QH, 0, True)


@cute.kernel
def gemm_k(a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, bias: cute.Pointer, norm_w: cute.Pointer,
           out: cute.Pointer, eps: cutlass.Float32):
    project_heads(a, sa, b, sb, bias, norm_w, out, eps, KVH, NQ, True)


@cute.kernel
def gemm_v(a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, bias: cute.Pointer, out: cute.Pointer):
    project_heads(a, sa, b, sb, bias, bias, out, F32(0.0), KVH, NQ + NKV, False)


MKB_PLAN = """/* mkb:plan
scratch qx fp8_e4m3[batch_size * seq_len * hidden_size]
scratch sx fp32[batch_size * seq_len * hidden_size / 128]
scratch qw fp8_e4m3[(q_size + 2 * kv_size) * hidden_size]
scratch sw fp32[(q_size + 2 * kv_size) * hidden_size / 16384]
launch quant_act grid(batch_size * seq_len * hidden_size / 1024) block(256) args(hidden_states, qx, sx)
launch quant_weight_q grid(hidden_size / 128, q_size / 128) block(256) args(q_weight, qw, sw)
launch quant_weight_k grid(hidden_size / 128, kv_size / 128) block(256) args(k_weight, qw, sw)
launch quant_weight_v grid(hidden_size / 128, kv_size / 128) block(256) args(v_weight, qw, sw)
launch gemm_q grid(num_attention_heads, batch_size * seq_len / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, q_bias, q_norm_weight, q, f32(eps))
launch gemm_k grid(num_key_value_heads, batch_size * seq_len / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, k_bias, k_norm_weight, k, f32(eps))
launch gemm_v grid(num_key_value_heads, batch_size * seq_len / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, v_bias, v)
*/"""
