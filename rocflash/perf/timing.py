"""Timing with device events (CUDA and ROCm alike through torch.cuda.Event) or time.perf_counter on the CPU.

Method (seed 003's MI50 validation, extended): warm up, then time every repeat separately and report the
median and the 95th percentile; calls rotate over several input sets whose total size exceeds the L2, so
a repeat does not find its inputs in the cache left by the previous one. The number of warm-ups and
repeats is capped by a time budget per measurement, so slow backends do not stall a sweep.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import torch

DEFAULT_L2_BYTES = 64 << 20  # when the device does not report its L2 (and for the CPU's last-level cache)


@dataclass(frozen=True)
class Timing:
    """Per-call times in milliseconds over ``repeats`` timed calls after ``warmup`` untimed ones."""

    median_ms: float
    p95_ms: float
    min_ms: float
    mean_ms: float
    repeats: int
    warmup: int


def summarize(times_ms: list[float], warmup: int = 0) -> Timing:
    """Median, 95th percentile (linear interpolation between order statistics, ``statistics.quantiles``
    with method="inclusive"), min and mean of per-call times."""
    if not times_ms:
        raise ValueError("times_ms must hold at least one time, got an empty list")
    p95 = statistics.quantiles(times_ms, n=20, method="inclusive")[-1] if len(times_ms) > 1 else times_ms[0]
    return Timing(statistics.median(times_ms), p95, min(times_ms), statistics.fmean(times_ms), len(times_ms), warmup)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_calls(calls: list[Callable[[], object]], device: torch.device, count: int, start: int = 0) -> list[float]:
    """Run ``count`` calls, rotating over ``calls`` from index ``start``; return each call's time in ms.

    GPU: one event pair around each call on the current stream, read after one synchronize at the end.
    CPU: perf_counter around each call.
    """
    n = len(calls)
    if device.type == "cuda":
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(count)]
        for i, (s, e) in enumerate(events):
            s.record()
            calls[(start + i) % n]()
            e.record()
        torch.cuda.synchronize(device)
        return [s.elapsed_time(e) for s, e in events]
    out = []
    for i in range(count):
        t0 = time.perf_counter()
        calls[(start + i) % n]()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def plan(estimate_ms: float, warmup: int, repeats: int, min_repeats: int, budget_s: float) -> tuple[int, int]:
    """(warm-ups, repeats) for a call of about ``estimate_ms``: a quarter of the budget for warm-up (at least
    one), the rest for repeats, each clamped to [min, max] given by the caller."""
    budget_ms = max(budget_s, 0.0) * 1e3
    est = max(estimate_ms, 1e-3)
    n_warm = max(1, min(warmup, int(0.25 * budget_ms / est)))
    n_rep = max(min_repeats, min(repeats, int(0.75 * budget_ms / est)))
    return n_warm, n_rep


def measure(calls: list[Callable[[], object]], device: torch.device, *, warmup: int = 10, repeats: int = 50,
            min_repeats: int = 3, budget_s: float = 1.0, estimate_ms: float | None = None) -> Timing:
    """Warm up and time ``calls`` (rotated). ``estimate_ms`` (e.g. a previous call's time) sizes the plan;
    without it one extra call is timed first."""
    if estimate_ms is None:
        estimate_ms = time_calls(calls, device, 1)[0]
    n_warm, n_rep = plan(estimate_ms, warmup, repeats, min_repeats, budget_s)
    for i in range(n_warm):
        calls[i % len(calls)]()
    synchronize(device)
    return summarize(time_calls(calls, device, n_rep, start=n_warm), n_warm)


def l2_bytes(device: torch.device) -> int:
    """The device's L2 size from torch (``L2_cache_size``), else DEFAULT_L2_BYTES."""
    if device.type == "cuda":
        size = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0)
        if size:
            return int(size)
    return DEFAULT_L2_BYTES


def n_input_sets(set_bytes: int, l2: int, free_bytes: int | None = None, min_sets: int = 3,
                 max_sets: int = 64) -> tuple[int, str]:
    """How many input sets to rotate: enough that together they exceed twice the L2 (at least ``min_sets``,
    at most ``max_sets``), and no more than half the free memory allows. Returns (n, note); the note says
    when memory forced fewer sets than the rule asks for."""
    want = max(min_sets, min(max_sets, math.ceil(2 * l2 / max(set_bytes, 1))))
    if free_bytes is not None:
        fit = int(0.5 * free_bytes // max(set_bytes, 1))
        if fit < want:
            n = max(1, fit)
            return n, f"{n} input set(s): memory holds no more (rule: {want})"
    return want, ""


def peak_extra_memory(call: Callable[[], object], device: torch.device) -> tuple[int | None, float]:
    """Run ``call`` once; return (peak device bytes allocated during it beyond what was allocated before,
    i.e. beyond the inputs: output and workspace; None on the CPU) and its time in ms (events on the GPU)."""
    if device.type != "cuda":
        t0 = time.perf_counter()
        call()
        return None, (time.perf_counter() - t0) * 1e3
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    out = call()
    e.record()
    torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - before
    del out
    return max(0, peak), s.elapsed_time(e)
