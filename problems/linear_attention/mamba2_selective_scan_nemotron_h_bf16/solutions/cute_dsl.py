"""The Mamba2 mixer (Nemotron-H) in CuTe DSL: the algorithm of solutions/cuda.cu, seven launches, every
product on bf16 tensor cores (mma.sync m16n8k16 with fp32 accumulation, as inline PTX), with eager's bf16
rounding points kept (the projection, the conv output, sigmoid and product, each dt step, y, the normalized
y, the weight and gate products, the output).
  gemm_bf16_nt (x2)  C[m][n] = sum_k A[m][k] W[n][k]: 128 x 256 tiles, 8 warps of 64 x 64, k steps of 32
                     through a 4-stage cp.async ring, ldmatrix fragments, a bf16 epilogue staged through
                     shared memory for 16-byte stores. M, N, K are run-time arguments (the two launches
                     differ), so the copies are inline PTX on computed addresses (cp.async.cg, ldmatrix,
                     ld.shared.v4 / st.global.v4), not layouts whose alignment the DSL must prove.
  conv_silu          depthwise causal conv (4 taps) + bias, bf16; SiLU as bf16 sigmoid and bf16 product;
                     token-major [token][20480] (x, B, C).
  dt_prep            dt = clamp(softplus(dt_raw + dt_bias)) (bf16 steps) and a = -exp(A_log) dt (fp32),
                     head-major [b][h][t].
  chunk_scan_states  (head, batch): the state entering chunks 1..3, H_{c+1} = exp(sum a of chunk c) H_c
                     + sum_t exp(a_cum[last] - a_cum[t]) dt_t x_t B_t^T, in registers across the chunks,
                     written as bf16 hi/lo.
  chunk_output       (64-token block, chunk, batch * head): y = exp(a_cum[t]) (C_t . H_c) + sum_{s<=t}
                     (C_t . B_s) exp(a_cum[t] - a_cum[s]) dt_s x_s + D x_t, the causal part in 64 x 64 blocks
                     whose masked scores stay in registers as the next product's A operand.
  gated_norm         (token, group of 2048): rsqrt(mean y^2 + eps), then the bf16 products with the norm
                     weight and silu(gate).
Operands that are fp32 in the reference (the decay-weighted x dt, the masked scores, the entering states)
are split into bf16 hi + lo and multiplied twice. Head h reads group h % 8 of B and C.

Fragments (PTX ISA, m16n8k16, g = lane / 4, q = lane % 4): A's four b32 registers hold A(g, 2q..2q+1),
A(g+8, 2q..), A(g, 2q+8..), A(g+8, 2q+8..); B's two hold B(k = 2q.., n = g), B(k = 2q+8.., n = g), read from
an array of B^T; D's four are D(g, 2q), D(g, 2q+1), D(g+8, 2q), D(g+8, 2q+1). exp and log1p are computed in
Float64 and rounded once to fp32 (the DSL's fp32 exp is an ex2.approx sequence; within an ulp of CUDA's expf
/ log1pf); rsqrt is rsqrt.approx.f32 as CUDA's rsqrtf; the sums the cuda solution's compiler contracts (the
conv taps, the sum of squares, the skip term) are fma.rn, other products mul.rn."""
import cutlass
import cutlass.cute as cute

BATCH, SEQ, HEADS, P, N, NG, L, KC = 8, 512, 256, 64, 256, 8, 128, 4
CH = SEQ // L
I = HEADS * P                         # 16384
GTS = NG * N                          # 2048
CD = I + 2 * GTS                      # 20480
PROJ = I + CD + HEADS                 # 37120
HID = 8192
PADL, PADN, PAD64 = L + 8, N + 8, 64 + 8
BM, BN, BK, STAGES, PITCH = 128, 256, 32, 4, 32 + 8
OUT_PITCH = BN + 8
GEMM_SMEM = STAGES * (BM + BN) * PITCH * 2
STATES_SMEM = (2 * 64 + 256) * PADL * 2 + L * 4
OUTPUT_SMEM = (64 + 2 * 64) * PADN * 2 + 2 * L * 4
F32, F64, BF16, U32, I32, I64 = (cutlass.Float32, cutlass.Float64, cutlass.BFloat16, cutlass.Uint32, cutlass.Int32,
                                 cutlass.Int64)
assert BM * OUT_PITCH * 2 <= GEMM_SMEM and L == 128 and P == 64 and N == 256


def sub_rn(a, b):
    return F32(cute.arch.inline_ptx("sub.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def fma_rn(a, b, c):
    return F32(cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                    read_only_args=[a, b, c]))


def exp_f32(x):
    return F32(cute.math.exp(F64(x)))


def log1p_f32(x):
    return F32(cute.math.log(F64(1.0) + F64(x)))


def bfr(x):
    """round to bf16 and back (an eager bf16 intermediate)."""
    return F32(x).to(BF16).to(F32)


def sigmoid_bf(x):
    """bf16(1 / (1 + exp(-x))), as eager's bf16 sigmoid."""
    return bfr(F32(1.0) / (F32(1.0) + exp_f32(F32(0.0) - x)))


def cvt2(lo, hi):
    """bf16x2 of two fp32 values, lo in the lower half (the lower address), each rounded to nearest even."""
    return U32(cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                    read_only_args=[F32(hi), F32(lo)]))


def split_lo(v):
    return sub_rn(v, v.to(BF16).to(F32))


def mma(acc, a, b0, b1):
    """acc (a 4-element fp32 register tensor) += A B on mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32."""
    d = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a[0], a[1], a[2], a[3], b0, b1, acc[0], acc[1], acc[2], acc[3]])
    for i in range(4):
        acc[i] = d[i]


def load_a(a, A32, base2, ld, r, k0, g, q):
    """A fragment (16 x 16 at row r, k k0) of a row-major bf16 array of pitch ld, through its Uint32 view."""
    p = base2 + ((r + g) * ld + k0) // 2 + q
    a[0] = A32[p]
    a[1] = A32[p + 4 * ld]
    a[2] = A32[p + 4]
    a[3] = A32[p + 4 * ld + 4]


def b_pair(Bt32, base2, ld, c, k0, g, q):
    """B fragment (16 x 8 at k k0, column c) of an array holding B^T row-major ([column][k], pitch ld)."""
    p = base2 + ((c + g) * ld + k0) // 2 + q
    return Bt32[p], Bt32[p + 4]


def prefix128(ga, start, out, lane):
    """Inclusive prefix sums of the 128 fp32 values ga[start ..] (4 a lane, in order, then across lanes) into
    out, by one warp."""
    v = cute.make_rmem_tensor((4,), F32)
    run = F32(0.0)
    for j in range(4):
        run = run + ga[start + lane * 4 + j]
        v[j] = run
    prefix = run
    for i in range(5):
        other = F32(cute.arch.shuffle_sync_up(prefix, 1 << i))
        prefix = cutlass.select_(lane >= (1 << i), prefix + other, prefix)
    before = F32(cute.arch.shuffle_sync_up(prefix, 1))
    before = cutlass.select_(lane == 0, F32(0.0), before)
    for j in range(4):
        out[lane * 4 + j] = before + v[j]


# ---- the projections: C = A W^T, all bf16, row-major, M % 128 == N % 256 == K % 32 == 0 -----------------------
def cp_async16(saddr, gaddr):
    cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;", read_only_args=[saddr, gaddr])


def ldmatrix_x4(saddr):
    return cute.arch.inline_ptx("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
                                write_only_types=[U32] * 4, read_only_args=[saddr])


@cute.jit
def load_stage(sa_addr, sw_addr, a_addr, w_addr, K, tid, stage, kt):
    k0 = kt * BK
    for i in cutlass.range_constexpr(2):      # 128 rows x 4 chunks of 8
        v = tid + i * 256
        r = v // 4
        kc = (v % 4) * 8
        cp_async16(sa_addr + ((stage * BM + r) * PITCH + kc) * 2, a_addr + (I64(r) * K + k0 + kc) * 2)
    for i in cutlass.range_constexpr(4):      # 256 rows x 4 chunks of 8
        v = tid + i * 256
        r = v // 4
        kc = (v % 4) * 8
        cp_async16(sw_addr + ((stage * BN + r) * PITCH + kc) * 2, w_addr + (I64(r) * K + k0 + kc) * 2)


@cute.kernel
def gemm_bf16_nt(A: cute.Pointer, W: cute.Pointer, Cout: cute.Pointer, M: cutlass.Int32, Nn: cutlass.Int32,
                 K: cutlass.Int32):
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    g = lane // 4
    q = lane % 4
    bx, by, _ = cute.arch.block_idx()
    m0 = bx * BM
    n0 = by * BN
    wm = (warp // 4) * 64
    wn = (warp % 4) * 64
    base = cute.arch.get_dyn_smem(BF16, alignment=16)
    sa_addr = base.toint()                                  # [stage][128][PITCH]
    sw_addr = sa_addr + STAGES * BM * PITCH * 2             # [stage][256][PITCH]
    a_addr = A.toint() + I64(m0) * K * 2
    w_addr = W.toint() + I64(n0) * K * 2
    KT = K // BK

    acc = cute.make_rmem_tensor(cute.make_layout((4, 8, 4), stride=(32, 4, 1)), F32)
    acc.fill(0.0)
    for s in cutlass.range_constexpr(STAGES - 1):
        if s < KT:
            load_stage(sa_addr, sw_addr, a_addr, w_addr, K, tid, s, s)
        cute.arch.cp_async_commit_group()
    af = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
    bq = cute.make_rmem_tensor(cute.make_layout((8, 2), stride=(2, 1)), U32)
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)
        cute.arch.sync_threads()      # tile kt landed for every thread; the stage of tile kt - 1 is free
        if kt + STAGES - 1 < KT:
            load_stage(sa_addr, sw_addr, a_addr, w_addr, K, tid, (kt + STAGES - 1) % STAGES, kt + STAGES - 1)
        cute.arch.cp_async_commit_group()
        st = kt % STAGES
        for kk in cutlass.range_constexpr(0, BK, 16):
            for mt in cutlass.range_constexpr(4):
                r = ldmatrix_x4(sa_addr + ((st * BM + wm + mt * 16 + lane % 16) * PITCH + kk + (lane // 16) * 8) * 2)
                for i in cutlass.range_constexpr(4):
                    af[mt, i] = r[i]
            for p in cutlass.range_constexpr(4):  # two n8 tiles a load: (n 0-7 | 8-15) x (k 0-7 | 8-15)
                r = ldmatrix_x4(sw_addr + ((st * BN + wn + p * 16 + (lane // 16) * 8 + lane % 8) * PITCH + kk
                                           + ((lane // 8) % 2) * 8) * 2)
                bq[2 * p, 0] = r[0]
                bq[2 * p, 1] = r[1]
                bq[2 * p + 1, 0] = r[2]
                bq[2 * p + 1, 1] = r[3]
            for mt in cutlass.range_constexpr(4):
                for nt in cutlass.range_constexpr(8):
                    mma(acc[mt, nt, None], af[mt, None], bq[nt, 0], bq[nt, 1])
    cute.arch.cp_async_wait_group(0)
    cute.arch.sync_threads()          # the ring is free: stage the bf16 tile
    sC32 = cute.make_tensor(cute.recast_ptr(base, dtype=U32), cute.make_layout((BM, OUT_PITCH // 2),
                                                                                  stride=(OUT_PITCH // 2, 1)))
    for mt in cutlass.range_constexpr(4):
        for nt in cutlass.range_constexpr(8):
            r = wm + mt * 16 + g
            c2 = (wn + nt * 8 + q * 2) // 2
            sC32[r, c2] = cvt2(acc[mt, nt, 0], acc[mt, nt, 1])
            sC32[r + 8, c2] = cvt2(acc[mt, nt, 2], acc[mt, nt, 3])
    cute.arch.sync_threads()
    c_addr = Cout.toint()
    for it in cutlass.range(BM * BN // 8 // 256, unroll=4):
        v = tid + it * 256
        r = v // (BN // 8)
        c = (v % (BN // 8)) * 8
        x0, x1, x2, x3 = cute.arch.inline_ptx("ld.shared.v4.b32 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
                                              write_only_types=[U32] * 4,
                                              read_only_args=[sa_addr + (r * OUT_PITCH + c) * 2])
        cute.arch.inline_ptx("st.global.v4.b32 [{$r0}], {{$r1}, {$r2}, {$r3}, {$r4}};",
                             read_only_args=[c_addr + (I64(m0 + r) * Nn + n0 + c) * 2, x0, x1, x2, x3])


# ---- conv + SiLU: thread = (token, 8 channels) -----------------------------------------------------------------
@cute.kernel
def conv_silu(proj: cute.Pointer, conv_w: cute.Pointer, conv_b: cute.Pointer, act: cute.Pointer):
    v = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gp = cute.make_tensor(proj, cute.make_layout((BATCH * SEQ, PROJ // 8, 8), stride=(PROJ, 8, 1)))
    gw = cute.make_tensor(conv_w, cute.make_layout((CD // 8, 4, 8), stride=(8 * KC, 8, 1)))
    gb = cute.make_tensor(conv_b, cute.make_layout((CD // 8, 8), stride=(8, 1)))
    gact = cute.make_tensor(act, cute.make_layout((BATCH * SEQ, CD // 8, 8), stride=(CD, 8, 1)))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if v < BATCH * SEQ * CD // 8:
        row = v // (CD // 8)
        c8 = v % (CD // 8)
        t = row % SEQ
        wv = cute.make_rmem_tensor(cute.make_layout((4, 8), stride=(8, 1)), BF16)   # wv[j, e]: flat e * 4 + tap
        for j in cutlass.range_constexpr(4):
            cute.copy(c16, gw[c8, j, None], wv[j, None])
        bv = cute.make_rmem_tensor((8,), BF16)
        cute.copy(c16, gb[c8, None], bv)
        u = cute.make_rmem_tensor((8,), F32)
        for e in cutlass.range_constexpr(8):
            u[e] = bv[e].to(F32)
        xv = cute.make_rmem_tensor((8,), BF16)
        for j in cutlass.range_constexpr(KC):   # tap j reads token t - 3 + j; zero history before token 0
            if t - (KC - 1) + j >= 0:
                cute.copy(c16, gp[row - (KC - 1) + j, (I + c8 * 8) // 8, None], xv)
                for e in cutlass.range_constexpr(8):
                    u[e] = fma_rn(wv[(e * KC + j) // 8, (e * KC + j) % 8].to(F32), xv[e].to(F32), u[e])
        ov = cute.make_rmem_tensor((8,), BF16)
        for e in cutlass.range_constexpr(8):
            ub = bfr(u[e])
            ov[e] = mul_rn(ub, sigmoid_bf(ub)).to(BF16)
        cute.copy(c16, ov, gact[row, c8, None])


# ---- dt and a = -exp(A_log) dt, head-major [b][h][t] ---------------------------------------------------------
@cute.kernel
def dt_prep(proj: cute.Pointer, dt_bias: cute.Pointer, A_log: cute.Pointer, lo: cutlass.Float32,
            hi: cutlass.Float32, dt_hm: cute.Pointer, a_hm: cute.Pointer):
    e = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gp = cute.make_tensor(proj, cute.make_layout((BATCH * SEQ, PROJ), stride=(PROJ, 1)))
    gdb = cute.make_tensor(dt_bias, cute.make_layout(HEADS))
    galog = cute.make_tensor(A_log, cute.make_layout(HEADS))
    hm = cute.make_layout((BATCH, HEADS, SEQ), stride=(HEADS * SEQ, SEQ, 1))
    gdt, ga = cute.make_tensor(dt_hm, hm), cute.make_tensor(a_hm, hm)
    if e < BATCH * SEQ * HEADS:
        row = e // HEADS
        h = e % HEADS
        b = row // SEQ
        t = row % SEQ
        s1 = bfr(gp[row, PROJ - HEADS + h].to(F32) + gdb[h].to(F32))
        s2 = bfr(cutlass.select_(s1 > F32(20.0), s1, log1p_f32(exp_f32(s1))))
        c1 = cute.arch.fmax(s2, lo)
        dt = bfr(cutlass.select_(c1 < hi, c1, hi))
        gdt[b, h, t] = dt
        ga[b, h, t] = mul_rn(F32(0.0) - exp_f32(galog[h].to(F32)), dt)


# ---- the states entering chunks 1..3 -------------------------------------------------------------------------
@cute.kernel
def chunk_scan_states(act: cute.Pointer, dt_hm: cute.Pointer, a_hm: cute.Pointer, enter_hi: cute.Pointer,
                      enter_lo: cute.Pointer):
    h, b, _ = cute.arch.block_idx()
    grp = h % NG
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    g = lane // 4
    q = lane % 4
    r0 = (warp // 4) * 32             # d rows (2 m16 tiles)
    c0 = (warp % 4) * 64              # n columns (8 n8 tiles)
    hm = (b * HEADS + h) * SEQ

    base = cute.arch.get_dyn_smem(BF16, alignment=16)
    sXh = cute.make_tensor(base, cute.make_layout((P, PADL), stride=(PADL, 1)))             # (w dt x)^T hi [d][t]
    sXl = cute.make_tensor(base + P * PADL, cute.make_layout((P, PADL), stride=(PADL, 1)))  # lo
    sBt = cute.make_tensor(base + 2 * P * PADL, cute.make_layout((N, PADL), stride=(PADL, 1)))  # B^T [n][t]
    s32 = cute.make_tensor(cute.recast_ptr(base, dtype=U32), cute.make_layout((2 * P + N) * PADL // 2))
    XH2, XL2, BT2 = 0, P * PADL // 2, P * PADL
    sS = cute.make_tensor(cute.recast_ptr(base + (2 * P + N) * PADL, dtype=F32), cute.make_layout(L))

    gact = cute.make_tensor(act, cute.make_layout((BATCH * SEQ, CD // 8, 8), stride=(CD, 8, 1)))
    gdt = cute.make_tensor(dt_hm, cute.make_layout(BATCH * HEADS * SEQ))
    ga = cute.make_tensor(a_hm, cute.make_layout(BATCH * HEADS * SEQ))
    eh32 = cute.make_tensor(cute.recast_ptr(enter_hi, dtype=U32), cute.make_layout(BATCH * (CH - 1) * HEADS * P * N // 2))
    el32 = cute.make_tensor(cute.recast_ptr(enter_lo, dtype=U32), cute.make_layout(BATCH * (CH - 1) * HEADS * P * N // 2))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    raw = cute.make_rmem_tensor((8,), BF16)

    acc = cute.make_rmem_tensor(cute.make_layout((2, 8, 4), stride=(32, 4, 1)), F32)
    acc.fill(0.0)
    ah = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
    al = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
    bq = cute.make_rmem_tensor(cute.make_layout((8, 2), stride=(2, 1)), U32)
    for c in cutlass.range(CH - 1):
        token0 = b * SEQ + c * L
        cute.arch.sync_threads()      # the previous chunk's operands are consumed
        if warp == 0:
            prefix128(ga, hm + c * L, sS, lane)
        for it in cutlass.range(L * N // 8 // 256):     # thread: token t, 8 consecutive n
            vv = tid + it * 256
            t = vv % L
            n0 = (vv // L) * 8
            cute.copy(c16, gact[token0 + t, (I + grp * N + n0) // 8, None], raw)
            for j in cutlass.range_constexpr(8):
                sBt[n0 + j, t] = raw[j]
        cute.arch.sync_threads()      # prefix sums ready
        last = sS[L - 1]
        for it in cutlass.range(L * P // 8 // 256):     # thread: token t, 8 consecutive d
            vv = tid + it * 256
            t = vv % L
            d0 = (vv // L) * 8
            w = mul_rn(exp_f32(last - sS[t]), gdt[hm + c * L + t])
            cute.copy(c16, gact[token0 + t, (h * P + d0) // 8, None], raw)
            for j in cutlass.range_constexpr(8):
                x = mul_rn(w, raw[j].to(F32))
                sXh[d0 + j, t] = x.to(BF16)
                sXl[d0 + j, t] = split_lo(x).to(BF16)
        decay = exp_f32(last)
        for mt in cutlass.range_constexpr(2):
            for nt in cutlass.range_constexpr(8):
                for e in cutlass.range_constexpr(4):
                    acc[mt, nt, e] = mul_rn(acc[mt, nt, e], decay)
        cute.arch.sync_threads()
        for k0 in cutlass.range(0, L, 16):
            for mt in cutlass.range_constexpr(2):
                load_a(ah[mt, None], s32, XH2, PADL, r0 + mt * 16, k0, g, q)
                load_a(al[mt, None], s32, XL2, PADL, r0 + mt * 16, k0, g, q)
            for nt in cutlass.range_constexpr(8):
                b0, b1 = b_pair(s32, BT2, PADL, c0 + nt * 8, k0, g, q)
                bq[nt, 0] = b0
                bq[nt, 1] = b1
            for mt in cutlass.range_constexpr(2):
                for nt in cutlass.range_constexpr(8):
                    mma(acc[mt, nt, None], ah[mt, None], bq[nt, 0], bq[nt, 1])
                    mma(acc[mt, nt, None], al[mt, None], bq[nt, 0], bq[nt, 1])
        # acc is the state entering chunk c + 1
        state = ((b * (CH - 1) + c) * HEADS + h) * P * N
        for mt in cutlass.range_constexpr(2):
            for nt in cutlass.range_constexpr(8):
                d = r0 + mt * 16 + g
                n = c0 + nt * 8 + q * 2
                for half in cutlass.range_constexpr(2):
                    at2 = (state + (d + half * 8) * N + n) // 2
                    eh32[at2] = cvt2(acc[mt, nt, half * 2], acc[mt, nt, half * 2 + 1])
                    el32[at2] = cvt2(split_lo(acc[mt, nt, half * 2]), split_lo(acc[mt, nt, half * 2 + 1]))


# ---- y of one 64-token block of a chunk, one head --------------------------------------------------------------
@cute.kernel
def chunk_output(act: cute.Pointer, dt_hm: cute.Pointer, a_hm: cute.Pointer, D: cute.Pointer,
                 enter_hi: cute.Pointer, enter_lo: cute.Pointer, y: cute.Pointer):
    tb, c, bz = cute.arch.block_idx()
    b = bz // HEADS
    h = bz % HEADS
    grp = h % NG
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    g = lane // 4
    q = lane % 4
    token0 = b * SEQ + c * L
    hm = (b * HEADS + h) * SEQ + c * L

    base = cute.arch.get_dyn_smem(BF16, alignment=16)
    rows = cute.make_layout((64, N // 8, 8), stride=(PADN, 8, 1))
    sC = cute.make_tensor(base, rows)                              # C rows of the block: [t][n]
    sHh = cute.make_tensor(base + 64 * PADN, rows)                 # phase 1: entering state hi, lo [d][n]
    sHl = cute.make_tensor(base + 2 * 64 * PADN, rows)
    sB = sHh                                                       # phase 2: B rows of a source block [s][n]
    sXt = cute.make_tensor(base + 2 * 64 * PADN, cute.make_layout((P, PAD64), stride=(PAD64, 1)))  # x^T [d][s]
    s32 = cute.make_tensor(cute.recast_ptr(base, dtype=U32), cute.make_layout(3 * 64 * PADN // 2))
    C2, HH2, HL2, B2, XT2 = 0, 64 * PADN // 2, 64 * PADN, 64 * PADN // 2, 64 * PADN
    fbase = cute.recast_ptr(base + 3 * 64 * PADN, dtype=F32)
    sS = cute.make_tensor(fbase, cute.make_layout(L))
    sDt = cute.make_tensor(fbase + L, cute.make_layout(L))

    gact = cute.make_tensor(act, cute.make_layout((BATCH * SEQ, CD // 8, 8), stride=(CD, 8, 1)))
    gacte = cute.make_tensor(act, cute.make_layout((BATCH * SEQ, CD), stride=(CD, 1)))
    srows = cute.make_layout((BATCH * (CH - 1) * HEADS, P, N // 8, 8), stride=(P * N, N, 8, 1))
    geh, gel = cute.make_tensor(enter_hi, srows), cute.make_tensor(enter_lo, srows)
    gdt = cute.make_tensor(dt_hm, cute.make_layout(BATCH * HEADS * SEQ))
    ga = cute.make_tensor(a_hm, cute.make_layout(BATCH * HEADS * SEQ))
    gD = cute.make_tensor(D, cute.make_layout(HEADS))
    gy32 = cute.make_tensor(cute.recast_ptr(y, dtype=U32), cute.make_layout((BATCH * SEQ, I // 2), stride=(I // 2, 1)))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    raw = cute.make_rmem_tensor((8,), BF16)

    if warp == 0:
        prefix128(ga, hm, sS, lane)
    sDt[tid] = gdt[hm + tid]
    for it in cutlass.range(64 * N // 8 // 128):
        vv = tid + it * 128
        r = vv // (N // 8)
        col8 = vv % (N // 8)
        cute.copy(c16, gact[token0 + tb * 64 + r, (I + GTS + grp * N) // 8 + col8, None], raw)
        cute.copy(c16, raw, sC[r, col8, None])
    if c > 0:
        state = (b * (CH - 1) + c - 1) * HEADS + h
        for it in cutlass.range(P * N // 8 // 128):
            vv = tid + it * 128
            r = vv // (N // 8)
            col8 = vv % (N // 8)
            cute.copy(c16, geh[state, r, col8, None], raw)
            cute.copy(c16, raw, sHh[r, col8, None])
            cute.copy(c16, gel[state, r, col8, None], raw)
            cute.copy(c16, raw, sHl[r, col8, None])
    cute.arch.sync_threads()

    row = warp * 16                   # this warp's 16 tokens within the block
    ta = tb * 64 + row + g            # chunk-local tokens of the fragment rows
    tb8 = ta + 8
    sa = sS[ta]
    sb8 = sS[tb8]
    a = cute.make_rmem_tensor((4,), U32)
    acc = cute.make_rmem_tensor(cute.make_layout((8, 4), stride=(4, 1)), F32)
    acc.fill(0.0)
    if c > 0:                         # y_off = (C_t . H_entering) exp(a_cum[t]); chunk 0 starts from zero
        for k0 in cutlass.range(0, N, 16):
            load_a(a, s32, C2, PADN, row, k0, g, q)
            for j in cutlass.range_constexpr(8):
                bh0, bh1 = b_pair(s32, HH2, PADN, j * 8, k0, g, q)
                bl0, bl1 = b_pair(s32, HL2, PADN, j * 8, k0, g, q)
                mma(acc[j, None], a, bh0, bh1)
                mma(acc[j, None], a, bl0, bl1)
        ea = exp_f32(sa)
        eb = exp_f32(sb8)
        for j in cutlass.range_constexpr(8):
            acc[j, 0] = mul_rn(acc[j, 0], ea)
            acc[j, 1] = mul_rn(acc[j, 1], ea)
            acc[j, 2] = mul_rn(acc[j, 2], eb)
            acc[j, 3] = mul_rn(acc[j, 3], eb)

    sc = cute.make_rmem_tensor(cute.make_layout((8, 4), stride=(4, 1)), F32)
    mh = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
    ml = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
    mv = cute.make_rmem_tensor((4,), F32)
    for sblk in cutlass.range(tb + 1):
        cute.arch.sync_threads()      # the region is free
        for it in cutlass.range(64 * N // 8 // 128):
            vv = tid + it * 128
            r = vv // (N // 8)
            col8 = vv % (N // 8)
            cute.copy(c16, gact[token0 + sblk * 64 + r, (I + grp * N) // 8 + col8, None], raw)
            cute.copy(c16, raw, sB[r, col8, None])
        for it in cutlass.range_constexpr(64 * P // 8 // 128):   # thread: source token s, 8 consecutive d
            vv = tid + it * 128
            s = vv % 64
            d0 = (vv // 64) * 8
            cute.copy(c16, gact[token0 + sblk * 64 + s, (h * P + d0) // 8, None], raw)
            for j in cutlass.range_constexpr(8):
                sXt[d0 + j, s] = raw[j]
        cute.arch.sync_threads()
        sc.fill(0.0)
        for k0 in cutlass.range(0, N, 16):
            load_a(a, s32, C2, PADN, row, k0, g, q)
            for j in cutlass.range_constexpr(8):
                b0, b1 = b_pair(s32, B2, PADN, j * 8, k0, g, q)
                mma(sc[j, None], a, b0, b1)
        # causal decay mask and dt of the source, then the masked scores as A fragments (hi and lo)
        for j in cutlass.range_constexpr(8):
            for e in cutlass.range_constexpr(4):
                s = sblk * 64 + j * 8 + q * 2 + (e & 1)
                t = ta if e < 2 else tb8
                st = sa if e < 2 else sb8
                mv[e] = cutlass.select_(s <= t, mul_rn(mul_rn(sc[j, e], exp_f32(st - sS[s])), sDt[s]), F32(0.0))
            kk = j // 2               # n8 tile j is the k-half j % 2 of k16 step kk
            hf = j % 2
            mh[kk, hf * 2 + 0] = cvt2(mv[0], mv[1])
            mh[kk, hf * 2 + 1] = cvt2(mv[2], mv[3])
            ml[kk, hf * 2 + 0] = cvt2(split_lo(mv[0]), split_lo(mv[1]))
            ml[kk, hf * 2 + 1] = cvt2(split_lo(mv[2]), split_lo(mv[3]))
        for kk in cutlass.range_constexpr(4):
            for j in cutlass.range_constexpr(8):
                b0, b1 = b_pair(s32, XT2, PAD64, j * 8, kk * 16, g, q)
                mma(acc[j, None], mh[kk, None], b0, b1)
                mma(acc[j, None], ml[kk, None], b0, b1)

    dh = gD[h].to(F32)
    for j in cutlass.range_constexpr(8):
        d = j * 8 + q * 2
        for half in cutlass.range_constexpr(2):
            token = token0 + (tb8 if half == 1 else ta)
            y0 = fma_rn(dh, gacte[token, h * P + d].to(F32), acc[j, half * 2])
            y1 = fma_rn(dh, gacte[token, h * P + d + 1].to(F32), acc[j, half * 2 + 1])
            gy32[token, (h * P + d) // 2] = cvt2(y0, y1)


# ---- grouped RMS norm and gate: block = (token, group of 2048), thread = 8 channels ----------------------------
@cute.kernel
def gated_norm(y: cute.Pointer, proj: cute.Pointer, norm_w: cute.Pointer, eps: cutlass.Float32, out: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    blk = cute.arch.block_idx()[0]
    row = blk // NG
    ch8 = ((blk % NG) * (I // NG) + tid * 8) // 8
    partial = cute.make_tensor(cute.arch.alloc_smem(F32, 8), cute.make_layout(8))
    gy = cute.make_tensor(y, cute.make_layout((BATCH * SEQ, I // 8, 8), stride=(I, 8, 1)))
    go = cute.make_tensor(out, cute.make_layout((BATCH * SEQ, I // 8, 8), stride=(I, 8, 1)))
    gp = cute.make_tensor(proj, cute.make_layout((BATCH * SEQ, PROJ // 8, 8), stride=(PROJ, 8, 1)))
    gw = cute.make_tensor(norm_w, cute.make_layout((I // 8, 8), stride=(8, 1)))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    yv = cute.make_rmem_tensor((8,), BF16)
    zv = cute.make_rmem_tensor((8,), BF16)
    wv = cute.make_rmem_tensor((8,), BF16)
    cute.copy(c16, gy[row, ch8, None], yv)
    cute.copy(c16, gp[row, ch8, None], zv)    # the gate: columns [0, 16384) of the projection
    cute.copy(c16, gw[ch8, None], wv)
    ss = mul_rn(yv[0].to(F32), yv[0].to(F32))
    for e in cutlass.range_constexpr(1, 8):
        ss = fma_rn(yv[e].to(F32), yv[e].to(F32), ss)
    for i in cutlass.range_constexpr(5):
        ss = ss + F32(cute.arch.shuffle_sync_bfly(ss, 16 >> i))
    if tid % 32 == 0:
        partial[tid // 32] = ss
    cute.arch.sync_threads()
    total = F32(0.0)
    for w in cutlass.range_constexpr(8):
        total = total + partial[w]
    inv = cute.math.rsqrt(total / F32(I // NG) + eps)
    rv = cute.make_rmem_tensor((8,), BF16)
    for e in cutlass.range_constexpr(8):
        yn = bfr(mul_rn(yv[e].to(F32), inv))
        yw = bfr(mul_rn(yn, wv[e].to(F32)))
        z = zv[e].to(F32)
        silu = bfr(mul_rn(z, sigmoid_bf(z)))
        rv[e] = mul_rn(yw, silu).to(BF16)
    cute.copy(c16, rv, go[row, ch8, None])


MKB_PLAN = """/* mkb:plan
scratch projected bf16[batch_size * seq_len * projection_size]
scratch act bf16[batch_size * seq_len * conv_dim]
scratch dt_hm fp32[batch_size * num_heads * seq_len]
scratch a_hm fp32[batch_size * num_heads * seq_len]
scratch enter_hi bf16[batch_size * (seq_len / chunk_size - 1) * num_heads * head_dim * ssm_state_size]
scratch enter_lo bf16[batch_size * (seq_len / chunk_size - 1) * num_heads * head_dim * ssm_state_size]
scratch y bf16[batch_size * seq_len * intermediate_size]
scratch y_gated bf16[batch_size * seq_len * intermediate_size]
# in-projection: 4096 x 37120 x 8192 (128 x 256 tiles: 32 x 145 blocks); shared: 4 stages of (128 + 256) x 40 bf16
launch gemm_bf16_nt grid(batch_size * seq_len / 128, projection_size / 256) block(256) shared(4 * (128 + 256) * 40 * 2)
  args(hidden_states, in_proj_weight, projected, i32(batch_size * seq_len), i32(projection_size), i32(hidden_size))
launch conv_silu grid(ceil_div(batch_size * seq_len * conv_dim / 8, 256)) block(256) args(projected, conv1d_weight, conv1d_bias, act)
launch dt_prep grid(ceil_div(batch_size * seq_len * num_heads, 256)) block(256)
  args(projected, dt_bias, A_log, f32(time_step_limit_min), f32(time_step_limit_max), dt_hm, a_hm)
launch chunk_scan_states grid(num_heads, batch_size) block(256) shared((2 * 64 + 256) * 136 * 2 + 128 * 4)
  args(act, dt_hm, a_hm, enter_hi, enter_lo)
launch chunk_output grid(chunk_size / 64, seq_len / chunk_size, batch_size * num_heads) block(128)
  shared((64 + 2 * 64) * 264 * 2 + 2 * 128 * 4)
  args(act, dt_hm, a_hm, D, enter_hi, enter_lo, y)
launch gated_norm grid(batch_size * seq_len * n_groups) block(256) args(y, projected, norm_weight, f32(layer_norm_epsilon), y_gated)
# out-projection: 4096 x 8192 x 16384 (32 x 32 blocks)
launch gemm_bf16_nt grid(batch_size * seq_len / 128, hidden_size / 256) block(256) shared(4 * (128 + 256) * 40 * 2)
  args(y_gated, out_proj_weight, output, i32(batch_size * seq_len), i32(hidden_size), i32(intermediate_size))
*/"""
