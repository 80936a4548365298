"""ISA targets: the per-arch facts that the build, the ISA audit (:mod:`rocflash.isa`), the CK instances and the
gfx906 emulator share. One row per compile target; units are registers per lane, bytes and waves.

Sources: AMD "Vega" 7nm ISA Reference Guide (gfx906), "CDNA / CDNA2 / CDNA3 / CDNA4 Instruction Set
Architecture" guides (gfx908 / gfx90a / gfx942 / gfx950), chapter "Kernel State"; LLVM ``AMDGPU::IsaInfo``
(VGPR granules and wave limits per target); NVIDIA CUDA C++ Programming Guide, "Compute Capabilities" table
(shared memory per SM). Imports neither torch nor numpy.
"""

from __future__ import annotations

import dataclasses

GFX9_WAVE_SIZE = 64  # every gfx9 target runs wave64 (ISA guide, chapter "Program Organization")
NVIDIA_WARP_SIZE = 32


@dataclasses.dataclass(frozen=True)
class ArchInfo:
    """Per-target facts. Units: registers per lane, bytes, waves."""

    name: str
    vendor: str  # "amd" | "nvidia"
    wave_size: int  # wavefront / warp size the kernels are compiled for
    simds_per_cu: int = 4
    vgpr_file: int = 256  # VGPRs per lane of one SIMD available to its waves (gfx90a+: unified VGPR+AGPR file)
    vgpr_granule: int = 4  # allocation granule of .vgpr_count
    max_waves_per_simd: int = 10
    lds_per_cu: int = 65536  # bytes of LDS per CU, also the most one block may use
    lds_banks: int = 32
    lds_bank_bytes: int = 4
    lds_bytes_per_clock: int = 128
    mfma: bool = False  # matrix cores (v_mfma_*): gfx908 and later CDNA
    family: str = ""  # "gcn5" | "cdna1" | "cdna2" | "cdna3" | "cdna4" | "rdna2" | "nvidia"


def _nv(name: str, smem_kib: int) -> ArchInfo:
    return ArchInfo(name, "nvidia", NVIDIA_WARP_SIZE, lds_per_cu=smem_kib * 1024, family="nvidia")


_CDNA2_PLUS = dict(vgpr_file=512, vgpr_granule=8, max_waves_per_simd=8, mfma=True)

ARCHS: dict[str, ArchInfo] = {a.name: a for a in [
    ArchInfo("gfx906", "amd", GFX9_WAVE_SIZE, family="gcn5"),
    ArchInfo("gfx908", "amd", GFX9_WAVE_SIZE, mfma=True, family="cdna1"),  # AGPRs are a second 256-entry file
    ArchInfo("gfx90a", "amd", GFX9_WAVE_SIZE, family="cdna2", **_CDNA2_PLUS),
    ArchInfo("gfx942", "amd", GFX9_WAVE_SIZE, family="cdna3", **_CDNA2_PLUS),
    ArchInfo("gfx950", "amd", GFX9_WAVE_SIZE, lds_per_cu=160 * 1024, family="cdna4", **_CDNA2_PLUS),
    # RDNA2, wave32 by default: not a rocflash target; the tests compile a fixture for it to show the gfx9
    # wave64 check firing. CU mode: 2 SIMD32 per CU, 1024 VGPRs per lane in wave32, granule 8, 16 waves.
    ArchInfo("gfx1030", "amd", 32, simds_per_cu=2, vgpr_file=1024, vgpr_granule=8, max_waves_per_simd=16,
             family="rdna2"),
    # NVIDIA: shared memory per SM (the CUDA build is not tuned; these rows serve the LDS check only)
    _nv("sm_70", 96), _nv("sm_75", 64), _nv("sm_80", 164), _nv("sm_86", 100), _nv("sm_87", 164),
    _nv("sm_89", 100), _nv("sm_90", 228), _nv("sm_90a", 228), _nv("sm_100", 228), _nv("sm_120", 100),
]}

# The CDNA arches with matrix cores that Composable Kernel's ck_tile FMHA instances target (ck_configs/ck_*.toml)
CK_ARCHS = ("gfx90a", "gfx942", "gfx950")


def base_arch(target: str) -> str:
    """``gfx90a:xnack-`` -> ``gfx90a`` (the target-id features do not change these facts)."""
    return target.split(":")[0]


def arch_info(target: str) -> ArchInfo:
    """The row of ``target`` (features such as ``:xnack-`` ignored). ValueError naming the known targets."""
    info = ARCHS.get(base_arch(target))
    if info is None:
        raise ValueError(f"arch must be one of {', '.join(ARCHS)}, got {target!r}")
    return info


def cuda_arch_name(cc: str) -> str:
    """Compute capability as TORCH_CUDA_ARCH_LIST writes it -> ISA name: ``9.0a`` -> ``sm_90a``."""
    return "sm_" + cc.replace(".", "")
