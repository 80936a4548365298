"""The ``ROCFLASH_*`` environment switches, read through one checker.

Every switch the package reads at run time goes through :func:`choice` (or :func:`jobs`): a value outside the
accepted set raises ``ValueError`` naming the variable, the accepted values and the value, at the point of
reading, never ignored. :func:`check_switches` checks all the run-time switches at once; the backend selection
calls it (rocflash.selector.select_backend), so a typo fails on every backend, CPU ones included, and not only
on the backend that acts on the switch.

A value that is valid somewhere but means nothing on the backend in use is accepted silently: e.g.
``ROCFLASH_KERNEL=mma`` or ``ROCFLASH_SPLITKV_FUSED_COMBINE=1`` with the ``torch`` or ``sim`` backend (no
compiled kernel runs, so there is no tile math to choose), or ``ROCFLASH_KERNEL=sbcast`` under ``ROCFLASH_BACKEND
=cuda`` when no call qualifies. Where the switch is acted on and cannot be honoured, the compiled backend raises
its own error (rocflash.backends.compiled).

Free-form variables (paths: ``ROCFLASH_CACHE_DIR``, ``ROCFLASH_CK_CONFIGS``, ``ROCFLASH_CK_SYSROOT``, ...;
``ROCFLASH_DEBUG``, any non-empty value = on) are not checked here; build-time ones (``ROCFLASH_BUILD``,
``ROCFLASH_CK``) are checked by setup.py / rocflash.build when read. Removed switches (REMOVED_SWITCHES) set to a
value raise ValueError saying so at the same check. Any other ``ROCFLASH_*`` name in the environment (a typo of
a switch's name: ``ROCFLASH_KERNELS=vector`` would otherwise be ignored silently) gives one UserWarning per name and
process, with the closest known name, when the switches are first checked for an environment (OTHER_NAMES lists the
free-form, build-time and test variables that are known).
"""

from __future__ import annotations

import difflib
import os
import warnings

# name: (accepted values (lower case), the value when unset or empty)
SWITCHES: dict[str, tuple[tuple[str, ...], str]] = {
    "ROCFLASH_KERNEL": (("auto", "vector", "mma", "sbcast"), "auto"),
    "ROCFLASH_INDEX_CHECKS": (("device", "host", "off"), "device"),
    "ROCFLASH_POISON_OUTPUTS": (("0", "1"), "0"),
    "ROCFLASH_SPLITKV_FUSED_COMBINE": (("0", "1"), "0"),
    # programmatic dependent launches of the tensor-core split-KV and combine kernels (sm_90+; on since dec9)
    "ROCFLASH_SPLITKV_PDL": (("0", "1"), "1"),
    # num_splits = 0's rule (rocflash.splitkv.SPLIT_RULES; "fill": the tensor-core kernel's lower keys-per-split floor)
    "ROCFLASH_SPLITKV_SPLITS": (("wave", "fill"), "wave"),
    # tensor-core split-KV kernel: K/V tiles each warp keeps in flight while it computes one (1 since dec9, or 2)
    "ROCFLASH_SPLITKV_INFLIGHT": (("1", "2"), "1"),
    # tensor-core split-KV kernel (one tile in flight): skip the O rescale of a tile whose warp's running max did not
    # move (opt-in, dec9; bitwise the default's results)
    "ROCFLASH_SPLITKV_LAZY_RESCALE": (("0", "1"), "0"),
    # tensor-core split-KV kernel: the plain-decode loop for its plain blocks (on since dec11; no softcap, ALiBi or
    # masked key before the split's end, <= 8 query rows, aligned, headdim = its bucket)
    "ROCFLASH_SPLITKV_PLAIN": (("0", "1"), "1"),
    # tensor-core backward, sm_90a builds on compute capability 9 only (hip_src/fmha_mma_bwd_wgmma.h; read by the
    # launcher at every launch, exactly "1"): the atomic-dQ kernel's dQ product on wgmma (1); 0 = mma.sync (default).
    # (ROCFLASH_BWD_SDP_WGMMA, S^T / dP^T on wgmma, was removed in branch tc80: measured slower, it spilled.)
    "ROCFLASH_BWD_DQ_WGMMA": (("0", "1"), "0"),
    # the atomic-dQ kernel's dQ warp tile (sm_90a builds; mma.sync, any compute capability): 32 query rows (1) or
    # 16 (0, default); the switch above takes precedence when set
    "ROCFLASH_BWD_DQ_TILE": (("0", "1"), "0"),
    # the atomic-dQ kernel (deterministic=False; hip_src/fmha_mma_bwd_lean.h; the 128-bit path without softcap /
    # ALiBi): auto (default) = the lean kernel, variant 3 (block_n 128 over 8 warps) when its grid covers every SM,
    # else 2; 2 / 3 = that variant; 0 = the kernel before tcbwd8; 1, 8, 9 = the A/B's step and timing diagnostics
    # (dq wrong) in builds with -DRF_TCBWD8_DIAG only, else auto. The two switches above take precedence
    "ROCFLASH_BWD_LEAN": (("auto", "0", "1", "2", "3", "8", "9"), "auto"),
}
# run-time switches that the CUDA launchers also read themselves, verbatim (std::getenv in hip_src/fmha_mma_bwd_launch.h
# and fmha_mma_bwd_lean.h compare exact characters): a value with surrounding whitespace would pass the stripped check
# here and then be read as another value there (" 2" as auto), so it is rejected
VERBATIM_SWITCHES = frozenset({"ROCFLASH_BWD_DQ_WGMMA", "ROCFLASH_BWD_DQ_TILE", "ROCFLASH_BWD_LEAN"})
# removed run-time switches: set to a non-empty value, they raise ValueError (saying so) instead of being ignored
# silently, so a script written for an older tree learns that the switch no longer does anything
REMOVED_SWITCHES: dict[str, str] = {
    "ROCFLASH_SPLITKV_L2_PREFETCH": "dec9: dec8's opt-in lost on the H200; the split-KV L2 prefetch is fixed at 128 B",
    "ROCFLASH_SPLITKV_K_FIRST": "dec9: dec7's K-first copies lost on the H200 and were removed with their kernel",
    "ROCFLASH_SPLITKV_BULK": "dec9: dec8's bulk-copy opt-in lost on the H200 and was removed with its kernel",
    "ROCFLASH_SPLITKV_LOCKSTEP": "dec9: dec8's lockstep opt-in lost on the H200 and was removed with its kernel",
    "ROCFLASH_BWD_SDP_WGMMA": "tc80: the S^T / dP^T on wgmma, 7-9 % slower on the H200 and spilling at d128, were removed",
}
# other ROCFLASH_* names the package, its build, tools, tests and CI scripts read (free-form values: paths, flags,
# counts); a ROCFLASH_* name in none of these tables is reported by _warn_unknown_names as a probable typo
OTHER_NAMES = frozenset({
    "ROCFLASH_BACKEND", "ROCFLASH_JOBS", "ROCFLASH_BUILD", "ROCFLASH_REQUIRE_BUILDS", "ROCFLASH_DEBUG",
    "ROCFLASH_CACHE_DIR", "ROCFLASH_CLANG", "ROCFLASH_DEVICE_LIB_PATH", "ROCFLASH_ISA_PATHS", "ROCFLASH_ISA_BUILD_DIR",
    "ROCFLASH_CK_CONFIGS", "ROCFLASH_CK_SYSROOT", "ROCFLASH_CK_CLANG", "ROCFLASH_CK_DEBIAN_SUITE",
    "ROCFLASH_FUZZ_EXAMPLES", "ROCFLASH_FUZZ_SEED", "ROCFLASH_FULL_MATRIX",
})
# read at install / tool time (setup.py, rocflash.ck.build), not by check_switches
BUILD_SWITCHES: dict[str, tuple[tuple[str, ...], str]] = {
    "ROCFLASH_CK": (("auto", "0", "1"), "auto"),
}


def choice(name: str, raw: str | bytes | None = None, *, read: bool = True) -> str:
    """The value of switch ``name`` (a key of SWITCHES or BUILD_SWITCHES), stripped and lower-cased; its default
    when unset or empty. ``raw``: the value as already read (``read=False``: None means unset). ValueError naming
    the variable, the accepted values and the value for anything else. A run-time switch read from the
    environment comes from :func:`switch` (checked once per set of values)."""
    if read and raw is None and name in SWITCHES:
        return switch(name)  # the run-time switches are checked once per set of values (cached)
    accepted, default = SWITCHES[name] if name in SWITCHES else BUILD_SWITCHES[name]
    if read and raw is None:
        raw = os.environ.get(name)
    if isinstance(raw, bytes):
        raw = raw.decode(errors="replace")
    value = (raw or "").strip().lower() or default
    if name in VERBATIM_SWITCHES and raw and raw != raw.strip():
        raise ValueError(f"{name} is read verbatim by the CUDA launcher: no surrounding whitespace, got {raw!r} "
                         f"(accepted: {', '.join(accepted)}; unset = {default})")
    if value not in accepted:
        raise ValueError(f"{name} must be one of {', '.join(accepted)}, got {raw!r} (unset = {default})")
    return value


def backend_name(raw: str | None, names: tuple[str, ...]) -> str | None:
    """``ROCFLASH_BACKEND`` as read (None or empty = unset: the device probe decides). ValueError for a name
    outside ``names``."""
    if not raw:
        return None
    if raw not in names:  # exact (as the backend= argument): 'HIP' is rejected, not guessed
        raise ValueError(f"ROCFLASH_BACKEND must be one of {names}, got {raw!r} (unset = the device probe decides)")
    return raw


def jobs() -> int:
    """``ROCFLASH_JOBS``: parallel compile jobs, a positive integer; unset, empty or 0 = the CPU count.
    ValueError for another value."""
    raw = os.environ.get("ROCFLASH_JOBS", "")
    value = raw.strip()
    if not value.isdigit():
        if value:
            raise ValueError(f"ROCFLASH_JOBS must be a positive integer, got {raw!r} (unset or 0 = the CPU count)")
        value = "0"
    return int(value) or os.cpu_count() or 1


_NAMES = tuple(SWITCHES) + tuple(REMOVED_SWITCHES)  # the raw state's order: the switches, then the removed ones
_KEYS = tuple(os.fsencode(name) for name in _NAMES)  # os.environ's own keys on POSIX (bytes)
_CHECKED: dict = {}  # raw values (as stored in os.environ) -> ({name: checked value or its ValueError}, first error)


def _raw_state() -> tuple:
    """The raw values of the SWITCHES, then of the REMOVED_SWITCHES, in their order (None = unset): one lookup per
    name in os.environ's bytes mapping on POSIX, without os.environ.get's per-name encoding and decoding."""
    data = getattr(os.environ, "_data", None)
    if data is None or os.name == "nt":
        return tuple(map(os.environ.get, _NAMES))
    return tuple(map(data.get, _KEYS))


def _checked() -> tuple[dict, ValueError | None]:
    """Every run-time switch checked, for the environment as it is now, and the first switch's error (None: all
    valid); cached keyed on the raw values, so a changed variable takes effect at the next read and a repeated
    read costs one lookup per switch."""
    state = _raw_state()
    entry = _CHECKED.get(state)
    if entry is None:
        _warn_unknown_names()
        checked, first = {}, None
        for name, raw in zip(SWITCHES, state):
            try:
                checked[name] = choice(name, raw, read=False)
            except ValueError as e:
                checked[name] = e
                first = first or e
        for name, raw in zip(REMOVED_SWITCHES, state[len(SWITCHES):]):
            if isinstance(raw, bytes):
                raw = raw.decode(errors="replace")
            if raw and raw.strip():
                first = first or ValueError(
                    f"{name} was removed ({REMOVED_SWITCHES[name]}) and has no effect: unset it, got {raw!r}")
        if len(_CHECKED) >= 64:
            _CHECKED.clear()
        entry = _CHECKED[state] = (checked, first)
    return entry


_WARNED: set[str] = set()  # unknown names already reported in this process


def unknown_names(environ=None) -> list[str]:
    """The ``ROCFLASH_*`` names set in ``environ`` (default os.environ) that no table of this module knows."""
    known = OTHER_NAMES.union(SWITCHES, REMOVED_SWITCHES, BUILD_SWITCHES)
    return sorted(n for n in (os.environ if environ is None else environ) if n.startswith("ROCFLASH_") and n not in known)


def _warn_unknown_names() -> None:
    """One UserWarning per unknown ``ROCFLASH_*`` name and process (run when an environment is first checked)."""
    for name in unknown_names():
        if name in _WARNED:
            continue
        _WARNED.add(name)
        known = {n[len("ROCFLASH_"):]: n for n in OTHER_NAMES.union(SWITCHES, BUILD_SWITCHES)}  # the prefix matches
        close = difflib.get_close_matches(name[len("ROCFLASH_"):], sorted(known), n=1, cutoff=0.75)
        hint = (f"did you mean {known[close[0]]}?" if close else
                f"the run-time switches are ROCFLASH_BACKEND, {', '.join(SWITCHES)}")
        warnings.warn(f"{name} is set, but rocflash reads no variable of that name (it has no effect): {hint} "
                      "(README: Environment switches)", UserWarning, stacklevel=2)


def switch(name: str) -> str:
    """The checked value of run-time switch ``name`` (a key of SWITCHES) as :func:`choice` returns it, read from
    the environment now; :func:`choice`'s ValueError for a value outside its accepted set (a bad value of another
    switch does not raise here)."""
    value = _checked()[0][name]
    if type(value) is ValueError:
        raise ValueError(*value.args)
    return value


def snapshot() -> dict[str, str]:
    """The checked value of every run-time switch in SWITCHES (name -> value as :func:`choice` returns it), read
    from the environment now. ValueError (:func:`choice`'s) for the first switch with a value outside its accepted
    set."""
    checked, first = _checked()
    if first is not None:
        raise ValueError(*first.args)
    return dict(checked)


def check_switches() -> None:
    """ValueError for the first run-time switch in SWITCHES with a value outside its accepted set (:func:`choice`'s
    message). Cached keyed on the raw values: a repeated call costs one environment lookup per switch."""
    first = _checked()[1]
    if first is not None:
        raise ValueError(*first.args)
