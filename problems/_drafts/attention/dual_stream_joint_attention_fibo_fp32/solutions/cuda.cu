// FIBO joint attention block (#13), fp32. Every product runs on tensor cores with a 3xTF32 split (each
// fp32 operand a = big + small, big = tf32(a), small = tf32(a - big); a*b ~ big*big' + big*small' +
// small*big', the dropped small*small' ~2^-22 relative); each 32-deep k tile is summed by the tensor core
// from zero and added to fp32 register accumulators with round-to-nearest, so long sums keep fp32
// accuracy. One GEMM kernel serves every product: C = alpha * A B^T (+ bias), A [M, K] rows of stride
// lda, B [N, K] rows of stride ldb (an nn.Linear weight, or keys), C rows of stride ldc; batches z over
// (z / heads, z % heads) offsets; an epilogue variant writes x + gate * (A B^T + bias) for the output
// projection. Block tile 128 x 128, 8 warps as 4 (M) x 2 (N), warp tile 32 x 64 (m16n8k8), BK = 32,
// 3-stage cp.async pipeline, shared rows padded to 36 floats (GEMM core taken from this repository's
// #41 solution). Launches: silu(temb); the AdaLN linear; LayerNorm + modulation (one block per row);
// q, k, v, text k, text v projections with bias; rotary in place on q and k; values transposed to
// [b, head, 128, 1280] (text then image); scores = q k^T / sqrt(128) into text and image column ranges;
// row softmax in place; probabilities @ values straight into [b, s, head * 128]; output projection with
// the gated residual. Needs N % 128 == 0 and K % 32 == 0 (true of every product here); M is clamped.

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3;
constexpr int kThreads = 256;
constexpr int kLd = kBK + 4;
constexpr int kATile = kBM * kLd;
constexpr int kBTile = kBN * kLd;
constexpr int kStageFloats = kATile + kBTile; // 3 stages = 110592 bytes
constexpr int kMI = 2, kNI = 8;
constexpr int kKSteps = kBK / 8;
constexpr int kGroup = 2;

__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(smem)), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
// big = tf32(x) (round to nearest, ties away), small = tf32(x - big)
__device__ __forceinline__ void split_tf32(float x, unsigned &big, unsigned &small) {
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
  const float rest = x - __uint_as_float(big);
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(rest));
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d = a * b + 0
__device__ __forceinline__ void mma_tf32_zero(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
}


// grid(N / 128, ceil_div(M, 128), batches) block(256) shared(110592)
// mode 0: C = alpha * acc; mode 1: C = acc + bias[n]; mode 2: C = res + g[n] * (acc + bias[n]) with
// g = gate + (m / gate_rows) * gate_stride + gate_off
// (bias, res and gate are read only by the modes that use them)
extern "C" __global__ void __launch_bounds__(kThreads, 1)
gemm_3xtf32(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
            const float *__restrict__ bias, const float *__restrict__ res, const float *__restrict__ gate,
            int M, int K, int lda, int ldb, int ldc, int heads,
            long long a_s1, long long a_s2, long long b_s1, long long b_s2, long long c_s1, long long c_s2,
            long long c_off, float alpha, int mode, int gate_rows, int gate_stride, int gate_off) {
  extern __shared__ __align__(16) float smem[];
  const int z = blockIdx.z;
  A += (z / heads) * a_s1 + (z % heads) * a_s2;
  const float *Bm = B + (z / heads) * b_s1 + (z % heads) * b_s2;
  C += (z / heads) * c_s1 + (z % heads) * c_s2 + c_off;
  const int n0 = blockIdx.x * kBN;
  const int m0 = blockIdx.y * kBM;
  const int kTiles = K / kBK;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = (warp >> 1) * 32;
  const int wn = (warp & 1) * 64;
  const int g = lane >> 2, t = lane & 3;

  auto load_stage = [&](int stage, int kt) {
    float *as = smem + stage * kStageFloats;
    float *bs = as + kATile;
    const int k0 = kt * kBK;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = tid + i * kThreads; // 0..1023: 128 rows x 8 chunks of 4 floats
      const int row = c >> 3, col = (c & 7) * 4;
      const int arow = min(m0 + row, M - 1);
      cp_async16(as + row * kLd + col, A + (size_t)arow * lda + k0 + col);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = tid + i * kThreads;
      const int row = c >> 3, col = (c & 7) * 4;
      cp_async16(bs + row * kLd + col, Bm + (size_t)(n0 + row) * ldb + k0 + col);
    }
  };

  float acc[kMI][kNI][4];
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    load_stage(s, s);
    cp_async_commit();
  }

  for (int kt = 0; kt < kTiles; ++kt) {
    cp_async_wait<kStages - 2>(); // tile kt has landed (one group is committed per iteration)
    __syncthreads();              // ... for every thread, and stage (kt - 1) % kStages is free again
    {
      const int next = kt + kStages - 1;
      if (next < kTiles) load_stage(next % kStages, next);
      cp_async_commit();
    }
    const float *as = smem + (kt % kStages) * kStageFloats;
    const float *bs = as + kATile;
    // A fragments of the whole 32-deep tile (m16 x k8 each, row-major):
    // a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
    unsigned a_big[kMI][kKSteps][4], a_small[kMI][kKSteps][4];
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        const float *ap = as + (wm + mi * 16 + g) * kLd + ks * 8 + t;
        split_tf32(ap[0], a_big[mi][ks][0], a_small[mi][ks][0]);
        split_tf32(ap[8 * kLd], a_big[mi][ks][1], a_small[mi][ks][1]);
        split_tf32(ap[4], a_big[mi][ks][2], a_small[mi][ks][2]);
        split_tf32(ap[8 * kLd + 4], a_big[mi][ks][3], a_small[mi][ks][3]);
      }
    }
#pragma unroll
    for (int n2 = 0; n2 < kNI; n2 += kGroup) {
      // B fragments (k8 x n8, "col"): b0 (k = t, n = g), b1 (k = t + 4, n = g); W rows are n, k contiguous
      unsigned b_big[kGroup][kKSteps][2], b_small[kGroup][kKSteps][2];
#pragma unroll
      for (int j = 0; j < kGroup; ++j) {
        const float *bp = bs + (wn + (n2 + j) * 8 + g) * kLd + t;
#pragma unroll
        for (int ks = 0; ks < kKSteps; ++ks) {
          split_tf32(bp[ks * 8], b_big[j][ks][0], b_small[j][ks][0]);
          split_tf32(bp[ks * 8 + 4], b_big[j][ks][1], b_small[j][ks][1]);
        }
      }
      // Each tile's 32-deep partial product is summed by the tensor core from zero (12 short mma
      // steps), then added to the fp32 accumulator with round-to-nearest. Consecutive mma are
      // independent (kGroup * kMI chains interleaved).
      float d[kGroup][kMI][4];
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) mma_tf32_zero(d[j][mi], a_small[mi][0], b_big[j][0][0], b_big[j][0][1]);
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][0], b_small[j][0][0], b_small[j][0][1]);
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][0], b_big[j][0][0], b_big[j][0][1]);
#pragma unroll
      for (int ks = 1; ks < kKSteps; ++ks) {
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
#pragma unroll
          for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_small[mi][ks], b_big[j][ks][0], b_big[j][ks][1]);
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
#pragma unroll
          for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][ks], b_small[j][ks][0], b_small[j][ks][1]);
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
#pragma unroll
          for (int mi = 0; mi < kMI; ++mi) mma_tf32(d[j][mi], a_big[mi][ks], b_big[j][ks][0], b_big[j][ks][1]);
      }
#pragma unroll
      for (int j = 0; j < kGroup; ++j)
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mi][n2 + j][e] += d[j][mi][e];
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int mi = 0; mi < kMI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + wm + mi * 16 + g + 8 * h;
      if (row < M) {
#pragma unroll
        for (int ni = 0; ni < kNI; ++ni) {
          const int col = n0 + wn + ni * 8 + 2 * t;
          float a = acc[mi][ni][2 * h], b = acc[mi][ni][2 * h + 1];
          if (mode == 0) {
            a = alpha * a;
            b = alpha * b;
          } else if (mode == 1) {
            a += bias[col];
            b += bias[col + 1];
          } else {
            const float *gr = gate + (size_t)(row / gate_rows) * gate_stride + gate_off;
            const float2 r = *reinterpret_cast<const float2 *>(res + (size_t)row * ldc + col);
            a = r.x + gr[col] * (a + bias[col]);
            b = r.y + gr[col + 1] * (b + bias[col + 1]);
          }
          *reinterpret_cast<float2 *>(C + (size_t)row * ldc + col) = make_float2(a, b);
        }
      }
    }
  }
}

constexpr int kS = 1024, kT = 256, kD = 3072, kN = 24, kH = 128, kL = 1280, kMod = 6 * 3072, kF = 64;

__device__ __forceinline__ float block_sum(float v, float *red) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int w = threadIdx.x >> 5, l = threadIdx.x & 31, nw = blockDim.x >> 5;
  __syncthreads();
  if (l == 0) red[w] = v;
  __syncthreads();
  float s = l < nw ? red[l] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}
__device__ __forceinline__ float block_max(float v, float *red) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int w = threadIdx.x >> 5, l = threadIdx.x & 31, nw = blockDim.x >> 5;
  __syncthreads();
  if (l == 0) red[w] = v;
  __syncthreads();
  float s = l < nw ? red[l] : -__int_as_float(0x7f800000);
  for (int o = 16; o > 0; o >>= 1) s = fmaxf(s, __shfl_xor_sync(0xffffffffu, s, o));
  return s;
}

extern "C" __global__ void silu_vec(float *out, const float *x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] / (1.0f + expf(-x[i]));
}

// grid(rows) block(256): LayerNorm (no affine) then * (1 + scale_msa) + shift_msa of the row's batch
extern "C" __global__ void __launch_bounds__(256) ln_modulate(float *out, const float *x, const float *emb, float eps) {
  __shared__ float red[32];
  const long long r = blockIdx.x;
  const int b = (int)(r / kS);
  const float *xr = x + r * kD;
  float v[kD / 256];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kD / 256; ++j) {
    v[j] = xr[threadIdx.x + 256 * j];
    s += v[j];
  }
  const float mean = block_sum(s, red) / kD;
  float q = 0.0f;
#pragma unroll
  for (int j = 0; j < kD / 256; ++j) {
    const float d = v[j] - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(block_sum(q, red) / kD + eps);
  const float *shift = emb + (size_t)b * kMod, *scale = shift + kD;
#pragma unroll
  for (int j = 0; j < kD / 256; ++j) {
    const int c = threadIdx.x + 256 * j;
    out[r * kD + c] = (v[j] - mean) * rstd * (1.0f + scale[c]) + shift[c];
  }
}

// rotary in place on [rows, D] (image q or k): one thread per (row, head, slot j < 64)
extern "C" __global__ void rope_inplace(float *x, const long long *p0, const long long *p1, const long long *p2,
                                        const float *c0, const float *s0, const float *c1, const float *s1,
                                        const float *c2, const float *s2, int rows) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)rows * kN * kF) return;
  const int j = (int)(idx % kF);
  const int h = (int)((idx / kF) % kN);
  const long long r = idx / (kF * kN);
  const int s = (int)(r % kS);
  const long long pos = j < 8 ? p0[s] : j < 36 ? p1[s] : p2[s];
  const float *ct = j < 8 ? c0 : j < 36 ? c1 : c2;
  const float *st = j < 8 ? s0 : j < 36 ? s1 : s2;
  const float c = ct[pos * kF + j], sn = st[pos * kF + j];
  float *p = x + r * kD + h * kH + j;
  const float x1 = p[0], x2 = p[kF];
  p[0] = x1 * c - x2 * sn;
  p[kF] = x1 * sn + x2 * c;
}

// vt[b, h, d, l] = (l < T ? text v[b, l] : image v[b, l - T])[h * 128 + d]; 32 x 32 tiles through shared
// grid(kL / 32, kH / 32, batch * kN) block(32, 8)
extern "C" __global__ void transpose_values(float *vt, const float *cv, const float *v) {
  __shared__ float tile[32][33];
  const int z = blockIdx.z, b = z / kN, h = z % kN;
  const int l0 = blockIdx.x * 32, d0 = blockIdx.y * 32;
  for (int yy = threadIdx.y; yy < 32; yy += 8) {
    const int l = l0 + yy, d = d0 + threadIdx.x;
    const float *src = l < kT ? cv + ((size_t)b * kT + l) * kD : v + ((size_t)b * kS + l - kT) * kD;
    tile[yy][threadIdx.x] = src[h * kH + d];
  }
  __syncthreads();
  for (int yy = threadIdx.y; yy < 32; yy += 8) {
    const int d = d0 + yy, l = l0 + threadIdx.x;
    vt[((size_t)z * kH + d) * kL + l] = tile[threadIdx.x][yy];
  }
}

// in-place softmax over rows of 1280: grid(rows) block(256), 5 values per thread
extern "C" __global__ void __launch_bounds__(256) softmax_1280(float *p) {
  __shared__ float red[32];
  float *row = p + (size_t)blockIdx.x * kL;
  float v[kL / 256];
  float m = -__int_as_float(0x7f800000);
#pragma unroll
  for (int j = 0; j < kL / 256; ++j) {
    v[j] = row[threadIdx.x + 256 * j];
    m = fmaxf(m, v[j]);
  }
  m = block_max(m, red);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kL / 256; ++j) {
    v[j] = expf(v[j] - m);
    s += v[j];
  }
  s = block_sum(s, red);
#pragma unroll
  for (int j = 0; j < kL / 256; ++j) row[threadIdx.x + 256 * j] = v[j] / s;
}

/* mkb:plan
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
launch silu_vec grid(ceil_div(batch_size * hidden_size, 256)) block(256) args(st, timestep_embedding, i32(batch_size * hidden_size))
launch gemm_3xtf32 grid(modulation_dim / 128, ceil_div(batch_size, 128), 1) block(256) shared(110592)
  args(st, adaln_linear_weight, emb, adaln_linear_bias, emb, emb, i32(batch_size), i32(hidden_size), i32(hidden_size), i32(hidden_size),
       i32(modulation_dim), i32(1), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), f32(1.0), i32(1), i32(1), i32(0), i32(0))
launch ln_modulate grid(batch_size * seq_len) block(256) args(xm, hidden_states, emb, f32(layer_norm_eps))
launch gemm_3xtf32 grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128), 1) block(256) shared(110592)
  args(xm, to_q_weight, q, to_q_bias, q, q, i32(batch_size * seq_len), i32(hidden_size), i32(hidden_size), i32(hidden_size), i32(hidden_size), i32(1),
       i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), f32(1.0), i32(1), i32(1), i32(0), i32(0))
launch gemm_3xtf32 grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128), 1) block(256) shared(110592)
  args(xm, to_k_weight, k, to_k_bias, k, k, i32(batch_size * seq_len), i32(hidden_size), i32(hidden_size), i32(hidden_size), i32(hidden_size), i32(1),
       i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), f32(1.0), i32(1), i32(1), i32(0), i32(0))
launch gemm_3xtf32 grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128), 1) block(256) shared(110592)
  args(xm, to_v_weight, v, to_v_bias, v, v, i32(batch_size * seq_len), i32(hidden_size), i32(hidden_size), i32(hidden_size), i32(hidden_size), i32(1),
       i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), f32(1.0), i32(1), i32(1), i32(0), i32(0))
launch gemm_3xtf32 grid(hidden_size / 128, ceil_div(batch_size * text_seq_len, 128), 1) block(256) shared(110592)
  args(encoder_hidden_states, to_k_context_weight, ck, to_k_context_bias, ck, ck, i32(batch_size * text_seq_len), i32(joint_attention_dim), i32(joint_attention_dim), i32(joint_attention_dim), i32(hidden_size), i32(1),
       i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), f32(1.0), i32(1), i32(1), i32(0), i32(0))
launch gemm_3xtf32 grid(hidden_size / 128, ceil_div(batch_size * text_seq_len, 128), 1) block(256) shared(110592)
  args(encoder_hidden_states, to_v_context_weight, cv, to_v_context_bias, cv, cv, i32(batch_size * text_seq_len), i32(joint_attention_dim), i32(joint_attention_dim), i32(joint_attention_dim), i32(hidden_size), i32(1),
       i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), f32(1.0), i32(1), i32(1), i32(0), i32(0))
launch rope_inplace grid(ceil_div(batch_size * seq_len * num_heads * 64, 256)) block(256)
  args(q, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2, i32(batch_size * seq_len))
launch rope_inplace grid(ceil_div(batch_size * seq_len * num_heads * 64, 256)) block(256)
  args(k, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2, i32(batch_size * seq_len))
launch transpose_values grid(kv_len / 32, head_dim / 32, batch_size * num_heads) block(32, 8) args(vt, cv, v)
# scores[z = b * 24 + h] = q_bh k_bh^T / sqrt(128): text keys into columns 0..255, image keys into 256..1279
launch gemm_3xtf32 grid(text_seq_len / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(q, ck, sc, sc, sc, sc, i32(seq_len), i32(head_dim), i32(hidden_size), i32(hidden_size), i32(kv_len), i32(num_heads),
       i64(seq_len * hidden_size), i64(head_dim), i64(text_seq_len * hidden_size), i64(head_dim), i64(num_heads * seq_len * kv_len),
       i64(seq_len * kv_len), i64(0), f32(0.08838834764831845), i32(0), i32(1), i32(0), i32(0))
launch gemm_3xtf32 grid(seq_len / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(q, k, sc, sc, sc, sc, i32(seq_len), i32(head_dim), i32(hidden_size), i32(hidden_size), i32(kv_len), i32(num_heads),
       i64(seq_len * hidden_size), i64(head_dim), i64(seq_len * hidden_size), i64(head_dim), i64(num_heads * seq_len * kv_len),
       i64(seq_len * kv_len), i64(text_seq_len), f32(0.08838834764831845), i32(0), i32(1), i32(0), i32(0))
launch softmax_1280 grid(batch_size * num_heads * seq_len) block(256) args(sc)
# attention output [b, s, h * 128 + d] = P_bh [1024 x 1280] @ vt_bh^T
launch gemm_3xtf32 grid(head_dim / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(sc, vt, att, att, att, att, i32(seq_len), i32(kv_len), i32(kv_len), i32(kv_len), i32(hidden_size), i32(num_heads),
       i64(num_heads * seq_len * kv_len), i64(seq_len * kv_len), i64(num_heads * head_dim * kv_len), i64(head_dim * kv_len),
       i64(seq_len * hidden_size), i64(head_dim), i64(0), f32(1.0), i32(0), i32(1), i32(0), i32(0))
# output = hidden_states + gate_msa * (att @ to_out^T + to_out_bias); gate_msa = emb[b, 2D:3D]
launch gemm_3xtf32 grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128), 1) block(256) shared(110592)
  args(att, to_out_weight, output, to_out_bias, hidden_states, emb, i32(batch_size * seq_len), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(1), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), i64(0), f32(1.0), i32(2), i32(seq_len), i32(modulation_dim), i32(2 * hidden_size))
*/
