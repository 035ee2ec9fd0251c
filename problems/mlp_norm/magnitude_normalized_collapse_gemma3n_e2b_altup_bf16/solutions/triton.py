"""Gemma 3n AltUp collapse in Triton, the algorithm of solutions/cuda.cu in two launches:
  1. altup_unembed_gemm: the three 2048 x 2048 projections as one batched tensor-core GEMM (tl.dot on
     bf16 tiles, fp32 accumulation; program_id(1) picks the stream), 128 x 256 x 64 tiles with grouped
     rasterization. The epilogue rounds each projection to bf16 (as nn.Linear does), stores it, and
     writes the per-row sum of squares of the tile's 256 rounded values to `partial`, so the magnitudes
     need no second pass over the projections.
  2. altup_collapse: one program per token: the RMS of stream 0, the three magnitudes from the 8 partial
     sums each, and out = bf16((x0 + sum_s p_s * tm / sqrt(max(mean(p_s^2), eps))) / 4) in fp32 (the
     reference allows fp32 intermediates; only the projections and the output are rounded).
Tile checks: hidden = 2048 = 8 * 256 = 32 * 64 (N and K); tokens = 2048 = 16 * 128 (rows past the end
would be clamped on load and skipped on store)."""
import triton
import triton.language as tl


@triton.jit
def altup_unembed_gemm(streams_ptr, weight_ptr, proj_ptr, partial_ptr, M, N, K, BLOCK_M: tl.constexpr = 128,
                       BLOCK_N: tl.constexpr = 256, BLOCK_K: tl.constexpr = 64, GROUP_M: tl.constexpr = 8):
    """proj[z] = bf16(streams[z] @ weight[z]^T) ([M, K] x [N, K]^T, N == K == hidden);
    partial[z, row, pid_n] = sum over the tile's BLOCK_N columns of float(proj)^2."""
    pid = tl.program_id(0)
    z = tl.program_id(1).to(tl.int64)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = N // BLOCK_N
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    group_m = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m

    a_base = streams_ptr + z * M * K
    b_base = weight_ptr + z * N * K
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_in = tl.where(rows < M, rows, M - 1)  # clamped: rows past M load a valid row, are not stored
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_base + rows_in.to(tl.int64)[:, None] * K + ks[None, :]
    b_ptrs = b_base + cols.to(tl.int64)[:, None] * K + ks[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, tl.trans(b), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K

    p = acc.to(tl.bfloat16)
    valid = rows < M
    c_ptrs = proj_ptr + z * M * N + rows.to(tl.int64)[:, None] * N + cols[None, :]
    tl.store(c_ptrs, p, mask=valid[:, None])
    pf = p.to(tl.float32)
    squares = tl.sum(pf * pf, axis=1)
    tl.store(partial_ptr + (z * M + rows) * num_n + pid_n, squares, mask=valid)


@triton.jit
def altup_collapse(stream0_ptr, proj_ptr, partial_ptr, out_ptr, tokens, eps, HIDDEN: tl.constexpr = 2048,
                   NT: tl.constexpr = 8, STREAMS: tl.constexpr = 3):
    """out[t] = bf16((x0 + sum_s proj[s, t] * rms(x0) / sqrt(max(mean(proj[s, t]^2), eps))) / 4)."""
    row = tl.program_id(0).to(tl.int64)
    columns = tl.arange(0, HIDDEN)
    x = tl.load(stream0_ptr + row * HIDDEN + columns).to(tl.float32)
    target = tl.sqrt_rn(tl.sum(x * x, axis=0) / HIDDEN)
    slab = tokens.to(tl.int64) * HIDDEN
    parts = tl.arange(0, NT)
    total = x
    for s in tl.static_range(STREAMS):
        q = tl.sum(tl.load(partial_ptr + (s * tokens + row) * NT + parts), axis=0)
        scale = tl.div_rn(target, tl.sqrt_rn(tl.maximum(q / HIDDEN, eps)))
        p = tl.load(proj_ptr + s * slab + row * HIDDEN + columns).to(tl.float32)
        total = total + p * scale
    tl.store(out_ptr + row * HIDDEN + columns, (0.25 * total).to(tl.bfloat16))


MKB_OPTIONS = {"altup_unembed_gemm": {"num_stages": 3}}

MKB_PLAN = """/* mkb:plan
scratch proj bf16[streams * tokens * hidden]
scratch partial fp32[streams * tokens * (hidden / 256)]
launch altup_unembed_gemm grid(ceil_div(tokens, 128) * (hidden / 256), streams) block(256)
  args(other_streams, unembed_weight, proj, partial, i32(tokens), i32(hidden), i32(hidden))
launch altup_collapse grid(tokens) block(256) args(stream0, proj, partial, out, i32(tokens), f32(eps))
*/"""
