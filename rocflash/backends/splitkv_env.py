"""The environment switches of the compiled split-KV decode path (rocflash.envvars SWITCHES checks every value),
read by rocflash.backends.compiled and rocflash.kvcache_fast at plan time; each is part of every kept plan's key
(``PLAN_ENV_NAMES``). Moved out of rocflash/backends/compiled.py (dec9). Imports torch only for the device's
compute capability.

Defaults since dec9 (perf/RESULTS.md "dec9", H200, one process, CUDA graphs and eager): one K/V tile in flight per
warp (ROCFLASH_SPLITKV_INFLIGHT=1) and programmatic dependent launches (ROCFLASH_SPLITKV_PDL=1, sm_90+): together
1.02-1.13x the previous defaults at batch 1 and 8, level at 32 x 16k, eager level or faster. Since dec11 the
plain-decode loop (ROCFLASH_SPLITKV_PLAIN=1; perf/RESULTS.md "dec11"). dec7 / dec8's losing
opt-ins (ROCFLASH_SPLITKV_L2_PREFETCH, _K_FIRST, _BULK, _LOCKSTEP) were removed with their kernels.
"""

from __future__ import annotations

import functools
import os

import torch

from .. import envvars

SPLITKV_FUSED_COMBINE_ENV = "ROCFLASH_SPLITKV_FUSED_COMBINE"
SPLITKV_PDL_ENV = "ROCFLASH_SPLITKV_PDL"
SPLITKV_SPLITS_ENV = "ROCFLASH_SPLITKV_SPLITS"
SPLITKV_INFLIGHT_ENV = "ROCFLASH_SPLITKV_INFLIGHT"
SPLITKV_LAZY_RESCALE_ENV = "ROCFLASH_SPLITKV_LAZY_RESCALE"
SPLITKV_PLAIN_ENV = "ROCFLASH_SPLITKV_PLAIN"
# the switches a kept plan depends on (compiled.forward_planned, kvcache_fast: part of the plan's key)
PLAN_ENV_NAMES = (SPLITKV_FUSED_COMBINE_ENV, SPLITKV_PDL_ENV, SPLITKV_SPLITS_ENV, SPLITKV_INFLIGHT_ENV,
                  SPLITKV_LAZY_RESCALE_ENV, SPLITKV_PLAIN_ENV)
# FmhaFwdParams::kv_k_first's values (hip_src/fmha_splitkv_mma.h kSplitKvCopy*): two tiles in flight per warp, one,
# one with the lazy O rescale, one with the plain-decode loop
SPLITKV_COPY_TWO, SPLITKV_COPY_NEAR, SPLITKV_COPY_NEAR_LAZY, SPLITKV_COPY_PLAIN, SPLITKV_COPY_PLAIN_TWO = 0, 3, 5, 6, 7


def splitkv_fused_combine() -> bool:
    """``ROCFLASH_SPLITKV_FUSED_COMBINE`` (1 | 0; unset = off): whether the tensor-core split-KV kernel merges its
    splits itself (the last block of each (sequence, kv-head, row chunk) combines; hip_src/fmha_splitkv_mma.h)
    instead of a second, combine kernel. ValueError for another value."""
    return envvars.switch(SPLITKV_FUSED_COMBINE_ENV) == "1"


@functools.cache  # (compiled.load_module caches the import itself: the module cannot change in a process)
def _compiled_cuda_archs() -> tuple[str, ...]:
    """The CUDA module's compiled list (sm_XY cubins, compute_XY PTX), () without one."""
    from .compiled import load_module

    mod = load_module("cuda")
    return () if mod is None else tuple(mod.compiled_archs())


@functools.lru_cache(maxsize=None)
def _code_major(device_arch: str, archs: tuple[str, ...]) -> int:
    """Compute capability major of the code the driver runs on ``device_arch`` (selector.running_code), 0: none."""
    from ..selector import cuda_cc, running_code

    code = running_code("cuda", device_arch, list(archs))
    return 0 if code is None else cuda_cc(code)[0]


def _sm90(device) -> bool:
    """Whether the CUDA code that runs on ``device`` was compiled for sm_90+: the device's compute capability is 9+
    AND the driver runs machine code or PTX of 9+ there. A ``TORCH_CUDA_ARCH_LIST=8.0+PTX`` build on an sm_90
    device runs compute_80 code, whose griddepcontrol instructions are compiled out (hip_src/rf_vendor.h): a
    programmatic dependent launch of it would read its predecessor's output before it is complete."""
    if getattr(device, "type", None) != "cuda" or torch.version.cuda is None:
        return False
    major, minor = torch.cuda.get_device_capability(device)
    return major >= 9 and _code_major(f"sm_{major}{minor}", _compiled_cuda_archs()) >= 9


def splitkv_pdl(device) -> bool:
    """``ROCFLASH_SPLITKV_PDL`` (1 | 0; unset = on since dec9): whether the tensor-core split-KV kernel and its
    combine kernel are programmatic dependent launches (hip_src/rf_vendor.h rfLaunch: each may be scheduled while the
    kernel before it finishes, and waits for it before touching memory; results are identical). Only on NVIDIA
    sm_90+ (the PTX griddepcontrol instructions); False elsewhere. ValueError for another value."""
    want = envvars.switch(SPLITKV_PDL_ENV) == "1"  # valid but meaningless off sm_90+: accepted, no effect
    return want and _sm90(device)


def splitkv_split_rule() -> str:
    """``ROCFLASH_SPLITKV_SPLITS`` (wave | fill; unset = wave): the rule num_splits = 0 picks the split count by
    (rocflash.splitkv.num_splits_heuristic's ``rule``; "fill" changes only the tensor-core kernel's picks, where
    the 256-keys-per-split floor left resident block slots empty or a count left splits without keys). Results of
    each count are exact; the count is part of every kept plan's key. ValueError for another value."""
    return envvars.switch(SPLITKV_SPLITS_ENV)


def splitkv_inflight() -> int:
    """``ROCFLASH_SPLITKV_INFLIGHT`` (1 | 2; unset = 1 since dec9): how many K/V tiles each warp of the tensor-core
    split-KV kernel's general loop keeps in flight while it computes one (1: the kSplitKvCopyNear kernel; 2 =
    kStages - 1, the default before dec9; the same arithmetic in the same order, results identical). The plain-decode
    loop (ROCFLASH_SPLITKV_PLAIN) keeps two under either value since dec13 (perf/RESULTS.md "dec13"). ValueError for
    another value."""
    return int(envvars.switch(SPLITKV_INFLIGHT_ENV))


def splitkv_lazy_rescale() -> bool:
    """``ROCFLASH_SPLITKV_LAZY_RESCALE`` (1 | 0; unset = off; opt-in, dec9, not yet measured on a GPU): whether the
    tensor-core split-KV kernel's warps skip the rescale of their O accumulators (o *= alpha) in a tile where every
    row's running max stayed (alpha == 1): the kSplitKvCopyNearLazy kernel, results bitwise the default's. Needs one
    tile in flight (ROCFLASH_SPLITKV_INFLIGHT=1). ValueError for another value."""
    return envvars.switch(SPLITKV_LAZY_RESCALE_ENV) == "1"


def splitkv_plain() -> bool:
    """``ROCFLASH_SPLITKV_PLAIN`` (1 | 0; unset = on since dec11): whether the tensor-core split-KV kernel's blocks of
    plain decode (no softcap, no ALiBi, every key before the split's end visible from each of at most 8 query rows,
    the 128-bit path, headdim = its bucket) run the loop compiled for that case alone (hip_src/fmha_splitkv_mma.h
    kSplitKvCopyPlain: the stored rows bitwise the default's, but for a non-finite V of a key whose probability
    rounds to 0 in a split's last tile); other blocks and calls run the default's loop. The plain loop keeps two
    tiles in flight per warp (since dec13; ROCFLASH_SPLITKV_INFLIGHT sets the other blocks' loop), and under the
    folded KV-cache step puts its first two in flight before the step's reads (speculate_first_tiles). Not with the
    lazy rescale (its loop skips the
    rescale likewise: ROCFLASH_SPLITKV_LAZY_RESCALE=1 turns the default off; with an explicit PLAIN=1 it raises in
    splitkv_copy_mode). ValueError for another value."""
    return envvars.switch(SPLITKV_PLAIN_ENV) == "1"


def _plain_set_explicitly() -> bool:
    """Whether ROCFLASH_SPLITKV_PLAIN is set to something other than empty (envvars: unset or empty = the default)."""
    return bool(os.environ.get(SPLITKV_PLAIN_ENV, "").strip())


def splitkv_copy_mode(device=None) -> int:
    """FmhaFwdParams::kv_k_first of a tensor-core split-KV launch: SPLITKV_COPY_NEAR (3, one tile in flight per
    warp, the default), SPLITKV_COPY_TWO (0, ROCFLASH_SPLITKV_INFLIGHT=2), SPLITKV_COPY_PLAIN / _PLAIN_TWO (6 / 7,
    ROCFLASH_SPLITKV_PLAIN=1 with the general loop's one / two tiles in flight) or SPLITKV_COPY_NEAR_LAZY (5,
    ROCFLASH_SPLITKV_LAZY_RESCALE=1; the plain default gives way to it). ValueError for LAZY_RESCALE=1 with
    INFLIGHT=2 or with an explicit PLAIN=1 (no such kernels)."""
    inflight, lazy, plain = splitkv_inflight(), splitkv_lazy_rescale(), splitkv_plain()
    if lazy and inflight != 1:
        raise ValueError(f"{SPLITKV_LAZY_RESCALE_ENV}=1 needs {SPLITKV_INFLIGHT_ENV}=1 (the lazy-rescale kernel keeps "
                         f"one K/V tile in flight per warp), got {SPLITKV_INFLIGHT_ENV}={inflight}")
    if lazy and plain and not _plain_set_explicitly():
        plain = False  # the opt-in lazy kernel asked for by name; the plain loop is only the default
    if lazy and plain:
        raise ValueError(f"{SPLITKV_PLAIN_ENV}=1 and {SPLITKV_LAZY_RESCALE_ENV}=1 name two kernels; set one (the plain "
                         f"loop skips the rescale of a tile whose running max stayed, as the lazy one does)")
    if plain:
        return SPLITKV_COPY_PLAIN if inflight == 1 else SPLITKV_COPY_PLAIN_TWO
    if lazy:
        return SPLITKV_COPY_NEAR_LAZY
    return SPLITKV_COPY_NEAR if inflight == 1 else SPLITKV_COPY_TWO


# Arrival counters of the fused combine, one int32 per (sequence, kv-head, row chunk): every launch leaves them 0
# (the last block of a slot resets its counter), so one zeroed buffer per (device, stream) serves every call on
# that stream (calls on one stream never overlap). Inside a CUDA graph capture a call gets a fresh zeroed buffer
# instead (a memset node that runs at every replay), so a graph replayed on another stream shares nothing.
_SPLIT_COUNTERS: dict = {}


def split_counters(device: torch.device, stream: int, slots: int) -> torch.Tensor:
    """A zeroed int32 counter buffer of at least ``slots`` entries for a fused-combine launch on ``stream``."""
    if torch.cuda.is_current_stream_capturing():
        return torch.zeros(slots, dtype=torch.int32, device=device)
    key = (device.index, stream)
    buf = _SPLIT_COUNTERS.get(key)
    if buf is None or buf.numel() < slots:
        buf = torch.zeros(max(slots, 4096), dtype=torch.int32, device=device)
        _SPLIT_COUNTERS[key] = buf
    return buf


def fused_combine_fits(inst, num_splits: int) -> bool:
    """Whether the tensor-core split kernel's fused combine fits its shared memory: a 16-byte flag, then each row's
    m_s and l_s of every split, float32 (fmha_splitkv_mma.h combine_if_last)."""
    return 16 + inst["block_m"] * num_splits * 8 <= inst["lds_bytes"]


def set_split_switches(p, math: str, device) -> None:
    """The switch-driven fields of a split-KV launch's params: the copy mode and PDL (tensor-core kernel only)."""
    p.kv_k_first = splitkv_copy_mode(device) if math == "mma" else 0
    p.pdl = int(math == "mma" and splitkv_pdl(device))
