"""Where the atomic-dQ dK/dV kernel's time goes, per SASS instruction (branch tcbwd8): the program that
perf/tcbwd8_stage.sh runs under Nsight Compute, and the summary of what ncu exported.

    ncu --clock-control none -k regex:fmha_bwd_dkdvq -c 2 --section WarpStateStats --section SourceCounters \\
        -o REP python3 perf/tcbwd8_ncu.py run          # one backward with the default kernel, one with ROCFLASH_BWD_LEAN=2
    python3 perf/tcbwd8_ncu.py summary SASS.csv DETAILS.csv    # the exported source / details pages, condensed

`run`: b4 h16 s4096 d128 bf16 non-causal (RESULTS' reference point), one forward + backward per mode (0, 2, 3), so
the three dK/dV + atomic-dQ launches ncu catches are the old kernel's and the two lean variants'. `summary`: per kernel,
the warp-state sampling by stall reason (details page) and, per opcode and for the 25 most sampled instructions,
the samples of the source page (`ncu -i REP --page source --csv --print-source sass`), as far as those pages hold
these columns (names vary between ncu versions: columns are matched by substrings, missing ones are skipped).
"""

from __future__ import annotations

import csv
import os
import re
import sys
from collections import defaultdict


def run() -> int:
    import torch

    import rocflash

    torch.manual_seed(0)
    shape = (4, 4096, 16, 128)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    dout = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    for mode in ("0", "2", "3"):
        os.environ["ROCFLASH_BWD_LEAN"] = mode
        q.grad = k.grad = v.grad = None
        rocflash.flash_attn_func(q, k, v, backend="cuda", deterministic=False).backward(dout)
        torch.cuda.synchronize()
        print(f"ROCFLASH_BWD_LEAN={mode}: done")
    return 0


def _num(x: str | None) -> float:
    try:
        return float((x or "").replace(",", ""))
    except ValueError:
        return 0.0


def summary(sass_csv: str, details_csv: str | None) -> int:
    if details_csv and os.path.exists(details_csv):
        rows = list(csv.DictReader(open(details_csv, newline="")))
        by_kernel = defaultdict(list)
        for r in rows:
            name = r.get("Kernel Name", "?")
            kind = ("lean 3" if "Wide" in name else "lean 2") if "dkdvq_lean" in name else "old" if "dkdvq_mma" in name else name[:40]
            by_kernel[kind].append(r)
        for kind, rs in by_kernel.items():
            print(f"-- {kind}: details")
            for r in rs:
                sec, metric, unit, val = r.get("Section Name", ""), r.get("Metric Name", ""), r.get("Metric Unit", ""), r.get("Metric Value", "")
                if sec in ("GPU Speed Of Light Throughput", "Warp State Statistics", "Occupancy", "Launch Statistics",
                           "Compute Workload Analysis", "Memory Workload Analysis") or "stall" in metric.lower():
                    print(f"   {sec[:28]:28s} {metric[:60]:60s} {val:>14s} {unit}")
    if not os.path.exists(sass_csv):
        print(f"no {sass_csv}")
        return 1
    text = open(sass_csv, newline="").read()
    # the source page holds one table per kernel: a "Kernel Name" line, then its header row ("Address", "Source", ...)
    # (ncu 2025 printed each kernel's table twice: kept once per kernel name)
    seen, blocks = set(), []
    for b in re.split(r'(?m)^"Kernel Name",', text)[1:]:
        head, _, body = b.partition("\n")
        if head not in seen:
            seen.add(head)
            blocks.append(body)
            print(f"-- kernel {head.strip()[:160]}")
    blocks = blocks or [text]
    n = 0
    for block in blocks:
        lines = block.strip().splitlines()
        if len(lines) < 2 or "Source" not in lines[0]:
            continue
        n += 1
        reader = list(csv.DictReader(lines))
        cols = list(reader[0].keys())
        samp = next((c for c in cols if "Sampling" in c and "All" in c), None) or next((c for c in cols if "Sampl" in c), None)
        execd = next((c for c in cols if "Instructions Executed" in c), None)
        stall_cols = [c for c in cols if c.startswith("stall_") or "Stall" in c and c != samp][:60]
        print(f"-- table {n}: {len(reader)} instructions; sample column {samp!r}; executed column {execd!r}")
        if samp is None:
            print("   columns:", cols[:30])
            continue
        total = sum(_num(r[samp]) for r in reader) or 1.0
        per_op = defaultdict(lambda: [0.0, 0.0, 0])
        for r in reader:
            src = r.get("Source", "").strip()
            op = re.sub(r"^@!?U?P\w+\s+", "", src).split(" ")[0] if src else "?"
            per_op[op][0] += _num(r[samp])
            per_op[op][1] += _num(r[execd]) if execd else 0.0
            per_op[op][2] += 1
        if execd:
            ex = sum(_num(r[execd]) for r in reader)
            mma = sum(_num(r[execd]) for r in reader if "HMMA" in r.get("Source", "")) or 1.0
            print(f"   warp instructions executed {ex:.4g}, HMMA {mma:.4g}: {ex / mma:.2f} per HMMA")
        issued = [c for c in stall_cols if c.startswith("stall_") and "Not Issued" not in c]
        if issued:
            tot = {c: sum(_num(r[c]) for r in reader) for c in issued}
            st = sum(tot.values()) or 1.0
            print("   stall reasons (share of samples): " + ", ".join(
                f"{c[6:]} {100 * v / st:.1f}" for c, v in sorted(tot.items(), key=lambda x: -x[1]) if v / st > 0.01))
        print(f"   samples {total:.0f}; by opcode (share of samples, warp instructions executed, static count):")
        for op, (s, e, c) in sorted(per_op.items(), key=lambda x: -x[1][0])[:30]:
            print(f"   {op:34s} {100 * s / total:6.2f} %  {e:14.0f}  {c:5d}")
        if stall_cols:
            sums = {c: sum(_num(r[c]) for r in reader) for c in stall_cols}
            print("   by stall column:", ", ".join(f"{c}={v:.0f}" for c, v in sorted(sums.items(), key=lambda x: -x[1])[:14]))
        print("   top instructions (address, share, source):")
        for r in sorted(reader, key=lambda r: -_num(r[samp]))[:25]:
            top = sorted(((c, _num(r[c])) for c in stall_cols), key=lambda x: -x[1])[:3]
            print(f"   {r.get('Address', '?'):>8s} {100 * _num(r[samp]) / total:6.2f} %  {r.get('Source', '')[:70]:70s} "
                  + " ".join(f"{c}={v:.0f}" for c, v in top if v))
    if n == 0:
        print("source page: no table with a Source column; head:", text[:400])
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        sys.exit(run())
    if len(sys.argv) > 2 and sys.argv[1] == "summary":
        sys.exit(summary(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
    print(__doc__)
    sys.exit(2)
