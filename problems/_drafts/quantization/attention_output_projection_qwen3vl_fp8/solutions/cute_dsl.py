"""attention_output_projection_qwen3vl_fp8 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. quant_act: the 1 x 128 activation blocks, a warp per block (4 values a lane): amax, the fp32 scale
     amax * fp32(1/448), the e4m3 codes of x / scale (correctly rounded division, then round to nearest
     even), as the reference quantizes;
  2. quant_weight: the 128 x 128 weight blocks in the weight's own [N, K] layout (the blocks of W and of
     W.T are the same), a 256-thread block per block;
  3. gemm_fp8_bias: 128 x 128 output tiles on the FP8 tensor cores, warp-level mma.sync m16n8k32 e4m3
     (cute.nvgpu.warp.MmaFP8Op, exact products, fp32 accumulation); 128-wide k tiles (one scale block
     each) through a 4-stage cp.async ring; each k tile accumulated on its own and added into the result
     times sx[row] * sw[tile]; the bias added and the result rounded to bf16 once.
Fragments come from 16-byte shared-memory reads (the stored CuTe DSL GEMMs' trick): per 64-byte step,
lane (g, q) = (lane / 4, lane % 4) reads chunk 4 step + q of A rows g, g + 8 and of B row g; bytes 0..7
feed one m16n8k32 and bytes 8..15 a second, A and B permuted alike, which leaves every dot product
unchanged. The fragments are 32-bit words (4 fp8 each) and the MMA is inline PTX, so they stay in
registers (a CuTe view over an fp8 register tensor put it in local memory). 8 warps as 2 (m) x 4 (n), a warp computing 64 x 32 of the tile.
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
F8 = cutlass.Float8E4M3FN
U32 = cutlass.Uint32

T = 16384           # tokens (M)
K = 7680            # input features
N = 7680            # output features
KB = K // 128       # k tiles: one scale block each
BM = 128
BN = 128
CH = 8              # 16-byte chunks per 128-byte k-tile row
STAGES = 4
THREADS = 256
MI = 4              # m16 tiles per warp (64 rows)
NI = 4              # n8 tiles per warp (32 columns)
SMEM = STAGES * (BM + BN) * CH * 16     # 131072
INV_E4M3_MAX = 1.0 / 448.0              # rounded to fp32 where it is used: fp32(1/448)
assert T % BM == 0 and N % BN == 0 and K % 128 == 0 and SMEM == 131072
assert T * K < 2 ** 31 and N * K < 2 ** 31


@cute.jit
def swz(row):
    """The 16-byte chunk swizzle of a shared-memory row: rows g and g + 8 share it, and the 8 rows an
    8-lane phase reads land in distinct bank groups."""
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def e4m3_codes(v: cute.Tensor, scale, out: cute.Tensor, n: cutlass.Constexpr):
    """out[i] = e4m3(clamp(v[i] / scale, -448, 448)) for i < n (v fp32 registers, out fp8 registers)."""
    q = cute.make_rmem_tensor((n,), F32)
    for i in cutlass.range_constexpr(n):
        q[i] = cutlass.min(cutlass.max(v[i] / scale, F32(-448.0)), F32(448.0))
    out.store(q.load().to(F8))


@cute.kernel
def quant_act(x: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    """A warp per 1 x 128 block (block b = row * KB + k tile); lane l holds values 4 l .. 4 l + 3."""
    lane = cute.arch.lane_idx()
    b = cute.arch.block_idx()[0] * (THREADS // 32) + cute.arch.warp_idx()
    gx = cute.make_tensor(x, cute.make_layout((T * KB, 32, 4), stride=(128, 4, 1)))
    gq = cute.make_tensor(q, cute.make_layout((T * KB, 32, 4), stride=(128, 4, 1)))
    gs = cute.make_tensor(s, cute.make_layout((T * KB,), stride=(1,)))
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


@cute.kernel
def quant_weight(w: cute.Pointer, q: cute.Pointer, s: cute.Pointer):
    """Block (kb, nb) of the row-major bf16 [N, K] weight: thread t holds 64 values of row t / 2 (eight
    16-byte chunks), writes their codes and, thread 0, the block's scale s[nb, kb]."""
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    kb, nb, _ = cute.arch.block_idx()
    gw = cute.make_tensor(w, cute.make_layout((N, KB, 2, 8, 8), stride=(K, 128, 64, 8, 1)))
    gq = cute.make_tensor(q, cute.make_layout((N, KB, 2, 4, 16), stride=(K, 128, 64, 16, 1)))
    gs = cute.make_tensor(s, cute.make_layout((N // 128, KB), stride=(KB, 1)))
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


@cute.jit
def load_stage(gA: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, m0, n0, slot, kt, tid):
    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.cpasync.LoadCacheMode.GLOBAL),
                              F8, num_bits_per_copy=128)
    c = tid % CH
    r0 = tid // CH
    cs = c ^ swz(r0)                 # rows r0 + 32 i share r0 & 7
    for i in cutlass.range_constexpr(BM // (THREADS // CH)):
        r = r0 + i * (THREADS // CH)
        cute.copy(cpa, gA[m0 + r, kt, c, None], sA[slot, r, cs, None])
        cute.copy(cpa, gB[n0 + r, kt, c, None], sB[slot, r, cs, None])


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
def compute_stage(part: cute.Tensor, sA32: cute.Tensor, sB32: cute.Tensor, slot, lane, warp):
    """The k tile's products into part (MI, NI, 4). Registers are 32-bit words of 4 fp8: for the MMA h of a
    step, A's fragment is words 2 h, 2 h + 1 of rows g and g + 8, B's words 2 h, 2 h + 1 of row g."""
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    x = swz(g)
    ra = cute.make_rmem_tensor(cute.make_layout((MI, 2, 4), stride=(8, 4, 1)), U32)
    rb = cute.make_rmem_tensor(cute.make_layout((NI, 4), stride=(4, 1)), U32)
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


@cute.kernel
def gemm_fp8_bias(a: cute.Pointer, sa: cute.Pointer, b: cute.Pointer, sb: cute.Pointer, bias: cute.Pointer,
                  out: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    nb = cute.arch.block_idx()[0]
    mb = cute.arch.block_idx()[1]
    n0 = nb * BN
    m0 = mb * BM
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    gA = cute.make_tensor(a, cute.make_layout((T, KB, CH, 16), stride=(K, 128, 16, 1)))
    gB = cute.make_tensor(b, cute.make_layout((N, KB, CH, 16), stride=(K, 128, 16, 1)))
    gsa = cute.make_tensor(sa, cute.make_layout((T, KB), stride=(KB, 1)))
    gsb = cute.make_tensor(sb, cute.make_layout((N // 128, KB), stride=(KB, 1)))
    gbias = cute.make_tensor(bias, cute.make_layout((N // 2, 2), stride=(2, 1)))
    gc = cute.make_tensor(out, cute.make_layout((T, N // 2, 2), stride=(N, 2, 1)))
    base = cute.arch.get_dyn_smem(F8, alignment=128)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, CH, 16), stride=(BM * CH * 16, CH * 16, 16, 1)))
    sB = cute.make_tensor(base + STAGES * BM * CH * 16,
                          cute.make_layout((STAGES, BN, CH, 16), stride=(BN * CH * 16, CH * 16, 16, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sA32 = cute.make_tensor(base32, cute.make_layout((STAGES, BM, CH, 4), stride=(BM * CH * 4, CH * 4, 4, 1)))
    sB32 = cute.make_tensor(base32 + STAGES * BM * CH * 4,
                            cute.make_layout((STAGES, BN, CH, 4), stride=(BN * CH * 4, CH * 4, 4, 1)))
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    acc.fill(0.0)
    part = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    srow = cute.make_rmem_tensor(cute.make_layout((MI, 2), stride=(2, 1)), F32)
    for s in cutlass.range_constexpr(STAGES - 1):
        load_stage(gA, gB, sA, sB, m0, n0, s, s, tid)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KB):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        cute.arch.sync_threads()                    # everyone's; and slot (kt - 1) % STAGES is free
        nxt = kt + (STAGES - 1)
        if nxt < KB:
            load_stage(gA, gB, sA, sB, m0, n0, nxt % STAGES, nxt, tid)
        cute.arch.cp_async_commit_group()
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                srow[i, hr] = gsa[m0 + wm * 64 + i * 16 + g + 8 * hr, kt]
        stile = gsb[nb, kt]
        part.fill(0.0)
        compute_stage(part, sA32, sB32, kt % STAGES, lane, warp)
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                f = srow[i, hr] * stile
                for j in cutlass.range_constexpr(NI):
                    for e in cutlass.range_constexpr(2):
                        acc[i, j, 2 * hr + e] = acc[i, j, 2 * hr + e] + part[i, j, 2 * hr + e] * f
    cute.arch.cp_async_wait_group(0)
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for j in cutlass.range_constexpr(NI):
        cp = (n0 + wn * 32 + j * 8) // 2 + q
        b0 = gbias[cp, 0].to(F32)
        b1 = gbias[cp, 1].to(F32)
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                m = m0 + wm * 64 + i * 16 + g + 8 * hr
                o2[0] = (acc[i, j, 2 * hr] + b0).to(BF16)
                o2[1] = (acc[i, j, 2 * hr + 1] + b1).to(BF16)
                cute.copy(c32, o2, gc[m, cp, None])


MKB_PLAN = """/* mkb:plan
scratch qx fp8_e4m3[num_tokens * input_dim]
scratch sx fp32[num_tokens * input_dim / 128]
scratch qw fp8_e4m3[hidden_size * input_dim]
scratch sw fp32[hidden_size * input_dim / 16384]
launch quant_act grid(num_tokens * input_dim / 1024) block(256) args(attn_output, qx, sx)
launch quant_weight grid(input_dim / 128, hidden_size / 128) block(256) args(o_proj_weight, qw, sw)
launch gemm_fp8_bias grid(hidden_size / 128, num_tokens / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, o_proj_bias, output)
*/"""
