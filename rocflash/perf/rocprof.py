"""Kernel times from a profiler: rocprofv3 or legacy rocprof on AMD, torch.profiler on NVIDIA.

Formats (shared/reference/facts.md section 4; columns vary across versions, so every file is read by
header name, never by position, and extra columns are ignored):

- rocprofv3 ``--kernel-trace --stats --output-format csv``: ``*_kernel_trace.csv`` with one row per
  dispatch (``Kernel_Name``, ``Start_Timestamp``, ``End_Timestamp`` in ns, ...) and ``*_kernel_stats.csv``
  (``Name, Calls, TotalDurationNs, AverageNs, Percentage, MinNs, MaxNs, StdDev``). ROCm 7 writes a SQLite
  database unless ``--output-format csv`` is given.
- legacy ``rocprof --stats``: ``results.csv`` with one row per dispatch (``KernelName``, ``BeginNs``,
  ``EndNs``, ...) and ``results.stats.csv`` (``"Name","Calls","TotalDurationNs","AverageNs","Percentage"``).
  Kernel names end in `` [clone .kd]``, which is stripped.

Attribution: the profiled child process runs every (case, method) between two marker kernels
(``torch.cuda._sleep``, whose kernel is ``spin_kernel``), ``calls`` times each; the dispatches between
marker 2i and marker 2i+1 belong to segment i. Kernel time per call = sum of their durations / calls.
"""

from __future__ import annotations

import csv
import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

MARKER = "spin_kernel"
CLONE_SUFFIX = " [clone .kd]"

TRACE_COLUMNS = {  # format -> (name, start ns, end ns)
    "rocprofv3": ("Kernel_Name", "Start_Timestamp", "End_Timestamp"),
    "rocprof": ("KernelName", "BeginNs", "EndNs"),
}
STATS_COLUMNS = ("Name", "Calls", "TotalDurationNs", "AverageNs")


@dataclass(frozen=True)
class Dispatch:
    name: str
    start_ns: int
    end_ns: int

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


@dataclass(frozen=True)
class KernelStat:
    name: str
    calls: int
    total_ns: float
    average_ns: float


def normalize_name(name: str) -> str:
    """Strip surrounding quotes/space and legacy rocprof's " [clone .kd]" suffix."""
    name = name.strip().strip('"').strip()
    while name.endswith(CLONE_SUFFIX):
        name = name[: -len(CLONE_SUFFIX)].rstrip()
    return name


def _read(path: str | Path) -> tuple[list[str], list[dict]]:
    with open(path, newline="") as f:
        reader = csv.DictReader(f, skipinitialspace=True)
        header = [h.strip() for h in (reader.fieldnames or [])]
        reader.fieldnames = header
        return header, list(reader)


def _require(path, header: list[str], columns) -> None:
    missing = [c for c in columns if c not in header]
    if missing:
        raise ValueError(f"{path}: profiler CSV must have columns {', '.join(columns)}; missing "
                         f"{', '.join(missing)} (header: {', '.join(header)})")


def trace_format(header: list[str]) -> str | None:
    """"rocprofv3" or "rocprof" from a per-dispatch CSV header, else None."""
    for fmt, cols in TRACE_COLUMNS.items():
        if all(c in header for c in cols):
            return fmt
    return None


def parse_trace(path: str | Path) -> tuple[str, list[Dispatch]]:
    """Per-dispatch kernel rows of either format, sorted by start time. Returns (format, dispatches)."""
    header, rows = _read(path)
    fmt = trace_format(header)
    if fmt is None:
        want = " or ".join(", ".join(c) for c in TRACE_COLUMNS.values())
        raise ValueError(f"{path}: not a kernel trace: needs columns {want} (header: {', '.join(header)})")
    name_col, start_col, end_col = TRACE_COLUMNS[fmt]
    out = [Dispatch(normalize_name(r[name_col]), int(float(r[start_col])), int(float(r[end_col]))) for r in rows
           if r.get(name_col)]
    out.sort(key=lambda d: d.start_ns)
    return fmt, out


def parse_stats(path: str | Path) -> list[KernelStat]:
    """Per-kernel summary (both formats share these columns); names normalised and merged, largest total first."""
    header, rows = _read(path)
    _require(path, header, STATS_COLUMNS)
    merged: dict[str, list[float]] = {}
    for r in rows:
        if not r.get("Name"):
            continue
        m = merged.setdefault(normalize_name(r["Name"]), [0, 0.0])
        m[0] += int(float(r["Calls"]))
        m[1] += float(r["TotalDurationNs"])
    stats = [KernelStat(n, int(c), t, t / c if c else 0.0) for n, (c, t) in merged.items()]
    return sorted(stats, key=lambda s: -s.total_ns)


def segments(dispatches: list[Dispatch], marker: str = MARKER) -> list[list[Dispatch]]:
    """Dispatches between marker pairs: segment i holds those after marker 2i and before marker 2i+1
    (anything between a closing marker and the next opening one is set-up and is dropped)."""
    out, current, inside = [], [], False
    for d in dispatches:
        if marker in d.name:
            if inside:
                out.append(current)
            current, inside = [], not inside
        elif inside:
            current.append(d)
    return out


def summarize_segment(seg: list[Dispatch], calls: int) -> dict:
    """{"kernel_ms": summed kernel time per call, "kernels": [{"name", "ms_per_call", "dispatches_per_call"}]}"""
    per: dict[str, list[float]] = {}
    for d in seg:
        p = per.setdefault(d.name, [0, 0.0])
        p[0] += 1
        p[1] += d.duration_ns
    calls = max(calls, 1)
    kernels = [{"name": n, "ms_per_call": t / calls / 1e6, "dispatches_per_call": c / calls}
               for n, (c, t) in sorted(per.items(), key=lambda kv: -kv[1][1])]
    return {"kernel_ms": sum(k["ms_per_call"] for k in kernels), "kernels": kernels}


def find_outputs(directory: str | Path) -> tuple[list[str], list[str]]:
    """(trace files, stats files) under ``directory`` of either profiler, searched recursively
    (rocprofv3 nests them under hostname/pid folders)."""
    d = str(directory)
    traces = sorted(set(glob.glob(os.path.join(d, "**", "*kernel_trace.csv"), recursive=True))
                    | set(glob.glob(os.path.join(d, "**", "results.csv"), recursive=True)))
    stats = sorted(set(glob.glob(os.path.join(d, "**", "*kernel_stats.csv"), recursive=True))
                   | set(glob.glob(os.path.join(d, "**", "results.stats.csv"), recursive=True)))
    return traces, stats


def find_tool() -> tuple[str | None, str | None]:
    """("rocprofv3" | "rocprof", path) of the first installed profiler, else (None, None)."""
    for tool in ("rocprofv3", "rocprof"):
        path = shutil.which(tool)
        if path:
            return tool, path
    return None, None


def profiler_command(tool: str, path: str, outdir: str | Path, child: list[str]) -> list[str]:
    """The command line that runs ``child`` (argv) under the profiler, writing CSV into ``outdir``."""
    if tool == "rocprofv3":
        return [path, "--kernel-trace", "--stats", "--output-format", "csv", "-d", str(outdir), "-o", "perf", "--",
                *child]
    if tool == "rocprof":
        return [path, "--stats", "-o", str(Path(outdir) / "results.csv"), *child]
    raise ValueError(f"tool must be rocprofv3 or rocprof, got {tool!r}")


def attribute(trace_files: list[str], n_segments: int, calls: int) -> tuple[str, list[dict | None]]:
    """Parse the traces, split into marker segments, summarise each. Returns (format, [summary or None])."""
    fmt, dispatches = None, []
    for t in trace_files:
        f, d = parse_trace(t)
        fmt = fmt or f
        dispatches += d
    dispatches.sort(key=lambda d: d.start_ns)
    segs = segments(dispatches)
    if len(segs) != n_segments:
        raise ValueError(f"profiler trace has {len(segs)} marked segments, expected {n_segments} "
                         f"(is {MARKER} missing from the trace?)")
    return fmt or "", [summarize_segment(s, calls) if s else None for s in segs]


def torch_profiler_kernels(run, calls: int, activity: str = "cuda") -> dict:
    """Kernel times of ``run()`` (which makes ``calls`` calls) from torch.profiler's device activity
    (CUPTI on NVIDIA, roctracer on ROCm). Memcpy/memset activity is not counted. ``activity="cpu"`` sums the
    CPU operator events instead (tests only: no GPU there)."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    cuda = activity == "cuda"
    act, dev = (ProfilerActivity.CUDA, DeviceType.CUDA) if cuda else (ProfilerActivity.CPU, DeviceType.CPU)
    with profile(activities=[act]) as prof:
        run()
    seg = []
    for e in prof.events():
        if e.device_type != dev or e.name.lower().startswith(("memcpy", "memset")):
            continue
        if not cuda and e.cpu_parent is not None:  # CPU: top-level operators only (no double count)
            continue
        seg.append(Dispatch(normalize_name(e.name), int(e.time_range.start * 1e3), int(e.time_range.end * 1e3)))
    return summarize_segment(seg, calls)
