"""Adversarial GPU cases (adv19) for the CUDA build's tensor-core forward / backward (issue 12) and the decode /
KV-cache path (issue 9), where the other tests/test_gpu_*.py files do not go.

Marker ``gpu``: skipped without a GPU and its compiled module (conftest), like every tests/test_gpu_*.py file.
Every case compares against the fp64 reference with FlashAttention's rule (conftest: max|out-ref| <=
2*max|eager_lowprec-ref| + 1e-3, backward 3x), outputs poisoned with NaN (conftest), fresh random inputs.

What is here (and not in the other GPU files): headdims that run a tensor-core bucket padded (8, 24, 40, 72, 80,
100, 120, 136, 200) at odd seqlens on both sides, forward and backward; seqlen_q > seqlen_k causal (rows without
keys); GQA 12:3 and MQA 8:1 with the padded buckets; non-contiguous q/k/v (transposed storage, sliced heads,
storage offsets, padded row strides, packed qkv / kv, batch stride 0) through the backward; windows larger than
the sequence and (0, 0) on the tensor-core backward; softcap + ALiBi + window together; deterministic bitwise
and torch.use_deterministic_algorithms; NaN/inf in K/V rows no query can see at padded headdims; dout layouts and
requires_grad on some of q/k/v only; large magnitudes (|q|, |k| ~ 30 bf16, V near fp16's max); the planned
(repeated-signature) forward with the alignment changing between calls; decode: page sizes with shuffled block
tables and garbage table entries in unused pages, NaN past cache_seqlens, cache_batch_idx permutations and
subsets, cache_seqlens 0 and = capacity, num_splits 0/1/3/5/7/128, speculative seqlen_q 2-8 causal with windows,
int vs tensor cache_seqlens (same bits), repeated calls with changing lengths (the fast path); bad inputs raise
before any launch, naming argument, rule and value, and leave the caches unchanged.

CPU validation of this file (not CI): ``ADV19_BACKEND=torch`` or ``=sim`` runs the same cases on CPU tensors
through that backend (the gpu marker is then not applied): ``cd tests && ADV19_BACKEND=torch python -m pytest
test_gpu_adv19.py -k ...``. Unset (CI, the GPU run) it is "cuda": the compiled backend of the GPU (gpu_platform).
"""

from __future__ import annotations

import os

import pytest
import torch

import rocflash
from conftest import DTYPES, assert_close_to_reference, fwd_args, gpu_platform, rand_qkv, reference_grads

BACKEND = os.environ.get("ADV19_BACKEND", "cuda")
ON_GPU = BACKEND in ("cuda", "hip")
DEV = "cuda" if ON_GPU else "cpu"
pytestmark = [pytest.mark.gpu] if ON_GPU else []
NAN, INF = float("nan"), float("inf")
F16, BF16 = torch.float16, torch.bfloat16


def _backend():
    return gpu_platform() if ON_GPU else BACKEND


def _sync():
    if ON_GPU:
        torch.cuda.synchronize()


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _randn(shape, dtype, g, scale=1.0):
    return (torch.randn(shape, generator=g) * scale).to(DEV, dtype)


# ------------------------------------------------------------------ forward / backward helpers
def _fwd_check(q, k, v, what, causal=False, window=(-1, -1), softcap=0.0, alibi=None, scale=None, **kw):
    out, lse, probs = rocflash.flash_attn_func(q, k, v, causal=causal, window_size=window, softcap=softcap,
                                               alibi_slopes=alibi, softmax_scale=scale, return_attn_probs=True,
                                               backend=_backend(), **kw)
    _sync()
    assert probs is None, what
    assert lse.shape == (q.shape[0], q.shape[2], q.shape[1]) and lse.dtype == torch.float32, what
    args = fwd_args(q.shape[-1], causal, window, softcap, alibi, scale)
    assert_close_to_reference(out, lse, q, k, v, args, what)
    return out, lse


def _grads(q, k, v, dout, need=(True, True, True), **kw):
    """Gradients of flash_attn_func wrt q, k, v as given (views included): each input is rebuilt on a fresh leaf
    with the same shape, strides and storage offset (alignment included; a stride 0 as an expand of the leaf), so
    the kernels see exactly that layout. Returns (out, grads with None where not needed)."""
    ins = [_same_layout(x, n) for x, n in zip((q, k, v), need)]
    out = rocflash.flash_attn_func(*ins, backend=_backend(), **kw)
    wrt = [x for x, n in zip(ins, need) if n]
    got = iter(torch.autograd.grad(out, wrt, dout)) if wrt else iter(())
    _sync()
    return out, tuple(next(got) if n else None for n in need)


def _same_layout(x, grad=False):
    """x's values with x's shape, strides and storage offset; dimensions of stride 0 expanded from a leaf."""
    x = x.detach()
    zero = [i for i, s in enumerate(x.stride()) if s == 0 and x.shape[i] > 1]
    if zero:
        small = x[tuple(slice(0, 1) if i in zero else slice(None) for i in range(x.dim()))]
        return _same_layout(small, grad).expand(x.shape)
    base = torch.full((x.untyped_storage().nbytes() // x.element_size(),), NAN, dtype=x.dtype, device=x.device)
    y = base.as_strided(x.shape, x.stride(), x.storage_offset())
    y.copy_(x)
    return y.detach().requires_grad_(grad)


def _grads_check(q, k, v, dout, what, need=(True, True, True), causal=False, window=(-1, -1), softcap=0.0,
                 alibi=None, scale=None, deterministic=False):
    out, grads = _grads(q, k, v, dout, need, causal=causal, window_size=window, softcap=softcap,
                        alibi_slopes=alibi, softmax_scale=scale, deterministic=deterministic)
    args = fwd_args(q.shape[-1], causal, window, softcap, alibi, scale)
    assert_close_to_reference(out.detach(), None, q, k, v, args, what + " (forward)")
    ref = reference_grads(q, k, v, dout, args, torch.float64)
    low = reference_grads(q, k, v, dout, args, q.dtype)
    for name, gx, r, lo, x, n in zip(("dq", "dk", "dv"), grads, ref, low, (q, k, v), need):
        if not n:
            continue
        assert gx.shape == x.shape and gx.dtype == x.dtype, f"{what}: {name} shape/dtype"
        assert not torch.isnan(gx).any(), f"{what}: NaN in {name}"
        if gx.numel() == 0:
            continue
        err = (gx.double() - r).abs().max().item()
        base = (lo.double() - r).abs().max().item()
        assert err <= 3 * base + 1e-3, f"{what}: {name} max|d-ref| = {err:.3g} > 3 * {base:.3g} + 1e-3"
    return grads


def _case(b, sq, sk, h, hk, d, dtype, seed):
    g = _gen(seed)
    q, k, v = rand_qkv(b, sq, sk, h, hk, d, dtype, DEV, g)
    dout = _randn(q.shape, dtype, g)
    return q, k, v, dout


# ------------------------------------------------------------------ 1. padded tensor-core buckets, odd seqlens
PADDED = [8, 24, 40, 72, 80, 100, 120, 136, 200]
SHAPES_FWD = [(1, 1000, False), (129, 17, True), (1000, 65, True), (2, 129, True), (65, 2, False)]


def _alternate(headdims, shapes):
    """(headdim, shape, dtype) over the product, the dtype alternating fp16 / bf16 along it."""
    return [pytest.param(d, *sh, ("fp16", "bf16")[(i + j) % 2], id=f"d{d}-{sh[0]}x{sh[1]}{'c' if sh[2] else ''}")
            for i, d in enumerate(headdims) for j, sh in enumerate(shapes)]


@pytest.mark.parametrize("d,sq,sk,causal,dtype", _alternate(PADDED, SHAPES_FWD))
def test_fwd_padded_headdim(sq, sk, causal, d, dtype):
    q, k, v, _ = _case(2, sq, sk, 4, 2, d, DTYPES[dtype], seed=d + sq + sk)
    _fwd_check(q, k, v, f"fwd d{d} {dtype} {sq}x{sk} causal={causal}", causal=causal)


SHAPES_BWD = [(65, 129, True), (129, 17, True), (17, 65, False), (1, 2, False), (2, 1, True)]


@pytest.mark.parametrize("d,sq,sk,causal,dtype", _alternate([8, 24, 40, 72, 80, 100, 120], SHAPES_BWD))
def test_bwd_padded_headdim(sq, sk, causal, d, dtype):
    q, k, v, dout = _case(2, sq, sk, 4, 2, d, DTYPES[dtype], seed=3 * d + sq)
    det = (d + sq) % 2 == 0  # both dQ modes over the matrix
    _grads_check(q, k, v, dout, f"bwd d{d} {dtype} {sq}x{sk} causal={causal} det={det}", causal=causal,
                 deterministic=det)


SEQ_PAIRS = [(1, 1), (1, 2), (2, 1), (2, 2), (17, 1000), (1000, 17), (65, 129), (129, 65), (1000, 1000), (1, 129)]


@pytest.mark.parametrize("d,dtype,sq,sk", [(d, t, a, b) for d, t in ((128, "bf16"), (96, "fp16"), (256, "bf16"))
                                            for a, b in SEQ_PAIRS if d != 256 or (a + b) % 2 == 0])
def test_fwd_seqlen_pairs_causal(sq, sk, d, dtype):
    """seqlen_q > seqlen_k with causal: the first seqlen_q - seqlen_k rows see no key (out 0, LSE -inf)."""
    q, k, v, _ = _case(1, sq, sk, 3, 1, d, DTYPES[dtype], seed=sq * 7 + sk)
    out, lse = _fwd_check(q, k, v, f"fwd causal d{d} {dtype} {sq}x{sk}", causal=True)
    if sq > sk:
        assert torch.equal(out[:, :sq - sk], torch.zeros_like(out[:, :sq - sk]))
        assert torch.isneginf(lse[:, :, :sq - sk]).all()


@pytest.mark.parametrize("d", [64, 128, 96])
@pytest.mark.parametrize("sq,sk", [(1000, 17), (129, 65), (2, 1), (1, 129), (1000, 1000)])
def test_bwd_seqlen_pairs_causal(sq, sk, d):
    q, k, v, dout = _case(1, sq, sk, 2, 1, d, BF16, seed=sq + 11 * sk + d)
    dq, dk, dv = _grads_check(q, k, v, dout, f"bwd causal d{d} {sq}x{sk}", causal=True, deterministic=d == 96)
    if sq > sk:  # rows without keys: exactly zero dq
        assert torch.equal(dq[:, :sq - sk], torch.zeros_like(dq[:, :sq - sk]))


@pytest.mark.parametrize("h,hk", [(12, 3), (8, 1), (6, 6)])
@pytest.mark.parametrize("d,dtype", [(80, "bf16"), (120, "fp16"), (24, "bf16")])
def test_gqa_padded_fwd_bwd(h, hk, d, dtype):
    q, k, v, dout = _case(2, 129, 77, h, hk, d, DTYPES[dtype], seed=h * hk + d)
    _fwd_check(q, k, v, f"gqa {h}/{hk} d{d}", causal=True)
    _grads_check(q, k, v, dout, f"gqa bwd {h}/{hk} d{d}", causal=True, deterministic=h == 8)


def test_empty_inputs():
    """seqlen_k 0 (no key: out 0, LSE -inf, dq 0) and seqlen_q 0 (nothing) on the tensor-core dtype."""
    q, k, v, dout = _case(2, 17, 0, 4, 2, 72, BF16, seed=1)
    out, lse, _ = rocflash.flash_attn_func(q, k, v, return_attn_probs=True, backend=_backend())
    assert torch.equal(out, torch.zeros_like(out)) and torch.isneginf(lse).all() and lse.shape == (2, 4, 17)
    _, (dq, dk, dv) = _grads(q, k, v, dout)
    assert torch.equal(dq, torch.zeros_like(dq)) and dk.shape == k.shape and dv.shape == v.shape
    q, k, v, dout = _case(2, 0, 33, 4, 2, 72, BF16, seed=2)
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=True, return_attn_probs=True, backend=_backend())
    assert out.shape == q.shape and lse.shape == (2, 4, 0)
    _, (dq, dk, dv) = _grads(q, k, v, dout, causal=True)
    assert torch.equal(dk, torch.zeros_like(dk)) and torch.equal(dv, torch.zeros_like(dv))


# ------------------------------------------------------------------ 2. layouts through forward and backward
def _transposed(x):  # (batch, heads, seqlen, headdim) storage
    return x.transpose(1, 2).contiguous().transpose(1, 2)


def _sliced_heads(x):  # every other head of a tensor with twice the heads
    big = torch.full(x.shape[:2] + (2 * x.shape[2], x.shape[3]), NAN, dtype=x.dtype, device=x.device)
    big[:, :, 1::2] = x
    return big[:, :, 1::2]


def _offset(n):
    def shift(x):
        buf = torch.full((x.numel() + n,), NAN, dtype=x.dtype, device=x.device)
        y = buf[n:].view(x.shape)
        y.copy_(x)
        return y
    return shift


def _padded_rows(x):  # headdim rows inside rows of headdim + 8 (row stride != headdim)
    big = torch.full(x.shape[:3] + (x.shape[3] + 8,), NAN, dtype=x.dtype, device=x.device)
    big[..., :x.shape[3]] = x
    return big[..., :x.shape[3]]


def _seq_padded(x):  # seqlen rows inside a longer seqlen (batch stride > seqlen * row)
    big = torch.full((x.shape[0], x.shape[1] + 5) + x.shape[2:], NAN, dtype=x.dtype, device=x.device)
    big[:, 3:3 + x.shape[1]] = x
    return big[:, 3:3 + x.shape[1]]


LAYOUTS = {"transposed": _transposed, "sliced_heads": _sliced_heads, "offset8": _offset(8), "offset3": _offset(3),
           "padded_rows": _padded_rows, "seq_padded": _seq_padded}


@pytest.mark.parametrize("d,dtype", [(64, "fp16"), (72, "bf16"), (128, "bf16")])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_layouts_fwd_bwd(layout, d, dtype):
    q, k, v, dout = _case(2, 97, 130, 4, 2, d, DTYPES[dtype], seed=len(layout) + d)
    q, k, v = (LAYOUTS[layout](x) for x in (q, k, v))
    _fwd_check(q, k, v, f"layout {layout} d{d}", causal=True)
    _grads_check(q, k, v, dout, f"layout {layout} d{d} bwd", causal=True)


@pytest.mark.parametrize("d,dtype", [(64, "bf16"), (80, "fp16")])
@pytest.mark.parametrize("packed", ["qkv", "kv"])
def test_packed_fwd_bwd(packed, d, dtype):
    """k and v (and q) as views into one packed tensor: (b, s, 3, h, d) / (b, s, 2, hk, d)."""
    g = _gen(d)
    dt = DTYPES[dtype]
    if packed == "qkv":
        qkv = _randn((2, 129, 3, 4, d), dt, g)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
    else:
        q = _randn((2, 65, 6, d), dt, g)
        kv = _randn((2, 200, 2, 3, d), dt, g)
        k, v = kv[:, :, 0], kv[:, :, 1]
    dout = _randn(q.shape, dt, g)
    _fwd_check(q, k, v, f"packed {packed} d{d}", causal=True)
    _grads_check(q, k, v, dout, f"packed {packed} d{d} bwd", causal=True)
    _fwd_check(q[:, -1:], k, v, f"packed {packed} d{d} decode")  # seqlen_q 1: flash_attn_func's split-KV path


@pytest.mark.parametrize("which", ["kv", "qkv"])
def test_batch_stride_zero(which):
    """expand(): batch stride 0 on k, v (and q); gradients per expanded batch element."""
    g = _gen(5)
    q = _randn((3, 65, 4, 72), BF16, g)
    k, v = (_randn((1, 100, 2, 72), BF16, g).expand(3, -1, -1, -1) for _ in range(2))
    if which == "qkv":
        q = q[:1].expand(3, -1, -1, -1)
    dout = _randn(q.shape, BF16, g)
    _fwd_check(q, k, v, f"expand {which}", causal=True)
    _grads_check(q, k, v, dout, f"expand {which} bwd", causal=True)


@pytest.mark.parametrize("kind", ["transposed", "stride2", "offset1", "batch_stride0"])
def test_dout_layouts(kind):
    g = _gen(7)
    q, k, v = rand_qkv(2, 129, 65, 4, 2, 80, BF16, DEV, g)
    if kind == "transposed":
        dout = _randn((2, 4, 129, 80), BF16, g).transpose(1, 2)
    elif kind == "stride2":
        dout = _randn((2, 129, 4, 160), BF16, g)[..., ::2]
    elif kind == "offset1":
        dout = _offset(1)(_randn(q.shape, BF16, g))
    else:
        dout = _randn((1, 129, 4, 80), BF16, g).expand(2, -1, -1, -1)
    _grads_check(q, k, v, dout, f"dout {kind}", causal=True)


@pytest.mark.parametrize("need", [(True, False, False), (False, True, False), (False, False, True),
                                  (True, False, True), (False, True, True)], ids=["q", "k", "v", "qv", "kv"])
@pytest.mark.parametrize("det", [False, True], ids=["atomic_dq", "deterministic"])
def test_requires_grad_subsets(need, det):
    q, k, v, dout = _case(2, 129, 200, 6, 2, 96, F16, seed=sum(need) + 2 * det)
    _grads_check(q, k, v, dout, f"requires_grad {need} det={det}", need=need, causal=True, deterministic=det)


def test_planned_forward_alignment_flip():
    """Repeated signatures take the planned forward (interface._CHECKED / compiled.forward_planned, keyed on the
    pointers' alignment): aligned, then 1-element offset views (same shapes and strides), then aligned again."""
    for i, layout in enumerate([lambda x: x, _offset(1), lambda x: x, _offset(1), _offset(8)]):
        q, k, v, _ = _case(2, 33, 300, 4, 2, 64, F16, seed=40 + i)
        q, k, v = (layout(x) for x in (q, k, v))
        out = rocflash.flash_attn_func(q, k, v, causal=True, backend=_backend())
        _sync()
        assert_close_to_reference(out, None, q, k, v, fwd_args(64, True), f"planned call {i}")
        qd = layout(q[:, :1].contiguous())
        dec = rocflash.flash_attn_func(qd, k, v, backend=_backend())  # decode shape: the split-KV kernel
        _sync()
        assert_close_to_reference(dec, None, qd, k, v, fwd_args(64, False), f"planned decode {i}")


# ------------------------------------------------------------------ 3. windows, softcap, ALiBi on tensor cores
WINDOWS = [(0, 0), (5000, 5000), (-1, 3000), (3000, -1), (2, 0), (0, 7), (100, -1), (-1, 1), (1, 1)]


@pytest.mark.parametrize("sq,sk", [(129, 65), (65, 257)])
@pytest.mark.parametrize("window", WINDOWS, ids=[f"w{a}_{b}" for a, b in WINDOWS])
def test_windows_fwd_bwd(window, sq, sk):
    q, k, v, dout = _case(2, sq, sk, 4, 2, 96, BF16, seed=window[0] % 97 + sq)
    _fwd_check(q, k, v, f"window {window} {sq}x{sk}", window=window)
    _grads_check(q, k, v, dout, f"window {window} {sq}x{sk} bwd", window=window, deterministic=sq > sk)


@pytest.mark.parametrize("window", [(0, 0), (3000, 0), (7, 0)])
def test_causal_with_window_rows_without_keys(window):
    q, k, v, dout = _case(1, 200, 70, 4, 4, 128, F16, seed=window[0] + 3)
    _fwd_check(q, k, v, f"causal window {window}", causal=True, window=window)
    _grads_check(q, k, v, dout, f"causal window {window} bwd", causal=True, window=window)


@pytest.mark.parametrize("d,dtype", [(40, "fp16"), (64, "bf16"), (128, "fp16"), (256, "bf16")])
@pytest.mark.parametrize("softcap", [1.0, 50.0])
def test_softcap_fwd(softcap, d, dtype):
    q, k, v, _ = _case(2, 129, 300, 4, 2, d, DTYPES[dtype], seed=d + int(softcap))
    q = q * 3  # scores large enough to reach the cap
    _fwd_check(q, k, v, f"softcap {softcap} d{d} {dtype}", causal=True, softcap=softcap)


@pytest.mark.parametrize("d", [40, 64, 128])
@pytest.mark.parametrize("softcap", [1.0, 50.0])
def test_softcap_bwd(softcap, d):
    q, k, v, dout = _case(2, 129, 65, 4, 2, d, BF16, seed=d * 3 + int(softcap))
    _grads_check(q * 3, k, v, dout, f"softcap bwd {softcap} d{d}", causal=True, softcap=softcap)


@pytest.mark.parametrize("shape", ["h", "bh"])
@pytest.mark.parametrize("d,dtype", [(72, "fp16"), (128, "bf16"), (256, "fp16")])
def test_alibi_fwd(shape, d, dtype):
    g = _gen(d)
    q, k, v = rand_qkv(2, 200, 70, 4, 2, d, DTYPES[dtype], DEV, g)
    slopes = torch.rand((4,) if shape == "h" else (2, 4), generator=g).to(DEV) * 0.5
    _fwd_check(q, k, v, f"alibi {shape} d{d}", causal=True, alibi=slopes)


@pytest.mark.parametrize("d", [64, 100])
def test_softcap_alibi_window_bwd(d):
    g = _gen(d + 1)
    q, k, v = rand_qkv(2, 130, 190, 4, 2, d, F16, DEV, g)
    dout = _randn(q.shape, F16, g)
    slopes = torch.rand(2, 4, generator=g).to(DEV) * 0.3
    kw = dict(window=(40, 9), softcap=20.0, alibi=slopes)
    _fwd_check(q, k, v, f"softcap+alibi+window d{d}", **kw)
    _grads_check(q, k, v, dout, f"softcap+alibi+window d{d} bwd", **kw)


# ------------------------------------------------------------------ 4. determinism
@pytest.mark.parametrize("d,window", [(80, (-1, -1)), (120, (33, 0)), (64, (0, 0))])
def test_deterministic_bitwise(d, window):
    q, k, v, dout = _case(2, 300, 257, 6, 2, d, BF16, seed=d)
    kw = dict(causal=True, window_size=window, deterministic=True)
    first = _grads(q, k, v, dout, **kw)
    for _ in range(2):
        again = _grads(q, k, v, dout, **kw)
        assert torch.equal(first[0], again[0]), "out differs between calls"
        assert all(torch.equal(a, b) for a, b in zip(first[1], again[1])), "deterministic=True grads differ"


def test_deterministic_false_close_to_true():
    """deterministic=False: within the rule, dk and dv bitwise as deterministic=True, dq within fp32 order."""
    q, k, v, dout = _case(2, 257, 300, 8, 2, 72, F16, seed=9)
    det = _grads_check(q, k, v, dout, "det", causal=True, deterministic=True)
    atomic = _grads_check(q, k, v, dout, "atomic", causal=True, deterministic=False)
    assert torch.equal(det[1], atomic[1]) and torch.equal(det[2], atomic[2])
    scale = det[0].abs().max().item()
    assert (det[0].float() - atomic[0].float()).abs().max().item() <= 4 * torch.finfo(F16).eps * scale


def test_use_deterministic_algorithms_bitwise():
    """torch.use_deterministic_algorithms(True) makes deterministic=False repeatable too (interface docstring)."""
    q, k, v, dout = _case(2, 257, 257, 8, 2, 128, BF16, seed=10)
    prev, warn = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        runs = [_grads(q, k, v, dout, causal=True, deterministic=False)[1] for _ in range(3)]
    finally:
        torch.use_deterministic_algorithms(prev, warn_only=warn)
    assert all(torch.equal(a, b) for r in runs[1:] for a, b in zip(runs[0], r))


# ------------------------------------------------------------------ 5. garbage in rows no query sees
GARBAGE = {  # (sq, sk, h, hk, causal, window, garbage keys)
    "causal_sq_gt_sk": (150, 70, 4, 2, True, (-1, -1), [20, 69]),
    "causal_sq_lt_sk": (50, 150, 4, 1, True, (-1, -1), [120, 149]),
    "window_unseen": (40, 300, 6, 2, False, (9, 0), [0, 100, 250]),
    "window_both": (200, 200, 2, 2, False, (5, 3), [0, 64, 128, 199]),
}


def _blind(sq, sk, causal, window, keys):
    from rocflash.masks import MaskRule
    rule = MaskRule(sq, sk, window[0], 0 if causal else window[1])
    vis = rule.visible_grid(torch.arange(sq), torch.arange(sk))[:, keys].any(dim=1)
    return ~vis, not bool(vis.any())


@pytest.mark.parametrize("d,dtype", [(72, "bf16"), (120, "fp16"), (24, "fp16"), (200, "bf16")])
@pytest.mark.parametrize("case", sorted(GARBAGE))
def test_unseen_garbage_padded_headdims(case, d, dtype):
    sq, sk, h, hk, causal, window, keys = GARBAGE[case]
    q, k, v, dout = _case(2, sq, sk, h, hk, d, DTYPES[dtype], seed=len(case) + d)
    kw = dict(causal=causal, window_size=window, deterministic=True)
    need_grad = d <= 128  # the tensor-core backward's range; d200 runs the vector backward (forward checked)
    kg, vg = k.clone(), v.clone()
    for i, j in enumerate(keys):
        kg[:, j, :, i % 3::3] = NAN if i % 2 == 0 else INF
        vg[:, j, :, ::2], vg[:, j, :, 1::2] = NAN, -INF
    runs = []
    for kk, vv in ((k, v), (kg, vg)):
        if need_grad:
            leaves = [x.clone().requires_grad_() for x in (q, kk, vv)]
            out, lse, _ = rocflash.flash_attn_func(*leaves, return_attn_probs=True, backend=_backend(), **kw)
            grads = torch.autograd.grad(out, leaves, dout)
        else:
            out, lse, _ = rocflash.flash_attn_func(q, kk, vv, return_attn_probs=True, backend=_backend(), **kw)
            grads = (None, None, None)
        _sync()
        runs.append((out.detach(), lse, *grads))
    clean, dirty = runs
    blind, unseen = _blind(sq, sk, causal, window, keys)
    blind = blind.to(DEV)
    assert blind.any()
    what = f"{case} d{d} {dtype}"
    for name, i, sl in (("out", 0, (slice(None), blind)), ("lse", 1, (slice(None), slice(None), blind)),
                        ("dq", 2, (slice(None), blind))):
        if runs[0][i] is None:
            continue
        a, b = dirty[i][sl], clean[i][sl]
        assert torch.equal(a, b), f"{what}: {name} of rows that cannot see the garbage changed"
    if need_grad and unseen:
        assert torch.equal(dirty[3], clean[3]) and torch.equal(dirty[4], clean[4]), f"{what}: dk/dv changed"
    assert_close_to_reference(clean[0], clean[1], q, k, v, fwd_args(d, causal, window), what)


# ------------------------------------------------------------------ 6. large magnitudes
@pytest.mark.parametrize("d", [64, 128, 80])
@pytest.mark.parametrize("causal", [False, True])
def test_large_magnitude_bf16(d, causal):
    """|q|, |k| ~ 30 in bf16: scores in the thousands, rows nearly one-hot (fp32 scores in the kernel)."""
    g = _gen(d + causal)
    q, k, v = _randn((2, 129, 4, d), BF16, g, 30.0), _randn((2, 257, 2, d), BF16, g, 30.0), _randn((2, 257, 2, d), BF16, g)
    dout = _randn(q.shape, BF16, g)
    _fwd_check(q, k, v, f"bf16 |q|,|k|~30 d{d}", causal=causal)
    _grads_check(q, k, v, dout, f"bf16 |q|,|k|~30 d{d} bwd", causal=causal)


@pytest.mark.parametrize("d", [64, 128, 96])
def test_fp16_near_overflow(d):
    """V near fp16's largest value (out near 6e4), q.k in the thousands; forward; backward with |V| ~ 1e3."""
    g = _gen(d)
    q, k = _randn((2, 129, 4, d), F16, g, 4.0), _randn((2, 200, 2, d), F16, g, 4.0)
    v = torch.rand((2, 200, 2, d), generator=g) * 2 - 1
    v = (v / v.abs().max() * 65000).to(DEV, F16)
    out, _ = _fwd_check(q, k, v, f"fp16 V~6.5e4 d{d}", causal=True)
    assert torch.isfinite(out).all()
    dout = _randn(q.shape, F16, g)
    _grads_check(q, k, (v.float() / 65).to(F16), dout, f"fp16 V~1e3 d{d} bwd", causal=True)


# ------------------------------------------------------------------ 7. decode / KV cache
def _caches(rows, cap, hk, d, lens, dtype, g):
    """Dense caches (rows, cap, hk, d): random in [0, lens[r]), NaN past it."""
    out = []
    for _ in range(2):
        c = torch.full((rows, cap, hk, d), NAN, dtype=dtype)
        for r, n in enumerate(lens):
            c[r, :n] = torch.randn(n, hk, d, generator=g).to(dtype)
        out.append(c.to(DEV))
    return out


def _pages(kc, vc, lens, page, g, junk=(-1, 2 ** 31 - 1)):
    """Paged copies of dense caches: shuffled blocks, unused blocks and slots NaN, table entries of unused pages
    junk (the API reads only the used pages' entries)."""
    need = [-(-n // page) for n in lens]
    width = max(max(need), 1) + 1
    nblocks = sum(need) + 4
    perm = torch.randperm(nblocks, generator=g).tolist()
    shape = (nblocks, page) + tuple(kc.shape[2:])
    kp = torch.full(shape, NAN, dtype=kc.dtype, device=DEV)
    vp = torch.full(shape, NAN, dtype=kc.dtype, device=DEV)
    table = torch.empty((len(lens), width), dtype=torch.int32)
    for b in range(len(lens)):
        for p in range(width):
            table[b, p] = junk[(b + p) % len(junk)]
    it = iter(perm)
    for b in range(len(lens)):
        for p in range(need[b]):
            blk = next(it)
            table[b, p] = blk
            m = min(page, lens[b] - p * page)
            kp[blk, :m], vp[blk, :m] = kc[b, p * page:p * page + m], vc[b, p * page:p * page + m]
    return kp, vp, table.to(DEV)


def _kv_check(out, lse, q, keys, values, args, what):
    assert out.shape == q.shape and lse.shape == (q.shape[0], q.shape[2], q.shape[1]) and lse.dtype == torch.float32
    for b in range(q.shape[0]):
        if keys[b].shape[0] == 0:
            assert torch.equal(out[b], torch.zeros_like(out[b])) and torch.isneginf(lse[b]).all(), f"{what} seq {b}"
            continue
        assert_close_to_reference(out[b:b + 1], lse[b:b + 1], q[b:b + 1], keys[b][None], values[b][None], args,
                                  f"{what} seq {b}")


def _kvcache(q, kc, vc, k=None, v=None, **kw):
    out, lse = rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, return_softmax_lse=True, backend=_backend(), **kw)
    _sync()
    return out, lse


PAGED = [(16, [0, 16, 15, 33]), (48, [47, 48, 49, 1]), (112, [300, 0, 112, 5]), (144, [143, 1, 288, 17]),
         (240, [239, 480, 0, 241]), (256, [256, 1, 511, 100])]


@pytest.mark.parametrize("seqlen_q,append", [(1, True), (3, True), (5, False)], ids=["s1app", "s3app", "s5"])
@pytest.mark.parametrize("page,lens", PAGED, ids=[f"p{p}" for p, _ in PAGED])
def test_paged_shuffled(page, lens, seqlen_q, append, monkeypatch):
    """Page sizes with lengths on and off page boundaries, shuffled blocks, NaN in unused blocks / slots, junk
    table entries of unused pages; GQA 12:3, bf16 d128; speculative rows causal. ROCFLASH_INDEX_CHECKS=off: a
    repeated signature's device-side check that rejected a junk entry of an unused page would give NaN here (a
    contained failure) instead of a device-side assert."""
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "off")
    g = _gen(page + seqlen_q)
    new = seqlen_q if append else 0
    kc, vc = _caches(4, 600, 3, 128, lens, BF16, g)
    if not append and min(lens) == 0:
        lens = [max(n, 1) for n in lens]  # every sequence sees a key (lens 0 is in the dense cases)
        kc, vc = _caches(4, 600, 3, 128, lens, BF16, g)
    kp, vp, table = _pages(kc, vc, [n + new for n in lens], page, g)
    q = _randn((4, seqlen_q, 12, 128), BF16, g)
    k, v = (_randn((4, new, 3, 128), BF16, g) for _ in range(2)) if append else (None, None)
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    kp0, vp0 = kp.clone(), vp.clone()
    out, lse = _kvcache(q, kp, vp, k, v, cache_seqlens=seqlens, block_table=table, causal=True)
    keys = [torch.cat([kc[b, :n], k[b]]) if append else kc[b, :n] for b, n in enumerate(lens)]
    values = [torch.cat([vc[b, :n], v[b]]) if append else vc[b, :n] for b, n in enumerate(lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(128, True), f"paged {page} sq{seqlen_q} append={append}")
    if not append:  # the same signature again: the compiled backends' fast path (device-side index checks) with
        again = _kvcache(q, kp, vp, cache_seqlens=seqlens, block_table=table, causal=True)  # junk unused entries
        assert torch.equal(again[0], out) and torch.equal(again[1], lse), "fast path: other bits"
    if append:  # only the appended slots changed
        changed = ~((kp == kp0) | (kp.isnan() & kp0.isnan()))
        t = table.cpu()
        for b, n in enumerate(lens):
            for j in range(new):
                pos = n + j
                blk, slot = int(t[b, pos // page]), pos % page
                assert torch.equal(kp[blk, slot], k[b, j]) and torch.equal(vp[blk, slot], v[b, j])
                changed[blk, slot] = False
        assert not changed.any(), "the append wrote outside the new tokens' slots"


@pytest.mark.parametrize("num_splits", [0, 1, 3, 7, 128])
@pytest.mark.parametrize("d,dtype", [(64, "fp16"), (128, "bf16"), (72, "bf16"), (256, "fp16")])
def test_dense_decode_splits(d, dtype, num_splits):
    """Dense cache with cache_seqlens 0 (only the new key), short, one past a tile, = capacity - 1 (the append fills
    the cache); MQA 8:1; every split count, empty splits included (128 splits of ~1000 keys)."""
    g = _gen(d + num_splits)
    lens = [0, 5, 65, 1023]
    kc, vc = _caches(4, 1024, 1, d, lens, DTYPES[dtype], g)
    q = _randn((4, 1, 8, d), DTYPES[dtype], g)
    k, v = (_randn((4, 1, 1, d), DTYPES[dtype], g) for _ in range(2))
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=seqlens, num_splits=num_splits)
    keys = [kc[b, :n + 1] for b, n in enumerate(lens)]
    values = [vc[b, :n + 1] for b, n in enumerate(lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(d), f"dense decode d{d} splits {num_splits}")
    for _ in range(2):  # the second one takes the compiled backends' fast path
        again = _kvcache(q, kc, vc, cache_seqlens=seqlens + 1, num_splits=num_splits)
        assert torch.equal(again[0], out) and torch.equal(again[1], lse), "not bitwise repeatable"


def test_cache_full_and_empty():
    """cache_seqlens = capacity (no append, k=None, and None = the whole cache) and 0 without append (no key)."""
    g = _gen(3)
    kc, vc = _caches(3, 300, 2, 96, [300, 300, 300], F16, g)
    q = _randn((3, 2, 4, 96), F16, g)
    full = _kvcache(q, kc, vc, cache_seqlens=300, causal=True)
    _kv_check(*full, q, list(kc), list(vc), fwd_args(96, True), "cache full")
    none = _kvcache(q, kc, vc, causal=True)
    assert torch.equal(none[0], full[0]) and torch.equal(none[1], full[1])
    empty = _kvcache(q, kc, vc, cache_seqlens=torch.zeros(3, dtype=torch.int32, device=DEV))
    assert torch.equal(empty[0], torch.zeros_like(empty[0])) and torch.isneginf(empty[1]).all()


@pytest.mark.parametrize("seqlen_q", [2, 3, 5, 8])
@pytest.mark.parametrize("window", [(-1, -1), (4, 0), (0, 0), (2000, 0)], ids=["nowin", "w4", "w0", "w2000"])
def test_speculative_against_cache(seqlen_q, window):
    g = _gen(seqlen_q * 10 + window[0])
    lens = [0, 3, 200, 777]
    kc, vc = _caches(4, 800, 2, 64, lens, BF16, g)
    q = _randn((4, seqlen_q, 6, 64), BF16, g)
    k, v = (_randn((4, seqlen_q, 2, 64), BF16, g) for _ in range(2))
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV),
                        causal=True, window_size=window, num_splits=3)
    keys = [kc[b, :n + seqlen_q] for b, n in enumerate(lens)]
    values = [vc[b, :n + seqlen_q] for b, n in enumerate(lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(64, True, window), f"speculative sq{seqlen_q} window {window}")


@pytest.mark.parametrize("idx", [[3, 1, 2], [5, 0, 4], [2, 2, 2]], ids=["perm", "subset", "repeat_noappend"])
def test_cache_batch_idx(idx):
    """cache_batch_idx permutations and subsets (rows not named stay bitwise untouched); a repeated row without
    append. Speculative seqlen_q 4 causal, fp16 d80."""
    g = _gen(sum(idx))
    rows_lens = [5, 300, 0, 77, 129, 64]
    kc, vc = _caches(6, 400, 2, 80, rows_lens, F16, g)
    kc0, vc0 = kc.clone(), vc.clone()
    append = len(set(idx)) == len(idx)
    sq = 4
    q = _randn((3, sq, 8, 80), F16, g)
    k, v = (_randn((3, sq, 2, 80), F16, g) for _ in range(2)) if append else (None, None)
    lens = [max(rows_lens[r], 0 if append else sq) for r in idx]
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    if not append:
        for r in idx:  # the rows this case reads without append: fill the first lens slots
            kc[r, :lens[0]] = _randn((lens[0], 2, 80), F16, g)
            vc[r, :lens[0]] = _randn((lens[0], 2, 80), F16, g)
        kc0, vc0 = kc.clone(), vc.clone()
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=seqlens,
                        cache_batch_idx=torch.tensor(idx, dtype=torch.int32, device=DEV), causal=True)
    new = sq if append else 0
    keys = [kc[r, :n + new] for r, n in zip(idx, lens)]
    values = [vc[r, :n + new] for r, n in zip(idx, lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(80, True), f"cache_batch_idx {idx}")
    for r in range(6):
        if r not in idx:
            assert torch.equal(kc[r].isnan(), kc0[r].isnan()) and torch.equal(kc[r].nan_to_num(), kc0[r].nan_to_num())


@pytest.mark.parametrize("num_splits", [1, 3])
@pytest.mark.parametrize("window", [(-1, -1), (1, 0)], ids=["nowin", "w1"])
def test_kvcache_rows_without_keys(window, num_splits):
    """seqlen_q 5 > the keys (cache_seqlens 0 / 1 + 2 new, causal): the first rows see no key (out 0, LSE -inf, as
    flash-attn); the new k, v are non-contiguous views (transposed storage)."""
    g = _gen(num_splits + window[0])
    lens = [0, 1]
    kc, vc = _caches(2, 40, 2, 64, lens, F16, g)
    q = _randn((2, 5, 4, 64), F16, g)
    k, v = (_transposed(_randn((2, 2, 2, 64), F16, g)) for _ in range(2))
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV), causal=True,
                        window_size=window, num_splits=num_splits)
    for b, n in enumerate(lens):
        assert torch.equal(kc[b, n:n + 2], k[b]) and torch.equal(vc[b, n:n + 2], v[b])
        assert torch.isneginf(lse[b, :, :3 - n]).all() and torch.equal(out[b, :3 - n], torch.zeros_like(out[b, :3 - n]))
    _kv_check(out, lse, q, [kc[b, :n + 2] for b, n in enumerate(lens)], [vc[b, :n + 2] for b, n in enumerate(lens)],
              fwd_args(64, True, window), f"rows without keys window {window} splits {num_splits}")


def test_int_vs_tensor_cache_seqlens_same_bits():
    g = _gen(4)
    kc, vc = _caches(3, 2000, 2, 128, [1500] * 3, BF16, g)
    q = _randn((3, 1, 8, 128), BF16, g)
    a = _kvcache(q, kc, vc, cache_seqlens=1500)
    b = _kvcache(q, kc, vc, cache_seqlens=torch.full((3,), 1500, dtype=torch.int32, device=DEV))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    _kv_check(*a, q, [kc[i, :1500] for i in range(3)], [vc[i, :1500] for i in range(3)], fwd_args(128), "int lens")


def test_repeated_calls_changing_lengths():
    """The same signature called again (the compiled backends' fast path: no host checks) with other lengths,
    tensor and int: each call against fp64; a bad int on a later call still raises before anything changes."""
    g = _gen(5)
    kc, vc = _caches(2, 700, 2, 64, [700, 700], F16, g)
    kc[:, 650:] = NAN
    vc[:, 650:] = NAN
    q = _randn((2, 1, 4, 64), F16, g)
    for lens in ([5, 300], [0, 649], [649, 1], [64, 65]):
        k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
        before_k, before_v = kc.clone(), vc.clone()
        out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV))
        _kv_check(out, lse, q, [kc[b, :n + 1] for b, n in enumerate(lens)], [vc[b, :n + 1] for b, n in enumerate(lens)],
                  fwd_args(64), f"repeat lens {lens}")
        kc.copy_(before_k), vc.copy_(before_v)  # keep the NaN tail for the next lengths
    for n in (10, 400, 649):
        k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
        before_k = kc.clone()
        out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=n)
        _kv_check(out, lse, q, [kc[b, :n + 1] for b in range(2)], [vc[b, :n + 1] for b in range(2)], fwd_args(64),
                  f"repeat int {n}")
        kc.copy_(before_k)
    k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
    before_k, before_v = kc.clone(), vc.clone()
    with pytest.raises(ValueError, match=r"cache_seqlens.*700.*got 700 \+ 1"):
        _kvcache(q, kc, vc, k, v, cache_seqlens=700)
    assert torch.equal(kc.nan_to_num(), before_k.nan_to_num()) and torch.equal(vc.nan_to_num(), before_v.nan_to_num())


@pytest.mark.parametrize("d", [8, 72, 100, 160])
def test_decode_odd_headdims_softcap_alibi(d):
    """Decode through flash_attn_with_kvcache and flash_attn_func (split-KV) at headdims off the split buckets,
    with softcap / ALiBi / a window and 3 splits."""
    g = _gen(d)
    lens = [1, 900, 33]
    kc, vc = _caches(3, 1000, 2, d, lens, BF16, g)
    q = _randn((3, 1, 6, d), BF16, g)
    slopes = torch.rand(3, 6, generator=g).to(DEV) * 0.1
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    for kw in (dict(softcap=5.0), dict(alibi_slopes=slopes), dict(window_size=(100, 0))):
        out, lse = _kvcache(q, kc, vc, cache_seqlens=seqlens, num_splits=3, **kw)
        args = fwd_args(d, False, kw.get("window_size", (-1, -1)), kw.get("softcap", 0.0), kw.get("alibi_slopes"))
        for b, n in enumerate(lens):
            from dataclasses import replace
            a = replace(args, alibi_slopes=slopes[b]) if "alibi_slopes" in kw else args
            assert_close_to_reference(out[b:b + 1], lse[b:b + 1], q[b:b + 1], kc[b:b + 1, :n], vc[b:b + 1, :n], a,
                                      f"decode d{d} {sorted(kw)} seq {b}")
    k, v = kc[1:2, :900], vc[1:2, :900]
    _fwd_check(q[1:2], k, v, f"flash_attn_func decode d{d}", softcap=5.0)


def test_noncontiguous_caches_and_q():
    """Caches that are head slices of a wider tensor (strides not packed), q transposed storage."""
    g = _gen(6)
    lens = [17, 500]
    kw_, vw_ = _caches(2, 512, 4, 128, lens, F16, g)
    kc, vc = kw_[:, :, 1::2], vw_[:, :, 1::2]
    q = _transposed(_randn((2, 3, 8, 128), F16, g))
    k, v = (_randn((2, 3, 2, 128), F16, g) for _ in range(2))
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV), causal=True)
    _kv_check(out, lse, q, [kc[b, :n + 3] for b, n in enumerate(lens)], [vc[b, :n + 3] for b, n in enumerate(lens)],
              fwd_args(128, True), "sliced caches")
    for b, n in enumerate(lens):  # the other heads of the wide tensors: untouched (NaN past the old lengths)
        assert bool(kw_[b, n:, 0::2].isnan().all()) and bool(vw_[b, n:, 0::2].isnan().all()), \
            "the append wrote into the other heads of the wide tensor"


# ------------------------------------------------------------------ 8. bad inputs: raised before any launch
def _bad_cache_call(what):
    g = _gen(1)
    q = _randn((2, 1, 4, 64), F16, g)
    k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
    kc, vc = _caches(2, 61, 2, 64, [10, 20], F16, g)  # a capacity no valid call of this file has (no fast path)
    kw = dict(cache_seqlens=torch.tensor([10, 20], dtype=torch.int32, device=DEV))
    if what == "block_table_int64":
        kp, vp, t = _pages(kc, vc, [11, 21], 16, g)
        kc, vc, kw["block_table"] = kp, vp, t.long()
    elif what == "page_24":
        kc = torch.full((8, 24, 2, 64), NAN, dtype=F16, device=DEV)
        vc = kc.clone()
        kw["block_table"] = torch.arange(4, dtype=torch.int32, device=DEV).view(2, 2)
    elif what == "page_272":
        kc = torch.zeros((4, 272, 2, 64), dtype=F16, device=DEV)
        vc = kc.clone()
        kw["block_table"] = torch.arange(2, dtype=torch.int32, device=DEV).view(2, 1)
    elif what == "block_out_of_range":
        kp, vp, t = _pages(kc, vc, [11, 21], 16, g)
        t[1, 1] = kp.shape[0]
        kc, vc, kw["block_table"] = kp, vp, t
    elif what == "cache_seqlens_int64":
        kw["cache_seqlens"] = kw["cache_seqlens"].long()
    elif what == "cache_seqlens_shape":
        kw["cache_seqlens"] = torch.tensor([10, 20, 3], dtype=torch.int32, device=DEV)
    elif what == "cache_seqlens_overflow":
        kw["cache_seqlens"] = torch.tensor([10, 61], dtype=torch.int32, device=DEV)
    elif what == "cache_seqlens_negative":
        kw["cache_seqlens"] = -1
    elif what == "num_splits_129":
        kw["num_splits"] = 129
    elif what == "num_splits_neg":
        kw["num_splits"] = -1
    elif what == "cache_batch_idx_dup":
        kw["cache_batch_idx"] = torch.tensor([1, 1], dtype=torch.int32, device=DEV)
    elif what == "cache_batch_idx_range":
        kw["cache_batch_idx"] = torch.tensor([0, 2], dtype=torch.int32, device=DEV)
    elif what == "k_cache_dtype":
        kc = kc.to(BF16)
    elif what == "nheads_k_ratio":
        q = _randn((2, 1, 3, 64), F16, g)
    elif what == "causal_right_window":
        kw.update(causal=True, window_size=(-1, 3))
    return q, kc, vc, k, v, kw


BAD_CACHE = {
    "block_table_int64": (ValueError, r"block_table must have dtype torch.int32, got torch.int64"),
    "page_24": (ValueError, r"page_block_size .*must be a multiple of 16 from 16 to 256.*got 24"),
    "page_272": (ValueError, r"page_block_size.*got 272"),
    "block_out_of_range": (ValueError, r"block_table\[1\] must index blocks in \[0, num_blocks=\d+\).*got \d+"),
    "cache_seqlens_int64": (ValueError, r"cache_seqlens must have dtype torch.int32, got torch.int64"),
    "cache_seqlens_shape": (ValueError, r"cache_seqlens must have shape .*\(2,\).*got \(3,\)"),
    "cache_seqlens_overflow": (ValueError, r"cache_seqlens\[1\] \+ seqlen_new must be in \[0, .*61\], got 61 \+ 1"),
    "cache_seqlens_negative": (ValueError, r"cache_seqlens\[0\] \+ seqlen_new must be in .*got -1 \+ 1"),
    "num_splits_129": (ValueError, r"num_splits must be an int in \[0, 128\].*got 129"),
    "num_splits_neg": (ValueError, r"num_splits must be an int in \[0, 128\].*got -1"),
    "cache_batch_idx_dup": (ValueError, r"cache_batch_idx must hold distinct rows.*\[1, 1\]"),
    "cache_batch_idx_range": (ValueError, r"cache_batch_idx must index rows of k_cache in \[0, 2\), got 2"),
    "k_cache_dtype": (TypeError, r"k_cache must have q's dtype torch.float16.*got torch.bfloat16"),
    "nheads_k_ratio": (ValueError, r"nheads must be divisible by nheads_k .*got nheads=3, nheads_k=2"),
    "causal_right_window": (ValueError, r"window_size\[1\] must be -1 or 0 when causal=True.*got 3"),
}


@pytest.mark.parametrize("what", sorted(BAD_CACHE))
def test_bad_kvcache_inputs(what, monkeypatch):
    # value rules of index tensors: the host checks (the default "device" mode asserts on the device on a repeated
    # signature, which ends the process's CUDA context; a first call is checked on the host either way)
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "host")
    q, kc, vc, k, v, kw = _bad_cache_call(what)
    kc0, vc0 = kc.clone(), vc.clone()
    exc, pattern = BAD_CACHE[what]
    with pytest.raises(exc, match=pattern):
        rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, backend=_backend(), **kw)
    _sync()
    assert torch.equal(kc.isnan(), kc0.isnan()) and torch.equal(kc.nan_to_num(), kc0.nan_to_num()), \
        f"{what}: the cache changed although the call raised"
    assert torch.equal(vc.nan_to_num(), vc0.nan_to_num())


BAD_FUNC = {
    "headdim_0": (ValueError, r"headdim must be >= 1, got 0"),
    "headdim_257": (ValueError, r"headdim must be <= 256, got 257"),
    "nheads_ratio": (ValueError, r"nheads must be divisible by nheads_k .*got nheads=12, nheads_k=5"),
    "alibi_shape": (ValueError, r"alibi_slopes must have shape \(nheads,\)=\(12,\) or .*got \(3,\)"),
    "causal_right": (ValueError, r"window_size\[1\] must be -1 or 0 when causal=True.*got 2"),
    "mixed_dtype": (TypeError, r"q, k, v must have the same dtype, got torch.bfloat16, torch.float16"),
}


@pytest.mark.parametrize("what", sorted(BAD_FUNC))
def test_bad_flash_attn_func_inputs(what):
    g = _gen(2)
    d = {"headdim_0": 0, "headdim_257": 257}.get(what, 64)
    hk = 5 if what == "nheads_ratio" else 4
    q, k, v = _randn((1, 9, 12, d), BF16, g), _randn((1, 9, hk, d), BF16, g), _randn((1, 9, hk, d), BF16, g)
    kw = {}
    if what == "alibi_shape":
        kw["alibi_slopes"] = torch.ones(3, device=DEV)
    elif what == "causal_right":
        kw.update(causal=True, window_size=(-1, 2))
    elif what == "mixed_dtype":
        k = k.half()
    exc, pattern = BAD_FUNC[what]
    with pytest.raises(exc, match=pattern):
        rocflash.flash_attn_func(q, k, v, backend=_backend(), **kw)


BAD_VARLEN = {
    "cu_int64": (ValueError, r"cu_seqlens_q must have dtype torch.int32, got torch.int64"),
    "cu_decreasing": (ValueError, r"cu_seqlens_k must be non-decreasing.*cu_seqlens_k\[1\]=9 > cu_seqlens_k\[2\]=4"),
    "cu_total": (ValueError, r"cu_seqlens_q\[-1\] must equal the number of rows 12.*got 11"),
    "cu_2d": (ValueError, r"cu_seqlens_q must have shape \(batch \+ 1,\)"),
    "block_table_int64": (ValueError, r"block_table must have dtype torch.int32, got torch.int64"),
}


@pytest.mark.parametrize("what", sorted(BAD_VARLEN))
def test_bad_varlen_inputs(what, monkeypatch):
    # the compiled backends check cu_seqlens' values on the device by default (a device-side assert ends the CUDA
    # context): ROCFLASH_INDEX_CHECKS=host, the documented mode that raises the ValueError before any launch
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "host")
    g = _gen(3)
    q, k, v = _randn((12, 4, 64), F16, g), _randn((13, 2, 64), F16, g), _randn((13, 2, 64), F16, g)
    cq = torch.tensor([0, 5, 12], dtype=torch.int32, device=DEV)
    ck = torch.tensor([0, 9, 13], dtype=torch.int32, device=DEV)
    kw = {}
    if what == "cu_int64":
        cq = cq.long()
    elif what == "cu_decreasing":
        ck = torch.tensor([0, 9, 4, 13], dtype=torch.int32, device=DEV)
        cq = torch.tensor([0, 5, 6, 12], dtype=torch.int32, device=DEV)
    elif what == "cu_total":
        cq = torch.tensor([0, 5, 11], dtype=torch.int32, device=DEV)
    elif what == "cu_2d":
        cq = cq.view(1, 3)
    elif what == "block_table_int64":
        k = torch.randn(4, 16, 2, 64, generator=g).to(DEV, F16)
        v = k.clone()
        kw["block_table"] = torch.tensor([[0, 1], [2, 3]], device=DEV)
        ck = torch.tensor([0, 9, 20], dtype=torch.int32, device=DEV)
    exc, pattern = BAD_VARLEN[what]
    with pytest.raises(exc, match=pattern):
        rocflash.flash_attn_varlen_func(q, k, v, cq, ck, 7, 11, backend=_backend(), **kw)
