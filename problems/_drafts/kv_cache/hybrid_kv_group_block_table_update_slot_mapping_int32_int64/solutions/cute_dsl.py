"""Staged block-table writes and slot mapping in CuTe DSL: the algorithm of solutions/cuda.cu.

One 128-thread block per request r.
  1. The write requests, overwrite flags, query_start_loc and idx_mapping are staged in shared memory.
     Warp g (g < 3) replays group g's writes addressed to r in write order: lane j writes element j of a
     write's expanded ids (id * e + j % e from staged id j // e), sync_warp between writes, the running
     count in a register; lane 0 stores the final count. Only block r writes row r of the tables.
  2. After a block barrier (the row writes are visible to the block), the block maps the tokens of every
     batch entry whose request is r, for the three groups, from its freshly written rows.
  3. The tokens past query_start_loc[64] get -1 in every group, spread over all blocks."""
import cutlass
import cutlass.cute as cute

GROUPS = 3
REQUESTS = 64
WRITES = 128
CAPACITY = 4
TOKENS = 4096
THREADS = 128
WIDTHS = (512, 1024, 512)          # MAX_BLOCKS
EXPANSION = (1, 2, 1)              # BLOCK_SIZES // KERNEL_BLOCK_SIZES
KERNEL_BLOCK = (16, 16, 8)         # KERNEL_BLOCK_SIZES
I32, I64, U8 = cutlass.Int32, cutlass.Int64, cutlass.Uint8

assert THREADS == WRITES and THREADS > REQUESTS


@cute.jit
def apply_writes(table: cute.Tensor, counts: cute.Tensor, ids: cute.Tensor, staged: cute.Tensor, s_req: cute.Tensor,
                 s_over: cute.Tensor, r, lane, g: cutlass.Constexpr, expansion: cutlass.Constexpr,
                 width: cutlass.Constexpr):
    count = counts[g * REQUESTS + r]
    for w in cutlass.range(WRITES):
        if s_req[w] == r:  # uniform over the warp
            n = staged[g * WRITES + w] * expansion
            start = count
            if s_over[w] != U8(0):
                start = I32(0)
            for j in cutlass.range(lane, n, 32):
                table[r * width + start + j] = ids[(g * WRITES + w) * CAPACITY + j // expansion] * expansion + j % expansion
            cute.arch.sync_warp()
            count = start + n
    if lane == 0:
        counts[g * REQUESTS + r] = count


@cute.kernel
def update_and_map(table_0: cute.Pointer, table_1: cute.Pointer, table_2: cute.Pointer, num_blocks: cute.Pointer,
                   write_requests: cute.Pointer, overwrite: cute.Pointer, staged_ids: cute.Pointer,
                   staged_counts: cute.Pointer, idx_mapping: cute.Pointer, query_start_loc: cute.Pointer,
                   positions: cute.Pointer, slot_mappings: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    r = cute.arch.block_idx()[0]
    warp = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()
    t0 = cute.make_tensor(table_0, cute.make_layout(REQUESTS * WIDTHS[0]))
    t1 = cute.make_tensor(table_1, cute.make_layout(REQUESTS * WIDTHS[1]))
    t2 = cute.make_tensor(table_2, cute.make_layout(REQUESTS * WIDTHS[2]))
    counts = cute.make_tensor(num_blocks, cute.make_layout(GROUPS * REQUESTS))
    requests = cute.make_tensor(write_requests, cute.make_layout(WRITES))
    over = cute.make_tensor(overwrite, cute.make_layout(WRITES))
    ids = cute.make_tensor(staged_ids, cute.make_layout(GROUPS * WRITES * CAPACITY))
    staged = cute.make_tensor(staged_counts, cute.make_layout(GROUPS * WRITES))
    entries = cute.make_tensor(idx_mapping, cute.make_layout(REQUESTS))
    loc = cute.make_tensor(query_start_loc, cute.make_layout(REQUESTS + 1))
    pos = cute.make_tensor(positions, cute.make_layout(TOKENS))
    slots = cute.make_tensor(slot_mappings, cute.make_layout(GROUPS * TOKENS))
    s_req = cute.make_tensor(cute.arch.alloc_smem(I32, WRITES), cute.make_layout(WRITES))
    s_over = cute.make_tensor(cute.arch.alloc_smem(U8, WRITES), cute.make_layout(WRITES))
    s_loc = cute.make_tensor(cute.arch.alloc_smem(I32, REQUESTS + 1), cute.make_layout(REQUESTS + 1))
    s_entry = cute.make_tensor(cute.arch.alloc_smem(I32, REQUESTS), cute.make_layout(REQUESTS))

    s_req[tidx] = requests[tidx]
    s_over[tidx] = over[tidx]
    if tidx <= REQUESTS:
        s_loc[tidx] = loc[tidx]
    if tidx < REQUESTS:
        s_entry[tidx] = entries[tidx]
    cute.arch.sync_threads()

    if warp == 0:
        apply_writes(t0, counts, ids, staged, s_req, s_over, r, lane, 0, EXPANSION[0], WIDTHS[0])
    if warp == 1:
        apply_writes(t1, counts, ids, staged, s_req, s_over, r, lane, 1, EXPANSION[1], WIDTHS[1])
    if warp == 2:
        apply_writes(t2, counts, ids, staged, s_req, s_over, r, lane, 2, EXPANSION[2], WIDTHS[2])
    cute.arch.sync_threads()

    for b in cutlass.range(REQUESTS):
        if s_entry[b] == r:  # uniform over the block
            first = s_loc[b]
            items = (s_loc[b + 1] - first) * GROUPS
            for item in cutlass.range(tidx, items, THREADS):
                t = first + item // GROUPS
                g = item % GROUPS
                p = pos[t].to(I32)  # in [0, 64)
                slot = I32(0)
                if g == 0:
                    slot = t0[r * WIDTHS[0] + p // KERNEL_BLOCK[0]] * KERNEL_BLOCK[0] + p % KERNEL_BLOCK[0]
                if g == 1:
                    slot = t1[r * WIDTHS[1] + p // KERNEL_BLOCK[1]] * KERNEL_BLOCK[1] + p % KERNEL_BLOCK[1]
                if g == 2:
                    slot = t2[r * WIDTHS[2] + p // KERNEL_BLOCK[2]] * KERNEL_BLOCK[2] + p % KERNEL_BLOCK[2]
                slots[g * TOKENS + t] = slot.to(I64)

    for t in cutlass.range(s_loc[REQUESTS] + r * THREADS + tidx, TOKENS, REQUESTS * THREADS):
        for g in cutlass.range_constexpr(GROUPS):
            slots[g * TOKENS + t] = I64(-1)


MKB_PLAN = """/* mkb:plan
launch update_and_map grid(max_num_reqs) block(128)
  args(block_table_0_out, block_table_1_out, block_table_2_out, num_blocks_out, write_requests, overwrite, staged_ids,
       staged_counts, idx_mapping, query_start_loc, positions, slot_mappings)
*/"""
