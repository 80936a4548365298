"""Time a method needs for one case, estimated before it runs (the CPU's counterpart of ``memory``).

On the CPU one call of a GPU-sized case takes minutes (the default preset's 4 x 4096^2 x 32 heads x 128 forward is
1.1 TFLOP), and a measurement makes several calls, so the benchmark estimates each (case, method) first and skips
the ones over the limit with status ``skipped`` and a note that says why, the way ``memory`` skips what would not
fit with status ``oom``. The estimate::

    seconds = SAFETY * case FLOP (models.attention_flops) / rate * calls
    rate    = probe FLOP / probe seconds: the same method, dtype, headdim, mask and direction on a probe case of
              batch 1 and one KV head (the query heads of one GQA group), at most PROBE_SEQLEN query rows, and
              keys enough for PROBE_KV_BYTES of K/V (at least PROBE_SEQLEN, at most the case's): a decode step's
              probe streams K/V from memory as the case does, not from the cache; the faster of two calls after
              one warm-up, measured on this machine in this process
    calls   = what run_one makes at least: the first call, the backward check (fwd+bwd), the memory call,
              one warm-up and --min-repeats timed calls

The probe's rate is not the case's: fixed costs per call weigh more in the probe (the estimate errs long), memory
traffic and allocations of the full batch weigh more in the case (it errs short). Measured on a loaded 2-core
machine: the default preset's decode step (8 x 16384 keys, 32/8 heads, fp16) took 4.4 s per sdpa-flash call
against 2.9 s estimated, hence SAFETY = 2: a case near the limit may be skipped that would have fit.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

import torch

from . import methods
from .cases import Case

PROBE_SEQLEN = 256  # query rows of the probe case at most (and its keys at least, where the case has them)
PROBE_KV_BYTES = 16 << 20  # K/V bytes of the probe's keys at most
SAFETY = 2.0  # the estimate's factor over the probe's extrapolation (module docstring)
# A case is not probed when even FLOOR_RATE plus FLOOR_CALL_S per call keeps it within the limit: a call takes
# at most flop / FLOOR_RATE + FLOOR_CALL_S. This is an assumption, 5x below the slowest rate measured here
# (rocflash-torch on the decode step under load, 28 MFLOP/s). It spares the smoke preset's tiny cases a probe.
FLOOR_RATE = 5e6
FLOOR_CALL_S = 0.25
CPU_CASE_LIMIT_S = 20.0  # --max-case-s default on the CPU (no limit on a GPU unless given)


def probe_case(case: Case) -> Case:
    """The small case whose measured rate stands for ``case``'s: same method-relevant fields, smaller sizes."""
    sq = min(case.seqlen_q, PROBE_SEQLEN)
    sk = min(case.seqlen_k, max(PROBE_SEQLEN, PROBE_KV_BYTES // (2 * case.headdim * case.elem_bytes)))
    wl = case.window_left if case.window_left < 0 else min(case.window_left, sk)
    wr = case.window_right if case.window_right < 0 else min(case.window_right, sk)
    return replace(case, batch=1, seqlen_q=sq, seqlen_k=sk, nheads=case.group, nheads_k=1, window_left=wl,
                   window_right=wr)


def minimal_calls(case: Case, min_repeats: int) -> float:
    """Calls of the measured direction one run_one makes at least: the first call (a forward), the backward
    check (fwd+bwd), the memory call, one warm-up, ``min_repeats`` timed ones."""
    return min_repeats + 3 + (1.0 / 3.5 if case.direction == "fwd+bwd" else 0.0)


def probe_rate(method: str, case: Case, device: torch.device, calls_of: Callable, seed: int = 0) -> float | None:
    """FLOP/s of ``method`` on probe_case(case) here, or None when the probe cannot run (the method is
    unavailable, refuses the case, or fails: run_one then reports that as before)."""
    small = probe_case(case)
    try:
        sets = methods.make_inputs(small, 1, device, seed)
        prep = methods.prepare(method, small, sets, device)
        call = calls_of(prep, small)[0]
        with prep.context():
            call()  # warm-up: first-call costs (allocations, dispatch caches) out of the rate
            best = float("inf")
            for _ in range(2):
                t0 = time.perf_counter()
                call()
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
                best = min(best, time.perf_counter() - t0)
    except Exception:  # noqa: BLE001 -- any failure: no estimate; run_one meets and reports the same failure
        return None
    return small.flop / max(best, 1e-9)


def needs_probe(case: Case, limit_s: float | None, min_repeats: int) -> bool:
    """Whether ``case`` could exceed ``limit_s`` at all: False when even the floor rate keeps it within."""
    if limit_s is None:
        return False
    return SAFETY * minimal_calls(case, min_repeats) * (case.flop / FLOOR_RATE + FLOOR_CALL_S) > limit_s


def check(method: str, case: Case, limit_s: float | None, rate: float | None, min_repeats: int,
          what: str = "--max-case-s") -> str | None:
    """None when ``method`` is estimated to finish within ``limit_s`` (or nothing is known); else the note of a
    ``skipped`` result (estimate, rate, limit and where the limit comes from)."""
    if limit_s is None or rate is None:
        return None
    calls = minimal_calls(case, min_repeats)
    need = SAFETY * case.flop / rate * calls
    if need <= limit_s:
        return None
    probe = probe_case(case)
    return (f"skipped before running: over time limit: ~{need:.3g} s estimated ({SAFETY:g} x {calls:g} calls of "
            f"{case.flop / 1e9:.3g} GFLOP at {rate / 1e9:.3g} GFLOP/s, measured on a {probe.seqlen_q}x{probe.seqlen_k} "
            f"probe), limit {limit_s:.3g} s ({what})")
