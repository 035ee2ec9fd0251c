"""Per-(token, head) FP8 quantization and paged cache append in CuTe DSL: the algorithm of solutions/cuda.cu.

One 256-thread block per token, one warp per head: lane l holds dims 4l .. 4l + 3 of the key row and of
the value row (8-byte loads), the warp reduces the absolute maximum with butterfly shuffles, and each lane
stores its four e4m3 bytes (one 4-byte store) at the token's slot; lane 0 stores the two scales. Padding
tokens (slot -1) write nothing. The byte caches are viewed as Float8E4M3FN (the same bytes).

Rounding as reference.md: scale = max(absmax * fp32(1/448), fp32(1e-6)) (one product); inv = 1 / scale
(div.rn.f32); q = clamp(x * inv, -448, 448), the product rounded on its own; e4m3 by round-to-nearest-even.
fp32(1/448) and fp32(1e-6) come in as plan arguments (the plan rounds 1 / fp8_max to fp32 once)."""
import cutlass
import cutlass.cute as cute

TOKENS, HEADS, DIM = 2048, 8, 128
SLOTS = 256 * 16          # NUM_BLOCKS * BLOCK_SIZE: rows of a cache seen as [slots, heads, dim]
VEC = 4                   # values per lane
F32, BF16, FP8 = cutlass.Float32, cutlass.BFloat16, cutlass.Float8E4M3FN
assert DIM == 32 * VEC


@cute.kernel
def quantize_append(key: cute.Pointer, value: cute.Pointer, slot_mapping: cute.Pointer, key_cache: cute.Pointer,
                    value_cache: cute.Pointer, k_scale_cache: cute.Pointer, v_scale_cache: cute.Pointer,
                    inv_fp8_max: cutlass.Float32, min_scale: cutlass.Float32, fp8_max: cutlass.Float32):
    token = cute.arch.block_idx()[0]
    head = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()

    rows = cute.make_layout((TOKENS, HEADS, 32, VEC), stride=(HEADS * DIM, DIM, VEC, 1))
    cache_rows = cute.make_layout((SLOTS, HEADS, 32, VEC), stride=(HEADS * DIM, DIM, VEC, 1))
    gk = cute.make_tensor(key, rows)
    gv = cute.make_tensor(value, rows)
    gkc = cute.make_tensor(cute.recast_ptr(key_cache, dtype=FP8), cache_rows)
    gvc = cute.make_tensor(cute.recast_ptr(value_cache, dtype=FP8), cache_rows)
    gks = cute.make_tensor(k_scale_cache, cute.make_layout((SLOTS, HEADS), stride=(HEADS, 1)))
    gvs = cute.make_tensor(v_scale_cache, cute.make_layout((SLOTS, HEADS), stride=(HEADS, 1)))
    gslot = cute.make_tensor(slot_mapping, cute.make_layout(TOKENS))

    load8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    store4 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), FP8, num_bits_per_copy=32)
    rk = cute.make_rmem_tensor((VEC,), BF16)
    rv = cute.make_rmem_tensor((VEC,), BF16)
    qk = cute.make_rmem_tensor((VEC,), F32)
    qv = cute.make_rmem_tensor((VEC,), F32)
    bk = cute.make_rmem_tensor((VEC,), FP8)
    bv = cute.make_rmem_tensor((VEC,), FP8)

    slot64 = gslot[token]
    if slot64 >= cutlass.Int64(0):  # uniform over the block
        slot = cutlass.Int32(slot64)
        cute.copy(load8, gk[token, head, lane, None], rk)
        cute.copy(load8, gv[token, head, lane, None], rv)
        kf = rk.load().to(F32)
        vf = rv.load().to(F32)
        k_max = F32(0.0)
        v_max = F32(0.0)
        for e in cutlass.range_constexpr(VEC):
            k_max = cute.arch.fmax(k_max, cute.arch.fmax(kf[e], F32(0.0) - kf[e]))
            v_max = cute.arch.fmax(v_max, cute.arch.fmax(vf[e], F32(0.0) - vf[e]))
        k_max = cute.arch.warp_reduction_max(k_max)
        v_max = cute.arch.warp_reduction_max(v_max)
        k_scale = cute.arch.fmax(k_max * inv_fp8_max, min_scale)
        v_scale = cute.arch.fmax(v_max * inv_fp8_max, min_scale)
        k_inv = F32(1.0) / k_scale
        v_inv = F32(1.0) / v_scale
        for e in cutlass.range_constexpr(VEC):
            qk[e] = cutlass.min(cutlass.max(kf[e] * k_inv, F32(0.0) - fp8_max), fp8_max)
            qv[e] = cutlass.min(cutlass.max(vf[e] * v_inv, F32(0.0) - fp8_max), fp8_max)
        bk.store(qk.load().to(FP8))
        bv.store(qv.load().to(FP8))
        cute.copy(store4, bk, gkc[slot, head, lane, None])
        cute.copy(store4, bv, gvc[slot, head, lane, None])
        if lane == 0:
            gks[slot, head] = k_scale
            gvs[slot, head] = v_scale


MKB_PLAN = """/* mkb:plan
launch quantize_append grid(num_tokens) block(256)
  args(key, value, slot_mapping, key_cache, value_cache, k_scale_cache, v_scale_cache,
       f32(1 / fp8_max), f32(min_scale), f32(fp8_max))
*/"""
