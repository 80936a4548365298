"""gfx906 assembly of our kernel instances for the emulator, and the params-struct layout of the launch.

Assembly: the instance sources of :func:`rocflash.codegen.generate` (target gfx9), compiled device-only
for gfx906 with the flags of the real build (:func:`rocflash.build.device_compile_flags`) plus
``--cuda-device-only -S`` (as ``rocflash.isa`` does). One translation unit per instance, to which the
emulator appends a device constant holding ``Tile::kShape.lds_bytes()`` (the dynamic LDS the launcher
requests), so the compiler, not Python, evaluates it. Results are cached under
``$ROCFLASH_CACHE_DIR/emu`` (else ``$XDG_CACHE_HOME/rocflash/emu``, else ``~/.cache/rocflash/emu``) by a hash
of the command, the source and
every header of hip_src/ and the generated directory.

Params layout: the kernels take one by-value struct (``rf::FmhaFwdParams`` / ``rf::FmhaBwdParams``) as
their kernel argument. Its field offsets come from clang's record-layout dump for the amdgcn target
(``-Xclang -fdump-record-layouts-complete``) of the same headers, so a field added by a kernel change is
picked up without editing this file; fields the driver does not set stay zero (null pointers, 0 values).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import struct
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from .. import codegen
from ..build import BuildError, device_compile_flags, find_tool
from ..configs import TileConfig, hip_src_dir

ARCH = "gfx906"
LDS_SYMBOL = "rocflash_emu_lds_bytes"


def cache_dir() -> Path:
    """``emu/`` under the package's cache directory (:func:`rocflash._probe.cache_dir`), created."""
    from .._probe import cache_dir as package_cache_dir

    d = package_cache_dir() / "emu"
    d.mkdir(parents=True, exist_ok=True)
    return d


@functools.lru_cache(maxsize=None)
def generated_dir() -> Path:
    """Generated instance sources and headers (all kinds), in the cache directory under a hash of the tile
    configs and the generator: checkouts with different ck_configs/ sharing one cache (worktrees, CI jobs)
    never read each other's headers mid-compile."""
    gen = cache_dir() / "gen" / codegen.inputs_hash()
    codegen.generate("gfx9", gen)
    return gen


def _headers_hash() -> str:
    h = hashlib.sha256()
    for d in (hip_src_dir(), generated_dir()):
        for f in sorted(Path(d).glob("*")):
            if f.suffix in (".h", ".inc", ".hpp", ".hip") and f.is_file():
                h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def instance_source(cfg: TileConfig, aligned: bool) -> str:
    """The generated instance translation unit plus the LDS-size constant the emulator reads."""
    src = (generated_dir() / f"{cfg.kernel_name(aligned)}.hip").read_text()
    return (src + f'\nextern "C" __device__ __attribute__((used)) const int {LDS_SYMBOL} = '
            f"rf::{cfg.struct_name}::kShape.lds_bytes();\n")


def custom_instance_source(cfg: TileConfig, aligned: bool) -> str:
    """A translation unit for a forward tile config that is not in ck_configs/ (model-driven exploration):
    the same launch template, the tile type declared here, named ``<struct_name>_emu``."""
    if cfg.kind != "fwd":
        raise ValueError(f"custom configs must be forward configs, got kind {cfg.kind!r}")
    name = f"{cfg.struct_name}_emu"
    elem = {"fp16": "Fp16", "bf16": "Bf16", "fp32": "Fp32"}[cfg.dtype]
    return (f'#include "fmha_fwd_launch.h"\nnamespace rf {{\nstruct {name} {{\n'
            f"  static constexpr FwdTileShape kShape = {codegen._shape_literal(cfg)};\n"
            f"  static constexpr int kWavesPerSimd = {max(1, cfg.waves_per_simd)};\n}};\n"
            f"template rfError_t launch_fmha_fwd<{elem}, {name}, {'true' if aligned else 'false'}>"
            f"(const FmhaFwdParams&, rfStream_t);\n}}  // namespace rf\n"
            f'extern "C" __device__ __attribute__((used)) const int {LDS_SYMBOL} = rf::{name}::kShape.lds_bytes();\n')


PREPROCESS_SOURCE = """#include "fmha_bwd_launch.h"
namespace rf {
template rfError_t launch_fmha_bwd_preprocess<Fp16>(const FmhaBwdParams&, rfStream_t);
template rfError_t launch_fmha_bwd_preprocess<Bf16>(const FmhaBwdParams&, rfStream_t);
template rfError_t launch_fmha_bwd_preprocess<Fp32>(const FmhaBwdParams&, rfStream_t);
}  // namespace rf
"""


def compile_asm(name: str, source: str, jobs_lock=None) -> Path:
    """gfx906 assembly of ``source`` (cached). Raises BuildError with the compiler output on failure."""
    compiler, flags = device_compile_flags("hip", [ARCH])
    inc = [f"-I{hip_src_dir()}", f"-I{generated_dir()}"]
    cmd = [compiler, *flags, "--cuda-device-only", *inc, "-S"]
    key = hashlib.sha256(("\0".join(cmd) + source + _headers_hash()).encode()).hexdigest()[:16]
    out = cache_dir() / ARCH / f"{name}.{key}.s"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HIP_PLATFORM="amd")
    # The compiler writes a hidden temporary beside the cached file (same directory, so same file system), which
    # is renamed over it: a concurrent reader never sees a partial .s, even when the system temp directory is
    # another file system (a move across file systems copies into place); a killed compile leaves no *.s behind.
    tmp_out = out.with_name(f".{out.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"{name}.hip"
        src.write_text(source)
        try:
            proc = subprocess.run([*cmd, str(src), "-o", str(tmp_out)], env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                raise BuildError(f"{ARCH} device compile of {name} failed: {' '.join(cmd)}\n{proc.stderr[-4000:]}")
            os.replace(tmp_out, out)
        finally:
            tmp_out.unlink(missing_ok=True)
    return out


def read_lds_constant(asm_text: str) -> int:
    m = re.search(rf"^{LDS_SYMBOL}:\s*\n\s*\.long\s+(\d+)", asm_text, re.M)
    if not m:
        raise BuildError(f"the assembly must define {LDS_SYMBOL} (the instance's dynamic LDS), found none")
    return int(m.group(1))


# ------------------------------------------------------------------------------------------ params layout

@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    ctype: str


@dataclass(frozen=True)
class StructLayout:
    name: str
    size: int
    fields: dict[str, Field]

    def pack(self, values: dict[str, object]) -> bytes:
        """The struct's bytes with ``values`` set (by field name); every other byte is zero.

        Raises KeyError naming a value whose field the struct does not have.
        """
        buf = bytearray(self.size)
        for name, v in values.items():
            if name not in self.fields:
                raise KeyError(f"{self.name} has no field {name!r} (fields: {', '.join(self.fields)})")
            f = self.fields[name]
            fmt = _FORMAT.get(f.ctype) or ("Q" if f.ctype.endswith("*") else None)
            if fmt is None:
                raise KeyError(f"{self.name}.{name}: unsupported field type {f.ctype!r}")
            struct.pack_into("<" + fmt, buf, f.offset, v)
        return bytes(buf)


_FORMAT = {"int64_t": "q", "uint64_t": "Q", "int32_t": "i", "uint32_t": "I", "int": "i", "float": "f",
           "_Bool": "?", "bool": "?", "DType": "i", "rf::DType": "i", "double": "d", "int16_t": "h"}


@functools.lru_cache(maxsize=None)
def _layouts(key: str) -> dict[str, StructLayout]:
    clang = find_tool("ROCFLASH_CLANG", ["clang++-19", "clang++-18", "clang++-17", "clang++"], [])
    src = '#include "fmha_fwd_params.h"\n#include "fmha_bwd_params.h"\n' \
          "int rocflash_emu_sizes[] = {sizeof(rf::FmhaFwdParams), sizeof(rf::FmhaBwdParams)};\n"
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "layout.cpp"
        p.write_text(src)
        proc = subprocess.run([clang, "-x", "c++", "-std=c++17", "-target", "amdgcn-amd-amdhsa", "-nogpulib",
                               "-ffreestanding", f"-I{hip_src_dir()}", "-Xclang", "-fdump-record-layouts-complete",
                               "-fsyntax-only", str(p)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"record-layout dump of the params structs failed:\n{proc.stderr[-3000:]}")
    return parse_record_layouts(proc.stdout)


def parse_record_layouts(text: str) -> dict[str, StructLayout]:
    """clang ``-fdump-record-layouts`` output -> layouts by struct name (leaf fields, absolute offsets)."""
    out: dict[str, StructLayout] = {}
    for block in text.split("*** Dumping AST Record Layout")[1:]:
        lines = [ln for ln in block.splitlines() if "|" in ln]
        if not lines:
            continue
        head = lines[0].split("|", 1)[1].strip()
        name = head.split(None, 1)[1] if head.startswith(("struct ", "class ")) else head
        fields: dict[str, Field] = {}
        size = 0
        for ln in lines[1:]:
            left, right = ln.split("|", 1)
            right = right.strip()
            if m := re.search(r"\[sizeof=(\d+)", right):
                size = int(m.group(1))
                continue
            if not left.strip().isdigit() or right.startswith(("struct ", "class ", "union ")) or "(base)" in right:
                continue
            parts = right.rsplit(None, 1)
            if len(parts) != 2:
                continue
            ctype, fname = parts
            if ":" in fname:  # bit-fields are not expected in the params structs
                continue
            fields.setdefault(fname, Field(fname, int(left.strip()), ctype.replace("const ", "").strip()))
        out[name] = StructLayout(name, size, fields)
    return out


def params_layout(struct_name: str) -> StructLayout:
    """Layout of ``rf::FmhaFwdParams`` / ``rf::FmhaBwdParams`` for the amdgcn target (cached per headers)."""
    h = hashlib.sha256()
    for f in ("fmha_fwd_params.h", "fmha_bwd_params.h"):
        p = hip_src_dir() / f
        if p.is_file():
            h.update(p.read_bytes())
    layouts = _layouts(h.hexdigest())
    if struct_name not in layouts:
        raise BuildError(f"struct {struct_name} not found in the layout dump (have {sorted(layouts)})")
    return layouts[struct_name]
