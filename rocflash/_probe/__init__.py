"""Host-side probe of the kernel headers: the LDS read addresses of ``hip_src/fmha_tile.h`` and the mask
rules of ``hip_src/fmha_mask.h``, evaluated by the same C++ code the kernel is compiled from.

``probe.cpp`` (next to this file) #includes both headers, which are plain C++17 outside hipcc/nvcc. It is
compiled once with the host C++ compiler (``CXX``, else ``c++``/``g++``/``clang++``; see
:func:`rocflash.build.find_cxx`) into a shared library cached under ``$ROCFLASH_CACHE_DIR/probe`` (default
``~/.cache/rocflash/probe``), named by a hash of probe.cpp, the headers of ``hip_src/``, the compiler and the
flags, so an edited header is picked up by the next process that loads the probe. The library is loaded with :mod:`ctypes`.

    from rocflash._probe import Probe, TileShape
    shape = TileShape(headdim=128, block_m=64, block_n=64, threads=256, threads_n=16, lds_pad_bytes=16, elem_bytes=2)
    Probe.load().lds_bytes(shape)                    # 43008: the dynamic LDS the launcher requests
    Probe.load().lane_addresses(shape, "k", 0, 0, 0, 64)  # byte address of K read (c=0, d=0) for lanes 0..63

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
ABI_VERSION = 1  # must match rf_probe_abi_version() in probe.cpp

# Read kinds in probe.cpp's enum order: the four LDS reads of the main loop (fmha_tile_math.h).
READ_KINDS = ("q", "k", "p", "v")


@dataclasses.dataclass(frozen=True)
class TileShape:
    """``rf::FwdTileShape`` (hip_src/fmha_tile.h): sizes in elements/threads, pad and element size in bytes."""

    headdim: int
    block_m: int
    block_n: int
    threads: int
    threads_n: int
    lds_pad_bytes: int
    elem_bytes: int

    @classmethod
    def from_config(cls, cfg, **overrides) -> "TileShape":
        """The shape of a forward config of ``ck_configs/fmha_fwd.toml`` (:class:`rocflash.configs.TileConfig`);
        keyword overrides, e.g. ``lds_pad_bytes=0``."""
        fields = dict(headdim=cfg.headdim, block_m=cfg.block_m, block_n=cfg.block_n, threads=cfg.threads,
                      threads_n=cfg.threads_n, lds_pad_bytes=cfg.lds_pad_bytes, elem_bytes=cfg.elem_bytes)
        fields.update(overrides)
        return cls(**fields)

    def as_c(self) -> ctypes.Array:
        return (ctypes.c_int * 7)(*dataclasses.astuple(self))


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
        lib.rf_probe_valid.argtypes = [shape]
        lib.rf_probe_lds_bytes.argtypes = [shape]
        lib.rf_probe_read_extent.argtypes = [shape, ctypes.c_int, pint, pint, pint]
        lib.rf_probe_lane_addrs.argtypes = [shape, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                            ctypes.c_int, pint]
        lib.rf_probe_mask_visible.argtypes = [i32, i32, i32, i32, i64, i64]
        lib.rf_probe_key_tile_range.argtypes = [i32, i32, i32, i32, i32, i32, i32,
                                                ctypes.POINTER(i32), ctypes.POINTER(i32)]
        lib.rf_probe_key_tile_range.restype = None
        lib.rf_probe_tile_needs_mask.argtypes = [i32, i32, i32, i32, i32, i32, i32, i32]
        self.lib, self.path = lib, path

    @classmethod
    def load(cls) -> "Probe":
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls(build_library())
            return cls._instance

    # ---- fmha_tile.h
    def valid(self, shape: TileShape) -> bool:
        return bool(self.lib.rf_probe_valid(shape.as_c()))

    def lds_bytes(self, shape: TileShape) -> int:
        """``FwdTileShape::lds_bytes()``: dynamic LDS per block, bytes."""
        return self.lib.rf_probe_lds_bytes(shape.as_c())

    def read_extent(self, shape: TileShape, kind: str) -> tuple[int, int, int]:
        """(range of loop index a, range of loop index b, bytes per lane) of one main-loop LDS read kind."""
        n_a, n_b, width = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        if self.lib.rf_probe_read_extent(shape.as_c(), _kind(kind), n_a, n_b, width):
            raise ValueError(f"kind must be one of {READ_KINDS}, got {kind!r}")
        return n_a.value, n_b.value, width.value

    def lane_addresses(self, shape: TileShape, kind: str, a: int, b: int, tid0: int, n: int) -> list[int]:
        """LDS byte address of read ``kind`` at loop indices (a, b) for threads ``tid0 .. tid0+n-1``."""
        out = (ctypes.c_int * n)()
        if self.lib.rf_probe_lane_addrs(shape.as_c(), _kind(kind), a, b, tid0, n, out):
            raise ValueError(f"kind must be one of {READ_KINDS}, got {kind!r}")
        return list(out)

    # ---- fmha_mask.h
    def visible(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, i: int, j: int) -> bool:
        return bool(self.lib.rf_probe_mask_visible(seqlen_q, seqlen_k, window_left, window_right, i, j))

    def key_tile_range(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, m_begin: int,
                       m_end: int, block_n: int) -> tuple[int, int]:
        begin, end = ctypes.c_int32(), ctypes.c_int32()
        self.lib.rf_probe_key_tile_range(seqlen_q, seqlen_k, window_left, window_right, m_begin, m_end, block_n,
                                         ctypes.byref(begin), ctypes.byref(end))
        return begin.value, end.value

    def tile_needs_mask(self, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int, m_begin: int,
                        m_end: int, n_begin: int, block_n: int) -> bool:
        return bool(self.lib.rf_probe_tile_needs_mask(seqlen_q, seqlen_k, window_left, window_right, m_begin, m_end,
                                                      n_begin, block_n))


def _kind(kind: str) -> int:
    if kind not in READ_KINDS:
        raise ValueError(f"kind must be one of {READ_KINDS}, got {kind!r}")
    return READ_KINDS.index(kind)
