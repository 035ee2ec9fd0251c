"""Top-2 softmax routing in Triton: a block of tokens per program, each token's 8 logits in one row
of a [BLOCK, 8] tile. The first choice is the maximum (lowest index among equals), the second the
maximum of the rest; w1 = 1 / (1 + exp(l0 - l1)), since the softmax denominator cancels in the
renormalization."""
import triton
import triton.language as tl


@triton.jit
def top2_softmax(logits_ptr, ids_ptr, weights_ptr, tokens, BLOCK: tl.constexpr = 256, EXPERTS: tl.constexpr = 8):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    experts = tl.arange(0, EXPERTS)
    valid = rows < tokens
    offsets = rows[:, None].to(tl.int64) * EXPERTS + experts[None, :]
    logits = tl.load(logits_ptr + offsets, mask=valid[:, None], other=0.0).to(tl.float32)
    best_value = tl.max(logits, axis=1)
    # Among equal maxima, the lowest index: the smallest index whose logit equals the maximum.
    best = tl.min(tl.where(logits == best_value[:, None], experts[None, :], EXPERTS), axis=1)
    rest = tl.where(experts[None, :] == best[:, None], float("-inf"), logits)
    second_value = tl.max(rest, axis=1)
    second = tl.min(tl.where(rest == second_value[:, None], experts[None, :], EXPERTS), axis=1)
    w1 = 1.0 / (1.0 + tl.exp(best_value - second_value))
    out = rows.to(tl.int64) * 2
    tl.store(ids_ptr + out, best, mask=valid)
    tl.store(ids_ptr + out + 1, second, mask=valid)
    tl.store(weights_ptr + out, (1.0 - w1).to(tl.bfloat16), mask=valid)
    tl.store(weights_ptr + out + 1, w1.to(tl.bfloat16), mask=valid)


MKB_PLAN = """/* mkb:plan
launch top2_softmax grid(ceil_div(tokens, 256)) block(128) args(logits, expert_ids, expert_weights, i32(tokens))
*/"""
