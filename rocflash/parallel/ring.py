"""Ring attention: exact attention over a sequence split across the ranks of a torch.distributed group.

Each rank keeps its query shard and passes its K/V shard around the ring (rank r sends to r+1, receives from
r-1) with point-to-point ops (``batch_isend_irecv``) that overlap the attention of the block it already has.
Every block is one call of a single-GPU rocflash backend, which returns the block's output O_b and its LSE;
the partial results merge exactly in fp32 (Milakov & Gimelshein 2018, "Online normalizer calculation for
softmax"; the ring form: Liu et al. 2023, "Ring Attention with Blockwise Transformers")::

    LSE = log(exp(LSE_a) + exp(LSE_b))
    O   = exp(LSE_a - LSE) * O_a + exp(LSE_b - LSE) * O_b

The backward is FlashAttention-2's (Dao 2023): every block runs the backend's fused backward with the GLOBAL O
and LSE, so P = exp(S - LSE) is already the final probability and D = rowsum(dO * O) the final one; the block's
dQ adds up locally, its dK/dV add into fp32 accumulators that travel around the ring with the K/V they belong
to and arrive back at their owner after world_size steps.

Causal attention uses the load-balanced layout of :mod:`rocflash.parallel.layout` (rank r holds chunks r and
2W-1-r). Against the K/V of rank s, rank r's block is (c = local_seqlen / 2)::

    s == r: all local rows, all local keys, causal (chunk r sees itself causally, chunk 2W-1-r sees chunk r
            fully and itself causally: the causal mask of the concatenation)
    s <  r: all local rows, keys [0, c) (chunk s): no mask; chunk 2W-1-s lies in the future of both chunks
    s >  r: rows [c, 2c) (chunk 2W-1-r), all keys: no mask; chunk r lies before both of s's chunks

so every rank computes the same area each step.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace

import torch
import torch.distributed as dist
from torch.autograd.function import once_differentiable

from ..backends import FwdArgs, compiled, reference, sim
from ..ops import check_backward_scale
from ..selector import select_backend

_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
_FP64_BACKENDS = ("torch", "sim")
_FP32_MAX = 3.4028234663852886e38
_KV_TAG, _DKV_TAG = 0, 1  # gloo matches messages by (peer, tag); NCCL ignores tags


def ring_flash_attn_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    group: dist.ProcessGroup | None = None,
    causal: bool = False,
    softmax_scale: float | None = None,
    window_size: tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
    alibi_slopes: torch.Tensor | None = None,
    deterministic: bool = False,
    return_attn_probs: bool = False,
    *,
    backend: str | None = None,
):
    """Exact attention over a sequence split across the ranks of ``group`` (ring attention / context parallel).

    Every rank of the group calls this with its own shards, same shapes on every rank.

    Args:
        q: (batch, local_seqlen_q, nheads, headdim): this rank's queries; float16 / bfloat16 / float32 (float64
            on the torch and sim backends).
        k, v: (batch, local_seqlen_k, nheads_k, headdim), same dtype and device; nheads % nheads_k == 0 (GQA/MQA).
        group: the torch.distributed process group holding the sequence (default: the world). NCCL/RCCL on
            GPUs (call torch.cuda.set_device first), gloo on CPU.
        causal: causal mask over the FULL sequence (positions in the load-balanced layout). Requires that layout
            (``rocflash.parallel.zigzag_shard``): q and k shards of the same even length, rank r holding chunks
            r and 2·world_size−1−r. Without causal any split of the keys works (attention does not depend on
            key order) and q may be split differently from k.
        softmax_scale: scale of Q.K^T; default 1 / sqrt(headdim).
        window_size: (left, right) sliding window over global positions, -1 = unbounded: query at position p
            sees keys [p - left, p + right] (with causal, right must be -1 or 0). A window needs the
            load-balanced layout; each (query chunk, key chunk) pair the band touches is one block, cut to the
            band's bounding rectangle, and pairs it misses are skipped.
        softcap: > 0 applies ``softcap * tanh(S * softmax_scale / softcap)`` (elementwise: exact per block).
        alibi_slopes: must be None (NotImplementedError): the kernels' bias is relative to each block's own
            bottom-right corner, not to global positions.
        deterministic: accepted for flash-attn compatibility; the ring's order of accumulation is fixed, so
            results are bitwise reproducible for a given world size and backend.
        return_attn_probs: also return this rank's LSE (see Returns).
        backend: "hip" | "cuda" | "torch" | "sim" | None (then ROCFLASH_BACKEND, then a device probe): the
            single-GPU backend that runs every block.

    Returns:
        out (batch, local_seqlen_q, nheads, headdim) in q's dtype: this rank's rows of the attention output. With
        return_attn_probs=True: (out, softmax_lse float32 (batch, nheads, local_seqlen_q), None).

    Differentiable once in q, k, v through autograd (the backward is a second ring pass). Memory per rank:
    see :func:`rocflash.parallel.memory_model`.

    Raises:
        TypeError / ValueError naming the argument, rule and value, before any communication.
        NotImplementedError for ALiBi.
        RuntimeError when torch.distributed is not initialized.
    """
    args = _check_args(q, k, v, causal, softmax_scale, window_size, softcap, alibi_slopes, deterministic,
                       return_attn_probs)
    if not dist.is_initialized():
        raise RuntimeError("ring_flash_attn_func needs torch.distributed: call torch.distributed.init_process_group")
    sel = select_backend(q.device, backend)
    if q.dtype == torch.float64 and sel.backend not in _FP64_BACKENDS:
        raise TypeError(f"q.dtype must be float16, bfloat16 or float32 for backend '{sel.backend}' "
                        f"(float64 runs on backends {_FP64_BACKENDS}), got {q.dtype}")
    ring = _Ring(group)
    _check_same_shapes(ring, q, k, v)
    out, lse = _RingAttention.apply(q, k, v, ring, _Kernels(sel.backend), args, causal)
    return (out, lse, None) if return_attn_probs else out


@dataclass(frozen=True)
class _Kernels:
    """One backend's single-GPU forward(q, k, v, args) -> (out, lse) and fused backward -> (dq, dk, dv)."""

    backend: str

    def forward(self, q, k, v, args):
        if self.backend == "torch":
            return reference.forward(q, k, v, args)
        if self.backend == "sim":
            return sim.forward(q, k, v, args)
        return compiled.forward(self.backend, q, k, v, args)

    def backward(self, q, k, v, out, lse, dout, args, out_fp32=None):
        if self.backend == "torch":
            return reference.backward(q, k, v, out, lse, dout, args)
        if self.backend == "sim":
            return sim.backward(q, k, v, out, lse, dout, args, out_fp32=out_fp32)
        return compiled.backward(self.backend, q, k, v, out, lse, dout, args, out_fp32=out_fp32)


class _Exchange:
    """Tensors in flight to the next rank and from the previous one; ``wait()`` returns the received ones."""

    def __init__(self, reqs, bufs):
        self.reqs, self.bufs = reqs, bufs

    def wait(self):
        for r in self.reqs:
            r.wait()
        return self.bufs


def _check_same_shapes(ring: "_Ring", q, k, v) -> None:
    """Every rank must pass shards of the same shapes and dtype: K/V buffers travel around the ring with the
    receiver's shapes, so a mismatch would abort (gloo) or hang / corrupt (NCCL) inside the exchange. One small
    all_gather (and a host sync) per call says which rank differs, on every rank, before any exchange."""
    if ring.world == 1:
        return
    dtypes = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
    code = dtypes.index(q.dtype) if q.dtype in dtypes else -1
    mine = torch.tensor([*q.shape, *k.shape, *v.shape, code], dtype=torch.int64, device=q.device)
    everyone = [torch.empty_like(mine) for _ in range(ring.world)]
    dist.all_gather(everyone, mine, group=ring.group)
    rows = [tuple(t.tolist()) for t in everyone]
    if any(r != rows[0] for r in rows):
        def describe(r):
            return f"q {r[0:4]}, k {r[4:8]}, v {r[8:12]}, dtype {dtypes[r[12]] if r[12] >= 0 else '?'}"
        raise ValueError("ring_flash_attn_func: every rank must pass shards of the same shapes and dtype, got "
                         + "; ".join(f"rank {i}: {describe(r)}" for i, r in enumerate(rows)))


class _Ring:
    """The ring of a process group: rank r sends to r+1 and receives from r-1 (group ranks)."""

    def __init__(self, group):
        self.group = group
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        to_global = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
        self.next = to_global((self.rank + 1) % self.world)
        self.prev = to_global((self.rank - 1) % self.world)

    def send_recv(self, tensors, tag: int) -> _Exchange:
        """Start sending ``tensors`` (contiguous) to the next rank and receiving the same shapes from the previous."""
        if self.world == 1:
            return _Exchange([], list(tensors))
        bufs = [torch.empty_like(t) for t in tensors]
        ops = [dist.P2POp(dist.isend, t, self.next, self.group, tag) for t in tensors]
        ops += [dist.P2POp(dist.irecv, b, self.prev, self.group, tag) for b in bufs]
        return _Exchange(dist.batch_isend_irecv(ops), bufs)


def _blocks(ring: _Ring, step: int, causal: bool, seqlen_q: int, seqlen_k: int, args: FwdArgs):
    """The (query rows, key rows, args) attention blocks of this rank against the K/V it holds at ``step``."""
    full = replace(args, window_left=-1, window_right=-1)
    src = (ring.rank - step) % ring.world
    if args.window_left >= 0 or (args.window_right >= 0 and not causal):
        return _window_blocks(ring, src, seqlen_q, args)
    if not causal:
        return [(slice(0, seqlen_q), slice(0, seqlen_k), full)]
    half = seqlen_q // 2
    if src == ring.rank:
        return [(slice(0, seqlen_q), slice(0, seqlen_k), replace(args, window_left=-1, window_right=0))]
    if src < ring.rank:
        return [(slice(0, seqlen_q), slice(0, half), full)]
    return [(slice(half, seqlen_q), slice(0, seqlen_k), full)]


def _window_blocks(ring: _Ring, src: int, seqlen: int, args: FwdArgs):
    """Sliding window in the load-balanced layout: one block per (query chunk, key chunk) pair that the band
    touches, cut to the band's bounding rectangle (see :func:`window_rect`)."""
    c, last = seqlen // 2, 2 * ring.world - 1
    blocks = []
    for q_off, q_chunk in ((0, ring.rank), (c, last - ring.rank)):
        for k_off, k_chunk in ((0, src), (c, last - src)):
            rect = window_rect(c, c, (q_chunk - k_chunk) * c, args.window_left, args.window_right)
            if rect is not None:
                i0, i1, j0, j1, left, right = rect
                blocks.append((slice(q_off + i0, q_off + i1), slice(k_off + j0, k_off + j1),
                               replace(args, window_left=left, window_right=right)))
    return blocks


def window_rect(n: int, m: int, offset: int, left: int, right: int):
    """A window band between n query rows and m keys, in the kernels' bottom-right convention.

    Query row i (0 <= i < n) and key j (0 <= j < m) sit at global positions p + i and p - offset + j; the row
    sees the key iff ``i + offset - left <= j <= i + offset + right`` (a negative bound: unbounded), the
    global rule of a sequence whose queries and keys share positions. Returns None when no pair is visible,
    else (i0, i1, j0, j1, left', right'): rows [i0, i1) and keys [j0, j1) hold every visible pair, and the
    kernels' rule on that sub-block (row i' sees key j' iff i' + d - left' <= j' <= i' + d + right', with
    d = (j1 - j0) - (i1 - i0)) is exactly the global one. left', right' >= 0 whenever bounded: the
    rectangle is tight, so its last row's band ends at its last key or the band's right edge is its corner.
    """
    i0 = max(0, -offset - right) if right >= 0 else 0
    i1 = min(n, m - offset + left) if left >= 0 else n
    if i0 >= i1:
        return None
    j0 = max(0, i0 + offset - left) if left >= 0 else 0
    j1 = min(m, i1 - 1 + offset + right + 1) if right >= 0 else m
    if j0 >= j1:
        return None
    shift = (i0 + offset - j0) - ((j1 - j0) - (i1 - i0))  # the global diagonal minus the sub-block's
    new_left = left - shift if left >= 0 else -1
    new_right = right + shift if right >= 0 else -1
    assert new_left >= -1 and new_right >= -1 and (left < 0 or new_left >= 0) and (right < 0 or new_right >= 0)
    # a bound that reaches past every key is unbounded (as flash_attn_func normalises it)
    new_left = -1 if new_left >= j1 - j0 else new_left
    new_right = -1 if new_right >= i1 - i0 else new_right
    return i0, i1, j0, j1, new_left, new_right


def _merge(out, lse, out_b, lse_b):
    """Fold a block's (out_b, lse_b) into the running (out fp32 (b, s, h, d), lse fp32 (b, h, s)), in place."""
    lse_b = lse_b.to(lse.dtype)
    new = torch.logaddexp(lse, lse_b)
    seen = ~torch.isneginf(new)  # rows that have seen no key yet keep out 0, lse -inf
    w_old = torch.where(seen, torch.exp(lse - new), torch.zeros_like(new))
    w_b = torch.where(seen, torch.exp(lse_b - new), torch.zeros_like(new))
    out.mul_(w_old.transpose(1, 2).unsqueeze(-1)).add_(out_b.to(out.dtype) * w_b.transpose(1, 2).unsqueeze(-1))
    lse.copy_(new)


def ring_forward(ring: _Ring, kernels: _Kernels, q, k, v, args: FwdArgs, causal: bool):
    """The forward ring pass: (out in q's dtype, lse (b, h, seqlen_q) in the accumulation dtype, out in float32
    before its rounding for 16-bit inputs (the backward's D = rowsum(dO * O) reads it; None otherwise))."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    batch, seqlen_q, nheads, headdim = q.shape
    out = torch.zeros(batch, seqlen_q, nheads, headdim, dtype=acc, device=q.device)
    lse = torch.full((batch, nheads, seqlen_q), float("-inf"), dtype=acc, device=q.device)
    kv = (k, v)
    for step in range(ring.world):
        pending = ring.send_recv(kv, _KV_TAG) if step + 1 < ring.world else None
        for rows, keys, block_args in _blocks(ring, step, causal, seqlen_q, k.shape[1], args):
            out_b, lse_b = kernels.forward(q[:, rows], kv[0][:, keys], kv[1][:, keys], block_args)
            _merge(out[:, rows], lse[:, :, rows], out_b, lse_b)
        if pending is not None:
            kv = tuple(pending.wait())
    return out.to(q.dtype), lse, (out if q.dtype in (torch.float16, torch.bfloat16) else None)


def ring_backward(ring: _Ring, kernels: _Kernels, q, k, v, out, lse, dout, args: FwdArgs, causal: bool,
                  out_fp32=None):
    """The backward ring pass: (dq, dk, dv) in the inputs' dtype. dK/dV accumulate in fp32 buffers that travel
    with their K/V, one exchange behind it, and reach their owner after the last step."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    seqlen_q = q.shape[1]
    dq = torch.zeros(q.shape, dtype=acc, device=q.device)
    kv, dkv_pending = (k, v), None
    for step in range(ring.world):
        kv_pending = ring.send_recv(kv, _KV_TAG) if step + 1 < ring.world else None
        grads = []
        for rows, keys, block_args in _blocks(ring, step, causal, seqlen_q, k.shape[1], args):
            grads.append((rows, keys, kernels.backward(q[:, rows], kv[0][:, keys], kv[1][:, keys], out[:, rows],
                                                       lse[:, :, rows].contiguous(), dout[:, rows], block_args,
                                                       None if out_fp32 is None else out_fp32[:, rows])))
        if dkv_pending is None:
            dk, dv = (torch.zeros(t.shape, dtype=acc, device=t.device) for t in kv)
        else:
            dk, dv = dkv_pending.wait()  # the accumulators of the K/V this rank holds now
        for rows, keys, (dq_b, dk_b, dv_b) in grads:
            dq[:, rows] += dq_b
            dk[:, keys] += dk_b
            dv[:, keys] += dv_b
        dkv_pending = ring.send_recv((dk, dv), _DKV_TAG)
        if kv_pending is not None:
            kv = tuple(kv_pending.wait())
    dk, dv = dkv_pending.wait()  # after world_size hops: this rank's own dK/dV
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)


class _RingAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, ring, kernels, args, causal):
        q, k, v = (x.contiguous() for x in (q, k, v))  # P2P sends whole storages; kernels need headdim contiguous
        out, lse, out32 = ring_forward(ring, kernels, q, k, v, args, causal)
        needs_grad = any(ctx.needs_input_grad[:3])
        ctx.save_for_backward(q, k, v, out, lse, out32 if needs_grad else None)  # 4 bytes / element of out
        ctx.ring, ctx.kernels, ctx.args, ctx.causal = ring, kernels, args, causal
        lse = lse.float()
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    @once_differentiable
    def backward(ctx, dout, _dlse):
        q, k, v, out, lse, out32 = ctx.saved_tensors
        check_backward_scale(ctx.args.softmax_scale, q.dtype, ctx.kernels.backend, "ring_flash_attn_func")
        dq, dk, dv = ring_backward(ctx.ring, ctx.kernels, q, k, v, out, lse, dout.contiguous(), ctx.args, ctx.causal,
                                   out32)
        return dq, dk, dv, None, None, None, None


def _check_args(q, k, v, causal, softmax_scale, window_size, softcap, alibi_slopes, deterministic,
                return_attn_probs) -> FwdArgs:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 4:
            raise ValueError(f"{name} must have 4 dimensions (batch, local_seqlen, heads, headdim), "
                             f"got shape {tuple(t.shape)}")
        if t.dtype not in (*_DTYPES, torch.float64):
            raise TypeError(f"{name}.dtype must be float16, bfloat16 or float32, got {t.dtype}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k, v must have the same dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"q, k, v must be on the same device, got {q.device}, {k.device}, {v.device}")
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    batch, seqlen_q, nheads, headdim = q.shape
    if k.shape[0] != batch or k.shape[3] != headdim:
        raise ValueError(f"k must have q's batch size {batch} and headdim {headdim}, got shape {tuple(k.shape)}")
    if not 1 <= headdim <= 256:
        raise ValueError(f"headdim must be in [1, 256], got {headdim}")
    if k.shape[2] < 1 or nheads % k.shape[2]:
        raise ValueError(f"nheads must be divisible by nheads_k (GQA/MQA), got nheads={nheads}, nheads_k={k.shape[2]}")
    for name, flag in (("causal", causal), ("deterministic", deterministic), ("return_attn_probs", return_attn_probs)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, got {flag!r}")
    if (not isinstance(window_size, (tuple, list)) or len(window_size) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool) and w >= -1 for w in window_size)):
        raise ValueError(f"window_size must be a pair of ints >= -1 (-1 = unbounded), got {window_size!r}")
    left, right = window_size
    if causal:
        if right not in (-1, 0):
            raise ValueError(f"window_size[1] must be -1 or 0 when causal=True (causal means right = 0), got {right}")
        right = 0
    if (causal or left >= 0 or right >= 0) and (k.shape[1] != seqlen_q or seqlen_q % 2):
        raise ValueError(f"causal or windowed ring attention needs the load-balanced layout "
                         f"(rocflash.parallel.zigzag_shard): q and k shards of the same even local_seqlen, got "
                         f"local_seqlen_q={seqlen_q}, local_seqlen_k={k.shape[1]}")
    if alibi_slopes is not None:
        raise NotImplementedError("alibi_slopes is not implemented by ring attention (the kernels' ALiBi bias is "
                                  "relative to each block's corner, not to global positions): pass None")
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(headdim)
    scale = _real(softmax_scale)
    if scale is None or not abs(scale) <= _FP32_MAX:
        raise ValueError(f"softmax_scale must be a finite float (within float32 range) or None, got {softmax_scale!r}")
    cap = _real(softcap)
    if cap is None or not 0.0 <= cap <= _FP32_MAX or (cap > 0 and not abs(scale) / cap <= _FP32_MAX):
        raise ValueError(f"softcap must be a finite float >= 0 (0 = off) and >= |softmax_scale| / 3.4e38, "
                         f"got {softcap!r}")
    return FwdArgs(scale, left, right, cap, None)


def _real(x) -> float | None:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return None
    try:
        return float(x)
    except OverflowError:
        return None


def memory_model(batch: int, local_seqlen: int, nheads: int, nheads_k: int, headdim: int,
                 dtype: torch.dtype = torch.bfloat16) -> dict[str, int]:
    """Bytes one rank holds for ring attention (a model, not a measurement; the GPU script measures it).

    Everything is linear in local_seqlen = seqlen / world_size; nothing depends on the full sequence:
    - ``inputs``: q, k, v shards (the caller's).
    - ``saved``: what autograd keeps from forward to backward: out (q's dtype) and LSE (fp32), for 16-bit
      inputs also the fp32 O accumulator (the backward's D = rowsum(dO * O) reads it), plus q, k, v.
    - ``forward_peak``: transient forward memory beyond inputs: the fp32 O and LSE accumulators, one K/V
      block in flight (receive buffers), one block's out/LSE from the backend, the output.
    - ``backward_peak``: transient backward memory beyond saved + dout: fp32 dQ, two fp32 dK/dV accumulator
      pairs (the one being added to and the one arriving), the K/V in flight, one block's dq/dk/dv, the
      kernels' fp32 delta, and the returned dq, dk, dv.
    """
    e = torch.empty((), dtype=dtype).element_size()
    nq = batch * local_seqlen * nheads * headdim
    nk = batch * local_seqlen * nheads_k * headdim
    rows = batch * nheads * local_seqlen
    inputs = e * (nq + 2 * nk)
    saved = e * nq + 4 * rows + (4 * nq if e < 4 else 0)
    forward = 4 * nq + 4 * rows + 2 * e * nk + e * nq + 4 * rows + e * nq
    backward = 4 * nq + 2 * 2 * 4 * nk + 2 * e * nk + e * (nq + 2 * nk) + 4 * rows + e * (nq + 2 * nk)
    return {"inputs": inputs, "saved": saved, "forward_peak": forward, "backward_peak": backward,
            "total_peak": inputs + saved + e * nq + backward}
