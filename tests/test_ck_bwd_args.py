"""The ck backend's backward argument mapping, proven without a GPU: dq, dk, dv are evaluated from exactly the
``fmha_bwd_args`` struct the binding hands to CK (rocflash.ck.args.bwd_args with rocflash.ck.args.bwd_workspace's
buffers), following CK's documented semantics of the two backward kernels rocflash launches (rocflash/ck/args.py:
dq_dk_dv reads D through LSE's strides, walks the query tiles each key tile visits and writes dK / dV per query
head, dQ into dq_acc atomically or per key-tile slice, convert_dq sums the slices; D = rowsum(dO * O) is the
binding's), on a flat fp64 "device memory", and compared with fp64 autograd of the reference over the boundary
matrix, causal seqlen_q != seqlen_k, sliding windows, GQA, the deterministic variant and varlen (group mode). A
wrong stride, a top-left / bottom-right mix-up or a missing zero fill fails it (the tests at the end corrupt one
field each and require a mismatch). A last group runs the ck backend's own ``backward`` (allocation, D from the
float32 O, GQA sums, masked garbage, the stats it reads) on CPU tensors with this evaluator in place of the
launch: FlashAttention's tolerance rule at large softmax_scale (D from the float32 O passes where D from the
rounded O fails) and NaN / inf in masked K / V rows (the rows that cannot see them stay exact).

Nothing here executes CK: this checks what rocflash passes, not what CK computes with it.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends import ck as ck_backend
from rocflash.backends.reference import attention_reference
from rocflash.ck import args as ck
from rocflash.ck.codegen import BWD_1D_ROWS
from rocflash.ck.configs import find_instance, load_ck_instances
from test_ck_args import ELEM, Memory, _slopes, ck_alibi, ck_slope

D128 = find_instance("fp16", 128, "batch", "gfx942", kind="bwd")
BM0, BN0 = D128.tile[0], D128.tile[1]  # 16 query rows per step, 128 keys per block


Arena = Memory


def _tiles(n: int, size: int) -> int:
    return -(-n // size)


def ck_backward(mem, a: ck.FmhaBwdArgs, *, bm0: int, bn0: int, deterministic: bool) -> None:
    """dq, dk, dv as CK's dq_dk_dv and convert_dq compute them from ``a`` (fp64; rocflash/ck/args.py cites the CK
    sources): reads Q, K, V, dO, LSE, D and writes dq_acc, dQ, dK, dV in ``mem``."""
    ratio = a.nhead_q // a.nhead_k

    def at(ptr, head, head_stride, off, rows, row_stride, cols):
        flat, base = mem.flat(ptr)
        idx = base + head * head_stride + off + rows.view(-1, 1) * row_stride + torch.arange(cols).view(1, -1)
        return flat, idx

    def read(*spec):
        flat, idx = at(*spec)
        return flat[idx].double()

    def write(value, *spec, add=False):
        flat, idx = at(*spec)
        flat[idx] = (flat[idx].double() + value if add else value).to(flat.dtype)

    seqs = []
    for b in range(a.batch):
        if a.group_mode:
            qs, ks = mem.int_at(a.seqstart_q_ptr, b), mem.int_at(a.seqstart_k_ptr, b)
            sq, sk = mem.int_at(a.seqstart_q_ptr, b + 1) - qs, mem.int_at(a.seqstart_k_ptr, b + 1) - ks
            off = dict(q=qs * a.stride_q, k=ks * a.stride_k, v=ks * a.stride_v, o=qs * a.stride_o,
                       do=qs * a.stride_do, lsed=qs, dq_acc=qs * a.stride_dq_acc, dq=qs * a.stride_dq,
                       dk=ks * a.stride_dk, dv=ks * a.stride_dv)
        else:
            sq, sk = a.seqlen_q, a.seqlen_k
            off = {n: b * getattr(a, f"batch_stride_{n}") for n in
                   ("q", "k", "v", "o", "do", "lsed", "dq_acc", "dq", "dk", "dv")}
        seqs.append((sq, sk, off))

    # dq_dk_dv: grid (key tiles of max_seqlen_k, nhead_q, batch)
    for (bi, (sq, sk, off)), h, n in itertools.product(enumerate(seqs), range(a.nhead_q),
                                                      range(_tiles(a.max_seqlen_k, bn0))):
        k0 = n * bn0
        if sq == 0 or sk <= k0:
            continue  # group mode: an empty sequence, or a block past this sequence's keys, returns at once
        keys = torch.arange(k0, min(k0 + bn0, sk))
        hk = h // ratio
        y, x = ck.mask_coordinates(a, sq, sk)
        y_start = (max(k0 - x + 1, 0) // bm0) * bm0  # GetTileRangeAlongY of block_masking.hpp
        y_end = _tiles(min(k0 + bn0 - 1 + y, sq), bm0) * bm0
        rows = torch.arange(y_start, max(y_start, min(y_end, sq)))  # end < start: no query tile (CK: num_total_loop <= 0)
        dk = torch.zeros(len(keys), a.hdim_q, dtype=torch.float64)
        dv = torch.zeros(len(keys), a.hdim_v, dtype=torch.float64)
        if len(rows):
            q = read(a.q_ptr, h, a.nhead_stride_q, off["q"], rows, a.stride_q, a.hdim_q)
            k = read(a.k_ptr, hk, a.nhead_stride_k, off["k"], keys, a.stride_k, a.hdim_q)
            v = read(a.v_ptr, hk, a.nhead_stride_v, off["v"], keys, a.stride_v, a.hdim_v)
            do = read(a.do_ptr, h, a.nhead_stride_do, off["do"], rows, a.stride_do, a.hdim_v)
            lse = read(a.lse_ptr, h, a.nhead_stride_lsed, off["lsed"], rows, 1, 1)
            d = read(a.d_ptr, h, a.nhead_stride_lsed, off["lsed"], rows, 1, 1)
            i, j = rows.view(-1, 1), keys.view(1, -1)
            visible = (j >= i - y + 1) & (j < torch.clamp(i + x, max=sk))
            lse = torch.where(torch.isinf(lse) & (lse < 0), torch.zeros_like(lse), lse)
            if a.bias_ptr:  # ALiBi instance: scale, then the bias (column-major Alibi), then the mask
                s = a.scale * (q @ k.T) + ck_alibi(a, ck_slope(mem, a, bi, h), sq, sk, i, j, row_major=False)
                p = torch.exp2(math.log2(math.e) * s.masked_fill(~visible, float("-inf")) - math.log2(math.e) * lse)
            else:
                s = (q @ k.T).masked_fill(~visible, float("-inf"))  # the mask is applied before the scale
                p = torch.exp2(a.scale * math.log2(math.e) * s - math.log2(math.e) * lse)
            dv = p.T @ do
            ds = p * (do @ v.T - d)
            dk = a.scale * ds.T @ q
            dq_part = a.scale * ds @ k
            split = n * a.split_stride_dq_acc if deterministic else 0
            write(dq_part, a.dq_acc_ptr, h, a.nhead_stride_dq_acc, off["dq_acc"] + split, rows, a.stride_dq_acc,
                  a.hdim_q, add=not deterministic)
        write(dk, a.dk_ptr, h, a.nhead_stride_dk, off["dk"], keys, a.stride_dk, a.hdim_q)  # per QUERY head
        write(dv, a.dv_ptr, h, a.nhead_stride_dv, off["dv"], keys, a.stride_dv, a.hdim_v)

    # convert_dq: dQ = dq_acc (deterministic: the sum of ceil(seqlen_k / bn0) slices)
    # convert_dq's grid: ceil(max_seqlen_q / 64) row blocks (CK's M0_1D); rows past it are never written (NaN here)
    grid_rows = _tiles(a.max_seqlen_q, BWD_1D_ROWS) * BWD_1D_ROWS
    for (sq, sk, off), h in itertools.product(seqs, range(a.nhead_q)):
        if grid_rows < sq:
            write(torch.full((sq - grid_rows, a.hdim_q), float("nan"), dtype=torch.float64), a.dq_ptr, h,
                  a.nhead_stride_dq, off["dq"], torch.arange(grid_rows, sq), a.stride_dq, a.hdim_q)
        rows = torch.arange(min(sq, grid_rows))
        splits = _tiles(sk, bn0) if deterministic else 1
        dq = sum((read(a.dq_acc_ptr, h, a.nhead_stride_dq_acc, off["dq_acc"] + s * a.split_stride_dq_acc, rows,
                       a.stride_dq_acc, a.hdim_q) for s in range(splits)),
                 torch.zeros(len(rows), a.hdim_q, dtype=torch.float64))
        write(dq, a.dq_ptr, h, a.nhead_stride_dq, off["dq"], rows, a.stride_dq, a.hdim_q)


def _window(causal: bool, window: tuple[int, int]) -> tuple[int, int]:
    left, right = window
    return (left, 0 if right == -1 else min(right, 0)) if causal else (left, right)


def _reference_grads(q, k, v, do, scale, left, right, slopes=None):
    """fp64 autograd of the reference: (out, lse, dq, dk, dv); ``slopes``: ALiBi."""
    q, k, v = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
    out, lse = attention_reference(q, k, v, FwdArgs(scale, left, right, 0.0, None if slopes is None else slopes.float()),
                                   compute_dtype=torch.float64)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), do)
    return out.detach(), lse.double(), dq, dk, dv


def _workspace(mem, work: dict[str, ck.Buffer]) -> dict[str, torch.Tensor]:
    """The binding's buffers in the arena: zeroed where bwd_workspace says so, NaN (never written) otherwise."""
    out = {}
    for name, buf in work.items():
        t, _ = mem.alloc(buf.shape)
        if buf.zero:
            t.zero_()
        out[name] = t
    return out


def _batch_case(mem, batch, sq, sk, nheads, nheads_k, d, left, right, *, deterministic=False, scale=None,
                bn0=BN0, alibi=None):
    """Q/K/V views of packed buffers (odd row and head strides), dO with its own strides, O and LSE from the
    reference, the binding's buffers; ``alibi``: "heads" or "batch" ((nheads,) or (batch, nheads) slopes in the
    arena, handed to bwd_args); returns (args, tensors)."""
    g = torch.Generator().manual_seed(hash((batch, sq, sk, nheads, nheads_k, d, left, right, deterministic)) % 2**31)
    width = d + 8
    qbuf, _ = mem.alloc((batch, sq, nheads, width))
    kvbuf, _ = mem.alloc((batch, sk, 2, nheads_k, width))
    q, k, v = qbuf[..., :d], kvbuf[:, :, 0, :, :d], kvbuf[:, :, 1, :, :d]
    dobuf, _ = mem.alloc((batch, nheads, sq, d))  # head-major dO: nhead_stride_do = sq * d, stride_do = d
    do = dobuf.transpose(1, 2)
    for t in (q, k, v, do):
        t.copy_(torch.randn(t.shape, generator=g, dtype=torch.float64))
    scale = d ** -0.5 if scale is None else scale
    slopes = None
    if alibi:
        slopes = _slopes(mem, (batch, nheads) if alibi == "batch" else (nheads,))
    ref = _reference_grads(q, k, v, do, scale, left, right, slopes)
    o, _ = mem.alloc((batch, sq, nheads, d))
    o.copy_(ref[0])
    lse, _ = mem.alloc((batch, nheads, sq))
    lse.copy_(ref[1])
    dq, _ = mem.alloc((batch, sq, nheads, d))
    dk, _ = mem.alloc((batch, sk, nheads, d))  # per query head, as CK writes them
    dv, _ = mem.alloc((batch, sk, nheads, d))
    work = _workspace(mem, ck.bwd_workspace(batch=batch, nhead_q=nheads, seqlen_q=sq, hdim_q=d, max_seqlen_k=sk,
                                            bn0=bn0, deterministic=deterministic))
    dd, _ = mem.alloc((batch, nheads, sq))  # D = rowsum(dO * O) in LSE's layout, as the binding writes it
    dd.copy_(ck_backend.delta(do, o))
    a = ck.bwd_args(*(mem.tensor(t) for t in (q, k, v, o, lse, do, dd, dq, dk, dv, work["dq_acc"])),
                    softmax_scale=scale, window_left=left, window_right=right, deterministic=deterministic,
                    alibi_slopes=None if slopes is None else mem.tensor(slopes, "fp32"))
    return a, (dq, dk, dv, nheads_k), ref


def _check(dq, dk_h, dv_h, nheads_k, ref, atol=1e-6):
    """Tight: the only error is the reference LSE's float32 rounding (relative 1e-7 in P); a wrong field
    moves the gradients by O(1)."""
    _, _, ref_dq, ref_dk, ref_dv = ref
    dk, dv = ck_backend.reduce_gqa(dk_h, nheads_k), ck_backend.reduce_gqa(dv_h, nheads_k)
    for name, got, want in (("dq", dq, ref_dq), ("dk", dk, ref_dk), ("dv", dv, ref_dv)):
        assert not torch.isnan(got).any(), f"{name}: an element was never written (or NaN)"
        torch.testing.assert_close(got, want, rtol=1e-5, atol=atol, msg=lambda m: f"{name}: {m}")


SEQLENS = [(1, 1), (1, 7), (7, 1), (17, 17), (65, 63), (40, 130), (130, 65)]
WINDOWS = [(False, (-1, -1)), (True, (-1, -1)), (False, (5, 3)), (True, (5, -1)), (False, (0, 0)), (False, (-1, 2))]


@pytest.mark.parametrize("sq,sk", SEQLENS)
@pytest.mark.parametrize("causal,window", WINDOWS, ids=lambda w: str(w))
def test_batch_mode_matches_autograd(sq, sk, causal, window):
    mem = Arena(1 << 20)
    left, right = _window(causal, window)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 2, sq, sk, 4, 2, 16, left, right)
    assert a.p_undrop == 1.0 and a.p_drop == 0.0 and a.max_seqlen_k == sk
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=False)
    _check(dq, dk, dv, hk, ref)


@pytest.mark.parametrize("sq,sk", [(33, 300), (300, 33), (129, 257)])
@pytest.mark.parametrize("causal,window", WINDOWS[:4], ids=lambda w: str(w))
def test_deterministic_slices_match_autograd(sq, sk, causal, window):
    """One dq_acc slice per key tile (several tiles here), summed by convert_dq; rows a key tile does not visit
    stay as bwd_workspace left them (zero)."""
    mem = Arena(1 << 21)
    left, right = _window(causal, window)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 1, sq, sk, 2, 1, 16, left, right, deterministic=True)
    assert a.split_stride_dq_acc == sq * 16 and a.nhead_stride_dq_acc == _tiles(sk, BN0) * sq * 16
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=True)
    _check(dq, dk, dv, hk, ref)


@pytest.mark.parametrize("nheads,nheads_k", [(4, 4), (4, 2), (6, 1), (6, 3)])
def test_gqa_groups_are_summed(nheads, nheads_k):
    mem = Arena(1 << 20)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 3, 33, 47, nheads, nheads_k, 32, -1, 0)
    assert a.nhead_q == nheads and a.nhead_k == nheads_k and a.nhead_stride_dk == 32
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=False)
    _check(dq, dk, dv, hk, ref)


@pytest.mark.parametrize("bm0,bn0", [(16, 128), (32, 128), (16, 64), (32, 16)])
def test_every_bwd_tile_of_the_configs_gives_the_same_gradients(bm0, bn0):
    """The mapping does not depend on the tile: the tiles of ck_configs/ck_fmha.toml (and a small one that
    makes many key tiles), deterministic, causal with a window, seqlen_q != seqlen_k."""
    tiles = {(i.tile[0], i.tile[1]) for i in load_ck_instances() if i.kind == "bwd"}
    assert (bm0, bn0) in tiles | {(32, 16)}
    mem = Arena(1 << 21)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 2, 70, 45, 2, 2, 8, 9, 0, deterministic=True, bn0=bn0)
    ck_backward(mem, a, bm0=bm0, bn0=bn0, deterministic=True)
    _check(dq, dk, dv, hk, ref)


def _group_case(mem, seqlens_q, seqlens_k, nheads, nheads_k, d, left, right, deterministic):
    g = torch.Generator().manual_seed(11)
    tq, tk = sum(seqlens_q), sum(seqlens_k)
    qbuf, _ = mem.alloc((tq, nheads, d + 4))
    q = qbuf[..., :d]
    k, _ = mem.alloc((tk, nheads_k, d))
    vbuf, _ = mem.alloc((nheads_k, tk, d))  # V head-major
    v = vbuf.transpose(0, 1)
    do, _ = mem.alloc((tq, nheads, d))
    for t in (q, k, v, do):
        t.copy_(torch.randn(t.shape, generator=g, dtype=torch.float64))
    cu_q = list(itertools.accumulate([0, *seqlens_q]))
    cu_k = list(itertools.accumulate([0, *seqlens_k]))
    scale = 0.3
    o, _ = mem.alloc((tq, nheads, d))
    lse, _ = mem.alloc((nheads, tq))
    refs = []
    for b in range(len(seqlens_q)):
        rq, rk = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        if seqlens_q[b] == 0:
            refs.append(None)
            continue
        if seqlens_k[b] == 0:  # no key: out 0, LSE -inf, zero gradients (what rocflash defines)
            o[rq] = 0
            lse[:, rq] = float("-inf")
            refs.append(None)
            continue
        ref = _reference_grads(q[None, rq], k[None, rk], v[None, rk], do[None, rq], scale, left, right)
        o[rq] = ref[0][0]
        lse[:, rq] = ref[1][0]
        refs.append(ref)
    dq, _ = mem.alloc((tq, nheads, d))
    dk, _ = mem.alloc((tk, nheads, d))
    dv, _ = mem.alloc((tk, nheads, d))
    work = _workspace(mem, ck.bwd_workspace(batch=len(seqlens_q), nhead_q=nheads, seqlen_q=max(seqlens_q), hdim_q=d,
                                            max_seqlen_k=max(seqlens_k), bn0=BN0, deterministic=deterministic,
                                            total_q=tq))
    pq, pk = mem.put_ints(cu_q), mem.put_ints(cu_k)
    dd, _ = mem.alloc((nheads, tq))
    dd.copy_((do * o).sum(-1).T)
    a = ck.bwd_args(*(mem.tensor(t) for t in (q, k, v, o, lse, do, dd, dq, dk, dv, work["dq_acc"])),
                    softmax_scale=scale, window_left=left, window_right=right, deterministic=deterministic,
                    cu_seqlens_q=ck.tensor_of((len(cu_q),), (1,), pq, "int32"),
                    cu_seqlens_k=ck.tensor_of((len(cu_k),), (1,), pk, "int32"),
                    max_seqlen_q=max(seqlens_q), max_seqlen_k=max(seqlens_k))
    return a, (dq, dk, dv, cu_q, cu_k), refs


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("causal,window", WINDOWS[:4], ids=lambda w: str(w))
def test_group_mode_varlen_matches_autograd(causal, window, deterministic):
    """Packed varlen sequences (an empty one, one without keys, one past a key tile), each bottom-right
    aligned with its own lengths, GQA; keys of a sequence without queries get zero gradients."""
    mem = Arena(1 << 21)
    left, right = _window(causal, window)
    sq, sk = [5, 0, 64, 17, 1, 3], [9, 3, 150, 11, 30, 0]
    a, (dq, dk, dv, cu_q, cu_k), refs = _group_case(mem, sq, sk, 4, 2, 16, left, right, deterministic)
    assert a.group_mode and a.batch == 6 and a.max_seqlen_k == 150 and a.nhead_stride_lsed == sum(sq)
    dk.zero_(), dv.zero_()  # the backend's dk / dv of a sequence without queries: see below
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=deterministic)
    dk, dv = ck_backend.reduce_gqa(dk, 2), ck_backend.reduce_gqa(dv, 2)
    for b, ref in enumerate(refs):
        rq, rk = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        if ref is None:
            assert torch.all(dq[rq] == 0) and torch.all(dk[rk] == 0) and torch.all(dv[rk] == 0)
            continue
        for name, got, want in (("dq", dq[rq], ref[2][0]), ("dk", dk[rk], ref[3][0]), ("dv", dv[rk], ref[4][0])):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6, msg=lambda m: f"sequence {b} {name}: {m}")


def test_negative_scale_is_what_ck_cannot_honour():
    """CK sets masked scores to -inf before multiplying by the scale: with softmax_scale < 0 they become +inf.
    The evaluator shows it (so the binding's refusal is needed), and the ck backend refuses the call."""
    mem = Arena(1 << 20)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 1, 20, 20, 2, 2, 8, -1, 0, scale=-0.3)
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=False)
    assert not torch.isfinite(dq).all()
    q = torch.zeros(1, 20, 2, 8, dtype=torch.float16)
    err = ck_backend.unsupported(q, q, FwdArgs(-0.3, -1, 0, 0.0, None), "gfx942")
    assert isinstance(err, NotImplementedError) and "softmax_scale" in str(err)


def test_masked_garbage_reaches_dq_as_documented():
    """CK's own semantics, which rocflash.backends.ck_masked works around (tests/test_ck_eval.py): a NaN in a V
    row that query rows cannot see, inside a key tile their query tile visits, reaches their dQ through 0 * NaN
    in dS. With bn0 = 128 keys per block every query tile of a 100-key causal call visits key 90's tile: all of
    rows 0-89."""
    mem = Arena(1 << 20)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 1, 100, 100, 1, 1, 16, -1, 0)
    v_row = mem.read(a.v_ptr) + 90 * a.stride_v
    mem.arena[v_row:v_row + 16] = float("nan")
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=False)
    assert torch.isnan(dq[0, :90]).all()  # rows 0-89 cannot see key 90
    assert torch.isfinite(dv[0, :90]).all()  # dV = P^T dO: 0 * finite


# ----------------------------------------------------------- ALiBi (the alibi backward instances)


@pytest.mark.parametrize("sq,sk", [(1, 7), (7, 1), (33, 33), (40, 70), (130, 65)])
@pytest.mark.parametrize("left,right", [(-1, -1), (-1, 0), (6, 0), (5, 3)])
@pytest.mark.parametrize("alibi", ["heads", "batch"])
def test_alibi_backward_matches_autograd(sq, sk, left, right, alibi):
    """dq, dk, dv with flash-attn's ALiBi (bottom-right, per query head, per batch entry), GQA 4:2, from the
    forward's LSE (the same bias encoding in both structs)."""
    mem = Arena(1 << 20)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 2, sq, sk, 4, 2, 16, left, right, alibi=alibi)
    assert a.mask_type == ck.MASK_BOTTOM_RIGHT and a.bias_ptr and a.stride_bias == (4 if alibi == "batch" else 0)
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=False)
    _check(dq, dk, dv, hk, ref)


ALIBI_CORRUPTIONS = {
    "causal sent as (-1, 0) (CK's VERTICAL ALiBi)": lambda a: dataclasses.replace(a, window_size_left=-1),
    "top-left alignment": lambda a: dataclasses.replace(a, mask_type=ck.MASK_TOP_LEFT),
    "slope of the next head": lambda a: dataclasses.replace(a, bias_ptr=a.bias_ptr + ELEM),
    "one slope row for every batch entry": lambda a: dataclasses.replace(a, stride_bias=0),
    "no slopes (a bias-free instance)": lambda a: dataclasses.replace(a, bias_ptr=0),
}


@pytest.mark.parametrize("name", ALIBI_CORRUPTIONS)
def test_a_wrong_alibi_field_fails_the_backward(name):
    mem = Arena(1 << 20)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 2, 40, 70, 4, 2, 16, -1, 0, alibi="batch")
    ck_backward(mem, ALIBI_CORRUPTIONS[name](a), bm0=BM0, bn0=BN0, deterministic=False)
    with pytest.raises(AssertionError):
        _check(dq, dk, dv, hk, ref)


# ----------------------------------------------------------- the evaluation can fail: corrupt one field each


CORRUPTIONS = {
    "stride_do swapped with nhead_stride_do": lambda a: dataclasses.replace(a, stride_do=a.nhead_stride_do,
                                                                              nhead_stride_do=a.stride_do),
    "stride_q of O (contiguous rows)": lambda a: dataclasses.replace(a, stride_q=a.stride_o),
    "batch_stride_v off by one row": lambda a: dataclasses.replace(a, batch_stride_v=a.batch_stride_v + a.stride_v),
    "nhead_stride_dk of K (GQA)": lambda a: dataclasses.replace(a, nhead_stride_dk=a.nhead_stride_k),
    "top-left instead of bottom-right": lambda a: dataclasses.replace(a, mask_type=ck.MASK_TOP_LEFT),
    "window left/right swapped": lambda a: dataclasses.replace(a, window_size_left=a.window_size_right,
                                                               window_size_right=a.window_size_left),
    "nhead_k as nhead_q (no GQA)": lambda a: dataclasses.replace(a, nhead_k=a.nhead_q),
    "nhead_stride_lsed of batch": lambda a: dataclasses.replace(a, nhead_stride_lsed=a.batch_stride_lsed),
    "d_ptr at lse_ptr (D not handed over)": lambda a: dataclasses.replace(a, d_ptr=a.lse_ptr),
    "stride_dq_acc of dq": lambda a: dataclasses.replace(a, stride_dq_acc=a.stride_dq),
    "scale as scale * log2(e)": lambda a: dataclasses.replace(a, scale=a.scale * math.log2(math.e)),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_a_wrong_field_fails_the_comparison(name):
    mem = Arena(1 << 20)
    left, right = 6, 0  # causal sliding window, seqlen_q != seqlen_k: both corners and both sides differ
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 2, 40, 70, 4, 2, 16, left, right)
    bad = CORRUPTIONS[name](a)
    try:
        ck_backward(mem, bad, bm0=BM0, bn0=BN0, deterministic=False)
    except (IndexError, RuntimeError):
        return  # the corrupt struct addresses memory outside the arena: fails too
    with pytest.raises(AssertionError):
        _check(dq, dk, dv, hk, ref)


@pytest.mark.parametrize("name", ["split stride 0", "dq_acc not zeroed"])
def test_deterministic_workspace_mistakes_fail(name):
    mem = Arena(1 << 21)
    a, (dq, dk, dv, hk), ref = _batch_case(mem, 1, 150, 300, 2, 1, 16, 20, 0, deterministic=True)
    if name == "split stride 0":
        a = dataclasses.replace(a, split_stride_dq_acc=0)
    else:
        flat, base = mem.flat(a.dq_acc_ptr)
        flat[base:base + 2 * _tiles(300, BN0) * 150 * 16] = float("nan")
    ck_backward(mem, a, bm0=BM0, bn0=BN0, deterministic=True)
    with pytest.raises(AssertionError):
        _check(dq, dk, dv, hk, ref)


# ----------------------------------------------------------- the ck backend's own backward: tests/test_ck_eval.py


class TensorMemory:
    """Real CPU tensors addressed by data pointer: what the binding passed, resolved back to storage."""

    def __init__(self, tensors):
        self.tensors = [t for t in tensors if t is not None]

    def flat(self, ptr: int) -> tuple[torch.Tensor, int]:
        for t in self.tensors:
            st = t.untyped_storage()
            if st.data_ptr() <= ptr < st.data_ptr() + st.nbytes():
                if (ptr - st.data_ptr()) % t.element_size():  # CK's buffer loads address whole elements
                    raise RuntimeError(f"pointer {ptr:#x} is not aligned to a {t.dtype} element of its tensor")
                return torch.empty(0, dtype=t.dtype).set_(st), (ptr - st.data_ptr()) // t.element_size()
        raise RuntimeError(f"pointer {ptr:#x} is in no tensor the binding allocated or received")

    def int_at(self, ptr: int, i: int) -> int:
        """Entry i of the int32 array at ``ptr`` (group mode's seqstart_q / seqstart_k: the cu_seqlens)."""
        flat, base = self.flat(ptr)
        return int(flat[base + i])
