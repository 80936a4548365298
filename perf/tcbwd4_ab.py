"""Same-process A/B of the tensor-core dK/dV warp layouts (branch tcbwd4; TEMPORARY switch, see below).

Layout 2 (the configs' s_query_warps = 2: FlashAttention-2's warp grid, P^T and dS^T through shared memory) against
layout 1 (main's tile: d128 block_m 32, d64 block_m 64, 16 keys per warp), selected per launch by the environment
variable ROCFLASH_TCBWD4_LAYOUT1 (read by hip_src/fmha_mma_bwd.h's launcher at each launch; the switch exists only
in the A/B commit). Two rounds, each timing both layouts with perf/bwd_breakdown.py (device time per kernel, torch
profiler, mean of 5 steps), so the order cannot favour one of them.

    python3 perf/tcbwd4_ab.py [--rounds 2] [--cases d128,d128det,d64,d64det,d128causal]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bwd_breakdown  # noqa: E402

CASES = {
    "d128": ["--headdim", "128"],
    "d128det": ["--headdim", "128", "--deterministic"],
    "d64": ["--headdim", "64"],
    "d64det": ["--headdim", "64", "--deterministic"],
    "d128causal": ["--headdim", "128", "--causal"],
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args(argv)
    for r in range(args.rounds):
        for layout in ("1", "2"):
            if layout == "1":
                os.environ["ROCFLASH_TCBWD4_LAYOUT1"] = "1"
            else:
                os.environ.pop("ROCFLASH_TCBWD4_LAYOUT1", None)
            for case in args.cases.split(","):
                print(f"### round {r} layout {layout} case {case}", flush=True)
                bwd_breakdown.main(CASES[case])
    return 0


if __name__ == "__main__":
    sys.exit(main())
