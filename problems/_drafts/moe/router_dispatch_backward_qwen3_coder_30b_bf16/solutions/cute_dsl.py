"""router_dispatch_backward_qwen3_coder_30b_bf16 in CuTe DSL: the algorithm of solutions/cuda.cu, three
launches:
  1. grad_logits_kernel: a warp per token runs the routing backward in registers (fp32, the reference's op
     order: grad_sum = sum_k (gw * w) / S, grad_unnorm = gw / S - grad_sum / S, + gm scattered to the
     selected experts, dot by a butterfly, p * (gp - dot)) and writes the bf16 gradient of the logits;
     lane l holds experts l + 32 j;
  2. router_backward_gemms: a CTA per (1024-token chunk, 128 hidden columns), 8 warps; per 64-token
     sub-tile (double-buffered cp.async) it writes grad_hidden_states[sub, cols] = G @ W[:, cols] (bf16
     mma.sync, fp32 accumulation, rounded once) and accumulates G.T @ X[sub, cols] into a 128 x 128 fp32
     tile in registers; hidden_states is read once; the tile goes to a per-chunk partial (no atomics);
  3. reduce_partials: the 64 partials summed in chunk order and rounded to bf16 once.
Fragments by ldmatrix / ldmatrix.trans (inline PTX) on XOR-swizzled tiles of 128 bf16 per row, the MMA
mma.sync m16n8k16 as inline PTX. Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

F32, BF16 = cutlass.Float32, cutlass.BFloat16
I32, I64, U32, U8 = cutlass.Int32, cutlass.Int64, cutlass.Uint32, cutlass.Uint8

T = 65536            # num_tokens
H = 2048             # hidden_size
E = 128              # num_experts
TOPK = 8
CHUNK = 1024         # tokens per CTA of kernel 2
SUB = 64             # tokens per pipeline stage
COLS = 128           # hidden columns per CTA
assert T % CHUNK == 0 and H % COLS == 0 and E * TOPK * T < 2 ** 31 and T * H < 2 ** 31


@cute.jit
def cp_async16(dst_smem, src_gmem):
    cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                         read_only_args=[dst_smem.toint(), src_gmem.toint()])


@cute.jit
def ldsm4(addr_smem):
    return cute.arch.inline_ptx("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
                                write_only_types=[U32] * 4, read_only_args=[addr_smem.toint()])


@cute.jit
def ldsm4t(addr_smem):
    return cute.arch.inline_ptx(
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{$w0}, {$w1}, {$w2}, {$w3}}, [{$r0}];",
        write_only_types=[U32] * 4, read_only_args=[addr_smem.toint()])


@cute.jit
def mma_bf16(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1):
    return cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, c0, c1, c2, c3])


@cute.jit
def pack_bf16x2(lo, hi):
    """bf16x2 word (lo in the low half), each value rounded to nearest even once."""
    return cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                read_only_args=[hi, lo])


@cute.jit
def swz(row, chunk):
    """Byte offset of 16-byte chunk `chunk` (8 bf16) of row `row` in a tile of 128 bf16 per row."""
    return row * 256 + ((chunk ^ (row & 7)) << 4)


@cute.jit
def load_tile(tile, src, stride: cutlass.Constexpr, rows: cutlass.Constexpr, tid):
    """`rows` rows of 128 bf16 (global row stride `stride` elements) into a swizzled tile."""
    for i in cutlass.range_constexpr(rows * 16 // 256):
        c = tid + 256 * i
        row = c >> 4
        chunk = c & 15
        cp_async16(tile + swz(row, chunk), src + (row * stride + chunk * 8))


@cute.jit
def mma_tile(acc: cute.Tensor, mt, nt, a: cute.Tensor, b: cute.Tensor):
    d0, d1, d2, d3 = mma_bf16(acc[mt, nt, 0], acc[mt, nt, 1], acc[mt, nt, 2], acc[mt, nt, 3],
                              a[mt, 0], a[mt, 1], a[mt, 2], a[mt, 3],
                              b[nt // 2, (nt % 2) * 2], b[nt // 2, (nt % 2) * 2 + 1])
    acc[mt, nt, 0] = d0
    acc[mt, nt, 1] = d1
    acc[mt, nt, 2] = d2
    acc[mt, nt, 3] = d3


@cute.jit
def put4(r: cute.Tensor, i, x):
    x0, x1, x2, x3 = x
    r[i, 0] = x0
    r[i, 1] = x1
    r[i, 2] = x2
    r[i, 3] = x3


@cute.kernel
def grad_logits_kernel(routing_probs: cute.Pointer, selected_experts: cute.Pointer, routing_weights_sum: cute.Pointer,
                       grad_routing_weights: cute.Pointer, grad_expert_mask: cute.Pointer,
                       grad_router_logits: cute.Pointer, grad_logits: cute.Pointer, tokens: cutlass.Int32):
    t = (cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]) >> 5
    lane = cute.arch.lane_idx()
    gp_in = cute.make_tensor(routing_probs, cute.make_layout((T, E), stride=(E, 1)))
    gsel = cute.make_tensor(selected_experts, cute.make_layout((T, TOPK), stride=(TOPK, 1)))
    gS = cute.make_tensor(routing_weights_sum, cute.make_layout(T))
    ggw = cute.make_tensor(grad_routing_weights, cute.make_layout((T, TOPK), stride=(TOPK, 1)))
    gm_t = cute.make_tensor(grad_expert_mask, cute.make_layout((E, TOPK, T), stride=(TOPK * T, T, 1)))
    grl = cute.make_tensor(grad_router_logits, cute.make_layout((T, E), stride=(E, 1)))
    gout = cute.make_tensor(grad_logits, cute.make_layout((T, E), stride=(E, 1)))
    if t < tokens:                           # a whole warp
        S = gS[t]
        sel = cute.make_rmem_tensor((TOPK,), I32)
        gw = cute.make_rmem_tensor((TOPK,), F32)
        grad_sum = F32(0.0)
        for k in cutlass.range_constexpr(TOPK):
            sel[k] = gsel[t, k].to(I32)
            gw[k] = ggw[t, k].to(F32)
            grad_sum = grad_sum + (gw[k] * gp_in[t, sel[k]]) / S
        b = grad_sum / S
        p = cute.make_rmem_tensor((4,), F32)
        gp = cute.make_rmem_tensor((4,), F32)
        dot = F32(0.0)
        for j in cutlass.range_constexpr(4):
            e = lane + 32 * j
            p[j] = gp_in[t, e]
            gp[j] = grl[t, e].to(F32)
            for k in cutlass.range_constexpr(TOPK):
                if sel[k] == e:
                    gm = gm_t[e, k, t].to(F32)
                    gp[j] = gp[j] + ((gw[k] / S - b) + gm)
            dot = dot + gp[j] * p[j]
        for o in cutlass.range_constexpr(5):
            dot = dot + cute.arch.shuffle_sync_bfly(dot, 16 >> o)
        for j in cutlass.range_constexpr(4):
            gout[t, lane + 32 * j] = (p[j] * (gp[j] - dot)).to(BF16)


@cute.kernel
def router_backward_gemms(grad_logits: cute.Pointer, gate_weight: cute.Pointer, hidden_states: cute.Pointer,
                          grad_hidden_states: cute.Pointer, partial: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    nb, chunk, _ = cute.arch.block_idx()
    warp = tid >> 5
    lane = tid & 31
    smem = cute.arch.get_dyn_smem(U8, alignment=1024)
    ws = smem                                  # gate_weight[:, cols]: 128 experts x 128 columns
    gs0 = smem + 32768                         # grad_logits: 2 x (64 tokens x 128 experts)
    xs0 = smem + 65536                         # hidden_states: 2 x (64 tokens x 128 columns)
    tok0 = chunk * CHUNK
    col0 = nb * COLS
    gho = cute.make_tensor(cute.recast_ptr(grad_hidden_states, dtype=U32),
                           cute.make_layout((T, H // 2), stride=(H // 2, 1)))

    load_tile(ws, gate_weight + col0, H, E, tid)
    load_tile(gs0, grad_logits + tok0 * E, E, SUB, tid)
    load_tile(xs0, hidden_states + (tok0 * H + col0), H, SUB, tid)
    cute.arch.cp_async_commit_group()

    # grad_gate_weight tile: experts (warp / 2) * 32 .. + 32, columns (warp % 2) * 64 .. + 64
    accg = cute.make_rmem_tensor(cute.make_layout((2, 8, 4), stride=(32, 4, 1)), F32)
    accg.fill(0.0)
    mi = lane >> 3
    r8 = lane & 7
    g = lane >> 2
    q = lane & 3
    for sub in cutlass.range(CHUNK // SUB):
        st = sub & 1
        if sub + 1 < CHUNK // SUB:
            nxt = tok0 + (sub + 1) * SUB
            load_tile(gs0 + (st ^ 1) * 16384, grad_logits + nxt * E, E, SUB, tid)
            load_tile(xs0 + (st ^ 1) * 16384, hidden_states + (nxt * H + col0), H, SUB, tid)
        cute.arch.cp_async_commit_group()
        cute.arch.cp_async_wait_group(1)
        cute.arch.sync_threads()
        gbase = gs0 + st * 16384
        xbase = xs0 + st * 16384

        # grad_hidden_states[sub tokens, cols] = G (64 x 128 experts) @ W (128 experts x 128 cols)
        wm = warp >> 2                          # 32 tokens x 32 columns per warp
        wn = warp & 3
        acch = cute.make_rmem_tensor(cute.make_layout((2, 4, 4), stride=(16, 4, 1)), F32)
        acch.fill(0.0)
        for s in cutlass.range_constexpr(E // 16):
            a = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
            b = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
            for mt in cutlass.range_constexpr(2):
                put4(a, mt, ldsm4(gbase + swz(wm * 32 + mt * 16 + (lane & 15), s * 2 + (lane >> 4))))
            for np_ in cutlass.range_constexpr(2):
                put4(b, np_, ldsm4t(ws + swz(s * 16 + (mi & 1) * 8 + r8, (wn * 32 + np_ * 16) // 8 + (mi >> 1))))
            for mt in cutlass.range_constexpr(2):
                for nt in cutlass.range_constexpr(4):
                    mma_tile(acch, mt, nt, a, b)
        for mt in cutlass.range_constexpr(2):
            for nt in cutlass.range_constexpr(4):
                row = tok0 + sub * SUB + wm * 32 + mt * 16 + g
                cw = (col0 + wn * 32 + nt * 8) // 2 + q
                gho[row, cw] = pack_bf16x2(acch[mt, nt, 0], acch[mt, nt, 1])
                gho[row + 8, cw] = pack_bf16x2(acch[mt, nt, 2], acch[mt, nt, 3])

        # grad_gate_weight[:, cols] += G.T (128 experts x 64 tokens) @ X (64 tokens x 128 cols)
        wm2 = warp >> 1                         # 32 experts x 64 columns per warp
        wn2 = warp & 1
        for s in cutlass.range_constexpr(SUB // 16):
            a = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
            b = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), U32)
            for mt in cutlass.range_constexpr(2):
                put4(a, mt, ldsm4t(gbase + swz(s * 16 + (mi >> 1) * 8 + r8, (wm2 * 32 + mt * 16) // 8 + (mi & 1))))
            for np_ in cutlass.range_constexpr(4):
                put4(b, np_, ldsm4t(xbase + swz(s * 16 + (mi & 1) * 8 + r8, (wn2 * 64 + np_ * 16) // 8 + (mi >> 1))))
            for mt in cutlass.range_constexpr(2):
                for nt in cutlass.range_constexpr(8):
                    mma_tile(accg, mt, nt, a, b)
        cute.arch.sync_threads()                # the next iteration refills this stage

    wm = warp >> 1
    wn = warp & 1
    gpart = cute.make_tensor(partial, cute.make_layout((T // CHUNK, E, H // 2, 2), stride=(E * H, H, 2, 1)))
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    for mt in cutlass.range_constexpr(2):
        for nt in cutlass.range_constexpr(8):
            e = wm * 32 + mt * 16 + g
            cp = (col0 + wn * 64 + nt * 8) // 2 + q
            v = cute.make_rmem_tensor(cute.make_layout((2, 2), stride=(2, 1)), F32)
            v[0, 0] = accg[mt, nt, 0]
            v[0, 1] = accg[mt, nt, 1]
            v[1, 0] = accg[mt, nt, 2]
            v[1, 1] = accg[mt, nt, 3]
            cute.copy(c8, v[0, None], gpart[chunk, e, cp, None])
            cute.copy(c8, v[1, None], gpart[chunk, e + 8, cp, None])


@cute.kernel
def reduce_partials(partial: cute.Pointer, grad_gate_weight: cute.Pointer, chunks: cutlass.Int32):
    i = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gpart = cute.make_tensor(partial, cute.make_layout((T // CHUNK, E * H), stride=(E * H, 1)))
    gout = cute.make_tensor(grad_gate_weight, cute.make_layout(E * H))
    if i < E * H:
        s = F32(0.0)
        for c in cutlass.range(chunks):
            s = s + gpart[c, i]
        gout[i] = s.to(BF16)


MKB_PLAN = """/* mkb:plan
scratch gl bf16[num_tokens * num_experts]
scratch partial fp32[(num_tokens / 1024) * num_experts * hidden_size]
launch grad_logits_kernel grid(ceil_div(num_tokens * 32, 256)) block(256)
  args(routing_probs, selected_experts, routing_weights_sum, grad_routing_weights, grad_expert_mask,
       grad_router_logits, gl, i32(num_tokens))
launch router_backward_gemms grid(hidden_size / 128, num_tokens / 1024) block(256) shared(98304)
  args(gl, gate_weight, hidden_states, grad_hidden_states, partial)
launch reduce_partials grid(ceil_div(num_experts * hidden_size, 256)) block(256)
  args(partial, grad_gate_weight, i32(num_tokens / 1024))
*/"""
