"""flash_attn_varlen_func on the ck backend (CK's group mode; rocflash.backends.ck_varlen), proven without a GPU:
the public call runs end to end on CPU tensors with rocflash._C_ck's launches replaced by the CPU evaluations of
CK's semantics over exactly the args structs and tensors the binding built (tests/test_ck_eval.py
install_evaluators; test_ck_args.ck_forward / test_ck_bwd_args.ck_backward in group mode: seqstart_q/k,
per-sequence bottom-right masks, masked scores -inf, masked P and dS multiplying V and K in visited tiles), and
compared per sequence with fp64 under FlashAttention's rule: uneven and empty sequences, sequences without keys,
causal with seqlen_q < and > seqlen_k per sequence, sliding windows, GQA; NaN in masked keys changes nothing.
Also the routing: what goes to CK's group mode, what stays on rocflash's hip kernel, what raises.

Nothing here executes CK: this checks what rocflash passes and computes around it, not CK's arithmetic.
"""

from __future__ import annotations

import pytest
import torch

import rocflash
import rocflash.varlen as varlen
from rocflash import selector
from rocflash.backends import FwdArgs, ck, ck_masked
from rocflash.selector import DeviceProbe, Selection
from test_ck_eval import _same, install_evaluators
from varlen_ref import assert_sequence_grads_close, assert_sequences_close, cu, rand_packed, split_rows

MI300X = DeviceProbe("cuda", "hip", "gfx942", "AMD Instinct MI300X", 64, 65536)


def _select_ck(monkeypatch, probed: bool):
    """The selector answers ck (by probe or by argument) for the CPU tensors of these tests, on an MI300X."""
    monkeypatch.setattr(varlen, "select_backend", lambda device, backend: Selection("ck", "test", probed)
                        if backend in (None, "ck") else Selection(backend, "backend= argument"))
    monkeypatch.setattr(selector, "probe_device", lambda device: MI300X)
    monkeypatch.setattr(selector, "check_compiled_backend", lambda platform, device: None)


@pytest.fixture
def ck_varlen_on_cpu(monkeypatch):
    launched = install_evaluators(monkeypatch)
    _select_ck(monkeypatch, probed=False)
    return launched


# (lens_q, lens_k, nheads, nheads_k, window): an empty sequence, a sequence without keys, one past a key tile,
# seqlen_q < and > seqlen_k
CASES = [
    ([5, 0, 70, 17, 1, 3], [9, 3, 150, 11, 30, 0], 4, 2, (-1, 0)),
    ([5, 0, 70, 17, 1, 3], [9, 3, 150, 11, 30, 0], 4, 2, (-1, -1)),
    ([33, 12, 40], [20, 12, 64], 2, 1, (6, 0)),
    ([33, 12, 40], [20, 12, 64], 6, 3, (5, 3)),
]


@pytest.mark.parametrize("dtype", [torch.float16])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"w{c[4][0]},{c[4][1]}_h{c[2]}:{c[3]}")
def test_varlen_forward_and_backward_on_group_mode(ck_varlen_on_cpu, dtype, case):
    lens_q, lens_k, h, hk, (left, right) = case
    q, k, v = rand_packed(lens_q, lens_k, h, hk, 96, dtype, seed=len(lens_q) + h)
    dout = torch.randn(q.shape, generator=torch.Generator().manual_seed(5)).to(dtype)
    causal = right == 0 and left == -1
    window = (-1, -1) if causal else (left, right)
    qg, kg, vg = (t.clone().requires_grad_(True) for t in (q, k, v))
    out, lse, _ = rocflash.flash_attn_varlen_func(qg, kg, vg, cu(lens_q), cu(lens_k), max(lens_q), max(lens_k),
                                                  causal=causal, window_size=window, return_attn_probs=True)
    out.backward(dout)
    fwd_name, bwd_name = ck_varlen_on_cpu
    assert fwd_name.endswith("_qr_group_o32") and bwd_name.endswith("_kr_group"), ck_varlen_on_cpu
    args = FwdArgs(96 ** -0.5, left, right, 0.0, None)
    qs, ks, vs = split_rows(q, lens_q), split_rows(k, lens_k), split_rows(v, lens_k)
    assert assert_sequences_close(out.detach(), lse, qs, list(zip(ks, vs)), args, "ck varlen") >= 2
    assert_sequence_grads_close((qg.grad, kg.grad, vg.grad), q, k, v, dout, lens_q, lens_k, args, "ck varlen")


def test_varlen_inference_runs_the_group_instance(ck_varlen_on_cpu):
    lens_q, lens_k = [7, 0, 40], [12, 5, 33]
    q, k, v = rand_packed(lens_q, lens_k, 4, 4, 128, torch.float16)
    out = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), 40, 33, causal=True)
    assert ck_varlen_on_cpu == [ck_varlen_on_cpu[0]] and ck_varlen_on_cpu[0].endswith("_qr_group")
    assert_sequences_close(out, None, split_rows(q, lens_q), list(zip(split_rows(k, lens_k), split_rows(v, lens_k))),
                           FwdArgs(128 ** -0.5, -1, 0, 0.0, None), "ck varlen inference")


@pytest.mark.parametrize("causal,window,garbage", [(True, (-1, -1), (20, 26 + 9 + 35)), (False, (4, 2), (26 + 9 + 20,))])
def test_varlen_masked_garbage_contributes_nothing(ck_varlen_on_cpu, causal, window, garbage):
    """NaN in K and inf in V rows that only some rows of their sequence can see (per-sequence bottom-right
    causal / window): forward and backward have the torch reference's NaN pattern exactly (the rows that cannot
    see them exact, within 1e-2), as on the dense path (tests/test_ck_eval.py)."""
    lens_q, lens_k = [20, 9, 30], [26, 9, 40]
    q, k, v = rand_packed(lens_q, lens_k, 2, 1, 64, torch.float16, seed=11)
    for r in garbage:
        k[r, :, ::3], v[r, :, 1::4] = float("nan"), float("inf")
    dout = torch.randn(q.shape, generator=torch.Generator().manual_seed(2)).half()
    got, want = [], []
    for backend, dt in ((None, torch.float16), ("torch", torch.float64)):
        qg, kg, vg = (t.detach().to(dt).clone().requires_grad_(True) for t in (q, k, v))
        out = rocflash.flash_attn_varlen_func(qg, kg, vg, cu(lens_q), cu(lens_k), 30, 40, causal=causal,
                                              window_size=window, backend=backend)
        out.backward(dout.to(dt))
        (got if backend is None else want).append((out.detach(), qg.grad, kg.grad, vg.grad))
    assert ck_varlen_on_cpu[-2].endswith("_group_o32") and ck_varlen_on_cpu[-1].endswith("_kr_group")
    assert torch.isnan(want[0][0]).any() and (~torch.isnan(want[0][0])).any()  # both kinds of rows
    for name, g, w, atol in zip(("out", "dq", "dk", "dv"), got[0], want[0], (2e-3, 2e-2, 2e-2, 2e-2)):
        _same(name, g, w, atol)


def test_varlen_without_the_handling_nan_reaches_other_rows(ck_varlen_on_cpu, monkeypatch):
    monkeypatch.setattr(ck_masked, "is_masked", lambda args: False)
    lens_q, lens_k = [20, 9, 30], [26, 9, 40]
    q, k, v = rand_packed(lens_q, lens_k, 2, 1, 64, torch.float16, seed=11)
    v[25] = float("nan")  # sequence 0's last key: causal rows 0-18 of that sequence cannot see it
    out = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), 30, 40, causal=True)
    assert torch.isnan(out[:19]).any()


def test_varlen_routing(monkeypatch):
    """Probe-chosen ck: covered calls to CK's group mode; ALiBi varlen, deterministic, a headdim past 128 and
    paged K/V to rocflash's hip kernel. backend='ck' asked for: the same calls raise NotImplementedError naming
    the reason, before any launch."""
    monkeypatch.setattr(varlen, "backend_functions", lambda name: None)
    q = torch.zeros(4, 2, 64, dtype=torch.float16)
    args = FwdArgs(0.125, -1, 0, 0.0, None)
    calls = {
        "covered": ((q, args, False, True, False), "ck:gfx942"),
        "inference": ((q, args, False, False, False), "ck:gfx942"),
        "bf16 inference": ((q.bfloat16(), args, False, False, False), "ck:gfx942"),
        "alibi": ((q, FwdArgs(0.125, -1, 0, 0.0, torch.ones(2)), False, True, False), "alibi_slopes"),
        "deterministic": ((q, args, False, True, True), "deterministic"),
        # no group instance has the soft-cap trait: CK would ignore logits_soft_cap (adv11)
        "softcap inference": ((q, FwdArgs(0.125, -1, 0, 2.0, None), False, False, False), "softcap"),
        "bf16 training": ((q.bfloat16(), args, False, True, False), "group_o32"),  # bf16 group: inference only
        "headdim": ((torch.zeros(4, 2, 200, dtype=torch.float16), args, False, False, False), "headdim"),
        "paged": ((q, args, True, False, False), "KV-cache / paged-KV"),
        "kvcache": (None, "KV-cache / paged-KV"),
    }
    for probed in (True, False):
        _select_ck(monkeypatch, probed)
        for what, (call, want) in calls.items():
            qq = call[0] if call else q
            if want.startswith("ck:"):
                assert varlen.select_varlen_backend(qq, None, ck_call=call) == want, what
            elif probed:
                assert varlen.select_varlen_backend(qq, None, ck_call=call) == "hip", what
            else:
                with pytest.raises(NotImplementedError, match=want):
                    varlen.select_varlen_backend(qq, "ck", ck_call=call)
    _select_ck(monkeypatch, True)
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:  # no group_deterministic instance: the deterministic request falls back to hip
        assert varlen.select_varlen_backend(q, None, ck_call=calls["covered"][0]) == "hip"
    finally:
        torch.use_deterministic_algorithms(was)
    assert ck.bwd_variant(True, group=True) == "group_deterministic"


def test_varlen_softcap_is_not_silently_dropped(ck_varlen_on_cpu):
    """adv11: varlen inference with softcap > 0 used to run the group instance, built without CK's soft-cap
    trait, which ignores logits_soft_cap: out without the cap. The evaluator now reads the args as the instance
    does (test_ck_eval.as_instance_reads), and backend='ck' raises naming softcap."""
    lens_q, lens_k = [7, 5], [12, 9]
    q, k, v = rand_packed(lens_q, lens_k, 2, 2, 64, torch.float16)
    with pytest.raises(NotImplementedError, match="softcap"):
        rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), 7, 12, softcap=2.0, backend="ck")
    assert not ck_varlen_on_cpu


def test_evaluator_reads_args_as_the_instance_does(ck_varlen_on_cpu):
    """The CPU evaluation honours a field only where the launched instance's traits read it: logits_soft_cap
    handed to a group instance (no soft-cap trait) gives the uncapped result, as CK would; so a routing that
    hands an instance an argument it ignores fails the comparisons above (the class of adv11's softcap finding)."""
    from rocflash.backends import SeqArgs, ck_varlen
    lens_q, lens_k = [7, 5], [12, 9]
    q, k, v = rand_packed(lens_q, lens_k, 2, 2, 64, torch.float16)
    q = q * 4
    seq = SeqArgs(cu_seqlens_q=cu(lens_q), cu_seqlens_k=cu(lens_k), seqused_k=None, max_seqlen_q=7, max_seqlen_k=12)
    capped, _ = ck_varlen.varlen_forward("gfx942", False, q, k, v, seq, FwdArgs(0.125, -1, -1, 2.0, None))
    plain, _ = ck_varlen.varlen_forward("gfx942", False, q, k, v, seq, FwdArgs(0.125, -1, -1, 0.0, None))
    assert torch.equal(capped, plain)


@pytest.mark.parametrize("api", ["varlen", "kvcache"])
def test_traced_calls_fall_back_from_probed_ck(monkeypatch, api):
    """adv11: under torch.compile flash_attn_varlen_func / flash_attn_with_kvcache pass the traced backend name to
    their custom op, which re-selects with it as an explicit backend= argument: a probe-chosen ck became 'asked
    for' and raised NotImplementedError instead of running on rocflash's hip kernel (as eager calls do). Now the
    traced name of a probed ck is hip; backend='ck' still raises naming the missing path."""
    import rocflash.kvcache as kvcache
    from rocflash import interface
    monkeypatch.delenv("ROCFLASH_BACKEND", raising=False)
    monkeypatch.setattr(selector, "probe_device", lambda device: MI300X)
    monkeypatch.setattr(selector, "ck_unavailable", lambda probe: None)
    monkeypatch.setattr(selector, "check_compiled_backend", lambda *a, **kw: None)
    monkeypatch.setattr(varlen, "backend_functions", lambda name: None)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    seen = []

    def op(*a, **kw):
        seen.append(a[-2] if api == "varlen" else a[-1])
        name = seen[-1]
        varlen.select_varlen_backend(a[0], name)  # what the op's own checks do with the traced name
        raise StopIteration

    monkeypatch.setattr(varlen if api == "varlen" else kvcache, f"{api}_fwd", op)
    lens = [5, 3]
    q, k, v = rand_packed(lens, lens, 2, 2, 64, torch.float16)
    for backend in (None, "ck"):
        if api == "varlen":
            call = lambda: rocflash.flash_attn_varlen_func(q, k, v, cu(lens), cu(lens), 5, 5, causal=True,
                                                           backend=backend)
        else:
            cache = torch.zeros(2, 8, 2, 64, dtype=torch.float16)
            call = lambda: rocflash.flash_attn_with_kvcache(q.view(2, 4, 2, 64), cache, cache,
                                                           cache_seqlens=torch.tensor([3, 4], dtype=torch.int32),
                                                           backend=backend)
        if backend is None:
            with pytest.raises(StopIteration):
                call()
            assert seen[-1] == "hip", seen
        else:
            with pytest.raises(NotImplementedError, match="KV-cache / paged-KV"):
                call()
