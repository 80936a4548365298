"""rocflash.perf timing, input rotation, the sliced fp64 reference, methods and presets (CPU)."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from rocflash.perf import errors, methods, timing
from rocflash.perf.cases import PRESETS, Case, apply_overrides, case_from_dict, expand_preset, resolve_presets
from rocflash.perf.models import row_bounds

ROOT = Path(__file__).resolve().parent.parent
CPU = torch.device("cpu")


# ------------------------------------------------------------------------------------------------ timing
def test_summarize():
    t = timing.summarize([float(x) for x in range(1, 101)], warmup=2)
    assert t.median_ms == 50.5 and t.min_ms == 1.0 and t.repeats == 100 and t.warmup == 2
    assert t.p95_ms == pytest.approx(95.05)  # linear interpolation, inclusive method
    assert timing.summarize([3.0]).p95_ms == 3.0
    with pytest.raises(ValueError, match="at least one time"):
        timing.summarize([])


def test_plan_respects_budget_and_bounds():
    assert timing.plan(0.01, warmup=10, repeats=50, min_repeats=3, budget_s=1.0) == (10, 50)
    # a 300 ms call with a 1 s budget: one warm-up, the minimum of 3 repeats
    assert timing.plan(300.0, warmup=10, repeats=50, min_repeats=3, budget_s=1.0) == (1, 3)
    assert timing.plan(20.0, warmup=10, repeats=50, min_repeats=3, budget_s=1.0) == (10, 37)


def test_measure_rotates_inputs():
    hits = [0, 0, 0]

    def make(i):
        def f():
            hits[i] += 1
        return f

    t = timing.measure([make(0), make(1), make(2)], CPU, warmup=3, repeats=9, min_repeats=1, budget_s=10.0,
                       estimate_ms=0.001)
    assert t.repeats == 9 and t.warmup == 3
    assert hits == [4, 4, 4]  # 12 calls spread evenly over the 3 sets


def test_n_input_sets():
    l2 = 50 << 20
    assert timing.n_input_sets(400 << 20, l2) == (3, "")  # big sets: the minimum of 3
    assert timing.n_input_sets(10 << 20, l2) == (10, "")  # together 2x the L2
    assert timing.n_input_sets(1, l2)[0] == 64  # capped
    n, note = timing.n_input_sets(10 << 30, l2, free_bytes=25 << 30)
    assert n == 1 and "memory" in note


def test_peak_memory_on_cpu_is_none():
    mem, ms = timing.peak_extra_memory(lambda: torch.ones(10), CPU)
    assert mem is None and ms >= 0


# ---------------------------------------------------------------------------------------------- reference
def test_choose_slice():
    small = Case(batch=2, seqlen_q=64, seqlen_k=64, nheads=4, nheads_k=4, headdim=32)
    assert errors.choose_slice(small, 1 << 30).full
    big = Case(batch=4, seqlen_q=16384, seqlen_k=16384, nheads=32, nheads_k=32, headdim=128)
    sl = errors.choose_slice(big, 1 << 30)
    assert not sl.full and sl.batch == 1 and sl.kv_heads == 2 and 1 <= sl.rows < 16384
    assert errors.reference_bytes(big, 1, 2, sl.rows) <= 1 << 30 < errors.reference_bytes(big, 1, 2, sl.rows + 1)
    assert sl.describe(big) == f"batch 0, heads 0-1, last {sl.rows} of 16384 query rows"
    gqa = Case(batch=8, seqlen_q=1, seqlen_k=131072, nheads=32, nheads_k=8, headdim=128)
    sl = errors.choose_slice(gqa, 1 << 20)
    assert sl.kv_heads == 1 and sl.rows == 1  # one K/V head with its 4 query heads


@pytest.mark.parametrize("causal,window", [(True, (-1, -1)), (False, (5, 3)), (True, (7, -1))])
@pytest.mark.parametrize("sq,sk", [(48, 80), (80, 48), (64, 64)])
def test_sliced_reference_keeps_bottom_right_alignment(causal, window, sq, sk):
    """The slice keeps the last query rows, so its reference equals the same rows of the full reference."""
    case = Case(batch=2, seqlen_q=sq, seqlen_k=sk, nheads=4, nheads_k=2, headdim=16, dtype="fp32", causal=causal,
                window_left=window[0], window_right=window[1] if not causal else -1)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, s, h, 16, generator=g) for s, h in ((sq, 4), (sk, 2), (sk, 2)))
    full, _ = attention_reference(q.double(), k.double(), v.double(),
                                  FwdArgs(0.25, case.window_left, case.right, 0.0, None), torch.float64)
    sl = errors.RefSlice(batch=1, kv_heads=1, rows=20, full=False)
    ref = errors.reference(q, k, v, case, sl)
    assert torch.allclose(ref, errors.slice_output(full, case, sl), atol=1e-12, equal_nan=True)
    assert errors.max_abs_error(full.float(), ref, case, sl) < 1e-5


def test_max_error_reports_nan():
    case = Case(batch=1, seqlen_q=4, seqlen_k=4, nheads=1, nheads_k=1, headdim=8, dtype="fp32")
    sl = errors.RefSlice(1, 1, 4, True)
    out = torch.zeros(1, 4, 1, 8)
    out[0, 1, 0, 3] = float("nan")
    assert str(errors.max_abs_error(out, torch.zeros(1, 4, 1, 8, dtype=torch.float64), case, sl)) == "nan"


# ----------------------------------------------------------------------------------------------- methods
def test_parse_methods():
    assert methods.parse_methods(["sdpa,naive"], "cuda") == ["sdpa-flash", "sdpa-efficient", "sdpa-cudnn",
                                                              "sdpa-math", "naive"]
    assert methods.parse_methods(["rocflash", "torch"], "hip") == ["rocflash-hip", "rocflash-torch"]
    assert methods.parse_methods(["rocflash", "math"], "cuda") == ["rocflash-cuda", "sdpa-math"]
    assert "rocflash-sim" not in methods.parse_methods(["all"], None)
    assert methods.parse_methods(["cuda,cuda-deterministic"], "cuda") == ["rocflash-cuda", "rocflash-cuda-deterministic"]
    with pytest.raises(ValueError, match=r"--backends: each name must be one of .*got 'triton'"):
        methods.parse_methods(["naive,triton"], None)
    assert methods.default_methods("cuda")[0] == "rocflash-cuda"
    assert "rocflash-sim" not in methods.default_methods(None)


@pytest.mark.parametrize("method", ["naive", "sdpa-math", "sdpa-flash", "rocflash-torch"])
@pytest.mark.parametrize("sq,sk,causal,window,hk", [(40, 100, True, (-1, -1), 2), (100, 40, True, (-1, -1), 4),
                                                    (64, 80, False, (16, 8), 2), (1, 256, False, (-1, -1), 1)])
def test_methods_match_reference_on_cpu(method, sq, sk, causal, window, hk):
    """SDPA gets a bottom-right mask, GQA, windows: every method agrees with the fp64 reference."""
    case = Case(batch=2, seqlen_q=sq, seqlen_k=sk, nheads=4, nheads_k=hk, headdim=32, dtype="fp32", causal=causal,
                window_left=window[0], window_right=window[1])
    sets = methods.make_inputs(case, 2, CPU)
    try:
        prep = methods.prepare(method, case, sets, CPU)
        with prep.context():
            out = prep.calls[1].fn()
    except RuntimeError as e:  # e.g. a CPU SDPA backend that refuses the mask
        pytest.skip(f"{method} unsupported here: {e}")
    assert out.shape == (2, sq, 4, 32)
    ref = errors.reference(sets[1].q, sets[1].k, sets[1].v, case, errors.RefSlice(2, hk, sq, True))
    seen = row_bounds(sq, sk, case.window_left, case.right)[2] > 0
    assert seen.any()
    # rows that see a key: finite and equal to the reference; fully masked rows: 0 (flash-attn) or NaN (softmax
    # of all -inf, as naive attention and SDPA produce)
    assert torch.isfinite(out[:, seen]).all()
    assert (out[:, seen].double() - ref[:, seen]).abs().max() < 1e-5
    masked = out[:, ~seen]
    assert bool(((masked == 0) | torch.isnan(masked)).all())


def test_top_left_causal_would_be_caught():
    """The check above can fail: SDPA's own is_causal (top-left) differs from the reference for sq != sk."""
    import torch.nn.functional as F

    case = Case(batch=1, seqlen_q=40, seqlen_k=100, nheads=2, nheads_k=2, headdim=16, dtype="fp32", causal=True)
    s = methods.make_inputs(case, 1, CPU)[0]
    top_left = F.scaled_dot_product_attention(s.q.transpose(1, 2), s.k.transpose(1, 2), s.v.transpose(1, 2),
                                              is_causal=True).transpose(1, 2)
    ref = errors.reference(s.q, s.k, s.v, case, errors.RefSlice(1, 2, 40, True))
    assert (top_left.double() - ref).abs().max() > 1e-2


def test_rocflash_compiled_unavailable_on_cpu():
    case = Case(batch=1, seqlen_q=8, seqlen_k=8, nheads=1, nheads_k=1, headdim=8)
    with pytest.raises(methods.Unavailable) as e:
        methods.prepare("rocflash-cuda", case, methods.make_inputs(case, 1, CPU), CPU)
    assert e.value.status == "unavailable"


def test_make_inputs_for_backward():
    case = Case(batch=1, seqlen_q=8, seqlen_k=12, nheads=2, nheads_k=1, headdim=8, dtype="bf16", direction="fwd+bwd")
    sets = methods.make_inputs(case, 3, CPU)
    assert len(sets) == 3 and sets[0].q.requires_grad and sets[0].dout.shape == (1, 8, 2, 8)
    assert sets[0].k.dtype == torch.bfloat16 and not torch.equal(sets[0].q, sets[1].q)
    assert case.input_bytes() == (2 * 8 * 2 * 8 + 2 * 12 * 8) * 2


# ----------------------------------------------------------------------------------------------- presets
def test_builtin_presets():
    default = expand_preset(PRESETS["default"], "default")
    issue2 = [c for c in default if (c.batch, c.nheads, c.seqlen_q, c.seqlen_k, c.headdim, c.dtype, c.causal)
              == (4, 32, 4096, 4096, 128, "fp16", False)]
    assert len(issue2) == 1 and issue2[0].batch * issue2[0].nheads == 128  # issue 2's required case
    train = expand_preset(PRESETS["train"], "train")
    assert {c.seqlen_q for c in train} == {1024, 2048, 4096, 8192, 16384}
    assert {c.headdim for c in train} == {64, 128} and {c.causal for c in train} == {False, True}
    assert all(c.batch * c.nheads * c.seqlen_q == 524288 for c in train)
    decode = expand_preset(PRESETS["decode"], "decode")
    assert all(c.seqlen_q == 1 and c.nheads_k < c.nheads and c.seqlen_k >= 4096 for c in decode)
    smoke = expand_preset(PRESETS["smoke"], "smoke")
    assert all(c.flop < 1e8 for c in smoke)


def test_overrides_and_dedup():
    train = resolve_presets(["train"])
    causal = apply_overrides(train, causal=True)
    assert len(causal) == len(train) // 2 and all(c.causal for c in causal)
    bf = apply_overrides(resolve_presets(["default", "default"]), dtype="bf16", bwd=True)
    assert len(bf) == 3 and all(c.dtype == "bf16" and c.direction == "fwd+bwd" for c in bf)


@pytest.mark.parametrize("entry,pattern", [
    ({"seqlen": 8, "nheads": 2, "headdim": 8, "batch": 1, "heads": 3}, r"case fields must be among .*got 'heads'"),
    ({"seqlen": 8, "nheads": 2, "headdim": 8}, r"a case needs batch or tokens"),
    ({"seqlen": 8, "nheads": 3, "nheads_k": 2, "headdim": 8, "batch": 1}, r"nheads must be a multiple of nheads_k"),
    ({"seqlen": 8, "nheads": 2, "headdim": 8, "batch": 1, "dtype": "fp64"},
     r"case field dtype must be one of fp16, bf16, fp32, got 'fp64'"),
    ({"seqlen": 8, "nheads": 2, "headdim": 8, "batch": 1, "causal": True, "window": [4, 2]},
     r"window right must be -1 or 0 with causal, got 2"),
    ({"seqlen": 0, "nheads": 2, "headdim": 8, "batch": 1}, r"case field seqlen_q must be an int >= 1, got 0"),
])
def test_case_errors(entry, pattern):
    with pytest.raises(ValueError, match=pattern):
        case_from_dict(entry)


def test_preset_errors():
    with pytest.raises(ValueError, match=r"--preset must be one of default, train, decode, decode-paged, smoke or a .yaml file, "
                                         r"got 'x'"):
        resolve_presets(["x"])
    with pytest.raises(ValueError, match=r"no such file"):
        resolve_presets(["/nonexistent/p.yaml"])
    with pytest.raises(ValueError, match=r"grid field seqlen must be a non-empty list"):
        expand_preset({"defaults": {"batch": 1, "nheads": 1, "headdim": 8}, "grid": {"seqlen": 5}})


def test_yaml_preset_file():
    pytest.importorskip("yaml")
    cases = resolve_presets([str(ROOT / "perf" / "presets" / "mi50.yaml")])
    assert len(cases) == 10 and all(c.preset == "mi50" for c in cases)
    sweep = [c for c in cases if c.headdim == 64]
    assert sorted({c.seqlen_q for c in sweep}) == [1024, 2048, 4096, 8192]
    assert all(c.batch == max(1, 131072 // (32 * c.seqlen_q)) for c in sweep)
    assert statistics.mean(c.causal for c in sweep) == 0.5


def test_case_dict_roundtrip():
    c = Case(batch=2, seqlen_q=5, seqlen_k=9, nheads=4, nheads_k=2, headdim=16, dtype="bf16", causal=True,
             window_left=3, window_right=0, direction="fwd+bwd", preset="p", name="n")
    d = c.to_dict()
    assert d["window"] == [3, 0] and "window_left" not in d
    assert Case.from_dict(d) == c
