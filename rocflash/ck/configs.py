"""The Composable Kernel instance list, read from ``ck_configs/ck_fmha.toml`` (one row per tile, expanded per
variant). Imports neither torch nor numpy: setup.py and the ISA audit load it.

Each :class:`CkInstance` has a self-describing name that is also its source file name and its C++ launch
function: ``rocflash_ck_fwd_fp16_d128_b128x128x32x128x32x128_w4x1x1_t32x32x16_qr_batch`` (forward),
``rocflash_ck_bwd_fp16_d128_b16x128x128x16x128x16x32x128x128_w1x4x1_4x1x1_1x4x1_t16x16x32_16x16x16_kr_batch``
(backward: warps per GEMM group 0/2, 1/3 and 4; warp tiles of GEMMs 0/2/4 and 1/3).
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
# fwd variant -> (group mode, logits soft-cap, O in float32, ALiBi). Every instance stores LSE and takes the
# generic runtime mask. *_o32: the training forward (a gradient will be asked for) writes O in float32 (CK's
# ODataType = float): the backward's D = rowsum(dO * O) is computed from it (rocflash.backends.ck), and out is
# that O rounded to the dtype. alibi: CK's BlockAttentionBiasEnum::ALIBI (a float32 slope per (batch, head),
# -slope * |i + seqlen_k - seqlen_q - j| added to the scaled score; rocflash/ck/args.py); CK applies no soft-cap
# with it.
VARIANTS = {"batch": (False, False, False, False), "group": (True, False, False, False),
            "softcap": (False, True, False, False), "batch_o32": (False, False, True, False),
            "group_o32": (True, False, True, False), "alibi": (False, False, False, True),
            "alibi_o32": (False, False, True, True)}
# bwd variant -> (group mode, deterministic, ALiBi). CK's backward has no soft-cap (fmha_bwd_args has no such
# field). deterministic: dQ accumulated per key tile into its own slice of dq_acc and summed in a fixed order by
# convert_dq; otherwise atomically added (flash-attn's deterministic=False).
BWD_VARIANTS = {"batch": (False, False, False), "deterministic": (False, True, False), "group": (True, False, False),
                "group_deterministic": (True, True, False), "alibi": (False, False, True)}
VARIANTS_OF = {"fwd": VARIANTS, "bwd": BWD_VARIANTS}
PIPELINES = ("qr",)
BWD_PIPELINES = ("kr",)  # CK's kr_ktr_vr dQ/dK/dV pipeline (K and K^T, V in registers; Q, dO through LDS)
PIPELINES_OF = {"fwd": PIPELINES, "bwd": BWD_PIPELINES}
KINDS = ("fwd", "bwd")


@dataclasses.dataclass(frozen=True)
class CkInstance:
    """One CK FMHA instance: a tile row of ck_configs/ck_fmha.toml in one variant."""

    kind: str  # "fwd" | "bwd"
    dtype: str  # "fp16" | "bf16"
    hdim: int  # bucket: serves headdim <= hdim (hdim_q and hdim_v), padded
    tile: tuple[int, ...]  # fwd: bm0, bn0, bk0, bn1, bk1, bk0max; bwd: bm0, bn0, bk0, bk1, bk2, bk3, bk4, bhdq, bhdv
    warps: tuple  # fwd: (rm, rn, rk); bwd: three of them (GEMMs 0/2, 1/3, 4)
    warp_tile: tuple  # fwd: (wm, wn, wk); bwd: two of them (GEMMs 0/2/4, 1/3)
    pipeline: str
    variant: str  # VARIANTS_OF[kind]
    archs: tuple[str, ...]

    @property
    def group_mode(self) -> bool:
        return VARIANTS_OF[self.kind][self.variant][0]

    @property
    def softcap(self) -> bool:
        return self.kind == "fwd" and VARIANTS[self.variant][1]

    @property
    def o_fp32(self) -> bool:
        """A forward instance that writes O in float32 (the training forward), not in its dtype."""
        return self.kind == "fwd" and VARIANTS[self.variant][2]

    @property
    def deterministic(self) -> bool:
        return self.kind == "bwd" and BWD_VARIANTS[self.variant][1]

    @property
    def alibi(self) -> bool:
        """Built with CK's ALiBi bias (BlockAttentionBiasEnum::ALIBI): it reads alibi slopes, and serves only
        calls with them."""
        return VARIANTS[self.variant][3] if self.kind == "fwd" else BWD_VARIANTS[self.variant][2]

    @property
    def bm0(self) -> int:
        return self.tile[0]

    @property
    def name(self) -> str:
        """Every template parameter that varies between rocflash's instances, in CK's own notation."""
        def x(t) -> str:
            return "_".join(x(u) for u in t) if t and isinstance(t[0], tuple) else "x".join(map(str, t))

        return (f"rocflash_ck_{self.kind}_{self.dtype}_d{self.hdim}_b{x(self.tile)}_w{x(self.warps)}"
                f"_t{x(self.warp_tile)}_{self.pipeline}_{self.variant}")


def _check_row(row: dict, where: str, archs: tuple[str, ...], kind: str = "fwd") -> None:
    def need(cond: bool, rule: str) -> None:
        if not cond:
            raise ValueError(f"{where}: {rule}, got {row}")

    need(row.get("dtype") in CK_DTYPES, f"dtype must be one of {CK_DTYPES}")
    need(row.get("hdim") in HDIM_BUCKETS, f"hdim must be one of {HDIM_BUCKETS}")
    need(all(a in CK_ARCHS for a in archs), f"archs must be among {CK_ARCHS}")
    if kind == "bwd":
        _check_bwd_row(row, need)
        return
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


def _check_bwd_row(row: dict, need) -> None:
    """CK's rules for a TileFmhaBwdShape (codegen/ops/fmha_bwd.py, pipeline/tile_fmha_shape.hpp)."""
    tile = row.get("tile", [])
    need(len(tile) == 9 and all(isinstance(t, int) and t > 0 for t in tile), "tile must be 9 positive ints "
         "(bm0, bn0, bk0, bk1, bk2, bk3, bk4, bhdq, bhdv)")
    bm0, bn0, bk0, bk1, bk2, bk3, bk4, bhdq, bhdv = tile
    need(bhdq == bhdv == row["hdim"], "tile bhdq and bhdv must equal hdim")
    need(bk0 == bhdq and bk2 == bhdv, "bk0 / bk2 (the QK^T and dO V^T unrolls) must be the whole headdim (kr pipeline)")
    need(bk1 == bm0 and bk3 == bm0, "bk1 / bk3 (the P^T dO and dS^T Q unrolls) must equal bm0")
    need(bn0 % bk4 == 0, "bk4 must divide bn0")
    warps, wt = row.get("warps", []), row.get("warp_tile", [])
    need(len(warps) == 3 and all(len(w) == 3 for w in warps), "warps takes 3 triples (GEMMs 0/2, 1/3, 4)")
    need(len(wt) == 2 and all(len(w) == 3 for w in wt), "warp_tile takes 2 triples (GEMMs 0/2/4, 1/3)")
    n = [w[0] * w[1] * w[2] for w in warps]
    need(n[0] == n[1] == n[2], "every GEMM group must use the same number of warps")
    need(row.get("pipeline") in BWD_PIPELINES, f"pipeline must be one of {BWD_PIPELINES}")
    need(bool(row.get("variants")) and all(v in BWD_VARIANTS for v in row["variants"]),
         f"variants must be a non-empty list of {tuple(BWD_VARIANTS)}")
    need(bm0 % (warps[0][0] * wt[0][0]) == 0 and bn0 % (warps[0][1] * wt[0][1]) == 0,
         "bm0 / bn0 must be multiples of warps0 x warp_tile0")


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
        archs, kind = tuple(table.get("archs", ())), table["kind"]
        deep = (lambda w: tuple(tuple(x) for x in w)) if kind == "bwd" else tuple  # noqa: E731
        for r, row in enumerate(table.get("rows", [])):
            _check_row(row, f"{p.name} [[table]] {t} row {r}", archs, kind)
            for variant in row["variants"]:
                out.append(CkInstance(kind, row["dtype"], row["hdim"], tuple(row["tile"]), deep(row["warps"]),
                                      deep(row["warp_tile"]), row["pipeline"], variant, archs))
    names = [i.name for i in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"{p.name}: instance names must be unique, got duplicates {sorted(dup)}")
    return tuple(out)


def find_instance(dtype: str, headdim: int, variant: str, arch: str,
                  instances: tuple[CkInstance, ...] | None = None, kind: str = "fwd") -> CkInstance | None:
    """The ``kind`` instance that serves (dtype, headdim, variant) on arch: the smallest bucket >= headdim; None
    if the instance list has none (the selector then falls back to rocflash's own kernel)."""
    fits = [i for i in (instances or load_ck_instances()) if i.kind == kind and i.dtype == dtype
            and i.variant == variant and i.hdim >= headdim and arch in i.archs]
    return min(fits, key=lambda i: i.hdim) if fits else None
