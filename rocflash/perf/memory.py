"""Memory a method needs for one case, estimated before it runs, and the memory there is to give.

The benchmark skips a (case, method) whose estimate exceeds ``FRACTION`` of the available memory with status
``oom`` (the same status a real out-of-memory error gets), instead of letting the operating system kill the
process: on the CPU a large allocation is not refused, the process is OOM-killed when it touches the pages.

Models, in bytes per element of the score matrix S (batch x nheads x seqlen_q x seqlen_k), measured as the
peak RSS growth of one call on the CPU (torch 2.13, 1 thread, (1, 2048, 8, 64) fp16/fp32, causal and not,
MHA and GQA 8/2) and rounded up by about a third:

============================  =======================  ==========  =============
method                        S materialised in        fwd         fwd+bwd
============================  =======================  ==========  =============
naive                         the input dtype (e B)    3 e (4.2)   5 e (7.5)
sdpa-math                     fp32 (upcast), 4 B       3 x 4 (10)  4.5 x 4 (14)
rocflash-torch                fp32, 4 B                4 x 4 (13)  7 x 4 (22)
============================  =======================  ==========  =============

(measured fp16 bytes per element in parentheses). Every other method keeps O(seqlen) memory: a multiple of
the input bytes, plus the explicit (seqlen_q, seqlen_k) mask SDPA gets for windows and bottom-right causal
(as a float bias per head where the backend expands it), plus for ``rocflash-sim`` its fp32 copies of Q/K/V
and a row of score tiles.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from .cases import Case

FRACTION = 0.8  # of the available memory a single (case, method) may be estimated to use
QUADRATIC = {  # method -> (bytes of S's element: None = the input dtype, factor fwd, factor fwd+bwd)
    "naive": (None, 3.0, 5.0),
    "sdpa-math": (4, 3.0, 4.5),
    "rocflash-torch": (4, 4.0, 7.0),
}
SIM_TILE_ROWS = 128  # rocflash-sim: the query rows of one row of score tiles (block_m bound)


def gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def score_elements(case: Case) -> int:
    return case.batch * case.nheads * case.seqlen_q * case.seqlen_k


def method_bytes(method: str, case: Case) -> tuple[int, str]:
    """(estimated peak bytes one call of ``method`` allocates beyond its inputs, what dominates it)."""
    bwd = case.direction == "fwd+bwd"
    e = case.elem_bytes
    inputs = case.input_bytes()
    kv_repeat = 2 * case.batch * case.nheads * case.seqlen_k * case.headdim * e if case.group > 1 else 0
    if method in QUADRATIC:
        elem, fwd_factor, bwd_factor = QUADRATIC[method]
        elem = elem or e
        n = score_elements(case)
        quad = int(n * elem * (bwd_factor if bwd else fwd_factor))
        need = quad + kv_repeat + 2 * inputs
        # every term with its size (newuser9: a GQA decode case said only "S and P materialised" for a need that was
        # 2 % S and P, 65 % the repeated K/V)
        what = (f"S and P materialised: {case.batch}x{case.nheads}x{case.seqlen_q}x{case.seqlen_k} x {elem} B, "
                f"{gib(quad)}" + (f"; K/V repeated over the GQA group: {gib(kv_repeat)}" if kv_repeat else "") +
                f"; 2 x the inputs: {gib(2 * inputs)}")
        return need, what
    if method == "rocflash-sim":
        copies = 4 * case.batch * case.nheads * (case.seqlen_q + 2 * case.seqlen_k) * case.headdim * (6 if bwd else 3)
        tiles = 4 * 4 * case.batch * case.nheads * min(case.seqlen_q, SIM_TILE_ROWS) * case.seqlen_k
        return copies + tiles * (3 if bwd else 1), "fp32 copies of Q/K/V and a row of score tiles"
    mask = 0
    if method.startswith("sdpa-") and (case.window_left >= 0 or case.window_right >= 0 or
                                       (case.causal and case.seqlen_q != case.seqlen_k)):
        mask = case.seqlen_q * case.seqlen_k * (1 + 4 * case.nheads * case.batch * (method == "sdpa-efficient"))
    return 4 * inputs + kv_repeat + mask, "O(seqlen): outputs" + (", gradients" if bwd else "") + \
        (", the explicit mask" if mask else "")


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def cgroup_available() -> int | None:
    """Bytes left under this process's cgroup memory limit (v2 ``memory.max``, v1 ``limit_in_bytes``), or None."""
    for limit, usage in (("memory.max", "memory.current"),
                         ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes")):
        lim, use = _read_int(Path("/sys/fs/cgroup", limit)), _read_int(Path("/sys/fs/cgroup", usage))
        if lim is not None and use is not None and lim < 1 << 60:
            return max(0, lim - use)
    return None


def host_available() -> int | None:
    """Bytes the host can give without swapping: MemAvailable of /proc/meminfo, capped by the cgroup limit."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            avail = None
    cg = cgroup_available()
    return min(x for x in (avail, cg) if x is not None) if (avail is not None or cg is not None) else None


def available_bytes(device: torch.device) -> int | None:
    """Memory a call on ``device`` can still allocate: the GPU's free memory plus what torch's caching
    allocator holds unused; the host's available memory on the CPU; None when unknown."""
    if device.type == "cuda":
        free = torch.cuda.mem_get_info(device)[0]
        return free + torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
    return host_available()


def check(method: str, case: Case, available: int | None) -> str | None:
    """None when ``method`` fits; else the note of an ``oom`` result (estimate, what dominates, available)."""
    if available is None:
        return None
    need, what = method_bytes(method, case)
    if need <= FRACTION * available:
        return None
    return (f"skipped before running: needs ~{gib(need)} ({what}; estimate), {gib(available)} available "
            f"(limit {FRACTION:.0%})")


def is_oom_error(e: BaseException) -> bool:
    """torch's OutOfMemoryError, or the RuntimeError the CPU allocator raises when it is refused memory."""
    if isinstance(e, getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError)):
        return True
    text = str(e)
    return isinstance(e, RuntimeError) and any(s in text for s in (
        "can't allocate memory", "not enough memory", "out of memory", "Cannot allocate memory"))
