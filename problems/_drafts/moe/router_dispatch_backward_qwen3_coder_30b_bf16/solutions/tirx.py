"""Qwen3-Coder MoE router backward, a TIRx port of solutions/cuda.cu: the same three launches, tiles, fragment
orders and rounding points.
  1. grad_logits: one warp per token, lane l holding experts l + 32 j (fp32, as the reference): the quotient
     rule of w / S (grad_sum summed over k in order), the mask gradient of each selected expert, the softmax
     backward (dot by a warp butterfly sum), rounded to bf16 into scratch gl [T, 128].
  2. router_backward_gemms: a CTA per (128 hidden columns, 1024 tokens), 8 warps; gate_weight[:, cols]
     (128 x 128) stays in shared memory; for each 64-token sub-tile (double-buffered cp.async) it writes
     grad_hidden_states[sub, cols] = G (64 x 128 experts) @ W (warps of 32 x 32, bf16 mma.sync m16n8k16, one
     rounding) and accumulates G^T (128 experts x 64 tokens) @ X (64 x 128 columns) into a 128 x 128 fp32
     tile in registers (warps of 32 x 64), which goes to a per-chunk partial at the end (no atomics).
     Tiles hold 128 bf16 per row with 16-byte chunk c of row r at c ^ (r % 8); A fragments by ldmatrix.x4
     (ldmatrix.x4.trans for G^T), B fragments by ldmatrix.x4.trans.
  3. reduce_partials: grad_gate_weight = bf16(sum of the 64 chunk partials, in chunk order)."""
from tvm.script import tirx as T

TOKENS, HIDDEN = 65536, 2048
EXPERTS, TOPK = 128, 8
CHUNK, SUB, COLS = 1024, 64, 128
CHUNKS = TOKENS // CHUNK
WS, GS, XS = 0, 16384, 32768           # bf16 offsets in shared memory: W tile, G stages, X stages
assert TOKENS % CHUNK == 0 and HIDDEN % COLS == 0


@T.prim_func
def grad_logits(p_ptr: T.handle, sel_ptr: T.handle, s_ptr: T.handle, grw_ptr: T.handle, gem_ptr: T.handle,
                grl_ptr: T.handle, gl_ptr: T.handle):
    PROBS = T.match_buffer(p_ptr, (TOKENS * EXPERTS,), "float32")
    SEL = T.match_buffer(sel_ptr, (TOKENS * TOPK,), "int64")
    SUM = T.match_buffer(s_ptr, (TOKENS,), "float32")
    GRW = T.match_buffer(grw_ptr, (TOKENS * TOPK,), "bfloat16")
    GEM = T.match_buffer(gem_ptr, (EXPERTS * TOPK * TOKENS,), "bfloat16")
    GRL = T.match_buffer(grl_ptr, (TOKENS * EXPERTS,), "bfloat16")
    GL = T.match_buffer(gl_ptr, (TOKENS * EXPERTS,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS // 8])
    tx = T.thread_id([256])
    sel = T.alloc_buffer((TOPK,), "int32", scope="local")
    gw = T.alloc_buffer((TOPK,), "float32", scope="local")
    p = T.alloc_buffer((4,), "float32", scope="local")
    gp = T.alloc_buffer((4,), "float32", scope="local")
    sc = T.alloc_buffer((4,), "float32", scope="local")   # S, grad_sum, b, dot
    for k in T.unroll(TOPK):
        sel[k] = T.Cast("int32", SEL[(bx * 8 + tx // 32) * TOPK + k])
        gw[k] = T.Cast("float32", GRW[(bx * 8 + tx // 32) * TOPK + k])
    sc[0] = SUM[bx * 8 + tx // 32]
    sc[1] = T.float32(0)
    for k in T.unroll(TOPK):
        sc[1] = sc[1] + gw[k] * PROBS[(bx * 8 + tx // 32) * EXPERTS + sel[k]] / sc[0]
    sc[2] = sc[1] / sc[0]
    sc[3] = T.float32(0)
    for j in T.unroll(4):
        p[j] = PROBS[(bx * 8 + tx // 32) * EXPERTS + tx % 32 + 32 * j]
        gp[j] = T.Cast("float32", GRL[(bx * 8 + tx // 32) * EXPERTS + tx % 32 + 32 * j])
        for k in T.unroll(TOPK):
            if sel[k] == tx % 32 + 32 * j:
                gp[j] = gp[j] + ((gw[k] / sc[0] - sc[2])
                                 + T.Cast("float32", GEM[((tx % 32 + 32 * j) * TOPK + k) * TOKENS + bx * 8 + tx // 32]))
        sc[3] = sc[3] + gp[j] * p[j]
    sc[3] = T.cuda.warp_sum(sc[3], 32)
    for j in T.unroll(4):
        GL[(bx * 8 + tx // 32) * EXPERTS + tx % 32 + 32 * j] = T.Cast("bfloat16", p[j] * (gp[j] - sc[3]))


@T.macro
def load_tile(sm, base, SRC, src0, stride, rows, tx):
    # rows x 128 bf16 (global row stride `stride`) into the swizzled tile at sm[base]
    for i in T.unroll(rows * 16 // 256):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([base + (tx // 16 + 16 * i) * 128 + T.bitwise_xor(tx % 16, tx // 16 % 8) * 8]),
            SRC.ptr_to([src0 + (tx // 16 + 16 * i) * stride + tx % 16 * 8]), 16)


@T.prim_func
def router_backward_gemms(gl_ptr: T.handle, w_ptr: T.handle, x_ptr: T.handle, gh_ptr: T.handle, part_ptr: T.handle):
    GL = T.match_buffer(gl_ptr, (TOKENS * EXPERTS,), "bfloat16")
    W = T.match_buffer(w_ptr, (EXPERTS * HIDDEN,), "bfloat16")
    X = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    GH = T.match_buffer(gh_ptr, (TOKENS * HIDDEN,), "bfloat16")
    PART = T.match_buffer(part_ptr, (CHUNKS * EXPERTS * HIDDEN,), "float32")
    T.device_entry()
    nb, chunk = T.cta_id([HIDDEN // COLS, CHUNKS])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((49152,), "bfloat16", scope="shared.dyn", align=1024)
    accg = T.alloc_buffer((64,), "float32", scope="local")     # [mt][nt][v]: experts 32 (warp / 2) .., columns 64 (warp % 2) ..
    acch = T.alloc_buffer((32,), "float32", scope="local")     # [mt][nt][v]: tokens 32 (warp / 4) .., columns 32 (warp % 4) ..
    af = T.alloc_buffer((8,), "uint32", scope="local")
    bfr = T.alloc_buffer((16,), "uint32", scope="local")
    pk = T.alloc_buffer((2,), "bfloat16", scope="local")
    load_tile(sm, WS, W, nb * COLS, HIDDEN, EXPERTS, tx)
    load_tile(sm, GS, GL, chunk * CHUNK * EXPERTS, EXPERTS, SUB, tx)
    load_tile(sm, XS, X, chunk * CHUNK * HIDDEN + nb * COLS, HIDDEN, SUB, tx)
    T.ptx.cp.async_.commit_group()
    for v in T.unroll(64):
        accg[v] = T.float32(0)
    for sub in T.serial(CHUNK // SUB):
        if sub + 1 < CHUNK // SUB:
            load_tile(sm, GS + (sub + 1) % 2 * 8192, GL, (chunk * CHUNK + (sub + 1) * SUB) * EXPERTS, EXPERTS, SUB, tx)
            load_tile(sm, XS + (sub + 1) % 2 * 8192, X, (chunk * CHUNK + (sub + 1) * SUB) * HIDDEN + nb * COLS, HIDDEN, SUB, tx)
        T.ptx.cp.async_.commit_group()
        T.ptx.cp.async_.wait_group(1)
        T.cuda.cta_sync()
        # grad_hidden_states[sub tokens, cols] = G (64 x 128) @ W (128 x 128)
        for v in T.unroll(32):
            acch[v] = T.float32(0)
        for s in T.unroll(EXPERTS // 16):
            for mt in T.unroll(2):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                    sm.ptr_to([GS + sub % 2 * 8192 + (tx // 128 * 32 + mt * 16 + tx % 16) * 128
                               + T.bitwise_xor(s * 2 + tx % 32 // 16, tx % 8) * 8]))
            for np_ in T.unroll(2):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                    bfr[np_ * 4], bfr[np_ * 4 + 1], bfr[np_ * 4 + 2], bfr[np_ * 4 + 3],
                    sm.ptr_to([WS + (s * 16 + tx % 32 // 8 % 2 * 8 + tx % 8) * 128
                               + T.bitwise_xor(tx // 32 % 4 * 4 + np_ * 2 + tx % 32 // 16, tx % 8) * 8]))
            for mt in T.unroll(2):
                for nt in T.unroll(4):
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acch[(mt * 4 + nt) * 4], acch[(mt * 4 + nt) * 4 + 1], acch[(mt * 4 + nt) * 4 + 2], acch[(mt * 4 + nt) * 4 + 3],
                        af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                        bfr[nt // 2 * 4 + nt % 2 * 2], bfr[nt // 2 * 4 + nt % 2 * 2 + 1],
                        acch[(mt * 4 + nt) * 4], acch[(mt * 4 + nt) * 4 + 1], acch[(mt * 4 + nt) * 4 + 2], acch[(mt * 4 + nt) * 4 + 3])
        for mt in T.unroll(2):
            for nt in T.unroll(4):
                for h in T.unroll(2):
                    for e in T.unroll(2):
                        pk[e] = T.Cast("bfloat16", acch[(mt * 4 + nt) * 4 + h * 2 + e])
                    for e in T.vectorized(2):
                        GH[(chunk * CHUNK + sub * SUB + tx // 128 * 32 + mt * 16 + tx % 32 // 4 + 8 * h) * HIDDEN
                           + nb * COLS + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = pk[e]
        # grad_gate_weight[:, cols] += G^T (128 x 64) @ X (64 x 128)
        for s in T.unroll(SUB // 16):
            for mt in T.unroll(2):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                    af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                    sm.ptr_to([GS + sub % 2 * 8192 + (s * 16 + tx % 32 // 16 * 8 + tx % 8) * 128
                               + T.bitwise_xor(tx // 64 * 4 + mt * 2 + tx % 32 // 8 % 2, tx % 8) * 8]))
            for np_ in T.unroll(4):
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16(
                    bfr[np_ * 4], bfr[np_ * 4 + 1], bfr[np_ * 4 + 2], bfr[np_ * 4 + 3],
                    sm.ptr_to([XS + sub % 2 * 8192 + (s * 16 + tx % 32 // 8 % 2 * 8 + tx % 8) * 128
                               + T.bitwise_xor(tx // 32 % 2 * 8 + np_ * 2 + tx % 32 // 16, tx % 8) * 8]))
            for mt in T.unroll(2):
                for nt in T.unroll(8):
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        accg[(mt * 8 + nt) * 4], accg[(mt * 8 + nt) * 4 + 1], accg[(mt * 8 + nt) * 4 + 2], accg[(mt * 8 + nt) * 4 + 3],
                        af[mt * 4], af[mt * 4 + 1], af[mt * 4 + 2], af[mt * 4 + 3],
                        bfr[nt // 2 * 4 + nt % 2 * 2], bfr[nt // 2 * 4 + nt % 2 * 2 + 1],
                        accg[(mt * 8 + nt) * 4], accg[(mt * 8 + nt) * 4 + 1], accg[(mt * 8 + nt) * 4 + 2], accg[(mt * 8 + nt) * 4 + 3])
        T.cuda.cta_sync()                # the next iteration refills this stage
    for mt in T.unroll(2):
        for nt in T.unroll(8):
            for h in T.unroll(2):
                for e in T.vectorized(2):
                    PART[(chunk * EXPERTS + tx // 64 * 32 + mt * 16 + tx % 32 // 4 + 8 * h) * HIDDEN
                         + nb * COLS + tx // 32 % 2 * 64 + nt * 8 + tx % 4 * 2 + e] = accg[(mt * 8 + nt) * 4 + h * 2 + e]


@T.prim_func
def reduce_partials(part_ptr: T.handle, gw_ptr: T.handle):
    PART = T.match_buffer(part_ptr, (CHUNKS * EXPERTS * HIDDEN,), "float32")
    GW = T.match_buffer(gw_ptr, (EXPERTS * HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([EXPERTS * HIDDEN // 256])
    tx = T.thread_id([256])
    s = T.alloc_buffer((1,), "float32", scope="local")
    s[0] = T.float32(0)
    for c in T.serial(CHUNKS):
        s[0] = s[0] + PART[c * (EXPERTS * HIDDEN) + bx * 256 + tx]
    GW[bx * 256 + tx] = T.Cast("bfloat16", s[0])


MKB_PLAN = """/* mkb:plan
scratch gl bf16[num_tokens * num_experts]
scratch partial fp32[(num_tokens / 1024) * num_experts * hidden_size]
launch grad_logits grid(num_tokens / 8) block(256)
  args(routing_probs, selected_experts, routing_weights_sum, grad_routing_weights, grad_expert_mask, grad_router_logits, gl)
launch router_backward_gemms grid(hidden_size / 128, num_tokens / 1024) block(256) shared(98304)
  args(gl, gate_weight, hidden_states, grad_hidden_states, partial)
launch reduce_partials grid(num_experts * hidden_size / 256) block(256) args(partial, grad_gate_weight)
*/"""
