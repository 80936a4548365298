"""Result records, the JSON and CSV files, and the printed table.

The JSON schema ("rocflash.perf/1") is documented field by field in perf/README.md. In short::

    {"schema": "rocflash.perf/1", "created": ISO time, "argv": [...], "env": {...}, "device": {...},
     "arch": {arch-table row} | null, "arch_match": str, "settings": {...}, "notes": [str],
     "results": [{"case_id", "preset", "case": {...}, "method", "status", "note", "ms", "ms_p95", ...}]}

A result's ``status`` is "ok" (timed), "oom", "unsupported", "unavailable", "n/a" (no backward),
"error" or "skipped" (time limit); only "ok" rows carry times.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import asdict, dataclass

from . import models
from .arch import peak_kind
from .cases import Case

SCHEMA = "rocflash.perf/1"
STATUSES = ("ok", "oom", "unsupported", "unavailable", "n/a", "error", "skipped")


@dataclass
class Result:
    """One (case, method). Times in ms, rates in TFLOP/s and GB/s (1e9 bytes/s), memory in bytes."""

    case_id: str
    preset: str
    case: dict
    method: str
    status: str
    note: str = ""
    ms: float | None = None  # median per-call time
    ms_p95: float | None = None
    ms_min: float | None = None
    repeats: int | None = None
    warmup: int | None = None
    input_sets: int | None = None
    flop: float | None = None  # FLOP model of rocflash.perf.models
    bytes: int | None = None  # byte model of rocflash.perf.models
    intensity: float | None = None  # FLOP / byte
    tflops: float | None = None
    gbps: float | None = None
    peak_kind: str | None = None  # which compute ceiling applies (rocflash.perf.arch.PEAK_KINDS)
    peak_tflops: float | None = None
    pct_peak_flops: float | None = None  # percent
    pct_peak_bw: float | None = None  # percent
    ridge: float | None = None  # FLOP/byte where the applicable compute ceiling meets the bandwidth one
    bound: str | None = None  # "compute" | "memory" (intensity against the ridge point)
    extra_mem_bytes: int | None = None  # peak device memory of one call beyond the inputs (GPU only)
    max_err: float | None = None  # max |out - fp64 reference| on err_scope
    err_scope: str | None = None  # "full" or the slice the reference was computed on
    baseline: str | None = None  # method the speedup is relative to
    speedup: float | None = None  # baseline ms / ms (> 1: faster than the baseline)
    profiler: dict | None = None  # {"tool", "kernel_ms", "gbps", "tflops", "kernels": [...]} with --rocprof

    def to_dict(self) -> dict:
        return asdict(self)


def fill_rates(r: Result, spec) -> None:
    """Derive tflops, gbps, intensity, percentages and bound from ms, flop, bytes and the arch row."""
    if r.ms is None or r.ms <= 0:
        return
    r.tflops = r.flop / (r.ms * 1e-3) / 1e12
    r.gbps = r.bytes / (r.ms * 1e-3) / 1e9
    r.intensity = models.intensity(r.flop, r.bytes)
    r.peak_kind = peak_kind(r.method, r.case["dtype"], spec)
    if r.peak_kind is None:
        return
    r.peak_tflops = spec.peak(r.peak_kind)
    r.pct_peak_flops = 100.0 * r.tflops / r.peak_tflops
    r.pct_peak_bw = 100.0 * r.gbps / (spec.hbm_tbps * 1e3)
    r.ridge, r.bound, _ = models.roofline(r.intensity, r.peak_tflops, spec.hbm_tbps)


def fill_speedups(results: list[Result], baseline: str | None = None) -> None:
    """Per case: speedup = baseline ms / ms. Baseline: ``baseline`` if given and ok in that case, else the
    fastest ok SDPA method, else the fastest ok method."""
    by_case: dict[str, list[Result]] = {}
    for r in results:
        by_case.setdefault(r.case_id, []).append(r)
    for rows in by_case.values():
        ok = [r for r in rows if r.status == "ok" and r.ms]
        if not ok:
            continue
        named = [r for r in ok if r.method == baseline]
        sdpa = [r for r in ok if r.method.startswith("sdpa-")]
        base = named[0] if named else min(sdpa or ok, key=lambda r: r.ms)
        for r in ok:
            r.baseline, r.speedup = base.method, base.ms / r.ms


def document(results: list[Result], *, argv, env, device, arch, arch_match, settings, notes) -> dict:
    return {"schema": SCHEMA, "created": env.get("created"), "argv": list(argv), "env": env, "device": device,
            "arch": arch, "arch_match": arch_match, "settings": settings, "notes": list(notes),
            "results": [r.to_dict() for r in results]}


def _clean(x):
    """JSON has no NaN/inf: write them as strings "nan"/"inf"/"-inf"."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def write_json(doc: dict, path: str) -> None:
    with open(path, "w") as f:
        json.dump(_clean(doc), f, indent=1)
        f.write("\n")


def load_json(path: str) -> dict:
    """Read a results file; ValueError unless it is a rocflash.perf/1 document."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("results"), list):
        raise ValueError(f"{path}: must be a {SCHEMA} results file (the --json output), "
                         f"got schema {doc.get('schema') if isinstance(doc, dict) else type(doc).__name__!r}")
    return doc


CSV_CASE_FIELDS = ("batch", "seqlen_q", "seqlen_k", "nheads", "nheads_k", "headdim", "dtype", "causal", "window",
                   "direction")


def write_csv(results: list[Result], path: str) -> None:
    """One row per result: case fields, then every Result field except the nested ones (profiler: its
    kernel_ms and gbps only)."""
    scalar = [f for f in Result.__dataclass_fields__ if f not in ("case", "profiler")]
    fields = ["case_id", "preset", *CSV_CASE_FIELDS, *[f for f in scalar if f not in ("case_id", "preset")],
              "profiler_tool", "profiler_kernel_ms", "profiler_gbps"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in results:
            d = r.to_dict()
            row = {k: d[k] for k in scalar}
            for k in CSV_CASE_FIELDS:
                v = r.case.get(k)
                row[k] = f"{v[0]},{v[1]}" if k == "window" else v
            p = r.profiler or {}
            row.update(profiler_tool=p.get("tool"), profiler_kernel_ms=p.get("kernel_ms"), profiler_gbps=p.get("gbps"))
            w.writerow(row)


# ------------------------------------------------------------------------------------------------ table
def _f(x, fmt, none="-"):
    if x is None:
        return none
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return format(x, fmt)


def _mem(b):
    return "-" if b is None else f"{b / 2**20:.0f}"


KIND_SHORT = {"matrix_fp16": "mx", "packed_fp16": "pk", "fp32": "f32"}

HEADER = (f"{'method':15s} {'ms':>9s} {'p95':>9s} {'TFLOP/s':>8s} {'%peak':>8s} {'GB/s':>8s} {'%BW':>5s} "
          f"{'bound':>7s} {'xMB':>7s} {'max err':>8s} {'speedup':>12s}")
LEGEND = ("ms/p95: median and 95th percentile per call; %peak: of the compute peak that applies (mx matrix FP16, "
          "pk packed FP16/dot2, f32 FP32 FMA); %BW: of HBM bandwidth; bound: roofline side; xMB: device memory "
          "beyond the inputs; max err: vs fp64 reference; speedup: baseline ms / ms")


def format_case(rows: list[Result]) -> list[str]:
    """The table lines of one case: a title line, one line per method, footnotes."""
    first = rows[0]
    label = Case.from_dict(first.case).label
    lines = [f"-- {label}   [{first.preset}]  {first.flop / 1e9:.4g} GFLOP, {first.bytes / 1e6:.4g} MB, "
             f"{first.intensity if first.intensity else first.flop / first.bytes:.1f} FLOP/B"]
    for r in rows:
        if r.status != "ok":
            lines.append(f"{r.method:15s} {r.status.upper():>9s}  {r.note}")
            continue
        pct = "-" if r.pct_peak_flops is None else f"{r.pct_peak_flops:.1f}{KIND_SHORT[r.peak_kind]}"
        spd = "-" if r.speedup is None else (f"{r.speedup:.3g}x {r.baseline.removeprefix('sdpa-')}"
                                              if r.method != r.baseline else "baseline")
        lines.append(f"{r.method:15s} {_f(r.ms, '9.3f')} {_f(r.ms_p95, '9.3f')} {_f(r.tflops, '8.2f')} {pct:>8s} "
                     f"{_f(r.gbps, '8.1f')} {_f(r.pct_peak_bw, '5.1f')} {(r.bound or '-'):>7s} "
                     f"{_mem(r.extra_mem_bytes):>7s} {_f(r.max_err, '8.1e')} {spd:>12s}")
        if r.note:
            lines.append(f"{'':15s}   note: {r.note}")
    scopes = {r.err_scope for r in rows if r.err_scope and r.err_scope != "full"}
    for s in sorted(scopes):
        lines.append(f"{'':15s}   max err measured on a slice: {s}")
    return lines


def format_profiler(results: list[Result]) -> list[str]:
    rows = [r for r in results if r.profiler]
    if not rows:
        return []
    lines = ["", f"profiler kernel times ({rows[0].profiler.get('tool')}): per call, and bandwidth/FLOP rate from them",
             f"{'case':44s} {'method':15s} {'event ms':>9s} {'kernel ms':>9s} {'GB/s':>8s} {'TFLOP/s':>8s}  top kernel"]
    for r in rows:
        p = r.profiler
        top = p["kernels"][0]["name"][:60] if p.get("kernels") else "-"
        lines.append(f"{r.case_id[:44]:44s} {r.method:15s} {_f(r.ms, '9.3f')} {_f(p.get('kernel_ms'), '9.3f')} "
                     f"{_f(p.get('gbps'), '8.1f')} {_f(p.get('tflops'), '8.2f')}  {top}")
    return lines
