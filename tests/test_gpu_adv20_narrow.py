"""Adversarial GPU cases (adv20) for the narrow (unaligned-row) load path of the CUDA build's tensor-core forward
(hip_src/fmha_mma.h) and backward (hip_src/fmha_mma_bwd.h, fmha_mma_bwd_lean.h, fmha_mma_bwd_dq.h): the register-
staged ``copy_rows`` that run when a row of Q, K, V, O (backward: also dO, dQ, dK, dV) does not start on a 16-byte
boundary or headdim * elem_size is not a multiple of 16 (rocflash.backends.compiled.is_aligned, p.aligned=False).

Marker ``gpu``: skipped without a GPU and its compiled module (conftest). Every case compares against fp64 with
FlashAttention's rule (conftest: assert_close_to_reference, assert_grads_close: forward 2x, backward 3x the
low-precision eager error + 1e-3), outputs poisoned with NaN (conftest), fresh random inputs, and every input view
lives in a buffer whose other elements (before, after, between the rows, skipped heads) are NaN, so a read outside
the view poisons the result.

Every case asserts that it runs the narrow path: on the test's side is_aligned(q, k, v[, dout]) is False; on the
GPU the launchers' own is_aligned calls are recorded (a spy on rocflash.backends.compiled.is_aligned, with the
launch caches cleared before each call so every call computes it) and must all be False (the forward's too, except
the cases where only dout is unaligned: there the forward must be aligned and the backward narrow), and the tile
math recorded by compiled.last_kernels() must be "mma" where the tensor cores apply (forward headdim <= 256 with
stats or headdim <= 128, backward headdim <= 128), unless ROCFLASH_KERNEL=vector.

What is here: every headdim of the tensor-core buckets' edges that is not a multiple of 8 (forward 1..255,
backward 1..127), pointers 1..7 elements off on q / k / v / dout alone, strides that are not multiples of 8
elements on one tensor at a time (padded rows, transposed seq/head storage, heads-first storage, sliced heads),
seqlens 1..257 around the tiles with seqlen_q != seqlen_k (causal bottom-right, windows), GQA 8:2 and 8:1,
softcap and ALiBi, varlen with unaligned packed tensors, deterministic=True bitwise repeatability, results
bitwise independent of the garbage around the views, size-1 dimensions with odd strides (the 128-bit path), the
atomic-dQ kernel's opt-in variants (ROCFLASH_BWD_DQ_WGMMA, ROCFLASH_BWD_DQ_TILE), planned calls, paged K/V, an
unaligned KV cache appended to (flash_attn_with_kvcache). There is no out= argument in the API to attack.

CPU validation of the test logic (not CI): ``ADV20_BACKEND=torch`` or ``=sim`` runs the same cases on CPU tensors
through that backend (the gpu marker is then not applied): ``cd tests && ADV20_BACKEND=torch python -m pytest -q
test_gpu_adv20_narrow.py``. Unset (CI, the GPU run) it is "cuda": the compiled backend of the GPU (gpu_platform).
"""

from __future__ import annotations

import itertools
import math
import pytest
import torch

import rocflash
import rocflash.interface as rf_interface
from adv_backend import AdvBackend, gen
from conftest import (DTYPES, assert_close_to_reference, assert_grads_close, fwd_args, rand_qkv,
                      reference_grads)
from rocflash.backends import compiled
from rocflash.backends.compiled import is_aligned
from rocflash.backends.reference import attention_reference

_B = AdvBackend("ADV20_BACKEND")
ON_GPU, DEV, pytestmark = _B.on_gpu, _B.dev, _B.marks
_backend, _sync, _randn, _gen = _B.name, _B.sync, _B.randn, gen
NAN = float("nan")
F16, BF16 = torch.float16, torch.bfloat16
MAX_SPLIT_ROWS = 16  # rocflash.splitkv.MAX_ROWS: a forward without stats at seqlen_q * group <= 16 runs split-KV


# ------------------------------------------------------------------ layouts: views inside garbage
def place(x, offset=0, pad=0, order=None, head_step=1, tail=9, fill=NAN, grad=False):
    """x's values in a view of a fresh buffer filled with ``fill``: the view starts ``offset`` elements in, its
    rows hold headdim + ``pad`` elements, its leading dimensions are stored in ``order`` (a permutation of them,
    outermost first; None: as x), the heads dimension (dim -2) takes every ``head_step``-th head of a tensor with
    head_step times the heads, and ``tail`` garbage elements follow. A leaf (requires_grad=grad) with exactly that
    shape, strides and storage offset."""
    lead = list(x.shape[:-1])
    d = x.shape[-1]
    order = list(range(len(lead))) if order is None else list(order)
    hdim = len(lead) - 1
    sizes = [lead[i] * (head_step if i == hdim else 1) for i in order] + [d + pad]
    n = math.prod(sizes)
    buf = torch.full((offset + n + tail,), fill, dtype=x.dtype, device=x.device)
    big = buf[offset:offset + n].view(sizes)[..., :d]
    y = big.permute([order.index(i) for i in range(len(lead))] + [len(lead)])
    if head_step > 1:
        y = y[(slice(None),) * hdim + (slice(head_step - 1, None, head_step),)]
    assert y.shape == x.shape
    y.copy_(x)
    return y.detach().requires_grad_(grad)


# ------------------------------------------------------------------ the narrow-path spy (GPU)
@pytest.fixture
def spy(monkeypatch):
    """The results of the launchers' is_aligned calls: (number of tensors, result); 4 = a forward (q, k, v, out),
    8 = a backward (q, k, v, out, dout, dq, dk, dv). Empty on the CPU backends."""
    rec: list[tuple[int, bool]] = []
    if ON_GPU:
        real = compiled.is_aligned

        def recording(*tensors):
            r = real(*tensors)
            rec.append((len(tensors), r))
            return r
        monkeypatch.setattr(compiled, "is_aligned", recording)
    return rec


def _fresh():
    """Forget the launch caches, so the next call's launcher computes p.aligned (and the spy sees it)."""
    rf_interface._CHECKED.clear()  # (on the CPU backends too: the names stay checked)
    compiled._PARAMS_CACHE.clear()


def assert_narrow(rec, tensors, what, fwd_narrow=True, bwd=False, d=None, grad=False, rows=None):
    """The call(s) ran the narrow path: is_aligned of ``tensors`` (the test's view) is False, and on the GPU every
    recorded forward launch had p.aligned False (True when not ``fwd_narrow``: only dout is unaligned), every
    backward launch False, and the tile math was the tensor cores' where they apply."""
    assert not is_aligned(*tensors), f"{what}: the test's tensors are aligned"
    if not ON_GPU:
        return
    fwd = [r for n, r in rec if n == 4]
    back = [r for n, r in rec if n == 8]
    assert fwd, f"{what}: no forward launch recorded"
    assert all(r is (not fwd_narrow) for r in fwd), f"{what}: forward p.aligned {fwd}, expected {not fwd_narrow}"
    if bwd:
        assert back and not any(back), f"{what}: backward p.aligned {back}"
    if compiled.kernel_choice() == "vector" or d is None:
        return
    last = compiled.last_kernels()
    if d <= 128 or grad or (rows is not None and rows > MAX_SPLIT_ROWS):
        assert last.get("fwd") == "mma", f"{what}: forward tile math {last.get('fwd')}"
    if bwd and d <= 128:
        assert last.get("bwd") == "mma", f"{what}: backward tile math {last.get('bwd')}"


# ------------------------------------------------------------------ one call and its checks
def run(q, k, v, dout=None, causal=False, window=(-1, -1), softcap=0.0, alibi=None, deterministic=False):
    """flash_attn_func on the views as given (fresh launch caches): (out, lse, grads or None)."""
    _fresh()
    out, lse, probs = rocflash.flash_attn_func(q, k, v, causal=causal, window_size=window, softcap=softcap,
                                               alibi_slopes=alibi, deterministic=deterministic,
                                               return_attn_probs=True, backend=_backend())
    assert probs is None
    grads = None
    if dout is not None:
        grads = torch.autograd.grad(out, (q, k, v), dout)
    _sync()
    return out.detach(), lse, grads


def check(q, k, v, dout, what, causal=False, window=(-1, -1), softcap=0.0, alibi=None, deterministic=False,
          rec=None, fwd_narrow=True):
    """run + the fp64 checks (forward 2x with the LSE; backward 3x) + assert_narrow."""
    out, lse, grads = run(q, k, v, dout, causal, window, softcap, alibi, deterministic)
    args = fwd_args(q.shape[-1], causal, window, softcap, alibi)
    assert_close_to_reference(out, lse, q.detach(), k.detach(), v.detach(), args, what)
    if dout is not None:
        assert_grads_close(grads, q.detach(), k.detach(), v.detach(), dout, args, what)
    tensors = (q, k, v) if dout is None else (q, k, v, dout)
    if rec is not None:
        group = q.shape[2] // k.shape[2]
        assert_narrow(rec, tensors, what, fwd_narrow=fwd_narrow, bwd=dout is not None, d=q.shape[-1],
                      grad=dout is not None, rows=q.shape[1] * group)
    return out, lse, grads


def case(b, sq, sk, h, hk, d, dtype, seed, grad=False, **layout):
    """Fresh q, k, v (and dout when grad) placed by ``place(**layout)`` (NaN around them)."""
    g = _gen(seed)
    q, k, v = rand_qkv(b, sq, sk, h, hk, d, dtype, DEV, g)
    q, k, v = (place(x, grad=grad, **layout) for x in (q, k, v))
    dout = place(_randn(q.shape, dtype, g), **layout) if grad else None
    return q, k, v, dout


def _dt(i):
    return ("fp16", "bf16")[i % 2]


# ------------------------------------------------------------------ 1. headdims not a multiple of 8, bucket edges
# forward buckets 32 / 64 / 96 / 128 / 192 / 256 (ck_configs/fmha_fwd.toml, impl "mma"): each edge from both sides
FWD_HEADDIMS = [1, 3, 17, 25, 31, 33, 41, 57, 63, 65, 73, 95, 97, 100, 121, 127, 129, 161, 191, 193, 231, 255]
SEQS = [(1, 257), (2, 15), (15, 2), (17, 63), (63, 17), (65, 127), (127, 65), (129, 255), (255, 129), (257, 257),
        (1, 1), (129, 1), (16, 128), (64, 64)]


def _fwd_headdim_params():
    out = []
    for i, d in enumerate(FWD_HEADDIMS):
        for j in range(2):
            sq, sk = SEQS[(2 * i + j) % len(SEQS)]
            causal = (i + j) % 2 == 1
            dtype = _dt(i + j)  # both dtypes and both causal values at every headdim
            out.append(pytest.param(d, sq, sk, causal, dtype, id=f"d{d}-{dtype}-{sq}x{sk}{'c' if causal else ''}"))
    return out


@pytest.mark.parametrize("d,sq,sk,causal,dtype", _fwd_headdim_params())
def test_fwd_headdim_not_multiple_of_8(d, sq, sk, causal, dtype, spy):
    q, k, v, _ = case(2, sq, sk, 4, 2, d, DTYPES[dtype], seed=d * 31 + sq + sk, pad=d % 5)
    check(q, k, v, None, f"fwd d{d} {dtype} {sq}x{sk} causal={causal}", causal=causal, rec=spy)


# backward buckets 32 / 64 / 128 (ck_configs/fmha_bwd.toml): every (bucket, dtype, dQ mode) at least once
BWD_HEADDIMS = [1, 7, 25, 31, 33, 41, 57, 63, 65, 73, 95, 97, 100, 113, 121, 127]
BWD_SEQS = [(1, 1), (2, 15), (15, 2), (17, 63), (63, 17), (65, 127), (127, 65), (129, 255), (255, 129), (1, 129),
            (129, 1), (257, 257)]


def _bwd_headdim_params():
    out, n = [], 0
    for i, d in enumerate(BWD_HEADDIMS):
        for j in range(2):
            combo = (i // 2 * 2 + j) % 4 if d > 64 else (2 * i + j) % 4  # (dtype, det) over the bucket
            dtype, det = ("fp16", "bf16")[combo % 2], combo >= 2
            sq, sk = BWD_SEQS[n % len(BWD_SEQS)]
            causal = n % 3 != 0
            n += 1
            out.append(pytest.param(d, sq, sk, causal, dtype, det,
                                    id=f"d{d}-{dtype}-{sq}x{sk}{'c' if causal else ''}-{'det' if det else 'atomic'}"))
    return out


@pytest.mark.parametrize("d,sq,sk,causal,dtype,det", _bwd_headdim_params())
def test_bwd_headdim_not_multiple_of_8(d, sq, sk, causal, dtype, det, spy):
    q, k, v, dout = case(2, sq, sk, 4, 2, d, DTYPES[dtype], seed=d * 17 + sq + 3 * sk, grad=True, pad=(d + 1) % 4)
    check(q, k, v, dout, f"bwd d{d} {dtype} {sq}x{sk} causal={causal} det={det}", causal=causal,
          deterministic=det, rec=spy)


# ------------------------------------------------------------------ 2. one tensor 1..7 elements off
ALIGNED_D = [64, 128, 32, 96]


@pytest.mark.parametrize("which", ["q", "k", "v", "dout"])
@pytest.mark.parametrize("offset", range(1, 8))
def test_pointer_offset_one_tensor(which, offset, spy):
    """Only ``which`` starts offset elements (2-14 bytes) past a 16-byte boundary: an aligned headdim, the other
    tensors aligned (NaN before and after each view)."""
    i = offset + "qkvd".index(which[0])
    d, dtype = ALIGNED_D[i % 4], DTYPES[_dt(i)]
    g = _gen(100 * offset + len(which))
    q, k, v = rand_qkv(2, 97, 130, 4, 2, d, dtype, DEV, g)
    dout = _randn(q.shape, dtype, g)
    t = dict(q=q, k=k, v=v, dout=dout)
    t = {n: place(x, offset=offset if n == which else 0, grad=n != "dout") for n, x in t.items()}
    assert not is_aligned(t[which]) and is_aligned(*(x for n, x in t.items() if n != which))
    check(t["q"], t["k"], t["v"], t["dout"], f"offset {offset} on {which} d{d} {dtype}", causal=offset % 2 == 1,
          deterministic=offset % 3 == 0, rec=spy, fwd_narrow=which != "dout")


# ------------------------------------------------------------------ 3. strides that are not multiples of 8 elements
LAYOUTS = {  # place() arguments; each leaves an aligned headdim's rows or heads off 16-byte boundaries
    "rowpad4": dict(pad=4),                       # row stride headdim + 4 (8 bytes: 8-byte aligned, not 16)
    "rowpad3": dict(pad=3),
    "transposed_pad1": dict(order=(0, 2, 1), pad=1),   # (batch, heads, seqlen, headdim + 1) storage
    "heads_first_pad5": dict(order=(2, 0, 1), pad=5),  # (heads, batch, seqlen, headdim + 5) storage
    "sliced_heads_off3": dict(head_step=2, offset=3),  # every other head, 3 elements in
    "seq_first_off7": dict(order=(1, 0, 2), offset=7),  # (seqlen, batch, heads, headdim) storage, 7 in
}


@pytest.mark.parametrize("which", ["q", "k", "v", "dout"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_strided_one_tensor(layout, which, spy):
    i = sorted(LAYOUTS).index(layout) + "qkvd".index(which[0])
    d, dtype = (64, 128)[i % 2], DTYPES[_dt(i // 2)]
    g = _gen(7 * i + len(layout))
    q, k, v = rand_qkv(2, 65, 129, 4, 2, d, dtype, DEV, g)
    dout = _randn(q.shape, dtype, g)
    t = dict(q=q, k=k, v=v, dout=dout)
    t = {n: place(x, grad=n != "dout", **(LAYOUTS[layout] if n == which else {})) for n, x in t.items()}
    assert not is_aligned(t[which]) and is_aligned(*(x for n, x in t.items() if n != which))
    check(t["q"], t["k"], t["v"], t["dout"], f"{layout} on {which} d{d} {dtype}", causal=i % 2 == 0,
          deterministic=i % 3 == 0, rec=spy, fwd_narrow=which != "dout")


# ------------------------------------------------------------------ 4. seqlens around the tiles, causal, windows
MASKS = [(True, (-1, -1)), (False, (3, 0)), (False, (17, 5)), (False, (0, 0)), (False, (64, -1)), (False, (-1, 1)),
         (True, (40, -1)), (True, (0, -1))]
MASK_SEQS = [(1, 257), (257, 1), (15, 129), (129, 15), (63, 65), (65, 63), (127, 255), (255, 127)]


@pytest.mark.parametrize("i", range(16))
def test_masks_seqlens(i, spy):
    causal, window = MASKS[i % len(MASKS)]
    sq, sk = MASK_SEQS[(i * 3) % len(MASK_SEQS)]
    d = (57, 100, 127, 33)[i % 4]
    dtype = DTYPES[_dt(i // 4)]
    q, k, v, dout = case(2, sq, sk, 4, 2, d, dtype, seed=i + 500, grad=True, offset=i % 8)
    out, lse, grads = check(q, k, v, dout, f"mask causal={causal} window={window} {sq}x{sk} d{d}", causal=causal,
                            window=window, deterministic=i % 2 == 0, rec=spy)
    if causal and window == (-1, -1) and sq > sk:  # bottom-right: the first sq - sk rows see no key
        assert torch.equal(out[:, :sq - sk], torch.zeros_like(out[:, :sq - sk]))
        assert torch.isneginf(lse[:, :, :sq - sk]).all()
        assert torch.equal(grads[0][:, :sq - sk], torch.zeros_like(grads[0][:, :sq - sk]))


# ------------------------------------------------------------------ 5. GQA / MQA
@pytest.mark.parametrize("hk", [2, 1])
@pytest.mark.parametrize("how", ["offset", "headdim"])
@pytest.mark.parametrize("det", [False, True], ids=["atomic", "det"])
def test_gqa(hk, how, det, spy):
    d = 121 if how == "headdim" else 64
    layout = dict(offset=5) if how == "offset" else dict(pad=2)
    dtype = BF16 if det else F16
    q, k, v, dout = case(2, 129, 77, 8, hk, d, dtype, seed=hk * 10 + det, grad=True, **layout)
    check(q, k, v, dout, f"gqa 8/{hk} {how} det={det}", causal=True, deterministic=det, rec=spy)
    qd, kd, vd, _ = case(2, 1, 300, 8, hk, d, dtype, seed=hk + 3, **layout)  # decode shape: the split-KV kernel
    spy.clear()
    check(qd, kd, vd, None, f"gqa 8/{hk} {how} decode", rec=spy)


# ------------------------------------------------------------------ 6. softcap, ALiBi (the general-score tiles)
@pytest.mark.parametrize("d", [33, 100, 127, 193, 255])
@pytest.mark.parametrize("softcap", [1.0, 30.0])
def test_softcap(d, softcap, spy):
    grad = d <= 128
    q, k, v, dout = case(2, 129, 200, 4, 2, d, DTYPES[_dt(d)], seed=d + int(softcap), grad=grad, offset=d % 7 + 1)
    with torch.no_grad():
        q.mul_(3)  # scores large enough to reach the cap
    check(q, k, v, dout, f"softcap {softcap} d{d}", causal=d % 2 == 1, softcap=softcap, rec=spy,
          deterministic=softcap > 1)


@pytest.mark.parametrize("shape", ["h", "bh"])
@pytest.mark.parametrize("d", [41, 120, 200])
def test_alibi(shape, d, spy):
    grad = d <= 128
    g = _gen(d + len(shape))
    q, k, v, dout = case(2, 150, 70, 4, 2, d, DTYPES[_dt(d // 8)], seed=d * 3 + len(shape), grad=grad,
                         offset=1 if d == 120 else 0, pad=0 if d == 120 else 3)
    slopes = (torch.rand((4,) if shape == "h" else (2, 4), generator=g) * 0.5).to(DEV)
    check(q, k, v, dout, f"alibi {shape} d{d}", causal=True, alibi=slopes, rec=spy, deterministic=shape == "bh")


def test_softcap_alibi_window(spy):
    g = _gen(77)
    q, k, v, dout = case(2, 130, 190, 4, 2, 57, F16, seed=78, grad=True, offset=3)
    slopes = (torch.rand(2, 4, generator=g) * 0.3).to(DEV)
    check(q, k, v, dout, "softcap+alibi+window d57", window=(40, 9), softcap=20.0, alibi=slopes, rec=spy)


# ------------------------------------------------------------------ 7. varlen with unaligned packed tensors
def _varlen_check(q, k, v, cu_q, cu_k, out, lse, grads, dout, args, what):
    """Per sequence fp64 / low-precision references, assembled, then FlashAttention's rule on the whole."""
    h, d = q.shape[1], q.shape[2]
    ref = torch.zeros(q.shape, dtype=torch.float64, device=q.device)
    low = torch.zeros(q.shape, dtype=q.dtype, device=q.device)
    ref_lse = torch.full((h, q.shape[0]), float("-inf"), dtype=torch.float64, device=q.device)
    rg = [torch.zeros(t.shape, dtype=torch.float64, device=q.device) for t in (q, k, v)]
    lg = [torch.zeros(t.shape, dtype=q.dtype, device=q.device) for t in (q, k, v)]
    for b in range(len(cu_q) - 1):
        a0, a1, k0, k1 = int(cu_q[b]), int(cu_q[b + 1]), int(cu_k[b]), int(cu_k[b + 1])
        if a1 == a0 or k1 == k0:  # no rows, or rows without keys (out 0, LSE -inf, gradients 0)
            continue
        qs, ks, vs = q[a0:a1][None], k[k0:k1][None], v[k0:k1][None]
        r, rl = attention_reference(qs.double(), ks.double(), vs.double(), args, torch.float64)
        lo, _ = attention_reference(qs, ks, vs, args, q.dtype)
        ref[a0:a1], low[a0:a1], ref_lse[:, a0:a1] = r[0], lo[0], rl[0].double()
        if grads is not None:
            for acc, dt in ((rg, torch.float64), (lg, q.dtype)):
                gq, gk, gv = reference_grads(qs, ks, vs, dout[a0:a1][None], args, dt)
                acc[0][a0:a1], acc[1][k0:k1], acc[2][k0:k1] = gq[0], gk[0], gv[0]
    assert not torch.isnan(out).any(), f"{what}: NaN in out"
    err, base = (out.double() - ref).abs().max().item(), (low.double() - ref).abs().max().item()
    assert err <= 2 * base + 1e-3, f"{what}: max|out-ref| = {err:.3g} > 2 * {base:.3g} + 1e-3"
    assert lse.shape == ref_lse.shape and not torch.isnan(lse).any(), f"{what}: LSE shape / NaN"
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse)), f"{what}: -inf pattern of LSE"
    fin = torch.isfinite(ref_lse)
    assert (lse.double() - ref_lse)[fin].abs().max().item() <= 1e-3 * max(1.0, ref_lse[fin].abs().max().item())
    if grads is None:
        return
    for name, gx, r, lo in zip(("dq", "dk", "dv"), grads, rg, lg):
        assert not torch.isnan(gx).any(), f"{what}: NaN in {name}"
        e, bs = (gx.double() - r).abs().max().item(), (lo.double() - r).abs().max().item()
        assert e <= 3 * bs + 1e-3, f"{what}: {name} max|d-ref| = {e:.3g} > 3 * {bs:.3g} + 1e-3"


VARLEN = {  # (seqlens_q, seqlens_k, nheads, nheads_k, headdim, causal, window, layout)
    "offset3_d64": ([1, 17, 0, 129, 64], [1, 33, 0, 100, 64], 4, 2, 64, True, (-1, -1), dict(offset=3)),
    "d57_gqa": ([65, 1, 130], [65, 200, 7], 8, 2, 57, True, (-1, -1), dict(pad=1)),
    "rowpad4_mqa": ([127, 129, 2], [255, 1, 15], 4, 1, 128, False, (16, 3), dict(pad=4)),
    "d100_off1": ([33, 0, 77], [33, 5, 120], 4, 4, 100, False, (-1, -1), dict(offset=1)),
    "d25_keyless": ([5, 40, 9], [0, 63, 9], 2, 1, 25, True, (-1, -1), dict(offset=2, pad=2)),
}


@pytest.mark.parametrize("name", sorted(VARLEN))
@pytest.mark.parametrize("grad", [False, True], ids=["fwd", "bwd"])
def test_varlen(name, grad, spy):
    lq, lk, h, hk, d, causal, window, layout = VARLEN[name]
    dtype = DTYPES[_dt(len(name) + grad)]
    g = _gen(len(name) * 13 + grad)
    tq, tk = sum(lq), sum(lk)
    q = place(_randn((tq, h, d), dtype, g), grad=grad, **layout)
    k = place(_randn((tk, hk, d), dtype, g), grad=grad, **layout)
    v = place(_randn((tk, hk, d), dtype, g), grad=grad, **layout)
    dout = place(_randn((tq, h, d), dtype, g), **layout) if grad else None
    cu_q = torch.tensor([0, *itertools.accumulate(lq)], dtype=torch.int32, device=DEV)
    cu_k = torch.tensor([0, *itertools.accumulate(lk)], dtype=torch.int32, device=DEV)
    _fresh()
    out, lse, _ = rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lq), max(lk), causal=causal,
                                                  window_size=window, return_attn_probs=True, backend=_backend())
    grads = torch.autograd.grad(out, (q, k, v), dout) if grad else None
    _sync()
    what = f"varlen {name} grad={grad}"
    args = fwd_args(d, causal, window)
    _varlen_check(q.detach(), k.detach(), v.detach(), cu_q.tolist(), cu_k.tolist(), out.detach(), lse, grads, dout,
                  args, what)
    assert_narrow(spy, (q, k, v), what, bwd=grad, d=d, grad=grad, rows=max(lq) * (h // hk))


# ------------------------------------------------------------------ 8. determinism and garbage independence
@pytest.mark.parametrize("d,dtype,layout", [(57, "bf16", dict(offset=1)), (121, "fp16", dict(pad=3)),
                                            (128, "bf16", dict(offset=7)), (64, "fp16", dict(order=(0, 2, 1), pad=1))],
                         ids=["d57-off1", "d121-pad3", "d128-off7", "d64-transposed"])
def test_deterministic_bitwise(d, dtype, layout, spy):
    q, k, v, dout = case(2, 257, 200, 6, 2, d, DTYPES[dtype], seed=d, grad=True, **layout)
    first = run(q, k, v, dout, causal=True, deterministic=True)
    for _ in range(2):
        again = run(q, k, v, dout, causal=True, deterministic=True)
        assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1]), "out / LSE differ between runs"
        assert all(torch.equal(a, b) for a, b in zip(first[2], again[2])), "deterministic=True grads differ"
    assert_narrow(spy, (q, k, v, dout), f"det d{d}", bwd=True, d=d, grad=True)


GARBAGE = {  # layout, headdim, dtype, grad
    "off1_d64": (dict(offset=1), 64, "fp16", True),
    "off5_pad3_d57": (dict(offset=5, pad=3), 57, "bf16", True),
    "transposed_d127": (dict(order=(0, 2, 1), pad=1, offset=2), 127, "fp16", True),
    "sliced_heads_d33": (dict(head_step=3, offset=1), 33, "bf16", True),
    "pad7_d193": (dict(pad=7, offset=3), 193, "fp16", False),
    "off7_d255": (dict(offset=7), 255, "bf16", False),
}


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_garbage_around_views_bitwise(name, spy):
    """The same values in the same layout with NaN, then +inf / -inf, then 0 around the views: out, LSE and the
    (deterministic) gradients bitwise equal. Any read outside the views (before, after, between rows or heads)
    shows."""
    layout, d, dtype, grad = GARBAGE[name]
    g = _gen(len(name) + d)
    dt = DTYPES[dtype]
    src = rand_qkv(2, 150, 130, 4, 2, d, dt, DEV, g) + (_randn((2, 150, 4, d), dt, g),)
    runs = []
    for fill in (NAN, float("inf"), -float("inf"), 0.0, 6e4):
        q, k, v = (place(x, fill=fill, grad=grad, **layout) for x in src[:3])
        dout = place(src[3], fill=fill, **layout) if grad else None
        runs.append(run(q, k, v, dout, causal=True, deterministic=True))
    clean = runs[-2]
    for fill, r in zip(("nan", "inf", "-inf", "6e4"), runs[:3] + runs[4:]):
        assert torch.equal(r[0], clean[0]) and torch.equal(r[1], clean[1]), f"{name}: out / LSE moved with {fill}"
        if grad:
            assert all(torch.equal(a, b) for a, b in zip(r[2], clean[2])), f"{name}: grads moved with {fill}"
    check(q, k, v, dout, f"garbage {name}", causal=True, deterministic=True, rec=spy)


# ------------------------------------------------------------------ 9. size-1 dimensions with odd strides
def test_size_one_dims_odd_strides(spy):
    """is_aligned ignores the strides of size-1 dimensions (batch 1, nheads_k 1, seqlen_q 1): those calls take the
    128-bit path, and must be right; with one more unaligned row stride they take the narrow path."""
    g = _gen(3)
    d = 64
    base = torch.full((3 * 1000 * 8 * d,), NAN, dtype=F16, device=DEV)
    q = base.as_strided((1, 65, 4, d), (12345, 4 * d + 8, d, 1), 0)  # batch 1: batch stride odd
    k = base.as_strided((1, 90, 1, d), (777, d + 8, 13, 1), 400000)  # nheads_k 1: head stride odd
    v = base.as_strided((1, 90, 1, d), (777, d + 8, 3, 1), 800000)
    for t in (q, k, v):
        t.copy_(torch.randn(t.shape, generator=g).to(DEV, F16))
    assert is_aligned(q, k, v)
    out, lse, _ = run(q, k, v, None, causal=True)
    assert_close_to_reference(out, lse, q, k, v, fwd_args(d, True), "size-1 dims (128-bit path)")
    if ON_GPU:
        assert spy and all(r for _, r in spy), f"size-1 dims: p.aligned {spy}"
    spy.clear()
    k2 = base.as_strided((1, 90, 1, d), (777, d + 3, 13, 1), 1200000)  # row stride d + 3: narrow
    k2.copy_(k)
    check(q, k2, v, None, "size-1 dims + narrow k", causal=True, rec=spy)


# ------------------------------------------------------------------ 10. the atomic-dQ kernel's variants, planned calls
# The narrow path never runs the lean kernels (fmha_mma_bwd_launch.h: kAligned only): deterministic=False runs
# fmha_bwd_dkdvq_mma_kernel, or with an sm_90a build's opt-in switches (read at every launch) the wgmma-dQ or
# 32-row dQ tile kernel; each has the changed MmaBwdOps::copy_rows.
SWITCHES = [("ROCFLASH_BWD_DQ_WGMMA", "1"), ("ROCFLASH_BWD_DQ_TILE", "1"), ("ROCFLASH_BWD_LEAN", "0")]


@pytest.mark.parametrize("switch", SWITCHES, ids=["wgmma_dq", "dq_tile2", "lean0"])
@pytest.mark.parametrize("d,dtype,layout", [(57, "bf16", {}), (121, "fp16", dict(offset=3)),
                                            (64, "bf16", dict(offset=1)), (128, "fp16", dict(pad=4))],
                         ids=["d57", "d121-off3", "d64-off1", "d128-pad4"])
def test_atomic_dq_variants(switch, d, dtype, layout, monkeypatch, spy):
    monkeypatch.setenv(*switch)
    q, k, v, dout = case(2, 200, 129, 4, 2, d, DTYPES[dtype], seed=d + len(switch[0]), grad=True, **layout)
    check(q, k, v, dout, f"{switch[0]}={switch[1]} d{d} {dtype}", causal=d % 2 == 1, deterministic=False, rec=spy)


def test_planned_calls_narrow_offsets():
    """Repeated signatures (flash_attn_func's planned forward, keyed on the pointers' 16-byte alignment) with the
    placement moving between calls: 1, 0, 3, 8 (aligned: 16 bytes), 7 elements in; prefill and decode shapes."""
    for seq_q in (129, 1):
        for i, off in enumerate((1, 0, 3, 8, 7, 1)):
            q, k, v, _ = case(2, seq_q, 300, 4, 2, 64, F16, seed=60 + i, offset=off)
            assert is_aligned(q, k, v) == (off % 8 == 0)
            out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=True, return_attn_probs=True, backend=_backend())
            _sync()
            assert_close_to_reference(out, lse, q, k, v, fwd_args(64, True), f"planned sq{seq_q} call {i} offset {off}")


# ------------------------------------------------------------------ 11. paged K/V on the narrow path (forward)
@pytest.mark.parametrize("page,d,layout,lq", [(16, 57, {}, [33, 1, 70]), (48, 128, dict(offset=3), [65, 129, 2]),
                                              (256, 100, dict(pad=1), [17, 40, 5]), (32, 64, dict(pad=4), [1, 1, 1])],
                         ids=["p16-d57", "p48-d128-off3", "p256-d100", "p32-d64-pad4-decode"])
def test_paged_kv_narrow(page, d, layout, lq, spy):
    """flash_attn_varlen_func with block_table: K/V pages in a cache whose rows are unaligned (the forward's per-row
    page lookup on the narrow path: GlobalRows::row_offset with pages); decode-sized calls take the split-KV kernel."""
    g = _gen(page + d)
    dtype = DTYPES[_dt(page // 16)]
    lk = [150, 37, 300]
    blocks = [-(-n // page) for n in lk]
    num_blocks = sum(blocks) + 3
    h, hk = 4, 2
    q = place(_randn((sum(lq), h, d), dtype, g), **layout)
    kc = place(_randn((num_blocks, page, hk, d), dtype, g), **layout)
    vc = place(_randn((num_blocks, page, hk, d), dtype, g), **layout)
    perm = torch.randperm(num_blocks, generator=g)
    table = torch.zeros(3, max(blocks), dtype=torch.int32)
    used = 0
    for b, n in enumerate(blocks):
        table[b, :n] = perm[used:used + n].to(torch.int32)
        used += n
    table = table.to(DEV)
    cu_q = torch.tensor([0, *itertools.accumulate(lq)], dtype=torch.int32, device=DEV)
    cu_k = torch.tensor([0, *itertools.accumulate(lk)], dtype=torch.int32, device=DEV)
    _fresh()
    out, lse, _ = rocflash.flash_attn_varlen_func(q, kc, vc, cu_q, cu_k, max(lq), max(lk), causal=True,
                                                  return_attn_probs=True, block_table=table, backend=_backend())
    _sync()
    ks, vs = [], []
    for b, n in enumerate(lk):
        j = torch.arange(n, device=DEV)
        rows = table[b, j // page].long()
        ks.append(kc[rows, j % page])
        vs.append(vc[rows, j % page])
    what = f"paged p{page} d{d}"
    _varlen_check(q, torch.cat(ks), torch.cat(vs), cu_q.tolist(), cu_k.tolist(), out, lse, None, None,
                  fwd_args(d, True), what)
    assert_narrow(spy, (q, kc, vc), what, d=d, rows=max(lq) * (h // hk))


# ------------------------------------------------------------------ 12. KV cache: an unaligned cache, appended to
@pytest.mark.parametrize("sq,d,layout", [(1, 64, dict(offset=3)), (20, 57, {}), (9, 128, dict(pad=4))],
                         ids=["decode-d64-off3", "chunk20-d57", "spec9-d128-pad4"])
def test_kvcache_narrow_cache(sq, d, layout, spy):
    """flash_attn_with_kvcache appending 3 new keys into an unaligned cache, then causal attention (bottom-right:
    row i at position cache_seqlens + 3 - sq + i); the cache's slots past each sequence hold NaN (never read), the
    rest of the cache is unchanged but for the appended slots."""
    from rocflash import kvcache_fast
    g = _gen(sq + d)
    dtype = DTYPES[_dt(sq)]
    b, h, hk, cap, new = 3, 4, 2, 160, 3
    seqlens = [5, 100, 0]
    q = place(_randn((b, sq, h, d), dtype, g), **layout)
    kc, vc = (place(_randn((b, cap, hk, d), dtype, g), **layout) for _ in range(2))
    for i, n in enumerate(seqlens):
        kc[i, n:], vc[i, n:] = NAN, NAN
    kn, vn = _randn((b, new, hk, d), dtype, g), _randn((b, new, hk, d), dtype, g)
    k0, v0 = kc.clone(), vc.clone()
    cs = torch.tensor(seqlens, dtype=torch.int32, device=DEV)
    _fresh()
    kvcache_fast._PLANS.clear()
    out, lse = rocflash.flash_attn_with_kvcache(q, kc, vc, kn, vn, cache_seqlens=cs, causal=True,
                                                return_softmax_lse=True, backend=_backend())
    _sync()
    what = f"kvcache sq{sq} d{d}"
    for i, n in enumerate(seqlens):
        for c, c0, x in ((kc, k0, kn), (vc, v0, vn)):
            assert torch.equal(c[i, n:n + new], x[i]), f"{what}: appended slots of sequence {i}"
            assert torch.equal(c[i, :n], c0[i, :n]) and c[i, n + new:].isnan().all(), f"{what}: cache changed"
        ks, vs = kc[i:i + 1, :n + new], vc[i:i + 1, :n + new]
        assert_close_to_reference(out[i:i + 1], lse[i:i + 1], q[i:i + 1], ks, vs, fwd_args(d, True),
                                  f"{what} sequence {i}")
    assert_narrow(spy, (q, kc, vc), what, d=d, rows=sq * (h // hk))
