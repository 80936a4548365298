"""Benchmark cases and presets (built in, or a YAML file: needs pyyaml).

A preset is a mapping with ``defaults`` (fields every case starts from), and ``cases`` (a list of
mappings) and/or ``grid`` (a mapping of field -> list of values; every combination becomes a case)::

    name: mi50-validation            # optional
    defaults: {dtype: fp16, nheads: 32, headdim: 64, tokens: 131072}
    grid: {seqlen: [1024, 2048, 4096, 8192], causal: [false, true]}
    cases:
      - {batch: 1, seqlen_q: 1, seqlen_k: 65536, nheads: 32, nheads_k: 8, headdim: 128}

Case fields: batch, seqlen (sets seqlen_q and seqlen_k), seqlen_q, seqlen_k, nheads, nheads_k (default
nheads), headdim, dtype (fp16 | bf16 | fp32), causal, window ([left, right], -1 = unbounded), tokens (when
batch is absent: batch = max(1, tokens // (nheads * seqlen_q))), page_size (0 = dense K/V; a multiple of 16
from 16 to 256: rocflash reads a paged copy of K/V through flash_attn_with_kvcache's block_table, shuffled pages,
while SDPA reads the dense tensors of the same values), name (a label).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from . import models

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
FIELDS = ("batch", "seqlen", "seqlen_q", "seqlen_k", "nheads", "nheads_k", "headdim", "dtype", "causal", "window",
          "tokens", "page_size", "name")


@dataclass(frozen=True)
class Case:
    """One attention problem. Tensors: q (batch, seqlen_q, nheads, headdim), k/v (batch, seqlen_k, nheads_k,
    headdim), of ``dtype``. ``direction`` "fwd" times the forward, "fwd+bwd" forward plus backward."""

    batch: int
    seqlen_q: int
    seqlen_k: int
    nheads: int
    nheads_k: int
    headdim: int
    dtype: str = "fp16"
    causal: bool = False
    window_left: int = -1
    window_right: int = -1
    direction: str = "fwd"
    preset: str = ""
    name: str = ""
    page_size: int = 0  # 0: dense K/V; else rocflash reads a paged KV cache of these pages (block_table)

    def __post_init__(self):
        for f in ("batch", "seqlen_q", "seqlen_k", "nheads", "nheads_k", "headdim"):
            v = getattr(self, f)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"case field {f} must be an int >= 1, got {v!r}")
        if self.nheads % self.nheads_k:
            raise ValueError(f"case field nheads must be a multiple of nheads_k, got nheads={self.nheads}, "
                             f"nheads_k={self.nheads_k}")
        if self.headdim > 256:
            raise ValueError(f"case field headdim must be <= 256, got {self.headdim}")
        if self.dtype not in DTYPES:
            raise ValueError(f"case field dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if not isinstance(self.causal, bool):
            raise ValueError(f"case field causal must be a bool, got {self.causal!r}")
        models._check_window(self.window_left, self.window_right)
        if self.causal and self.window_right not in (-1, 0):
            raise ValueError(f"case field window right must be -1 or 0 with causal, got {self.window_right}")
        models._check_direction(self.direction)
        if not isinstance(self.page_size, int) or isinstance(self.page_size, bool) or (
                self.page_size and (self.page_size % 16 or not 16 <= self.page_size <= 256)):
            raise ValueError(f"case field page_size must be 0 (dense) or a multiple of 16 from 16 to 256, "
                             f"got {self.page_size!r}")
        if self.page_size and self.direction != "fwd":
            raise ValueError(f"case field page_size needs direction fwd (the KV-cache call is forward only), "
                             f"got {self.direction!r}")

    # ---- the mask as flash-attn sees it
    @property
    def right(self) -> int:
        """Effective right window bound (causal is right = 0)."""
        return 0 if self.causal else self.window_right

    @property
    def masked(self) -> bool:
        return self.causal or self.window_left >= 0 or self.window_right >= 0

    @property
    def group(self) -> int:
        return self.nheads // self.nheads_k

    @property
    def torch_dtype(self) -> torch.dtype:
        return DTYPES[self.dtype]

    @property
    def elem_bytes(self) -> int:
        return torch.tensor([], dtype=self.torch_dtype).element_size()

    # ---- models
    @property
    def flop(self) -> float:
        return models.attention_flops(self.batch, self.nheads, self.seqlen_q, self.seqlen_k, self.headdim,
                                      self.window_left, self.right, self.direction)

    @property
    def bytes(self) -> int:
        return models.attention_bytes(self.batch, self.nheads, self.nheads_k, self.seqlen_q, self.seqlen_k,
                                      self.headdim, self.elem_bytes, self.window_left, self.right, self.direction)

    def input_bytes(self) -> int:
        """Bytes of one input set: q, k, v (and dO for fwd+bwd)."""
        q = self.batch * self.seqlen_q * self.nheads * self.headdim * self.elem_bytes
        kv = 2 * self.batch * self.seqlen_k * self.nheads_k * self.headdim * self.elem_bytes
        return q + kv + (q if self.direction == "fwd+bwd" else 0)

    # ---- names
    @property
    def case_id(self) -> str:
        """Stable key of the problem (compare.py matches results on case_id and method)."""
        parts = [f"b{self.batch}", f"h{self.nheads}" + (f"-{self.nheads_k}" if self.nheads_k != self.nheads else ""),
                 f"q{self.seqlen_q}", f"k{self.seqlen_k}", f"d{self.headdim}", self.dtype]
        if self.causal:
            parts.append("causal")
        if self.window_left >= 0 or self.window_right >= 0:
            parts.append(f"win{self.window_left},{self.window_right}")
        if self.page_size:
            parts.append(f"page{self.page_size}")
        parts.append(self.direction)
        return "_".join(parts)

    @property
    def label(self) -> str:
        heads = f"h{self.nheads}" + (f"/{self.nheads_k}" if self.nheads_k != self.nheads else "")
        s = f"b{self.batch} {heads} q{self.seqlen_q} k{self.seqlen_k} d{self.headdim} {self.dtype}"
        if self.causal:
            s += " causal"
        if self.window_left >= 0 or self.window_right >= 0:
            s += f" win({self.window_left},{self.window_right})"
        if self.page_size:
            s += f" paged{self.page_size}"
        if self.direction != "fwd":
            s += f" {self.direction}"
        return s

    def to_dict(self) -> dict:
        """The JSON form: the fields, with the window as ``window: [left, right]``."""
        d = asdict(self)
        d["window"] = [d.pop("window_left"), d.pop("window_right")]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Case":
        """Inverse of ``to_dict`` (a results file's ``case``)."""
        d = dict(d)
        left, right = d.pop("window", (-1, -1))
        return cls(**d, window_left=left, window_right=right)


def case_from_dict(d: dict, preset: str = "") -> Case:
    """Build a Case from a preset entry (see the module docstring for the fields)."""
    unknown = sorted(set(d) - set(FIELDS))
    if unknown:
        raise ValueError(f"case fields must be among {', '.join(FIELDS)}, got {', '.join(map(repr, unknown))}")
    d = dict(d)
    seqlen = d.pop("seqlen", None)
    sq, sk = d.pop("seqlen_q", seqlen), d.pop("seqlen_k", seqlen)
    if sq is None or sk is None:
        raise ValueError(f"a case needs seqlen or both seqlen_q and seqlen_k, got {d!r}")
    for f in ("nheads", "headdim"):
        if f not in d:
            raise ValueError(f"a case needs {f}, got {d!r}")
    nheads = d.pop("nheads")
    tokens = d.pop("tokens", None)
    batch = d.pop("batch", None)
    if batch is None:
        if tokens is None:
            raise ValueError(f"a case needs batch or tokens, got {d!r}")
        for f, val in (("nheads", nheads), ("seqlen_q", sq)):
            if not isinstance(val, int) or isinstance(val, bool) or val < 1:
                raise ValueError(f"case field {f} must be an int >= 1, got {val!r}")
        batch = max(1, int(tokens) // (nheads * sq))
    window = d.pop("window", (-1, -1))
    if not isinstance(window, (list, tuple)) or len(window) != 2:
        raise ValueError(f"case field window must be [left, right], got {window!r}")
    return Case(batch=batch, seqlen_q=sq, seqlen_k=sk, nheads=nheads, nheads_k=d.pop("nheads_k", nheads),
                headdim=d.pop("headdim"), dtype=d.pop("dtype", "fp16"), causal=d.pop("causal", False),
                window_left=window[0], window_right=window[1], preset=preset, name=str(d.pop("name", "")),
                page_size=d.pop("page_size", 0))


def expand_preset(spec: dict, preset: str = "") -> list[Case]:
    """The cases of a preset mapping: each ``cases`` entry, then every ``grid`` combination, on ``defaults``."""
    if not isinstance(spec, dict):
        raise ValueError(f"a preset must be a mapping with defaults/cases/grid, got {type(spec).__name__}")
    unknown = sorted(set(spec) - {"name", "description", "defaults", "cases", "grid"})
    if unknown:
        raise ValueError(f"preset keys must be among name, description, defaults, cases, grid, got {unknown}")
    defaults = spec.get("defaults") or {}
    entries = [dict(defaults, **c) for c in spec.get("cases") or []]
    grid = spec.get("grid") or {}
    if grid:
        keys = list(grid)
        for k in keys:
            if not isinstance(grid[k], list) or not grid[k]:
                raise ValueError(f"grid field {k} must be a non-empty list, got {grid[k]!r}")
        for values in itertools.product(*(grid[k] for k in keys)):
            entries.append(dict(defaults, **dict(zip(keys, values))))
    if not entries:
        raise ValueError(f"preset {preset or spec.get('name', '')!r} has no cases (give cases and/or grid)")
    return [case_from_dict(e, preset or spec.get("name", "")) for e in entries]


# ---------------------------------------------------------------------------------------------- presets
# B*H*N = 524288 for prefill, as in the H200 anchors (shared/reference/facts.md section 7).
PRESETS: dict[str, dict] = {
    "default": {
        "description": "headline forward: batch 4, 32 heads, seqlen 4096, headdim 128, fp16 (and its causal twin), "
                       "plus one GQA decode step",
        "defaults": {"dtype": "fp16", "nheads": 32, "headdim": 128},
        "cases": [
            {"batch": 4, "seqlen": 4096, "causal": False},
            {"batch": 4, "seqlen": 4096, "causal": True},
            {"batch": 8, "seqlen_q": 1, "seqlen_k": 16384, "nheads_k": 8},
        ],
    },
    "train": {
        "description": "training/prefill: seqlen 1k-16k, headdim 64 and 128, causal and not, "
                       "batch*nheads*seqlen = 524288, 16 heads",
        "defaults": {"dtype": "fp16", "nheads": 16, "tokens": 524288},
        "grid": {"headdim": [64, 128], "seqlen": [1024, 2048, 4096, 8192, 16384], "causal": [False, True]},
    },
    "decode": {
        "description": "seqlen_q 1 over long KV caches, GQA 32/8 heads, headdim 128, bf16 "
                       "(bandwidth is the ceiling); the H200 anchor cases",
        "defaults": {"dtype": "bf16", "seqlen_q": 1, "nheads": 32, "nheads_k": 8, "headdim": 128},
        "grid": {"batch": [1, 8, 32], "seqlen_k": [4096, 16384, 131072]},  # issue 9's decode preset
    },
    "decode-paged": {
        "description": "the decode preset on a paged KV cache (pages of 16 and 256 rows, shuffled block table) "
                       "through flash_attn_with_kvcache; SDPA reads the same values dense",
        "defaults": {"dtype": "bf16", "seqlen_q": 1, "nheads": 32, "nheads_k": 8, "headdim": 128},
        "grid": {"page_size": [16, 256], "batch": [1, 8, 32], "seqlen_k": [4096, 16384, 131072]},
    },
    "smoke": {
        "description": "tiny CPU cases for CI (seconds): MHA, GQA, bottom-right causal with seqlen_q != seqlen_k, "
                       "a sliding window, a decode step",
        "defaults": {"dtype": "fp32", "batch": 1, "nheads": 2, "headdim": 32},
        "cases": [
            {"seqlen": 128},
            {"seqlen": 96, "nheads": 4, "nheads_k": 2, "dtype": "bf16", "causal": True},
            {"seqlen_q": 40, "seqlen_k": 100, "causal": True},
            {"seqlen_q": 64, "seqlen_k": 80, "window": [16, 8]},
            {"batch": 2, "seqlen_q": 1, "seqlen_k": 256, "nheads": 4, "nheads_k": 1},
        ],
    },
}


def load_yaml(path: str | Path) -> dict:
    try:
        import yaml
    except ImportError as e:
        raise RuntimeError(f"--preset {path}: YAML presets need pyyaml (pip install pyyaml)") from e
    with open(path) as f:
        return yaml.safe_load(f)


def resolve_presets(names: list[str]) -> list[Case]:
    """Cases of built-in preset names and/or YAML paths, in order."""
    cases: list[Case] = []
    for n in names:
        if n in PRESETS:
            cases += expand_preset(PRESETS[n], n)
        elif n.endswith((".yaml", ".yml")):
            if not Path(n).is_file():
                raise ValueError(f"--preset {n}: no such file")
            cases += expand_preset(load_yaml(n), Path(n).stem)
        else:
            raise ValueError(f"--preset must be one of {', '.join(PRESETS)} or a .yaml file, got {n!r}")
    return cases


def apply_overrides(cases: list[Case], dtype: str | None = None, causal: bool = False, bwd: bool = False) -> list[Case]:
    """--dtype replaces every case's dtype, --causal makes every case causal (a window's right bound becomes
    0), --bwd times forward+backward; duplicates that result are dropped (first kept)."""
    out, seen = [], set()
    for c in cases:
        if dtype is not None:
            c = replace(c, dtype=dtype)
        if causal:
            c = replace(c, causal=True, window_right=-1 if c.window_right < 0 else 0)
        if bwd:
            c = replace(c, direction="fwd+bwd")
        if c.case_id not in seen:  # also across presets: a shared case is measured once
            seen.add(c.case_id)
            out.append(c)
    return out
