"""The ck backend's own forward and backward (rocflash.backends.ck: buffers, the training forward's float32 O,
D handed to dq_dk_dv, GQA sums, the masked-garbage handling of rocflash.backends.ck_masked) run end to end on
CPU tensors, with the module's launches replaced by the CPU evaluations of CK's semantics over exactly the
args structs and tensors the binding built (tests/test_ck_args.py ck_forward, tests/test_ck_bwd_args.py
ck_backward: masked scores -inf, masked P multiplying V and dS multiplying K inside the visited tiles).

- Accuracy (issue 11 (a)): D from the float32 O keeps dq / dk within FlashAttention's backward rule at large
  softmax_scale, where D from the fp16-rounded O (what CK's dot_do_o computes) leaves it.
- Masked garbage (issue 8 item 3): NaN / inf in K / V rows a query row cannot see (causal, windows,
  seqlen_q != seqlen_k, GQA) changes nothing for that row, forward and backward, and the rows that do see it
  get the torch reference's NaN pattern; without the handling the same evaluation lets the NaN through.

Nothing here executes CK: this checks what rocflash passes and computes around it, not CK's arithmetic.
"""

from __future__ import annotations

import contextlib
import dataclasses

import pytest
import torch

from rocflash import varlen as varlen_api
from rocflash.backends import FwdArgs, ck_masked, reference
from rocflash.backends import ck as ck_backend
from rocflash.ck import args as ck
from rocflash.ck.configs import load_ck_instances
from conftest import assert_close_to_reference, assert_grads_close
from test_ck_args import ck_forward
from test_ck_bwd_args import TensorMemory, ck_backward

ARCH = "gfx942"


class _FakeCuda:
    @staticmethod
    def device(_):
        return contextlib.nullcontext()

    @staticmethod
    def current_stream(_):
        return type("S", (), {"cuda_stream": 0})()

    @staticmethod
    def current_device():
        return 0


def as_instance_reads(inst, a):
    """The args as the compiled instance ``inst`` reads them: a field its template traits do not read is dropped
    (logits_soft_cap without the soft-cap trait, bias_ptr without ALiBi), so a call whose argument the instance
    would silently ignore fails the comparison instead of being evaluated as if it were honoured. A mode mismatch
    (group args on a batch instance, an ALiBi instance without slopes) cannot launch correctly: AssertionError."""
    assert a.group_mode == inst.group_mode, f"{inst.name}: group-mode args {a.group_mode} on this instance"
    assert bool(a.bias_ptr) or not inst.alibi, f"{inst.name}: an ALiBi instance launched without slopes"
    drop = {}
    if not inst.alibi:
        drop.update(bias_ptr=0, stride_bias=0)
    if hasattr(a, "logits_soft_cap") and not inst.softcap:
        drop.update(logits_soft_cap=0.0)
    return dataclasses.replace(a, **drop) if drop else a


def install_evaluators(monkeypatch) -> list[str]:
    """rocflash.backends.ck with rocflash._C_ck's fwd / bwd replaced by the CPU evaluations over the tensors the
    binding handed to the args structs (its ``_tensor``); returns the list of launched instance names."""
    handed, launched = [], []
    real_tensor = ck_backend._tensor
    instances = {i.name: i for i in load_ck_instances()}

    def tensor(t):
        handed.append(t)
        return real_tensor(t)

    def fwd(name, family, fields, stream):
        ck_forward(TensorMemory(handed), as_instance_reads(instances[name], ck.FmhaFwdArgs(**fields)),
                   bm0=instances[name].tile[0])
        launched.append(name)
        handed.clear()
        return 0.0

    def bwd(name, family, fields, stream):
        inst = instances[name]
        ck_backward(TensorMemory(handed), as_instance_reads(inst, ck.FmhaBwdArgs(**fields)), bm0=inst.tile[0],
                    bn0=inst.tile[1],
                    deterministic=inst.deterministic)
        launched.append(name)
        handed.clear()
        return 0.0

    module = type("M", (), {"fwd": staticmethod(fwd), "bwd": staticmethod(bwd)})()
    monkeypatch.setattr(ck_backend, "_tensor", tensor)
    monkeypatch.setattr(ck_backend, "load_module", lambda: module)
    monkeypatch.setattr(ck_backend.torch, "cuda", _FakeCuda)
    # varlen's index rules as torch ops on these CPU tensors: the built HIP module's check kernel cannot run here
    real_checks = varlen_api.device_checks
    monkeypatch.setattr(varlen_api, "device_checks", lambda *a, **kw: real_checks(*a, **{**kw, "platform": None}))
    return launched


@pytest.fixture
def ck_on_cpu(monkeypatch):
    return install_evaluators(monkeypatch)


def _run(q, k, v, dout, args, *, deterministic=False, d_from_rounded_out=False):
    """The ck backend's training forward and backward as ops.fwd / ops.bwd call them: (out, lse, dq, dk, dv)."""
    out, lse, out32 = ck_backend.forward(q, k, v, args, ARCH, with_out_fp32=True)
    dq, dk, dv = ck_backend.backward(dout, q, k, v, out, lse, args, ARCH, deterministic,
                                     out_fp32=None if d_from_rounded_out else out32)
    return out, lse, dq, dk, dv


# ------------------------------------------------------------------ (a) D from the float32 O at large scale


def _large_scale_case(seed, scale, causal, d=128, seqlen=96, h=2):
    """fp16 standard-normal inputs (tests/cp_check.py's generator): peaked rows at |softmax_scale| ~100."""
    g = torch.Generator().manual_seed(seed)
    q, k, v, dout = (torch.randn(1, seqlen, h, d, generator=g).half() for _ in range(4))
    return q, k, v, dout, FwdArgs(scale, -1, 0 if causal else -1, 0.0, None)


# (causal, seed, softmax_scale); (False, 1, 100.0): D from the fp16-rounded O gives dq 2.01 against the rule's
# 3 * 0.253 + 1e-3 (2.6x past it); with D from the float32 O it passes
ROUNDED_O_FAILS = (False, 1, 100.0)
LARGE_SCALE_CASES = [ROUNDED_O_FAILS, (False, 0, 100.0), (False, 2, -100.0), (False, 3, 30.0), (True, 0, 100.0),
                     (True, 1, 100.0), (True, 2, 30.0), (True, 3, 15.0)]


def test_training_forward_writes_o_in_float32(ck_on_cpu):
    q, k, v, dout, args = _large_scale_case(0, 0.125, True, d=64, seqlen=20)
    out, lse, out32 = ck_backend.forward(q, k, v, args, ARCH, with_out_fp32=True)
    assert ck_on_cpu[-1].endswith("_batch_o32") and out32.dtype == torch.float32
    assert out.dtype == q.dtype and torch.equal(out, out32.to(q.dtype))
    out_inf, _, none = ck_backend.forward(q, k, v, args, ARCH)
    assert ck_on_cpu[-1].endswith("_qr_batch") and none is None and torch.equal(out_inf, out)


@pytest.mark.parametrize("causal,seed,scale", LARGE_SCALE_CASES)
def test_backward_within_rule_at_large_scale(ck_on_cpu, causal, seed, scale):
    """fp16 headdim 128, |softmax_scale| 15-100 (the backward range's upper part): every gradient within
    FlashAttention's rule against fp64, with D from the float32 O."""
    q, k, v, dout, args = _large_scale_case(seed, scale, causal)
    _, _, dq, dk, dv = _run(q, k, v, dout, args)
    assert ck_on_cpu[0].endswith("_batch_o32") and "_bwd_fp16_d128_" in ck_on_cpu[1]
    assert_grads_close((dq, dk, dv), q, k, v, dout, args, f"ck causal={causal} seed={seed} scale={scale:g}")


def test_d_from_rounded_out_leaves_the_rule(ck_on_cpu):
    """The same evaluation with D from O rounded to fp16 (what CK's dot_do_o computes) leaves the rule on
    ROUNDED_O_FAILS: the test above can fail, and the float32 O is what keeps it inside the rule."""
    causal, seed, scale = ROUNDED_O_FAILS
    q, k, v, dout, args = _large_scale_case(seed, scale, causal)
    _, _, dq, dk, dv = _run(q, k, v, dout, args, d_from_rounded_out=True)
    with pytest.raises(AssertionError, match="dq max"):
        assert_grads_close((dq, dk, dv), q, k, v, dout, args, "D from the rounded O")


# ------------------------------------------------------------------ (b) garbage in masked K / V rows


def test_row_and_key_ranges_are_the_mask():
    """ck_masked's [lo, hi) per query row and per key are exactly flash-attn's bottom-right mask
    (rocflash.masks.MaskRule), over seqlen_q <, =, > seqlen_k, causal, windows of every side, empty rows."""
    from rocflash.masks import MaskRule
    for sq, sk in ((1, 1), (5, 9), (9, 5), (17, 17), (3, 40), (40, 3)):
        for left, right in ((-1, 0), (-1, -1), (0, 0), (2, 1), (4, -1), (-1, 3), (0, 7), (30, 0)):
            args = FwdArgs(1.0, left, right, 0.0, None)
            grid = MaskRule(sq, sk, left, right).visible_grid(torch.arange(sq), torch.arange(sk))
            lo, hi = ck_masked.row_key_range(sq, sk, args, "cpu")
            j = torch.arange(sk).view(1, -1)
            assert torch.equal((j >= lo.view(-1, 1)) & (j < hi.view(-1, 1)), grid), (sq, sk, left, right)
            lo, hi = ck_masked.key_row_range(sq, sk, args, "cpu")
            i = torch.arange(sq).view(-1, 1)
            assert torch.equal((i >= lo.view(1, -1)) & (i < hi.view(1, -1)), grid), (sq, sk, left, right)


def test_any_in_range_counts_flags():
    g = torch.Generator().manual_seed(0)
    flags = torch.rand(2, 30, 3, generator=g) < 0.1
    lo = torch.randint(0, 30, (50,), generator=g)
    hi = torch.maximum(lo, torch.randint(0, 31, (50,), generator=g))
    got = ck_masked.any_in_range(flags, lo, hi)
    want = torch.stack([flags[:, a:b].any(dim=1) for a, b in zip(lo.tolist(), hi.tolist())], dim=1)
    assert torch.equal(got, want)


# (seqlen_q, seqlen_k, nheads, nheads_k, window_left, window_right, garbage key rows, deterministic)
MASKED_CASES = [
    (100, 100, 2, 1, -1, 0, (90,), False),  # issue 8's case: key 90, rows 0-89 cannot see it
    (40, 130, 4, 2, -1, 0, (100, 129), False),  # causal, seqlen_q < seqlen_k
    (130, 40, 2, 2, -1, 0, (5, 39), True),  # causal, seqlen_q > seqlen_k: fully masked rows
    (70, 90, 2, 1, 10, 5, (0, 44, 89), False),  # sliding window: garbage on both sides of each row's window
    (64, 64, 3, 3, 0, 0, (1, 63), False),  # the diagonal alone
]


def _garbage_case(sq, sk, h, hk, rows, d=64):
    """fp16 inputs with garbage in the given key rows: NaN in K, and NaN / +inf / -inf in some V columns."""
    g = torch.Generator().manual_seed(sq * 1000 + sk)
    q, dout = (torch.randn(1, sq, h, d, generator=g).half() for _ in range(2))
    k, v = (torch.randn(1, sk, hk, d, generator=g).half() for _ in range(2))
    for n, r in enumerate(rows):
        k[0, r, n % hk, :: 3] = float("nan")
        v[0, r, :, n % 5::5] = (float("nan"), float("inf"), float("-inf"))[n % 3]
    return q, k, v, dout


def _same(name, got, want, atol):
    """NaN exactly where the reference has NaN; elsewhere close (fp16 outputs)."""
    got = got.double()
    assert torch.equal(torch.isnan(got), torch.isnan(want)), \
        f"{name}: NaN at {(torch.isnan(got) != torch.isnan(want)).nonzero()[:5].tolist()} (got vs reference)"
    ok = ~torch.isnan(want)
    torch.testing.assert_close(got[ok], want[ok], rtol=1e-2, atol=atol, msg=lambda m: f"{name}: {m}")


@pytest.mark.parametrize("case", MASKED_CASES, ids=lambda c: f"{c[0]}x{c[1]}_w{c[4]},{c[5]}")
def test_masked_garbage_contributes_nothing(ck_on_cpu, case):
    """Forward and backward of the ck backend against the torch reference (fp64) with garbage in masked rows:
    rows that cannot see a garbage key are exact, rows that can get the documented NaN pattern (forward: K as
    IEEE gives, V's non-finite columns NaN; backward: dq of such rows and dk of the keys they see NaN, dv NaN
    only for keys seen by rows that see a non-finite K element; tests/test_nan_semantics.py)."""
    sq, sk, h, hk, left, right, rows, deterministic = case
    q, k, v, dout = _garbage_case(sq, sk, h, hk, rows)
    args = FwdArgs(64 ** -0.5, left, right, 0.0, None)
    out, lse, dq, dk, dv = _run(q, k, v, dout, args, deterministic=deterministic)
    q64, k64, v64, do64 = (t.double() for t in (q, k, v, dout))
    ref_out, ref_lse = reference.attention_reference(q64, k64, v64, args, compute_dtype=torch.float64)
    ref = reference.explicit_backward(q64, k64, v64, do64, args)
    assert torch.isnan(ref_out).any() and (~torch.isnan(ref_out)).any()  # the case has both kinds of rows
    _same("out", out, ref_out, 2e-3)
    _same("lse", lse, ref_lse.double(), 1e-4)
    for name, got, want in zip(("dq", "dk", "dv"), (dq, dk, dv), ref):
        _same(name, got, want, 2e-2)


def test_without_the_handling_nan_reaches_rows_that_cannot_see_it(ck_on_cpu, monkeypatch):
    """The same evaluation of CK's pipelines with the raw inputs (ck_masked's handling switched off): the NaN in
    V row 90 reaches rows 0-89 of a causal call, forward and backward (the test above can fail)."""
    monkeypatch.setattr(ck_masked, "is_masked", lambda args: False)
    q, k, v, dout = _garbage_case(100, 100, 2, 1, (90,))
    out, _, dq, _, _ = _run(q, k, v, dout, FwdArgs(0.125, -1, 0, 0.0, None))
    assert torch.isnan(out[0, :90]).any() and torch.isnan(dq[0, :90]).any()


# ------------------------------------------------------------------ ALiBi through the backend (alibi instances)


@pytest.mark.parametrize("per_batch", [False, True])
@pytest.mark.parametrize("sq,sk,left,right", [(40, 70, -1, 0), (70, 40, -1, 0), (50, 50, -1, -1), (60, 80, 9, 4)])
def test_alibi_forward_and_backward_within_rule(ck_on_cpu, per_batch, sq, sk, left, right):
    """The ck backend's training forward and backward with ALiBi (fp16, GQA 4:2, headdim 96 on the d128
    instances): the alibi_o32 and bwd alibi instances are launched, out / LSE and every gradient within
    FlashAttention's rule against fp64. Slopes come as the user gives them ((nheads,) or (batch, nheads),
    non-contiguous here); the backend hands CK a contiguous float32 copy."""
    g = torch.Generator().manual_seed(sq * 7 + sk)
    q, dout = (torch.randn(2, sq, 4, 96, generator=g).half() for _ in range(2))
    k, v = (torch.randn(2, sk, 2, 96, generator=g).half() for _ in range(2))
    slopes = (torch.rand(4, 2, generator=g).T if per_batch else torch.rand(8, generator=g)[::2]) * 0.5
    args = FwdArgs(96 ** -0.5, left, right, 0.0, slopes)
    out, lse, dq, dk, dv = _run(q, k, v, dout, args)
    assert ck_on_cpu[0].endswith("_qr_alibi_o32") and ck_on_cpu[1].endswith("_kr_alibi"), ck_on_cpu
    assert_close_to_reference(out, lse, q, k, v, args, "ck alibi")
    assert_grads_close((dq, dk, dv), q, k, v, dout, args, "ck alibi")
    out_inf, lse_inf, _ = ck_backend.forward(q, k, v, args, ARCH)
    assert ck_on_cpu[-1].endswith("_qr_alibi") and torch.equal(out_inf, out)


# ------------------------------------------------------------------ the grid sizes are part of the mapping (adv11)


@pytest.mark.parametrize("which,field", [("fwd_args", "max_seqlen_q"), ("bwd_args", "max_seqlen_q"),
                                         ("bwd_args", "max_seqlen_k")])
def test_a_short_grid_fails_the_comparison(ck_on_cpu, monkeypatch, which, field):
    """CK's grids come from max_seqlen_q (forward query tiles, in batch mode too; convert_dq's row blocks) and
    max_seqlen_k (dq_dk_dv's key tiles): the evaluation leaves the rows / keys past them unwritten (NaN), so an
    args struct with a grid field too small fails the comparison the right one passes (seqlen 150 and 260: past
    one forward tile of 128 rows, one convert_dq block of 64 and one backward key tile of 128)."""
    g = torch.Generator().manual_seed(7)
    q, dout = (torch.randn(1, 150, 2, 64, generator=g).half() for _ in range(2))
    k, v = (torch.randn(1, 260, 1, 64, generator=g).half() for _ in range(2))
    args = FwdArgs(0.125, -1, 0, 0.0, None)
    real = getattr(ck, which)
    monkeypatch.setattr(ck, which, lambda *a, **kw: dataclasses.replace(real(*a, **kw), **{field: 1}))
    out, lse, dq, dk, dv = _run(q, k, v, dout, args)
    with pytest.raises(AssertionError):
        assert_close_to_reference(out, lse, q, k, v, args, "short grid")
        assert_grads_close((dq, dk, dv), q, k, v, dout, args, "short grid")
