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
``ROCFLASH_CK``) are checked by setup.py / rocflash.build when read.
"""

from __future__ import annotations

import os

# name: (accepted values (lower case), the value when unset or empty)
SWITCHES: dict[str, tuple[tuple[str, ...], str]] = {
    "ROCFLASH_KERNEL": (("auto", "vector", "mma", "sbcast"), "auto"),
    "ROCFLASH_INDEX_CHECKS": (("device", "host", "off"), "device"),
    "ROCFLASH_POISON_OUTPUTS": (("0", "1"), "0"),
    "ROCFLASH_SPLITKV_L2_PREFETCH": (("0", "64", "128", "256"), "128"),
    "ROCFLASH_SPLITKV_FUSED_COMBINE": (("0", "1"), "0"),
    "ROCFLASH_SPLITKV_PDL": (("0", "1"), "0"),
    # tensor-core backward, sm_90a builds on compute capability 9 only (hip_src/fmha_mma_bwd_wgmma.h; read by the
    # launcher at every launch, exactly "1" / "2"): the atomic-dQ kernel's dQ product on wgmma (1), its S^T / dP^T
    # on wgmma over a core-matrix shared-memory layout (1) or that layout on mma.sync (2); 0 = mma.sync (default)
    "ROCFLASH_BWD_DQ_WGMMA": (("0", "1"), "0"),
    "ROCFLASH_BWD_SDP_WGMMA": (("0", "1", "2"), "0"),
}
# read at install / tool time (setup.py, rocflash.ck.build), not by check_switches
BUILD_SWITCHES: dict[str, tuple[tuple[str, ...], str]] = {
    "ROCFLASH_CK": (("auto", "0", "1"), "auto"),
}


def choice(name: str, raw: str | bytes | None = None, *, read: bool = True) -> str:
    """The value of switch ``name`` (a key of SWITCHES or BUILD_SWITCHES), stripped and lower-cased; its default
    when unset or empty. ``raw``: the value as already read (``read=False``: None means unset). ValueError naming
    the variable, the accepted values and the value for anything else."""
    accepted, default = SWITCHES[name] if name in SWITCHES else BUILD_SWITCHES[name]
    if read and raw is None:
        raw = os.environ.get(name)
    if isinstance(raw, bytes):
        raw = raw.decode(errors="replace")
    value = (raw or "").strip().lower() or default
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


_CHECKED: set = set()


def check_switches() -> None:
    """ValueError for the first run-time switch in SWITCHES with a value outside its accepted set. A set of
    values that passed is remembered, so repeated calls cost one environment read per switch."""
    state = tuple(os.environ.get(name) for name in SWITCHES)
    if state in _CHECKED:
        return
    for name, raw in zip(SWITCHES, state):
        choice(name, raw, read=False)
    if len(_CHECKED) > 64:
        _CHECKED.clear()
    _CHECKED.add(state)
