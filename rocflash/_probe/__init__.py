"""Host-side probe of the kernel headers: the LDS layouts and main-loop read addresses of the forward tile
(``hip_src/fmha_tile.h``) and of the two backward tiles (``hip_src/fmha_bwd_tile.h``), and the mask rules of
``hip_src/fmha_mask.h``, evaluated by the same C++ code the kernels are compiled from.

``probe.cpp`` (next to this file) #includes those headers, which are plain C++17 outside hipcc/nvcc. It is
compiled once with the host C++ compiler (``CXX``, else ``c++``/``g++``/``clang++``; see
:func:`rocflash.build.find_cxx`) into a shared library cached under ``$ROCFLASH_CACHE_DIR/probe`` (default
``~/.cache/rocflash/probe``), named by a hash of probe.cpp, the headers of ``hip_src/``, the compiler and the
flags, so an edited header is picked up by the next process that loads the probe. The library is loaded with :mod:`ctypes`.

    from rocflash._probe import Probe, TileShape
    shape = TileShape(headdim=128, block_m=64, block_n=64, threads=256, threads_n=16, lds_pad_bytes=16, elem_bytes=2)
    Probe.load().lds_bytes(shape)                    # 43008: the dynamic LDS the launcher requests
    Probe.load().lane_addresses(shape, "k", 0, 0, 0, 64)  # byte address of K read (c=0, d=0) for lanes 0..63
    dq = TileShape(128, 64, 32, 256, 16, 16, 2, kind="bwd_dq")   # rf::BwdDqShape
    Probe.load().lds_bytes(dq)                       # 57344
    Probe.load().read_extent(dq, "k_col")            # (32, 1, 16): k_col_read(tid, j < 32, g < 1), 16 bytes

Imports neither torch nor numpy.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import os
import subprocess
import tempfile
import threading
from pathlib import Path

from ..build import BuildError, find_cxx
from ..configs import hip_src_dir

PROBE_SOURCE = Path(__file__).resolve().parent / "probe.cpp"
CXX_FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC", "-Wall")
ABI_VERSION = 2  # must match rf_probe_abi_version() in probe.cpp

# The main-loop LDS reads of each kernel kind, in probe.cpp's enum order (ShapeKind, FwdRead, DkdvRead, DqRead).
# Each name X is the address function X_read of the kind's shape type:
#   fwd        rf::FwdTileShape  S = Q.K^T (q, k), O += P.V (p, v)                         fmha_tile_math.h
#   bwd_dkdv   rf::BwdDkdvShape  S = Q.K^T (q, k), dP = dO.V^T (do, v),                     fmha_bwd_kernel.h
#                                dV += P^T.dO (pt, do_col), dK += dS^T.Q (dst, q_col)
#   bwd_dq     rf::BwdDqShape    S = Q.K^T (q, k), dP = dO.V^T (do, v), dQ += dS.K (ds, k_col)
READ_KINDS: dict[str, tuple[str, ...]] = {
    "fwd": ("q", "k", "p", "v"),
    "bwd_dkdv": ("q", "do", "k", "v", "pt", "dst", "do_col", "q_col"),
    "bwd_dq": ("q", "do", "k", "v", "ds", "k_col"),
    "fwd_splitkv": (),  # rf::SplitKvShape (fmha_splitkv_tile.h): K/V stream through registers, LDS only merges
    "fwd_mma": ("q", "k", "v"),  # rf::MmaFwdTileShape (fmha_mma_tile.h): ldmatrix row addresses
    "fwd_splitkv_mma": (),  # rf::MmaSplitKvShape (fmha_splitkv_tile.h): per-warp K/V rings (reads not probed)
}
SHAPE_KINDS = tuple(READ_KINDS)  # probe.cpp's ShapeKind order
_FIELDS = ("headdim", "block_m", "block_n", "threads", "threads_n", "lds_pad_bytes", "elem_bytes")


@dataclasses.dataclass(frozen=True)
class TileShape:
    """A tile shape of one kernel kind: ``rf::FwdTileShape`` (hip_src/fmha_tile.h) for ``kind="fwd"``,
    ``rf::BwdDkdvShape`` / ``rf::BwdDqShape`` (hip_src/fmha_bwd_tile.h, fields of ``BwdTileBase``) for
    ``"bwd_dkdv"`` / ``"bwd_dq"``. Sizes in elements/threads, pad and element size in bytes."""

    headdim: int
    block_m: int
    block_n: int
    threads: int
    threads_n: int
    lds_pad_bytes: int
    elem_bytes: int
    kind: str = "fwd"  # which shape type (SHAPE_KINDS); the configs' TileConfig.kind

    def __post_init__(self):
        if self.kind not in SHAPE_KINDS:
            raise ValueError(f"kind must be one of {SHAPE_KINDS}, got {self.kind!r}")

    @classmethod
    def from_config(cls, cfg, **overrides) -> "TileShape":
        """The shape of a config of ``ck_configs/`` (:class:`rocflash.configs.TileConfig`, any kind); keyword
        overrides, e.g. ``lds_pad_bytes=0``."""
        fields = {name: getattr(cfg, name) for name in _FIELDS}
        kind = getattr(cfg, "kind", "fwd")
        if getattr(cfg, "impl", "vector") == "mma":
            kind = "fwd_splitkv_mma" if kind == "fwd_splitkv" else "fwd_mma"
        fields["kind"] = kind
        fields.update(overrides)
        return cls(**fields)

    @property
    def read_kinds(self) -> tuple[str, ...]:
        """The main-loop LDS read kinds of this shape's kernel (READ_KINDS)."""
        return READ_KINDS[self.kind]

    def as_c(self) -> ctypes.Array:
        """The seven size fields as int[7] (probe.cpp's field order); the kind travels separately."""
        return (ctypes.c_int * len(_FIELDS))(*(getattr(self, name) for name in _FIELDS))


def cache_dir() -> Path:
    """``$ROCFLASH_CACHE_DIR``, else ``$XDG_CACHE_HOME/rocflash``, else ``~/.cache/rocflash``."""
    if os.environ.get("ROCFLASH_CACHE_DIR"):
        return Path(os.environ["ROCFLASH_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rocflash"


def _library_path(cxx: str, src_dir: Path) -> Path:
    h = hashlib.sha256()
    for path in (PROBE_SOURCE, *sorted(src_dir.glob("*.h"))):  # every header the probe may include
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update("\0".join((cxx, *CXX_FLAGS)).encode())
    return cache_dir() / "probe" / f"rocflash_probe_{h.hexdigest()[:20]}.so"


def build_library() -> Path:
    """Compile ``probe.cpp`` against ``hip_src/`` unless the cached library is current; return its path.

    Raises BuildError naming the compiler and its output when the compile fails.
    """
    cxx, src_dir = find_cxx(), hip_src_dir()
    lib = _library_path(cxx, src_dir)
    if lib.is_file():
        return lib
    lib.parent.mkdir(parents=True, exist_ok=True)
    # Step 1: compile to a private name, step 2: rename into place (atomic: parallel test workers are safe).
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=lib.parent)
    os.close(fd)
    cmd = [cxx, *CXX_FLAGS, f"-I{src_dir}", str(PROBE_SOURCE), "-o", tmp]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise BuildError(f"CXX: compiling the probe failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    os.replace(tmp, lib)
    return lib


class Probe:
    """ctypes binding of ``probe.cpp``. Use :meth:`load` (one shared instance per process)."""

    _instance: "Probe | None" = None
    _lock = threading.Lock()

    def __init__(self, path: Path):
        lib = ctypes.CDLL(str(path))
        i32, i64, pint = ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_int)
        shape = ctypes.POINTER(ctypes.c_int)
        lib.rf_probe_abi_version.restype = ctypes.c_int
        got = lib.rf_probe_abi_version()
        if got != ABI_VERSION:
            raise RuntimeError(f"probe library {path}: ABI version must be {ABI_VERSION}, got {got}")
        lib.rf_probe_shape_fields.restype = ctypes.c_int
        if lib.rf_probe_shape_fields() != len(_FIELDS):
            raise RuntimeError(f"probe library {path}: shape fields must be {len(_FIELDS)}, "
                               f"got {lib.rf_probe_shape_fields()}")
        cint = ctypes.c_int
        lib.rf_probe_valid.argtypes = [cint, shape]
        lib.rf_probe_lds_bytes.argtypes = [cint, shape]
        lib.rf_probe_read_extent.argtypes = [cint, shape, cint, pint, pint, pint]
        lib.rf_probe_lane_addrs.argtypes = [cint, shape, cint, cint, cint, cint, cint, pint]
        lib.rf_probe_mask_visible.argtypes = [i32, i32, i32, i32, i64, i64]
        lib.rf_probe_key_tile_range.argtypes = [i32, i32, i32, i32, i32, i32, i32,
                                                ctypes.POINTER(i32), ctypes.POINTER(i32)]
        lib.rf_probe_key_tile_range.restype = None
        lib.rf_probe_query_tile_range.argtypes = lib.rf_probe_key_tile_range.argtypes
        lib.rf_probe_query_tile_range.restype = None
        lib.rf_probe_tile_needs_mask.argtypes = [i32, i32, i32, i32, i32, i32, i32, i32]
        lib.rf_probe_visible_key_span.argtypes = [i32, i32, i32, i32, i64, ctypes.POINTER(i32), ctypes.POINTER(i32)]
        lib.rf_probe_visible_key_span.restype = None
        lib.rf_probe_sees_any_key.argtypes = [i32, i32, i32, i32, i32]
        lib.rf_probe_unmasked_tile_range.argtypes = lib.rf_probe_key_tile_range.argtypes
        lib.rf_probe_unmasked_tile_range.restype = None
        lib.rf_probe_row_span_visible.argtypes = [i32, i32, i32, i32, i32, i32, i32, i32]
        self.lib, self.path = lib, path

    @classmethod
    def load(cls) -> "Probe":
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls(build_library())
            return cls._instance

    # ---- fmha_tile.h, fmha_bwd_tile.h
    def valid(self, shape: TileShape) -> bool:
        """``valid()`` of the shape's type (the kernel's static_assert)."""
        return bool(self.lib.rf_probe_valid(_shape_kind(shape), shape.as_c()))

    def lds_bytes(self, shape: TileShape) -> int:
        """``lds_bytes()`` of the shape's type: the dynamic LDS per block the launcher requests, bytes."""
        return self.lib.rf_probe_lds_bytes(_shape_kind(shape), shape.as_c())

    def read_extent(self, shape: TileShape, read: str) -> tuple[int, int, int]:
        """(range of loop index a, range of loop index b, bytes per lane) of one main-loop LDS read kind
        (``shape.read_kinds``)."""
        n_a, n_b, width = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        if self.lib.rf_probe_read_extent(_shape_kind(shape), shape.as_c(), _read(shape, read), n_a, n_b, width):
            raise RuntimeError(f"probe library {self.path}: read_extent({shape.kind!r}, {read!r}) failed")
        return n_a.value, n_b.value, width.value

    def lane_addresses(self, shape: TileShape, read: str, a: int, b: int, tid0: int, n: int) -> list[int]:
        """LDS byte address of read ``read`` at loop indices (a, b) for threads ``tid0 .. tid0+n-1``."""
        out = (ctypes.c_int * n)()
        if self.lib.rf_probe_lane_addrs(_shape_kind(shape), shape.as_c(), _read(shape, read), a, b, tid0, n, out):
            raise RuntimeError(f"probe library {self.path}: lane_addrs({shape.kind!r}, {read!r}) failed")
        return list(out)

    # ---- fmha_mask.h
    def visible(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, i: int, j: int) -> bool:
        return bool(self.lib.rf_probe_mask_visible(seqlen_q, seqlen_k, window_left, window_right, i, j))

    def sees_any_key(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, i: int) -> bool:
        """``MaskRule::sees_any_key``: whether row i sees a key."""
        return bool(self.lib.rf_probe_sees_any_key(seqlen_q, seqlen_k, window_left, window_right, i))

    def visible_key_span(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int,
                         i: int) -> tuple[int, int]:
        """``visible_key_span``: (lo, hi), the keys row i sees (none when lo > hi)."""
        lo, hi = ctypes.c_int32(), ctypes.c_int32()
        self.lib.rf_probe_visible_key_span(seqlen_q, seqlen_k, window_left, window_right, i, lo, hi)
        return lo.value, hi.value

    def key_tile_range(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, m_begin: int,
                       m_end: int, block_n: int) -> tuple[int, int]:
        begin, end = ctypes.c_int32(), ctypes.c_int32()
        self.lib.rf_probe_key_tile_range(seqlen_q, seqlen_k, window_left, window_right, m_begin, m_end, block_n,
                                         ctypes.byref(begin), ctypes.byref(end))
        return begin.value, end.value

    def query_tile_range(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, n_begin: int,
                         n_end: int, block_m: int) -> tuple[int, int]:
        """``rf::query_tile_range``: the query tiles [begin, end) whose rows see a key of [n_begin, n_end)."""
        begin, end = ctypes.c_int32(), ctypes.c_int32()
        self.lib.rf_probe_query_tile_range(seqlen_q, seqlen_k, window_left, window_right, n_begin, n_end, block_m,
                                           ctypes.byref(begin), ctypes.byref(end))
        return begin.value, end.value

    def tile_needs_mask(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, m_begin: int,
                        m_end: int, n_begin: int, block_n: int) -> bool:
        return bool(self.lib.rf_probe_tile_needs_mask(seqlen_q, seqlen_k, window_left, window_right, m_begin, m_end,
                                                      n_begin, block_n))

    def unmasked_tile_range(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, m_begin: int,
                            m_end: int, block_n: int) -> tuple[int, int]:
        """``rf::unmasked_tile_range``: the key tiles [begin, end) that need no mask for rows [m_begin, m_end)."""
        begin, end = ctypes.c_int32(), ctypes.c_int32()
        self.lib.rf_probe_unmasked_tile_range(seqlen_q, seqlen_k, window_left, window_right, m_begin, m_end, block_n,
                                              ctypes.byref(begin), ctypes.byref(end))
        return begin.value, end.value

    def row_span_visible(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, row0: int,
                         off: int, n0: int, c: int) -> bool:
        """``rf::RowSpan``: key n0 + c visible to row row0 + off (its span and per-tile forms; ValueError when
        they disagree)."""
        v = self.lib.rf_probe_row_span_visible(seqlen_q, seqlen_k, window_left, window_right, row0, off, n0, c)
        if v == 2:
            raise ValueError(f"RowSpan forms disagree at row0={row0} off={off} n0={n0} c={c}")
        return bool(v)


def _shape_kind(shape: TileShape) -> int:
    return SHAPE_KINDS.index(shape.kind)  # TileShape validated the kind


def _read(shape: TileShape, read: str) -> int:
    """Index of a read kind in probe.cpp's enum of the shape's kernel."""
    if read not in shape.read_kinds:
        raise ValueError(f"read must be one of {shape.read_kinds} for a {shape.kind} shape, got {read!r}")
    return shape.read_kinds.index(read)
