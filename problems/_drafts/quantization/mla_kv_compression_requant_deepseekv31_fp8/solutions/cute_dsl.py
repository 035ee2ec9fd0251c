"""mla_kv_compression_requant_deepseekv31_fp8 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. quant_act: the 1 x 128 blocks of x (a warp per block), quant_weight_a / quant_weight_b: the 128 x 128
     blocks of both weights (a block per block), with the reference's arithmetic (scale = amax *
     fp32(1/448), codes by correctly rounded division, round to nearest even);
  2. gemm_kv_a: the kv_a product on the FP8 tensor cores (128 x 128 tiles, 128-wide k tiles through a
     4-stage cp.async ring, mma.sync m16n8k32 e4m3, each k tile added times its two scales), rounded to
     bf16 into the latent buffer (columns < 512) and the k_pe output (512..575);
  3. latent_norm_quant: a warp per token: the RMSNorm with the model's two bf16 roundings, then the
     re-quantization of the result in 1 x 128 blocks;
  4. gemm_kv_b: the same GEMM core over K = 512, rounded to bf16.
The GEMM core is problem #52's port: 16-byte shared reads of 4-fp8 words (A and B k-permuted alike),
the m16n8k32 MMA as inline PTX on 32-bit registers; 8 warps as 2 (m) x 4 (n), 64 x 32 each.
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
F8 = cutlass.Float8E4M3FN
U32 = cutlass.Uint32

T = 16384            # tokens
HID = 7168           # hidden size (kv_a's K)
NA = 640             # kv_a outputs: 512 latent + 64 rope + 64 padding
RANK = 512           # latent width (kv_b's K)
ROPE = 64
NB = 32768           # kv_b outputs
BM = 128
BN = 128
CH = 8
STAGES = 4
THREADS = 256
MI = 4
NI = 4
SMEM = STAGES * (BM + BN) * CH * 16     # 131072
INV_E4M3_MAX = 1.0 / 448.0
assert T % BM == 0 and NA % BN == 0 and NB % BN == 0 and HID % 128 == 0 and RANK % 128 == 0
assert T * HID < 2 ** 31 and NB * RANK < 2 ** 31 and T * NB < 2 ** 31


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
def quant_block(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer, ROWS: cutlass.Constexpr, COLS: cutlass.Constexpr):
    """Block (kb, nb) of a row-major bf16 [ROWS, COLS] weight: thread t holds 64 values of row t / 2."""
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    kb, nb, _ = cute.arch.block_idx()
    KBc = COLS // 128
    gw = cute.make_tensor(w, cute.make_layout((ROWS, KBc, 2, 8, 8), stride=(COLS, 128, 64, 8, 1)))
    gq = cute.make_tensor(q, cute.make_layout((ROWS, KBc, 2, 4, 16), stride=(COLS, 128, 64, 16, 1)))
    gs = cute.make_tensor(s, cute.make_layout((ROWS // 128, KBc), stride=(KBc, 1)))
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
def quant_weight_a(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    quant_block(w, q, s, NA, HID)


@cute.kernel
def quant_weight_b(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    quant_block(w, q, s, NB, RANK)


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


@cute.kernel
def gemm_kv_a(a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, latent: cute.Pointer,
              k_pe: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    nb = cute.arch.block_idx()[0]
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(acc, a, sa, b, sb, m0, nb * BN, nb, tid, T, NA, HID)
    gl = cute.make_tensor(latent, cute.make_layout((T, RANK // 2, 2), stride=(RANK, 2, 1)))
    gk = cute.make_tensor(k_pe, cute.make_layout((T, ROPE // 2, 2), stride=(ROPE, 2, 1)))
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for j in cutlass.range_constexpr(NI):
        col = nb * BN + wn * 32 + j * 8 + 2 * q
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                m = m0 + wm * 64 + i * 16 + g + 8 * hr
                o2[0] = acc[i, j, 2 * hr].to(BF16)
                o2[1] = acc[i, j, 2 * hr + 1].to(BF16)
                if col < RANK:
                    cute.copy(c32, o2, gl[m, col // 2, None])
                if col >= RANK and col < RANK + ROPE:
                    cute.copy(c32, o2, gk[m, (col - RANK) // 2, None])


@cute.kernel
def latent_norm_quant(latent: cute.Pointer, weight: cute.Pointer, q: cute.Pointer, s: cute.Pointer,
                      eps: cutlass.Float32):
    """A warp per token: lane l holds values 128 j + 4 l .. + 3 of the latent (block j = 0..3)."""
    lane = cute.arch.lane_idx()
    t = cute.arch.block_idx()[0] * (THREADS // 32) + cute.arch.warp_idx()
    gl = cute.make_tensor(latent, cute.make_layout((T, 4, 32, 4), stride=(RANK, 128, 4, 1)))
    gw = cute.make_tensor(weight, cute.make_layout((4, 32, 4), stride=(128, 4, 1)))
    gq = cute.make_tensor(q, cute.make_layout((T, 4, 32, 4), stride=(RANK, 128, 4, 1)))
    gs = cute.make_tensor(s, cute.make_layout((T, 4), stride=(4, 1)))
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F8, num_bits_per_copy=32)
    rx = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), BF16)
    rw = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), BF16)
    for j in cutlass.range_constexpr(4):
        cute.copy(c64, gl[t, j, lane, None], rx[j, None])
        cute.copy(c64, gw[j, lane, None], rw[j, None])
    ss = F32(0.0)
    for j in cutlass.range_constexpr(4):
        for e in cutlass.range_constexpr(4):
            f = rx[j, e].to(F32)
            ss = ss + f * f
    ss = cute.arch.warp_reduction_sum(ss)
    rstd = cute.math.rsqrt(ss * F32(1.0 / RANK) + eps)
    for j in cutlass.range_constexpr(4):
        v = cute.make_rmem_tensor((4,), F32)
        m = F32(0.0)
        for e in cutlass.range_constexpr(4):
            n = (rx[j, e].to(F32) * rstd).to(BF16).to(F32)
            v[e] = (rw[j, e].to(F32) * n).to(BF16).to(F32)
            m = cute.arch.fmax(m, cute.arch.fmax(v[e], -v[e]))
        m = cute.arch.warp_reduction_max(m)
        scale = m * F32(INV_E4M3_MAX)
        rq = cute.make_rmem_tensor((4,), F8)
        e4m3_codes(v, scale, rq, 4)
        cute.copy(c32, rq, gq[t, j, lane, None])
        if lane == 0:
            gs[t, j] = scale


@cute.kernel
def gemm_kv_b(a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, out: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    nb = cute.arch.block_idx()[0]
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(acc, a, sa, b, sb, m0, nb * BN, nb, tid, T, NB, RANK)
    gc = cute.make_tensor(out, cute.make_layout((T, NB // 2, 2), stride=(NB, 2, 1)))
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            m = m0 + wm * 64 + i * 16 + g + 8 * hr
            for j in cutlass.range_constexpr(NI):
                o2[0] = acc[i, j, 2 * hr].to(BF16)
                o2[1] = acc[i, j, 2 * hr + 1].to(BF16)
                cute.copy(c32, o2, gc[m, (nb * BN + wn * 32 + j * 8) // 2 + q, None])


MKB_PLAN = """/* mkb:plan
scratch qx fp8_e4m3[batch_size * seq_len * hidden_size]
scratch sx fp32[batch_size * seq_len * hidden_size / 128]
scratch qwa fp8_e4m3[kv_a_output_dim_padded * hidden_size]
scratch swa fp32[kv_a_output_dim_padded * hidden_size / 16384]
scratch qwb fp8_e4m3[kv_b_output_dim * kv_lora_rank]
scratch swb fp32[kv_b_output_dim * kv_lora_rank / 16384]
scratch latent bf16[batch_size * seq_len * kv_lora_rank]
scratch qa fp8_e4m3[batch_size * seq_len * kv_lora_rank]
scratch sa fp32[batch_size * seq_len * kv_lora_rank / 128]
launch quant_act grid(batch_size * seq_len * hidden_size / 1024) block(256) args(hidden_states, qx, sx)
launch quant_weight_a grid(hidden_size / 128, kv_a_output_dim_padded / 128) block(256) args(kv_a_proj_weight, qwa, swa)
launch quant_weight_b grid(kv_lora_rank / 128, kv_b_output_dim / 128) block(256) args(kv_b_proj_weight, qwb, swb)
launch gemm_kv_a grid(kv_a_output_dim_padded / 128, batch_size * seq_len / 128) block(256) shared(131072)
  args(qx, sx, qwa, swa, latent, k_pe)
launch latent_norm_quant grid(batch_size * seq_len / 8) block(256) args(latent, kv_a_layernorm_weight, qa, sa, f32(eps))
launch gemm_kv_b grid(kv_b_output_dim / 128, batch_size * seq_len / 128) block(256) shared(131072)
  args(qa, sa, qwb, swb, kv_expanded)
*/"""
