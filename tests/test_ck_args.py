"""The ck backend's argument mapping, proven without a GPU: attention is evaluated from exactly the
``fmha_fwd_args`` struct the binding hands to CK (rocflash.ck.args.fwd_args), following CK's own semantics of
pointers, strides, GQA head mapping, mask coordinates and batch / group mode (see rocflash/ck/args.py), on a
flat fp64 "device memory", and compared with the fp64 reference over the boundary matrix, causal
seqlen_q != seqlen_k, sliding windows, GQA, soft-capping and varlen. A wrong stride or a top-left /
bottom-right mix-up fails it (the tests at the end corrupt one field each and require a mismatch).

Nothing here executes CK: this checks what rocflash passes, not what CK computes with it.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from rocflash.ck import args as ck

ELEM = 8  # the arena is float64: 8 bytes per element
BASE = 1 << 40  # address of the arena's element 0 (a fake device pointer)
INT_BASE = 1 << 44  # address of the int32 arena (cu_seqlens)


class Memory:
    """A flat fp64 arena that hands out strided views and their fake device addresses, plus an int arena."""

    def __init__(self, elements: int = 1 << 18):
        self.arena = torch.full((elements,), float("nan"), dtype=torch.float64)
        self.ints = torch.zeros(1 << 12, dtype=torch.int64)
        self.used = 0
        self.int_used = 0

    def alloc(self, shape, gap: int = 3) -> tuple[torch.Tensor, int]:
        """A contiguous block of ``shape`` after ``gap`` poison elements: (view, address)."""
        start = self.used + gap
        n = math.prod(shape)
        self.used = start + n
        return self.arena[start:start + n].view(shape), BASE + start * ELEM

    def address(self, t: torch.Tensor) -> int:
        return BASE + t.storage_offset() * ELEM

    def put_ints(self, values) -> int:
        start = self.int_used
        self.ints[start:start + len(values)] = torch.tensor(values)
        self.int_used += len(values)
        return INT_BASE + start * 4

    def read(self, ptr: int) -> int:
        return (ptr - BASE) // ELEM

    def flat(self, ptr: int) -> tuple[torch.Tensor, int]:
        """(flat tensor, element index) of a device address."""
        return self.arena, self.read(ptr)

    def int_at(self, ptr: int, i: int) -> int:
        return int(self.ints[(ptr - INT_BASE) // 4 + i])

    def tensor(self, view: torch.Tensor, dtype: str = "fp16") -> ck.Tensor:
        return ck.tensor_of(view.shape, view.stride(), self.address(view), dtype)


def ck_alibi(a, slope: float, sq: int, sk: int, rows: torch.Tensor, cols: torch.Tensor,
             row_major: bool = True) -> torch.Tensor:
    """The ALiBi term CK adds to the scaled scores of (rows, cols) of one sequence: make_alibi_from_lr_mask and
    Alibi::update of block/block_position_encoding.hpp, transcribed (the kernels always take the generic-mask
    path). The window (-1, 0) is CK's causal: VERTICAL; otherwise the mode is mask_type (0 = VERTICAL too,
    1 = from top-left, 2 = from bottom-right); VERTICAL keeps the slope, the others negate it; the position is
    |zero point - shifted index|. The forward's instances use row_major=True, the backward's False."""
    causal = a.window_size_left < 0 and a.window_size_right == 0
    mode = 0 if causal else a.mask_type
    slope = slope if mode == 0 else -slope
    br = mode == 2
    if row_major:
        left_up, right_down = (max(sq - sk, 0), max(sk - sq, 0)) if br else (0, 0)
        zero = right_down if mode == 0 else rows + right_down
        return slope * (zero - (cols + left_up)).abs().double()
    left_up, right_down = (max(sk - sq, 0), max(sq - sk, 0)) if br else (0, 0)
    zero = rows + cols + right_down if mode == 0 else cols + right_down
    return slope * (zero - (rows + left_up)).abs().double()


def ck_slope(mem, a, b: int, h: int) -> float:
    """The slope CK reads for (sequence b, query head h): bias_ptr[b * stride_bias + h] (float32)."""
    flat, base = mem.flat(a.bias_ptr)
    return float(flat[base + b * a.stride_bias + h].detach())


FWD_BM0 = 128  # query rows per block of every forward instance of ck_configs/ck_fmha.toml (tile[0])


def ck_forward(mem: Memory, a: ck.FmhaFwdArgs, bm0: int = FWD_BM0) -> None:
    """Attention as CK's kernel computes it from ``a`` (fp64): reads Q/K/V and writes O/LSE in ``mem`` (anything
    with ``flat(ptr)``; O in the memory's dtype there, e.g. float32 for a batch_o32 instance). A masked score is
    -inf (CK overwrites it, whatever Q.K gave) and a masked P multiplies V (CK's P.V: 0 * NaN = NaN).
    The grid is ceil(max_seqlen_q / bm0) query tiles per (head, batch) in both modes (fmha_fwd_create_kargs_and_grids):
    rows of a sequence past it are never written, modelled as NaN (an uninitialised O / LSE)."""
    ratio = a.nhead_q // a.nhead_k
    grid_rows = -(-a.max_seqlen_q // bm0) * bm0
    for b in range(a.batch):
        if a.group_mode:
            qs, ks = mem.int_at(a.seqstart_q_ptr, b), mem.int_at(a.seqstart_k_ptr, b)
            sq, sk = mem.int_at(a.seqstart_q_ptr, b + 1) - qs, mem.int_at(a.seqstart_k_ptr, b + 1) - ks
            off_q, off_k, off_v, off_o, off_lse = qs * a.stride_q, ks * a.stride_k, ks * a.stride_v, qs * a.stride_o, qs
        else:
            sq, sk = a.seqlen_q, a.seqlen_k
            off_q, off_k, off_v = b * a.batch_stride_q, b * a.batch_stride_k, b * a.batch_stride_v
            off_o, off_lse = b * a.batch_stride_o, b * a.batch_stride_lse
        if sq == 0:
            continue
        y, x = ck.mask_coordinates(a, sq, sk)
        i = torch.arange(sq).view(-1, 1)
        j = torch.arange(sk).view(1, -1)
        visible = (j >= i - y + 1) & (j < torch.clamp(i + x, max=sk))
        for h in range(a.nhead_q):
            hk = h // ratio

            def gather(ptr, head_stride, head, off, rows, row_stride, cols):
                flat, base = mem.flat(ptr)
                base = base + head * head_stride + off
                idx = base + torch.arange(rows).view(-1, 1) * row_stride + torch.arange(cols).view(1, -1)
                return flat, idx

            def read(*spec):
                flat, idx = gather(*spec)
                return flat[idx].double()

            qx = read(a.q_ptr, a.nhead_stride_q, h, off_q, sq, a.stride_q, a.hdim_q)
            kx = read(a.k_ptr, a.nhead_stride_k, hk, off_k, sk, a.stride_k, a.hdim_q)
            vx = read(a.v_ptr, a.nhead_stride_v, hk, off_v, sk, a.stride_v, a.hdim_v)
            s = (qx @ kx.T) * a.scale_s
            if a.bias_ptr:  # an ALiBi instance: added after the scale; CK has no soft-cap with it
                s = s + ck_alibi(a, ck_slope(mem, a, b, h), sq, sk, i, j)
            elif a.logits_soft_cap > 0:
                s = a.logits_soft_cap * torch.tanh(s / a.logits_soft_cap)
            s = s.masked_fill(~visible, float("-inf"))
            lse = torch.logsumexp(s, dim=-1)
            p = torch.exp(s - lse.masked_fill(torch.isinf(lse), 0).unsqueeze(-1))
            if grid_rows < sq:  # past the grid: no block writes these rows
                p[grid_rows:], lse[grid_rows:] = float("nan"), float("nan")
            flat, oi = gather(a.o_ptr, a.nhead_stride_o, h, off_o, sq, a.stride_o, a.hdim_v)
            flat[oi] = (p @ vx).to(flat.dtype)
            flat, li = mem.flat(a.lse_ptr)
            flat[li + h * a.nhead_stride_lse + off_lse + torch.arange(sq)] = lse.to(flat.dtype)


def _window(causal: bool, window: tuple[int, int]) -> tuple[int, int]:
    left, right = window
    return (left, 0 if right == -1 else min(right, 0)) if causal else (left, right)


def _reference(q, k, v, scale, left, right, softcap):
    out, lse = attention_reference(q, k, v, FwdArgs(scale, left, right, softcap, None), compute_dtype=torch.float64)
    return out, lse.double()


def _batch_case(mem, batch, sq, sk, nheads, nheads_k, d, left, right, softcap, packed: bool):
    """Q/K/V with non-trivial strides (packed QKV-like buffers when ``packed``), O and LSE in the arena."""
    g = torch.Generator().manual_seed(hash((batch, sq, sk, nheads, nheads_k, d, left, right, softcap)) % 2**31)
    if packed:  # q and k/v views of one (batch, seqlen, heads_total, d + 8) buffer: odd row and head strides
        width = d + 8
        qbuf, _ = mem.alloc((batch, sq, nheads, width))
        kvbuf, _ = mem.alloc((batch, sk, 2, nheads_k, width))
        q, k, v = qbuf[..., :d], kvbuf[:, :, 0, :, :d], kvbuf[:, :, 1, :, :d]
    else:
        q, _ = mem.alloc((batch, sq, nheads, d))
        k, _ = mem.alloc((batch, sk, nheads_k, d))
        v, _ = mem.alloc((batch, sk, nheads_k, d))
    for t in (q, k, v):
        t.copy_(torch.randn(t.shape, generator=g, dtype=torch.float64))
    o, _ = mem.alloc((batch, sq, nheads, d))
    lse, _ = mem.alloc((batch, nheads, sq))
    scale = d ** -0.5
    a = ck.fwd_args(mem.tensor(q), mem.tensor(k), mem.tensor(v), mem.tensor(o), mem.tensor(lse),
                    softmax_scale=scale, window_left=left, window_right=right, softcap=softcap)
    return a, (q, k, v, o, lse, scale)


def _check(out, lse, ref_out, ref_lse):
    assert not torch.isnan(out).any(), "an output element was never written"
    torch.testing.assert_close(out, ref_out, rtol=0, atol=1e-10)
    finite = torch.isfinite(ref_lse)
    torch.testing.assert_close(lse[finite], ref_lse[finite], rtol=1e-6, atol=1e-6)  # the reference LSE is fp32
    assert torch.all(lse[~finite] == ref_lse[~finite])


SEQLENS = [(1, 1), (1, 7), (7, 1), (64, 64), (65, 63), (63, 130), (130, 65)]
WINDOWS = [(False, (-1, -1)), (True, (-1, -1)), (False, (5, 3)), (True, (5, -1)), (False, (0, 0)), (False, (-1, 2))]


@pytest.mark.parametrize("sq,sk", SEQLENS)
@pytest.mark.parametrize("causal,window", WINDOWS, ids=lambda w: str(w))
def test_batch_mode_matches_reference(sq, sk, causal, window):
    mem = Memory()
    left, right = _window(causal, window)
    a, (q, k, v, o, lse, scale) = _batch_case(mem, 2, sq, sk, 4, 2, 16, left, right, 0.0, packed=True)
    ck_forward(mem, a)
    ref_out, ref_lse = _reference(q, k, v, scale, left, right, 0.0)
    _check(o, lse, ref_out, ref_lse)


@pytest.mark.parametrize("nheads,nheads_k", [(4, 4), (4, 2), (6, 1)])
@pytest.mark.parametrize("softcap", [0.0, 2.5])
def test_gqa_and_softcap(nheads, nheads_k, softcap):
    mem = Memory()
    a, (q, k, v, o, lse, scale) = _batch_case(mem, 3, 33, 47, nheads, nheads_k, 32, -1, 0, softcap, packed=False)
    assert a.logits_soft_cap == softcap and a.scale_s == scale
    ck_forward(mem, a)
    _check(o, lse, *_reference(q, k, v, scale, -1, 0, softcap))


def _group_case(mem, seqlens_q, seqlens_k, nheads, nheads_k, d, left, right):
    g = torch.Generator().manual_seed(7)
    tq, tk = sum(seqlens_q), sum(seqlens_k)
    qbuf, _ = mem.alloc((tq, nheads, d + 4))  # padded rows: stride_q = nheads * (d + 4)
    q = qbuf[..., :d]
    k, _ = mem.alloc((tk, nheads_k, d))
    vbuf, _ = mem.alloc((nheads_k, tk, d))  # V head-major: nhead_stride_v = tk * d, stride_v = d
    v = vbuf.transpose(0, 1)
    for t in (q, k, v):
        t.copy_(torch.randn(t.shape, generator=g, dtype=torch.float64))
    o, _ = mem.alloc((tq, nheads, d))
    lse, _ = mem.alloc((nheads, tq))
    cu_q = list(itertools.accumulate([0, *seqlens_q]))
    cu_k = list(itertools.accumulate([0, *seqlens_k]))
    pq, pk = mem.put_ints(cu_q), mem.put_ints(cu_k)
    scale = 0.3
    a = ck.fwd_args(mem.tensor(q), mem.tensor(k), mem.tensor(v), mem.tensor(o), mem.tensor(lse), softmax_scale=scale,
                    window_left=left, window_right=right,
                    cu_seqlens_q=ck.tensor_of((len(cu_q),), (1,), pq, "int32"),
                    cu_seqlens_k=ck.tensor_of((len(cu_k),), (1,), pk, "int32"), max_seqlen_q=max(seqlens_q))
    return a, (q, k, v, o, lse, scale, cu_q, cu_k)


@pytest.mark.parametrize("causal,window", WINDOWS[:4], ids=lambda w: str(w))
def test_group_mode_varlen_matches_reference(causal, window):
    """Packed varlen sequences (an empty one included), each bottom-right aligned with its own lengths."""
    mem = Memory()
    left, right = _window(causal, window)
    sq, sk = [5, 0, 64, 17, 1], [9, 3, 64, 11, 30]
    a, (q, k, v, o, lse, scale, cu_q, cu_k) = _group_case(mem, sq, sk, 4, 2, 16, left, right)
    assert a.group_mode and a.batch == 5 and a.max_seqlen_q == 64 and a.nhead_stride_lse == sum(sq)
    ck_forward(mem, a)
    for b in range(len(sq)):
        if sq[b] == 0:
            continue
        rq, rk = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        ref_out, ref_lse = _reference(q[None, rq], k[None, rk], v[None, rk], scale, left, right, 0.0)
        _check(o[None, rq], lse[:, rq][None], ref_out, ref_lse)


def test_mask_fields_follow_flash_attn():
    assert ck.mask_fields(-1, -1) == (ck.MASK_NONE, -1, -1)
    assert ck.mask_fields(-1, 0) == (ck.MASK_BOTTOM_RIGHT, -1, 0)  # causal, bottom-right as flash-attn
    assert ck.mask_fields(4, 2) == (ck.MASK_BOTTOM_RIGHT, 4, 2)
    with pytest.raises(ValueError, match="window_size"):
        ck.mask_fields(-2, 0)


@pytest.mark.parametrize("arg,value", [("dropout_p", 0.1), ("return_attn_probs", True),
                                       ("block_table", torch.zeros(1))])
def test_unsupported_arguments_are_named(arg, value):
    with pytest.raises(NotImplementedError, match=arg):
        ck.check_supported(**{arg: value})


def test_non_unit_headdim_stride_is_refused():
    mem = Memory()
    buf, _ = mem.alloc((1, 8, 2, 32))
    q = buf[..., ::2]
    t = mem.tensor(q)
    with pytest.raises(NotImplementedError, match="headdim stride"):
        ck.fwd_args(t, t, t, t, mem.tensor(mem.alloc((1, 2, 8))[0]), softmax_scale=1.0)


def test_strides_beyond_int32_are_refused():
    """CK's index_t is int32: a batch stride of 2^31 elements (e.g. 512k tokens x 32 heads x 128) raises a
    ValueError naming the field instead of wrapping in the kernel (CK adversarial finding)."""
    big = ck.tensor_of((2, 524288, 32, 128), (524288 * 32 * 128, 32 * 128, 128, 1), 4096)
    lse = ck.tensor_of((2, 32, 524288), (32 * 524288, 524288, 1), 8192, "fp32")
    with pytest.raises(ValueError, match=r"batch_stride_q must fit CK's int32 index_t .*got 2147483648"):
        ck.fwd_args(big, big, big, big, lse, softmax_scale=1.0)


# ----------------------------------------------------------- ALiBi (the alibi instances)


def _slopes(mem, shape, seed=3):
    """ALiBi slopes in the arena (fp32 values), of a size where a wrong sign or alignment moves the output:
    positive and negative, distinct per head and batch entry."""
    t, _ = mem.alloc(shape)
    g = torch.Generator().manual_seed(seed)
    t.copy_((torch.rand(shape, generator=g, dtype=torch.float64) * 0.6 - 0.1).float().double())
    return t


def _alibi_case(mem, batch, sq, sk, nheads, nheads_k, d, left, right, per_batch: bool):
    """_batch_case plus slopes ((batch, nheads) when per_batch, else (nheads,)) handed to fwd_args."""
    a, (q, k, v, o, lse, scale) = _batch_case(mem, batch, sq, sk, nheads, nheads_k, d, left, right, 0.0, packed=True)
    slopes = _slopes(mem, (batch, nheads) if per_batch else (nheads,))
    a = ck.fwd_args(mem.tensor(q), mem.tensor(k), mem.tensor(v), mem.tensor(o), mem.tensor(lse), softmax_scale=scale,
                    window_left=left, window_right=right, alibi_slopes=mem.tensor(slopes, "fp32"))
    return a, (q, k, v, o, lse, scale, slopes)


def _alibi_reference(q, k, v, scale, left, right, slopes):
    out, lse = attention_reference(q, k, v, FwdArgs(scale, left, right, 0.0, slopes.float()),
                                   compute_dtype=torch.float64)
    return out, lse.double()


ALIBI_WINDOWS = [(-1, -1), (-1, 0), (6, 0), (5, 3), (-1, 2)]


@pytest.mark.parametrize("sq,sk", [(1, 7), (7, 1), (33, 33), (40, 70), (70, 40)])
@pytest.mark.parametrize("left,right", ALIBI_WINDOWS)
@pytest.mark.parametrize("per_batch", [False, True])
def test_alibi_matches_reference(sq, sk, left, right, per_batch):
    """flash-attn's ALiBi (-slope * |i + seqlen_k - seqlen_q - j|, bottom-right, per query head, per batch entry
    with (batch, nheads) slopes) from the alibi instances' args, GQA 4:2, out and LSE."""
    mem = Memory()
    a, (q, k, v, o, lse, scale, slopes) = _alibi_case(mem, 2, sq, sk, 4, 2, 16, left, right, per_batch)
    assert a.mask_type == ck.MASK_BOTTOM_RIGHT and a.bias_ptr == mem.address(slopes)
    assert a.stride_bias == (4 if per_batch else 0)
    ck_forward(mem, a)
    _check(o, lse, *_alibi_reference(q, k, v, scale, left, right, slopes))


@pytest.mark.parametrize("causal", [False, True])
def test_alibi_group_mode_per_sequence_slopes(causal):
    """varlen: sequence b reads slope row b, its own bottom-right alignment (uneven and empty sequences)."""
    mem = Memory()
    left, right = (-1, 0) if causal else (-1, -1)
    sq, sk = [5, 0, 40, 17, 1], [9, 3, 30, 17, 12]
    a, (q, k, v, o, lse, scale, cu_q, cu_k) = _group_case(mem, sq, sk, 4, 2, 16, left, right)
    slopes = _slopes(mem, (len(sq), 4))
    a = dataclasses.replace(a, **ck.alibi_fields(mem.tensor(slopes, "fp32"), len(sq), 4),
                            **dict(zip(("mask_type", "window_size_left", "window_size_right"),
                                       ck.mask_fields(left, right, sum(sk)))))
    ck_forward(mem, a)
    for b in range(len(sq)):
        if sq[b] == 0:
            continue
        rq, rk = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        ref = _alibi_reference(q[None, rq], k[None, rk], v[None, rk], scale, left, right, slopes[b])
        _check(o[None, rq], lse[:, rq][None], *ref)


def test_alibi_fields_are_checked():
    mem = Memory()
    s, _ = mem.alloc((2, 8))
    assert ck.alibi_fields(None, 2, 4) == {"bias_ptr": 0, "stride_bias": 0}
    assert ck.alibi_fields(mem.tensor(s[:, :4], "fp32"), 2, 4)["stride_bias"] == 8
    with pytest.raises(ValueError, match="unit stride along the heads"):
        ck.alibi_fields(mem.tensor(s[:, ::2], "fp32"), 2, 4)
    with pytest.raises(ValueError, match=r"float32 of shape \(4,\) or \(3, 4\)"):
        ck.alibi_fields(mem.tensor(s, "fp32"), 3, 4)
    with pytest.raises(ValueError, match="float32"):
        ck.alibi_fields(mem.tensor(s[0, :4], "fp16"), 2, 4)


def _negated_slopes(mem, a):
    flat, base = mem.flat(a.bias_ptr)
    t, ptr = mem.alloc((2, 4))
    t.copy_(-flat[base:base + 8].view(2, 4))
    return dataclasses.replace(a, bias_ptr=ptr)


ALIBI_CORRUPTIONS = {
    # CK's own causal (-1, 0): VERTICAL +slope * j; out agrees (a per-row constant), LSE does not
    "causal sent as (-1, 0)": lambda mem, a: dataclasses.replace(a, window_size_left=-1),
    "top-left alignment": lambda mem, a: dataclasses.replace(a, mask_type=ck.MASK_TOP_LEFT),
    "slopes negated": _negated_slopes,
    "slope of the next head": lambda mem, a: dataclasses.replace(a, bias_ptr=a.bias_ptr + ELEM),
    "one slope row for every batch entry": lambda mem, a: dataclasses.replace(a, stride_bias=0),
}


@pytest.mark.parametrize("name", ALIBI_CORRUPTIONS)
def test_a_wrong_alibi_field_fails_the_comparison(name):
    """Causal ALiBi, seqlen_q != seqlen_k, per-batch slopes: each corruption (a sign, an alignment, a head or a
    batch entry off) fails the comparison the correct args pass."""
    mem = Memory()
    a, (q, k, v, o, lse, scale, slopes) = _alibi_case(mem, 2, 40, 70, 4, 2, 16, -1, 0, per_batch=True)
    bad = ALIBI_CORRUPTIONS[name](mem, a)
    ck_forward(mem, bad)
    with pytest.raises(AssertionError):
        _check(o, lse, *_alibi_reference(q, k, v, scale, -1, 0, slopes))


def test_no_window_as_mask_type_0_misplaces_alibi():
    """Without a window CK's mask_type 0 would give VERTICAL ALiBi (+slope * j): wrong for the keys right of the
    diagonal. mask_fields sends 2 (bottom-right, the same full rectangle): the evaluation tells them apart."""
    mem = Memory()
    a, (q, k, v, o, lse, scale, slopes) = _alibi_case(mem, 2, 33, 47, 4, 2, 16, -1, -1, per_batch=False)
    assert a.mask_type == ck.MASK_BOTTOM_RIGHT
    ck_forward(mem, dataclasses.replace(a, mask_type=ck.MASK_NONE))
    with pytest.raises(AssertionError):
        _check(o, lse, *_alibi_reference(q, k, v, scale, -1, -1, slopes))


# ----------------------------------------------------------- the evaluation can fail: corrupt one field each


CORRUPTIONS = {
    "stride_q swapped with nhead_stride_q": lambda a: dataclasses.replace(a, stride_q=a.nhead_stride_q,
                                                                            nhead_stride_q=a.stride_q),
    "batch_stride_k off by one row": lambda a: dataclasses.replace(a, batch_stride_k=a.batch_stride_k + a.stride_k),
    "stride_v of K": lambda a: dataclasses.replace(a, stride_v=a.stride_k + 1),
    "top-left instead of bottom-right": lambda a: dataclasses.replace(a, mask_type=ck.MASK_TOP_LEFT),
    "nhead_k as nhead_q (no GQA)": lambda a: dataclasses.replace(a, nhead_k=a.nhead_q),
    "window left/right swapped": lambda a: dataclasses.replace(a, window_size_left=a.window_size_right,
                                                               window_size_right=a.window_size_left),
    "nhead_stride_lse of batch": lambda a: dataclasses.replace(a, nhead_stride_lse=a.batch_stride_lse),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_a_wrong_field_fails_the_comparison(name):
    mem = Memory()
    left, right = 6, 0  # causal sliding window, seqlen_q != seqlen_k: both corners and both sides differ
    a, (q, k, v, o, lse, scale) = _batch_case(mem, 2, 40, 70, 4, 2, 16, left, right, 0.0, packed=True)
    bad = CORRUPTIONS[name](a)
    try:
        ck_forward(mem, bad)
    except (IndexError, RuntimeError):
        return  # the corrupt struct addresses memory outside the arena: fails too
    ref_out, ref_lse = _reference(q, k, v, scale, left, right, 0.0)
    with pytest.raises(AssertionError):
        _check(o, lse, ref_out, ref_lse)
