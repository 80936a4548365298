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
    monkeypatch.setattr(duration, "probe_rate", lambda m, case, device, calls_of, seed=0, **kw: 50e9)

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
    monkeypatch.setattr(duration, "probe_rate", lambda m, case, device, calls_of, seed=0, **kw: 1e7)  # 10 MFLOP/s: ~80 s
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


class _FakeClock:
    """duration's clock, advanced by the fake calls: ``rate`` FLOP/s on every probe (no real work, no sleeping)."""

    def __init__(self, rate):
        self.now, self.rate, self.rows = 0.0, rate, []

    def perf_counter(self):
        return self.now

    def install(self, monkeypatch):
        import contextlib
        import types

        monkeypatch.setattr(duration, "time", self)
        monkeypatch.setattr(memory, "host_available", lambda: 1 << 40)
        monkeypatch.setattr(methods, "make_inputs", lambda case, n, device, seed=0: None)
        monkeypatch.setattr(methods, "prepare", lambda m, case, sets, device: types.SimpleNamespace(
            context=contextlib.nullcontext))

        def calls_of(prep, small):
            def call():
                self.rows.append(small.seqlen_q)
                self.now += small.flop / self.rate
            return [call]
        monkeypatch.setattr(runner, "timed_calls", calls_of)


@pytest.mark.parametrize("limit", ["20", "2"])
def test_probe_stays_within_its_share_of_the_limit(monkeypatch, limit):
    """adv12: the probe itself was unbounded. A batch-1 case of 256 rows x 16384 keys x a 32-head GQA group,
    fwd+bwd, is its own full probe: 240 GFLOP a call, 24 s at 10 GFLOP/s, so 72 s of probing (3.6x the 20 s
    limit) went into deciding to skip it. Now the probes grow from 16 rows and stop within PROBE_SHARE of the
    limit; the case is still skipped, at the same rate."""
    clock = _FakeClock(10e9)
    clock.install(monkeypatch)
    case = Case(batch=1, seqlen_q=256, seqlen_k=16384, nheads=32, nheads_k=1, headdim=128, dtype="fp32",
                direction="fwd+bwd")
    assert duration.probe_case(case) == case
    out = runner.case_time_limits(case, ["rocflash-sim"], CPU, _args("--max-case-s", limit), None, {})
    assert clock.now <= duration.PROBE_SHARE * float(limit) + 1e-9 or clock.rows == [16], (clock.now, clock.rows)
    assert out["rocflash-sim"] is not None and "at 10 GFLOP/s" in out["rocflash-sim"], out
    assert "measured on a 16x16384 probe" in out["rocflash-sim"], out  # the probe the rate came from


def test_probe_grows_to_the_full_probe_when_cheap(monkeypatch):
    """A fast method gets the full probe (the rate of 256 rows), as before the stages."""
    clock = _FakeClock(1e13)
    clock.install(monkeypatch)
    case = Case(batch=4, seqlen_q=4096, seqlen_k=4096, nheads=8, nheads_k=8, headdim=64, dtype="fp32")
    rates: dict = {}
    runner.case_time_limits(case, ["naive"], CPU, _args("--max-case-s", "20"), None, rates)
    assert clock.rows == [16] * 3 + [64] * 3 + [duration.PROBE_SEQLEN] * 3
    assert [r for r, _ in rates.values()] == [pytest.approx(1e13)]
    assert [p.seqlen_q for _, p in rates.values()] == [duration.PROBE_SEQLEN]


def test_time_limit_left_bounds_the_probe(monkeypatch):
    """With 2 s left of --time-limit-s, the probe stops after its first call (1.5 s, over PROBE_SHARE of those
    2 s; was 3 x 24 s)."""
    clock = _FakeClock(10e9)
    clock.install(monkeypatch)
    case = Case(batch=1, seqlen_q=256, seqlen_k=16384, nheads=32, nheads_k=1, headdim=128, dtype="fp32",
                direction="fwd+bwd")
    out = runner.case_time_limits(case, ["naive"], CPU, _args("--max-case-s", "0"), 2.0, {})
    assert clock.rows == [16] and out["naive"] is not None and "what --time-limit-s leaves" in out["naive"]


@pytest.mark.parametrize("flag,value", [("--max-case-s", "nan"), ("--max-case-s", "inf"), ("--time-limit-s", "nan"),
                                        ("--time-limit-s", "inf"), ("--budget-s", "nan"), ("--ref-budget-mb", "nan"),
                                        ("--ref-budget-mb", "-1")])
def test_non_finite_limits_are_rejected(flag, value, capsys):
    """adv12: --max-case-s nan was accepted and meant no limit (every comparison with NaN is False), and the JSON
    settings held a bare NaN (not JSON); --time-limit-s nan and --budget-s nan passed the same way."""
    p = runner.build_parser()
    with pytest.raises(SystemExit):
        runner.validate(p, p.parse_args([flag, value]))
    assert f"{flag} must be" in capsys.readouterr().err


def test_timing_budget_stays_within_the_case_limit(monkeypatch, tmp_path):
    """adv12: the estimate counts the minimal calls only, while the timing loop runs up to --budget-s on top:
    `--budget-s 30 --max-case-s 5` ran a 0.38 s/call naive case (estimated 4.6 s) for 23 s. The budget each
    (case, method) gets is now at most BUDGET_SHARE of --max-case-s; without a limit (a GPU's default, 0) it is
    --budget-s as before."""
    budgets = []
    monkeypatch.setattr(runner, "run_one", lambda case, m, sets, device, a, spec, budget, *rest: budgets.append(budget)
                        or runner.Result(case.case_id, case.preset, case.to_dict(), m, "skipped",
                                                         flop=case.flop, bytes=case.bytes))
    monkeypatch.setattr(duration, "probe_rate", lambda *a, **kw: 1e12)  # fast: within the limit, runs
    c = Case(batch=1, seqlen_q=512, seqlen_k=512, nheads=2, nheads_k=2, headdim=32, dtype="fp32")
    for argv, want in [(("--budget-s", "30", "--max-case-s", "5"), 5 * runner.BUDGET_SHARE),
                       (("--budget-s", "30", "--max-case-s", "0"), 30.0), (("--budget-s", "0.5",), 0.5)]:
        budgets.clear()
        runner.run_cases([c], ["naive"], CPU, _args(*argv), None, runner.Progress(0, False), [])
        # (with a limit: a quarter of what the case has left, a little less than of the limit once inputs are made)
        assert len(budgets) == 1 and budgets[0] <= want and budgets[0] == pytest.approx(want, rel=0.05), (argv, budgets)


def test_max_case_s_holds_for_the_whole_case(monkeypatch):
    """nufix6 (a decode case ran 119 s under --max-case-s 20): the limit covers the case's inputs and all its
    methods together, and --time-limit-s is checked before each method. Fake clock, fake rate: each method is
    estimated at ~8 s (within 20 s on its own) and takes 8 s; the third no longer fits what the case has left."""
    clock = [1000.0]
    monkeypatch.setattr(runner.time, "time", lambda: clock[0])
    monkeypatch.setattr(memory, "host_available", lambda: 1 << 40)
    c = Case(batch=1, seqlen_q=512, seqlen_k=512, nheads=2, nheads_k=2, headdim=32, dtype="fp32")
    per_call = 8.0 / (duration.SAFETY * duration.minimal_calls(c, 3))
    monkeypatch.setattr(duration, "probe_rate", lambda *a, **kw: c.flop / per_call)  # estimate 8 s per method

    def inputs(case, n, device, seed=0):
        clock[0] += 2.0  # making the inputs counts too
        return [None] * n

    ran, budgets = [], []

    def run_one(case, m, sets, device, a, spec, budget, ref_state, too_slow=None):
        if too_slow is None:
            ran.append(m)
            budgets.append(budget)
            clock[0] += 8.0
        return runner.Result(case.case_id, case.preset, case.to_dict(), m, "skipped" if too_slow else "ok",
                             note=too_slow, flop=case.flop, bytes=case.bytes)

    monkeypatch.setattr(methods, "make_inputs", inputs)
    monkeypatch.setattr(runner, "run_one", run_one)
    monkeypatch.setattr(runner, "fill_speedups", lambda rows, baseline: None)
    monkeypatch.setattr(runner, "format_case", lambda rows: [])
    names = ["m1", "m2", "m3", "m4"]
    res = runner.run_cases([c], names, CPU, _args("--max-case-s", "20", "--budget-s", "30"), None,
                           runner.Progress(0, False), [])
    assert ran == ["m1", "m2"], ran  # 2 + 8 + 8 = 18 s used: 2 s left, m3 (8 s) is skipped, m4 too
    # the timing budget: a quarter of what the case has left (18 s, then 10 s), not of the whole limit
    assert budgets == [pytest.approx(runner.BUDGET_SHARE * 18), pytest.approx(runner.BUDGET_SHARE * 10)], budgets
    assert [r.status for r in res] == ["ok", "ok", "skipped", "skipped"]
    assert "leaves of this case" in res[2].note or "earlier work" in res[2].note, res[2].note
    # --time-limit-s reached between two methods of one case: the rest is skipped before running
    ran.clear()
    res = runner.run_cases([c], names, CPU, _args("--max-case-s", "0", "--time-limit-s", "9"), None,
                           runner.Progress(0, False), [])
    assert ran == ["m1"], ran
    assert all(r.note == "skipped before running: --time-limit-s reached" for r in res[1:]), [r.note for r in res]
