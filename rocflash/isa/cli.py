"""``python -m rocflash.isa``: the command line of the ISA audit."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Sequence

from ..build import AMD_ARCHS, CUDA_ARCHS, BuildError, parse_amd_archs
from ..targets import ARCHS, cuda_arch_name
from .audit import audit_directory
from .checks import all_checks, configs_by_key
from .ck import CK_DEFAULT_ARCHS, format_ck_markdown, format_ck_text, run_ck_audit
from .compile import require_python_deps
from .kinds import AUDIT_KINDS, DEFAULT_ARCHS, NARROW_ARCHS, PATH_CHOICES
from .report import format_markdown, format_text
from .run import AuditRun, run_audit

# What --arch accepts: exactly what the build accepts (GPU_ARCHS: AMD archs, optionally with target-id
# features such as :xnack-; TORCH_CUDA_ARCH_LIST compute capabilities, written as sm_XX here).
CLI_ARCHS = (*AMD_ARCHS, *(cuda_arch_name(cc) for cc in CUDA_ARCHS))

DESCRIPTION = """\
ISA audit of the forward and backward kernels: compiles every kernel instance device-only (no GPU needed) and
reads resource use, instruction selection and LDS layout from the compilers' output; checks the invariants
(wave64, no scratch, LDS within the arch's limit, 128-bit loads and dot2 in the main loop, designed occupancy,
conflict-free LDS reads)."""

EPILOG = """\
examples:
  python -m rocflash.isa                        # the default instance set on every default arch, as a table
  python -m rocflash.isa --paths both           # every instance of every kind, both load paths
  python -m rocflash.isa --arch gfx906 --check  # one arch; exit status 1 when an invariant fails
  python -m rocflash.isa --kinds bwd_dkdv,bwd_dq --arch gfx906   # the backward kernels only
  python -m rocflash.isa --markdown perf/results/isa_audit.md --json audit.json
  python -m rocflash.isa --from-dir DIR         # audit the *.s / *.ptxas.txt files in DIR, compile nothing

needs: the compilers of the chosen archs (ci/install_toolchain.sh: hipcc for gfx906/908/90a, clang++-19 for
gfx942, clang++-20 or newer for gfx950, nvcc for sm_XX), the host C++ compiler, and the Python packages
PyYAML and networkx (pip install pyyaml networkx, or from the rocflash checkout:
pip install --no-build-isolation ".[audit]"; without --no-build-isolation pip rebuilds rocflash without its
GPU kernels). Exit status: 0, 1 (--check and a violation), 2 (usage,
a missing tool or dependency, a failed compile)."""


def _emit(text: str, path: str) -> None:
    """Write ``text`` to ``path``, or to stdout for "-"."""
    if path == "-":
        sys.stdout.write(text)
    else:
        Path(path).write_text(text)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rocflash.isa", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default=None,
                    help=f"comma-separated archs, as the build accepts them: {', '.join(CLI_ARCHS)} (AMD ones "
                         f"optionally with :xnack-/+ and :sramecc-/+) (default: {','.join(DEFAULT_ARCHS)})")
    ap.add_argument("--paths", choices=PATH_CHOICES, default="split",
                    help=f"load paths to audit: split (default: both on {', '.join(NARROW_ARCHS)}, aligned only "
                         f"elsewhere), both (everywhere), aligned (both on gfx906 only)")
    ap.add_argument("--kinds", default=",".join(AUDIT_KINDS),
                    help=f"comma-separated kernel kinds (default: {','.join(AUDIT_KINDS)})")
    ap.add_argument("--build-dir", type=Path, default=None,
                    help="compile cache (default: $ROCFLASH_CACHE_DIR/isa, else "
                    "$XDG_CACHE_HOME/rocflash/isa, else ~/.cache/rocflash/isa)")
    ap.add_argument("--from-dir", type=Path, default=None,
                    help="audit the *.s / *.ptxas.txt files already in this directory; compile nothing")
    ap.add_argument("--jobs", type=int, default=None, help="parallel compiles (default: ROCFLASH_JOBS or CPU count)")
    ap.add_argument("--json", nargs="?", const="-", default=None, metavar="PATH",
                    help="write the audit as JSON to PATH (or stdout)")
    ap.add_argument("--markdown", nargs="?", const="-", default=None, metavar="PATH",
                    help="write the markdown report (perf/results/isa_audit.md) to PATH (or stdout)")
    ap.add_argument("--check", action="store_true", help="exit with status 1 when an invariant is violated")
    ap.add_argument("--ck", action="store_true",
                    help="audit the Composable Kernel instances (ck_configs/ck_fmha.toml) instead, on CDNA archs "
                         "(default: gfx90a,gfx942; toolchain: ci/install_ck.sh)")
    args = ap.parse_args(argv)
    if args.arch is None:
        args.arch = ",".join(CK_DEFAULT_ARCHS if args.ck else DEFAULT_ARCHS)
    archs = [a for a in args.arch.split(",") if a]
    unknown = [a for a in archs if not a.startswith("gfx") and a not in CLI_ARCHS]
    if unknown or not archs:
        ap.error(f"--arch must name archs of {', '.join(CLI_ARCHS)}, got {args.arch!r}")
    try:
        parse_amd_archs(";".join(a for a in archs if a.startswith("gfx")) or AMD_ARCHS[0])  # the build's rule
    except ValueError as e:
        ap.error(f"--arch: {e}".replace("GPU_ARCHS: ", ""))
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in AUDIT_KINDS]
    if unknown or not kinds:
        ap.error(f"--kinds must name kinds of {', '.join(AUDIT_KINDS)}, got {args.kinds!r}")

    try:  # before compiling anything: a missing dependency must not cost a compile
        require_python_deps()
    except BuildError as e:
        print(f"python -m rocflash.isa: {e}", file=sys.stderr)
        return 2
    if args.ck:
        return _main_ck(args, archs, argv)
    if args.from_dir is not None:
        if not args.from_dir.is_dir():
            print(f"python -m rocflash.isa: --from-dir must be a directory of *.s / *.ptxas.txt files, got "
                  f"{str(args.from_dir)!r} (not a directory)", file=sys.stderr)
            return 2
        kernels = audit_directory(args.from_dir)
        if not kernels:
            print(f"python -m rocflash.isa: --from-dir {str(args.from_dir)!r} holds no kernel to audit "
                  f"(no *.s or *.ptxas.txt file with a kernel)", file=sys.stderr)
            return 2
        order = [*ARCHS, *CLI_ARCHS]
        found_archs = sorted({k.arch for k in kernels}, key=lambda a: order.index(a) if a in order else len(order))
        run = AuditRun(kernels, found_archs, "as found", 0.0, 0.0, 0, 0, str(args.from_dir), 0,
                       tuple(k for k in AUDIT_KINDS if any(a.kind == k for a in kernels)))
    else:
        try:
            run = run_audit(archs, args.build_dir, args.jobs, args.paths, kinds)
        except BuildError as e:  # a missing compiler or a failed compile: say which, no traceback
            print(f"python -m rocflash.isa: {e}\n(restrict the archs with --arch, or install the toolchain: "
                  f"ci/install_toolchain.sh)", file=sys.stderr)
            return 2
    command = "python -m rocflash.isa " + shlex.join(list(argv if argv is not None else sys.argv[1:]))

    if args.json is not None:
        data = {"command": command, "wall_seconds": run.wall_seconds, "compiled": run.compiled, "cached": run.cached,
                "archs": run.archs, "paths": run.paths, "kinds": list(run.kinds),
                "kernels": [k.to_json() for k in run.kernels]}
        _emit(json.dumps(data, indent=1) + "\n", args.json)
    if args.markdown is not None:
        _emit(format_markdown(run, command), args.markdown)
    if args.json != "-" and args.markdown != "-":
        print(format_text(run.kernels, run.archs))
        print(f"{len(run.kernels)} kernels, {run.wall_seconds:.1f} s wall ({run.compiled} compiled, "
              f"{run.cached} cached, {run.jobs} jobs; build dir {run.build_dir})")
    violations = [v for a in run.kernels for v in all_checks(a, configs_by_key())]
    for v in violations:
        print(f"VIOLATION: {v}", file=sys.stderr)
    return 1 if (args.check and violations) else 0


def _main_ck(args, archs: list[str], argv) -> int:
    """``--ck``: compile and audit the CK instances (rocflash.isa.ck)."""
    try:
        run = run_ck_audit(archs, args.build_dir, args.jobs)
    except (BuildError, ValueError) as e:
        print(f"python -m rocflash.isa --ck: {e}", file=sys.stderr)
        return 2
    command = "python -m rocflash.isa " + shlex.join(list(argv if argv is not None else sys.argv[1:]))
    if args.json is not None:
        data = {"command": command, "wall_seconds": run.wall_seconds, "compiled": run.compiled, "cached": run.cached,
                "archs": run.archs, "files": {f"{n} {a}": c for (n, a), c in run.files.items()},
                "kernels": [k.to_json() for k in run.kernels]}
        _emit(json.dumps(data, indent=1) + "\n", args.json)
    if args.markdown is not None:
        _emit(format_ck_markdown(run, command), args.markdown)
    if args.json != "-" and args.markdown != "-":
        print(format_ck_text(run))
        print(f"{len(run.kernels)} kernels in {len(run.files)} files, {run.wall_seconds:.1f} s wall "
              f"({run.compiled} compiled, {run.cached} cached, {run.jobs} jobs)")
    violations = run.violations()
    for v in violations:
        print(f"VIOLATION: {v}", file=sys.stderr)
    return 1 if (args.check and violations) else 0


if __name__ == "__main__":
    sys.exit(main())
