"""adv16's last defects of issue 8 (fixed by eco14) on the emulated gfx906 machine code (marker ``toolchain``, as
tests/test_emu_kernels.py; the same problems as tests/test_overflow_parameters.py on sim and torch and
tests/test_gpu_overflow_parameters.py on a GPU):

(A) fp32 q.k past FLT_MAX at softmax_scale 1e-37: the forward kernel's score float32(raw_fp64 * scale_log2)
    (VectorTileMath::qk_fp64) and the split-KV kernel's fp64 lane sums (one split and two + the combine kernel);
(B) ALiBi far rows through the split-KV kernel (the anchor split; one split and three + combine);
(C) the combine at |LSE| ~ 1e19: the splits' (m_s, l_s) statistics (2 and 3 splits).
(D) eco17: the fp32 split-KV kernel's lane-partial score (cancelling lanes; bitwise against the sim's lane model).
Functional semantics as the emulator reads the Vega ISA manual: no timing, not silicon.
"""
from __future__ import annotations

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from test_emu_kernels import _toolchain  # noqa: F401  (autouse: skip / fail without hipcc and clang++)

pytestmark = pytest.mark.toolchain


def _ref(q, k, v, args):
    return attention_reference(q.double(), k.double(), v.double(), args, torch.float64)


def _sum_past_float32():
    q = torch.ones(1, 1, 1, 4)
    k = torch.zeros(1, 2, 1, 4)
    k[0, 0], k[0, 1] = -8.5e37, -8.51e37  # q.k = -3.400e38 (a float32) and -3.404e38 (past it)
    v = torch.eye(4)[:2].view(1, 2, 1, 4)
    return q, k, v, _ref(q, k, v, FwdArgs(1e-37, -1, -1, 0.0, None))[0]


def test_emulated_fp32_forward_sum_past_float32():
    from rocflash.emu.driver import run_forward

    q, k, v, ref = _sum_past_float32()
    out, _, info = run_forward(q, k, v, softmax_scale=1e-37)
    err = (out.double() - ref).abs().max().item()
    assert err <= 1e-3, f"emulated {info['kernel']}: out {out.flatten().tolist()[:2]}, fp64 {ref.flatten().tolist()[:2]}"


@pytest.mark.parametrize("num_splits", [1, 2])
def test_emulated_splitkv_fp32_sum_past_float32(num_splits):
    from rocflash.emu.driver_varlen import run_forward_seq

    q, k, v, ref = _sum_past_float32()
    out, _, info = run_forward_seq(q, k, v, FwdArgs(1e-37, -1, -1, 0.0, None), num_splits=num_splits)
    assert info["kernels"][0].startswith("rocflash_fmha_fwd_splitkv_gfx9_fp32"), info["kernels"]
    err = (out.double() - ref).abs().max().item()
    assert err <= 1e-3, f"emulated {info['kernels']}: out {out.flatten().tolist()[:2]}"


@pytest.mark.parametrize("num_splits", [1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["fp32", "fp16"])
def test_emulated_splitkv_alibi_far_rows(dtype, num_splits):
    """seqlen_q 6 > seqlen_k 2 (GQA 2:1), slope 1e38: rows 0-3 far from both keys, every O finite (the full distance
    overflowed to -inf there: NaN rows)."""
    from rocflash.emu.driver_varlen import run_forward_seq

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, s, n, 64, generator=g).to(dtype) for s, n in ((6, 2), (2, 1), (2, 1)))
    slopes = torch.full((2,), 1e38, dtype=torch.float32)
    args = FwdArgs(64 ** -0.5, -1, -1, 0.0, slopes)
    ref, ref_lse = _ref(q, k, v, args)
    out, lse, info = run_forward_seq(q, k, v, args, num_splits=num_splits)
    assert info["kernels"][0].startswith("rocflash_fmha_fwd_splitkv_gfx9_"), info["kernels"]
    assert not out.isnan().any() and not lse.isnan().any(), f"NaN rows {out.isnan().any(-1).any(-1)[0].tolist()}"
    tol = 1e-5 if dtype == torch.float32 else 1e-2
    assert (out.double() - ref).abs().max().item() <= tol
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse.float()))
    fin = torch.isfinite(ref_lse)
    assert ((lse.double() - ref_lse)[fin].abs() <= 2e-3 * ref_lse[fin].abs().clamp(min=1)).all()


@pytest.mark.parametrize("num_splits", [2, 3])
def test_emulated_split_combine_large_lse(num_splits):
    """fp32 causal 9 x 130, every q.k = -1e20 (scores ~ -3.6e19): each row's O the mean of the V rows it sees."""
    from rocflash.emu.driver_varlen import run_forward_seq

    g = torch.Generator().manual_seed(5)
    q = torch.zeros(1, 9, 2, 16)
    q[..., 0] = 1.0
    k = torch.zeros(1, 130, 1, 16)
    k[..., 0] = -1e20
    v = torch.randn(1, 130, 1, 16, generator=g)
    args = FwdArgs(0.25, -1, 0, 0.0, None)
    ref, ref_lse = _ref(q, k, v, args)
    out, lse, info = run_forward_seq(q, k, v, args, num_splits=num_splits)
    assert info["num_splits"] == num_splits and len(info["kernels"]) == 2, info["kernels"]
    err = (out.double() - ref).abs().max().item()
    assert err <= 1e-4, f"emulated {info['kernels']}: max|out - ref| {err:.3g} (splits weighed equally?)"
    assert ((lse.double() - ref_lse).abs() <= 1e-6 * ref_lse.abs()).all()


def _cancelling_lanes():
    """fp32 d64, one query of ones; key 0 = (1e10, 3/62 x 62, -1e10): its products cancel across the split kernel's
    lanes (dims 0 and 63 are summed by different lanes), exact q.k 3.00003 (fp64 keeps it: ulp(1e10) ~ 2e-6); key 1 = 0.
    softmax_scale 1: fp64 out [0.9526, 0.0474]."""
    d = 64
    q = torch.ones(1, 1, 1, d)
    k = torch.zeros(1, 2, 1, d)
    k[0, 0, 0, 0], k[0, 0, 0, d - 1] = 1e10, -1e10
    k[0, 0, 0, 1:d - 1] = 3.0 / 62
    v = torch.eye(d)[:2].view(1, 2, 1, d)
    return q, k, v, _ref(q, k, v, FwdArgs(1.0, -1, -1, 0.0, None))[0]


def test_emulated_fp32_forward_cancelling_lanes_is_exact():
    """The dense fp32 forward sums q.k over headdim in fp64 before its one rounding: exact here (and the sim)."""
    from rocflash.emu.driver import run_forward

    q, k, v, ref = _cancelling_lanes()
    out, _, info = run_forward(q, k, v, softmax_scale=1.0)
    assert (out.double() - ref).abs().max().item() <= 1e-5, f"emulated {info['kernel']}: {out.flatten()[:2].tolist()}"


def _sim_split(q, k, v, softmax_scale, num_splits):
    import rocflash

    with torch.no_grad():
        return rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=k.shape[1], num_splits=num_splits,
                                                softmax_scale=softmax_scale, return_softmax_lse=True, backend="sim")


def _bits(x):
    return x.contiguous().view(torch.int32)


@pytest.mark.parametrize("num_splits", [1, 2])
def test_emulated_splitkv_fp32_cancelling_lanes(num_splits):
    """Was a strict xfail (adv17): the fp32 split-KV kernel rounds each lane's scaled fp64 partial of q.k to float32
    and adds the lanes in float32 (group_sum): partials that cancel across lanes (1e10 and -1e10 in lanes 0 and 15
    of d64's 16-lane key groups) lose the score: out [0.5, 0.5] where fp64 and the dense kernel give
    [0.9526, 0.0474]. eco17: the sim's split path models that arithmetic (sim_splitkv.lane_tree_fp32) and equals
    the emulated kernel bit for bit (O and LSE); both meet FlashAttention's rule against fp64 with eager float32
    (also 0.5 here: q.k sums to 0 in float32) as the low-precision baseline."""
    from rocflash.emu.driver_varlen import run_forward_seq

    q, k, v, ref = _cancelling_lanes()
    out, lse, info = run_forward_seq(q, k, v, FwdArgs(1.0, -1, -1, 0.0, None), num_splits=num_splits)
    assert info["kernels"][0].startswith("rocflash_fmha_fwd_splitkv_gfx9_fp32"), info["kernels"]
    sim_out, sim_lse = _sim_split(q, k, v, 1.0, num_splits)
    assert torch.equal(_bits(out), _bits(sim_out)) and torch.equal(_bits(lse), _bits(sim_lse)), (
        f"emulated {out.flatten()[:2].tolist()} {lse.flatten().tolist()}, sim {sim_out.flatten()[:2].tolist()} "
        f"{sim_lse.flatten().tolist()}")
    eager = torch.softmax((q[0, :, 0] @ k[0, :, 0].T) * 1.0, dim=-1) @ v[0, :, 0]  # eager float32
    tol = 2 * (eager.double() - ref[0, :, 0]).abs().max().item() + 1e-3
    err = (out.double() - ref).abs().max().item()
    assert err <= tol, f"emulated {info['kernels']}: err {err} > {tol}"


@pytest.mark.parametrize("d", [64, 128, 256])
def test_emulated_splitkv_fp32_scores_match_the_sim_bitwise(d, monkeypatch):
    """The score itself, bit for bit: with one key per row the split kernel's LSE is float32(m * ln 2) (exp2(0) = 1,
    log2(1) = 0), m the float32 score in log2 units. Random fp32 decode rows (seqlen_q 4, GQA 8:2, elements spread
    over 1e-2..1e2 so that the order of the sum shows): the emulated kernel's 32 LSEs equal the sim's split path's
    (sim_splitkv.lane_tree_fp32: d64's 16 lanes and d128 / d256's 32 lanes per key group, 1 and 2 vectors per lane)
    bit for bit; eco14's one-fp64-sum model differed in 15-20 of 32 here (checked below). With more keys O and LSE
    also carry the emulated exp2 / log2 / rcp against torch's (a few ulp of O; not compared bitwise)."""
    import rocflash
    import rocflash.backends.sim_splitkv as sim_splitkv
    from rocflash.emu.driver_varlen import run_forward_seq

    g = torch.Generator().manual_seed(d)
    spread = lambda: torch.logspace(-2, 2, d)[torch.randperm(d, generator=g)]  # noqa: E731
    q = torch.randn(1, 4, 8, d, generator=g) * spread()
    k = torch.randn(1, 1, 2, d, generator=g) * spread()
    v = torch.randn(1, 1, 2, d, generator=g)
    out, lse, info = run_forward_seq(q, k, v, FwdArgs(0.3, -1, -1, 0.0, None), num_splits=1)
    assert info["kernels"][0].startswith(f"rocflash_fmha_fwd_splitkv_gfx9_fp32_d{d}_"), info["kernels"]

    def sim():
        with torch.no_grad():
            return rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=1, num_splits=1, softmax_scale=0.3,
                                                    return_softmax_lse=True, backend="sim")
    sim_out, sim_lse = sim()
    assert torch.equal(_bits(lse), _bits(sim_lse)), f"{(lse != sim_lse).sum().item()} of {lse.numel()} LSEs differ"
    assert torch.equal(_bits(out), _bits(sim_out))
    monkeypatch.setattr(sim_splitkv, "lane_tree_fp32",
                        lambda qf, kt, threads_n, mult: (qf.double() @ kt.double().transpose(-1, -2) * mult).float())
    assert not torch.equal(_bits(lse), _bits(sim()[1])), "the one-fp64-sum model should differ here (the test's power)"


@pytest.mark.parametrize("num_splits", [0, 1, 3], ids=["dense", "split1", "split3"])
def test_emulated_alibi_no_key_rows_keep_neg_inf_lse(num_splits):
    """adv17: causal 4 x 1, slope -2e38: rows 0-2 see no key and their row shift is +inf in float32; the kernels add it
    only where l > 0 (LSE -inf, O 0), as the sim and the torch backend now do (tests/test_overflow_parameters.py)."""
    from rocflash.emu.driver import run_forward
    from rocflash.emu.driver_varlen import run_forward_seq

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, s, 1, 64, generator=g) for s in (4, 1, 1))
    slopes = torch.tensor([-2e38])
    if num_splits == 0:
        out, lse, _ = run_forward(q, k, v, softmax_scale=0.125, window_left=-1, window_right=0, alibi_slopes=slopes)
    else:
        out, lse, _ = run_forward_seq(q, k, v, FwdArgs(0.125, -1, 0, 0.0, slopes), num_splits=num_splits)
    assert (out[0, :3] == 0).all() and torch.isneginf(lse[0, 0, :3]).all(), lse.flatten().tolist()
    assert torch.isfinite(lse[0, 0, 3])


# ---------------------------------------------------------------- softcap: q.k past float32 at a small scale (eco16)
def _softcap_sum_past_float32():
    """q.k = -3.400e38 / -3.404e38, softmax_scale 1e-38, softcap 5: fp64 out [0.5006, 0.4994] (adv17: [0.885, 0.115]
    when the cap's argument came from the float32 q.k, -inf past FLT_MAX)."""
    q, k, v, _ = _sum_past_float32()
    args = FwdArgs(1e-38, -1, -1, 5.0, None)
    return q, k, v, args, _ref(q, k, v, args)[0]


@pytest.mark.parametrize("num_splits", [0, 1, 2], ids=["dense", "split1", "split2"])
def test_emulated_fp32_softcap_sum_past_float32(num_splits):
    """The cap's argument t = float32(q.k_fp64 * cap_scale) (ScoreTransform::fp64_multiplier with softcap) in the
    dense forward's qk_fp64 and the split-KV kernel's lane sums."""
    from rocflash.emu.driver import run_forward
    from rocflash.emu.driver_varlen import run_forward_seq

    q, k, v, args, ref = _softcap_sum_past_float32()
    if num_splits == 0:
        out, _, info = run_forward(q, k, v, softmax_scale=1e-38, softcap=5.0)
        kernels = [info["kernel"]]
    else:
        out, _, info = run_forward_seq(q, k, v, args, num_splits=num_splits)
        kernels = info["kernels"]
        assert kernels[0].startswith("rocflash_fmha_fwd_splitkv_gfx9_fp32"), kernels
    err = (out.double() - ref).abs().max().item()
    assert err <= 1e-3, f"emulated {kernels}: out {out.flatten().tolist()[:2]}, fp64 {ref.flatten().tolist()[:2]}"


@pytest.mark.parametrize("from_lse", [False, True], ids=["stats", "from-lse"])
def test_emulated_fp32_softcap_sum_past_float32_backward(from_lse):
    """The backward's score and dS's factor 1 - tanh^2(t) from the same t (fmha_bwd_kernel.h tile_s_and_dp,
    softcap_grad_factor): with the forward's statistics (the dQ kernel's statistics pass first) and from the LSE."""
    from rocflash.emu.driver import reference_grads, run_backward, run_forward

    q, k, v, args, ref = _softcap_sum_past_float32()
    do = torch.randn(1, 1, 1, 4, generator=torch.Generator().manual_seed(3))
    kw = dict(softmax_scale=1e-38, softcap=5.0)
    out, lse, finfo = run_forward(q, k, v, with_stats=True, **kw)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, do, stats=None if from_lse else finfo["softmax_stats"], **kw)
    want = reference_grads(q, k, v, do, args, torch.float64)
    for name, got, w in (("dq", dq, want[0]), ("dv", dv, want[2])):
        err = (got.double() - w).abs().max().item()
        assert err <= 1e-3, f"emulated {info['kernels']}: {name} {got.flatten().tolist()} vs {w.flatten().tolist()}"
