"""Command line of the gfx906 emulator.

    python -m rocflash.emu coverage                 # compile every gfx906 instance, report mnemonic coverage
    python -m rocflash.emu coverage --from-dir DIR  # the same over *.s files already compiled (gfx906)
    python -m rocflash.emu coverage --markdown out.md
    python -m rocflash.emu model [--markdown out.md]    # cycle MODEL of the headline and decode shapes
                                                        # (the headline forward through the vector and the
                                                        # scalar-broadcast kernel, decode also through split-KV
                                                        # + combine, as dispatched)
    python -m rocflash.emu sbcast [--markdown out.md]   # cycle MODEL of the scalar-broadcast forward against the
                                                        # vector one, both latency rules, latency sensitivity

Coverage: every distinct mnemonic in every gfx906 kernel we build (forward, dK/dV, dQ instances in both
load paths, and the backward preprocess kernels), whether the emulator implements it, and every instruction
whose operands or modifiers the decoder rejects, per kernel (these would stop a run of that kernel with their
name and line). Exit status 1 when a mnemonic is not implemented or a kernel has a rejected instruction; the
reasons, naming the kernels, go to stderr.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import sys
from pathlib import Path

from . import asm
from .machine import Program


def _compiled_files(jobs: int) -> list[Path]:
    from .. import codegen
    from ..configs import KINDS
    from .build import PREPROCESS_SOURCE, compile_asm, instance_source

    work = [(cfg.kernel_name(al), instance_source(cfg, al)) for kind in KINDS
            for cfg, al in codegen.instances("gfx9", kind=kind)]
    work.append(("rocflash_fmha_bwd_preprocess", PREPROCESS_SOURCE))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda w: compile_asm(*w), work))


def coverage(files: list[Path]) -> dict:
    """Mnemonic coverage of the kernels in ``files`` (gfx906 assembly).

    Returns ``{"mnemonics": {m: {"count", "kernels", "implemented"}}, "rejected": {(file, kernel): Counter},
    "kernels": n}``. A mnemonic is implemented when the emulator implements it (:func:`machine.implemented`),
    whatever one kernel's operands are: an instruction whose operand or modifier the decoder rejects (e.g. a
    relocation such as ``__assert_fail@rel32@lo+4``) is counted under its kernel in ``rejected``, keyed by
    ``"mnemonic: reason"``, and only a run of that kernel stops there.
    """
    from .machine import implemented

    mn: dict[str, dict] = {}
    rejected: dict[tuple[str, str], collections.Counter] = {}
    nkernels = 0
    for f in files:
        for name, k in asm.load(f).items():
            nkernels += 1
            prog = Program.from_kernel(k)
            for ins in k.instructions:
                e = mn.setdefault(ins.mnemonic,
                                  {"count": 0, "kernels": set(), "implemented": implemented(ins.mnemonic)})
                e["count"] += 1
                e["kernels"].add(name)
            for idx, reason in prog.unimplemented.items():
                m = k.instructions[idx].mnemonic
                if mn[m]["implemented"]:
                    key = f"{m}: {reason.split(' (line')[0]}"
                    rejected.setdefault((Path(f).name, name), collections.Counter())[key] += 1
    return {"mnemonics": mn, "rejected": rejected, "kernels": nkernels}


def failures(cov: dict) -> list[str]:
    """Why ``coverage`` exits 1: each mnemonic not implemented (with the kernels using it) and each kernel with
    rejected operands or modifiers; empty when every kernel decodes."""
    out = []
    for m, e in sorted(cov["mnemonics"].items()):
        if not e["implemented"]:
            ks = sorted(e["kernels"])
            out.append(f"{m} is not implemented (used by {len(ks)} kernel(s): {', '.join(ks[:3])}"
                       f"{', ...' if len(ks) > 3 else ''})")
    for (f, name), c in sorted(cov["rejected"].items()):
        out.append(f"kernel {name} ({f}): the decoder rejects {sum(c.values())} instruction(s): "
                   + "; ".join(f"{r} (x{n})" for r, n in c.most_common()))
    return out


def format_report(cov: dict, markdown: bool = False) -> str:
    mn = cov["mnemonics"]
    impl = sum(1 for e in mn.values() if e["implemented"])
    nrej = sum(sum(c.values()) for c in cov["rejected"].values())
    lines = [f"gfx906 emulator coverage: {impl}/{len(mn)} distinct mnemonics implemented over "
             f"{cov['kernels']} kernels ({sum(e['count'] for e in mn.values())} static instructions); "
             f"{nrej} instruction(s) in {len(cov['rejected'])} kernel(s) with an operand or modifier the decoder "
             "rejects", ""]
    if markdown:
        lines += ["| mnemonic | static count | kernels | implemented |", "|---|---:|---:|---|"]
        for m, e in sorted(mn.items(), key=lambda kv: -kv[1]["count"]):
            lines.append(f"| `{m}` | {e['count']} | {len(e['kernels'])} | {'yes' if e['implemented'] else '**no**'} |")
    else:
        for m, e in sorted(mn.items(), key=lambda kv: -kv[1]["count"]):
            lines.append(f"  {m:32s} {e['count']:7d} {len(e['kernels']):4d}  {'yes' if e['implemented'] else 'NO'}")
    if cov["rejected"]:
        lines += ["", "Rejected by the decoder (a run of that kernel stops at the instruction), per kernel:"]
        for (f, name), c in sorted(cov["rejected"].items()):
            lines.append(f"  {name} ({f}):")
            lines += [f"    {n:6d}  {r}" for r, n in c.most_common()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rocflash.emu", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("coverage", help="mnemonic coverage over every gfx906 kernel we build")
    c.add_argument("--from-dir", type=Path, help="use the *.s files in this directory, compile nothing")
    c.add_argument("--markdown", help="also write a markdown table to this file")
    c.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    mo = sub.add_parser("model", help="cycle MODEL (not a measurement) from traced workgroups")
    mo.add_argument("--markdown", help="also write the table to this file")
    sb = sub.add_parser("sbcast", help="cycle MODEL of the scalar-broadcast forward (gfx906 fp16 d64/d128)")
    sb.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args(argv)
    if args.cmd == "sbcast":
        from .cycles import HEADER, LATENCIES
        from .cycles_sbcast import predict_sbcast, predict_vector_per_wait
        from .driver_sbcast import DISPATCH_BLOCK_N

        sens = (None, {"scalar": 20}, {"scalar": 50}, {"scalar": 150}, {"scalar": 200},
                {"scalar": 20, "global": 320, "lds": 20})  # the sourced figures' range; the last: LLVM's set
        rows = []
        for headdim in (128, 64):
            label = f"b4 h32 s4096 d{headdim} fp16, non-causal"
            vec = predict_vector_per_wait(label, 4, 32, 4096, 4096, headdim=headdim, latencies=(None, sens[-1]))
            base = predict_sbcast(f"{label}, scalar-broadcast Bc {DISPATCH_BLOCK_N[headdim]}", 4, 32, 4096, 4096,
                                  DISPATCH_BLOCK_N[headdim], headdim=headdim, latencies=sens)
            rows += [p for p in vec] + list(base)
        lat = "\n".join(f"- {name}: {l.clocks} clocks ({l.why}); sources: "
                        + "; ".join(f"{fig}: {src}" for fig, src in l.sources) for name, l in LATENCIES.items())
        text = ("MODEL, not a measurement (rocflash/emu/cycles.py and cycles_sbcast.py state the rules). "
                "Latencies (cycles.LATENCIES):\n\n" + lat + "\n\n" + HEADER + "\n" + "\n".join(p.row() for p in rows) + "\n")
        sys.stdout.write(text)
        if args.markdown:
            Path(args.markdown).write_text(text)
        return 0
    if args.cmd == "model":
        from .cycles import HEADER, default_predictions
        from .cycles_decode import decode_predictions
        from .cycles_sbcast import predict_sbcast
        from .driver_sbcast import DISPATCH_BLOCK_N

        # the kernel the gfx906 dispatcher runs for the headline forward (fp16 d128, >= 256 rows and keys)
        sbcast = list(predict_sbcast("issue-2 headline: b4 h32 s4096 d128 fp16, non-causal, scalar-broadcast "
                                     "(dispatched on gfx906)", 4, 32, 4096, 4096, DISPATCH_BLOCK_N[128], headdim=128))
        text = ("MODEL, not a measurement (rocflash/emu/cycles.py and cycles_sbcast.py state the rules):\n\n" + HEADER
                + "\n" + "\n".join(p.row() for p in default_predictions() + sbcast + decode_predictions()) + "\n")
        sys.stdout.write(text)
        if args.markdown:
            Path(args.markdown).write_text(text)
        return 0
    files = sorted(args.from_dir.glob("*.s")) if args.from_dir else _compiled_files(args.jobs)
    cov = coverage(files)
    sys.stdout.write(format_report(cov))
    if args.markdown:
        Path(args.markdown).write_text(format_report(cov, markdown=True))
    fail = failures(cov)
    for why in fail:
        print(f"coverage: {why}", file=sys.stderr)
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
