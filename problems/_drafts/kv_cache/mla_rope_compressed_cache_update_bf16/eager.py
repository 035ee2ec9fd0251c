"""mla_rope_compressed_cache_update_bf16 as the original benchmark times it: its public reference(), eager
PyTorch at the inputs' own dtypes (TF32 and reduced-precision reductions off, as the original pins them),
writing the compressed cache in place (YIGE24/MetaKernelBench problems/kv_cache/
20_mla_rope_compressed_cache_update_bf16.py at d90ba286). The boolean indexing synchronizes with the host
(nonzero), as in the original. tests/gpu/eager_check.py runs it."""
import torch
import torch.nn.functional as F


def _device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _cos_sin_cache(symbols, constants, device):
    rope = symbols["rope_dim"]
    exponents = torch.arange(0, rope, 2, device=device, dtype=torch.float32) / rope
    inv_freq = 1.0 / (constants["rope_base"] ** exponents)
    angles = torch.outer(torch.arange(symbols["max_position"], device=device, dtype=torch.float32), inv_freq)
    return torch.cat((angles.cos(), angles.sin()), dim=-1).to(torch.bfloat16)


def make_inputs(seed, symbols, constants):
    torch.manual_seed(seed)
    device = _device()
    tokens, heads = symbols["num_tokens"], symbols["num_heads"]
    q_rank, kv_rank, rope = symbols["q_lora_rank"], symbols["kv_lora_rank"], symbols["rope_dim"]
    blocks, block_size = symbols["num_blocks"], symbols["block_size"]
    qkv_lora = torch.randn(tokens, q_rank + kv_rank + rope, device=device, dtype=torch.bfloat16)
    q_b_weight = torch.randn(heads * symbols["qk_head_dim"], q_rank, device=device, dtype=torch.bfloat16) * 0.02
    positions = torch.randint(0, symbols["max_position"], (tokens,), device=device, dtype=torch.int64)
    cos_sin_cache = _cos_sin_cache(symbols, constants, device)
    slot_mapping = torch.randperm(blocks * block_size, device=device)[:tokens]
    pads = int(torch.randint(1, symbols["max_pad_tokens"] + 1, (1,), device=device).item())
    slot_mapping[tokens - pads:] = -1
    kv_cache = torch.randn(blocks, block_size, 1, kv_rank + rope, device=device, dtype=torch.bfloat16)
    return {"qkv_lora": qkv_lora, "q_b_weight": q_b_weight, "positions": positions, "cos_sin_cache": cos_sin_cache,
            "slot_mapping": slot_mapping, "kv_cache": kv_cache}


def _rope(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    cos = cos.to(x.dtype)
    sin = sin.to(x.dtype)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


@torch.no_grad()
def eager(inputs, symbols, constants):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    qkv_lora, kv_cache, slot_mapping = inputs["qkv_lora"], inputs["kv_cache"], inputs["slot_mapping"]
    tokens, heads, head_dim = qkv_lora.shape[0], symbols["num_heads"], symbols["qk_head_dim"]
    q_rank, kv_rank, rope, nope = symbols["q_lora_rank"], symbols["kv_lora_rank"], symbols["rope_dim"], symbols["qk_nope_dim"]
    block_size = symbols["block_size"]
    q_c, kv_and_rope = qkv_lora.split([q_rank, kv_rank + rope], -1)
    kv_c, k_pe = kv_and_rope.split([kv_rank, rope], -1)
    q = F.linear(q_c, inputs["q_b_weight"]).view(tokens, heads, head_dim)
    q_nope, q_pe = q.split([nope, rope], dim=-1)
    cos, sin = inputs["cos_sin_cache"].index_select(0, inputs["positions"]).chunk(2, dim=-1)
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    q_pe = _rope(q_pe, cos, sin)
    k_pe = _rope(k_pe.unsqueeze(1), cos, sin).squeeze(1)
    q_out = torch.cat((q_nope, q_pe), dim=-1)
    valid = slot_mapping >= 0
    slots = slot_mapping[valid]
    blocks = torch.div(slots, block_size, rounding_mode="floor")
    offsets = torch.remainder(slots, block_size)
    kv_cache[blocks, offsets, 0, :kv_rank] = kv_c[valid]
    kv_cache[blocks, offsets, 0, kv_rank:] = k_pe[valid]
    return {"q_out": q_out, "kv_cache_out": kv_cache}
