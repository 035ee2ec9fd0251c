"""q/k RMSNorm + partial NeoX RoPE + paged KV write (GLM-4.5) in CuTe DSL: the algorithm of solutions/cuda.cu.

One 256-thread block per token; warp w handles heads w, w + 8, ..., w + 40 of the token's 48: steps 0-3
are q heads, step 4 a k head, step 5 a v head (known while tracing). Lane l owns dims 4l .. 4l + 3 of the
head (8-byte loads and stores). The sum of squares is a warp butterfly; the rotation pairs dim j (lanes
0-7) with dim j + 32 (lanes 8-15) through one xor-8 shuffle; lanes 16-31 hold the pass-through dims 64-127.
k and v of padding tokens (slot -1) are not written.

Rounding as reference.md: r = rsqrt(mean(x^2) + eps) in fp32; m = bf16(bf16(x * r) * w); the rotation in
bf16 arithmetic, every product, difference and sum rounded to bf16 (.to(BF16).to(F32))."""
import cutlass
import cutlass.cute as cute

TOKENS, QH, KVH, DIM, ROT = 2048, 32, 8, 128, 64
HALF = ROT // 2
HEADS = QH + 2 * KVH          # 48
SLOTS = 256 * 16              # rows of one cache plane
MAX_POSITION = 4096
WARPS, VEC = 8, 4
F32, BF16 = cutlass.Float32, cutlass.BFloat16
assert HEADS == 6 * WARPS and DIM == 32 * VEC


def rb(x):
    """An eager bf16 intermediate: round to bf16, compute on in fp32."""
    return x.to(BF16).to(F32)


@cute.kernel
def qk_norm_rope_cache(qkv: cute.Pointer, positions: cute.Pointer, q_norm_weight: cute.Pointer,
                       k_norm_weight: cute.Pointer, cos_sin_cache: cute.Pointer, slot_mapping: cute.Pointer,
                       q: cute.Pointer, kv_cache: cute.Pointer, eps: cutlass.Float32):
    token = cute.arch.block_idx()[0]
    warp = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()

    gqkv = cute.make_tensor(qkv, cute.make_layout((TOKENS, HEADS, 32, VEC), stride=(HEADS * DIM, DIM, VEC, 1)))
    gq = cute.make_tensor(q, cute.make_layout((TOKENS, QH, 32, VEC), stride=(QH * DIM, DIM, VEC, 1)))
    gcache = cute.make_tensor(kv_cache, cute.make_layout((2, SLOTS, KVH, 32, VEC),
                                                         stride=(SLOTS * KVH * DIM, KVH * DIM, DIM, VEC, 1)))
    gcs = cute.make_tensor(cos_sin_cache, cute.make_layout((MAX_POSITION, 2, HALF // VEC, VEC), stride=(ROT, HALF, VEC, 1)))
    gwq = cute.make_tensor(q_norm_weight, cute.make_layout((32, VEC), stride=(VEC, 1)))
    gwk = cute.make_tensor(k_norm_weight, cute.make_layout((32, VEC), stride=(VEC, 1)))
    gpos = cute.make_tensor(positions, cute.make_layout(TOKENS))
    gslot = cute.make_tensor(slot_mapping, cute.make_layout(TOKENS))
    copy8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)

    rwq = cute.make_rmem_tensor((VEC,), BF16)
    rwk = cute.make_rmem_tensor((VEC,), BF16)
    rc = cute.make_rmem_tensor((VEC,), BF16)
    rs = cute.make_rmem_tensor((VEC,), BF16)
    rx = cute.make_rmem_tensor((VEC,), BF16)
    ro = cute.make_rmem_tensor((VEC,), BF16)
    m = cute.make_rmem_tensor((VEC,), F32)
    o = cute.make_rmem_tensor((VEC,), F32)

    position = cutlass.Int32(gpos[token])
    slot64 = gslot[token]
    slot = cutlass.Int32(cutlass.max(slot64, cutlass.Int64(0)))  # used only when slot64 >= 0
    cute.copy(copy8, gwq[lane, None], rwq)
    cute.copy(copy8, gwk[lane, None], rwk)
    cute.copy(copy8, gcs[position, 0, lane % (HALF // VEC), None], rc)   # lanes 0-15 use them
    cute.copy(copy8, gcs[position, 1, lane % (HALF // VEC), None], rs)
    # fp32 copies in register tensors (indexed inside the branches below; an element taken from a
    # TensorSSA value inside one branch cannot be reused in the next)
    cf = cute.make_rmem_tensor((VEC,), F32)
    sf = cute.make_rmem_tensor((VEC,), F32)
    wqf = cute.make_rmem_tensor((VEC,), F32)
    wkf = cute.make_rmem_tensor((VEC,), F32)
    cf.store(rc.load().to(F32))
    sf.store(rs.load().to(F32))
    wqf.store(rwq.load().to(F32))
    wkf.store(rwk.load().to(F32))

    for step in cutlass.range_constexpr(HEADS // WARPS):
        head = warp + WARPS * step
        if cutlass.const_expr(step == 5):  # a v head: copied unchanged into plane 1
            if slot64 >= cutlass.Int64(0):
                cute.copy(copy8, gqkv[token, head, lane, None], rx)
                cute.copy(copy8, rx, gcache[1, slot, head - QH - KVH, lane, None])
        else:
            is_k = cutlass.const_expr(step == 4)
            if slot64 >= cutlass.Int64(0) or cutlass.const_expr(not is_k):
                cute.copy(copy8, gqkv[token, head, lane, None], rx)
                xf = rx.load().to(F32)
                ss = (xf * xf).reduce(cute.ReductionOp.ADD, F32(0.0), 0)
                ss = cute.arch.warp_reduction_sum(ss)
                inv = cute.math.rsqrt(ss * F32(1.0 / DIM) + eps)
                for e in cutlass.range_constexpr(VEC):
                    w = wkf[e] if cutlass.const_expr(is_k) else wqf[e]
                    m[e] = rb(rb(xf[e] * inv) * w)
                for e in cutlass.range_constexpr(VEC):
                    partner = cute.arch.shuffle_sync_bfly(m[e], 8)
                    first = rb(rb(m[e] * cf[e]) - rb(partner * sf[e]))    # lanes 0-7: x1 c - x2 s
                    second = rb(rb(m[e] * cf[e]) + rb(partner * sf[e]))   # lanes 8-15: x2 c + x1 s
                    o[e] = cutlass.select_(lane < 8, first, cutlass.select_(lane < 16, second, m[e]))
                ro.store(o.load().to(BF16))
                if cutlass.const_expr(is_k):
                    cute.copy(copy8, ro, gcache[0, slot, head - QH, lane, None])
                else:
                    cute.copy(copy8, ro, gq[token, head, lane, None])


MKB_PLAN = """/* mkb:plan
launch qk_norm_rope_cache grid(num_tokens) block(256)
  args(qkv, positions, q_norm_weight, k_norm_weight, cos_sin_cache, slot_mapping, q, kv_cache, f32(eps))
*/"""
