"""Fused backward of embedding lookup + RMSNorm (Jamba sizes: hidden 4096, vocabulary 65536) in TIRx: the
algorithm of solutions/cuda.cu.

1. count_ids: counts[v] = how many tokens have id v (int atomics into a zeroed scratch).
2. prepare_rows: one CTA per vocabulary row: an absent id gets its bf16 zero row; a shared id gets a zeroed
   fp32 accumulator row in `sums`.
3. rmsnorm_backward (persistent, 264 CTAs of 512 threads x 8 columns): per token, gh = rstd * (g - n *
   mean(g * n)) in fp32 with one CTA reduction (warp shuffles, then 16 warp partials in shared memory,
   double-buffered by row parity); the weight gradient summed per thread in registers; gh goes straight
   to its bf16 table row when its id is unique, else into the id's accumulator row with fp32 atomics.
4. finish_rows: the shared ids' accumulator rows, rounded once to bf16.
5. grad_weight_reduce: sums the 264 per-CTA weight-gradient rows and rounds once.
All arithmetic is fp32; the only roundings are the final bf16 casts (reference.md).

The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOKENS = 64 * 256
HIDDEN = 4096
VOCAB = 65536
VEC = 8                          # columns per thread
THREADS = HIDDEN // VEC          # 512
WARPS = THREADS // 32            # 16
CTAS = 264                       # 2 per SM x 132 SMs
STEPS = (TOKENS + CTAS - 1) // CTAS  # 63: the most tokens one CTA takes

assert THREADS * VEC == HIDDEN and TOKENS % 256 == 0


@T.prim_func
def count_ids(ids_ptr: T.handle, counts_ptr: T.handle):
    a_ids = T.match_buffer(ids_ptr, (TOKENS,), "int64")
    b_counts = T.match_buffer(counts_ptr, (VOCAB,), "int32")
    T.device_entry()
    bx = T.cta_id([TOKENS // 256])
    tx = T.thread_id([256])
    T.evaluate(T.cuda.atomic_add(T.address_of(b_counts[T.Cast("int32", a_ids[bx * 256 + tx])]), 1))


@T.prim_func
def prepare_rows(counts_ptr: T.handle, table_ptr: T.handle, sums_ptr: T.handle):
    a_counts = T.match_buffer(counts_ptr, (VOCAB,), "int32")
    b_table = T.match_buffer(table_ptr, (VOCAB * HIDDEN,), "bfloat16")
    c_sums = T.match_buffer(sums_ptr, (VOCAB * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([VOCAB])
    tx = T.thread_id([THREADS])
    if a_counts[bx] == 0:
        for k in T.vectorized(VEC):
            b_table[bx * HIDDEN + tx * VEC + k] = T.bfloat16(0)
    if a_counts[bx] > 1:
        for k in T.vectorized(4):
            c_sums[bx * HIDDEN + tx * VEC + k] = T.float32(0)
        for k in T.vectorized(4):
            c_sums[bx * HIDDEN + tx * VEC + 4 + k] = T.float32(0)


@T.prim_func
def rmsnorm_backward(go_ptr: T.handle, ids_ptr: T.handle, hs_ptr: T.handle, rstd_ptr: T.handle,
                     weight_ptr: T.handle, counts_ptr: T.handle, table_ptr: T.handle, sums_ptr: T.handle,
                     gw_partial_ptr: T.handle):
    a_go = T.match_buffer(go_ptr, (TOKENS * HIDDEN,), "bfloat16")
    b_ids = T.match_buffer(ids_ptr, (TOKENS,), "int64")
    c_hs = T.match_buffer(hs_ptr, (TOKENS * HIDDEN,), "float32")
    d_rstd = T.match_buffer(rstd_ptr, (TOKENS,), "float32")
    e_weight = T.match_buffer(weight_ptr, (HIDDEN,), "bfloat16")
    f_counts = T.match_buffer(counts_ptr, (VOCAB,), "int32")
    g_table = T.match_buffer(table_ptr, (VOCAB * HIDDEN,), "bfloat16")
    h_sums = T.match_buffer(sums_ptr, (VOCAB * HIDDEN,), "float32")
    i_gw_partial = T.match_buffer(gw_partial_ptr, (CTAS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([THREADS])
    wp = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    go = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    hs = T.alloc_buffer((VEC,), "float32", scope="local")
    gh = T.alloc_buffer((VEC,), "float32", scope="local")
    out = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    gw = T.alloc_buffer((VEC,), "float32", scope="local")
    sc = T.alloc_buffer((2,), "float32", scope="local")     # [0]: rstd, [1]: sum g * n, then its mean
    vid = T.alloc_buffer((1,), "int32", scope="local")      # this token's id
    red = T.alloc_buffer((2 * WARPS,), "float32", scope="shared")   # [row parity][warp]
    for k in T.vectorized(VEC):
        wp[k] = e_weight[tx * VEC + k]
    for k in T.unroll(VEC):
        gw[k] = T.float32(0)
    for i in T.serial(STEPS):
        # token bx + i * CTAS (the condition is uniform over the CTA: its barrier is safe)
        if bx + i * CTAS < TOKENS:
            for k in T.vectorized(VEC):
                go[k] = a_go[(bx + i * CTAS) * HIDDEN + tx * VEC + k]
            for k in T.vectorized(4):
                hs[k] = c_hs[(bx + i * CTAS) * HIDDEN + tx * VEC + k]
            for k in T.vectorized(4):
                hs[4 + k] = c_hs[(bx + i * CTAS) * HIDDEN + tx * VEC + 4 + k]
            sc[0] = d_rstd[bx + i * CTAS]
            # gw += dy * n and the sum of g * n, with n = hs * rstd, g = dy * w
            sc[1] = T.float32(0)
            for k in T.unroll(VEC):
                gw[k] = gw[k] + T.Cast("float32", go[k]) * (hs[k] * sc[0])
                sc[1] = sc[1] + (T.Cast("float32", go[k]) * T.Cast("float32", wp[k])) * (hs[k] * sc[0])
            sc[1] = T.cuda.warp_sum(sc[1], 32)
            if tx % 32 == 0:
                red[i % 2 * WARPS + tx // 32] = sc[1]
            T.cuda.cta_sync()
            sc[1] = T.float32(0)
            for w in T.unroll(WARPS):
                sc[1] = sc[1] + red[i % 2 * WARPS + w]
            sc[1] = sc[1] / T.float32(HIDDEN)   # (g * n).mean(-1)
            for k in T.unroll(VEC):
                gh[k] = sc[0] * (T.Cast("float32", go[k]) * T.Cast("float32", wp[k]) - (hs[k] * sc[0]) * sc[1])
            vid[0] = T.Cast("int32", b_ids[bx + i * CTAS])
            if f_counts[vid[0]] == 1:
                for k in T.unroll(VEC):
                    out[k] = T.Cast("bfloat16", gh[k])
                for k in T.vectorized(VEC):
                    g_table[vid[0] * HIDDEN + tx * VEC + k] = out[k]
            else:
                for k in T.unroll(VEC):
                    T.evaluate(T.cuda.atomic_add(T.address_of(h_sums[vid[0] * HIDDEN + tx * VEC + k]), gh[k]))
    for k in T.vectorized(4):
        i_gw_partial[bx * HIDDEN + tx * VEC + k] = gw[k]
    for k in T.vectorized(4):
        i_gw_partial[bx * HIDDEN + tx * VEC + 4 + k] = gw[4 + k]


@T.prim_func
def finish_rows(counts_ptr: T.handle, sums_ptr: T.handle, table_ptr: T.handle):
    a_counts = T.match_buffer(counts_ptr, (VOCAB,), "int32")
    b_sums = T.match_buffer(sums_ptr, (VOCAB * HIDDEN,), "float32")
    c_table = T.match_buffer(table_ptr, (VOCAB * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([VOCAB])
    tx = T.thread_id([THREADS])
    s = T.alloc_buffer((VEC,), "float32", scope="local")
    out = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    if a_counts[bx] > 1:
        for k in T.vectorized(4):
            s[k] = b_sums[bx * HIDDEN + tx * VEC + k]
        for k in T.vectorized(4):
            s[4 + k] = b_sums[bx * HIDDEN + tx * VEC + 4 + k]
        for k in T.unroll(VEC):
            out[k] = T.Cast("bfloat16", s[k])
        for k in T.vectorized(VEC):
            c_table[bx * HIDDEN + tx * VEC + k] = out[k]


@T.prim_func
def grad_weight_reduce(gw_partial_ptr: T.handle, grad_weight_ptr: T.handle):
    # grad_weight[c] = bf16(sum over the 264 parts of gw_partial[p, c]); thread t: column lane t % 32, part
    # lane t // 32 (parts t // 32, t // 32 + 32, ...); then the 32 part lanes of a column are summed in order.
    a_gw_partial = T.match_buffer(gw_partial_ptr, (CTAS * HIDDEN,), "float32")
    b_grad_weight = T.match_buffer(grad_weight_ptr, (HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([HIDDEN // 32])
    tx = T.thread_id([1024])
    acc = T.alloc_buffer((1,), "float32", scope="local")
    part_sums = T.alloc_buffer((32 * 33,), "float32", scope="shared")
    acc[0] = T.float32(0)
    for m in T.unroll((CTAS + 31) // 32):
        if tx // 32 + m * 32 < CTAS:
            acc[0] = acc[0] + a_gw_partial[(tx // 32 + m * 32) * HIDDEN + bx * 32 + tx % 32]
    part_sums[tx // 32 * 33 + tx % 32] = acc[0]
    T.cuda.cta_sync()
    if tx < 32:
        acc[0] = T.float32(0)
        for p in T.unroll(32):
            acc[0] = acc[0] + part_sums[p * 33 + tx]
        b_grad_weight[bx * 32 + tx] = T.Cast("bfloat16", acc[0])


MKB_PLAN = """/* mkb:plan
# 264 = 2 resident 512-thread CTAs per SM x 132 SMs, as cuda.cu.
scratch counts int32[vocab_size] zeroed
scratch sums fp32[vocab_size * hidden_size]
scratch gw_partial fp32[264 * hidden_size]
launch count_ids grid(batch_size * seq_len / 256) block(256) args(input_ids, counts)
launch prepare_rows grid(vocab_size) block(512) args(counts, grad_embedding, sums)
launch rmsnorm_backward grid(264) block(512)
  args(grad_output, input_ids, hidden_states_fp32, rstd, norm_weight, counts, grad_embedding, sums, gw_partial)
launch finish_rows grid(vocab_size) block(512) args(counts, sums, grad_embedding)
launch grad_weight_reduce grid(hidden_size / 32) block(1024) args(gw_partial, grad_weight)
*/"""
