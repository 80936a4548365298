"""rocflash.perf on the CPU stays bounded (issue 8): each (case, method) gets a time estimate before it runs. The
estimate is the case's FLOP at the rate the method reaches on a small probe. A method over --max-case-s (20 s by
default on the CPU), or over what --time-limit-s leaves, is ``skipped`` with a note ``skipped before running: over
time limit``. So ``--device cpu --preset default`` skips its 1.1 TFLOP cases instead of running for hours."""

from __future__ import annotations

import json

import pytest
import torch

from rocflash.perf import duration, memory, methods, runner
from rocflash.perf.cases import Case, resolve_presets

CPU = torch.device("cpu")
TINY = "cases:\n  - {batch: 1, seqlen: 64, nheads: 2, headdim: 32, dtype: fp32}\n"
FAST = ["--device", "cpu", "--budget-s", "0.05", "--min-repeats", "1", "--warmup", "0", "--no-progress"]


def _args(*argv):
    return runner.build_parser().parse_args(list(argv))


def test_default_preset_is_skipped_before_anything_runs(monkeypatch):
    """The default preset's 4096^2 cases at a generous 50 GFLOP/s: every method is estimated over 20 s and skipped
    without its inputs being made or the method being prepared."""
    monkeypatch.setattr(memory, "host_available", lambda: 1 << 40)  # the time rule alone decides here
    monkeypatch.setattr(duration, "probe_rate", lambda m, case, device, calls_of, seed=0: 50e9)

    def never(*a, **k):
        raise AssertionError("a case over the time limit must not run")

    monkeypatch.setattr(methods, "make_inputs", never)
    monkeypatch.setattr(methods, "prepare", never)
    cases = resolve_presets(["default"])[:2]
    names = methods.default_methods(None)
    results = runner.run_cases(cases, names, CPU, _args(), None, runner.Progress(0, False), [])
    assert [r.status for r in results] == ["skipped"] * (2 * len(names))
    for r in results:
        assert r.note.startswith("skipped before running: over time limit: ~") and "--max-case-s" in r.note, r.note
        assert r.ms is None


def test_estimate():
    c = Case(batch=1, seqlen_q=1000, seqlen_k=1000, nheads=1, nheads_k=1, headdim=100, dtype="fp32")  # 0.4 GFLOP
    calls = duration.minimal_calls(c, 3)
    assert calls == 6
    need = duration.SAFETY * c.flop / 1e9 * calls  # at 1 GFLOP/s
    assert duration.check("naive", c, need * 1.01, 1e9, 3) is None
    note = duration.check("naive", c, need * 0.99, 1e9, 3)
    assert note and f"~{need:.3g} s estimated" in note and "limit" in note
    assert duration.check("naive", c, None, 1e9, 3) is None and duration.check("naive", c, 1.0, None, 3) is None
    assert duration.needs_probe(c, 20.0, 3) and not duration.needs_probe(c, None, 3)
    smoke = resolve_presets(["smoke"])  # tiny cases: no probe at the CPU default
    assert not any(duration.needs_probe(s, duration.CPU_CASE_LIMIT_S, 3) for s in smoke)
    bwd = Case(**{**c.__dict__, "direction": "fwd+bwd"})
    assert duration.minimal_calls(bwd, 3) > calls


def test_probe_case_and_rate():
    decode = resolve_presets(["default"])[2]  # batch 8, 1 query row, 16384 keys, 32/8 heads
    p = duration.probe_case(decode)
    assert (p.batch, p.seqlen_q, p.nheads, p.nheads_k) == (1, 1, 4, 1) and p.seqlen_k == decode.seqlen_k
    big = duration.probe_case(resolve_presets(["default"])[0])
    assert (big.seqlen_q, big.nheads, big.nheads_k) == (duration.PROBE_SEQLEN, 1, 1) and big.seqlen_k <= 4096
    tiny = Case(batch=1, seqlen_q=64, seqlen_k=64, nheads=2, nheads_k=2, headdim=32, dtype="fp32")
    rate = duration.probe_rate("sdpa-math", tiny, CPU, runner.timed_calls)
    assert rate is not None and 0 < rate < float("inf")
    assert duration.probe_rate("rocflash-cuda", tiny, CPU, runner.timed_calls) is None  # not runnable here


def test_cli_skips_and_runs(tmp_path, capsys):
    preset = tmp_path / "tiny.yaml"
    preset.write_text(TINY)
    out = tmp_path / "r.json"
    assert runner.main([*FAST, "--preset", str(preset), "--backends", "naive,flash", "--max-case-s", "1e-9",
                        "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [r["status"] for r in doc["results"]] == ["skipped", "skipped"]
    assert all("over time limit" in r["note"] for r in doc["results"]) and doc["settings"]["max_case_s"] == 1e-9
    assert "status: skipped 2" in capsys.readouterr().out
    assert runner.main([*FAST, "--preset", str(preset), "--backends", "naive", "--max-case-s", "0",
                        "--json", str(out)]) == 0  # 0: no limit
    doc = json.loads(out.read_text())
    assert [r["status"] for r in doc["results"]] == ["ok"] and doc["settings"]["max_case_s"] is None


def test_time_limit_caps_the_estimate(monkeypatch):
    """With --time-limit-s, a method estimated over the time the run has left is skipped with that reason."""
    monkeypatch.setattr(duration, "probe_rate", lambda m, case, device, calls_of, seed=0: 1e7)  # 10 MFLOP/s: ~80 s
    c = Case(batch=1, seqlen_q=512, seqlen_k=512, nheads=2, nheads_k=2, headdim=32, dtype="fp32")
    results = runner.run_cases([c], ["naive"], CPU, _args("--time-limit-s", "30", "--max-case-s", "0"), None,
                               runner.Progress(0, False), [])
    assert results[0].status == "skipped" and "what --time-limit-s leaves" in results[0].note


def test_limit_defaults_and_errors():
    assert runner.case_limit_s(_args(), CPU) == duration.CPU_CASE_LIMIT_S
    assert runner.case_limit_s(_args(), torch.device("cuda")) is None
    assert runner.case_limit_s(_args("--max-case-s", "5"), torch.device("cuda")) == 5.0
    assert runner.case_limit_s(_args("--max-case-s", "0"), CPU) is None
    p = runner.build_parser()
    with pytest.raises(SystemExit):
        runner.validate(p, p.parse_args(["--max-case-s", "-1"]))
