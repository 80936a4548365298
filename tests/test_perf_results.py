"""rocflash.perf results: derived rates, speedups, JSON (schema, NaN), CSV, and perf/compare.py."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rocflash.perf import arch, compare
from rocflash.perf.cases import Case
from rocflash.perf.results import (SCHEMA, Result, document, fill_rates, fill_speedups, format_case, load_json,
                                   write_csv, write_json)

ROOT = Path(__file__).resolve().parent.parent
CASE = Case(batch=4, seqlen_q=4096, seqlen_k=4096, nheads=32, nheads_k=32, headdim=128, dtype="fp16", preset="default")


def result(method, ms, status="ok", case=CASE, **kw):
    r = Result(case.case_id, case.preset, case.to_dict(), method, status, flop=case.flop, bytes=case.bytes, ms=ms,
               ms_p95=None if ms is None else ms * 1.1, **kw)
    return r


def test_fill_rates_against_h200():
    r = result("sdpa-cudnn", 0.5)
    fill_rates(r, arch.ARCHS["H200"])
    assert r.tflops == pytest.approx(CASE.flop / 0.5e-3 / 1e12)
    assert r.gbps == pytest.approx(CASE.bytes / 0.5e-3 / 1e9)
    assert r.peak_kind == "matrix_fp16" and r.peak_tflops == 754.0
    assert r.pct_peak_flops == pytest.approx(100 * r.tflops / 754.0)
    assert r.pct_peak_bw == pytest.approx(100 * r.gbps / 4300.0)
    assert r.ridge == pytest.approx(754.0 / 4.3)
    assert r.bound == "compute"  # intensity ~ N/2 FLOP/byte >> ridge (facts.md section 7)
    rc = result("rocflash-cuda-vector", 10.0)  # the vector tile math; rocflash-cuda is on tensor cores
    fill_rates(rc, arch.ARCHS["H200"])
    assert rc.peak_kind == "fp32" and rc.peak_tflops == 66.9


def test_fill_rates_without_arch():
    r = result("naive", 2.0)
    fill_rates(r, None)
    assert r.tflops > 0 and r.peak_kind is None and r.pct_peak_flops is None and r.bound is None


def test_speedups_baseline_is_fastest_sdpa():
    rows = [result("rocflash-cuda", 20.0), result("sdpa-flash", 1.0), result("sdpa-cudnn", 0.5),
            result("naive", 5.0), result("sdpa-math", None, status="oom")]
    fill_speedups(rows)
    assert {r.method: r.speedup for r in rows if r.speedup} == pytest.approx(
        {"rocflash-cuda": 0.025, "sdpa-flash": 0.5, "sdpa-cudnn": 1.0, "naive": 0.1})
    assert all(r.baseline == "sdpa-cudnn" for r in rows if r.status == "ok")
    assert rows[-1].speedup is None
    fill_speedups(rows, baseline="naive")
    assert rows[0].speedup == pytest.approx(0.25)
    lines = format_case(rows)
    assert lines[0].startswith("-- b4 h32 q4096 k4096 d128 fp16")
    assert any("OOM" in line for line in lines)


def make_doc(rows, device="NVIDIA H200"):
    return document(rows, argv=["--preset", "default"], env={"created": "2026-11-29T00:00:00+00:00"},
                    device={"name": device}, arch=arch.ARCHS["H200"].to_dict(), arch_match="test",
                    settings={}, notes=[])


def test_json_roundtrip_and_nan(tmp_path):
    r = result("naive", 1.0, max_err=float("nan"))
    path = tmp_path / "a.json"
    write_json(make_doc([r]), str(path))
    text = path.read_text()
    assert "NaN" not in text  # strict JSON
    doc = load_json(str(path))
    assert doc["schema"] == SCHEMA == "rocflash.perf/1"
    assert doc["results"][0]["max_err"] == "nan"
    assert doc["results"][0]["case"]["window"] == [-1, -1]
    assert set(doc) >= {"schema", "created", "argv", "env", "device", "arch", "arch_match", "settings", "notes",
                        "results"}
    assert set(doc["results"][0]) == set(Result.__dataclass_fields__)


def test_load_json_rejects_other_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"schema": "other/2", "results": []}))
    with pytest.raises(ValueError, match=r"must be a rocflash.perf/1 results file .*got schema 'other/2'"):
        load_json(str(p))


def test_csv(tmp_path):
    rows = [result("sdpa-flash", 1.0), result("naive", None, status="oom", note="out of memory")]
    rows[0].profiler = {"tool": "rocprofv3", "kernel_ms": 0.9, "gbps": 1.0, "kernels": []}
    path = tmp_path / "r.csv"
    write_csv(rows, str(path))
    with open(path, newline="") as f:
        got = list(csv.DictReader(f))
    assert len(got) == 2
    assert got[0]["method"] == "sdpa-flash" and float(got[0]["ms"]) == 1.0 and got[0]["profiler_kernel_ms"] == "0.9"
    assert got[1]["status"] == "oom" and got[1]["ms"] == ""
    assert got[0]["window"] == "-1,-1" and got[0]["seqlen_q"] == "4096"


# ------------------------------------------------------------------------------------------------ compare
def write(tmp_path, name, rows, device="NVIDIA H200"):
    p = tmp_path / name
    write_json(make_doc(rows, device), str(p))
    return str(p)


def test_compare_ratios_and_threshold():
    old = make_doc([result("sdpa-flash", 1.0), result("rocflash-cuda", 10.0), result("naive", 4.0)])
    new = make_doc([result("sdpa-flash", 1.05), result("rocflash-cuda", 12.0), result("naive", None, status="oom")])
    rows, notes = compare.compare(old, new, threshold=0.10)
    by = {r.method: r for r in rows}
    assert by["sdpa-flash"].ratio == pytest.approx(1.05) and not by["sdpa-flash"].regression
    assert by["rocflash-cuda"].ratio == pytest.approx(1.2) and by["rocflash-cuda"].regression
    assert by["naive"].regression and "now oom" in by["naive"].reason
    rows, _ = compare.compare(old, new, threshold=0.25, methods=["rocflash-cuda"])
    assert [r.method for r in rows] == ["rocflash-cuda"] and not rows[0].regression
    with pytest.raises(ValueError, match=r"--threshold must be >= 0, got -0.1"):
        compare.compare(old, new, threshold=-0.1)


def test_compare_notes_unmatched_and_devices():
    old = make_doc([result("sdpa-flash", 1.0), result("naive", 2.0)], device="NVIDIA H200")
    new = make_doc([result("sdpa-flash", 0.9)], device="AMD Instinct MI50")
    rows, notes = compare.compare(old, new)
    assert len(rows) == 1 and rows[0].ratio == pytest.approx(0.9)
    assert any("only in old" in n for n in notes) and any("different devices" in n for n in notes)


def test_compare_main_exit_codes(tmp_path, capsys):
    a = write(tmp_path, "a.json", [result("sdpa-flash", 1.0), result("rocflash-cuda", 10.0)])
    same = write(tmp_path, "same.json", [result("sdpa-flash", 1.0), result("rocflash-cuda", 10.5)])
    slow = write(tmp_path, "slow.json", [result("sdpa-flash", 1.0), result("rocflash-cuda", 15.0)])
    assert compare.main([a, same]) == 0
    assert compare.main([a, slow]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION: 50.0% slower" in out and "1 regression(s)" in out
    assert compare.main([a, slow, "--threshold", "0.6"]) == 0
    other = write(tmp_path, "other.json", [result("naive", 1.0)])
    with pytest.raises(SystemExit) as e:
        compare.main([a, other])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        compare.main([a, str(tmp_path / "missing.json")])
    assert e.value.code == 2


def test_compare_script(tmp_path):
    """perf/compare.py as CI runs it: exit 1 on a regression."""
    a = write(tmp_path, "a.json", [result("rocflash-cuda", 10.0)])
    b = write(tmp_path, "b.json", [result("rocflash-cuda", 20.0)])
    proc = subprocess.run([sys.executable, str(ROOT / "perf" / "compare.py"), a, b], capture_output=True, text=True,
                          cwd=str(ROOT))
    assert proc.returncode == 1, proc.stderr
    assert "REGRESSION" in proc.stdout
    proc = subprocess.run([sys.executable, str(ROOT / "perf" / "compare.py"), a, a], capture_output=True, text=True,
                          cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    assert "1 compared, 0 regression(s)" in proc.stdout
