"""Ling 2.0 MTP input in Triton, the algorithm of solutions/cuda.cu in two launches:
  1. shift_embed_dual_rmsnorm: one program per token t = b * seq + s gathers the embedding row of the
     shifted id (input_ids[t + 1], or id 0 at s = seq - 1) and the hidden row, RMS-normalizes both with
     fp32 statistics and the eager bf16 rounding points (bf16(x * rsqrt), then bf16(w * that)), and writes
     the concatenated [tokens, 8192] bf16 row [enorm(e), hnorm(h)].
  2. eh_proj: y = bf16(cat @ W^T), a tensor-core GEMM (tl.dot on bf16 tiles, fp32 accumulation, one
     rounding), 128 x 256 x 64 tiles, grouped rasterization so concurrent programs share A and B in L2.
Tile checks: N = hidden = 4096 = 16 * 256, K = concat = 8192 = 128 * 64; rows past M (none for
M = 8192 = 64 * 128) are clamped on load and skipped on store."""
import triton
import triton.language as tl


@triton.jit
def shift_embed_dual_rmsnorm(ids_ptr, embedding_ptr, hidden_ptr, enorm_w_ptr, hnorm_w_ptr, cat_ptr, seq, eps,
                             HIDDEN: tl.constexpr = 4096):
    t = tl.program_id(0)
    s = t % seq
    # torch.roll(ids, -1) with the last position of each sequence set to id 0
    token = tl.load(ids_ptr + t + 1, mask=s + 1 < seq, other=0).to(tl.int64)
    columns = tl.arange(0, HIDDEN)
    e = tl.load(embedding_ptr + token * HIDDEN + columns).to(tl.float32)
    h = tl.load(hidden_ptr + t.to(tl.int64) * HIDDEN + columns).to(tl.float32)
    re = tl.math.rsqrt(tl.sum(e * e, axis=0) / HIDDEN + eps)
    rh = tl.math.rsqrt(tl.sum(h * h, axis=0) / HIDDEN + eps)
    ew = tl.load(enorm_w_ptr + columns).to(tl.float32)
    hw = tl.load(hnorm_w_ptr + columns).to(tl.float32)
    en = (ew * (e * re).to(tl.bfloat16).to(tl.float32)).to(tl.bfloat16)
    hn = (hw * (h * rh).to(tl.bfloat16).to(tl.float32)).to(tl.bfloat16)
    row = cat_ptr + t.to(tl.int64) * (2 * HIDDEN)
    tl.store(row + columns, en)
    tl.store(row + HIDDEN + columns, hn)


@triton.jit
def eh_proj(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr = 128, BLOCK_N: tl.constexpr = 256,
            BLOCK_K: tl.constexpr = 64, GROUP_M: tl.constexpr = 8):
    """C[M, N] = bf16(A[M, K] @ B[N, K]^T), fp32 accumulation. Needs N % BLOCK_N == 0, K % BLOCK_K == 0."""
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = N // BLOCK_N
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    group_m = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_in = tl.where(rows < M, rows, M - 1)  # clamped: rows past M load a valid row, are not stored
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows_in.to(tl.int64)[:, None] * K + ks[None, :]
    b_ptrs = b_ptr + cols.to(tl.int64)[:, None] * K + ks[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, tl.trans(b), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    c_ptrs = c_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(rows < M)[:, None])


MKB_OPTIONS = {"eh_proj": {"num_stages": 3}}

MKB_PLAN = """/* mkb:plan
scratch cat bf16[batch_size * seq_len * concat_size]
launch shift_embed_dual_rmsnorm grid(batch_size * seq_len) block(256)
  args(input_ids, word_embeddings, hidden_states, enorm_weight, hnorm_weight, cat, i32(seq_len), f32(rms_norm_eps))
launch eh_proj grid(ceil_div(batch_size * seq_len, 128) * (hidden_size / 256)) block(256)
  args(cat, eh_proj_weight, output, i32(batch_size * seq_len), i32(hidden_size), i32(concat_size))
*/"""
