"""Our real gfx906 kernels executed on the emulator (rocflash.emu) against the fp64 reference.

Each case compiles the instance the dispatcher would pick for gfx906 (hipcc, device-only, cached under
``$ROCFLASH_CACHE_DIR/emu``), fills the params struct at the offsets of the headers' layout, launches every
workgroup and checks FlashAttention's tolerance: max|out - ref| <= 2 * max|eager_lowprec - ref| + 1e-3
(backward 3x), outputs poisoned with NaN. Small shapes that still have full and boundary tiles, GQA, causal
with seqlen_q != seqlen_k, a sliding window, both load paths and all three dtypes. This is functional
semantics as the emulator reads the Vega ISA manual: no timing, not silicon.

Marked ``toolchain`` (needs hipcc and clang++ for the layout dump; under CI=true a missing tool fails).
Bounded cost: about a minute on 2 cores when the compile cache is cold. The larger sweep is
``python perf/emu_sweep.py``.
"""

from __future__ import annotations

import math

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from conftest import require_hip_toolchain

pytestmark = pytest.mark.toolchain

DT = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


@pytest.fixture(scope="module", autouse=True)
def _toolchain():
    require_hip_toolchain()


def _inputs(dtype, b, sq, sk, h, hk, d, seed):
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g).to(DT[dtype])  # noqa: E731
    return mk(b, sq, h, d), mk(b, sk, hk, d), mk(b, sk, hk, d), mk(b, sq, h, d)


def _check(out, ref, low, factor, what):
    err = (out.double() - ref.double()).abs().max().item()
    tol = factor * (low.double() - ref.double()).abs().max().item() + 1e-3
    assert not out.isnan().any(), f"{what}: NaN (unwritten or wrong) elements"
    assert err <= tol, f"{what}: max error {err:.3g} > tolerance {tol:.3g}"


# (dtype, batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, window_left, window_right, aligned)
FWD_CASES = [
    pytest.param("fp16", 1, 40, 72, 2, 1, 32, -1, 0, True, id="fp16-d32-gqa-causal-sq<sk-vec"),
    pytest.param("fp16", 1, 20, 33, 1, 1, 24, 6, 3, False, id="fp16-d24-window-narrow"),
    pytest.param("fp16", 1, 40, 30, 1, 1, 32, -1, 0, True, id="fp16-d32-causal-sq>sk-fully-masked-rows"),
    pytest.param("bf16", 1, 30, 17, 1, 1, 64, -1, -1, True, id="bf16-d64-sq>sk-vec"),
    pytest.param("fp32", 1, 33, 40, 1, 1, 32, -1, 0, False, id="fp32-d32-causal-narrow"),
]


@pytest.mark.parametrize("dtype,b,sq,sk,h,hk,d,wl,wr,aligned", FWD_CASES)
def test_emulated_forward_matches_fp64(dtype, b, sq, sk, h, hk, d, wl, wr, aligned):
    from rocflash.emu.driver import run_forward

    q, k, v, _ = _inputs(dtype, b, sq, sk, h, hk, d, seed=sq * 131 + sk)
    args = FwdArgs(1 / math.sqrt(d), wl, wr, 0.0, None)
    out, lse, info = run_forward(q, k, v, softmax_scale=args.softmax_scale, window_left=wl, window_right=wr,
                                 aligned=aligned)
    assert info["kernel"].endswith("_vec" if aligned else "_narrow")
    ref, ref_lse = attention_reference(q, k, v, args, compute_dtype=torch.float64)
    low, _ = attention_reference(q, k, v, args, compute_dtype=DT[dtype])
    _check(out, ref, low, 2, f"forward {info['kernel']}")
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), finite)
    assert (lse[finite].double() - ref_lse[finite].double()).abs().max().item() < 1e-3


def test_emulated_forward_independent_of_wave_order():
    """Waves of a workgroup run in reverse order, or randomly interleaved every few instructions, give the
    same bits: no result depends on an ordering that s_barrier does not enforce."""
    from rocflash.emu.driver import run_forward

    q, k, v, _ = _inputs("fp16", 1, 40, 72, 2, 1, 32, seed=7)
    a, la, _ = run_forward(q, k, v, window_right=0)
    for order in ("reverse", "interleave:16:3"):
        b, lb, _ = run_forward(q, k, v, window_right=0, order=order)
        assert torch.equal(a, b) and torch.equal(la, lb), order


def _training_backward(q, k, v, do, args: FwdArgs, low_dtype):
    """The whole training chain on the emulated gfx906 code: the forward with its softmax statistics, then the
    backward from them (causal when args.window_right == 0). Returns ((dq, dk, dv), info, fp64 reference grads,
    low_dtype eager grads)."""
    from rocflash.emu.driver import reference_grads, run_backward, run_forward

    mask = dict(softmax_scale=args.softmax_scale, window_left=args.window_left, window_right=args.window_right,
                softcap=args.softcap, alibi_slopes=args.alibi_slopes)
    out, lse, finfo = run_forward(q, k, v, **mask, with_stats=True)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, do, **mask, stats=finfo["softmax_stats"])
    return ((dq, dk, dv), info, reference_grads(q, k, v, do, args, torch.float64),
            reference_grads(q, k, v, do, args, low_dtype))


def _rule_ratios(grads, ref, low) -> dict:
    """error / FlashAttention's backward bound (3 max|low - ref| + 1e-3) per gradient; <= 1 passes."""
    return {name: (g.double() - r).abs().max().item() / (3 * (lo.double() - r).abs().max().item() + 1e-3)
            for name, g, r, lo in zip(("dq", "dk", "dv"), grads, ref, low)}


def test_emulated_backward_matches_fp64():
    from rocflash.emu.driver import reference_grads, run_backward, run_forward

    dtype, (b, sq, sk, h, hk, d) = "fp16", (1, 24, 40, 2, 1, 32)
    q, k, v, do = _inputs(dtype, b, sq, sk, h, hk, d, seed=11)
    args = FwdArgs(1 / math.sqrt(d), -1, 0, 0.0, None)
    # The whole chain on the emulator: the forward's O and softmax statistics feed the backward kernels.
    out, lse, finfo = run_forward(q, k, v, softmax_scale=args.softmax_scale, window_right=0, with_stats=True)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, do, softmax_scale=args.softmax_scale, window_right=0,
                                   stats=finfo["softmax_stats"])

    ref = reference_grads(q, k, v, do, args, torch.float64)
    low = reference_grads(q, k, v, do, args, DT[dtype])
    for name, g, r, lo in zip(("dq", "dk", "dv"), (dq, dk, dv), ref, low):
        _check(g, r, lo, 3, f"backward {name} ({', '.join(info['kernels'])})")


def test_emulated_backward_from_fp32_out_at_scale_15():
    """The gfx906 machine code of the training forward stores O in float32 too (every element, rounding to out
    bit for bit) and the backward's preprocess reads it for D: peaked ALiBi rows at softmax_scale 15 in fp16,
    where D from the rounded O left the rule, meet it (tests/test_fuzz.py has the sim's case)."""
    from rocflash.emu.driver import reference_grads, run_backward, run_forward

    dtype, (b, sq, sk, h, hk, d) = "fp16", (1, 17, 24, 2, 2, 32)
    q, k, v, do = _inputs(dtype, b, sq, sk, h, hk, d, seed=13)
    slopes = torch.rand(h, generator=torch.Generator().manual_seed(14)) * 2
    args = FwdArgs(15.0, -1, 0, 0.0, slopes)
    out, lse, finfo = run_forward(q, k, v, softmax_scale=15.0, window_right=0, alibi_slopes=slopes, with_stats=True)
    out32 = finfo["out_fp32"]
    assert not out32.isnan().any() and torch.equal(out32.to(out.dtype), out)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, do, softmax_scale=15.0, window_right=0, alibi_slopes=slopes,
                                   stats=finfo["softmax_stats"], out_fp32=out32)
    ref = reference_grads(q, k, v, do, args, torch.float64)
    low = reference_grads(q, k, v, do, args, DT[dtype])
    for name, g, r, lo in zip(("dq", "dk", "dv"), (dq, dk, dv), ref, low):
        _check(g, r, lo, 3, f"backward {name} from the fp32 O ({', '.join(info['kernels'])})")
    # D from the rounded O puts dq / dk at 0.75 / 0.89 of the rule's bound here (the sim), from the fp32 O at 0.01:
    # a preprocess that ignored o_fp32 would pass the rule, not this
    for name, g, r, lo in zip(("dq", "dk"), (dq, dk), ref, low):
        err, bound = (g.double() - r).abs().max().item(), 3 * (lo.double() - r).abs().max().item() + 1e-3
        assert err <= 0.2 * bound, f"{name}: {err:.3g} > 0.2 * {bound:.3g}: D not from the fp32 O?"


def test_emulated_fp32_statistics_pass_on_one_hot_rows():
    """The gfx906 machine code of the fp32 backward as launched for a training backward: the dQ kernel's
    statistics pass first (hip_src/fmha_bwd_kernel.h own_row_stats), then dK/dV from the statistics and D it
    wrote. At softmax_scale 100, headdim 32, most rows' float32 softmax is exactly one-hot: their dq must be
    exactly 0, as float32 autograd gives (D from O left it about 2^-24 |dO| |V| |K| * 100 off), and every
    gradient within the rule."""
    dtype, (b, sq, sk, h, hk, d) = "fp32", (1, 20, 24, 1, 1, 32)
    q, k, v, do = _inputs(dtype, b, sq, sk, h, hk, d, seed=17)
    (dq, dk, dv), info, ref, low = _training_backward(q, k, v, do, FwdArgs(100.0, -1, 0, 0.0, None), torch.float32)
    assert "statistics pass" in info["kernels"][0]
    for name, g, r, lo in zip(("dq", "dk", "dv"), (dq, dk, dv), ref, low):
        _check(g, r, lo, 3, f"backward {name} ({', '.join(info['kernels'])})")
    one_hot = (low[0] == 0).all(-1)  # (b, sq, h): rows whose eager float32 dq is exactly 0
    assert one_hot.float().mean() > 0.3, "the inputs must saturate rows"
    assert torch.equal(dq[one_hot], torch.zeros_like(dq[one_hot]))


def test_emulated_fp32_two_key_rows_shifted_score():
    """The gfx906 machine code of the fp32 training backward on rows whose softmax splits over two keys (issue 8,
    adv15's class; fp32 causal, softmax_scale 100, headdim 32, seed 25): the kernels form x = S2 - m from S's fp64
    sum, rounded once (hip_src/fmha_common.h ScoreTransform::shifted_log2, the kShifted variant of both gradient
    kernels). With the float32 S2 (main 83c58ed) the sim left the rule here by 1.47x; the shifted score puts every
    gradient under 0.05 of it on the sim, and the emulated kernels must stay under 0.25."""
    dtype, (b, sq, sk, h, hk, d) = "fp32", (1, 20, 24, 2, 1, 32)
    q, k, v, do = _inputs(dtype, b, sq, sk, h, hk, d, seed=25)
    grads, info, ref, low = _training_backward(q, k, v, do, FwdArgs(100.0, -1, 0, 0.0, None), torch.float32)
    assert "statistics pass" in info["kernels"][0]
    for name, ratio in _rule_ratios(grads, ref, low).items():
        assert ratio <= 0.25, f"{name}: {ratio:.3g} of the rule > 0.25 (the float32 S2 gave 1.47x on the sim)"


def test_emulated_fp32_two_key_rows_shifted_score_alibi():
    """The case above with ALiBi (slopes 0.70 / 0.39, torch.rand(2) * 4 of seed 1025): the kShifted variant takes
    ALiBi too since eco13 (issue 8): x = S * scale_log2 - m from S's fp64 sum, rounded once, then ALiBi's term
    subtracted in float32 (hip_src/fmha_common.h ScoreTransform::shifted_alibi_log2). With ALiBi in the float32
    score (the kernels before eco13) the sim left the rule here by 2.01x (dq; dk 1.92x) and the emulated kernels
    reached 0.875x (their ALiBi score rounds in another place); with the shifted score both give 0.004x. The
    emulated kernels must stay under 0.25 of the rule (main's fail that)."""
    dtype, (b, sq, sk, h, hk, d) = "fp32", (1, 20, 24, 2, 1, 32)
    q, k, v, do = _inputs(dtype, b, sq, sk, h, hk, d, seed=25)
    slopes = torch.rand(h, generator=torch.Generator().manual_seed(1025)) * 4
    grads, info, ref, low = _training_backward(q, k, v, do, FwdArgs(100.0, -1, 0, 0.0, slopes), torch.float32)
    assert "statistics pass" in info["kernels"][0]
    for name, ratio in _rule_ratios(grads, ref, low).items():
        assert ratio <= 0.25, f"{name}: {ratio:.3g} of the rule > 0.25 (ALiBi in the float32 score: 2.01x, sim)"


def test_emulated_fp32_alibi_far_rows():
    """ALiBi rows far from every key on the gfx906 machine code (issue 8; the fp32 d32 kernels of the test above):
    the forward's LSE carries each row's constant (ScoreTransform::row_shift) to float32 rounding, and both
    backwards meet the rule. The first backward uses the forward's statistics (the dQ kernel's statistics pass).
    The second rebuilds P from the LSE alone (stats_from_lse subtracts the constant; without that, P is
    exp(slope * distance) off). softmax_scale 50: the fp32 FMA chain the score product used before (an fp32
    rounding per headdim step) left dq 1.22x the rule here (RESULTS "eco9"); the fp64 sum of the exact products
    (hip_src/fmha_tile_math.h tile_rowdot_fp64, emulated v_fma_f64) meets it (RESULTS "eco10")."""
    from rocflash.emu.driver import reference_grads, run_backward, run_forward

    dtype, (b, sq, sk, h, hk, d) = "fp32", (1, 40, 3, 2, 1, 32)
    q, k, v, do = _inputs(dtype, b, sq, sk, h, hk, d, seed=11)
    slopes = torch.rand(h, generator=torch.Generator().manual_seed(12)) * 10
    args = FwdArgs(50.0, -1, -1, 0.0, slopes)
    out, lse, finfo = run_forward(q, k, v, softmax_scale=50.0, alibi_slopes=slopes, with_stats=True)
    _, ref_lse = attention_reference(q.double(), k.double(), v.double(), args, torch.float64)
    assert (lse.double() - ref_lse).abs().max() <= 64 * 2.0**-24 * ref_lse.abs().max(), "LSE lost the row constant"
    ref = reference_grads(q, k, v, do, args, torch.float64)
    low = reference_grads(q, k, v, do, args, torch.float32)
    for stats in (finfo["softmax_stats"], None):
        dq, dk, dv, info = run_backward(q, k, v, out, lse, do, softmax_scale=50.0, alibi_slopes=slopes, stats=stats)
        # from the LSE: the preprocess and both gradient kernels, no statistics pass (as compiled.backward; before
        # eco15 the driver ran the statistics pass on the LSE's stats here)
        assert ("statistics pass" in info["kernels"][0]) == (stats is not None), info["kernels"]
        for name, g, r, lo in zip(("dq", "dk", "dv"), (dq, dk, dv), ref, low):
            _check(g, r, lo, 3, f"backward {name} ({', '.join(info['kernels'])})")


def test_emulated_fp32_alibi_far_rows_from_lse():
    """tests/test_fp32_alibi_far_rows.py's case (softmax_scale 100, headdim 32, 3 keys, seed 11; 200 rows, 2
    heads) through the gfx906 backward from the LSE alone, as the H200's test_gpu_alibi_far_rows[100.0-32-3-11-dtype0]
    runs it after the autograd check: with main 89495f5's kernels dv 1.36x the rule here (and 1.21x on the
    softmax_scale 50, headdim 128 case: the two fp32 cases the H200 failed), eco15's within it."""
    from rocflash.emu.driver import run_backward, run_forward
    from test_fp32_alibi_far_rows import CASES, _inputs as far_inputs, _rule

    q, k, v, do, slopes, args = far_inputs(*CASES[2])
    out, lse, _ = run_forward(q, k, v, softmax_scale=args.softmax_scale, alibi_slopes=slopes)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, do, softmax_scale=args.softmax_scale, alibi_slopes=slopes)
    assert not any("statistics pass" in n for n in info["kernels"]), info["kernels"]
    _rule((dq, dk, dv), q, k, v, do, args)


def test_emulated_fp32_one_key_rows_from_lse():
    """The gfx906 backward from an LSE alone rebuilds P = 1 bit for bit on one-key rows (its float32 score is the
    forward's: hip_src/fmha_bwd_kernel.h tile_s_and_dp, eco15; tests/test_fp32_alibi_far_rows.py has the sim's and
    the GPU's case). 16 heads of one row and one key, headdim 32, softmax_scale 50: with main 89495f5's kernels
    (float32(S) * scale_log2 in the backward) 7 of the 15 rows whose m survives the LSE got P != 1 (the sim)."""
    from rocflash.emu.driver import run_backward, run_forward
    from test_fp32_alibi_far_rows import _check_one_key_rows, _one_key_rows

    q, k, v, do, args = _one_key_rows(seed=2, heads=16, hd=32)
    out, lse, finfo = run_forward(q, k, v, softmax_scale=args.softmax_scale, with_stats=True)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, do, softmax_scale=args.softmax_scale)
    assert not any("statistics pass" in n for n in info["kernels"]), info["kernels"]
    _check_one_key_rows(finfo["softmax_stats"], lse, (dq, dk, dv), do, f"emulated {', '.join(info['kernels'])}")


def test_emulated_fp32_varlen_statistics_pass():
    """The varlen backward of fp32 on the emulator (driver_varlen mirrors compiled.varlen_backward): the dQ
    kernel's statistics pass over each sequence's keys, then dK/dV; every gradient of both sequences within the
    rule at softmax_scale 100."""
    from rocflash.backends import SeqArgs, sim
    from rocflash.emu.driver_varlen import run_backward_seq
    from conftest import assert_grads_close

    g = torch.Generator().manual_seed(5)
    q, k, v, do = (torch.randn(30, 1, 32, generator=g) for _ in range(4))
    cu = torch.tensor([0, 12, 30], dtype=torch.int32)
    seq = SeqArgs(cu_seqlens_q=cu, cu_seqlens_k=cu, seqused_k=None, max_seqlen_q=18, max_seqlen_k=18)
    args = FwdArgs(100.0, -1, 0, 0.0, None)
    out, _, stats, _ = sim.varlen_forward(q, k, v, seq, args, with_stats=True)
    dq, dk, dv, info = run_backward_seq(q, k, v, out, stats, do, args, seq)
    assert info["kernels"][0].endswith("(statistics pass)")
    for lo, hi in ((0, 12), (12, 30)):
        s = slice(lo, hi)
        assert_grads_close((dq[s][None], dk[s][None], dv[s][None]), q[s][None], k[s][None], v[s][None], do[s][None],
                           args, f"sequence {lo}:{hi}")


def test_cycle_model_trace_counts_the_tile_products():
    """The cycle model's trace of one full forward workgroup executes exactly the dot2 work of its tiles:
    S = Q.K^T and O += P.V, each block_m * seqlen_k * headdim / 2 lane-dot2s, over 64 lanes per instruction."""
    import numpy as np

    from rocflash.emu.cycles import _traced_launches, group_cost
    from rocflash.emu.driver import kernel_image, run_forward

    img = kernel_image("fwd", "fp16", 32, True)
    bm, sk, d = img.config.block_m, 2 * img.config.block_n, 32
    q, k, v, _ = _inputs("fp16", 1, bm, sk, 1, 1, d, seed=5)
    (prog, waves), = _traced_launches(lambda: run_forward(q, k, v, aligned=True))
    dot2 = [i for i, ins in enumerate(prog.kernel.instructions) if ins.mnemonic.startswith("v_dot2")]
    executed = sum(int(np.isin(np.asarray(w.trace), dot2).sum()) for w in waves)
    assert executed == 2 * bm * sk * (d // 2) // 64
    cost = group_cost(prog, waves)
    assert cost.dot2 == 4 * executed / len(waves) and cost.simd >= cost.valu >= cost.dot2 > 0 and cost.lds > 0


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_emulated_one_key_rows_exact(dtype):
    """The gfx906 machine code of the 16-bit training backward on rows that see one key (window (0, 0): each row
    only its own key), softcap, softmax_scale 50: the preprocess sums D's dO . O part with the v_dot2 fold of the
    tiles' dP (hip_src/fmha_bwd_kernel.h fmha_bwd_preprocess_kernel) and its dO . (O_fp32 - O) part is 0 there,
    so dS = P * (dP - D) = 0 and dq, dk are exactly 0, as autograd gives (tests/test_one_key_rows.py: the sim and
    the compiled kernels)."""
    from rocflash.emu.driver import reference_grads, run_backward, run_forward

    b, sq, sk, h, hk, d = 1, 40, 40, 2, 1, 32
    q, k, v, do = _inputs(dtype, b, sq, sk, h, hk, d, seed=23)
    kw = dict(softmax_scale=50.0, window_left=0, window_right=0, softcap=20.0)
    out, lse, finfo = run_forward(q, k, v, with_stats=True, **kw)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, do, stats=finfo["softmax_stats"], out_fp32=finfo["out_fp32"], **kw)
    assert torch.equal(dq, torch.zeros_like(dq)) and torch.equal(dk, torch.zeros_like(dk)), (
        f"dq, dk of one-key rows must be exactly 0: max {dq.abs().max()}, {dk.abs().max()}")
    args = FwdArgs(50.0, 0, 0, 20.0, None)
    _check(dv, reference_grads(q, k, v, do, args, torch.float64)[2], reference_grads(q, k, v, do, args, DT[dtype])[2],
           3, f"backward dv ({', '.join(info['kernels'])})")
