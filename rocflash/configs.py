"""Tile configs of the kernels, loaded from ``ck_configs/`` (TOML).

``fmha_fwd.toml`` holds the forward configs (tables ``[[fwd]]``), ``fmha_bwd.toml`` the backward ones
(``[[bwd_dkdv]]`` for the dK/dV kernel, ``[[bwd_dq]]`` for the dQ kernel), ``fmha_splitkv.toml`` the split-KV
decode kernel's (``[[fwd_splitkv]]``). The TOML files are the single
source of the tile sizes: the build generates one kernel instance per entry (:mod:`rocflash.codegen`),
the ``sim`` backend simulates the same tiling, and the ISA audit checks each instance against the
occupancy recorded next to it. This module imports neither torch nor numpy, so ``setup.py`` can load it
before torch is importable.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tomllib
from pathlib import Path

DTYPES = ("fp16", "bf16", "fp32")
ELEM_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4}
TARGETS = ("gfx9", "cuda")
KINDS = ("fwd", "bwd_dkdv", "bwd_dq", "fwd_splitkv")
_FILES = {"fwd": "fmha_fwd.toml", "bwd_dkdv": "fmha_bwd.toml", "bwd_dq": "fmha_bwd.toml",
          "fwd_splitkv": "fmha_splitkv.toml"}
# Tile maths: "vector" (dot2/FMA on the vector ALU, every target) and "mma" (tensor cores through mma.sync,
# CUDA target only, fp16/bf16: forward hip_src/fmha_mma.h, backward dK/dV and dQ hip_src/fmha_mma_bwd.h).
# "sbcast": the scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h: one query row per lane, K/V rows through the
# gfx9 scalar cache as v_dot2's SGPR operand, no LDS; the CUDA build runs its logic with plain loads), fp16
# headdim 64 / 128, aligned load path only.
IMPLS = ("vector", "mma", "sbcast")


@dataclasses.dataclass(frozen=True, kw_only=True)
class TileConfig:
    """One kernel tile config (see the field comments in ``ck_configs/fmha_fwd.toml`` / ``fmha_bwd.toml``)."""

    target: str  # "gfx9" (every AMD gfx9 arch) or "cuda"
    dtype: str  # "fp16" | "bf16" | "fp32"
    headdim: int  # headdim bucket
    block_m: int  # Br, query rows per block
    block_n: int  # Bc, keys per K/V tile
    threads: int  # threads per block
    threads_n: int  # lanes per row group
    lds_pad_bytes: int  # padding after each Q / K / Vp row in LDS
    waves_per_simd: int  # designed gfx906 occupancy (0: not applicable)
    kind: str = "fwd"  # "fwd" | "bwd_dkdv" | "bwd_dq" | "fwd_splitkv" (the TOML table it came from)
    impl: str = "vector"  # tile math: "vector" | "mma" (optional in the TOML, default "vector")
    # tensor-core dK/dV only (optional in the TOML; MmaBwdDkdvShape, hip_src/fmha_mma_bwd_tile.h):
    s_query_warps: int = 1  # warps along S^T's queries: 1 (keys only) or 2 (FlashAttention-2's grid, P^T/dS^T in LDS)
    q_buffers: int = 2  # Q/dO buffers: 2 (double-buffered) or 1 (s_query_warps 2 only)
    # the atomic-dQ kernel's tile (deterministic=False) where it differs; 0 = the fields above
    atomic_block_m: int = 0
    atomic_s_query_warps: int = 0
    atomic_q_buffers: int = 0

    @property
    def elem_bytes(self) -> int:
        return ELEM_BYTES[self.dtype]

    @property
    def tile_name(self) -> str:
        """Self-describing instance stem, e.g. ``gfx9_fp16_d128_b64x64_t256x16_p16``; tensor-core configs
        name their tile math after the target: ``cuda_mma_bf16_d128_b128x64_t256x4_p16``."""
        impl = "" if self.impl == "vector" else f"_{self.impl}"
        return (
            f"{self.target}{impl}_{self.dtype}_d{self.headdim}_b{self.block_m}x{self.block_n}"
            f"_t{self.threads}x{self.threads_n}_p{self.lds_pad_bytes}"
            + (f"_g{self.s_query_warps}q{self.q_buffers}" if (self.s_query_warps, self.q_buffers) != (1, 2) else "")
            + (f"_a{a.block_m}g{a.s_query_warps}q{a.q_buffers}" if (a := self.atomic_config()) != self else "")
        )

    def atomic_config(self) -> "TileConfig":
        """The tile of a tensor-core dK/dV config's atomic-dQ kernel (deterministic=False): this config with its
        atomic_* fields (those that are non-zero) in place of block_m, s_query_warps, q_buffers."""
        if not (self.atomic_block_m or self.atomic_s_query_warps or self.atomic_q_buffers):
            return self
        return dataclasses.replace(self, block_m=self.atomic_block_m or self.block_m,
                                   s_query_warps=self.atomic_s_query_warps or self.s_query_warps,
                                   q_buffers=self.atomic_q_buffers or self.q_buffers,
                                   atomic_block_m=0, atomic_s_query_warps=0, atomic_q_buffers=0)

    @property
    def struct_name(self) -> str:
        """C++ tile type of the instance, e.g. ``Tile_gfx9_fp16_d128_b64x64_t256x16_p16`` (forward),
        ``Tile_bwd_dq_gfx9_fp16_d128_b64x32_t256x16_p16``."""
        return f"Tile_{self.tile_name}" if self.kind == "fwd" else f"Tile_{self.kind}_{self.tile_name}"

    def kernel_name(self, aligned: bool) -> str:
        """Name of one compiled instance: kind, tile name and load path (``vec`` = 128-bit loads)."""
        return f"rocflash_fmha_{self.kind}_{self.tile_name}_{'vec' if aligned else 'narrow'}"

    def validate(self) -> None:
        """Raise ValueError naming the field and the rule a config breaks."""
        if self.target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}, got {self.target!r}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {self.dtype!r}")
        for name in ("headdim", "block_m", "block_n", "threads", "threads_n"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.threads_n > 32 or self.threads_n & (self.threads_n - 1):
            raise ValueError(f"threads_n must be a power of 2 <= 32, got {self.threads_n}")
        if self.threads % self.threads_n:
            raise ValueError(f"threads must be a multiple of threads_n={self.threads_n}, got {self.threads}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        for name in ("headdim", "block_m", "block_n", "threads", "threads_n", "lds_pad_bytes", "waves_per_simd",
                     "s_query_warps", "q_buffers", "atomic_block_m", "atomic_s_query_warps", "atomic_q_buffers"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be an int, got {value!r}")
        if self.waves_per_simd < 0:
            raise ValueError(f"waves_per_simd must be >= 0 (0 = not applicable), got {self.waves_per_simd}")
        if self.impl not in IMPLS:
            raise ValueError(f"impl must be one of {IMPLS}, got {self.impl!r}")
        if (self.s_query_warps, self.q_buffers, self.atomic_block_m, self.atomic_s_query_warps,
                self.atomic_q_buffers) != (1, 2, 0, 0, 0) and (self.kind, self.impl) != ("bwd_dkdv", "mma"):
            raise ValueError(f"s_query_warps, q_buffers and atomic_* are fields of the tensor-core dK/dV kernel (kind 'bwd_dkdv', "
                             f"impl 'mma'), got s_query_warps={self.s_query_warps} q_buffers={self.q_buffers} for "
                             f"kind={self.kind!r} impl={self.impl!r}")
        if self.impl == "sbcast":
            self._validate_sbcast()
            return
        if self.impl == "mma":
            self._validate_mma()
            if self.kind == "bwd_dkdv" and self.atomic_config() is not self:
                try:
                    self.atomic_config().validate()
                except ValueError as e:
                    raise ValueError(f"atomic_block_m / atomic_s_query_warps / atomic_q_buffers: {e}") from None
            if self.kind != "fwd":  # the split-KV and backward rules were all checked by _validate_mma
                return
        if self.kind == "fwd_splitkv":
            self._validate_splitkv()
            return
        row_groups = self.threads // self.threads_n
        if self.block_m % row_groups or self.block_m % 2:
            raise ValueError(f"block_m must be even and a multiple of threads/threads_n={row_groups}, got {self.block_m}")
        if self.block_n % self.threads_n or self.block_n % 2:
            raise ValueError(f"block_n must be even and a multiple of threads_n={self.threads_n}, got {self.block_n}")
        if self.kind == "bwd_dkdv":  # dK/dV rows are keys: block_n rows over the row groups; P^T rows over block_m
            if self.block_n % row_groups:
                raise ValueError(f"block_n must be a multiple of threads/threads_n={row_groups} (dK/dV rows), got {self.block_n}")
            if (self.block_m * self.elem_bytes) % 16:
                raise ValueError(f"block_m * {self.elem_bytes} bytes must fill 16-byte vectors, got block_m={self.block_m}")
        elif (self.block_n * self.elem_bytes) % 16:
            raise ValueError(f"block_n * {self.elem_bytes} bytes must fill 16-byte vectors, got block_n={self.block_n}")
        if (self.headdim * self.elem_bytes) % 16 or self.headdim % self.threads_n:
            raise ValueError(
                f"headdim must fill 16-byte vectors and be a multiple of threads_n={self.threads_n}, got {self.headdim}"
            )
        if self.lds_pad_bytes < 0 or self.lds_pad_bytes % 16:
            raise ValueError(f"lds_pad_bytes must be a non-negative multiple of 16, got {self.lds_pad_bytes}")

    def _validate_sbcast(self) -> None:
        """The rules of hip_src/fmha_fwd_sbcast.h (SbcastShape::valid)."""
        if self.kind != "fwd" or self.dtype != "fp16":
            raise ValueError(f"impl 'sbcast' is an fp16 forward, got kind={self.kind!r} dtype={self.dtype!r}")
        if self.headdim not in (64, 128):
            raise ValueError(f"headdim must be 64 or 128 for impl 'sbcast' (K rows read whole), got {self.headdim}")
        if self.block_m != self.threads or self.threads_n != 1 or self.threads % 64:
            raise ValueError(f"impl 'sbcast' runs one query row per thread: block_m == threads (whole waves of 64) and "
                             f"threads_n == 1, got block_m={self.block_m} threads={self.threads} threads_n={self.threads_n}")
        if self.block_n % 2 or self.lds_pad_bytes != 0:
            raise ValueError(f"impl 'sbcast' needs an even block_n (P.V in key pairs) and lds_pad_bytes 0 (no LDS), got "
                             f"block_n={self.block_n} lds_pad_bytes={self.lds_pad_bytes}")

    def _validate_mma(self) -> None:
        """The rules of hip_src/fmha_mma_tile.h (MmaFwdTileShape::valid), for the split-KV kind
        hip_src/fmha_splitkv_mma.h (MmaSplitKvShape::valid), for the backward kinds hip_src/fmha_mma_bwd_tile.h
        (MmaBwdDkdvShape / MmaBwdDqShape::valid)."""
        if self.target != "cuda" or self.kind not in ("fwd", "fwd_splitkv", "bwd_dkdv", "bwd_dq") or \
                self.dtype not in ("fp16", "bf16"):
            raise ValueError(f"impl 'mma' is a CUDA forward/backward tile math for fp16/bf16, got target={self.target!r} "
                             f"kind={self.kind!r} dtype={self.dtype!r}")
        if self.kind == "fwd_splitkv":
            self._validate_mma_splitkv()
            return
        warp = 32  # mma.sync is warp-wide: 32 lanes
        if self.threads % warp or self.threads <= 0:
            raise ValueError(f"threads must be whole warps of {warp} lanes for impl 'mma', got {self.threads}")
        if self.threads_n != 4:
            raise ValueError(f"threads_n must be 4 for impl 'mma' (lanes sharing an mma accumulator row), got {self.threads_n}")
        if self.kind != "fwd":  # one or two m16 tiles of rows per warp: keys (dK/dV) or query rows (dQ)
            owned, other = ("block_n", "block_m") if self.kind == "bwd_dkdv" else ("block_m", "block_n")
            warps = self.threads // warp
            if self.kind == "bwd_dkdv":
                if self.s_query_warps not in (1, 2) or warps % self.s_query_warps:
                    raise ValueError(f"s_query_warps must be 1 or 2 and divide the {warps} warps, got {self.s_query_warps}")
                if self.q_buffers not in (1, 2) or (self.q_buffers == 1 and self.s_query_warps == 1):
                    raise ValueError(f"q_buffers must be 2, or 1 with s_query_warps 2, got {self.q_buffers}")
                if (self.block_m // self.s_query_warps) % 16 or (self.headdim // self.s_query_warps) % 16:
                    raise ValueError(f"block_m and headdim must be multiples of 16 * s_query_warps "
                                     f"({16 * self.s_query_warps}), got {self.block_m}, {self.headdim}")
                warps //= self.s_query_warps  # warps along the keys
            if getattr(self, owned) not in (16 * warps, 32 * warps):
                raise ValueError(f"{owned} must be 16 or 32 per warp ({16 * warps} or {32 * warps}) for impl 'mma' "
                                 f"{self.kind}, got {getattr(self, owned)}")
            if getattr(self, other) % 16 or self.headdim % 16:
                raise ValueError(f"{other} and headdim must be multiples of 16 for impl 'mma', got "
                                 f"{getattr(self, other)}, {self.headdim}")
            if self.lds_pad_bytes < 0 or self.lds_pad_bytes % 16:
                raise ValueError(f"lds_pad_bytes must be a non-negative multiple of 16, got {self.lds_pad_bytes}")
            return
        if self.block_m % (16 * (self.threads // warp)):
            raise ValueError(f"block_m must be a multiple of 16 rows per warp ({16 * (self.threads // warp)}) "
                             f"for impl 'mma', got {self.block_m}")
        if self.block_n % 16 or self.headdim % 16:
            raise ValueError(f"block_n and headdim must be multiples of 16 for impl 'mma', got {self.block_n}, {self.headdim}")
        if self.lds_pad_bytes < 0 or self.lds_pad_bytes % 16:
            raise ValueError(f"lds_pad_bytes must be a non-negative multiple of 16, got {self.lds_pad_bytes}")


    def _validate_mma_splitkv(self) -> None:
        """MmaSplitKvShape::valid: one m16 row tile per block, the warps splitting block_n keys in tiles of 16."""
        warp = 32
        if self.threads % warp or self.threads <= 0:
            raise ValueError(f"threads must be whole warps of {warp} lanes for impl 'mma', got {self.threads}")
        if self.threads_n != 4:
            raise ValueError(f"threads_n must be 4 for impl 'mma' (lanes sharing an mma accumulator row), got {self.threads_n}")
        if self.block_m != 16:
            raise ValueError(f"block_m must be 16 (one mma row tile) for the tensor-core split-KV kernel, got {self.block_m}")
        warps = self.threads // warp
        if self.block_n % (16 * warps):
            raise ValueError(f"block_n must be a multiple of 16 keys per warp ({16 * warps}) for the tensor-core "
                             f"split-KV kernel, got {self.block_n}")
        if self.headdim % 16:
            raise ValueError(f"headdim must be a multiple of 16 for impl 'mma', got {self.headdim}")
        if self.lds_pad_bytes < 0 or self.lds_pad_bytes % 16:
            raise ValueError(f"lds_pad_bytes must be a non-negative multiple of 16, got {self.lds_pad_bytes}")
        if self.lds_pad_bytes == 0:  # swizzled rows (MmaSplitKvShape::swizzled): chunk c of row r at c ^ (r % 8)
            row = self.headdim * self.elem_bytes
            tile = self.block_n // warps * row
            if row % 128 or tile % 1024 or self.headdim // 16 > 8:
                raise ValueError(f"lds_pad_bytes 0 (swizzled K/V rows) needs rows of whole 128-byte lines, a warp tile "
                                 f"of a multiple of 1024 bytes and headdim <= 128 for the tensor-core split-KV kernel, "
                                 f"got headdim {self.headdim} ({row}-byte rows, {tile}-byte tiles)")

    def _validate_splitkv(self) -> None:
        """The rules of hip_src/fmha_splitkv_tile.h (SplitKvShape::valid)."""
        chunks = self.headdim * self.elem_bytes // 16
        if (self.headdim * self.elem_bytes) % 16 or chunks % self.threads_n:
            raise ValueError(f"headdim * {self.elem_bytes} bytes must be whole 16-byte vectors, a multiple of "
                             f"threads_n={self.threads_n} of them, got headdim={self.headdim}")
        groups = self.threads // self.threads_n
        if groups & (groups - 1):
            raise ValueError(f"threads/threads_n (key groups) must be a power of 2, got {groups}")
        if self.block_n % groups:
            raise ValueError(f"block_n must be a multiple of threads/threads_n={groups} (key groups), got {self.block_n}")
        if self.lds_pad_bytes < 0 or self.lds_pad_bytes % 16:
            raise ValueError(f"lds_pad_bytes must be a non-negative multiple of 16, got {self.lds_pad_bytes}")


def _source_root() -> Path:
    """Where ``ck_configs/`` and ``hip_src/`` live: inside the installed package, else the repository."""
    here = Path(__file__).resolve().parent
    if (here / "ck_configs").is_dir():
        return here
    return here.parent


def config_dir() -> Path:
    return Path(os.environ.get("ROCFLASH_CK_CONFIGS", _source_root() / "ck_configs"))


def hip_src_dir() -> Path:
    return _source_root() / "hip_src"


def load_configs(kind: str = "fwd", path: str | os.PathLike | None = None) -> list[TileConfig]:
    """Every ``[[kind]]`` table of its TOML file as validated :class:`TileConfig` objects.

    Raises ValueError for an unknown kind, a missing or unknown field, a bad value, or two configs for one
    (target, dtype, headdim).
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    path = Path(path) if path is not None else config_dir() / _FILES[kind]
    return list(_load_configs(kind, str(path), path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=16)
def _load_configs(kind: str, path: str, _mtime_ns: int) -> tuple[TileConfig, ...]:
    """Parse and validate once per (file, modification time): the sim backend asks on every call."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    optional = {"impl", "s_query_warps", "q_buffers", "atomic_block_m", "atomic_s_query_warps", "atomic_q_buffers"}
    fields = {f.name for f in dataclasses.fields(TileConfig)} - {"kind"} - optional
    configs: list[TileConfig] = []
    seen: set[tuple[str, str, str, int]] = set()
    tables = data.get(kind, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ValueError(f"{path}: {kind} must be an array of tables ([[{kind}]]), got {tables!r}")
    for i, entry in enumerate(tables):
        missing, unknown = fields - entry.keys(), entry.keys() - fields - optional
        if missing or unknown:
            raise ValueError(f"{path}: [[{kind}]] #{i}: missing fields {sorted(missing)}, unknown fields {sorted(unknown)}")
        cfg = TileConfig(**entry, kind=kind)
        try:
            cfg.validate()
        except ValueError as e:
            raise ValueError(f"{path}: [[{kind}]] #{i} ({cfg.tile_name}): {e}") from None
        key = (cfg.target, cfg.impl, cfg.dtype, cfg.headdim)
        if key in seen:
            raise ValueError(f"{path}: [[{kind}]] #{i}: a second config for target/impl/dtype/headdim {key}")
        seen.add(key)
        configs.append(cfg)
    return tuple(configs)


def load_fwd_configs(path: str | os.PathLike | None = None) -> list[TileConfig]:
    """The ``[[fwd]]`` configs (see :func:`load_configs`)."""
    return load_configs("fwd", path)




def headdim_buckets(target: str, dtype: str, configs: list[TileConfig] | None = None, impl: str = "vector") -> list[int]:
    configs = load_fwd_configs() if configs is None else configs
    return sorted(c.headdim for c in configs if c.target == target and c.dtype == dtype and c.impl == impl)


def select_config(kind: str, target: str, dtype: str, headdim: int, configs: list[TileConfig] | None = None,
                  impl: str = "vector") -> TileConfig:
    """The ``impl`` config a ``kind`` kernel runs for ``headdim``: the smallest bucket >= headdim (the C++
    dispatch's rule)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    configs = load_configs(kind) if configs is None else configs
    fitting = [c for c in configs if c.target == target and c.dtype == dtype and c.impl == impl and c.headdim >= headdim]
    if not fitting:
        buckets = headdim_buckets(target, dtype, configs, impl)
        raise ValueError(f"headdim must be <= {max(buckets) if buckets else 0} for {kind} {target}/{dtype}, got {headdim}")
    return min(fitting, key=lambda c: c.headdim)


def select_fwd_config(target: str, dtype: str, headdim: int, configs: list[TileConfig] | None = None) -> TileConfig:
    return select_config("fwd", target, dtype, headdim, configs)
