"""FLUX.1 Kontext final layer (AdaLayerNormContinuous + proj_out) in Triton, fp32 accuracy, three launches,
the algorithm of solutions/cuda.cu:
  1. silu_gemv: emb = silu(temb) @ norm_weight^T + norm_bias, a weight-streaming GEMV (8 rows of the
     6144 x 3072 weight per program, silu(temb) recomputed per 1024-wide chunk).
  2. fold_weights: folds the modulation into the projection. With W = proj_weight,
       y[t,o] = sum_c ((x[t,c] - mean_t) * rstd_t * (1 + scale[c]) + shift[c]) * W[o,c] + bias[o]
              = rstd_t * (sum_c x[t,c] * Wf[o,c] - mean_t * csum[o]) + sbias[o]
     with Wf[o,c] = W[o,c] * (1 + scale[c]), csum[o] = sum_c Wf[o,c], sbias[o] = sum_c shift[c] W[o,c] + bias[o]
     (sums in float64), one program per (output channel, batch entry).
  3. adaln_proj: x @ Wf^T as 3xTF32 tensor-core products (tl.dot input_precision="tf32x3": each K tile's
     product starts from zero and is added to the running fp32 sum), reading x exactly once; the
     LayerNorm statistics (row sum and sum of squares, fp32 per K tile, accumulated in float64) come from
     the same tiles, and the epilogue applies mean, rstd and sbias.
Shapes: dim = 3072 = 3 * 1024 = 48 * 64, out_channels = 64, tokens = 8192 a multiple of the 64-row tile
(a tile lies in one batch entry).
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def silu_gemv(temb_ptr, w_ptr, bias_ptr, emb_ptr,
              DIM: tl.constexpr = 3072, ROWS: tl.constexpr = 8, CHUNK: tl.constexpr = 1024):
    b = tl.program_id(1)
    j = tl.program_id(0) * ROWS + tl.arange(0, ROWS)   # rows of norm_weight, in [0, 2 * DIM)
    c = tl.arange(0, CHUNK)
    acc = tl.zeros((ROWS, CHUNK), dtype=tl.float32)
    for i in tl.static_range(DIM // CHUNK):
        w = tl.load(w_ptr + j[:, None] * DIM + (i * CHUNK + c)[None, :], eviction_policy="evict_first")
        t = tl.load(temb_ptr + b * DIM + i * CHUNK + c)
        s = tl.math.div_rn(t, 1.0 + libdevice.exp(-t))
        acc += w * s[None, :]
    e = tl.sum(acc, axis=1) + tl.load(bias_ptr + j)
    tl.store(emb_ptr + b * (2 * DIM) + j, e)


@triton.jit
def fold_weights(emb_ptr, pw_ptr, pb_ptr, wf_ptr, csum_ptr, sbias_ptr,
                 DIM: tl.constexpr = 3072, OUT: tl.constexpr = 64, CHUNK: tl.constexpr = 1024):
    o = tl.program_id(0)
    b = tl.program_id(1)
    c = tl.arange(0, CHUNK)
    cs = tl.zeros((CHUNK,), dtype=tl.float64)
    sb = tl.zeros((CHUNK,), dtype=tl.float64)
    for i in tl.static_range(DIM // CHUNK):
        cc = i * CHUNK + c
        wv = tl.load(pw_ptr + o * DIM + cc)
        scale = tl.load(emb_ptr + b * (2 * DIM) + cc)
        shift = tl.load(emb_ptr + b * (2 * DIM) + DIM + cc)
        f = wv * (1.0 + scale)
        tl.store(wf_ptr + (b * OUT + o) * DIM + cc, f)
        cs += f.to(tl.float64)
        sb += shift.to(tl.float64) * wv.to(tl.float64)
    tl.store(csum_ptr + b * OUT + o, tl.sum(cs, axis=0).to(tl.float32))
    pb = tl.load(pb_ptr + o).to(tl.float64)
    tl.store(sbias_ptr + b * OUT + o, (tl.sum(sb, axis=0) + pb).to(tl.float32))


@triton.jit
def adaln_proj(x_ptr, wf_ptr, csum_ptr, sbias_ptr, y_ptr, tokens, eps,
               DIM: tl.constexpr = 3072, OUT: tl.constexpr = 64, BM: tl.constexpr = 64, BK: tl.constexpr = 64):
    m0 = tl.program_id(0) * BM          # a row of the [batch * tokens, DIM] view of x
    b = m0 // tokens                    # tokens % BM == 0: the tile lies in one batch entry
    rm = m0 + tl.arange(0, BM)
    rn = tl.arange(0, OUT)
    rk = tl.arange(0, BK)
    a_ptrs = x_ptr + rm[:, None] * DIM + rk[None, :]                    # [BM, BK] of x
    b_ptrs = wf_ptr + b * (OUT * DIM) + rn[None, :] * DIM + rk[:, None]  # [BK, OUT] of Wf^T
    acc = tl.zeros((BM, OUT), dtype=tl.float32)
    rs = tl.zeros((BM,), dtype=tl.float64)
    rq = tl.zeros((BM,), dtype=tl.float64)
    for k in range(0, DIM, BK):
        a = tl.load(a_ptrs, eviction_policy="evict_first")
        w = tl.load(b_ptrs)
        rs += tl.sum(a, axis=1).to(tl.float64)
        rq += tl.sum(a * a, axis=1).to(tl.float64)
        acc += tl.dot(a, w, input_precision="tf32x3")
        a_ptrs += BK
        b_ptrs += BK
    mean = rs / DIM
    var = tl.maximum(rq / DIM - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)  # sqrt.rn.f64 and div.rn.f64
    mean32 = mean.to(tl.float32)
    rstd32 = rstd.to(tl.float32)
    cs = tl.load(csum_ptr + b * OUT + rn)
    sbias = tl.load(sbias_ptr + b * OUT + rn)
    y = (acc - mean32[:, None] * cs[None, :]) * rstd32[:, None] + sbias[None, :]
    tl.store(y_ptr + rm[:, None] * OUT + rn[None, :], y)


MKB_OPTIONS = {"adaln_proj": {"num_stages": 4}}

MKB_PLAN = """/* mkb:plan
scratch emb fp32[batch * 2 * dim]
scratch wf fp32[batch * out_channels * dim]
scratch csum fp32[batch * out_channels]
scratch sbias fp32[batch * out_channels]
launch silu_gemv grid(2 * dim / 8, batch) block(256) args(temb, norm_weight, norm_bias, emb)
launch fold_weights grid(out_channels, batch) block(256) args(emb, proj_weight, proj_bias, wf, csum, sbias)
launch adaln_proj grid(batch * tokens / 64) block(256) args(x, wf, csum, sbias, y, i32(tokens), f32(eps))
*/"""
