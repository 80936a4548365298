"""flash_attn_varlen_func on the CPU backends (sim: the kernels' tiling; torch: the reference) against fp64,
per sequence: uneven and empty sequences, seqlen_q != seqlen_k, GQA, causal and windows, ALiBi, softcap,
paged K/V, the backward, the split-KV policy and every error path."""

from __future__ import annotations

import itertools

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rocflash
import rocflash.backends.sim as sim
from conftest import DTYPES, fwd_args
from rocflash import splitkv
from rocflash.backends import SeqArgs, splits
from rocflash.configs import select_config
from rocflash.integrations import transformers as rf_tf
from varlen_ref import (assert_sequence_grads_close, assert_sequences_close, cu, rand_packed, split_rows)

BACKENDS = ["sim", "torch"]

# name: (lens_q, lens_k, nheads, nheads_k, headdim, causal, window)
CASES = {
    "uneven_gqa": ([5, 17, 1, 33], [9, 17, 40, 20], 4, 2, 32, False, (-1, -1)),
    "causal_sq_ne_sk": ([5, 17, 1, 33, 70], [9, 17, 40, 20, 65], 4, 1, 40, True, (-1, -1)),
    "window": ([20, 3, 64], [30, 65, 64], 2, 2, 16, False, (4, 2)),
    "causal_window": ([20, 66, 2], [30, 66, 1], 3, 1, 8, True, (8, 0)),
    "empty_sequences": ([0, 7, 0, 0, 12, 4, 0], [3, 7, 0, 5, 12, 0, 0], 2, 1, 24, True, (-1, -1)),
}


def _run(backend, name, dtype, seed=0, **kw):
    lens_q, lens_k, h, hk, d, causal, window = CASES[name]
    q, k, v = rand_packed(lens_q, lens_k, h, hk, d, dtype, seed=seed)
    out, lse, none = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), max(lens_q), max(lens_k),
                                                     causal=causal, window_size=window, return_attn_probs=True,
                                                     backend=backend, **kw)
    assert none is None and out.shape == q.shape and lse.shape == (h, q.shape[0]) and lse.dtype == torch.float32
    return q, k, v, out, lse, fwd_args(d, causal, window, **{a: kw[a] for a in ("softcap", "alibi_slopes") if a in kw})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_varlen_forward_per_sequence(backend, name, dtype):
    if backend == "torch" and dtype == "bf16":
        pytest.skip("the torch backend is the reference itself: one dtype suffices")
    q, k, v, out, lse, args = _run(backend, name, DTYPES[dtype])
    lens_q, lens_k = CASES[name][:2]
    checked = assert_sequences_close(out, lse, split_rows(q, lens_q), list(zip(split_rows(k, lens_k), split_rows(v, lens_k))),
                                     args, f"{backend} {name} {dtype}")
    assert checked >= 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_varlen_softcap_and_per_sequence_alibi(backend):
    lens_q, lens_k = CASES["uneven_gqa"][:2]
    slopes = torch.rand(len(lens_q), 4, generator=torch.Generator().manual_seed(3)) * 0.3
    q, k, v, out, lse, args = _run(backend, "uneven_gqa", torch.float16, softcap=3.0, alibi_slopes=slopes)
    assert_sequences_close(out, lse, split_rows(q, lens_q), list(zip(split_rows(k, lens_k), split_rows(v, lens_k))),
                           args, f"{backend} softcap + alibi (batch, nheads)")
    plain = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), 33, 40, backend=backend)
    assert (plain - out).abs().max().item() > 1e-2  # the options mattered


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["causal_sq_ne_sk", "empty_sequences", "causal_window"])
def test_varlen_backward_against_fp64(backend, name):
    lens_q, lens_k, h, hk, d, causal, window = CASES[name]
    q, k, v = rand_packed(lens_q, lens_k, h, hk, d, torch.float16, seed=1)
    dout = torch.randn(q.shape, generator=torch.Generator().manual_seed(2)).half()
    leaves = [x.clone().requires_grad_() for x in (q, k, v)]
    out = rocflash.flash_attn_varlen_func(*leaves, cu(lens_q), cu(lens_k), max(lens_q), max(lens_k), causal=causal,
                                          window_size=window, backend=backend)
    out.backward(dout)
    grads = [x.grad for x in leaves]
    assert_sequence_grads_close(grads, q, k, v, dout, lens_q, lens_k, fwd_args(d, causal, window), f"{backend} {name}")


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("compiled_fn", [False, True])
def test_varlen_backward_at_large_scale(dtype, compiled_fn):
    """Peaked ALiBi rows at softmax_scale 15 and 50 (the 16-bit backward range's end): the varlen forward keeps the
    softmax stats and O in float32 for the backward (D from the fp32 O), eager and through the custom op
    (torch.compile's path: varlen_fwd / varlen_bwd called directly)."""
    lens_q, lens_k, h, hk, d, causal, window = CASES["causal_sq_ne_sk"]
    for scale in (15.0, 50.0):
        q, k, v = rand_packed(lens_q, lens_k, h, hk, d, DTYPES[dtype], seed=5)
        dout = torch.randn(q.shape, generator=torch.Generator().manual_seed(6)).to(DTYPES[dtype])
        slopes = torch.rand(h, generator=torch.Generator().manual_seed(7)) * 2
        leaves = [x.clone().requires_grad_() for x in (q, k, v)]
        call = (cu(lens_q), cu(lens_k), max(lens_q), max(lens_k))
        if compiled_fn:
            from rocflash import varlen
            out, _, stats, out32 = varlen.varlen_fwd(*leaves, *call[:2], None, *call[2:], 0.0, scale, causal,
                                                     *window, 0.0, slopes, False, "sim")
            assert stats.shape == (h, q.shape[0], 2) and out32.shape == q.shape and out32.dtype == torch.float32
        else:
            out = rocflash.flash_attn_varlen_func(*leaves, *call, causal=causal, softmax_scale=scale,
                                                  alibi_slopes=slopes, backend="sim")
        out.backward(dout)
        assert_sequence_grads_close([x.grad for x in leaves], q, k, v, dout, lens_q, lens_k,
                                    fwd_args(d, causal, window, alibi_slopes=slopes, softmax_scale=scale),
                                    f"sim {dtype} scale {scale}")
    out = rocflash.flash_attn_varlen_func(*leaves, *call, causal=causal, softmax_scale=101.0, backend="sim")
    with pytest.raises(ValueError, match=r"flash_attn_varlen_func: softmax_scale must be in \[-(100|50), (100|50)\]"):
        out.backward(dout)


def test_sim_varlen_gradcheck_fp64():
    lens_q, lens_k = [3, 0, 5], [4, 2, 6]
    q, k, v = (x.double().requires_grad_() for x in rand_packed(lens_q, lens_k, 2, 1, 8, torch.float64, seed=4))
    fn = lambda a, b, c: rocflash.flash_attn_varlen_func(a, b, c, cu(lens_q), cu(lens_k), 5, 6, causal=True,
                                                         backend="sim")
    assert torch.autograd.gradcheck(fn, (q, k, v), fast_mode=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_sequences_match_dense_per_sequence(backend):
    """Zero-length sequences (repeated cu_seqlens entries) between non-empty ones produce nothing; the others equal
    the dense call on each sequence alone."""
    lens_q, lens_k = [0, 6, 0, 9, 0], [0, 6, 0, 11, 0]
    q, k, v = rand_packed(lens_q, lens_k, 2, 2, 16, torch.float16, seed=5)
    out = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), 9, 11, causal=True, backend=backend)
    for qb, kb, vb, ob in zip(*(split_rows(x, lens_q) for x in (q,)), split_rows(k, lens_k), split_rows(v, lens_k),
                              split_rows(out, lens_q)):
        if qb.shape[0]:
            dense = rocflash.flash_attn_func(qb[None], kb[None], vb[None], causal=True, backend=backend)[0]
            assert torch.equal(ob, dense)


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_work_at_all(backend, monkeypatch):
    """Every sequence empty, or no keys anywhere: zeros, LSE -inf, zero gradients, no launch."""
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: pytest.fail("launched"))
    for lens_q, lens_k in (([0, 0], [0, 0]), ([3, 2], [0, 0]), ([], [])):
        q, k, v = (x.requires_grad_() for x in rand_packed(lens_q, lens_k, 2, 1, 8, torch.float32))
        out, lse, _ = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), 3, 0, return_attn_probs=True,
                                                      backend=backend)
        assert out.shape == q.shape and bool((out == 0).all()) and bool(torch.isneginf(lse).all())
        out.sum().backward()
        assert all(x.grad is not None and bool((x.grad == 0).all()) for x in (q, k, v))


@pytest.mark.parametrize("backend", BACKENDS)
def test_padded_batch_c17(backend):
    """A padded batch (2, 7, 32, 128) fp16 whose second sequence has 3 padding keys, through the transformers
    attention function (unpad -> varlen -> pad): valid rows within tolerance, padded rows exactly zero."""
    g = torch.Generator().manual_seed(6)
    q, k, v = (torch.randn(2, 32, 7, 128, generator=g).half() for _ in range(3))  # transformers' layout
    k[1, :, 4:] = float("nan")  # padding garbage must not leak
    v[1, :, 4:] = float("nan")
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[1, 4:] = False
    out, _ = rf_tf.attention_forward(FakeModule(), q, k, v, mask, backend=backend)
    assert out.shape == (2, 7, 32, 128) and not torch.isnan(out).any()
    assert bool((out[1, 4:] == 0).all())
    qf, kf, vf = (x.transpose(1, 2) for x in (q, k, v))
    args = fwd_args(128)
    assert_sequences_close(out[mask], None, [qf[0], qf[1, :4]], [(kf[0], vf[0]), (kf[1, :4], vf[1, :4])], args, "C17")


class FakeModule(torch.nn.Module):
    is_causal = False


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("page", [16, 48, 256])
def test_paged_varlen_equals_contiguous(backend, page):
    """k, v in pages through block_table (shuffled, unused blocks NaN) give the contiguous result exactly."""
    lens_q, lens_k = [3, 1, 20], [40, 0, 300]
    q, k, v = rand_packed(lens_q, lens_k, 4, 2, 16, torch.float16, seed=7)
    ref = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), 20, 300, causal=True, backend=backend)
    k_pages, v_pages, table = _pages(split_rows(k, lens_k), split_rows(v, lens_k), page, seed=8)
    out = rocflash.flash_attn_varlen_func(q, k_pages, v_pages, cu(lens_q), cu(lens_k), 20, 300, causal=True,
                                          block_table=table, backend=backend)
    assert torch.equal(out, ref)


def _pages(k_seqs, v_seqs, page, seed, spare=3):
    """Scatter per-sequence keys into a shuffled pool of pages; unused slots and spare blocks hold NaN."""
    need = [-(-x.shape[0] // page) for x in k_seqs]
    width = max(max(need), 1)
    num_blocks = sum(need) + spare
    perm = torch.randperm(num_blocks, generator=torch.Generator().manual_seed(seed)).tolist()
    shape = (num_blocks, page) + tuple(k_seqs[0].shape[1:])
    k_pages = torch.full(shape, float("nan"), dtype=k_seqs[0].dtype)
    v_pages = torch.full(shape, float("nan"), dtype=k_seqs[0].dtype)
    table = torch.full((len(k_seqs), width), num_blocks + 100, dtype=torch.int32)  # unused entries: out of range
    it = iter(perm)
    for b, (kb, vb) in enumerate(zip(k_seqs, v_seqs)):
        for p in range(need[b]):
            blk = next(it)
            table[b, p] = blk
            rows = slice(p * page, min((p + 1) * page, kb.shape[0]))
            k_pages[blk, :rows.stop - rows.start] = kb[rows]
            v_pages[blk, :rows.stop - rows.start] = vb[rows]
    return k_pages, v_pages, table


@st.composite
def varlen_problems(draw):
    batch = draw(st.integers(0, 4))
    lens_q = draw(st.lists(st.integers(0, 70), min_size=batch, max_size=batch))
    lens_k = draw(st.lists(st.integers(0, 140), min_size=batch, max_size=batch))
    nheads_k = draw(st.sampled_from([1, 2]))
    nheads = nheads_k * draw(st.sampled_from([1, 3]))
    headdim = draw(st.sampled_from([1, 8, 24, 40, 64]))
    causal = draw(st.booleans())
    window = (draw(st.sampled_from([-1, 0, 5, 64])), 0 if causal else draw(st.sampled_from([-1, 0, 7])))
    num_splits = draw(st.sampled_from([1, 2, 5]))
    return lens_q, lens_k, nheads, nheads_k, headdim, causal, window, num_splits


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=varlen_problems(), seed=st.integers(0, 2**16))
def test_sim_varlen_random_problems(problem, seed):
    """Random batches (empty ones included), GQA ratios, headdims, causal / windows and split counts through the
    sim's SeqArgs entry point, against fp64 per sequence."""
    lens_q, lens_k, h, hk, d, causal, window, num_splits = problem
    q, k, v = rand_packed(lens_q, lens_k, h, hk, d, torch.float16, seed=seed)
    seq = SeqArgs(cu(lens_q), cu(lens_k), None, max(lens_q, default=0), max(lens_k, default=0), num_splits=num_splits)
    args = fwd_args(d, causal, window)
    out, lse = sim.varlen_forward(q, k, v, seq, args)
    assert_sequences_close(out, lse, split_rows(q, lens_q), list(zip(split_rows(k, lens_k), split_rows(v, lens_k))),
                           args, f"{problem}")


# ---------------------------------------------------------------- split-KV policy
def _kernel_plan(target, dtype, headdim, nheads, nheads_k, batch, max_seqlen_q, max_seqlen_k, num_splits):
    """The compiled launcher's decision (compiled.split_plan), restated from rocflash.splitkv for a target's CUs."""
    group = nheads // nheads_k
    if not (num_splits > 1 or max_seqlen_q * group <= splitkv.MAX_ROWS):
        return False, 1
    block_m = select_config("fwd_splitkv", target, dtype, headdim).block_m
    if num_splits == 0:
        chunks = -(-max_seqlen_q * group // block_m)
        platform = {"gfx9": "hip", "cuda": "cuda"}[target]
        # the vector kernel's blocks per CU / SM (eco14: 2 for the CUDA fp32 split kernels), as compiled.split_plan
        num_splits = splitkv.num_splits_heuristic(batch, nheads_k, chunks, max_seqlen_k,
                                                  {"gfx9": 60, "cuda": 132}[target], platform,
                                                  splitkv.vector_blocks_per_cu(platform, dtype))
    return True, max(1, num_splits)


@pytest.mark.parametrize("target", ["gfx9", "cuda"])
def test_sim_split_plan_matches_kernel(target):
    """The sim's split decision, count and per-sequence key ranges are the split-KV kernel's (rocflash.splitkv
    with the fwd_splitkv tile config), over a grid of (batch, nheads_k, seqlen_k, num_splits)."""
    for batch, nheads_k, seqlen_k, num_splits, seqlen_q, group in itertools.product(
            (1, 3, 8, 64), (1, 2, 8), (1, 255, 256, 700, 4096, 131072), (0, 1, 2, 5, 128), (1, 4, 64), (1, 4)):
        nheads = nheads_k * group
        for dtype, headdim in (("fp16", 64), ("bf16", 128), ("fp32", 256)):
            tdtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[dtype]
            got = sim.split_plan(target, tdtype, headdim, nheads, nheads_k, batch, seqlen_q, seqlen_k, num_splits)
            want = _kernel_plan(target, dtype, headdim, nheads, nheads_k, batch, seqlen_q, seqlen_k, num_splits)
            assert got[:2] == want, (batch, nheads_k, seqlen_k, num_splits, seqlen_q, group, dtype, got[:2], want)
            assert got[2] is None if not got[0] else got[2] == select_config("fwd_splitkv", target, dtype, headdim)
    # the simulated launch visits exactly those key ranges (small shapes: the sim runs them)
    for lens_k, num_splits, group in (([300, 1100, 0, 17], 0, 2), ([300, 1100, 0, 17], 3, 1), ([64, 600], 1, 4),
                                      ([513], 7, 1), ([40, 40], 2, 16)):
        batch, nheads_k, d = len(lens_k), 2, 32
        lens_q = [1] * batch
        q, k, v = rand_packed(lens_q, lens_k, nheads_k * group, nheads_k, d, torch.float16, seed=len(lens_k))
        seq = SeqArgs(cu(lens_q), cu(lens_k), None, 1, max(lens_k), num_splits=num_splits)
        trace = sim.SplitTrace()
        sim.varlen_forward(q, k, v, seq, fwd_args(d, True, (-1, -1)), target, trace=trace)
        split, n = _kernel_plan(target, "fp16", d, nheads_k * group, nheads_k, batch, 1, max(lens_k), num_splits)
        assert (trace.split_kernel, trace.num_splits) == (split, n)
        bn = select_config("fwd_splitkv", target, "fp16", d).block_n
        want = [(b, i, r) for b, sk in enumerate(lens_k) if sk
                for i, r in enumerate(splitkv.split_bounds(sk, max(lens_k), n, bn))]
        assert [(b, i, r) for b, i, r, _ in trace.splits] == want
        for _, _, (k0, k1), t in trace.splits:
            assert all(k0 <= tile * bn < k1 for _, visited in t.blocks for tile, _ in visited)


def test_combine_ignores_empty_splits():
    outs = torch.randn(3, 2, 5, 4, dtype=torch.float64)
    lses = torch.randn(3, 2, 5, dtype=torch.float64)
    lses[1] = float("-inf")
    outs[1] = float("nan")  # an empty split's partial O is never read
    out, lse = splits.combine(outs, lses)
    w = torch.softmax(lses[[0, 2]], dim=0)
    assert torch.allclose(out, (w.unsqueeze(-1) * outs[[0, 2]]).sum(0))
    assert torch.allclose(lse, torch.logsumexp(lses[[0, 2]], dim=0))
    out, lse = splits.combine(outs[1:2], lses[1:2])
    assert bool((out == 0).all()) and bool(torch.isneginf(lse).all())


# ---------------------------------------------------------------- errors: raised before any launch
def _varlen_errors():
    """(kwargs overriding a valid call, exception, message regex)."""
    i32 = lambda *x: torch.tensor(x, dtype=torch.int32)
    return [
        (dict(q=torch.zeros(1, 5, 2, 8)), ValueError, r"q must have 3 dimensions \(total_q, nheads, headdim\)"),
        (dict(k=torch.zeros(1, 7, 1, 8)), ValueError, r"k must have 3 dimensions \(total_k, nheads_k, headdim\)"),
        (dict(v=torch.zeros(6, 1, 8)), ValueError, "k and v must have the same shape"),
        (dict(k="k"), TypeError, "k must be a torch.Tensor"),
        (dict(cu_seqlens_q=i32(0, 2, 5).long()), ValueError, "cu_seqlens_q must have dtype torch.int32, got torch.int64"),
        (dict(cu_seqlens_q=[0, 2, 5]), TypeError, "cu_seqlens_q must be an int32 torch.Tensor"),
        (dict(cu_seqlens_k=i32(0, 3, 7)[None]), ValueError, r"cu_seqlens_k must have shape \(batch \+ 1,\)"),
        (dict(cu_seqlens_q=i32(1, 2, 5)), ValueError, r"cu_seqlens_q\[0\] must be 0, got 1"),
        (dict(cu_seqlens_q=i32(0, 3, 2, 5)), ValueError,
         r"cu_seqlens_q must be non-decreasing .*cu_seqlens_q\[1\]=3 > cu_seqlens_q\[2\]=2"),
        (dict(cu_seqlens_q=i32(0, 2, 4)), ValueError, r"cu_seqlens_q\[-1\] must equal the number of rows 5 .*got 4"),
        (dict(cu_seqlens_k=i32(0, 7)), ValueError, "cu_seqlens_q and cu_seqlens_k must have the same length"),
        (dict(cu_seqlens_k=i32(0, 3, 7).to("meta")), ValueError, "cu_seqlens_k must be on q's device cpu, got meta"),
        (dict(max_seqlen_q=2), ValueError, r"max_seqlen_q must be >= the longest sequence \(3 from the cu_seqlens\), got 2"),
        (dict(max_seqlen_k=True), ValueError, "max_seqlen_k must be an int >= 0, got True"),
        (dict(max_seqlen_k=-1), ValueError, "max_seqlen_k must be an int >= 0, got -1"),
        (dict(q=torch.zeros(5, 2, 8, dtype=torch.float16)), TypeError, "q, k, v must have the same dtype"),
        (dict(q=torch.zeros(5, 3, 8), k=torch.zeros(7, 2, 8), v=torch.zeros(7, 2, 8)), ValueError,
         "nheads must be divisible by nheads_k"),
        (dict(q=torch.zeros(5, 2, 4)), ValueError, "k and v must have q's headdim 4, got 8"),
        (dict(dropout_p=0.1), NotImplementedError, r"dropout_p > 0 is not implemented \(backend 'sim'\), got 0.1: .*model.eval\(\)"),
        (dict(window_size=(3, 3), causal=True), ValueError, r"window_size\[1\] must be -1 or 0 when causal=True"),
        (dict(alibi_slopes=torch.zeros(3, 2)), ValueError, r"alibi_slopes must have shape \(nheads,\)=\(2,\) or \(batch, nheads\)=\(2, 2\)"),
        (dict(softmax_scale=float("nan")), ValueError, "softmax_scale must be a finite float"),
        (dict(deterministic=1), TypeError, "deterministic must be a bool"),
        (dict(block_table=i32(0, 1)), ValueError, r"k must have 4 dimensions \(num_blocks, page_block_size"),
        (dict(k=torch.zeros(4, 24, 1, 8), v=torch.zeros(4, 24, 1, 8), block_table=i32([0], [1])), ValueError,
         r"page_block_size .* must be a multiple of 16 from 16 to 256 \(16, 32, 48, \.\.\., 256\), got 24"),
        (dict(k=torch.zeros(4, 16, 1, 8), v=torch.zeros(4, 16, 1, 8), block_table=i32([0], [4])), ValueError,
         r"block_table\[1, \d+\] must index blocks in \[0, num_blocks=4\) .*got 4"),
        (dict(k=torch.zeros(4, 16, 1, 8), v=torch.zeros(4, 16, 1, 8), block_table=i32([0, 1, 2])), ValueError,
         r"block_table must have shape \(batch, max_blocks_per_seq\)=\(2, 3\), got \(1, 3\)"),
        (dict(k=torch.zeros(4, 16, 1, 8), v=torch.zeros(4, 16, 1, 8), block_table=i32([0], [1]),
              cu_seqlens_k=i32(0, 3, 20), max_seqlen_k=17), ValueError,
         r"sequence 1 has 17 keys, more than block_table holds: max_blocks_per_seq 1 x page_block_size 16 = 16"),
        (dict(backend="nope"), ValueError, "backend must be one of"),
    ]


@pytest.mark.parametrize("case", range(len(_varlen_errors())))
def test_varlen_errors_before_launch(case, monkeypatch):
    kwargs, exc, msg = _varlen_errors()[case]
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: pytest.fail("launched"))
    call = dict(q=torch.zeros(5, 2, 8), k=torch.zeros(7, 1, 8), v=torch.zeros(7, 1, 8),
                cu_seqlens_q=torch.tensor([0, 2, 5], dtype=torch.int32), cu_seqlens_k=torch.tensor([0, 3, 7], dtype=torch.int32),
                max_seqlen_q=3, max_seqlen_k=4, backend="sim")
    call.update(kwargs)
    with pytest.raises(exc, match=msg):
        rocflash.flash_attn_varlen_func(**call)


def test_paged_backward_is_refused_on_fused_backends(monkeypatch):
    """No paged backward on the fused backends: refused before the forward launches when a gradient would be
    needed; under no_grad the forward runs."""
    lens_q, lens_k = [2, 3], [5, 20]
    q, k, v = rand_packed(lens_q, lens_k, 2, 1, 8, torch.float32)
    kp = torch.zeros(4, 16, 1, 8, requires_grad=True)
    table = torch.tensor([[0, 3], [1, 2]], dtype=torch.int32)
    call = lambda: rocflash.flash_attn_varlen_func(q.requires_grad_(), kp, kp.detach().clone(), cu(lens_q), cu(lens_k),
                                                   3, 20, block_table=table, backend="sim")
    real = sim.varlen_forward
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: pytest.fail("launched"))
    with pytest.raises(NotImplementedError, match="backend 'sim' has no backward for paged K/V .* backend='torch'"):
        call()
    monkeypatch.setattr(sim, "varlen_forward", real)
    with torch.no_grad():
        assert torch.isfinite(call()).all()


def test_device_check_message_fits_assert_async():
    """torch._assert_async on a GPU refuses messages of 255 characters or more (RuntimeError at every call: the
    H200 run of the merged tree found the device-side varlen check's message at 277)."""
    import importlib
    assert len(importlib.import_module("rocflash.varlen")._DEVICE_CHECK_MESSAGE) < 255
