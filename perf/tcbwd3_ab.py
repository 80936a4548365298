"""Same-process A/B of the tensor-core dK/dV loop variants of branch tcbwd3 (run U2; EXPERIMENT: the
ROCFLASH_TCBWD3_LOOP switch of hip_src/fmha_mma_bwd.h, read at every launch): perf/bwd_breakdown.py's device time
per kernel for each variant in turn, bf16 batch 4 x nheads 16 x seqlen 4096, non-causal.
  0 = tcbwd2's loop; 1 = one barrier per tile, S^T/dP^T in one k loop, 64-column dQ chunks;
  2 = 1 + bulk dQ reductions (sm_90) + rotated query tiles."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import bwd_breakdown  # noqa: E402

cases = [(["--headdim", "128"], (0, 1, 2)), (["--headdim", "64"], (0, 1, 2)),
         (["--headdim", "128", "--deterministic"], (0, 1, 2))]
for rnd in range(2):  # two rounds: the spread between them is the noise
    for argv, loops in cases:
        for loop in loops:
            os.environ["ROCFLASH_TCBWD3_LOOP"] = str(loop)
            print(f"=== round {rnd} ROCFLASH_TCBWD3_LOOP={loop} {' '.join(argv)}", flush=True)
            bwd_breakdown.main(argv + ["--repeats", "5"])
