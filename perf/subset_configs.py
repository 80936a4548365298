"""Keep only some CUDA tile tables in ck_configs/ (in place; disposable device copies only, never commit the result):
a build of the few instances one device call needs, when a full sm_90 build (about 140 s on the H200's 16 cores)
does not fit the call's share. AMD tables are left alone (the CUDA build does not read them).

    python3 perf/subset_configs.py [--headdims 128] [--dtypes fp16,bf16,fp32] [--also-impl sbcast] [REPO]

A table is kept when its headdim and dtype are listed, or its impl is in --also-impl (any headdim / dtype).
perf/fp32_only_configs.py is the dtype-only special case.
"""
import argparse
import re
from pathlib import Path

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("repo", nargs="?", default=str(Path(__file__).resolve().parent.parent))
ap.add_argument("--headdims", default="128", help="comma-separated headdims to keep (default 128)")
ap.add_argument("--dtypes", default="fp16,bf16,fp32", help="comma-separated dtypes to keep")
ap.add_argument("--also-impl", default="", help="comma-separated impls kept at every headdim and dtype (e.g. sbcast)")
a = ap.parse_args()
heads, dtypes = set(a.headdims.split(",")), set(a.dtypes.split(","))
impls = {x for x in a.also_impl.split(",") if x}


def field(block, name):
    m = re.search(rf'(?m)^{name}\s*=\s*"?([\w.]+)"?', block)
    return m.group(1) if m else None


for name in ("fmha_fwd.toml", "fmha_bwd.toml", "fmha_splitkv.toml"):
    path = Path(a.repo) / "ck_configs" / name
    blocks = re.split(r"(?m)^(?=\[\[)", path.read_text())
    keep = [blocks[0]] + [b for b in blocks[1:] if field(b, "target") != "cuda" or field(b, "impl") in impls
                          or (field(b, "headdim") in heads and field(b, "dtype") in dtypes)]
    path.write_text("".join(keep))
    print(f"{name}: kept {len(keep) - 1} of {len(blocks) - 1} tables")
