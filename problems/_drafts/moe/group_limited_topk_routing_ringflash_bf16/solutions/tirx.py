"""Group-limited top-8 routing in TIRx, a plain port (no tensor cores; slower than the baseline, which has
cuBLAS for the router product: spec `beats_baseline: false`). Two launches:
  1. router_logits: one warp per token; lane l holds the token's row as 16 chunks of 8 bf16 at columns
     256 j + 8 l (16-byte loads), and the warp takes the 256 dot products in fp32 (warp_sum each), the
     weight rows read the same way; fp32 logits to scratch.
  2. route: one thread per token, scalar code in registers/local memory: sigmoid scores plus the bias, each
     group's two best (strict comparisons in increasing index: ties to the lower index), the 4 best groups,
     the 8 best experts of those groups in descending order, and their unbiased scores normalized and scaled.
fp32 throughout, as reference.md; the draws keep every decision at least 1e-4 from a tie."""
from tvm.script import tirx as T

TOKENS, DIM, EXPERTS = 16384, 4096, 256
GROUPS, PER_GROUP, TOPK_GROUPS, TOPK = 8, 32, 4, 8
CHUNKS = DIM // 256                  # 16 chunks of 8 values per lane
WARPS = 8
assert TOKENS % WARPS == 0 and TOKENS % 256 == 0


@T.prim_func
def router_logits(h_ptr: T.handle, w_ptr: T.handle, l_ptr: T.handle):
    HID = T.match_buffer(h_ptr, (TOKENS, DIM), "bfloat16")
    WGT = T.match_buffer(w_ptr, (EXPERTS, DIM), "bfloat16")
    LOG = T.match_buffer(l_ptr, (TOKENS, EXPERTS), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS // WARPS])
    tx = T.thread_id([WARPS * 32])
    xv = T.alloc_buffer((CHUNKS * 8,), "bfloat16", scope="local")
    wv = T.alloc_buffer((CHUNKS * 8,), "bfloat16", scope="local")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    for j in T.unroll(CHUNKS):
        for e in T.vectorized(8):
            xv[j * 8 + e] = HID[bx * WARPS + tx // 32, j * 256 + tx % 32 * 8 + e]
    for ex in T.serial(EXPERTS):
        for j in T.unroll(CHUNKS):
            for e in T.vectorized(8):
                wv[j * 8 + e] = WGT[ex, j * 256 + tx % 32 * 8 + e]
        acc[0] = T.float32(0)
        for i in T.unroll(CHUNKS * 8):
            acc[0] = acc[0] + T.Cast("float32", xv[i]) * T.Cast("float32", wv[i])
        acc[0] = T.cuda.warp_sum(acc[0], 32)
        if tx % 32 == 0:
            LOG[bx * WARPS + tx // 32, ex] = acc[0]


@T.prim_func
def route(l_ptr: T.handle, b_ptr: T.handle, i_ptr: T.handle, o_ptr: T.handle, scale: T.float32, eps: T.float32):
    LOG = T.match_buffer(l_ptr, (TOKENS, EXPERTS), "float32")
    BIAS = T.match_buffer(b_ptr, (EXPERTS,), "bfloat16")
    IDX = T.match_buffer(i_ptr, (TOKENS, TOPK), "int64")
    OUT = T.match_buffer(o_ptr, (TOKENS, TOPK), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS // 256])
    tx = T.thread_id([256])
    score = T.alloc_buffer((EXPERTS,), "float32", scope="local")
    biased = T.alloc_buffer((EXPERTS,), "float32", scope="local")
    group = T.alloc_buffer((GROUPS,), "float32", scope="local")
    keep = T.alloc_buffer((GROUPS,), "int32", scope="local")
    taken = T.alloc_buffer((EXPERTS,), "int32", scope="local")
    pick = T.alloc_buffer((TOPK,), "int32", scope="local")
    best = T.alloc_buffer((1,), "float32", scope="local")
    best_i = T.alloc_buffer((1,), "int32", scope="local")
    second = T.alloc_buffer((1,), "float32", scope="local")
    rank = T.alloc_buffer((1,), "int32", scope="local")
    total = T.alloc_buffer((1,), "float32", scope="local")
    for e in T.serial(EXPERTS):
        score[e] = T.float32(1) / (T.float32(1) + T.exp(T.float32(0) - LOG[bx * 256 + tx, e]))
        biased[e] = score[e] + T.Cast("float32", BIAS[e])
        taken[e] = 0
    # each group's score: the sum of its two best biased scores
    for g in T.serial(GROUPS):
        best[0] = biased[g * PER_GROUP]
        best_i[0] = 0
        for j in T.serial(1, PER_GROUP):
            if biased[g * PER_GROUP + j] > best[0]:
                best[0] = biased[g * PER_GROUP + j]
                best_i[0] = j
        second[0] = T.min_value("float32")
        for j in T.serial(PER_GROUP):
            if j != best_i[0] and biased[g * PER_GROUP + j] > second[0]:
                second[0] = biased[g * PER_GROUP + j]
        group[g] = best[0] + second[0]
    # the 4 best groups (rank below 4; ties to the lower group)
    for g in T.serial(GROUPS):
        rank[0] = 0
        for h in T.serial(GROUPS):
            if group[h] > group[g] or (group[h] == group[g] and h < g):
                rank[0] = rank[0] + 1
        keep[g] = T.Select(rank[0] < TOPK_GROUPS, 1, 0)
    # the 8 best experts of the kept groups, best first
    total[0] = T.float32(0)
    for k in T.serial(TOPK):
        best[0] = T.min_value("float32")
        best_i[0] = -1
        for e in T.serial(EXPERTS):
            if keep[e // PER_GROUP] == 1 and taken[e] == 0 and (best_i[0] < 0 or biased[e] > best[0]):
                best[0] = biased[e]
                best_i[0] = e
        taken[best_i[0]] = 1
        pick[k] = best_i[0]
        total[0] = total[0] + score[best_i[0]]
    for k in T.serial(TOPK):
        IDX[bx * 256 + tx, k] = T.Cast("int64", pick[k])
        OUT[bx * 256 + tx, k] = score[pick[k]] / (total[0] + eps) * scale


MKB_PLAN = """/* mkb:plan
scratch logits fp32[num_tokens * num_experts]
launch router_logits grid(num_tokens / 8) block(256) args(hidden_states, weight, logits)
launch route grid(num_tokens / 256) block(256)
  args(logits, expert_bias, topk_indices, topk_weights, f32(routed_scaling_factor), f32(weight_sum_eps))
*/"""
