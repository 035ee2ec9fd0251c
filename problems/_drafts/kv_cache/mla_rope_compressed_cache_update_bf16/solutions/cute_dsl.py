"""MLA q projection + RoPE + compressed cache write in CuTe DSL: the two kernels of solutions/cuda.cu, with
the GEMM on wgmma instead of mma.sync.

mla_cache_write: one 128-thread block per token; a valid token's cache row gets kv_c (64 threads, one
  16-byte copy each) and the rotated k_pe (4 threads, 8 dims of each half).
mla_q_gemm_rope: q = bf16(q_c @ W^T) with q_c = qkv_lora[:, :1536] read in place (row stride 2112). One
  256-thread block computes a 128-token x 192-column tile = one head for 128 tokens: two warpgroups along
  M, each an m64n192k16 wgmma per 16 of k (fp32 accumulators in registers), k steps of 64 through a
  4-stage ring of 128-byte-swizzled shared-memory tiles filled by cp.async. Epilogue: the tile rounded to
  bf16 once (F.linear's rounding) into shared memory (rows padded to 200), then per row 16 vectors of
  q_nope copied and 4 pairs of q_pe vectors rotated in bf16 arithmetic (every product, difference and sum
  rounded to bf16, as the reference), 16-byte stores to q_out."""
import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, warpgroup

TOKENS, HEADS, HEAD_DIM, NOPE, ROPE = 2048, 16, 192, 128, 64
HALF = ROPE // 2
Q_RANK, KV_RANK = 1536, 512
LORA_ROW = Q_RANK + KV_RANK + ROPE      # 2112: qkv_lora's row stride
N = HEADS * HEAD_DIM                    # 3072
CACHE_ROW = KV_RANK + ROPE              # 576
SLOTS = 256 * 16
MAX_POSITION = 4096
BM, BN, BK, STAGES = 128, HEAD_DIM, 64, 4
SMEM = STAGES * (BM + BN) * BK * 2      # 163840 bytes: the plan's shared(...)
C_STRIDE = BN + 8                       # epilogue tile row (elements), padded
ITEMS = NOPE // 8 + HALF // 8           # per row: 16 copied vectors + 4 rotated pairs
THREADS = 256
F32, BF16, I32 = cutlass.Float32, cutlass.BFloat16, cutlass.Int32
assert TOKENS % BM == 0 and Q_RANK % BK == 0 and BM * C_STRIDE * 2 <= SMEM and BM * ITEMS % THREADS == 0


def rb(x):
    """An eager bf16 intermediate: round to bf16, compute on in fp32."""
    return x.to(BF16).to(F32)


@cute.jit
def rotate8(x1, x2, c, s, o1, o2):
    """o1 = x1 c - x2 s, o2 = x2 c + x1 s for 8 bf16 values each, every op rounded to bf16."""
    a = x1.load().to(F32)
    b = x2.load().to(F32)
    cc = c.load().to(F32)
    ss = s.load().to(F32)
    o1.store((rb(rb(a * cc) - rb(b * ss))).to(BF16))
    o2.store((rb(rb(b * cc) + rb(a * ss))).to(BF16))


@cute.kernel
def mla_cache_write(qkv_lora: cute.Pointer, positions: cute.Pointer, cos_sin_cache: cute.Pointer,
                    slot_mapping: cute.Pointer, kv_cache: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    token = cute.arch.block_idx()[0]
    glora = cute.make_tensor(qkv_lora, cute.make_layout((TOKENS, LORA_ROW // 8, 8), stride=(LORA_ROW, 8, 1)))
    gcache = cute.make_tensor(kv_cache, cute.make_layout((SLOTS, CACHE_ROW // 8, 8), stride=(CACHE_ROW, 8, 1)))
    gcs = cute.make_tensor(cos_sin_cache, cute.make_layout((MAX_POSITION, ROPE // 8, 8), stride=(ROPE, 8, 1)))
    gpos = cute.make_tensor(positions, cute.make_layout(TOKENS))
    gslot = cute.make_tensor(slot_mapping, cute.make_layout(TOKENS))
    copy16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    r0 = cute.make_rmem_tensor((8,), BF16)
    r1 = cute.make_rmem_tensor((8,), BF16)
    rc = cute.make_rmem_tensor((8,), BF16)
    rs = cute.make_rmem_tensor((8,), BF16)
    o1 = cute.make_rmem_tensor((8,), BF16)
    o2 = cute.make_rmem_tensor((8,), BF16)
    slot64 = gslot[token]
    if slot64 >= cutlass.Int64(0):
        slot = I32(slot64)          # row `slot` of the cache seen as [4096, 576]
        if tidx < KV_RANK // 8:
            cute.copy(copy16, glora[token, Q_RANK // 8 + tidx, None], r0)
            cute.copy(copy16, r0, gcache[slot, tidx, None])
        elif tidx < KV_RANK // 8 + HALF // 8:
            v = tidx - KV_RANK // 8
            position = I32(gpos[token])
            cute.copy(copy16, glora[token, (Q_RANK + KV_RANK) // 8 + v, None], r0)
            cute.copy(copy16, glora[token, (Q_RANK + KV_RANK + HALF) // 8 + v, None], r1)
            cute.copy(copy16, gcs[position, v, None], rc)
            cute.copy(copy16, gcs[position, HALF // 8 + v, None], rs)
            rotate8(r0, r1, rc, rs, o1, o2)
            cute.copy(copy16, o1, gcache[slot, KV_RANK // 8 + v, None])
            cute.copy(copy16, o2, gcache[slot, (KV_RANK + HALF) // 8 + v, None])


@cute.kernel
def mla_q_gemm_rope(qkv_lora: cute.Pointer, q_b_weight: cute.Pointer, positions: cute.Pointer,
                    cos_sin_cache: cute.Pointer, q_out: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    bn, bm, _ = cute.arch.block_idx()
    # This block's tiles: (BM, BK, k tile) of q_c (in place in qkv_lora), (BN, BK, k tile) of W, (BM, BN) of q.
    gA = cute.local_tile(cute.make_tensor(qkv_lora, cute.make_layout((TOKENS, Q_RANK), stride=(LORA_ROW, 1))),
                         (BM, BK), (bm, None))
    gB = cute.local_tile(cute.make_tensor(q_b_weight, cute.make_layout((N, Q_RANK), stride=(Q_RANK, 1))),
                         (BN, BK), (bn, None))
    atom = warpgroup.make_smem_layout_atom(warpgroup.SmemLayoutAtomKind.K_SW128, BF16)
    sa_layout = cute.tile_to_shape(atom, (BM, BK, STAGES), order=(0, 1, 2))
    sb_layout = cute.tile_to_shape(atom, (BN, BK, STAGES), order=(0, 1, 2))
    base = cute.arch.get_dyn_smem(BF16, alignment=1024)
    sA = cute.make_tensor(cute.recast_ptr(base, sa_layout.inner, dtype=BF16), sa_layout.outer)
    sB = cute.make_tensor(cute.recast_ptr(base + cute.cosize(sa_layout.outer), sb_layout.inner, dtype=BF16),
                          sb_layout.outer)
    cp = cute.make_copy_atom(cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), BF16, num_bits_per_copy=128)
    tiled_cp = cute.make_tiled_copy_tv(cp, cute.make_layout((32, 8), stride=(8, 1)), cute.make_layout((1, 8)))
    thr_cp = tiled_cp.get_slice(tidx)
    tAgA, tAsA = thr_cp.partition_S(gA), thr_cp.partition_D(sA)
    tBgB, tBsB = thr_cp.partition_S(gB), thr_cp.partition_D(sB)
    mma = cute.make_tiled_mma(cute.make_mma_atom(warpgroup.MmaF16BF16Op(
        BF16, F32, (64, BN, 16), warpgroup.OperandSource.SMEM, OperandMajorMode.K, OperandMajorMode.K)), (2, 1, 1))
    mma.set(warpgroup.Field.ACCUMULATE, True)
    thr_mma = mma.get_slice(tidx)
    tCrA = mma.make_fragment_A(thr_mma.partition_A(sA))
    tCrB = mma.make_fragment_B(thr_mma.partition_B(sB))
    # The epilogue tile in shared memory (the ring's space, once the main loop is over).
    sC = cute.make_tensor(base, cute.make_layout((BM, BN), stride=(C_STRIDE, 1)))
    tCsC = thr_mma.partition_C(sC)
    acc = cute.make_rmem_tensor(tCsC.shape, F32)
    acc.fill(0.0)
    for s in cutlass.range_constexpr(STAGES - 1):
        cute.copy(tiled_cp, tAgA[None, None, None, s], tAsA[None, None, None, s])
        cute.copy(tiled_cp, tBgB[None, None, None, s], tBsB[None, None, None, s])
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(Q_RANK // BK):
        cute.arch.cp_async_wait_group(STAGES - 2)          # this thread's copies of tile kt landed
        cute.arch.fence_view_async_shared()                 # visible to wgmma (async proxy)
        cute.arch.sync_threads()                            # everyone's; stage (kt - 1) is free again
        nk = kt + STAGES - 1
        if nk < Q_RANK // BK:
            cute.copy(tiled_cp, tAgA[None, None, None, nk], tAsA[None, None, None, nk % STAGES])
            cute.copy(tiled_cp, tBgB[None, None, None, nk], tBsB[None, None, None, nk % STAGES])
        cute.arch.cp_async_commit_group()                   # possibly empty: keeps the count uniform
        warpgroup.fence()
        for kk in cutlass.range_constexpr(BK // 16):
            cute.gemm(mma, acc, tCrA[None, None, kk, kt % STAGES], tCrB[None, None, kk, kt % STAGES], acc)
        warpgroup.commit_group()
        warpgroup.wait_group(0)                             # before the next refill reuses a stage
    cute.arch.cp_async_wait_group(0)
    cute.arch.sync_threads()                                # the ring is no longer read or written
    out = cute.make_rmem_tensor(acc.shape, BF16)
    out.store(acc.load().to(BF16))                          # F.linear's one rounding
    cute.autovec_copy(out, tCsC)
    cute.arch.sync_threads()

    sv = cute.make_tensor(base, cute.make_layout((BM, C_STRIDE // 8, 8), stride=(C_STRIDE, 8, 1)))
    gq = cute.make_tensor(q_out, cute.make_layout((TOKENS, N // 8, 8), stride=(N, 8, 1)))
    gcs = cute.make_tensor(cos_sin_cache, cute.make_layout((MAX_POSITION, ROPE // 8, 8), stride=(ROPE, 8, 1)))
    gpos = cute.make_tensor(positions, cute.make_layout(TOKENS))
    copy16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    r0 = cute.make_rmem_tensor((8,), BF16)
    r1 = cute.make_rmem_tensor((8,), BF16)
    rc = cute.make_rmem_tensor((8,), BF16)
    rs = cute.make_rmem_tensor((8,), BF16)
    o1 = cute.make_rmem_tensor((8,), BF16)
    o2 = cute.make_rmem_tensor((8,), BF16)
    col0 = bn * (BN // 8)                                   # this head's first 8-column vector in q_out
    for it in cutlass.range_constexpr(BM * ITEMS // THREADS):
        item = tidx + THREADS * it
        r = item // ITEMS
        v = item % ITEMS
        token = bm * BM + r
        if v < NOPE // 8:
            cute.copy(copy16, sv[r, v, None], r0)
            cute.copy(copy16, r0, gq[token, col0 + v, None])
        else:
            j = v - NOPE // 8                               # 8-dim group of the rope half (0..3)
            position = I32(gpos[token])
            cute.copy(copy16, sv[r, NOPE // 8 + j, None], r0)
            cute.copy(copy16, sv[r, (NOPE + HALF) // 8 + j, None], r1)
            cute.copy(copy16, gcs[position, j, None], rc)
            cute.copy(copy16, gcs[position, HALF // 8 + j, None], rs)
            rotate8(r0, r1, rc, rs, o1, o2)
            cute.copy(copy16, o1, gq[token, col0 + NOPE // 8 + j, None])
            cute.copy(copy16, o2, gq[token, col0 + (NOPE + HALF) // 8 + j, None])


MKB_PLAN = """/* mkb:plan
launch mla_cache_write grid(num_tokens) block(128)
  args(qkv_lora, positions, cos_sin_cache, slot_mapping, kv_cache)
launch mla_q_gemm_rope grid(num_heads, num_tokens / 128) block(256) shared(163840)
  args(qkv_lora, q_b_weight, positions, cos_sin_cache, q_out)
*/"""
