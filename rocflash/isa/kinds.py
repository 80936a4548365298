"""What the audit covers: the kernel kinds, the archs audited by default, the load-path selection, and the
per-kind facts the invariants check (main-loop depth, the LDS reads claimed conflict-free)."""

from __future__ import annotations

from ..configs import KINDS

AMD_AUDIT_ARCHS = ("gfx906", "gfx908", "gfx90a", "gfx942")
NVIDIA_AUDIT_ARCHS = ("sm_80", "sm_90")
DEFAULT_ARCHS = AMD_AUDIT_ARCHS + NVIDIA_AUDIT_ARCHS

# Kernel kinds: the three tiled kernels (rocflash.configs.KINDS, one config table each) and the backward's
# element-wise preprocess kernel, which lives in hip_src/fmha_api.hip (no tile, no config).
TILED_KINDS: tuple[str, ...] = tuple(KINDS)  # ("fwd", "bwd_dkdv", "bwd_dq", "fwd_splitkv")
PREPROCESS_KIND = "bwd_preprocess"
AUDIT_KINDS = (*TILED_KINDS, PREPROCESS_KIND)
API_SOURCE = "fmha_api.hip"  # in hip_src/
# Loop depth of each tiled kind's main loop (see "Main-loop detection" in rocflash/isa/loops.py;
# tests/test_isa.py checks it).
MAIN_LOOP_DEPTH = {"fwd": 2, "bwd_dkdv": 3, "bwd_dq": 2, "fwd_splitkv": 2}
# The main-loop LDS reads each kernel's design claims conflict-free on its padded layout: all of them (see
# "LDS bank conflicts" in rocflash/isa/audit.py). check_bank_conflicts checks exactly these.
CONFLICT_FREE_READS = {
    "fwd": ("q", "k", "p", "v"),
    "bwd_dkdv": ("q", "do", "k", "v", "pt", "dst", "do_col", "q_col"),
    "bwd_dq": ("q", "do", "k", "v", "ds", "k_col"),
    "fwd_splitkv": (),  # no LDS reads in its main loop (K/V rows go global -> registers)
}
# Kernel symbol of each tiled kind whose instance file holds more than one kernel (the split-KV instance also
# instantiates its combine kernel).
KIND_KERNEL = {"fwd_splitkv": "fmha_fwd_splitkv_kernel"}
# Kinds whose main loop has no barrier: the split-KV key loop streams K/V through registers (its LDS merge, after
# the loop, is what synchronises). find_main_loop(synced=False) picks it.
UNSYNCED_MAIN_LOOP = ("fwd_splitkv",)
# Load paths audited per arch. "both": aligned and narrow everywhere; "split" (the default): narrow only on
# these archs, aligned everywhere (see "What is compiled" in rocflash/isa/compile.py).
PATH_CHOICES = ("split", "both", "aligned")
NARROW_ARCHS = ("gfx906", "sm_90")


def audits_path(arch: str, aligned: bool, paths: str) -> bool:
    """Whether the ``paths`` selection (PATH_CHOICES) audits the load path ``aligned`` on ``arch``."""
    if paths not in PATH_CHOICES:
        raise ValueError(f"paths must be one of {PATH_CHOICES}, got {paths!r}")
    return aligned or paths == "both" or (paths == "split" and arch in NARROW_ARCHS) or \
        (paths == "aligned" and arch == "gfx906")
