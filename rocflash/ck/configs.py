"""The Composable Kernel instance list, read from ``ck_configs/ck_fmha.toml`` (one row per tile, expanded per
variant). Imports neither torch nor numpy: setup.py and the ISA audit load it.

Each :class:`CkInstance` has a self-describing name that is also its source file name and its C++ launch
function: ``rocflash_ck_fwd_fp16_d128_b128x128x32x128x32x128_w4x1x1_t32x32x16_qr_batch``.
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from pathlib import Path

from ..configs import config_dir
from ..targets import CK_ARCHS

CK_CONFIG_FILE = "ck_fmha.toml"
CK_DTYPES = ("fp16", "bf16")
HDIM_BUCKETS = (32, 64, 128, 256)
# variant -> (group mode, logits soft-cap). Every instance stores LSE and takes the generic runtime mask.
VARIANTS = {"batch": (False, False), "group": (True, False), "softcap": (False, True)}
PIPELINES = ("qr",)
KINDS = ("fwd",)


@dataclasses.dataclass(frozen=True)
class CkInstance:
    """One CK FMHA instance: a tile row of ck_configs/ck_fmha.toml in one variant."""

    kind: str  # "fwd"
    dtype: str  # "fp16" | "bf16"
    hdim: int  # bucket: serves headdim <= hdim (hdim_q and hdim_v), padded
    tile: tuple[int, ...]  # fwd: bm0, bn0, bk0, bn1, bk1, bk0max
    warps: tuple[int, int, int]
    warp_tile: tuple[int, int, int]
    pipeline: str
    variant: str  # VARIANTS
    archs: tuple[str, ...]

    @property
    def group_mode(self) -> bool:
        return VARIANTS[self.variant][0]

    @property
    def softcap(self) -> bool:
        return VARIANTS[self.variant][1]

    @property
    def bm0(self) -> int:
        return self.tile[0]

    @property
    def name(self) -> str:
        """Every template parameter that varies between rocflash's instances, in CK's own notation."""
        x = lambda t: "x".join(map(str, t))  # noqa: E731
        return (f"rocflash_ck_{self.kind}_{self.dtype}_d{self.hdim}_b{x(self.tile)}_w{x(self.warps)}"
                f"_t{x(self.warp_tile)}_{self.pipeline}_{self.variant}")


def _check_row(row: dict, where: str, archs: tuple[str, ...]) -> None:
    def need(cond: bool, rule: str) -> None:
        if not cond:
            raise ValueError(f"{where}: {rule}, got {row}")

    need(row.get("dtype") in CK_DTYPES, f"dtype must be one of {CK_DTYPES}")
    need(row.get("hdim") in HDIM_BUCKETS, f"hdim must be one of {HDIM_BUCKETS}")
    tile = row.get("tile", [])
    need(len(tile) == 6 and all(isinstance(t, int) and t > 0 for t in tile), "tile must be 6 positive ints")
    need(tile[5] == row["hdim"] and tile[3] == row["hdim"], "tile bn1 and bk0max must equal hdim")
    need(row["hdim"] % tile[2] == 0, "bk0 must divide hdim")
    need(len(row.get("warps", [])) == 3 and len(row.get("warp_tile", [])) == 3, "warps and warp_tile take 3 ints")
    need(row.get("pipeline") in PIPELINES, f"pipeline must be one of {PIPELINES}")
    need(bool(row.get("variants")) and all(v in VARIANTS for v in row["variants"]),
         f"variants must be a non-empty list of {tuple(VARIANTS)}")
    wm, wn, _ = row["warp_tile"]
    need(tile[0] % (row["warps"][0] * wm) == 0 and tile[1] % (row["warps"][1] * wn) == 0,
         "bm0 / bn0 must be multiples of warps x warp_tile")
    need(all(a in CK_ARCHS for a in archs), f"archs must be among {CK_ARCHS}")


@functools.cache
def load_ck_instances(path: str | None = None) -> tuple[CkInstance, ...]:
    """Every CK instance of ck_configs/ck_fmha.toml, in file order. ValueError naming row and rule on a bad row."""
    p = Path(path) if path else config_dir() / CK_CONFIG_FILE
    data = tomllib.loads(p.read_text())
    out = []
    for t, table in enumerate(data.get("table", [])):
        if table.get("impl") != "ck" or table.get("kind") not in KINDS:
            raise ValueError(f"{p.name} [[table]] {t}: impl must be 'ck' and kind one of {KINDS}, got "
                             f"{table.get('impl')!r} / {table.get('kind')!r}")
        archs = tuple(table.get("archs", ()))
        for r, row in enumerate(table.get("rows", [])):
            _check_row(row, f"{p.name} [[table]] {t} row {r}", archs)
            for variant in row["variants"]:
                out.append(CkInstance(table["kind"], row["dtype"], row["hdim"], tuple(row["tile"]),
                                      tuple(row["warps"]), tuple(row["warp_tile"]), row["pipeline"], variant, archs))
    names = [i.name for i in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"{p.name}: instance names must be unique, got duplicates {sorted(dup)}")
    return tuple(out)


def find_instance(dtype: str, headdim: int, variant: str, arch: str,
                  instances: tuple[CkInstance, ...] | None = None) -> CkInstance | None:
    """The instance that serves (dtype, headdim, variant) on arch: the smallest bucket >= headdim; None if the
    instance list has none (the selector then falls back to rocflash's own kernel)."""
    fits = [i for i in (instances or load_ck_instances()) if i.dtype == dtype and i.variant == variant
            and i.hdim >= headdim and arch in i.archs]
    return min(fits, key=lambda i: i.hdim) if fits else None
