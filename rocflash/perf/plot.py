"""Roofline PNG of a results document: measured points against the arch's compute and bandwidth ceilings.

    python -m rocflash.perf.plot results.json roofline.png     # from a saved --json (e.g. made on a GPU host
                                                               # without matplotlib)

x: arithmetic intensity (FLOP/byte, byte model of rocflash.perf.models), y: TFLOP/s, both log scale. One
marker per method; ceilings: HBM bandwidth (diagonal) and every compute peak of the arch row (horizontal).
With --rocprof results, the profiler-timed points are drawn hollow.
"""

from __future__ import annotations

import argparse
import sys

KIND_LABEL = {"matrix_fp16_tflops": "matrix FP16", "packed_fp16_tflops": "packed FP16 / dot2",
              "fp32_tflops": "FP32 FMA"}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]


def plot_roofline(doc: dict, path: str) -> None:
    """Write the roofline of ``doc`` (a rocflash.perf/1 document) to ``path`` (PNG). ImportError without
    matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in doc["results"] if r.get("status") == "ok" and r.get("tflops") and r.get("intensity")]
    arch = doc.get("arch")
    fig, ax = plt.subplots(figsize=(9, 6), dpi=120)
    xs = [r["intensity"] for r in ok] or [1.0]
    lo, hi = min(xs) / 4, max(xs) * 4
    if arch:
        bw = arch["hbm_tbps"]
        peaks = [(KIND_LABEL[k], arch[k]) for k in KIND_LABEL if arch.get(k)]
        top = max(p for _, p in peaks)
        lo, hi = min(lo, top / bw / 8), max(hi, top / bw * 8)
        ax.plot([lo, top / bw], [lo * bw, top], color="black", lw=1.5,
                label=f"HBM {bw:g} TB/s" + (" (measured)" if "hbm_tbps" in arch.get("measured", []) else ""))
        for (label, peak), style in zip(peaks, ["-", "--", ":"]):
            ax.plot([peak / bw, hi], [peak, peak], color="gray", ls=style, lw=1.2,
                    label=f"{label} {peak:g} TFLOP/s")
        title = f"{doc['device']['name']} roofline, peaks of {arch['key']}"
    else:
        title = f"{doc['device']['name']}: no arch ceilings (device not in the arch table)"
    methods = sorted({r["method"] for r in ok})
    cmap = plt.get_cmap("tab10")
    for i, m in enumerate(methods):
        pts = [r for r in ok if r["method"] == m]
        style = dict(marker=MARKERS[i % len(MARKERS)], color=cmap(i % 10), ls="none")
        ax.plot([r["intensity"] for r in pts], [r["tflops"] for r in pts], label=m, ms=7, **style)
        prof = [r for r in pts if (r.get("profiler") or {}).get("tflops")]
        if prof:
            ax.plot([r["intensity"] for r in prof], [r["profiler"]["tflops"] for r in prof], ms=9,
                    mfc="none", **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP / byte of Q, K, V, O, LSE)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    from .results import load_json

    p = argparse.ArgumentParser(prog="python -m rocflash.perf.plot", description=__doc__.splitlines()[0])
    p.add_argument("results", help="a --json file of python -m rocflash.perf")
    p.add_argument("png", help="output PNG")
    a = p.parse_args(argv)
    try:
        doc = load_json(a.results)
    except (OSError, ValueError) as e:
        p.error(str(e))
    plot_roofline(doc, a.png)
    print(f"wrote {a.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
