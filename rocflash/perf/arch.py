"""Peak FLOP/s and HBM bandwidth per GPU, device detection, and which peak applies to which backend.

Three compute ceilings per GPU (TFLOP/s, dense, one device as torch sees it):

- ``fp32``: non-packed FP32 FMA on the vector ALUs. AMD: CUs * 128 FLOP/clk (4 SIMD16 * 16 lanes * FMA)
  * peak engine clock. MI300X/MI355X datasheets quote twice that as "FP32 vector" because they count
  packed FP32 (v_pk_fma_f32); a kernel issuing one FMA per lane gets this number.
- ``packed_fp16``: packed FP16 / dot2 on the vector ALUs (v_dot2_f32_f16, v_pk_fma_f16): twice ``fp32``
  on AMD (CUs * 256 FLOP/clk * clock). NVIDIA: the non-tensor FP16 (HFMA2) rate of the whitepapers.
- ``matrix_fp16``: FP16/BF16 matrix cores (MFMA, tensor cores), dense, FP32 accumulate. None on gfx906.

Which one bounds a backend (``peak_kind``): rocflash's hip kernel runs fp16 through v_dot2_f32_f16
(packed_fp16) and bf16/fp32 through FP32 FMA; its cuda build runs fp16/bf16 on tensor cores by default
(matrix_fp16; hip_src/fmha_mma.h), and its vector tile math (``rocflash-cuda-vector``, ROCFLASH_KERNEL=vector)
converts fp16 pairs to float2 and issues two FMAs (hip_src/fmha_elem.h), so fp32 applies there. SDPA's fused kernels and the naive
matmul-softmax-matmul run on matrix cores (matrix_fp16) for fp16/bf16, falling back to packed_fp16 where
the GPU has none (gfx906's rocBLAS uses dot2), and to fp32 for fp32 inputs. The rocflash ``torch``
backend computes in fp32.

Sources are given per row; ``measured`` names the fields that are this project's own measurements
(shared/reference/facts.md section 7) rather than datasheet values, and ``datasheet`` keeps the datasheet
values of those fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import torch

PEAK_KINDS = ("matrix_fp16", "packed_fp16", "fp32")


@dataclass(frozen=True)
class ArchSpec:
    """One GPU (as one torch device) of the arch table. Rates are TFLOP/s, bandwidth TB/s."""

    key: str  # short name, the --arch value: "MI50", "H200"
    name: str  # marketing name
    arch: str  # "gfx906" (gcnArchName without features) or "sm_90"
    units: int  # compute units (AMD) / streaming multiprocessors (NVIDIA)
    fp32: float  # vector FP32 FMA, non-packed
    packed_fp16: float  # packed FP16 / dot2 vector rate
    matrix_fp16: float | None  # matrix cores FP16/BF16 dense; None without matrix cores
    hbm_tbps: float  # HBM bandwidth
    source: str
    clock_mhz: float | None = None  # peak engine clock used to derive AMD vector rates
    measured: tuple[str, ...] = ()  # fields measured on this project's device (else datasheet)
    datasheet: dict = field(default_factory=dict)  # datasheet values of the measured fields
    name_tokens: tuple[str, ...] = ()  # substrings of the device name that identify this row

    def peak(self, kind: str) -> float | None:
        """TFLOP/s of ``kind`` (one of PEAK_KINDS)."""
        if kind not in PEAK_KINDS:
            raise ValueError(f"peak kind must be one of {', '.join(PEAK_KINDS)}, got {kind!r}")
        return getattr(self, kind)

    def to_dict(self) -> dict:
        return {"key": self.key, "name": self.name, "arch": self.arch, "units": self.units,
                "fp32_tflops": self.fp32, "packed_fp16_tflops": self.packed_fp16,
                "matrix_fp16_tflops": self.matrix_fp16, "hbm_tbps": self.hbm_tbps, "clock_mhz": self.clock_mhz,
                "measured": list(self.measured), "datasheet": dict(self.datasheet), "source": self.source}


def _amd(key, name, arch, cus, clock_mhz, matrix, hbm, source, tokens):
    """AMD row with the vector rates derived from CUs and clock (see the module docstring)."""
    fp32 = round(cus * 128 * clock_mhz * 1e6 / 1e12, 2)
    return ArchSpec(key, name, arch, cus, fp32, round(2 * cus * 128 * clock_mhz * 1e6 / 1e12, 2), matrix, hbm,
                    source + f"; vector rates derived: {cus} CUs x 128 (fp32) / 256 (packed fp16) FLOP/clk x "
                             f"{clock_mhz:.0f} MHz", clock_mhz, name_tokens=tokens)


_AMD_DOCS = "ROCm docs gpu-arch-specs (arch, CUs)"
ARCHS: dict[str, ArchSpec] = {a.key: a for a in [
    _amd("MI50", "AMD Instinct MI50", "gfx906", 60, 1725, None, 1.024,
         f"{_AMD_DOCS}; AMD Radeon Instinct MI50 datasheet: 13.3 FP32 / 26.5 FP16 TFLOP/s, 1024 GB/s HBM2; "
         "no matrix cores", ("MI50",)),
    _amd("MI60", "AMD Instinct MI60", "gfx906", 64, 1800, None, 1.024,
         f"{_AMD_DOCS}; AMD Radeon Instinct MI60 datasheet: 14.7 FP32 / 29.5 FP16 TFLOP/s, 1024 GB/s HBM2; "
         "no matrix cores", ("MI60",)),
    _amd("MI100", "AMD Instinct MI100", "gfx908", 120, 1502, 184.6, 1.2288,
         f"{_AMD_DOCS}; AMD Instinct MI100 datasheet: 23.1 FP32 vector, 184.6 FP16 matrix TFLOP/s, "
         "1.2288 TB/s HBM2", ("MI100",)),
    _amd("MI210", "AMD Instinct MI210", "gfx90a", 104, 1700, 181.0, 1.6384,
         f"{_AMD_DOCS}; AMD Instinct MI210 datasheet: 22.6 FP32 vector, 181 FP16 matrix TFLOP/s, "
         "1.6 TB/s HBM2e", ("MI210",)),
    _amd("MI250X", "AMD Instinct MI250X (both GCDs)", "gfx90a", 220, 1700, 383.0, 3.2768,
         f"{_AMD_DOCS}; AMD Instinct MI250X datasheet: 47.9 FP32 vector, 383 FP16 matrix TFLOP/s, "
         "3.2 TB/s HBM2e for the whole module (two GCDs; torch sees each GCD as one device with half of it)",
         ("MI250X",)),
    _amd("MI300X", "AMD Instinct MI300X", "gfx942", 304, 2100, 1307.4, 5.3,
         f"{_AMD_DOCS}; AMD Instinct MI300X datasheet: 163.4 FP32 vector (packed), 1307.4 FP16 matrix "
         "TFLOP/s dense, 5.3 TB/s HBM3", ("MI300X",)),
    _amd("MI355X", "AMD Instinct MI355X", "gfx950", 256, 2400, 2516.6, 8.0,
         f"{_AMD_DOCS}; AMD Instinct MI355X datasheet: 157.3 FP32 vector (packed), 2.5 PFLOP/s FP16 matrix "
         "dense, 8 TB/s HBM3E", ("MI355X",)),
    ArchSpec("A100-80GB", "NVIDIA A100 SXM4 80GB", "sm_80", 108, 19.5, 78.0, 312.0, 2.039,
             "NVIDIA A100 datasheet/whitepaper: 19.5 FP32, 78 FP16 non-tensor, 312 FP16 tensor TFLOP/s dense, "
             "2039 GB/s HBM2e", 1410, name_tokens=("A100",)),
    ArchSpec("A100-40GB", "NVIDIA A100 SXM4 40GB", "sm_80", 108, 19.5, 78.0, 312.0, 1.555,
             "NVIDIA A100 datasheet/whitepaper: 19.5 FP32, 78 FP16 non-tensor, 312 FP16 tensor TFLOP/s dense, "
             "1555 GB/s HBM2", 1410, name_tokens=("A100", "40GB")),
    ArchSpec("H100", "NVIDIA H100 SXM5", "sm_90", 132, 66.9, 133.8, 989.4, 3.35,
             "NVIDIA H100 whitepaper/datasheet (SXM5): 66.9 FP32, 133.8 FP16 non-tensor, 989.4 FP16 tensor "
             "TFLOP/s dense, 3.35 TB/s HBM3", 1830, name_tokens=("H100",)),
    ArchSpec("H100-PCIe", "NVIDIA H100 PCIe", "sm_90", 114, 51.2, 102.4, 756.5, 2.0,
             "NVIDIA H100 datasheet (PCIe): 51.2 FP32, 756.5 FP16 tensor TFLOP/s dense, 2.0 TB/s HBM2e; FP16 "
             "non-tensor taken as 2x FP32 as on SXM5", 1755, name_tokens=("H100", "PCIe")),
    ArchSpec("H200", "NVIDIA H200 SXM", "sm_90", 132, 66.9, 133.8, 754.0, 4.3,
             "matrix_fp16 and hbm_tbps measured on this project's H200 (shared/reference/facts.md sections 6-7, "
             "2026-11-29: 754 TFLOP/s fp16 matmul, 4.3 TB/s copy); fp32 and packed_fp16 from the NVIDIA H200 "
             "datasheet (same SMs and clocks as H100 SXM5); datasheet: 989.4 TFLOP/s FP16 tensor dense, "
             "4.8 TB/s HBM3e", 1830, measured=("matrix_fp16", "hbm_tbps"),
             datasheet={"matrix_fp16": 989.4, "hbm_tbps": 4.8}, name_tokens=("H200",)),
]}


@dataclass(frozen=True)
class DeviceInfo:
    """What the benchmark knows about the device it runs on."""

    type: str  # "cuda" (torch's name for NVIDIA and AMD GPUs) or "cpu"
    platform: str | None  # "hip" | "cuda" | None (CPU)
    name: str
    arch: str | None  # "gfx906" | "sm_90" | None
    units: int | None  # CUs / SMs
    l2_bytes: int | None
    total_memory: int | None

    def to_dict(self) -> dict:
        return dict(type=self.type, platform=self.platform, name=self.name, arch=self.arch, units=self.units,
                    l2_bytes=self.l2_bytes, total_memory=self.total_memory)


def device_info(device: torch.device) -> DeviceInfo:
    """Read name, arch, CU/SM count, L2 size and memory from torch (no launch)."""
    if device.type != "cuda":
        import platform

        return DeviceInfo(device.type, None, platform.processor() or device.type, None, None, None, None)
    p = torch.cuda.get_device_properties(device)
    if torch.version.hip:
        arch = (getattr(p, "gcnArchName", "") or "").split(":")[0] or None
        plat = "hip"
    else:
        arch, plat = f"sm_{p.major}{p.minor}", "cuda"
    l2 = getattr(p, "L2_cache_size", None) or None
    return DeviceInfo("cuda", plat, p.name, arch, p.multi_processor_count, l2, p.total_memory)


def match_arch(platform: str | None, arch: str | None, name: str, units: int | None) -> tuple[ArchSpec | None, str]:
    """The arch-table row for a device, and how it was matched (or why not).

    AMD: rows of the same gfx arch, chosen by a name token (longest first), else by CU count (MI50: 60 vs
    MI60: 64 CUs, both gfx906). A device with half a row's CUs is one GCD of a two-die module (MI250X):
    its rates and bandwidth are halved. NVIDIA: by name ("H200", "H100" [+ "PCIe"], "A100" [+ "40GB"]).
    """
    if platform is None:
        return None, "no GPU: no arch peaks"
    candidates = [a for a in ARCHS.values() if a.arch == arch] if platform == "hip" else \
        [a for a in ARCHS.values() if a.arch.startswith("sm_")]
    upper = name.upper()
    named = [a for a in candidates if a.name_tokens and all(t.upper() in upper for t in a.name_tokens)]
    if named:  # "MI50/MI60"-style names match two rows: the CU count decides
        pool = [a for a in named if a.units == units] or named
        best = max(pool, key=lambda a: (len(a.name_tokens), sum(len(t) for t in a.name_tokens)))
        return _per_device(best, units, f"name {name!r}")
    if platform == "hip" and units is not None:
        for a in candidates:
            if a.units == units:
                return a, f"{arch} with {units} CUs"
        for a in candidates:
            if a.units == 2 * units:
                return _per_device(a, units, f"{arch} with {units} CUs")
    return None, f"{name!r} ({arch}, {units} CUs/SMs) is not in the arch table; pass --arch KEY ({', '.join(ARCHS)})"


def _per_device(a: ArchSpec, units: int | None, how: str) -> tuple[ArchSpec, str]:
    if units is not None and a.arch.startswith("gfx") and a.units == 2 * units:
        half = replace(a, key=f"{a.key}-GCD", name=f"{a.name.replace(' (both GCDs)', '')} (one GCD)", units=units,
                       fp32=a.fp32 / 2, packed_fp16=a.packed_fp16 / 2,
                       matrix_fp16=None if a.matrix_fp16 is None else a.matrix_fp16 / 2, hbm_tbps=a.hbm_tbps / 2,
                       source=a.source + "; halved: torch sees one of the two GCDs")
        return half, f"{how}: one GCD of {a.key}"
    return a, how


def lookup(key: str) -> ArchSpec:
    """The row named ``key`` (case-insensitive), else ValueError listing the keys."""
    for k, a in ARCHS.items():
        if k.lower() == key.lower():
            return a
    raise ValueError(f"--arch must be one of {', '.join(ARCHS)}, got {key!r}")


def peak_kind(method: str, dtype: str, spec: ArchSpec | None) -> str | None:
    """Which compute ceiling applies to ``method`` on ``dtype`` ("fp16" | "bf16" | "fp32"): one of
    PEAK_KINDS, or None for CPU-only methods / unknown devices. See the module docstring."""
    if spec is None or method == "rocflash-sim":
        return None
    if method == "rocflash-hip":
        return "packed_fp16" if dtype == "fp16" else "fp32"
    if method in ("rocflash-cuda-vector", "rocflash-torch") or dtype == "fp32":
        return "fp32"
    if method == "rocflash-cuda" and spec.matrix_fp16 is None:  # no tensor-core peak known: the vector tile math
        return "fp32"
    return "matrix_fp16" if spec.matrix_fp16 is not None else "packed_fp16"
