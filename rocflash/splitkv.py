"""Split-KV decode (flash-decoding): when the split kernel runs, how many splits, and where they start.

One source of truth for the compiled kernel (hip_src/fmha_splitkv_kernel.h), the backends that mimic its
split boundaries (sim) and the benchmark that records the heuristic's choices. Imports neither torch nor
numpy.

- The split kernel runs for few query rows per kv-head (``seqlen_q * nheads / nheads_k <= MAX_ROWS``: decode
  and short speculative steps) and whenever the caller asks for ``num_splits > 1``; other calls run the
  forward kernel.
- ``num_splits = 0`` picks the count with :func:`num_splits_heuristic`; ``1`` means no split.
- Split ``s`` covers keys ``[s * kps, (s + 1) * kps)`` of every sequence with ``kps = split_keys(...)``;
  splits past a sequence's length are empty (LSE -inf, weight 0 in the combine).
- The CUDA build's tensor-core split kernel (``impl = "mma"``, ROCFLASH_KERNEL=auto on sm_80+) follows the same
  rules with its own tile (block_m 16, block_n 64) and occupancy (``"cuda-mma"``); the sim mirrors the vector
  tiles, so against the tensor-core kernel it agrees within tolerance, not bit for bit.
"""

from __future__ import annotations

MAX_ROWS = 16  # query rows per kv-head (seqlen_q x GQA group) up to which decode takes the split kernel
MAX_SPLITS = 128
MIN_KEYS_PER_SPLIT = 256  # below this a split's fixed cost (Q load, LDS merge, combine) outweighs its keys
# Resident split-KV blocks per CU/SM: CUDA asks for 3 (kSplitKvCudaBlocksPerSm, fmha_splitkv_kernel.h); the gfx9
# tiles run 1 wave per SIMD (waves_per_simd) and 2 waves per block, i.e. 4 SIMDs / 2 = 2 blocks per CU.
# The tensor-core kernel (fmha_splitkv_mma.h) is bound by its shared-memory K/V rings: 2 blocks of 98,304 B
# (bf16/fp16 d128, unpadded swizzled rows since dec12) per sm_90 SM.
BLOCKS_PER_CU = {"cuda": 3, "hip": 2, "cuda-mma": 2}
# The CUDA vector kernel's float32 instances are compiled for 2 blocks per SM (kSplitKvCudaBlocksPerSmOf, eco14: their
# fp64 lane sums of Q.K need 241 registers, 3 blocks' 168 spilled): the heuristic's slots for fp32 decode there.
FP32_BLOCKS_PER_CU = {"cuda": 2}


def vector_blocks_per_cu(platform: str, dtype: str) -> int | None:
    """Resident blocks per CU/SM of the vector split-KV kernel for ``dtype`` ("fp16", "bf16", "fp32") where they
    differ from BLOCKS_PER_CU[platform] (fp32 on CUDA), else None (the platform's)."""
    return FP32_BLOCKS_PER_CU.get(platform) if dtype == "fp32" else None
MIN_EFFICIENCY = 0.9  # of the best wave efficiency: the smallest split count that reaches it wins
# The tensor-core kernel (2 blocks per SM) wants its resident slots all but full: at batch 1 the 0.9 rule took 30
# splits (240 of 264 slots) where one full wave, 32-33 splits, measured faster (perf/RESULTS.md, D1 sweep: 1 x
# 128k keys, 33 splits 3731 GB/s, 30 splits 3553); batch 8 and 32 keep their picks (4 and 1 split: 256 of 264).
MIN_EFFICIENCY_BY_KEY = {"cuda-mma": 0.95}
# Split rules (ROCFLASH_SPLITKV_SPLITS, rocflash.envvars; the compiled backend passes it as ``rule``):
#   "wave" (default) the rule above;
#   "fill"  (opt-in, branch dec7; H200, perf/RESULTS.md final call of 2026-12-01: 1.08x graphs at 1 x 4k, the
#           same pick at 1 x 16k, 8 x 16k, 32 x 16k) the same wave-efficiency rule with a lower floor of keys per
#           split for the tensor-core kernel only (MIN_KEYS_PER_SPLIT_FILL): 2 x its block_n = 128 keys, i.e. each of
#           its 4 warps gets kStages - 1 = 2 tiles of 16 keys, the prologue's copies: the whole split is in flight
#           after the prologue. Where the 256-key floor capped the count below one wave of resident blocks (batch 1
#           at seqlen_k < 8k, batch 2 at < 4k on an H200: 132 SMs x 2 blocks = 264 slots; 1 x 4k: 16 splits = 128
#           blocks, half the slots) it fills the wave (1 x 4k: 32 splits = 256 blocks). Given the tile's block_n it
#           also counts only the non-empty splits (split_keys rounds keys per split up to block_n: "wave" picks 31
#           splits at 1 x 8k, of which 26 hold keys; "fill" takes only counts whose every split holds keys: 32).
#           Other keys (AMD, the CUDA vector kernel) pick the same count as "wave".
SPLIT_RULES = ("wave", "fill")
MIN_KEYS_PER_SPLIT_FILL = {"cuda-mma": 128}
# float32 statistics per (split, head, row) in the split kernels' partial buffer lse_accum, shape (num_splits, nheads,
# total_q, SPLIT_STATS) (hip_src/fmha_common.h kSplitStats): the split's max score m_s (log2 units), its row sum l_s
# and the row's ALiBi shift (eco14: one float32 LSE_s swamped log(l_s) at |LSE| ~ 1e19, adv16).
SPLIT_STATS = 3


def use_split_kernel(max_seqlen_q: int, group: int, num_splits: int) -> bool:
    """Whether a call runs the split-KV kernel (see the module docstring)."""
    return num_splits > 1 or max_seqlen_q * group <= MAX_ROWS


def occupancy_key(platform: str, math: str) -> str:
    """The BLOCKS_PER_CU key of a split-KV launch: the platform, or "cuda-mma" for the tensor-core kernel."""
    return f"{platform}-mma" if math == "mma" else platform


def row_chunks(max_seqlen_q: int, group: int, block_m: int) -> int:
    """Blocks per (sequence, kv-head, split) along the query rows."""
    return -(-max_seqlen_q * group // block_m)


def wave_efficiency(blocks: int, capacity: int) -> float:
    """blocks / (waves x capacity): the share of resident block slots busy, averaged over the waves."""
    return blocks / (-(-blocks // capacity) * capacity)


def num_splits_heuristic(batch: int, nheads_k: int, chunks: int, max_seqlen_k: int, num_cus: int,
                         platform: str = "cuda", blocks_per_cu: int | None = None, rule: str = "wave",
                         block_n: int = 0) -> int:
    """Split count for ``num_splits = 0`` (flash-attn's rule, with this kernel's occupancy): among the counts
    that leave at least MIN_KEYS_PER_SPLIT keys per split (at most MAX_SPLITS), the smallest whose wave
    efficiency over the resident slots (num_cus x BLOCKS_PER_CU[platform], or x blocks_per_cu when the caller
    knows the device's shared memory limit) is within MIN_EFFICIENCY (MIN_EFFICIENCY_BY_KEY[platform]) of the
    best. Decode blocks are latency-bound, so a partly filled last wave costs nearly a full one (H200 sweep in
    perf/RESULTS.md, run I2: batch 8 x 16k keys, 6 splits 2064 GB/s, 8 splits 1492). Deterministic in its
    arguments, so repeated calls with the same shapes give bitwise identical results. ``rule``: one of SPLIT_RULES
    ("fill", where MIN_KEYS_PER_SPLIT_FILL has an entry for ``platform``: that floor of keys per split, and with
    ``block_n`` > 0 only counts whose splits all hold keys after split_keys' rounding); ValueError for another
    value."""
    if rule not in SPLIT_RULES:
        raise ValueError(f"num_splits_heuristic: rule must be one of {', '.join(SPLIT_RULES)}, got {rule!r}")
    if min(batch, nheads_k, chunks, max_seqlen_k, num_cus) <= 0:
        return 1
    blocks = batch * nheads_k * chunks
    capacity = num_cus * (blocks_per_cu or BLOCKS_PER_CU.get(platform, 2))
    fill = rule == "fill" and platform in MIN_KEYS_PER_SPLIT_FILL
    most = max(1, min(max_seqlen_k // (MIN_KEYS_PER_SPLIT_FILL[platform] if fill else MIN_KEYS_PER_SPLIT), MAX_SPLITS))
    counts = range(1, most + 1)
    if fill and block_n > 0:  # no empty splits: ceil(max_seqlen_k / keys per split) == n
        counts = [n for n in counts if -(-max_seqlen_k // split_keys(max_seqlen_k, n, block_n)) == n] or [1]
    eff = {n: wave_efficiency(blocks * n, capacity) for n in counts}
    best = max(eff.values())
    share = MIN_EFFICIENCY_BY_KEY.get(platform, MIN_EFFICIENCY)
    return min(n for n, e in eff.items() if e >= share * best)


def split_keys(max_seqlen_k: int, num_splits: int, block_n: int) -> int:
    """Keys per split: ceil(max_seqlen_k / num_splits) rounded up to block_n (the kernel's split_keys)."""
    per = -(-max_seqlen_k // num_splits)
    return -(-per // block_n) * block_n


def split_bounds(seqlen_k: int, max_seqlen_k: int, num_splits: int, block_n: int) -> list[tuple[int, int]]:
    """[(first key, end key)) of every split for a sequence of seqlen_k keys (empty splits included)."""
    kps = split_keys(max_seqlen_k, num_splits, block_n)
    return [(min(s * kps, seqlen_k), min((s + 1) * kps, seqlen_k)) for s in range(num_splits)]
