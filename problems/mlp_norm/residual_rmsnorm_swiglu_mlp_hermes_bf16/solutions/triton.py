"""Residual add + RMSNorm + SwiGLU MLP for a 32-token decode step in Triton, the algorithm of
solutions/cuda.cu. The sublayer is bound by streaming 352 MB of bf16 weights, so every weight byte is
read once, by enough resident programs to keep HBM busy:
  1. add_rmsnorm: one program per token: residual = bf16(x + residual) (in place),
     n = bf16(bf16(s * rsqrt(mean(s^2) + eps)) * w).
  2. gate_up_swiglu: each program owns 64 intermediate columns j (64 gate rows + the 64 matching up rows)
     over the full K = 4096 and multiplies them with tensor cores, the weights as the M side (64 rows)
     and the 32 tokens as N: g^T = Wg[j0:j0+64] @ n^T. Epilogue with the eager rounding points:
     h = bf16(bf16(silu(bf16 g)) * bf16 u). 224 programs, 80 KiB of shared memory each (2 per SM).
  3. down_proj: 64 output rows per program, split-K by 7 (2048 each): 64 x 7 = 448 programs writing fp32
     partials; 4. down_reduce sums the 7 partials in split order and rounds once to bf16.
Tile checks: 14336 = 224 * 64, 4096 = 64 * 64, 14336 = 7 * 2048, 2048 % 64 == 0, tokens = 32."""
import triton
import triton.language as tl


@triton.jit
def add_rmsnorm(x_ptr, residual_ptr, weight_ptr, n_ptr, eps, HIDDEN: tl.constexpr = 4096):
    row = tl.program_id(0).to(tl.int64) * HIDDEN
    columns = tl.arange(0, HIDDEN)
    x = tl.load(x_ptr + row + columns).to(tl.float32)
    residual = tl.load(residual_ptr + row + columns).to(tl.float32)
    s = (x + residual).to(tl.bfloat16)  # the sum, rounded to bf16, is the new residual
    tl.store(residual_ptr + row + columns, s)
    h = s.to(tl.float32)
    inv = tl.math.rsqrt(tl.sum(h * h, axis=0) / HIDDEN + eps)
    m = (h * inv).to(tl.bfloat16)
    weight = tl.load(weight_ptr + columns).to(tl.float32)
    tl.store(n_ptr + row + columns, (m.to(tl.float32) * weight).to(tl.bfloat16))


@triton.jit
def gate_up_swiglu(n_ptr, w_gate_ptr, w_up_ptr, h_ptr, TOKENS: tl.constexpr = 32, HIDDEN: tl.constexpr = 4096,
                   INTER: tl.constexpr = 14336, BLOCK_J: tl.constexpr = 64, BLOCK_K: tl.constexpr = 64):
    """h[t, j] = bf16(bf16(silu(bf16(n[t] . w_gate[j]))) * bf16(n[t] . w_up[j])) for this program's 64 j."""
    js = tl.program_id(0) * BLOCK_J + tl.arange(0, BLOCK_J)
    ts = tl.arange(0, TOKENS)
    ks = tl.arange(0, BLOCK_K)
    g_ptrs = w_gate_ptr + js.to(tl.int64)[:, None] * HIDDEN + ks[None, :]
    u_ptrs = w_up_ptr + js.to(tl.int64)[:, None] * HIDDEN + ks[None, :]
    n_ptrs = n_ptr + ts[:, None] * HIDDEN + ks[None, :]
    acc_g = tl.zeros((BLOCK_J, TOKENS), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_J, TOKENS), dtype=tl.float32)
    for _ in range(0, HIDDEN, BLOCK_K):
        nt = tl.trans(tl.load(n_ptrs))  # [BLOCK_K, TOKENS]
        acc_g = tl.dot(tl.load(g_ptrs), nt, acc_g)
        acc_u = tl.dot(tl.load(u_ptrs), nt, acc_u)
        g_ptrs += BLOCK_K
        u_ptrs += BLOCK_K
        n_ptrs += BLOCK_K
    g = acc_g.to(tl.bfloat16).to(tl.float32)
    u = acc_u.to(tl.bfloat16).to(tl.float32)
    a = (g / (1.0 + tl.exp(-g))).to(tl.bfloat16).to(tl.float32)
    h = (a * u).to(tl.bfloat16)  # [BLOCK_J, TOKENS]: h[t, j] at t * INTER + j
    tl.store(h_ptr + ts[None, :] * INTER + js[:, None], h)


@triton.jit
def down_proj(h_ptr, w_down_ptr, partial_ptr, TOKENS: tl.constexpr = 32, HIDDEN: tl.constexpr = 4096,
              INTER: tl.constexpr = 14336, SPLIT_K: tl.constexpr = 2048, BLOCK_O: tl.constexpr = 64,
              BLOCK_K: tl.constexpr = 64):
    """partial[split, t, o] = sum over j in [split * SPLIT_K, +SPLIT_K) of h[t, j] * w_down[o, j], fp32."""
    os_ = tl.program_id(0) * BLOCK_O + tl.arange(0, BLOCK_O)
    split = tl.program_id(1)
    ts = tl.arange(0, TOKENS)
    ks = split * SPLIT_K + tl.arange(0, BLOCK_K)
    w_ptrs = w_down_ptr + os_.to(tl.int64)[:, None] * INTER + ks[None, :]
    h_ptrs = h_ptr + ts[:, None] * INTER + ks[None, :]
    acc = tl.zeros((BLOCK_O, TOKENS), dtype=tl.float32)
    for _ in range(0, SPLIT_K, BLOCK_K):
        acc = tl.dot(tl.load(w_ptrs), tl.trans(tl.load(h_ptrs)), acc)
        w_ptrs += BLOCK_K
        h_ptrs += BLOCK_K
    tl.store(partial_ptr + split * (TOKENS * HIDDEN) + ts[None, :] * HIDDEN + os_[:, None], acc)


@triton.jit
def down_reduce(partial_ptr, y_ptr, TOKENS: tl.constexpr = 32, HIDDEN: tl.constexpr = 4096,
                SPLITS: tl.constexpr = 7, BLOCK: tl.constexpr = 1024):
    """y = bf16(sum of the SPLITS partials, in split order)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    total = tl.load(partial_ptr + offs)
    for s in tl.static_range(1, SPLITS):
        total += tl.load(partial_ptr + s * (TOKENS * HIDDEN) + offs)
    tl.store(y_ptr + offs, total.to(tl.bfloat16))


MKB_OPTIONS = {"gate_up_swiglu": {"num_stages": 4}, "down_proj": {"num_stages": 4}}

MKB_PLAN = """/* mkb:plan
scratch n bf16[tokens * hidden]
scratch hbuf bf16[tokens * intermediate]
scratch partial fp32[7 * tokens * hidden]
launch add_rmsnorm grid(tokens) block(512) args(x, residual, norm_weight, n, f32(eps))
launch gate_up_swiglu grid(intermediate / 64) block(128) args(n, w_gate, w_up, hbuf)
launch down_proj grid(hidden / 64, 7) block(128) args(hbuf, w_down, partial)
launch down_reduce grid(tokens * hidden / 1024) block(128) args(partial, y)
*/"""
