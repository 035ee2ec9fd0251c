"""FIBO joint attention block (#13), fp32, in TIRx: the launches of solutions/cuda.cu, every product on
tensor cores with its 3xTF32 split (T.ptx.cvt.rna.tf32.f32: big = tf32(a), small = tf32(a - big);
a*b ~ small*big' + big*small' + big*big' through T.ptx.mma...m16n8k8...tf32, in the cuda solution's
order); each 32-deep k tile is summed by the tensor core from zero (the first mma takes C = 0) and added
to fp32 register accumulators, so the long sums keep fp32 accuracy.
GEMM core (a macro): C tile 128 x 128 per 256-thread CTA, 8 warps as 4 (M) x 2 (N), warp tile 32 x 64,
BK = 32, 3-stage cp.async ring (110592 bytes of dynamic shared memory), shared rows padded to 36 floats;
A rows past M re-read row M - 1 and are not stored. Where the cuda solution has one GEMM kernel with
runtime shapes, strides and an epilogue mode, the port instantiates the macro once per product shape
with static shapes (TVM folds every index): adaln_linear, image_linear (q, k, v: three launches),
text_linear (text k, v: two launches) and out_linear (mode 1: acc + bias; out_linear mode 2:
x + gate * (acc + bias)), scores_text / scores_image (mode 0: alpha * acc, batched over z = b * 24 + h,
text keys into score columns 0..255, image keys into 256..1279) and pv_gemm (probabilities @ values^T,
alpha = 1 so the product is stored as is).
The other launches as the cuda solution: silu_vec; ln_modulate (a CTA per row, the block sums as
warp butterflies + one shared slot per warp + a second butterfly, two-pass variance, rsqrtf);
rope_inplace on q and on k (a thread per (row, head, slot j < 64), the axis chosen by j);
transpose_values ([b, head, 128, 1280], text then image, 32 x 33 shared tiles); softmax_1280 in place
(5 values per thread, block max, expf, block sum, divide)."""
from tvm.script import tirx as T

B_, S_, T_, D_, NH, HD = 4, 1024, 256, 3072, 24, 128
CTX = 4096                                # joint_attention_dim
MOD = 6 * D_                              # 18432
L_ = T_ + S_                              # 1280 joint keys
RF = 64                                   # rotary slots per head (head_dim / 2)
AX_ROWS = (16, 56, 56)

# ---- 3xTF32 GEMM core ----
BM, BN, BK, STAGES = 128, 128, 32, 3
THREADS = 256
LD = BK + 4                               # 36 floats = 144 bytes per shared row
A_TILE = BM * LD
STAGE_F = 2 * A_TILE                      # 9216 floats per stage
GEMM_SMEM = STAGES * STAGE_F * 4          # 110592 bytes: the plan's shared(...)
assert GEMM_SMEM == 110592


@T.macro
def load_stage(sm, slot, A, a_off, lda, M, Bm, b_off, ldb, m0, n0, k0, tx):
    # 128 rows x 8 chunks of 4 floats of A (rows clamped to M - 1) and of B: thread tx copies chunk
    # tx % 8 of rows tx // 8 + 32 i
    for i in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STAGE_F + (tx // 8 + 32 * i) * LD + tx % 8 * 4]),
            A.ptr_to([a_off + T.min(m0 + tx // 8 + 32 * i, M - 1) * lda + k0 + tx % 8 * 4]), 16)
    for i in T.unroll(4):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * STAGE_F + A_TILE + (tx // 8 + 32 * i) * LD + tx % 8 * 4]),
            Bm.ptr_to([b_off + (n0 + tx // 8 + 32 * i) * ldb + k0 + tx % 8 * 4]), 16)


@T.macro
def mma3(d, j, mi, af, ks, bfr):
    T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
        d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
        af[mi, ks, 0], af[mi, ks, 1], af[mi, ks, 2], af[mi, ks, 3], bfr[j, ks, 0], bfr[j, ks, 1],
        d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3])


@T.macro
def gemm_core(sm, acc, a_big, a_small, b_big, b_small, d, fv, A, a_off, lda, M, Bm, b_off, ldb, m0, n0, KT, tx):
    # acc[mi, ni, 2h + e] (+)= row m0 + 32 (w // 2) + 16 mi + g + 8 h, column n0 + 64 (w % 2) + 8 ni + 2 t + e of
    # A B^T, w = tx // 32, g = lane // 4, t = lane % 4
    for mi in T.unroll(2):
        for ni in T.unroll(8):
            for e in T.unroll(4):
                acc[mi, ni, e] = T.float32(0)
    for s in T.unroll(STAGES - 1):
        load_stage(sm, s, A, a_off, lda, M, Bm, b_off, ldb, m0, n0, s * BK, tx)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(KT):
        T.ptx.cp.async_.wait_group(STAGES - 2)   # tile kt has landed (one group is committed per iteration)
        T.cuda.cta_sync()                        # ... for every thread; stage (kt - 1) % 3 is free again
        if kt + STAGES - 1 < KT:
            load_stage(sm, (kt + STAGES - 1) % STAGES, A, a_off, lda, M, Bm, b_off, ldb, m0, n0,
                       (kt + STAGES - 1) * BK, tx)
        T.ptx.cp.async_.commit_group()
        # A fragments (m16 x k8, row-major): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
        for mi in T.unroll(2):
            for ks in T.unroll(4):
                for e in T.unroll(4):
                    fv[0] = sm[kt % STAGES * STAGE_F + (tx // 64 * 32 + mi * 16 + tx % 32 // 4 + e % 2 * 8) * LD
                               + ks * 8 + tx % 4 + e // 2 * 4]
                    T.ptx.cvt.rna.tf32.f32(a_big[mi, ks, e], fv[0])
                    T.ptx.cvt.rna.tf32.f32(a_small[mi, ks, e], fv[0] - T.reinterpret("float32", a_big[mi, ks, e]))
        for n2 in T.unroll(4):
            # B fragments (k8 x n8, col): b0 (k = t, n = g), b1 (k = t + 4, n = g) of n tiles 2 n2 + j
            for j in T.unroll(2):
                for ks in T.unroll(4):
                    for e in T.unroll(2):
                        fv[0] = sm[kt % STAGES * STAGE_F + A_TILE
                                   + (tx // 32 % 2 * 64 + (n2 * 2 + j) * 8 + tx % 32 // 4) * LD + ks * 8 + tx % 4 + e * 4]
                        T.ptx.cvt.rna.tf32.f32(b_big[j, ks, e], fv[0])
                        T.ptx.cvt.rna.tf32.f32(b_small[j, ks, e], fv[0] - T.reinterpret("float32", b_big[j, ks, e]))
            for j in T.unroll(2):
                for mi in T.unroll(2):
                    T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                        d[j, mi, 0], d[j, mi, 1], d[j, mi, 2], d[j, mi, 3],
                        a_small[mi, 0, 0], a_small[mi, 0, 1], a_small[mi, 0, 2], a_small[mi, 0, 3],
                        b_big[j, 0, 0], b_big[j, 0, 1], T.float32(0), T.float32(0), T.float32(0), T.float32(0))
            for j in T.unroll(2):
                for mi in T.unroll(2):
                    mma3(d, j, mi, a_big, 0, b_small)
            for j in T.unroll(2):
                for mi in T.unroll(2):
                    mma3(d, j, mi, a_big, 0, b_big)
            for ks in T.unroll(1, 4):
                for j in T.unroll(2):
                    for mi in T.unroll(2):
                        mma3(d, j, mi, a_small, ks, b_big)
                for j in T.unroll(2):
                    for mi in T.unroll(2):
                        mma3(d, j, mi, a_big, ks, b_small)
                for j in T.unroll(2):
                    for mi in T.unroll(2):
                        mma3(d, j, mi, a_big, ks, b_big)
            for j in T.unroll(2):
                for mi in T.unroll(2):
                    for e in T.unroll(4):
                        acc[mi, n2 * 2 + j, e] = acc[mi, n2 * 2 + j, e] + d[j, mi, e]
    T.ptx.cp.async_.wait_group(0)


@T.macro
def linear_bias_tile(A, W, BIAS, C, M, K, N, bx, by, tx, sm, acc, a_big, a_small, b_big, b_small, d, fv, ov):
    # C[M, N] = A[M, K] W[N, K]^T + bias (mode 1)
    gemm_core(sm, acc, a_big, a_small, b_big, b_small, d, fv, A, 0, K, M, W, 0, K, by * BM, bx * BN, K // BK, tx)
    for mi in T.unroll(2):
        for h in T.unroll(2):
            if by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8 < M:
                for ni in T.unroll(8):
                    for e in T.unroll(2):
                        ov[e] = acc[mi, ni, h * 2 + e] + BIAS[bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e]
                    for e in T.vectorized(2):
                        C[(by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8) * N
                          + bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e] = ov[e]


@T.prim_func
def adaln_linear(st_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, emb_ptr: T.handle):
    A = T.match_buffer(st_ptr, (B_ * D_,), "float32")
    W = T.match_buffer(w_ptr, (MOD * D_,), "float32")
    BIAS = T.match_buffer(bias_ptr, (MOD,), "float32")
    C = T.match_buffer(emb_ptr, (B_ * MOD,), "float32")
    T.device_entry()
    bx, by = T.cta_id([MOD // BN, 1])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        ov = T.alloc_buffer((2,), "float32", scope="local")
        linear_bias_tile(A, W, BIAS, C, B_, D_, MOD, bx, by, tx, sm, acc, a_big, a_small, b_big, b_small, d, fv, ov)


@T.prim_func
def image_linear(xm_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, out_ptr: T.handle):
    A = T.match_buffer(xm_ptr, (B_ * S_ * D_,), "float32")
    W = T.match_buffer(w_ptr, (D_ * D_,), "float32")
    BIAS = T.match_buffer(bias_ptr, (D_,), "float32")
    C = T.match_buffer(out_ptr, (B_ * S_ * D_,), "float32")
    T.device_entry()
    bx, by = T.cta_id([D_ // BN, B_ * S_ // BM])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        ov = T.alloc_buffer((2,), "float32", scope="local")
        linear_bias_tile(A, W, BIAS, C, B_ * S_, D_, D_, bx, by, tx, sm, acc, a_big, a_small, b_big, b_small, d, fv, ov)


@T.prim_func
def text_linear(ctx_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, out_ptr: T.handle):
    A = T.match_buffer(ctx_ptr, (B_ * T_ * CTX,), "float32")
    W = T.match_buffer(w_ptr, (D_ * CTX,), "float32")
    BIAS = T.match_buffer(bias_ptr, (D_,), "float32")
    C = T.match_buffer(out_ptr, (B_ * T_ * D_,), "float32")
    T.device_entry()
    bx, by = T.cta_id([D_ // BN, B_ * T_ // BM])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        ov = T.alloc_buffer((2,), "float32", scope="local")
        linear_bias_tile(A, W, BIAS, C, B_ * T_, CTX, D_, bx, by, tx, sm, acc, a_big, a_small, b_big, b_small, d, fv, ov)


@T.prim_func
def out_linear(att_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, x_ptr: T.handle, emb_ptr: T.handle,
               out_ptr: T.handle):
    # output = x + gate[b] * (att @ Wout^T + bout), gate = emb[b, 2D : 3D] (mode 2)
    A = T.match_buffer(att_ptr, (B_ * S_ * D_,), "float32")
    W = T.match_buffer(w_ptr, (D_ * D_,), "float32")
    BIAS = T.match_buffer(bias_ptr, (D_,), "float32")
    X = T.match_buffer(x_ptr, (B_ * S_ * D_,), "float32")
    EMB = T.match_buffer(emb_ptr, (B_ * MOD,), "float32")
    C = T.match_buffer(out_ptr, (B_ * S_ * D_,), "float32")
    T.device_entry()
    bx, by = T.cta_id([D_ // BN, B_ * S_ // BM])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        rv = T.alloc_buffer((2,), "float32", scope="local")
        ov = T.alloc_buffer((2,), "float32", scope="local")
        gemm_core(sm, acc, a_big, a_small, b_big, b_small, d, fv, A, 0, D_, B_ * S_, W, 0, D_, by * BM, bx * BN,
                  D_ // BK, tx)
        for mi in T.unroll(2):
            for h in T.unroll(2):
                for ni in T.unroll(8):
                    for e in T.vectorized(2):
                        rv[e] = X[(by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8) * D_
                                  + bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e]
                    for e in T.unroll(2):
                        ov[e] = rv[e] + EMB[(by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8) // S_ * MOD
                                            + 2 * D_ + bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e] * (
                            acc[mi, ni, h * 2 + e] + BIAS[bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e])
                    for e in T.vectorized(2):
                        C[(by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8) * D_
                          + bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e] = ov[e]


@T.macro
def scores_tile(Q, KB, SC, keys, col0, alpha, bx, by, bz, tx, sm, acc, a_big, a_small, b_big, b_small, d, fv, ov):
    # SC[b, h, s, col0 + n] = alpha * q_bh[s] . key_bh[n] (mode 0); z = b * 24 + h
    gemm_core(sm, acc, a_big, a_small, b_big, b_small, d, fv, Q, bz // NH * (S_ * D_) + bz % NH * HD, D_, S_,
              KB, bz // NH * (keys * D_) + bz % NH * HD, D_, by * BM, bx * BN, HD // BK, tx)
    for mi in T.unroll(2):
        for h in T.unroll(2):
            for ni in T.unroll(8):
                for e in T.unroll(2):
                    ov[e] = alpha * acc[mi, ni, h * 2 + e]
                for e in T.vectorized(2):
                    SC[bz * (S_ * L_) + (by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8) * L_ + col0
                       + bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e] = ov[e]


@T.prim_func
def scores_text(q_ptr: T.handle, ck_ptr: T.handle, sc_ptr: T.handle, alpha: T.float32):
    Q = T.match_buffer(q_ptr, (B_ * S_ * D_,), "float32")
    KB = T.match_buffer(ck_ptr, (B_ * T_ * D_,), "float32")
    SC = T.match_buffer(sc_ptr, (B_ * NH * S_ * L_,), "float32")
    T.device_entry()
    bx, by, bz = T.cta_id([T_ // BN, S_ // BM, B_ * NH])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        ov = T.alloc_buffer((2,), "float32", scope="local")
        scores_tile(Q, KB, SC, T_, 0, alpha, bx, by, bz, tx, sm, acc, a_big, a_small, b_big, b_small, d, fv, ov)


@T.prim_func
def scores_image(q_ptr: T.handle, k_ptr: T.handle, sc_ptr: T.handle, alpha: T.float32):
    Q = T.match_buffer(q_ptr, (B_ * S_ * D_,), "float32")
    KB = T.match_buffer(k_ptr, (B_ * S_ * D_,), "float32")
    SC = T.match_buffer(sc_ptr, (B_ * NH * S_ * L_,), "float32")
    T.device_entry()
    bx, by, bz = T.cta_id([S_ // BN, S_ // BM, B_ * NH])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        ov = T.alloc_buffer((2,), "float32", scope="local")
        scores_tile(Q, KB, SC, S_, T_, alpha, bx, by, bz, tx, sm, acc, a_big, a_small, b_big, b_small, d, fv, ov)


@T.prim_func
def pv_gemm(sc_ptr: T.handle, vt_ptr: T.handle, att_ptr: T.handle):
    # att[b, s, h * 128 + d] = P_bh[s] . vt_bh[d] (alpha = 1: stored as is)
    P = T.match_buffer(sc_ptr, (B_ * NH * S_ * L_,), "float32")
    VT = T.match_buffer(vt_ptr, (B_ * NH * HD * L_,), "float32")
    ATT = T.match_buffer(att_ptr, (B_ * S_ * D_,), "float32")
    T.device_entry()
    bx, by, bz = T.cta_id([HD // BN, S_ // BM, B_ * NH])
    tx = T.thread_id([THREADS])
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        sm = T.alloc_buffer((STAGES * STAGE_F,), "float32", scope="shared.dyn")
        acc = T.alloc_buffer((2, 8, 4), "float32", scope="local")
        a_big = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        a_small = T.alloc_buffer((2, 4, 4), "uint32", scope="local")
        b_big = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        b_small = T.alloc_buffer((2, 4, 2), "uint32", scope="local")
        d = T.alloc_buffer((2, 2, 4), "float32", scope="local")
        fv = T.alloc_buffer((1,), "float32", scope="local")
        ov = T.alloc_buffer((2,), "float32", scope="local")
        gemm_core(sm, acc, a_big, a_small, b_big, b_small, d, fv, P, bz * (S_ * L_), L_, S_,
                  VT, bz * (HD * L_), L_, by * BM, bx * BN, L_ // BK, tx)
        for mi in T.unroll(2):
            for h in T.unroll(2):
                for ni in T.unroll(8):
                    for e in T.unroll(2):
                        ov[e] = acc[mi, ni, h * 2 + e]
                    for e in T.vectorized(2):
                        ATT[bz // NH * (S_ * D_) + (by * BM + tx // 64 * 32 + mi * 16 + tx % 32 // 4 + h * 8) * D_
                            + bz % NH * HD + bx * BN + tx // 32 % 2 * 64 + ni * 8 + tx % 4 * 2 + e] = ov[e]


# ---- elementwise, normalization, rotary, transpose, softmax ----
@T.prim_func
def silu_vec(out_ptr: T.handle, x_ptr: T.handle):
    OUT = T.match_buffer(out_ptr, (B_ * D_,), "float32")
    X = T.match_buffer(x_ptr, (B_ * D_,), "float32")
    T.device_entry()
    bx = T.cta_id([B_ * D_ // 256])
    tx = T.thread_id([256])
    OUT[bx * 256 + tx] = X[bx * 256 + tx] / (T.float32(1) + T.exp(-X[bx * 256 + tx]))


@T.macro
def block_sum(v, red, tx):
    # the cuda solution's block_sum over 8 warps: butterfly, one shared slot per warp, butterfly again
    v[0] = T.cuda.warp_sum(v[0], 32)
    T.cuda.cta_sync()
    if tx % 32 == 0:
        red[tx // 32] = v[0]
    T.cuda.cta_sync()
    v[0] = T.Select(tx % 32 < 8, red[tx % 32], T.float32(0))
    v[0] = T.cuda.warp_sum(v[0], 32)


@T.macro
def block_max(v, red, tx):
    v[0] = T.cuda.warp_max(v[0], 32)
    T.cuda.cta_sync()
    if tx % 32 == 0:
        red[tx // 32] = v[0]
    T.cuda.cta_sync()
    v[0] = T.Select(tx % 32 < 8, red[tx % 32], T.float32(float("-inf")))
    v[0] = T.cuda.warp_max(v[0], 32)


@T.prim_func
def ln_modulate(out_ptr: T.handle, x_ptr: T.handle, emb_ptr: T.handle, eps: T.float32):
    OUT = T.match_buffer(out_ptr, (B_ * S_, D_), "float32")
    X = T.match_buffer(x_ptr, (B_ * S_, D_), "float32")
    EMB = T.match_buffer(emb_ptr, (B_, MOD), "float32")
    T.device_entry()
    r = T.cta_id([B_ * S_])
    tx = T.thread_id([256])
    red = T.alloc_buffer((32,), "float32", scope="shared")
    v = T.alloc_buffer((D_ // 256,), "float32", scope="local")
    st = T.alloc_buffer((1,), "float32", scope="local")
    mr = T.alloc_buffer((2,), "float32", scope="local")      # mean, rstd
    st[0] = T.float32(0)
    for j in T.unroll(D_ // 256):
        v[j] = X[r, tx + 256 * j]
        st[0] = st[0] + v[j]
    block_sum(st, red, tx)
    mr[0] = st[0] / T.float32(D_)
    st[0] = T.float32(0)
    for j in T.unroll(D_ // 256):
        st[0] = st[0] + (v[j] - mr[0]) * (v[j] - mr[0])
    block_sum(st, red, tx)
    mr[1] = T.rsqrt(st[0] / T.float32(D_) + eps)
    for j in T.unroll(D_ // 256):
        OUT[r, tx + 256 * j] = (v[j] - mr[0]) * mr[1] * (T.float32(1) + EMB[r // S_, D_ + tx + 256 * j]) \
            + EMB[r // S_, tx + 256 * j]


@T.prim_func
def rope_inplace(x_ptr: T.handle, p0_ptr: T.handle, p1_ptr: T.handle, p2_ptr: T.handle, c0_ptr: T.handle,
                 s0_ptr: T.handle, c1_ptr: T.handle, s1_ptr: T.handle, c2_ptr: T.handle, s2_ptr: T.handle):
    # thread idx = (row, head, slot j < 64): x[j] <- x[j] c - x[j + 64] s, x[j + 64] <- x[j] s + x[j + 64] c
    X = T.match_buffer(x_ptr, (B_ * S_, D_), "float32")
    P0 = T.match_buffer(p0_ptr, (S_,), "int64")
    P1 = T.match_buffer(p1_ptr, (S_,), "int64")
    P2 = T.match_buffer(p2_ptr, (S_,), "int64")
    C0 = T.match_buffer(c0_ptr, (AX_ROWS[0], RF), "float32")
    S0 = T.match_buffer(s0_ptr, (AX_ROWS[0], RF), "float32")
    C1 = T.match_buffer(c1_ptr, (AX_ROWS[1], RF), "float32")
    S1 = T.match_buffer(s1_ptr, (AX_ROWS[1], RF), "float32")
    C2 = T.match_buffer(c2_ptr, (AX_ROWS[2], RF), "float32")
    S2 = T.match_buffer(s2_ptr, (AX_ROWS[2], RF), "float32")
    T.device_entry()
    bx = T.cta_id([B_ * S_ * NH * RF // 256])
    tx = T.thread_id([256])
    cs = T.alloc_buffer((2,), "float32", scope="local")       # c, s
    xv = T.alloc_buffer((2,), "float32", scope="local")
    # j = (bx * 256 + tx) % 64 = tx % 64, head (bx * 256 + tx) // 64 % 24, row (bx * 256 + tx) // 1536
    if tx % RF < 8:
        cs[0] = C0[T.Cast("int32", P0[(bx * 256 + tx) // (RF * NH) % S_]), tx % RF]
        cs[1] = S0[T.Cast("int32", P0[(bx * 256 + tx) // (RF * NH) % S_]), tx % RF]
    elif tx % RF < 36:
        cs[0] = C1[T.Cast("int32", P1[(bx * 256 + tx) // (RF * NH) % S_]), tx % RF]
        cs[1] = S1[T.Cast("int32", P1[(bx * 256 + tx) // (RF * NH) % S_]), tx % RF]
    else:
        cs[0] = C2[T.Cast("int32", P2[(bx * 256 + tx) // (RF * NH) % S_]), tx % RF]
        cs[1] = S2[T.Cast("int32", P2[(bx * 256 + tx) // (RF * NH) % S_]), tx % RF]
    xv[0] = X[(bx * 256 + tx) // (RF * NH), (bx * 256 + tx) // RF % NH * HD + tx % RF]
    xv[1] = X[(bx * 256 + tx) // (RF * NH), (bx * 256 + tx) // RF % NH * HD + RF + tx % RF]
    X[(bx * 256 + tx) // (RF * NH), (bx * 256 + tx) // RF % NH * HD + tx % RF] = xv[0] * cs[0] - xv[1] * cs[1]
    X[(bx * 256 + tx) // (RF * NH), (bx * 256 + tx) // RF % NH * HD + RF + tx % RF] = xv[0] * cs[1] + xv[1] * cs[0]


@T.prim_func
def transpose_values(vt_ptr: T.handle, cv_ptr: T.handle, v_ptr: T.handle):
    # vt[b, h, d, l] = (l < 256 ? text v[b, l] : image v[b, l - 256])[h * 128 + d]
    VT = T.match_buffer(vt_ptr, (B_ * NH, HD, L_), "float32")
    CV = T.match_buffer(cv_ptr, (B_, T_, D_), "float32")
    V = T.match_buffer(v_ptr, (B_, S_, D_), "float32")
    T.device_entry()
    bx, by, bz = T.cta_id([L_ // 32, HD // 32, B_ * NH])
    tx, ty = T.thread_id([32, 8])
    tile = T.alloc_buffer((32, 33), "float32", scope="shared")
    for i in T.unroll(4):
        if bx * 32 + ty + 8 * i < T_:
            tile[ty + 8 * i, tx] = CV[bz // NH, bx * 32 + ty + 8 * i, bz % NH * HD + by * 32 + tx]
        else:
            tile[ty + 8 * i, tx] = V[bz // NH, bx * 32 + ty + 8 * i - T_, bz % NH * HD + by * 32 + tx]
    T.cuda.cta_sync()
    for i in T.unroll(4):
        VT[bz, by * 32 + ty + 8 * i, bx * 32 + tx] = tile[tx, ty + 8 * i]


@T.prim_func
def softmax_1280(p_ptr: T.handle):
    P = T.match_buffer(p_ptr, (B_ * NH * S_, L_), "float32")
    T.device_entry()
    r = T.cta_id([B_ * NH * S_])
    tx = T.thread_id([256])
    red = T.alloc_buffer((32,), "float32", scope="shared")
    v = T.alloc_buffer((L_ // 256,), "float32", scope="local")
    st = T.alloc_buffer((1,), "float32", scope="local")
    st[0] = T.float32(float("-inf"))
    for j in T.unroll(L_ // 256):
        v[j] = P[r, tx + 256 * j]
        st[0] = T.max(st[0], v[j])
    block_max(st, red, tx)
    for j in T.unroll(L_ // 256):
        v[j] = T.exp(v[j] - st[0])
    st[0] = T.float32(0)
    for j in T.unroll(L_ // 256):
        st[0] = st[0] + v[j]
    block_sum(st, red, tx)
    for j in T.unroll(L_ // 256):
        P[r, tx + 256 * j] = v[j] / st[0]


MKB_PLAN = """/* mkb:plan
scratch st fp32[batch_size * hidden_size]
scratch emb fp32[batch_size * modulation_dim]
scratch xm fp32[batch_size * seq_len * hidden_size]
scratch q fp32[batch_size * seq_len * hidden_size]
scratch k fp32[batch_size * seq_len * hidden_size]
scratch v fp32[batch_size * seq_len * hidden_size]
scratch ck fp32[batch_size * text_seq_len * hidden_size]
scratch cv fp32[batch_size * text_seq_len * hidden_size]
scratch vt fp32[batch_size * kv_len * hidden_size]
scratch sc fp32[batch_size * num_heads * seq_len * kv_len]
scratch att fp32[batch_size * seq_len * hidden_size]
launch silu_vec grid(batch_size * hidden_size / 256) block(256) args(st, timestep_embedding)
launch adaln_linear grid(modulation_dim / 128, 1) block(256) shared(110592)
  args(st, adaln_linear_weight, adaln_linear_bias, emb)
launch ln_modulate grid(batch_size * seq_len) block(256) args(xm, hidden_states, emb, f32(layer_norm_eps))
launch image_linear grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(110592)
  args(xm, to_q_weight, to_q_bias, q)
launch image_linear grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(110592)
  args(xm, to_k_weight, to_k_bias, k)
launch image_linear grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(110592)
  args(xm, to_v_weight, to_v_bias, v)
launch text_linear grid(hidden_size / 128, batch_size * text_seq_len / 128) block(256) shared(110592)
  args(encoder_hidden_states, to_k_context_weight, to_k_context_bias, ck)
launch text_linear grid(hidden_size / 128, batch_size * text_seq_len / 128) block(256) shared(110592)
  args(encoder_hidden_states, to_v_context_weight, to_v_context_bias, cv)
launch rope_inplace grid(batch_size * seq_len * num_heads * 64 / 256) block(256)
  args(q, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2)
launch rope_inplace grid(batch_size * seq_len * num_heads * 64 / 256) block(256)
  args(k, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2)
launch transpose_values grid(kv_len / 32, head_dim / 32, batch_size * num_heads) block(32, 8) args(vt, cv, v)
# scores[z = b * 24 + h] = q_bh k_bh^T / sqrt(128): text keys into columns 0..255, image keys into 256..1279
launch scores_text grid(text_seq_len / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(q, ck, sc, f32(0.08838834764831845))
launch scores_image grid(seq_len / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(q, k, sc, f32(0.08838834764831845))
launch softmax_1280 grid(batch_size * num_heads * seq_len) block(256) args(sc)
launch pv_gemm grid(head_dim / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(sc, vt, att)
launch out_linear grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(110592)
  args(att, to_out_weight, to_out_bias, hidden_states, emb, output)
*/"""
