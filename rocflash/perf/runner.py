"""``python -m rocflash.perf``: time attention backends per case and print / save the comparison.

See perf/README.md for the options, the FLOP/byte models and the JSON schema.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import math
import os
import platform as _platform
import subprocess
import sys
import tempfile
import time

import torch

from . import arch as arch_mod
from . import duration, errors, memory, methods, rocprof, timing
from .cases import DTYPES, PRESETS, Case, apply_overrides, resolve_presets
from .results import (HEADER, LEGEND, STATUSES, Result, document, fill_rates, fill_speedups, format_case,
                      format_profiler, write_csv, write_json)

OOM = methods.OOM
PROFILE_CALLS = 10
PROFILE_TIMEOUT_S = 900


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m rocflash.perf",
        description="Time rocflash's attention against PyTorch SDPA and naive attention on the detected device.",
        epilog="Presets: " + "; ".join(f"{k}: {v['description']}" for k, v in PRESETS.items()))
    p.add_argument("--preset", default=None,
                   help="comma-separated built-in presets (" + ", ".join(PRESETS) + ") and/or YAML files; "
                        "default: 'default' on a GPU, 'smoke' on the CPU")
    p.add_argument("--backends", nargs="+", default=None,
                   help="methods to time (comma or space separated): " + ", ".join(methods.METHODS) +
                        "; aliases " + ", ".join(methods.ALIASES) + ", rocflash (the compiled backend of the "
                        "platform), all (every method but rocflash-sim). Default: the compiled rocflash backend, every "
                        "SDPA backend, naive")
    p.add_argument("--dtype", default=None, help="override every case's dtype: fp16, bf16 or fp32")
    p.add_argument("--causal", action="store_true", help="make every case causal (bottom-right aligned)")
    p.add_argument("--bwd", action="store_true",
                   help="time forward+backward (FLOP = 3.5x forward) instead of the forward; backends without a "
                        "backward report n/a")
    p.add_argument("--json", metavar="PATH", help="write every result (schema: perf/README.md)")
    p.add_argument("--csv", metavar="PATH", help="write every result as CSV")
    p.add_argument("--plot", metavar="PATH", help="write a roofline PNG (needs matplotlib)")
    p.add_argument("--rocprof", action="store_true",
                   help="re-run the timed cases under rocprofv3/rocprof (AMD) or torch.profiler (NVIDIA) and "
                        "report kernel times and the bandwidth they imply")
    p.add_argument("--device", default="auto", help="auto (first GPU, else CPU), cpu, cuda or cuda:N")
    p.add_argument("--arch", default=None,
                   help="arch-table row for the peaks instead of the detected one: " + ", ".join(arch_mod.ARCHS))
    p.add_argument("--warmup", type=int, default=10, help="max warm-up calls per measurement (default 10)")
    p.add_argument("--repeats", type=int, default=50, help="max timed calls per measurement (default 50)")
    p.add_argument("--min-repeats", type=int, default=3, help="timed calls even past the budget (default 3)")
    p.add_argument("--budget-s", type=float, default=1.0,
                   help="seconds per (case, method) that size warm-up and repeats (default 1.0)")
    p.add_argument("--time-limit-s", type=float, default=None,
                   help="whole-run limit: budgets shrink to fit, cases past it are reported as skipped")
    p.add_argument("--max-case-s", type=float, default=None,
                   help="seconds one case may take, its inputs and all its methods together: a method estimated "
                        "to take longer than what is left (its FLOP at the rate it reaches here on a small probe "
                        "of the case) is skipped before it runs; default "
                        f"{duration.CPU_CASE_LIMIT_S:g} on the CPU, no limit on a GPU; 0: no limit")
    p.add_argument("--input-sets", type=int, default=None,
                   help="input sets to rotate (default: enough to exceed 2x the L2, at least 3)")
    p.add_argument("--ref-budget-mb", type=float, default=None,
                   help="memory for the fp64 reference before it is computed on a slice (default 1024 on a GPU, "
                        "256 on the CPU)")
    p.add_argument("--baseline", default=None, help="method the speedup column is relative to (default: fastest SDPA)")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads of torch on --device cpu (default 1: the tiny CPU cases time steadier without "
                        "thread hand-offs)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true", help="no progress bar / progress lines")
    p.add_argument("--list", action="store_true", help="print presets, methods and the arch table, then exit")
    p.add_argument("--profile-child", metavar="SPEC", help=argparse.SUPPRESS)  # internal: run under the profiler
    return p


def validate(p: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    if a.dtype is not None and a.dtype not in DTYPES:
        p.error(f"--dtype must be one of {', '.join(DTYPES)}, got {a.dtype}")
    for name in ("warmup", "repeats", "min_repeats"):
        if getattr(a, name) < (0 if name == "warmup" else 1):
            p.error(f"--{name.replace('_', '-')} must be >= {0 if name == 'warmup' else 1}, got {getattr(a, name)}")
    # not (x > 0) rather than x <= 0: argparse's float() takes "nan" and "inf"; a NaN limit compared False
    # everywhere (no limit, silently) and NaN / Infinity are not JSON (the settings block of --json)
    if not (0 < a.budget_s < math.inf):
        p.error(f"--budget-s must be > 0, finite, got {a.budget_s}")
    if a.time_limit_s is not None and not (0 < a.time_limit_s < math.inf):
        p.error(f"--time-limit-s must be > 0, finite, got {a.time_limit_s}")
    if a.max_case_s is not None and not (0 <= a.max_case_s < math.inf):
        p.error(f"--max-case-s must be >= 0 (0: no limit), finite, got {a.max_case_s}")
    if a.ref_budget_mb is not None and not (0 < a.ref_budget_mb < math.inf):
        p.error(f"--ref-budget-mb must be > 0, finite, got {a.ref_budget_mb}")
    if a.threads is not None and a.threads < 1:
        p.error(f"--threads must be >= 1, got {a.threads}")
    if a.input_sets is not None and a.input_sets < 1:
        p.error(f"--input-sets must be >= 1, got {a.input_sets}")
    if a.baseline is not None and a.baseline not in methods.METHODS:
        p.error(f"--baseline must be one of {', '.join(methods.METHODS)}, got {a.baseline}")
    for flag in ("json", "csv", "plot"):  # fail before the benchmark, not after it
        path = getattr(a, flag)
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            p.error(f"--{flag}: the directory of {path} must exist, got {os.path.dirname(os.path.abspath(path))}")
    if a.device != "auto":
        try:
            d = torch.device(a.device)
        except RuntimeError:
            p.error(f"--device must be auto, cpu, cuda or cuda:N, got {a.device}")
        if d.type not in ("cpu", "cuda"):
            p.error(f"--device must be auto, cpu, cuda or cuda:N, got {a.device}")
        if d.type == "cuda" and not torch.cuda.is_available():
            p.error(f"--device {a.device}: torch sees no GPU (torch {torch.__version__})")


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")
    d = torch.device(name)
    return torch.device("cuda", torch.cuda.current_device() if d.index is None else d.index) if d.type == "cuda" else d


class Progress:
    """tqdm bar on a terminal; one line per case on stderr otherwise (logs of long runs)."""

    def __init__(self, total: int, enabled: bool):
        self.bar, self.enabled, self.t0 = None, enabled, time.time()
        if enabled and sys.stderr.isatty():
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="run", dynamic_ncols=True, leave=False)
            except ImportError:
                pass

    def step(self, desc: str) -> None:
        if self.bar is not None:
            self.bar.set_description(desc[:60])
            self.bar.update(1)

    def case_done(self, i: int, n: int, label: str) -> None:
        if self.enabled and self.bar is None:
            print(f"[{i}/{n}] {label}  ({time.time() - self.t0:.0f} s)", file=sys.stderr, flush=True)

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line)
        else:
            print(line, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def timed_calls(prep: methods.Prepared, case: Case) -> list:
    """What one timed repeat runs: the forward, or forward + autograd.grad for fwd+bwd."""
    if case.direction == "fwd":
        return [c.fn for c in prep.calls]
    return [lambda c=c: torch.autograd.grad(c.fn(), c.leaves, c.dout) for c in prep.calls]


def _free(device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def run_one(case: Case, method: str, sets, device, a, spec, budget_s: float, ref_state: dict,
            too_slow: str | None = None) -> Result:
    """Measure one (case, method). ``too_slow``: the note of a time estimate over the limit (case_time_limits):
    the method is skipped without running."""
    r = Result(case.case_id, case.preset, case.to_dict(), method, "ok", flop=case.flop, bytes=case.bytes,
               input_sets=len(sets) if sets else 0)
    stage, prep = "prepare", None
    too_big = memory.check(method, case, memory.available_bytes(device))
    if too_big is not None:
        r.status, r.note = "oom", too_big
        return r
    if too_slow is not None:
        r.status, r.note = "skipped", too_slow
        return r
    try:
        prep = methods.prepare(method, case, sets, device)
        r.note, r.input_sets = "; ".join(prep.notes), len(prep.calls)
        calls = timed_calls(prep, case)
        with prep.context():
            stage = "first call"
            out = prep.calls[0].fn()
            timing.synchronize(device)
            stage = "reference"
            r.max_err, r.err_scope = _error(out, case, sets[0], device, ref_state)
            del out
            stage = "backward" if case.direction == "fwd+bwd" else "timing"
            if case.direction == "fwd+bwd":
                calls[0]()
                timing.synchronize(device)
            stage = "timing"
            r.extra_mem_bytes, est = timing.peak_extra_memory(calls[1 % len(calls)], device)
            t = timing.measure(calls, device, warmup=a.warmup, repeats=a.repeats, min_repeats=a.min_repeats,
                               budget_s=budget_s, estimate_ms=est)
        r.ms, r.ms_p95, r.ms_min, r.repeats, r.warmup = t.median_ms, t.p95_ms, t.min_ms, t.repeats, t.warmup
        fill_rates(r, spec)
    except methods.Unavailable as e:
        r.status, r.note = e.status, str(e)
    except NotImplementedError as e:
        r.status, r.note = "n/a", methods._first_line(e)
    except (OOM, RuntimeError, TypeError, ValueError) as e:
        if memory.is_oom_error(e):  # the same status for every method (the CPU allocator raises RuntimeError)
            r.status, r.note = "oom", f"out of memory at {stage}: {methods._first_line(e)[:120]}"
            return _failed(r, device)
        sdpa_refused = method in methods.SDPA and stage in ("prepare", "first call")
        r.status = "unsupported" if sdpa_refused else "error"
        why = prep.caught[:2] if prep is not None else []  # SDPA's warnings say why no kernel applies
        r.note = f"{stage}: {methods._first_line(e)}" + "".join(f" | {w[:160]}" for w in why)
    return _failed(r, device) if r.status != "ok" else r


def _failed(r: Result, device) -> Result:
    for f in ("max_err", "err_scope", "extra_mem_bytes"):
        setattr(r, f, None)
    _free(device)
    return r


def _error(out, case: Case, s, device, ref_state: dict):
    """max |out - reference| and its scope; the reference is computed once per case (ref_state caches it)."""
    if "ref" not in ref_state:
        sl = ref_state["slice"]
        try:
            ref_state["ref"] = errors.reference(s.q, s.k, s.v, case, sl)
        except OOM:
            ref_state["ref"] = None
            _free(device)
    ref = ref_state["ref"]
    if ref is None:
        return None, "reference did not fit in memory"
    return errors.max_abs_error(out, ref, case, ref_state["slice"]), ref_state["slice"].describe(case)


def case_limit_s(a, device) -> float | None:
    """--max-case-s as it applies on ``device``: its default on the CPU, none on a GPU, 0 = none."""
    limit = getattr(a, "max_case_s", None)
    if limit is None:
        return duration.CPU_CASE_LIMIT_S if device.type == "cpu" else None
    return limit or None


BUDGET_SHARE = 0.25  # of --max-case-s: the most a (case, method)'s timing budget takes (run_cases)


def time_limit_s(a, device, left_s: float | None) -> tuple[float | None, str]:
    """(seconds one (case, method) may take, where that limit comes from): --max-case-s (case_limit_s), or what
    --time-limit-s leaves (``left_s``) where that is less; None: no limit."""
    limit, what = case_limit_s(a, device), "--max-case-s"
    if left_s is not None and (limit is None or left_s < limit):
        limit, what = max(left_s, 0.0), "what --time-limit-s leaves"
    return limit, what


def case_time_limits(case: Case, method_names: list[str], device, a, left_s: float | None,
                     rates: dict) -> dict[str, str | None]:
    """method -> the note of a ``skipped`` result when its estimated time (duration.check) exceeds --max-case-s or
    the time --time-limit-s leaves, or of an ``oom`` one when its memory estimate (memory.check) exceeds what is
    available, else None. ``rates`` caches the probes over the run: (method, probe_case) ->
    (FLOP rate, the probe it was measured on)."""
    limit, what = time_limit_s(a, device, left_s)
    out: dict[str, str | None] = {}
    for m in method_names:
        oom = memory.check(m, case, memory.available_bytes(device))
        if oom is not None:  # run_one reports it as oom (its memory check comes first), unprobed; when every
            out[m] = oom     # method of the case is, run_cases makes no inputs (newuser9: a decode case spent 40 s
            continue         # past --time-limit-s on 8.6 GB of random inputs for a method it then skipped as oom)
        if not duration.needs_probe(case, limit, a.min_repeats):
            out[m] = None
            continue
        key = (m, duration.probe_case(case))
        if key not in rates:
            used: list = []
            rate = duration.probe_rate(m, case, device, timed_calls, a.seed, limit_s=limit, used=used)
            rates[key] = (rate, used[0] if used else None)
            _free(device)
        rate, probe = rates[key]
        out[m] = duration.check(m, case, limit, rate, a.min_repeats, what, probe)
    return out


def method_time_left(case: Case, m: str, a, device, rates: dict, t_start: float, case_t0: float,
                     too_slow: str | None) -> str | None:
    """The note of a ``skipped`` result for method ``m`` about to run in ``case`` (None: it runs): --time-limit-s
    reached, or its estimate (the probe's rate, duration.check) over what --max-case-s leaves of this case after
    its inputs, reference and earlier methods. Before, each method was held to the whole limit on its own (plus a
    timing budget of up to BUDGET_SHARE of it on top), and the inputs and the reference were counted nowhere, so
    a case's four methods together could pass it several times over: a decode preset case took 119 s under
    --max-case-s 20 in a new-user trial. The probe was not the cause there: on the b8 x 16384-key decode case
    sdpa-math's probe measured 0.059 GFLOP/s against the case's own 0.133 (the estimate errs long)."""
    if too_slow is not None:
        return too_slow
    now = time.time()
    if a.time_limit_s is not None and now - t_start >= a.time_limit_s:
        return "skipped before running: --time-limit-s reached"
    limit = case_limit_s(a, device)
    if limit is None:
        return None
    left = limit - (now - case_t0)
    if left <= 0:
        return (f"skipped before running: over time limit: the case's earlier work took {now - case_t0:.3g} s of "
                f"--max-case-s {limit:g} s")
    rate, probe = rates.get((m, duration.probe_case(case)), (None, None))
    return duration.check(m, case, left, rate, a.min_repeats, f"what --max-case-s {limit:g} s leaves of this case",
                          probe)


def run_cases(cases: list[Case], method_names: list[str], device, a, spec, progress: Progress,
              results: list[Result], after_case=None) -> list[Result]:
    """Measure every (case, method), appending to ``results`` as cases finish, print each case's table
    lines and call ``after_case()`` (main rewrites the files then, so a killed run keeps what it measured)."""
    l2 = timing.l2_bytes(device)
    ref_budget = int((a.ref_budget_mb if a.ref_budget_mb is not None else
                      (1024 if device.type == "cuda" else 256)) * 2**20)
    t_start = time.time()
    total = len(cases) * len(method_names)
    done = 0
    rates: dict = {}
    for ci, case in enumerate(cases):
        case_rows: list[Result] = []
        sets = None
        too_slow: dict[str, str | None] = {}
        if not (a.time_limit_s is not None and time.time() - t_start >= a.time_limit_s):
            left = None if a.time_limit_s is None else a.time_limit_s - (time.time() - t_start)
            too_slow = case_time_limits(case, method_names, device, a, left, rates)
        if a.time_limit_s is not None and time.time() - t_start >= a.time_limit_s:
            case_rows = [Result(case.case_id, case.preset, case.to_dict(), m, "skipped", note="--time-limit-s reached",
                                flop=case.flop, bytes=case.bytes) for m in method_names]
        elif all(too_slow.get(m) is not None for m in method_names):  # no inputs needed: nothing runs
            case_rows = [run_one(case, m, None, device, a, spec, 0.0, {}, too_slow[m]) for m in method_names]
            done += len(method_names)
        else:
            case_t0 = time.time()  # --max-case-s holds for the whole case: inputs, reference and every method
            try:
                if device.type == "cuda":
                    _free(device)
                    free = torch.cuda.mem_get_info(device)[0]
                    n_sets, set_note = timing.n_input_sets(case.input_bytes(), l2, free)
                else:  # 3 sets (the CPU has no L2 rule), fewer when the host memory holds fewer
                    n_sets, set_note = 3, ""
                    host = memory.host_available()
                    if host is not None and 0.5 * host < 3 * case.input_bytes():
                        n_sets = int(0.5 * host // case.input_bytes())
                        set_note = f"{n_sets} input set(s): memory holds no more (rule: 3)"
                if a.input_sets is not None:
                    n_sets, set_note = a.input_sets, ""
                if n_sets < 1:
                    raise MemoryError(f"out of memory: one input set needs {memory.gib(case.input_bytes())}")
                sets = methods.make_inputs(case, n_sets, device, a.seed)
            except (OOM, RuntimeError, MemoryError) as e:  # RuntimeError: also a device left unusable earlier
                status = "oom" if isinstance(e, MemoryError) or memory.is_oom_error(e) else "error"
                case_rows = [Result(case.case_id, case.preset, case.to_dict(), m, status,
                                    note=f"inputs: {methods._first_line(e)[:160]}", flop=case.flop, bytes=case.bytes)
                             for m in method_names]
            if sets is not None:
                ref_state = {"slice": errors.choose_slice(case, ref_budget)}
                for m in method_names:
                    note = method_time_left(case, m, a, device, rates, t_start, case_t0, too_slow.get(m))
                    if note is not None:  # checked before each method, not only before each case
                        too_slow[m] = note
                    budget = a.budget_s
                    if a.time_limit_s is not None:
                        left = a.time_limit_s - (time.time() - t_start)
                        budget = max(0.05, min(budget, 0.7 * left / max(1, total - done)))
                    limit = case_limit_s(a, device)
                    if limit is not None:  # the estimate (duration.check) counts the minimal calls only: the
                        # timing loop's budget is what may come on top of them, so it takes at most a quarter
                        # of the limit (adv12: --budget-s 30 --max-case-s 5 ran a 0.38 s/call case for 23 s)
                        left_case = limit - (time.time() - case_t0)  # and of what the case has left
                        budget = max(0.05, min(budget, BUDGET_SHARE * limit, BUDGET_SHARE * left_case))
                    progress.step(f"{case.label} {m}")
                    r = run_one(case, m, sets, device, a, spec, budget, ref_state, too_slow.get(m))
                    if set_note and r.status == "ok":
                        r.note = "; ".join(filter(None, [r.note, set_note]))
                    case_rows.append(r)
                    done += 1
                del sets, ref_state
                _free(device)
        fill_speedups(case_rows, a.baseline)
        for line in format_case(case_rows):
            progress.write(line)
        progress.case_done(ci + 1, len(cases), case.label)
        results += case_rows
        if after_case is not None:
            after_case()
    return results


# ------------------------------------------------------------------------------------------- profiling
def _marker(device) -> None:
    torch.cuda._sleep(1000)
    torch.cuda.synchronize(device)


def profile_child(spec_path: str) -> int:
    """Run every (case, method) of the spec between two marker kernels, ``calls`` times (under a profiler)."""
    with open(spec_path) as f:
        spec = json.load(f)
    device = resolve_device(spec.get("device", "auto"))
    for seg in spec["segments"]:
        c = seg["case"]
        case = Case.from_dict(c)
        try:
            sets = methods.make_inputs(case, 1, device, spec.get("seed", 0))
            prep = methods.prepare(seg["method"], case, sets, device)
            calls = timed_calls(prep, case)
            with prep.context():
                for _ in range(2):
                    calls[0]()
                torch.cuda.synchronize(device)
                _marker(device)
                for _ in range(spec["calls"]):
                    calls[0]()
                torch.cuda.synchronize(device)
                _marker(device)
        except Exception as e:  # keep the segment count: an empty segment reads as "no profile"
            print(f"profile child: {case.case_id} {seg['method']}: {methods._first_line(e)}", file=sys.stderr)
            _marker(device)
            _marker(device)
        finally:
            sets = prep = calls = None
            _free(device)
    return 0


def _attach(r: Result, summary: dict | None, tool: str) -> None:
    if not summary or not summary.get("kernel_ms"):
        return
    ms = summary["kernel_ms"]
    r.profiler = {"tool": tool, "kernel_ms": ms, "gbps": r.bytes / (ms * 1e-3) / 1e9,
                  "tflops": r.flop / (ms * 1e-3) / 1e12, "kernels": summary["kernels"][:8]}


def run_profiler(results: list[Result], device, platform: str | None, seed: int, notes: list[str]) -> list[dict]:
    """Fill ``Result.profiler`` for every ok result; returns the profiler's per-kernel stats (AMD) if any."""
    ok = [r for r in results if r.status == "ok"]
    if platform is None:
        notes.append("--rocprof: no GPU, nothing to profile")
        return []
    if not ok:
        return []
    tool, path = rocprof.find_tool() if platform == "hip" else (None, None)
    if platform == "hip" and tool is None:
        notes.append("--rocprof: neither rocprofv3 nor rocprof is on PATH; kernel times from torch.profiler instead")
    if tool is None:
        for r in ok:
            c = r.case
            case = Case.from_dict(c)
            try:
                sets = methods.make_inputs(case, 1, device, seed)
                prep = methods.prepare(r.method, case, sets, device)
                call = timed_calls(prep, case)[0]
                with prep.context():
                    call(), call()
                    torch.cuda.synchronize(device)

                    def run():
                        for _ in range(PROFILE_CALLS):
                            call()
                        torch.cuda.synchronize(device)
                    _attach(r, rocprof.torch_profiler_kernels(run, PROFILE_CALLS), "torch.profiler")
            except Exception as e:
                notes.append(f"--rocprof: {r.case_id} {r.method}: {methods._first_line(e)}")
            finally:
                sets = prep = call = None
                _free(device)
        if not any(r.profiler for r in ok):
            notes.append("--rocprof: torch.profiler recorded no kernel activity (CUPTI/roctracer unavailable?)")
        return []
    with tempfile.TemporaryDirectory(prefix="rocflash_prof_") as tmp:
        spec_path = os.path.join(tmp, "spec.json")
        with open(spec_path, "w") as f:
            json.dump({"device": str(device), "seed": seed, "calls": PROFILE_CALLS,
                       "segments": [{"case": r.case, "method": r.method} for r in ok]}, f)
        outdir = os.path.join(tmp, "out")
        cmd = rocprof.profiler_command(tool, path, outdir, [sys.executable, "-m", "rocflash.perf",
                                                            "--profile-child", spec_path])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PROFILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            notes.append(f"--rocprof: {tool} did not finish in {PROFILE_TIMEOUT_S} s")
            return []
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            notes.append(f"--rocprof: {tool} exited {proc.returncode}: {' | '.join(tail)}")
        traces, stats_files = rocprof.find_outputs(outdir)
        if not traces:
            notes.append(f"--rocprof: {tool} wrote no kernel trace CSV under {outdir}")
            return []
        try:
            fmt, summaries = rocprof.attribute(traces, len(ok), PROFILE_CALLS)
        except ValueError as e:
            notes.append(f"--rocprof: {e}")
            return []
        for r, s in zip(ok, summaries):
            _attach(r, s, tool)
        stats = []
        for sf in stats_files:
            stats += [{"name": s.name, "calls": s.calls, "total_ms": s.total_ns / 1e6, "avg_us": s.average_ns / 1e3}
                      for s in rocprof.parse_stats(sf) if rocprof.MARKER not in s.name]
        return sorted(stats, key=lambda s: -s["total_ms"])[:20]


# ------------------------------------------------------------------------------------------------ main
def env_info() -> dict:
    import rocflash

    return {"created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "rocflash": rocflash.__version__, "torch": torch.__version__,
            "runtime": f"ROCm/HIP {torch.version.hip}" if torch.version.hip else
                       f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU only",
            "python": _platform.python_version()}


def print_list() -> None:
    print("presets:")
    for k, v in PRESETS.items():
        print(f"  {k:8s} {v['description']}")
    print("methods: " + ", ".join(methods.METHODS))
    print("arch table (TFLOP/s: fp32 FMA, packed fp16, matrix fp16; TB/s):")
    for a in arch_mod.ARCHS.values():
        m = "-" if a.matrix_fp16 is None else f"{a.matrix_fp16:g}"
        meas = f"  measured: {', '.join(a.measured)}" if a.measured else ""
        print(f"  {a.key:10s} {a.arch:7s} {a.units:4d} units  {a.fp32:7.1f} {a.packed_fp16:7.1f} {m:>7s}  "
              f"{a.hbm_tbps:6.3f} TB/s{meas}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = build_parser()
    a = p.parse_args(argv)
    if a.profile_child:
        return profile_child(a.profile_child)
    if a.list:
        print_list()
        return 0
    validate(p, a)
    device = resolve_device(a.device)
    dev = arch_mod.device_info(device)
    if device.type == "cpu":
        torch.set_num_threads(a.threads or 1)
    notes: list[str] = []
    if a.arch:
        try:
            spec = arch_mod.lookup(a.arch)
        except ValueError as e:
            p.error(str(e))
        arch_match = f"--arch {a.arch}"
    else:
        spec, arch_match = arch_mod.match_arch(dev.platform, dev.arch, dev.name, dev.units)
    preset = a.preset
    if preset is None:
        preset = "default" if device.type == "cuda" else "smoke"
        if device.type != "cuda":
            notes.append("no GPU: ran the smoke preset (the GPU presets, e.g. --preset default, take minutes per "
                         "call on a CPU: a (case, method) estimated over --max-case-s is skipped before it runs)")
    try:
        cases = apply_overrides(resolve_presets([s.strip() for s in preset.split(",") if s.strip()]),
                                a.dtype, a.causal, a.bwd)
        method_names = methods.parse_methods(a.backends, dev.platform) if a.backends else \
            methods.default_methods(dev.platform)
    except (ValueError, RuntimeError) as e:
        p.error(str(e))

    print(f"rocflash.perf on {dev.name} ({dev.arch or device.type}), torch {torch.__version__}; "
          f"peaks: {spec.key if spec else 'none'} ({arch_match})")
    print(f"{len(cases)} case(s) x {len(method_names)} method(s): {', '.join(method_names)}; "
          f"warm-up <= {a.warmup}, repeats <= {a.repeats}, median and p95 of per-call "
          f"{'device events' if device.type == 'cuda' else 'perf_counter'} times")
    print(LEGEND)
    print(HEADER)
    progress = Progress(len(cases) * len(method_names), not a.no_progress)
    results: list[Result] = []

    def save(extra_notes=()):
        doc = document(results, argv=argv, env=env_info(), device=dev.to_dict(),
                       arch=spec.to_dict() if spec else None, arch_match=arch_match, notes=[*notes, *extra_notes],
                       settings={"presets": preset, "methods": method_names, "warmup": a.warmup, "repeats": a.repeats,
                                 "min_repeats": a.min_repeats, "budget_s": a.budget_s,
                                 "time_limit_s": a.time_limit_s, "max_case_s": case_limit_s(a, device),
                                 "l2_bytes": timing.l2_bytes(device),
                                 "seed": a.seed, "bwd": a.bwd})
        if a.json:
            write_json(doc, a.json)
        if a.csv:
            write_csv(results, a.csv)
        return doc

    try:
        run_cases(cases, method_names, device, a, spec, progress, results,
                  after_case=lambda: save([f"partial: {len(results)} of {len(cases) * len(method_names)} results"]))
    except BaseException as e:  # Ctrl-C, a crash: keep what was measured
        progress.close()
        if a.json or a.csv:
            save([f"interrupted after {len(results)} results: {type(e).__name__}: {methods._first_line(e)}"])
            print(f"interrupted: partial results written to {a.json or ''} {a.csv or ''}", file=sys.stderr)
        raise
    progress.close()

    prof_stats = []
    if a.rocprof:
        prof_stats = run_profiler(results, device, dev.platform, a.seed, notes)
        for line in format_profiler(results):
            print(line)
        if prof_stats:
            print("profiler per-kernel totals (all profiled calls):")
            for s in prof_stats[:10]:
                print(f"  {s['total_ms']:10.3f} ms {s['calls']:6d} calls  {s['name'][:100]}")
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    print("status: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
    for n in notes:
        print(f"note: {n}")

    doc = save()
    if prof_stats:
        doc["profiler_stats"] = prof_stats
        if a.json:
            write_json(doc, a.json)
    for path in (a.json, a.csv):
        if path:
            print(f"wrote {path}")
    if a.plot:
        from .plot import plot_roofline

        try:
            plot_roofline(doc, a.plot)
            print(f"wrote {a.plot}")
        except ImportError:
            print("--plot: matplotlib is not installed (pip install matplotlib); "
                  + (f"plot later with: python -m rocflash.perf.plot {a.json} {a.plot}" if a.json else
                     "rerun with --json to plot later"), file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
