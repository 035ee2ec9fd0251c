"""Gemma 3 attention-core backward (#10, reconstructed), fp32 accuracy on tensor cores, in TIRx: the launches
of solutions/cuda.cu with the same 3xTF32 GEMM core and the same fused per-row kernels.
GEMM core (a macro): C tile 128 x 128 per 256-thread CTA, 8 warps as 2 (M) x 4 (N) of 64 x 32 (4 x 4
mma.sync m16n8k8 tf32 tiles, T.ptx.mma), BK = 32, a 4-stage cp.async ring (147456 bytes of dynamic shared
memory); A and B tiles are K-contiguous (rows padded to 36 floats) or M/N-contiguous (k rows of 136
floats), as the operand's layout is. Each fp32 operand is split as the cuda solution does it, with integer
operations: hi = (bits + 0x1000) & 0xffffe000 (tf32, to nearest, ties away), lo = v - hi exact in fp32
(the MMA reads its top bits); per 8-deep step lo*hi' + hi*lo' + hi*hi', every 32-wide k tile summed into
a fresh partial accumulator that is added to the main one with an fp32 add. Batched products read the
heads straight out of the [tokens, heads * 128] layouts with per-batch offsets (z / zdiv) * so +
((z % zdiv) / rep) * si (a query head h reads kv head h / 3), and dK, dV sum the 3 query heads of a kv
head as 3 K segments of one GEMM. Where the cuda solution has three GEMM kernels (nt, nn, tn) with
runtime shapes, strides and epilogue modes, the port builds one prim_func per product with static shapes
from a Python factory (make_gemm: the same TVMScript body, its constants closed over; each instance
renamed through its global_symbol), so TVM folds every index; epilogue mode 0 stores, 1 adds to C
(grad_hidden_states' second and third products), 2 stores tanh(alpha * acc) (alpha = scaling / cap,
the score GEMM).
Per-row kernels as the cuda solution: fwd_norm_rope (RMSNorm (1 + w) and RoPE, a warp per (token,
head) row, lane l holding dims l + 32 j), softmax_fwd (causal softmax of cap * tt, a warp per row),
softmax_bwd (dS = scaling * (1 - tt^2) * P * (dP - sum dP * P) in place over dP), bwd_norm_rope (RoPE
and RMSNorm backward in place, per-CTA partial column sums of d_n * x_hat) and colsum_final."""
import struct

from tvm.script import tirx as T

B_, S_, HID, NH, NKV, D_ = 64, 256, 3072, 24, 8, 128
TOK = B_ * S_                             # 16384 tokens
QO, KVO = NH * D_, NKV * D_               # 3072, 1024
REP = NH // NKV                           # 3 query heads per kv head
SC_LEN = B_ * NH * S_ * S_                # 100663296 score elements (< 2^31)
SCALING, CAP = 0.0625, 50.0
# the cuda solution's plan argument f32(scaling / attn_logit_softcapping), rounded to fp32 here
ALPHA = struct.unpack("f", struct.pack("f", SCALING / CAP))[0]

# ---- 3xTF32 GEMM core ----
BM, BN, BK, STAGES, THREADS = 128, 128, 32, 4, 256
KPAD = BK + 4                             # row stride (floats) of a K-contiguous tile
MPAD = BM + 8                             # row stride (floats) of an M/N-contiguous tile
TILE_F = BM * KPAD                        # 4608 >= BK * MPAD = 4352
STAGE_F = 2 * TILE_F
GEMM_SMEM = STAGES * STAGE_F * 4          # 147456 bytes: the plan's shared(...)
assert GEMM_SMEM == 147456 and BK * MPAD <= TILE_F and SC_LEN < 2**31


@T.macro
def load_tile(sm, dst, G, g_off, ld, row0, k0, tx, kmajor):
    # one 128 x 32 tile. K-major: element (r, k) at G[g_off + (row0 + r) * ld + k0 + k] -> sm[dst + r * 36 + k];
    # else (r, k) at G[g_off + (k0 + k) * ld + row0 + r] -> sm[dst + k * 136 + r]; chunk c = tx + 256 i
    for i in T.unroll(4):
        if kmajor:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([dst + (tx // 8 + 32 * i) * KPAD + tx % 8 * 4]),
                G.ptr_to([g_off + (row0 + tx // 8 + 32 * i) * ld + k0 + tx % 8 * 4]), 16)
        else:
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([dst + (tx // 32 + 8 * i) * MPAD + tx % 32 * 4]),
                G.ptr_to([g_off + (k0 + tx // 32 + 8 * i) * ld + row0 + tx % 32 * 4]), 16)


@T.macro
def load_frag(fv, sm, base, r, k, kmajor):
    if kmajor:
        fv[0] = sm[base + r * KPAD + k]
    else:
        fv[0] = sm[base + k * MPAD + r]


@T.macro
def mma_t(part, mt, nt, af, bf, b_nt):
    T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
        part[mt, nt, 0], part[mt, nt, 1], part[mt, nt, 2], part[mt, nt, 3],
        af[0], af[1], af[2], af[3], bf[b_nt, 0], bf[b_nt, 1],
        part[mt, nt, 0], part[mt, nt, 1], part[mt, nt, 2], part[mt, nt, 3])


@T.macro
def gemm_core(sm, acc, part, bh, bl, ah, al, fv, A, a_off, lda, a_seg, a_k, Bm, b_off, ldb, b_seg, b_k, kseg,
              m0, n0, KT, tx):
    # acc[mt, nt, 2h + e] = row m0 + 64 (w // 4) + 16 mt + g + 8 h, column n0 + 32 (w % 4) + 8 nt + 2 t + e of
    # A B^T over K = KT * 32 (segment s of K = k // kseg reads A + s * a_seg, B + s * b_seg); w = tx // 32,
    # g = lane // 4, t = lane % 4
    for mt in T.unroll(4):
        for nt in T.unroll(4):
            for e in T.unroll(4):
                acc[mt, nt, e] = T.float32(0)
    for s in T.unroll(STAGES - 1):
        if s < KT:
            load_tile(sm, s * STAGE_F, A, a_off + s * BK // kseg * a_seg, lda, m0, s * BK % kseg, tx, a_k)
            load_tile(sm, s * STAGE_F + TILE_F, Bm, b_off + s * BK // kseg * b_seg, ldb, n0, s * BK % kseg, tx, b_k)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(KT):
        T.ptx.cp.async_.wait_group(STAGES - 2)
        T.cuda.cta_sync()
        if kt + STAGES - 1 < KT:
            load_tile(sm, (kt + STAGES - 1) % STAGES * STAGE_F, A,
                      a_off + (kt + STAGES - 1) * BK // kseg * a_seg, lda, m0, (kt + STAGES - 1) * BK % kseg, tx, a_k)
            load_tile(sm, (kt + STAGES - 1) % STAGES * STAGE_F + TILE_F, Bm,
                      b_off + (kt + STAGES - 1) * BK // kseg * b_seg, ldb, n0, (kt + STAGES - 1) * BK % kseg, tx, b_k)
        T.ptx.cp.async_.commit_group()
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                for e in T.unroll(4):
                    part[mt, nt, e] = T.float32(0)
        for kk in T.unroll(BK // 8):
            for nt in T.unroll(4):   # B fragments: b0 (k = t, n = g), b1 (k = t + 4, n = g)
                for e in T.unroll(2):
                    load_frag(fv, sm, kt % STAGES * STAGE_F + TILE_F, tx // 32 % 4 * 32 + nt * 8 + tx % 32 // 4,
                              kk * 8 + tx % 4 + e * 4, b_k)
                    # hi = tf32(v) (to nearest, ties away); lo = v - hi exact in fp32
                    bh[nt, e] = T.bitwise_and(T.reinterpret("uint32", fv[0]) + T.uint32(0x1000), T.uint32(0xFFFFE000))
                    bl[nt, e] = T.reinterpret("uint32", fv[0] - T.reinterpret("float32", bh[nt, e]))
            for mt in T.unroll(4):   # A fragments: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
                for e in T.unroll(4):
                    load_frag(fv, sm, kt % STAGES * STAGE_F, tx // 128 * 64 + mt * 16 + tx % 32 // 4 + e % 2 * 8,
                              kk * 8 + tx % 4 + e // 2 * 4, a_k)
                    ah[e] = T.bitwise_and(T.reinterpret("uint32", fv[0]) + T.uint32(0x1000), T.uint32(0xFFFFE000))
                    al[e] = T.reinterpret("uint32", fv[0] - T.reinterpret("float32", ah[e]))
                for nt in T.unroll(4):
                    mma_t(part, mt, nt, al, bh, nt)
                    mma_t(part, mt, nt, ah, bl, nt)
                    mma_t(part, mt, nt, ah, bh, nt)
        for mt in T.unroll(4):
            for nt in T.unroll(4):
                for e in T.unroll(4):
                    acc[mt, nt, e] = acc[mt, nt, e] + part[mt, nt, e]
    T.ptx.cp.async_.wait_group(0)


def make_gemm(name, a_k, b_k, M, N, K, kseg, lda, ldb, ldc, zdiv, a_bo, b_bo, c_bo, mode, a_len, b_len, c_len, Z):
    """C_z[M, N] (mode 0: =, 1: +=, 2: = tanh(ALPHA *)) A_z[M, K] B_z[K, N]; x_bo = (so, si, rep, seg): batch z
    starts at (z / zdiv) * so + ((z % zdiv) / rep) * si, K segment s at s * seg further."""
    assert M % BM == 0 and N % BN == 0 and K % BK == 0 and kseg % BK == 0 and K % kseg == 0
    a_so, a_si, a_rep, a_seg = a_bo
    b_so, b_si, b_rep, b_seg = b_bo
    c_so, c_si, c_rep, _ = c_bo

    @T.prim_func
    def gemm(a_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle):
        A = T.match_buffer(a_ptr, (a_len,), "float32")
        Bm = T.match_buffer(b_ptr, (b_len,), "float32")
        C = T.match_buffer(c_ptr, (c_len,), "float32")
        T.device_entry()
        bx, by, bz = T.cta_id([N // BN, M // BM, Z])
        tx = T.thread_id([THREADS])
        with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):   # __launch_bounds__(256, 1), as the cuda solution
            sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
            acc = T.alloc_buffer((4, 4, 4), "float32", scope="local")
            part = T.alloc_buffer((4, 4, 4), "float32", scope="local")
            bh = T.alloc_buffer((4, 2), "uint32", scope="local")
            bl = T.alloc_buffer((4, 2), "uint32", scope="local")
            ah = T.alloc_buffer((4,), "uint32", scope="local")
            al = T.alloc_buffer((4,), "uint32", scope="local")
            fv = T.alloc_buffer((1,), "float32", scope="local")
            ov = T.alloc_buffer((2,), "float32", scope="local")
            gemm_core(sm, acc, part, bh, bl, ah, al, fv,
                      A, bz // zdiv * a_so + bz % zdiv // a_rep * a_si, lda, a_seg, a_k,
                      Bm, bz // zdiv * b_so + bz % zdiv // b_rep * b_si, ldb, b_seg, b_k,
                      kseg, by * BM, bx * BN, K // BK, tx)
            for mt in T.unroll(4):
                for nt in T.unroll(4):
                    for h in T.unroll(2):
                        if mode == 1:
                            for e in T.vectorized(2):
                                ov[e] = C[bz // zdiv * c_so + bz % zdiv // c_rep * c_si
                                          + (by * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8) * ldc
                                          + bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e]
                            for e in T.unroll(2):
                                ov[e] = acc[mt, nt, h * 2 + e] + ov[e]
                        elif mode == 2:
                            for e in T.unroll(2):
                                ov[e] = T.tanh(T.float32(ALPHA) * acc[mt, nt, h * 2 + e])
                        else:
                            for e in T.unroll(2):
                                ov[e] = acc[mt, nt, h * 2 + e]
                        for e in T.vectorized(2):
                            C[bz // zdiv * c_so + bz % zdiv // c_rep * c_si
                              + (by * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + h * 8) * ldc
                              + bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = ov[e]

    return gemm.with_attr("global_symbol", name)


NOB = (0, 0, 1, 0)                        # no batch offset, one K segment
X_LEN, WQ_LEN, WKV_LEN = TOK * HID, QO * HID, KVO * HID
QF_LEN, KF_LEN = TOK * QO, TOK * KVO      # [T, 3072] and [T, 1024] flat layouts
QH_BO = (S_ * QO, D_, 1, 0)               # query head h of batch row b in a [T, 3072] layout, z = b * 24 + h
KH_BO = (S_ * KVO, D_, REP, 0)            # its kv head h / 3 in a [T, 1024] layout
SC_BO = (NH * S_ * S_, S_ * S_, 1, 0)     # the [S, S] score block of (b, h)
# projections q, k, v = x W^T
proj_q = make_gemm("proj_q", True, True, TOK, QO, HID, HID, HID, HID, QO, 1, NOB, NOB, NOB, 0,
                   X_LEN, WQ_LEN, QF_LEN, 1)
proj_kv = make_gemm("proj_kv", True, True, TOK, KVO, HID, HID, HID, HID, KVO, 1, NOB, NOB, NOB, 0,
                    X_LEN, WKV_LEN, KF_LEN, 1)
# tt = tanh(scaling / cap * q_h k_g^T) and dP = d_attn_h v_g^T, z = b * 24 + h
scores_tanh = make_gemm("scores_tanh", True, True, S_, S_, D_, D_, QO, KVO, S_, NH, QH_BO, KH_BO, SC_BO, 2,
                        QF_LEN, KF_LEN, SC_LEN, B_ * NH)
dprobs = make_gemm("dprobs", True, True, S_, S_, D_, D_, QO, KVO, S_, NH, QH_BO, KH_BO, SC_BO, 0,
                   QF_LEN, KF_LEN, SC_LEN, B_ * NH)
# ctx[b, i, h] = P_h v_g and dq_emb = dS_h k_g (B: [K = keys, N = 128] rows of the [T, 1024] layout)
pv_heads = make_gemm("pv_heads", True, False, S_, D_, S_, S_, S_, KVO, QO, NH, SC_BO, KH_BO, QH_BO, 0,
                     SC_LEN, KF_LEN, QF_LEN, B_ * NH)
# dv[b, :, g] = sum over the 3 heads of g of P_h^T d_attn_h and dk_emb likewise with dS_h^T q_h:
# z = b * 8 + g, K = 3 segments of 256 (head 3 g + s)
KV_BO_SEG_A = (NH * S_ * S_, REP * S_ * S_, 1, S_ * S_)
KV_BO_SEG_B = (S_ * QO, REP * D_, 1, D_)
KV_BO_C = (S_ * KVO, D_, 1, 0)
kv_grad_heads = make_gemm("kv_grad_heads", False, False, S_, D_, REP * S_, S_, S_, QO, KVO, NKV,
                          KV_BO_SEG_A, KV_BO_SEG_B, KV_BO_C, 0, SC_LEN, QF_LEN, KF_LEN, B_ * NKV)
# grad_o_weight = grad_output^T ctx; d_attn = grad_output o_weight
grad_o_gemm = make_gemm("grad_o_gemm", False, False, HID, QO, TOK, TOK, HID, QO, QO, 1, NOB, NOB, NOB, 0,
                        X_LEN, QF_LEN, HID * QO, 1)
dattn_gemm = make_gemm("dattn_gemm", True, False, TOK, QO, HID, HID, HID, QO, QO, 1, NOB, NOB, NOB, 0,
                       X_LEN, HID * QO, QF_LEN, 1)
# weight gradients d^T x
grad_wq_gemm = make_gemm("grad_wq_gemm", False, False, QO, HID, TOK, TOK, QO, HID, HID, 1, NOB, NOB, NOB, 0,
                         QF_LEN, X_LEN, WQ_LEN, 1)
grad_wkv_gemm = make_gemm("grad_wkv_gemm", False, False, KVO, HID, TOK, TOK, KVO, HID, HID, 1, NOB, NOB, NOB, 0,
                          KF_LEN, X_LEN, WKV_LEN, 1)
# grad_hidden_states = dq Wq + dk Wk + dv Wv (the second and third accumulate)
dx_q_gemm = make_gemm("dx_q_gemm", True, False, TOK, HID, QO, QO, QO, HID, HID, 1, NOB, NOB, NOB, 0,
                      QF_LEN, WQ_LEN, X_LEN, 1)
dx_kv_gemm = make_gemm("dx_kv_gemm", True, False, TOK, HID, KVO, KVO, KVO, HID, HID, 1, NOB, NOB, NOB, 1,
                       KF_LEN, WKV_LEN, X_LEN, 1)


# ---- per-row kernels: a warp per (token, head) row of 128, lane l holding d = l + 32 j ----
def make_fwd_norm_rope(name, heads):
    rows = TOK * heads

    @T.prim_func
    def fwd_norm_rope(emb_ptr: T.handle, rstd_ptr: T.handle, raw_ptr: T.handle, w_ptr: T.handle, cos_ptr: T.handle,
                      sin_ptr: T.handle, eps: T.float32):
        EMB = T.match_buffer(emb_ptr, (rows, D_), "float32")
        RSTD = T.match_buffer(rstd_ptr, (rows,), "float32")
        RAW = T.match_buffer(raw_ptr, (rows, D_), "float32")
        W = T.match_buffer(w_ptr, (D_,), "float32")
        COS = T.match_buffer(cos_ptr, (TOK, D_), "float32")
        SIN = T.match_buffer(sin_ptr, (TOK, D_), "float32")
        T.device_entry()
        bx = T.cta_id([rows // 8])
        tx = T.thread_id([256])
        v = T.alloc_buffer((4,), "float32", scope="local")
        c = T.alloc_buffer((4,), "float32", scope="local")
        s = T.alloc_buffer((4,), "float32", scope="local")
        n = T.alloc_buffer((4,), "float32", scope="local")
        r = T.alloc_buffer((1,), "float32", scope="local")
        # row bx * 8 + tx // 32, token (bx * 8 + tx // 32) // heads
        for j in T.unroll(4):
            v[j] = RAW[bx * 8 + tx // 32, tx % 32 + 32 * j]
            c[j] = COS[(bx * 8 + tx // 32) // heads, tx % 32 + 32 * j]
            s[j] = SIN[(bx * 8 + tx // 32) // heads, tx % 32 + 32 * j]
        r[0] = T.cuda.warp_sum(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3], 32)
        r[0] = T.rsqrt(r[0] * T.float32(1.0 / D_) + eps)
        if tx % 32 == 0:
            RSTD[bx * 8 + tx // 32] = r[0]
        for j in T.unroll(4):
            n[j] = v[j] * r[0] * (T.float32(1) + W[tx % 32 + 32 * j])
        EMB[bx * 8 + tx // 32, tx % 32] = n[0] * c[0] - n[2] * s[0]
        EMB[bx * 8 + tx // 32, tx % 32 + 32] = n[1] * c[1] - n[3] * s[1]
        EMB[bx * 8 + tx // 32, tx % 32 + 64] = n[2] * c[2] + n[0] * s[2]
        EMB[bx * 8 + tx // 32, tx % 32 + 96] = n[3] * c[3] + n[1] * s[3]

    return fwd_norm_rope.with_attr("global_symbol", name)


def make_bwd_norm_rope(name, heads):
    rows = TOK * heads
    assert rows % (1024 * 8) == 0

    @T.prim_func
    def bwd_norm_rope(demb_ptr: T.handle, partial_ptr: T.handle, raw_ptr: T.handle, rstd_ptr: T.handle,
                      w_ptr: T.handle, cos_ptr: T.handle, sin_ptr: T.handle):
        # RoPE and RMSNorm backward in place over demb (d(emb) in, dx out); partial column sums of d_n * x_hat
        DEMB = T.match_buffer(demb_ptr, (rows, D_), "float32")
        PART = T.match_buffer(partial_ptr, (1024, D_), "float32")
        RAW = T.match_buffer(raw_ptr, (rows, D_), "float32")
        RSTD = T.match_buffer(rstd_ptr, (rows,), "float32")
        W = T.match_buffer(w_ptr, (D_,), "float32")
        COS = T.match_buffer(cos_ptr, (TOK, D_), "float32")
        SIN = T.match_buffer(sin_ptr, (TOK, D_), "float32")
        T.device_entry()
        bx = T.cta_id([1024])
        tx = T.thread_id([256])
        red = T.alloc_buffer((8, D_), "float32", scope="shared")
        wp = T.alloc_buffer((4,), "float32", scope="local")
        accw = T.alloc_buffer((4,), "float32", scope="local")
        gv = T.alloc_buffer((4,), "float32", scope="local")
        c = T.alloc_buffer((4,), "float32", scope="local")
        s = T.alloc_buffer((4,), "float32", scope="local")
        xh = T.alloc_buffer((4,), "float32", scope="local")
        dn = T.alloc_buffer((4,), "float32", scope="local")
        st = T.alloc_buffer((2,), "float32", scope="local")       # r, dot
        for j in T.unroll(4):
            wp[j] = T.float32(1) + W[tx % 32 + 32 * j]
            accw[j] = T.float32(0)
        # warps stride over the rows: row = bx * 8 + warp + 8192 it
        for it in T.serial(rows // (1024 * 8)):
            st[0] = RSTD[bx * 8 + tx // 32 + 8192 * it]
            for j in T.unroll(4):
                gv[j] = DEMB[bx * 8 + tx // 32 + 8192 * it, tx % 32 + 32 * j]
                c[j] = COS[(bx * 8 + tx // 32 + 8192 * it) // heads, tx % 32 + 32 * j]
                s[j] = SIN[(bx * 8 + tx // 32 + 8192 * it) // heads, tx % 32 + 32 * j]
                xh[j] = RAW[bx * 8 + tx // 32 + 8192 * it, tx % 32 + 32 * j] * st[0]
            dn[0] = gv[0] * c[0] + gv[2] * s[2]
            dn[1] = gv[1] * c[1] + gv[3] * s[3]
            dn[2] = gv[2] * c[2] - gv[0] * s[0]
            dn[3] = gv[3] * c[3] - gv[1] * s[1]
            st[1] = T.float32(0)
            for j in T.unroll(4):
                accw[j] = accw[j] + dn[j] * xh[j]
                st[1] = st[1] + dn[j] * wp[j] * xh[j]
            st[1] = T.cuda.warp_sum(st[1], 32) * T.float32(1.0 / D_)
            for j in T.unroll(4):
                DEMB[bx * 8 + tx // 32 + 8192 * it, tx % 32 + 32 * j] = st[0] * (dn[j] * wp[j] - xh[j] * st[1])
        for j in T.unroll(4):
            red[tx // 32, tx % 32 + 32 * j] = accw[j]
        T.cuda.cta_sync()
        if tx < D_:
            st[0] = T.float32(0)
            for k in T.unroll(8):
                st[0] = st[0] + red[k, tx]
            PART[bx, tx] = st[0]

    return bwd_norm_rope.with_attr("global_symbol", name)


fwd_norm_rope_q = make_fwd_norm_rope("fwd_norm_rope_q", NH)
fwd_norm_rope_k = make_fwd_norm_rope("fwd_norm_rope_k", NKV)
bwd_norm_rope_q = make_bwd_norm_rope("bwd_norm_rope_q", NH)
bwd_norm_rope_k = make_bwd_norm_rope("bwd_norm_rope_k", NKV)

SM_ROWS = B_ * NH * S_                    # 393216 score rows


@T.prim_func
def softmax_fwd(p_ptr: T.handle, tt_ptr: T.handle, cap: T.float32):
    # causal softmax of cap * tt over rows of 256, a warp per row (b, h, i), lane l holding j = l + 32 c
    P = T.match_buffer(p_ptr, (SM_ROWS, S_), "float32")
    TT = T.match_buffer(tt_ptr, (SM_ROWS, S_), "float32")
    T.device_entry()
    bx = T.cta_id([SM_ROWS // 8])
    tx = T.thread_id([256])
    v = T.alloc_buffer((8,), "float32", scope="local")
    st = T.alloc_buffer((2,), "float32", scope="local")       # max, sum
    st[0] = T.float32(float("-inf"))
    for c in T.unroll(8):
        v[c] = cap * TT[bx * 8 + tx // 32, tx % 32 + 32 * c]
        if tx % 32 + 32 * c <= (bx * 8 + tx // 32) % S_:
            st[0] = T.max(st[0], v[c])
    st[0] = T.cuda.warp_max(st[0], 32)
    st[1] = T.float32(0)
    for c in T.unroll(8):
        v[c] = T.Select(tx % 32 + 32 * c <= (bx * 8 + tx // 32) % S_, T.exp(v[c] - st[0]), T.float32(0))
        st[1] = st[1] + v[c]
    st[1] = T.float32(1) / T.cuda.warp_sum(st[1], 32)
    for c in T.unroll(8):
        P[bx * 8 + tx // 32, tx % 32 + 32 * c] = v[c] * st[1]


@T.prim_func
def softmax_bwd(dp_ptr: T.handle, p_ptr: T.handle, tt_ptr: T.handle, scaling: T.float32):
    # dS = scaling * (1 - tt^2) * P * (dP - sum_j dP * P), in place over dP; a warp per row
    DP = T.match_buffer(dp_ptr, (SM_ROWS, S_), "float32")
    P = T.match_buffer(p_ptr, (SM_ROWS, S_), "float32")
    TT = T.match_buffer(tt_ptr, (SM_ROWS, S_), "float32")
    T.device_entry()
    bx = T.cta_id([SM_ROWS // 8])
    tx = T.thread_id([256])
    dp = T.alloc_buffer((8,), "float32", scope="local")
    p = T.alloc_buffer((8,), "float32", scope="local")
    st = T.alloc_buffer((2,), "float32", scope="local")       # dot, t
    st[0] = T.float32(0)
    for c in T.unroll(8):
        dp[c] = DP[bx * 8 + tx // 32, tx % 32 + 32 * c]
        p[c] = P[bx * 8 + tx // 32, tx % 32 + 32 * c]
        st[0] = st[0] + dp[c] * p[c]
    st[0] = T.cuda.warp_sum(st[0], 32)
    for c in T.unroll(8):
        st[1] = TT[bx * 8 + tx // 32, tx % 32 + 32 * c]
        DP[bx * 8 + tx // 32, tx % 32 + 32 * c] = scaling * (T.float32(1) - st[1] * st[1]) * p[c] * (dp[c] - st[0])


@T.prim_func
def colsum_final(out_ptr: T.handle, partial_ptr: T.handle):
    # out[d] = sum over the 1024 blocks of partial[b, d]; one CTA of 128 threads
    OUT = T.match_buffer(out_ptr, (D_,), "float32")
    PART = T.match_buffer(partial_ptr, (1024, D_), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([D_])
    s = T.alloc_buffer((1,), "float32", scope="local")
    s[0] = T.float32(0)
    for b in T.serial(1024):
        s[0] = s[0] + PART[b, tx]
    OUT[tx] = s[0]


MKB_PLAN = """/* mkb:plan
scratch qraw fp32[batch_size * seq_len * q_proj_out]
scratch kraw fp32[batch_size * seq_len * kv_proj_out]
scratch vraw fp32[batch_size * seq_len * kv_proj_out]
scratch qemb fp32[batch_size * seq_len * q_proj_out]
scratch kemb fp32[batch_size * seq_len * kv_proj_out]
scratch qrstd fp32[batch_size * seq_len * num_attention_heads]
scratch krstd fp32[batch_size * seq_len * num_key_value_heads]
scratch tt fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch probs fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch dp fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch ctx fp32[batch_size * seq_len * q_proj_out]
scratch da fp32[batch_size * seq_len * q_proj_out]
scratch dq fp32[batch_size * seq_len * q_proj_out]
scratch dk fp32[batch_size * seq_len * kv_proj_out]
scratch dv fp32[batch_size * seq_len * kv_proj_out]
scratch partq fp32[1024 * head_dim]
scratch partk fp32[1024 * head_dim]
# projections q, k, v = x W^T
launch proj_q grid(q_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456) args(hidden_states, q_weight, qraw)
launch proj_kv grid(kv_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456) args(hidden_states, k_weight, kraw)
launch proj_kv grid(kv_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456) args(hidden_states, v_weight, vraw)
# q/k RMSNorm + RoPE
launch fwd_norm_rope_q grid(batch_size * seq_len * num_attention_heads / 8) block(256)
  args(qemb, qrstd, qraw, q_norm_weight, cos, sin, f32(rms_norm_eps))
launch fwd_norm_rope_k grid(batch_size * seq_len * num_key_value_heads / 8) block(256)
  args(kemb, krstd, kraw, k_norm_weight, cos, sin, f32(rms_norm_eps))
# tt = tanh(scaling / cap * q_h k_g^T), batch z = b * 24 + h, kv head g = h / 3
launch scores_tanh grid(seq_len / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(qemb, kemb, tt)
launch softmax_fwd grid(batch_size * num_attention_heads * seq_len / 8) block(256) args(probs, tt, f32(attn_logit_softcapping))
# ctx[b, i, h] = P_h v_g (flat layout)
launch pv_heads grid(head_dim / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(probs, vraw, ctx)
# grad_o_weight = grad_output^T ctx
launch grad_o_gemm grid(q_proj_out / 128, hidden_size / 128, 1) block(256) shared(147456) args(grad_output, ctx, grad_o_weight)
# d_attn = grad_output o_weight (flat)
launch dattn_gemm grid(q_proj_out / 128, batch_size * seq_len / 128, 1) block(256) shared(147456) args(grad_output, o_weight, da)
# dP = d_attn_h v_g^T
launch dprobs grid(seq_len / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456) args(da, vraw, dp)
launch softmax_bwd grid(batch_size * num_attention_heads * seq_len / 8) block(256) args(dp, probs, tt, f32(scaling))
# dv[b, :, g] = sum over the 3 heads h of g of P_h^T d_attn_h: batch z = b * 8 + g, K = 3 segments of seq_len
launch kv_grad_heads grid(head_dim / 128, seq_len / 128, batch_size * num_key_value_heads) block(256) shared(147456)
  args(probs, da, dv)
# dq_emb = dS_h k_g (flat)
launch pv_heads grid(head_dim / 128, seq_len / 128, batch_size * num_attention_heads) block(256) shared(147456)
  args(dp, kemb, dq)
# dk_emb[b, :, g] = sum over h of g of dS_h^T q_h (flat)
launch kv_grad_heads grid(head_dim / 128, seq_len / 128, batch_size * num_key_value_heads) block(256) shared(147456)
  args(dp, qemb, dk)
# RoPE + RMSNorm backward (in place) and the norm weights' gradients
launch bwd_norm_rope_q grid(1024) block(256) args(dq, partq, qraw, qrstd, q_norm_weight, cos, sin)
launch colsum_final grid(1) block(128) args(grad_q_norm_weight, partq)
launch bwd_norm_rope_k grid(1024) block(256) args(dk, partk, kraw, krstd, k_norm_weight, cos, sin)
launch colsum_final grid(1) block(128) args(grad_k_norm_weight, partk)
# weight gradients d^T x
launch grad_wq_gemm grid(hidden_size / 128, q_proj_out / 128, 1) block(256) shared(147456) args(dq, hidden_states, grad_q_weight)
launch grad_wkv_gemm grid(hidden_size / 128, kv_proj_out / 128, 1) block(256) shared(147456) args(dk, hidden_states, grad_k_weight)
launch grad_wkv_gemm grid(hidden_size / 128, kv_proj_out / 128, 1) block(256) shared(147456) args(dv, hidden_states, grad_v_weight)
# grad_hidden_states = dq Wq + dk Wk + dv Wv (the second and third accumulate)
launch dx_q_gemm grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456) args(dq, q_weight, grad_hidden_states)
launch dx_kv_gemm grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456) args(dk, k_weight, grad_hidden_states)
launch dx_kv_gemm grid(hidden_size / 128, batch_size * seq_len / 128, 1) block(256) shared(147456) args(dv, v_weight, grad_hidden_states)
*/"""
