"""Compare two results files of ``python -m rocflash.perf --json``: per-case ratios and regressions.

    python perf/compare.py old.json new.json [--threshold 0.10] [--metric ms|kernel_ms] [--methods ...]
    python -m rocflash.perf.compare old.json new.json

Results are matched on (case_id, method). ratio = new / old median time (> 1: slower). A regression is a
ratio above 1 + threshold, or a result that was "ok" in old and is not in new (OOM, error, ...).
Exit code: 0 no regression, 1 regression(s), 2 bad arguments, unreadable files or nothing in common
(argparse's usage-error code).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from .results import load_json


@dataclass(frozen=True)
class Row:
    case_id: str
    method: str
    old: float | None  # ms (None when that side did not time it)
    new: float | None
    old_status: str
    new_status: str
    ratio: float | None  # new / old
    regression: bool
    reason: str


def _value(r: dict, metric: str) -> float | None:
    if r.get("status") != "ok":
        return None
    if metric == "kernel_ms":
        return (r.get("profiler") or {}).get("kernel_ms")
    v = r.get("ms")
    return v if isinstance(v, (int, float)) else None


def compare(old: dict, new: dict, threshold: float = 0.10, metric: str = "ms",
            methods: list[str] | None = None) -> tuple[list[Row], list[str]]:
    """Rows for every (case_id, method) present in both documents, and notes (unmatched keys, devices)."""
    if threshold < 0:
        raise ValueError(f"--threshold must be >= 0, got {threshold}")
    if metric not in ("ms", "kernel_ms"):
        raise ValueError(f"--metric must be ms or kernel_ms, got {metric!r}")
    index = lambda doc: {(r["case_id"], r["method"]): r for r in doc["results"]  # noqa: E731
                         if methods is None or r["method"] in methods}
    a, b = index(old), index(new)
    rows = []
    for key in [k for k in a if k in b]:
        ra, rb = a[key], b[key]
        va, vb = _value(ra, metric), _value(rb, metric)
        ratio = vb / va if va and vb else None
        if ratio is not None and ratio > 1 + threshold:
            reg, why = True, f"{(ratio - 1) * 100:.1f}% slower (> {threshold * 100:.0f}%)"
        elif ra.get("status") == "ok" and rb.get("status") != "ok":
            reg, why = True, f"was ok, now {rb.get('status')}"
        elif va is not None and vb is None:
            reg, why = True, f"no {metric} in new"
        else:
            reg, why = False, ""
        rows.append(Row(key[0], key[1], va, vb, ra.get("status"), rb.get("status"), ratio, reg, why))
    notes = []
    only_old, only_new = [k for k in a if k not in b], [k for k in b if k not in a]
    if only_old:
        notes.append(f"{len(only_old)} result(s) only in old, e.g. {only_old[0][0]} {only_old[0][1]}")
    if only_new:
        notes.append(f"{len(only_new)} result(s) only in new, e.g. {only_new[0][0]} {only_new[0][1]}")
    da, db = old.get("device", {}).get("name"), new.get("device", {}).get("name")
    if da != db:
        notes.append(f"different devices: {da!r} vs {db!r}")
    return rows, notes


def format_rows(rows: list[Row], metric: str) -> list[str]:
    f = lambda x: "-" if x is None else f"{x:.4g}"  # noqa: E731
    lines = [f"{'case':48s} {'method':15s} {'old ' + metric:>12s} {'new ' + metric:>12s} {'new/old':>8s}  flag"]
    for r in rows:
        flag = f"REGRESSION: {r.reason}" if r.regression else ""
        old = f(r.old) if r.old is not None else r.old_status
        new = f(r.new) if r.new is not None else r.new_status
        lines.append(f"{r.case_id[:48]:48s} {r.method:15s} {old:>12s} {new:>12s} {f(r.ratio):>8s}  {flag}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="perf/compare.py", description="Per-case ratios of two rocflash.perf JSON "
                                "files; exit 1 on a regression beyond --threshold.")
    p.add_argument("old", help="baseline results (--json of python -m rocflash.perf)")
    p.add_argument("new", help="results to check")
    p.add_argument("--threshold", type=float, default=0.10,
                   help="allowed slowdown as a fraction (default 0.10 = 10%%)")
    p.add_argument("--metric", default="ms", help="ms (event-timed median, default) or kernel_ms (--rocprof)")
    p.add_argument("--methods", nargs="+", default=None, help="only these methods")
    a = p.parse_args(argv)
    try:
        old, new = load_json(a.old), load_json(a.new)
        rows, notes = compare(old, new, a.threshold, a.metric, a.methods)
    except (OSError, ValueError) as e:
        p.error(str(e))
    if not rows:
        p.error(f"{a.old} and {a.new} have no (case_id, method) in common")
    for line in format_rows(rows, a.metric):
        print(line)
    for n in notes:
        print(f"note: {n}")
    regressions = [r for r in rows if r.regression]
    print(f"{len(rows)} compared, {len(regressions)} regression(s) beyond {a.threshold * 100:.0f}%")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
