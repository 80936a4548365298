"""Property-based fuzzing of the varlen and paged layouts (issue 8 item 10), sim and torch against fp64.

flash_attn_varlen_func with random per-sequence lengths (empty sequences included), GQA, headdims 1-256, dtypes,
causal / window / softcap / ALiBi (per head or per sequence) / softmax_scale (float32 up to the fused backward's
range end, 16-bit up to 2, as test_fuzz.py): the forward of every sequence against the dense fp64
reference of that sequence, and the backward (packed layout) with FlashAttention's rule. Paged: the same keys
scattered into a shuffled paged cache through a block_table (forward only: the paged layout has no backward),
whose output must equal the packed one bit for bit. Examples per run: 40 per backend under CI=true (0.5-2 s each
on 2 cores: 1-3 minutes), 20 otherwise; the seed is fixed (as test_fuzz.py), ROCFLASH_FUZZ_EXAMPLES overrides.
Found by it: the bf16 one-hot case (scale up to 100 for every dtype then; one-key rows: tests/test_one_key_rows.py).
The compiled kernels run the same strategy (longer sequences) in tests/test_gpu_fuzz_layouts.py."""

from __future__ import annotations

import os

import torch
from hypothesis import HealthCheck, Phase, given, note, seed, settings
from hypothesis import strategies as st

import rocflash
from rocflash.backends import FwdArgs
from conftest import assert_close_to_reference, assert_grads_close

_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
_EXAMPLES = int(os.environ.get("ROCFLASH_FUZZ_EXAMPLES", 40 if _CI else 20))
_SEED = 20261201
_SETTINGS = dict(deadline=None, database=None, print_blob=True, max_examples=_EXAMPLES,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
if _CI:
    _SETTINGS["phases"] = [Phase.explicit, Phase.reuse, Phase.generate]


@st.composite
def varlen_problems(draw, device="cpu"):
    """device "cuda": longer sequences (up to 300: several key tiles and row blocks per sequence)."""
    batch = draw(st.integers(1, 3))
    nheads_k = draw(st.integers(1, 2))
    nheads = nheads_k * draw(st.integers(1, 3))
    headdim = draw(st.one_of(st.integers(1, 40), st.sampled_from([64, 128, 256]), st.integers(1, 256)))
    longest, work = (80, 6000) if device == "cpu" else (300, 30000)
    cap = max(4, int(work / (nheads * headdim) ** 0.5))  # bounds the work per sequence
    lens_q = draw(st.lists(st.integers(0, min(longest, cap)), min_size=batch, max_size=batch))
    lens_k = draw(st.lists(st.integers(0, min(longest, cap)), min_size=batch, max_size=batch))
    causal = draw(st.booleans())
    left = draw(st.one_of(st.just(-1), st.integers(0, 40)))
    right = 0 if causal else draw(st.one_of(st.just(-1), st.integers(0, 40)))
    dtype = draw(st.sampled_from([torch.float16, torch.bfloat16, torch.float32]))
    sign = draw(st.sampled_from([1, -1]))
    top = 100.0 if dtype == torch.float32 else 2.0  # 16-bit: as test_fuzz.py
    scale = draw(st.one_of(st.none(), st.floats(0.05, 2.0).map(lambda x: x * sign),
                           st.floats(min(2.0, top), top).map(lambda x: x * sign)))
    return dict(lens_q=lens_q, lens_k=lens_k, nheads=nheads, nheads_k=nheads_k, headdim=headdim, dtype=dtype,
                causal=causal,
                window=(left, right), softcap=draw(st.one_of(st.just(0.0), st.floats(0.5, 50.0))),
                alibi=draw(st.sampled_from(["none", "heads", "batch_heads"])), scale=scale,
                page=draw(st.sampled_from([16, 32, 256])), data_seed=draw(st.integers(0, 2 ** 31 - 1)))


def _cu(lens):
    return torch.tensor([0, *torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32)


def _check(p, backend, device="cpu"):
    """The call on ``device`` (inputs drawn on the CPU and copied), the checks on the CPU against fp64."""
    note(f"seed {_SEED}: {p}")
    g = torch.Generator().manual_seed(p["data_seed"])
    h, hk, d, dt = p["nheads"], p["nheads_k"], p["headdim"], p["dtype"]
    tq, tk = sum(p["lens_q"]), sum(p["lens_k"])
    q = torch.randn(tq, h, d, generator=g).to(dt)
    k, v = (torch.randn(tk, hk, d, generator=g).to(dt) for _ in range(2))
    dout = torch.randn(tq, h, d, generator=g).to(dt)
    batch = len(p["lens_q"])
    slopes = None if p["alibi"] == "none" else torch.rand((h,) if p["alibi"] == "heads" else (batch, h), generator=g)
    cu_q, cu_k = _cu(p["lens_q"]), _cu(p["lens_k"])
    dev = lambda t: None if t is None else t.to(device)  # noqa: E731
    kw = dict(softmax_scale=p["scale"], causal=p["causal"], window_size=p["window"], softcap=p["softcap"],
              alibi_slopes=dev(slopes), backend=backend)
    qg, kg, vg = (t.clone().to(device).requires_grad_() for t in (q, k, v))
    out = rocflash.flash_attn_varlen_func(qg, kg, vg, dev(cu_q), dev(cu_k), max(p["lens_q"]), max(p["lens_k"]), **kw)
    grads = torch.autograd.grad(out, (qg, kg, vg), dev(dout)) if tq and tk else (qg * 0, kg * 0, vg * 0)
    out, grads = out.detach().cpu(), tuple(g.cpu() for g in grads)
    scale = p["scale"] if p["scale"] is not None else d ** -0.5
    for b in range(batch):
        sq, sk = p["lens_q"][b], p["lens_k"][b]
        rq, rk = slice(int(cu_q[b]), int(cu_q[b + 1])), slice(int(cu_k[b]), int(cu_k[b + 1]))
        right = 0 if p["causal"] else p["window"][1]
        args = FwdArgs(scale, -1 if p["window"][0] >= sk else p["window"][0], -1 if right >= sq else right,
                       p["softcap"], None if slopes is None else (slopes if slopes.dim() == 1 else slopes[b]))
        part = [t[s].unsqueeze(0) for t, s in ((q, rq), (k, rk), (v, rk), (dout, rq))]
        what = f"{backend} sequence {b} ({sq} x {sk})"
        if sq == 0:
            continue
        if sk == 0:  # no key: out 0, gradients of its rows 0
            assert torch.equal(out[rq], torch.zeros_like(out[rq])), what
            continue
        assert_close_to_reference(out[rq].detach().unsqueeze(0), None, *part[:3], args, what)
        assert_grads_close(tuple(x[s].unsqueeze(0) for x, s in zip(grads, (rq, rk, rk))), *part, args, what)
    # paged: the same keys through a shuffled paged cache and a block table (forward only)
    page = p["page"]
    pages = [-(-n // page) for n in p["lens_k"]]
    perm = torch.randperm(max(1, sum(pages)), generator=g)
    kc, vc = (torch.full((max(1, sum(pages)) + 1, page, hk, d), float("nan"), dtype=dt) for _ in range(2))
    table = torch.zeros(batch, max(1, max(pages)), dtype=torch.int32)
    used = 0
    for b, n in enumerate(p["lens_k"]):
        for j in range(pages[b]):
            blk = int(perm[used])
            used += 1
            table[b, j] = blk
            rows = slice(int(cu_k[b]) + j * page, min(int(cu_k[b]) + (j + 1) * page, int(cu_k[b + 1])))
            m = rows.stop - rows.start
            kc[blk, :m], vc[blk, :m] = k[rows], v[rows]
    with torch.no_grad():  # the same (inference) call both ways: no-grad calls may take the split-KV plan
        paged = rocflash.flash_attn_varlen_func(dev(q), dev(kc), dev(vc), dev(cu_q), dev(cu_k), max(p["lens_q"]),
                                                max(p["lens_k"]), block_table=dev(table), **kw).cpu()
        packed = rocflash.flash_attn_varlen_func(dev(q), dev(k), dev(v), dev(cu_q), dev(cu_k), max(p["lens_q"]),
                                                 max(p["lens_k"]), **kw).cpu()
    assert torch.equal(paged, packed), f"{backend}: paged != packed"


@seed(_SEED)
@settings(**_SETTINGS)
@given(varlen_problems())
def test_fuzz_varlen_sim(p):
    _check(p, "sim")


@seed(_SEED + 1)
@settings(**_SETTINGS)
@given(varlen_problems())
def test_fuzz_varlen_torch(p):
    _check(p, "torch")
