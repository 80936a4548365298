"""rocflash.perf.rocprof on fixture files of both profilers (tests/fixtures/rocprof, documented columns)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from rocflash.perf import rocprof

FIX = Path(__file__).parent / "fixtures" / "rocprof"
V3_TRACE = FIX / "rocprofv3" / "node01" / "4242_kernel_trace.csv"
V3_STATS = FIX / "rocprofv3" / "node01" / "4242_kernel_stats.csv"
LEGACY_TRACE = FIX / "rocprof_legacy" / "results.csv"
LEGACY_STATS = FIX / "rocprof_legacy" / "results.stats.csv"
FMHA = "rf::fmha_fwd_kernel<rf::Fp16, 128, 64, 128>(rf::FmhaFwdParams)"


def test_v3_trace():
    fmt, ds = rocprof.parse_trace(V3_TRACE)
    assert fmt == "rocprofv3"
    assert len(ds) == 12
    assert [d.start_ns for d in ds] == sorted(d.start_ns for d in ds)  # the file lists two rows out of order
    fm = [d for d in ds if "fmha_fwd_kernel" in d.name]
    assert [d.duration_ns for d in fm] == [100000, 100000]
    assert fm[0].name == "void " + FMHA  # commas inside the quoted name survive


def test_legacy_trace_strips_clone_suffix():
    fmt, ds = rocprof.parse_trace(LEGACY_TRACE)
    assert fmt == "rocprof"
    assert [d.name for d in ds][1:4] == [FMHA] * 3
    assert not any(d.name.endswith("[clone .kd]") for d in ds)
    assert [d.duration_ns for d in ds[1:4]] == [2500000] * 3


@pytest.mark.parametrize("path", [V3_TRACE, LEGACY_TRACE])
def test_parse_by_header_not_position(tmp_path, path):
    """Shuffle the columns and add an unknown one: same dispatches."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cols = list(rows[0]) + ["Extra_Column"]
    random.Random(1).shuffle(cols)
    out = tmp_path / path.name
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({**r, "Extra_Column": "x"})
    assert rocprof.parse_trace(out) == rocprof.parse_trace(path)


def test_segments_and_attribution_v3():
    fmt, segs = rocprof.attribute([str(V3_TRACE)], n_segments=2, calls=2)
    assert fmt == "rocprofv3"
    assert segs[0]["kernel_ms"] == pytest.approx(0.1)  # two 100 us fmha dispatches over 2 calls
    assert segs[0]["kernels"] == [{"name": "void " + FMHA, "ms_per_call": pytest.approx(0.1),
                                   "dispatches_per_call": 1.0}]
    # segment 1: two attn_fwd (10 us) and two copies (1 us); the set-up kernel between the segments is dropped
    assert segs[1]["kernel_ms"] == pytest.approx(0.011)
    assert [k["name"] for k in segs[1]["kernels"]] == ["attn_fwd", "void at::native::elementwise_kernel<128, 2>"
                                                       "(int, at::native::direct_copy_kernel_cuda)"]


def test_attribution_legacy():
    fmt, segs = rocprof.attribute([str(LEGACY_TRACE)], n_segments=1, calls=3)
    assert fmt == "rocprof"
    assert segs[0]["kernel_ms"] == pytest.approx(2.5)


def test_segment_count_mismatch():
    with pytest.raises(ValueError, match=r"2 marked segments, expected 3"):
        rocprof.attribute([str(V3_TRACE)], n_segments=3, calls=1)


def test_stats_both_formats():
    v3 = rocprof.parse_stats(V3_STATS)
    assert v3[0].name == "void " + FMHA and v3[0].calls == 2 and v3[0].total_ns == 200000
    assert [s.name for s in v3][:2] == ["void " + FMHA, "attn_fwd"]
    legacy = rocprof.parse_stats(LEGACY_STATS)
    # the name with and without " [clone .kd]" is one kernel
    assert legacy[0].name == FMHA and legacy[0].calls == 3 and legacy[0].total_ns == 7500000
    assert legacy[0].average_ns == pytest.approx(2500000)
    assert len(legacy) == 2


def test_missing_columns_are_named(tmp_path):
    bad = tmp_path / "bad_stats.csv"
    bad.write_text('"Name","Calls","Total"\n"k",1,5\n')
    with pytest.raises(ValueError, match=r"missing TotalDurationNs, AverageNs"):
        rocprof.parse_stats(bad)
    with pytest.raises(ValueError, match=r"not a kernel trace"):
        rocprof.parse_trace(bad)


def test_find_outputs_recursive():
    traces, stats = rocprof.find_outputs(FIX)
    assert {Path(t).name for t in traces} == {"4242_kernel_trace.csv", "results.csv"}
    assert {Path(s).name for s in stats} == {"4242_kernel_stats.csv", "results.stats.csv"}


def test_normalize_name():
    assert rocprof.normalize_name(' "k(int) [clone .kd]" ') == "k(int)"
    assert rocprof.normalize_name("k [clone .kd] [clone .kd]") == "k"


def test_profiler_commands(tmp_path):
    child = ["python", "-m", "rocflash.perf", "--profile-child", "spec.json"]
    v3 = rocprof.profiler_command("rocprofv3", "/opt/rocm/bin/rocprofv3", tmp_path, child)
    for flag in ("--kernel-trace", "--stats", "-d"):
        assert flag in v3
    assert v3[v3.index("--output-format") + 1] == "csv"  # ROCm 7 would write SQLite otherwise
    assert v3[v3.index("--") + 1:] == child
    legacy = rocprof.profiler_command("rocprof", "/opt/rocm/bin/rocprof", tmp_path, child)
    assert legacy[1] == "--stats" and legacy[-len(child):] == child
    with pytest.raises(ValueError, match="tool must be rocprofv3 or rocprof, got 'nsys'"):
        rocprof.profiler_command("nsys", "nsys", tmp_path, child)


def test_torch_profiler_plumbing_on_cpu():
    """The NVIDIA path's event handling, fed CPU operator events (no GPU here)."""
    import torch

    a = torch.randn(64, 64)

    def run():
        for _ in range(4):
            torch.mm(a, a)

    s = rocprof.torch_profiler_kernels(run, 4, activity="cpu")
    mm = [k for k in s["kernels"] if k["name"] == "aten::mm"]
    assert mm and mm[0]["dispatches_per_call"] == 1.0 and mm[0]["ms_per_call"] > 0
    assert s["kernel_ms"] >= mm[0]["ms_per_call"]
