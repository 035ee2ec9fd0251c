"""Staged block-table writes and slot mapping in TIRx (port of solutions/cuda.cu).

One 128-thread CTA per request r.
  1. The write requests, overwrite flags, query_start_loc and idx_mapping are staged in shared memory.
     Warp g (g < 3) replays group g's writes addressed to r in write order: lane j writes element j of a
     write's expanded ids (id * e + j % e from staged id j // e), a warp barrier between writes, the
     running count in a register; lane 0 stores the final count. Only CTA r writes row r of the tables.
  2. After a CTA barrier (the row writes are visible to the CTA), the CTA maps the tokens of every batch
     entry whose request is r, for the three groups, from its freshly written rows.
  3. The tokens past query_start_loc[64] get -1 in every group, spread over all CTAs."""
from tvm.script import tirx as T

GROUPS = 3
REQUESTS = 64
WRITES = 128
CAPACITY = 4
TOKENS = 4096
THREADS = 128
W0, W1, W2 = 512, 1024, 512        # MAX_BLOCKS
E0, E1, E2 = 1, 2, 1               # BLOCK_SIZES // KERNEL_BLOCK_SIZES
K0, K1, K2 = 16, 16, 8             # KERNEL_BLOCK_SIZES

assert THREADS == WRITES and THREADS > REQUESTS


@T.macro
def apply_writes(table, counts, ids, staged, s_req, s_over, count, start, r, lane, g, expansion, width):
    count[0] = counts[g * REQUESTS + r]
    for w in T.serial(WRITES):
        if s_req[w] == r:  # uniform over the warp
            start[0] = T.Select(s_over[w] != T.uint8(0), 0, count[0])
            for j in T.serial(lane, staged[g * WRITES + w] * expansion, step=32):
                table[r * width + start[0] + j] = ids[(g * WRITES + w) * CAPACITY + j // expansion] * expansion + j % expansion
            T.cuda.warp_sync()
            count[0] = start[0] + staged[g * WRITES + w] * expansion
    if lane == 0:
        counts[g * REQUESTS + r] = count[0]


@T.prim_func
def update_and_map(t0_ptr: T.handle, t1_ptr: T.handle, t2_ptr: T.handle, counts_ptr: T.handle,
                   requests_ptr: T.handle, over_ptr: T.handle, ids_ptr: T.handle, staged_ptr: T.handle,
                   entries_ptr: T.handle, loc_ptr: T.handle, pos_ptr: T.handle, slots_ptr: T.handle):
    t0 = T.match_buffer(t0_ptr, (REQUESTS * W0,), "int32")
    t1 = T.match_buffer(t1_ptr, (REQUESTS * W1,), "int32")
    t2 = T.match_buffer(t2_ptr, (REQUESTS * W2,), "int32")
    counts = T.match_buffer(counts_ptr, (GROUPS * REQUESTS,), "int32")
    requests = T.match_buffer(requests_ptr, (WRITES,), "int32")
    over = T.match_buffer(over_ptr, (WRITES,), "uint8")
    ids = T.match_buffer(ids_ptr, (GROUPS * WRITES * CAPACITY,), "int32")
    staged = T.match_buffer(staged_ptr, (GROUPS * WRITES,), "int32")
    entries = T.match_buffer(entries_ptr, (REQUESTS,), "int32")
    loc = T.match_buffer(loc_ptr, (REQUESTS + 1,), "int32")
    pos = T.match_buffer(pos_ptr, (TOKENS,), "int64")
    slots = T.match_buffer(slots_ptr, (GROUPS * TOKENS,), "int64")
    T.device_entry()
    r = T.cta_id([REQUESTS])
    tx = T.thread_id([THREADS])
    s_req = T.alloc_buffer((WRITES,), "int32", scope="shared")
    s_over = T.alloc_buffer((WRITES,), "uint8", scope="shared")
    s_loc = T.alloc_buffer((REQUESTS + 1,), "int32", scope="shared")
    s_entry = T.alloc_buffer((REQUESTS,), "int32", scope="shared")
    count = T.alloc_buffer((1,), "int32", scope="local")
    start = T.alloc_buffer((1,), "int32", scope="local")
    p = T.alloc_buffer((1,), "int32", scope="local")

    s_req[tx] = requests[tx]
    s_over[tx] = over[tx]
    if tx <= REQUESTS:
        s_loc[tx] = loc[tx]
    if tx < REQUESTS:
        s_entry[tx] = entries[tx]
    T.cuda.cta_sync()

    if tx // 32 == 0:
        apply_writes(t0, counts, ids, staged, s_req, s_over, count, start, r, tx % 32, 0, E0, W0)
    if tx // 32 == 1:
        apply_writes(t1, counts, ids, staged, s_req, s_over, count, start, r, tx % 32, 1, E1, W1)
    if tx // 32 == 2:
        apply_writes(t2, counts, ids, staged, s_req, s_over, count, start, r, tx % 32, 2, E2, W2)
    T.cuda.cta_sync()

    for b in T.serial(REQUESTS):
        if s_entry[b] == r:  # uniform over the CTA
            for item in T.serial(tx, (s_loc[b + 1] - s_loc[b]) * GROUPS, step=THREADS):
                p[0] = T.Cast("int32", pos[s_loc[b] + item // GROUPS])  # in [0, 64)
                if item % GROUPS == 0:
                    slots[s_loc[b] + item // GROUPS] = T.Cast("int64", t0[r * W0 + p[0] // K0] * K0 + p[0] % K0)
                if item % GROUPS == 1:
                    slots[TOKENS + s_loc[b] + item // GROUPS] = T.Cast("int64", t1[r * W1 + p[0] // K1] * K1 + p[0] % K1)
                if item % GROUPS == 2:
                    slots[2 * TOKENS + s_loc[b] + item // GROUPS] = T.Cast("int64", t2[r * W2 + p[0] // K2] * K2 + p[0] % K2)

    for t in T.serial(s_loc[REQUESTS] + r * THREADS + tx, TOKENS, step=REQUESTS * THREADS):
        for g in T.unroll(GROUPS):
            slots[g * TOKENS + t] = T.int64(-1)


MKB_PLAN = """/* mkb:plan
launch update_and_map grid(max_num_reqs) block(128)
  args(block_table_0_out, block_table_1_out, block_table_2_out, num_blocks_out, write_requests, overwrite, staged_ids,
       staged_counts, idx_mapping, query_start_loc, positions, slot_mappings)
*/"""
