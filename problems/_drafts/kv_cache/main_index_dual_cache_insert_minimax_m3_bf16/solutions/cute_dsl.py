"""MiniMax-M3 (1 + w) RMSNorm + partial RoPE + dual cache insert in CuTe DSL: the algorithm of
solutions/cuda.cu.

One 256-thread block per token; warp w handles heads w, w + 8, w + 16, w + 24 of the token's 29, in qkv's
column order (0-15 q, 16-19 k, 20-23 v, 24-27 indexer q, 28 indexer k; 29-31 are nothing). Lane l owns
dims 4l .. 4l + 3 (8-byte loads and stores). The sum of squares is a warp butterfly; the rotation pairs
dim j (lanes 0-7) with dim j + 32 (lanes 8-15) through one xor-8 shuffle; lanes 16-31 hold dims 64-127.

Rounding as reference.md: y = x * rsqrt(mean(x^2) + eps) rounded to fp32, n = bf16(y * (1 + w)); the
rotation in fp32 on the bf16 values, each product rounded on its own (mul.rn.f32 through inline PTX, so
that no product is fused into a multiply-add with the difference or sum), bf16 once."""
import cutlass
import cutlass.cute as cute

TOKENS, QH, KVH, IQH, DIM, ROT = 513, 16, 4, 4, 128, 64
HALF = ROT // 2
HEADS = QH + 2 * KVH + IQH + 1    # 29
BLOCK = 64                        # BLOCK_SIZE
SLOTS = 10 * BLOCK
MAX_POSITION = 4096
WARPS, VEC = 8, 4
K0, V0, IQ0, IK = QH, QH + KVH, QH + 2 * KVH, QH + 2 * KVH + IQH   # first head of each kind
F32, BF16, I32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32
assert DIM == 32 * VEC and HEADS <= 4 * WARPS


def mul_rn(a, b):
    """a * b rounded once (never contracted into an fma)."""
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


@cute.kernel
def dual_insert(qkv: cute.Pointer, q_norm_weight: cute.Pointer, k_norm_weight: cute.Pointer,
                index_q_norm_weight: cute.Pointer, index_k_norm_weight: cute.Pointer, positions: cute.Pointer,
                cos_sin_cache: cute.Pointer, slot_mapping: cute.Pointer, index_slot_mapping: cute.Pointer,
                q: cute.Pointer, iq: cute.Pointer, kv_cache: cute.Pointer, index_cache: cute.Pointer,
                eps: cutlass.Float32):
    token = cute.arch.block_idx()[0]
    warp = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()

    gqkv = cute.make_tensor(qkv, cute.make_layout((TOKENS, HEADS, 32, VEC), stride=(HEADS * DIM, DIM, VEC, 1)))
    gq = cute.make_tensor(q, cute.make_layout((TOKENS, QH, 32, VEC), stride=(QH * DIM, DIM, VEC, 1)))
    giq = cute.make_tensor(iq, cute.make_layout((TOKENS, IQH, 32, VEC), stride=(IQH * DIM, DIM, VEC, 1)))
    # kv_cache [num_blocks, kv_heads, block, 2 * dim] as (block, head, offset, k|v, lane, elt)
    gkv = cute.make_tensor(kv_cache, cute.make_layout((SLOTS // BLOCK, KVH, BLOCK, 2, 32, VEC),
                                                      stride=(KVH * BLOCK * 2 * DIM, BLOCK * 2 * DIM, 2 * DIM, DIM, VEC, 1)))
    gidx = cute.make_tensor(index_cache, cute.make_layout((SLOTS, 32, VEC), stride=(DIM, VEC, 1)))
    gcs = cute.make_tensor(cos_sin_cache, cute.make_layout((MAX_POSITION, 2, HALF // VEC, VEC), stride=(ROT, HALF, VEC, 1)))
    weights = cute.make_layout((32, VEC), stride=(VEC, 1))
    gw0 = cute.make_tensor(q_norm_weight, weights)
    gw1 = cute.make_tensor(k_norm_weight, weights)
    gw2 = cute.make_tensor(index_q_norm_weight, weights)
    gw3 = cute.make_tensor(index_k_norm_weight, weights)
    gpos = cute.make_tensor(positions, cute.make_layout(TOKENS))
    gslot = cute.make_tensor(slot_mapping, cute.make_layout(TOKENS))
    gislot = cute.make_tensor(index_slot_mapping, cute.make_layout(TOKENS))
    copy8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)

    rb = cute.make_rmem_tensor((VEC,), BF16)
    rx = cute.make_rmem_tensor((VEC,), BF16)
    ro = cute.make_rmem_tensor((VEC,), BF16)
    # fp32 copies in register tensors (indexed inside the branches below)
    cf = cute.make_rmem_tensor((VEC,), F32)
    sf = cute.make_rmem_tensor((VEC,), F32)
    w0 = cute.make_rmem_tensor((VEC,), F32)
    w1 = cute.make_rmem_tensor((VEC,), F32)
    w2 = cute.make_rmem_tensor((VEC,), F32)
    w3 = cute.make_rmem_tensor((VEC,), F32)
    n = cute.make_rmem_tensor((VEC,), F32)
    o = cute.make_rmem_tensor((VEC,), F32)

    position = I32(gpos[token])
    slot = I32(gslot[token])
    index_slot = I32(gislot[token])
    block = slot // BLOCK
    offset = slot % BLOCK
    cute.copy(copy8, gcs[position, 0, lane % (HALF // VEC), None], rb)   # lanes 0-15 use them
    cf.store(rb.load().to(F32))
    cute.copy(copy8, gcs[position, 1, lane % (HALF // VEC), None], rb)
    sf.store(rb.load().to(F32))
    cute.copy(copy8, gw0[lane, None], rb)
    w0.store(rb.load().to(F32))
    cute.copy(copy8, gw1[lane, None], rb)
    w1.store(rb.load().to(F32))
    cute.copy(copy8, gw2[lane, None], rb)
    w2.store(rb.load().to(F32))
    cute.copy(copy8, gw3[lane, None], rb)
    w3.store(rb.load().to(F32))

    for step in cutlass.range_constexpr(4):
        head = warp + WARPS * step           # warp-uniform
        if head < HEADS:
            cute.copy(copy8, gqkv[token, head, lane, None], rx)
            if head >= V0 and head < IQ0:    # v: unchanged into [..., 128:256]
                cute.copy(copy8, rx, gkv[block, head - V0, offset, 1, lane, None])
            else:
                xf = rx.load().to(F32)
                ss = (xf * xf).reduce(cute.ReductionOp.ADD, F32(0.0), 0)
                ss = cute.arch.warp_reduction_sum(ss)
                inv = cute.math.rsqrt(ss * F32(1.0 / DIM) + eps)
                for e in cutlass.range_constexpr(VEC):
                    w = cutlass.select_(head < K0, w0[e], cutlass.select_(head < V0, w1[e],
                                                                          cutlass.select_(head < IK, w2[e], w3[e])))
                    n[e] = F32(mul_rn(mul_rn(xf[e], inv), F32(w) + F32(1.0))).to(BF16).to(F32)
                for e in cutlass.range_constexpr(VEC):
                    partner = cute.arch.shuffle_sync_bfly(n[e], 8)
                    first = mul_rn(n[e], cf[e]) - mul_rn(partner, sf[e])    # lanes 0-7: x1 c - x2 s
                    second = mul_rn(n[e], cf[e]) + mul_rn(partner, sf[e])   # lanes 8-15: x2 c + x1 s
                    o[e] = cutlass.select_(lane < 8, first, cutlass.select_(lane < 16, second, n[e]))
                ro.store(o.load().to(BF16))
                if head < K0:
                    cute.copy(copy8, ro, gq[token, head, lane, None])
                elif head < V0:
                    cute.copy(copy8, ro, gkv[block, head - K0, offset, 0, lane, None])
                elif head < IK:
                    cute.copy(copy8, ro, giq[token, head - IQ0, lane, None])
                else:
                    cute.copy(copy8, ro, gidx[index_slot, lane, None])


MKB_PLAN = """/* mkb:plan
launch dual_insert grid(num_tokens) block(256)
  args(qkv, q_norm_weight, k_norm_weight, index_q_norm_weight, index_k_norm_weight, positions, cos_sin_cache,
       slot_mapping, index_slot_mapping, q, iq, kv_cache, index_cache, f32(eps))
*/"""
