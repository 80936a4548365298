"""``python -m rocflash.perf`` end to end on the CPU (the smoke preset, seconds) and its argument errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rocflash.perf import models
from rocflash.perf.results import SCHEMA, load_json

ROOT = Path(__file__).resolve().parent.parent


def run_perf(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "rocflash.perf", *args], capture_output=True, text=True,
                          cwd=str(ROOT), env=env, timeout=timeout)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    d = tmp_path_factory.mktemp("perf")
    paths = {k: str(d / f"out.{k}") for k in ("json", "csv", "png")}
    t0 = time.time()
    proc = run_perf("--preset", "smoke", "--device", "cpu", "--arch", "MI50", "--budget-s", "0.2",
                    "--json", paths["json"], "--csv", paths["csv"], "--plot", paths["png"])
    return proc, paths, time.time() - t0


def test_smoke_runs_and_writes_everything(smoke):
    proc, paths, seconds = smoke
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert seconds < 60  # CI budget: well under a minute on a 2-core machine
    doc = load_json(paths["json"])
    assert doc["schema"] == SCHEMA and doc["device"]["type"] == "cpu" and doc["arch"]["key"] == "MI50"
    methods = doc["settings"]["methods"]
    assert methods == ["rocflash-torch", "sdpa-flash", "sdpa-math", "naive"]
    assert len(doc["results"]) == 5 * len(methods)
    with open(paths["csv"], newline="") as f:
        assert len(list(csv.DictReader(f))) == len(doc["results"])
    if not proc.stderr.count("matplotlib is not installed"):
        assert Path(paths["png"]).stat().st_size > 10_000
    out = proc.stdout
    assert "rocflash.perf on" in out and "-- b1 h2 q128 k128 d32 fp32" in out and "status: ok" in out


def test_smoke_results_are_consistent(smoke):
    proc, paths, _ = smoke
    doc = json.load(open(paths["json"]))
    for r in doc["results"]:
        c = r["case"]
        assert r["status"] == "ok", (r["case_id"], r["method"], r["note"])
        assert r["flop"] == models.attention_flops(c["batch"], c["nheads"], c["seqlen_q"], c["seqlen_k"], c["headdim"],
                                                   c["window"][0], 0 if c["causal"] else c["window"][1])
        assert r["ms_p95"] >= r["ms"] >= r["ms_min"] > 0 and r["repeats"] >= 3 and r["input_sets"] >= 3
        assert r["tflops"] == pytest.approx(r["flop"] / r["ms"] / 1e9)
        assert r["gbps"] == pytest.approx(r["bytes"] / r["ms"] / 1e6)
        assert r["peak_kind"] in ("fp32", "packed_fp16") and r["bound"] in ("memory", "compute")
        tol = 2e-2 if c["dtype"] == "bf16" else 1e-5  # naive attention in bf16 is the loosest
        assert r["max_err"] <= tol, (r["case_id"], r["method"], r["max_err"])
        assert r["err_scope"] == "full"
        assert r["speedup"] > 0 and r["baseline"].startswith("sdpa-")
    causal_sq_ne_sk = [r for r in doc["results"] if r["case_id"] == "b1_h2_q40_k100_d32_fp32_causal_fwd"
                       and r["method"].startswith("sdpa")]
    assert causal_sq_ne_sk and all("causal_lower_right" in r["note"] for r in causal_sq_ne_sk)


def test_bwd_end_to_end(tmp_path):
    out = tmp_path / "bwd.json"
    proc = run_perf("--preset", "smoke", "--device", "cpu", "--bwd", "--backends", "torch,naive",
                    "--budget-s", "0.05", "--repeats", "5", "--warmup", "1", "--json", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = load_json(str(out))
    assert {r["status"] for r in doc["results"]} == {"ok"}
    for r in doc["results"]:
        c = r["case"]
        assert c["direction"] == "fwd+bwd" and r["case_id"].endswith("_fwd+bwd")
        fwd = models.attention_flops(c["batch"], c["nheads"], c["seqlen_q"], c["seqlen_k"], c["headdim"],
                                     c["window"][0], 0 if c["causal"] else c["window"][1])
        assert r["flop"] == pytest.approx(3.5 * fwd)


def test_backend_without_backward_is_na(monkeypatch):
    """A method whose backward raises NotImplementedError reports n/a (today: none on the CPU, so a fake one)."""
    import torch

    from rocflash.perf import errors, methods, runner
    from rocflash.perf.cases import Case

    class NoBwd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q):
            return q.clone()

        @staticmethod
        def backward(ctx, dout):
            raise NotImplementedError("the backward pass is not implemented by backend 'fake' yet")

    def fake_prepare(method, case, sets, device):
        return methods.Prepared([methods.Call(lambda s=s: NoBwd.apply(s.q), (s.q,), s.dout) for s in sets])

    monkeypatch.setattr(methods, "prepare", fake_prepare)
    case = Case(batch=1, seqlen_q=8, seqlen_k=8, nheads=1, nheads_k=1, headdim=8, dtype="fp32", direction="fwd+bwd")
    device = torch.device("cpu")
    sets = methods.make_inputs(case, 3, device)
    a = runner.build_parser().parse_args([])
    ref = {"slice": errors.choose_slice(case, 1 << 20)}
    r = runner.run_one(case, "rocflash-hip", sets, device, a, None, 0.1, ref)
    assert r.status == "n/a" and "not implemented" in r.note and r.ms is None
    fwd_case = Case(batch=1, seqlen_q=8, seqlen_k=8, nheads=1, nheads_k=1, headdim=8, dtype="fp32")
    r = runner.run_one(fwd_case, "rocflash-hip", methods.make_inputs(fwd_case, 3, device), device, a, None, 0.1,
                       {"slice": ref["slice"]})
    assert r.status == "ok" and r.ms > 0 and r.max_err > 0.1  # the fake is not attention: the error shows it


def test_rocprof_without_gpu_says_so():
    proc = run_perf("--preset", "smoke", "--device", "cpu", "--backends", "naive", "--rocprof", "--budget-s", "0.05",
                    "--no-progress")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "--rocprof: no GPU, nothing to profile" in proc.stdout


@pytest.mark.parametrize("args,message", [
    (["--dtype", "fp64"], "--dtype must be one of fp16, bf16, fp32, got fp64"),
    (["--backends", "triton"], "--backends: each name must be one of"),
    (["--preset", "huge"], "--preset must be one of default, train, decode, decode-paged, smoke or a .yaml file, got 'huge'"),
    (["--arch", "MI8"], "--arch must be one of MI50"),
    (["--budget-s", "0"], "--budget-s must be > 0, finite, got 0.0"),
    (["--device", "tpu"], "--device must be auto, cpu, cuda or cuda:N, got tpu"),
    (["--baseline", "fa3"], "--baseline must be one of"),
])
def test_argument_errors(args, message):
    proc = run_perf(*args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_list():
    proc = run_perf("--list")
    assert proc.returncode == 0
    assert "H200" in proc.stdout and "measured: matrix_fp16, hbm_tbps" in proc.stdout and "smoke" in proc.stdout


def test_plot_from_json(smoke, tmp_path):
    pytest.importorskip("matplotlib")
    proc, paths, _ = smoke
    png = tmp_path / "again.png"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "rocflash.perf.plot", paths["json"], str(png)], capture_output=True,
                       text=True, cwd=str(ROOT), env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
