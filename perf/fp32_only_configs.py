"""Drop every CUDA tile table but the float32 ones from ck_configs/ (in place): a build of only the fp32 kernels,
for a quick before/after timing of the fp32 path on the H200 (perf/RESULTS.md "eco10"). Never commit the result.

    python3 perf/fp32_only_configs.py [REPO]
"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
for name in ("fmha_fwd.toml", "fmha_bwd.toml", "fmha_splitkv.toml"):
    path = root / "ck_configs" / name
    blocks = re.split(r"(?m)^(?=\[\[)", path.read_text())
    keep = [b for b in blocks if not (re.search(r'(?m)^target\s*=\s*"cuda"', b) and not re.search(r'(?m)^dtype\s*=\s*"fp32"', b))]
    path.write_text("".join(keep))
    print(f"{name}: kept {len(keep) - 1} of {len(blocks) - 1} tables")
