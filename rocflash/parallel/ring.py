"""Ring attention: exact attention over a sequence split across the ranks of a torch.distributed group.

Each rank keeps its query shard and passes its K/V shard around the ring (rank r sends to r+1, receives from
r-1) with point-to-point ops (``batch_isend_irecv``) that overlap the attention of the block it already has.
Every block is one call of a single-GPU rocflash backend, which returns the block's output O_b and its LSE;
the partial results merge exactly in fp32 (Milakov & Gimelshein 2018, "Online normalizer calculation for
softmax"; the ring form: Liu et al. 2023, "Ring Attention with Blockwise Transformers")::

    LSE = log(exp(LSE_a) + exp(LSE_b))
    O   = exp(LSE_a - LSE) * O_a + exp(LSE_b - LSE) * O_b

The backward is FlashAttention-2's (Dao 2023): every block runs the backend's fused backward with the GLOBAL O
and LSE, so P = exp(S - LSE) is already the final probability and D = rowsum(dO * O) the final one (for 16-bit
inputs from the merged O in float32, as the single-GPU path does: from O rounded to fp16 / bf16, dQ and dK carry
|softmax_scale| * eps(dtype) * |dO| |V| |K| more error, outside FlashAttention's tolerance rule at large scales;
see rocflash.ops); the block's dQ adds up locally, its dK/dV add into fp32 accumulators that travel around the
ring with the K/V they belong to and arrive back at their owner after world_size steps (the last hop rounded
to the inputs' dtype before it is sent: the owner only rounds them, so it is the same result in half the bytes).

Causal attention uses the load-balanced layout of :mod:`rocflash.parallel.layout` (rank r holds chunks r and
2W-1-r). Against the K/V of rank s, rank r's block is (c = local_seqlen / 2)::

    s == r: all local rows, all local keys, causal (chunk r sees itself causally, chunk 2W-1-r sees chunk r
            fully and itself causally: the causal mask of the concatenation)
    s <  r: all local rows, keys [0, c) (chunk s): no mask; chunk 2W-1-s lies in the future of both chunks
    s >  r: rows [c, 2c) (chunk 2W-1-r), all keys: no mask; chunk r lies before both of s's chunks

so every rank computes the same area each step.

The schedule is data: a plan lists each step's :class:`Block` s (rows, keys, args), and
:func:`ring_forward` / :func:`ring_backward` run any plan. :func:`dense_plan` is this module's;
:mod:`rocflash.parallel.ring_varlen` builds one for packed sequences (the same blocks per sequence, run as
varlen kernel calls) and reuses the exchange, the merge and the autograd function unchanged.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

import torch
import torch.distributed as dist

from ..backends import FwdArgs, SeqArgs, compiled, reference, sim
from ..interface import _FP64_BACKENDS
from ..ops import check_backward_scale
from ..interface import _check_args as check_args
from ..selector import select_backend
from ..varlen import backend_functions

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
        softmax_scale: scale of Q.K^T; default 1 / sqrt(headdim). The backward of float32 inputs takes
            |softmax_scale| <= 10 (ValueError beyond: RING_MAX_BACKWARD_SCALE_FP32), 16-bit ones <= 50.
        window_size: (left, right) sliding window over global positions, -1 = unbounded: query at position p
            sees keys [p - left, p + right] (with causal, right must be -1 or 0). A window needs the
            load-balanced layout; each (query chunk, key chunk) pair the band touches is one block, cut to the
            band's bounding rectangle, and pairs it misses are skipped.
        softcap: > 0 applies ``softcap * tanh(S * softmax_scale / softcap)`` (elementwise: exact per block).
        alibi_slopes: must be None (NotImplementedError): the kernels' bias is relative to each block's own
            bottom-right corner, not to global positions.
        deterministic: as flash_attn_func: False lets backend "cuda"'s tensor-core backward add each block's dQ
            atomically (faster; not bitwise repeatable), True runs its separate dQ kernel. The ring's own order of
            accumulation is fixed, so with True (and always on hip, sim, torch and the vector tile math) results
            are bitwise reproducible for a given world size and backend.
        return_attn_probs: also return this rank's LSE (see Returns).
        backend: "hip" | "cuda" | "torch" | "sim" | None (then ROCFLASH_BACKEND, then a device probe): the
            single-GPU backend that runs every block.

    Returns:
        out (batch, local_seqlen_q, nheads, headdim) in q's dtype: this rank's rows of the attention output. With
        return_attn_probs=True: (out, softmax_lse float32 (batch, nheads, local_seqlen_q), None).

    Differentiable once in q, k, v through autograd (the backward is a second ring pass); a backward with
    create_graph=True raises RuntimeError on every rank (no second derivatives, on any backend). Memory per rank:
    see :func:`rocflash.parallel.memory_model`.

    Raises:
        TypeError / ValueError naming the argument, rule and value, before any exchange of K/V; on EVERY rank of
        the group (one small all_gather): the rank whose arguments are bad raises its own error, the others a
        ValueError naming that rank and its error, so no rank is left waiting in the ring. ValueError on every
        rank when the ranks' shapes, dtype, causal, window_size, softmax_scale, softcap, or whether a
        gradient is asked for (grad mode and requires_grad of q, k, v) differ. NotImplementedError for ALiBi.
        RuntimeError when torch.distributed is not initialized; ValueError when this process is not a member
        of ``group``. Every rank must then call backward on the output (the backward is a ring pass too).
    """
    def local_checks():
        args = _check_args(q, k, v, causal, softmax_scale, window_size, softcap, alibi_slopes, deterministic,
                           return_attn_probs)
        if not dist.is_initialized():
            raise RuntimeError("ring_flash_attn_func needs torch.distributed: call "
                               "torch.distributed.init_process_group")
        sel = select_backend(q.device, backend)
        if q.dtype == torch.float64 and sel.backend not in _FP64_BACKENDS:
            raise TypeError(f"q.dtype must be float16, bfloat16 or float32 for backend '{sel.backend}' "
                            f"(float64 runs on backends {_FP64_BACKENDS}), got {q.dtype}")
        return args, sel

    ring, (args, sel) = agree(group, "ring_flash_attn_func", local_checks, q, k, v, causal)
    plan = dense_plan(ring.rank, ring.world, causal, q.shape[1], k.shape[1], args)
    out, lse = _RingAttention.apply(q, k, v, ring, _Kernels(sel.backend, deterministic), plan)
    return (out, lse, None) if return_attn_probs else out


@dataclass(frozen=True)
class Block:
    """One attention block of a ring step: this rank's query rows ``rows`` against the rows ``keys`` of the K/V
    it holds, under ``args`` (window bounds in the kernels' bottom-right convention for the block).

    rows / keys index dimension 1 of (batch, seqlen, heads, headdim): slices (views), or int64 index tensors
    (gathers; no repeated row within a block) for the varlen ring, which runs its blocks on batch 0 as one
    varlen call with ``seq`` (the sub-sequences of the gathered rows and keys). ``seq`` None: a dense call.
    """

    rows: slice | torch.Tensor
    keys: slice | torch.Tensor
    args: FwdArgs
    seq: SeqArgs | None = None


@dataclass(frozen=True)
class _Kernels:
    """One backend's single-GPU forward -> (out, lse) and fused backward -> (dq, dk, dv) on a block's tensors
    (batch, rows, heads, headdim); with ``seq`` its varlen kernels on batch 0 (lse (1, heads, rows) either way).
    ``deterministic=False``: the compiled dense backward may add dQ atomically (compiled.backward); the varlen
    backward always runs the dQ kernel."""

    backend: str
    deterministic: bool = True

    def forward(self, q, k, v, args, seq=None):
        """(out, lse) of one block. For 16-bit inputs on the fused backends out is the block's O in float32
        before its rounding (the kernels' second store, ``with_out_fp32``): the ring merges unrounded partials,
        so the merged O is float32-accurate (the backward's D reads it) and rounded once, at the end."""
        fp32_out = self.reads_out_fp32(q.dtype)
        if seq is not None:
            if self.backend == "torch":
                out, lse = reference.varlen_forward(q[0], k[0], v[0], seq, args)
            elif fp32_out:
                _, lse, _, out = backend_functions(self.backend)[0](q[0], k[0], v[0], seq, args, with_stats=True)
            else:
                out, lse = backend_functions(self.backend)[0](q[0], k[0], v[0], seq, args)
            return out.unsqueeze(0), lse.unsqueeze(0)
        if self.backend == "torch":
            return reference.forward(q, k, v, args)
        if self.backend == "sim":
            res = sim.forward(q, k, v, args, with_stats=fp32_out, with_out_fp32=fp32_out)
        else:
            res = compiled.forward(self.backend, q, k, v, args, with_stats=fp32_out, with_out_fp32=fp32_out)
        return (res[3], res[1]) if fp32_out else res

    def backward(self, q, k, v, out, lse, dout, args, seq=None, out_fp32=None):
        """``out_fp32``: O in float32 (the fused backends compute D = rowsum(dO * O) from it), or None: from out.
        The torch backend recomputes P and D exactly and ignores it."""
        if seq is not None:
            if self.backend == "torch":
                return tuple(g.unsqueeze(0) for g in reference.varlen_backward(q[0], k[0], v[0], out[0], lse[0],
                                                                                dout[0], seq, args))
            bwd = backend_functions(self.backend)[1]
            o32 = None if out_fp32 is None else out_fp32[0]
            return tuple(g.unsqueeze(0) for g in bwd(q[0], k[0], v[0], out[0], lse[0], dout[0], seq, args,
                                                      out_fp32=o32))
        if self.backend == "torch":
            return reference.backward(q, k, v, out, lse, dout, args)
        if self.backend == "sim":
            return sim.backward(q, k, v, out, lse, dout, args, out_fp32=out_fp32)
        return compiled.backward(self.backend, q, k, v, out, lse, dout, args, out_fp32=out_fp32,
                                 deterministic=self.deterministic)

    def reads_out_fp32(self, dtype: torch.dtype) -> bool:
        """Whether the backward takes O in float32 for D: 16-bit inputs on the fused backends."""
        return self.backend != "torch" and dtype in (torch.float16, torch.bfloat16)


class _Exchange:
    """Tensors in flight to the next rank and from the previous one; ``wait()`` returns the received ones."""

    def __init__(self, reqs, bufs):
        self.reqs, self.bufs = reqs, bufs

    def wait(self):
        for r in self.reqs:
            r.wait()
        return self.bufs


_CODES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_SETTINGS = ("causal", "window_left", "window_right", "softmax_scale", "softcap", "needs_grad")


def agree(group, caller: str, local_checks, q, k, v, causal, cu_seqlens_of=None):
    """Run this rank's argument checks, then make every rank of ``group`` agree before any K/V exchange.

    ``local_checks()`` returns (FwdArgs, extra) or raises. Its error is not raised on this rank alone: the
    other ranks would then wait forever (NCCL) or die of a closed connection (gloo) in the ring's first
    collective. One small all_gather (:func:`check_same_layout`) carries every rank's verdict, shapes and
    settings; then every rank raises: the offending rank its own error, the others a ValueError naming it.
    Without an initialized process group (or with a world of one) the local error is raised as it is.
    ``cu_seqlens_of(extra)``: the varlen ring's local cu_seqlens (host list), compared across ranks too.
    Returns (ring, local_checks()'s result)."""
    try:
        result = local_checks()
        error = None
    except Exception as e:  # noqa: BLE001 (re-raised below, on this rank, after the others have heard of it)
        result, error = None, e
    if not dist.is_initialized():
        raise error
    ring = _Ring(group)
    if ring.world == 1:
        if error is not None:
            raise error
        return ring, result
    settings = None
    if error is None:
        args = result[0]
        needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
        settings = [int(causal), args.window_left, args.window_right, _float_bits(args.softmax_scale),
                    _float_bits(args.softcap), int(needs_grad)]
    cu = None if error is not None or cu_seqlens_of is None else cu_seqlens_of(result)
    check_same_layout(ring, caller, q, k, v, cu, error=error, settings=settings)
    return ring, result


def _float_bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", float(x)))[0]


def _bits_float(b: int) -> float:
    return struct.unpack("<d", struct.pack("<q", b))[0]


def _collective_device(ring: "_Ring", q) -> torch.device:
    if isinstance(q, torch.Tensor) and q.device.type != "meta":
        return q.device
    if dist.get_backend(ring.group) == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def check_same_layout(ring: "_Ring", caller: str, q, k, v, cu_seqlens: list[int] | None = None, *,
                      error: BaseException | None = None, settings: list[int] | None = None) -> None:
    """Every rank must pass shards of the same shapes and dtype (and, varlen, the same local cu_seqlens): K/V
    buffers travel around the ring with the receiver's shapes and are read with the receiver's sequence
    bounds, so a mismatch would abort (gloo), hang or corrupt (NCCL) inside the exchange, or silently pair
    the wrong keys. The same ``settings`` (causal, window, scale, softcap: each rank's plan and its blocks'
    masks; whether a gradient is asked for: the backward ring needs every rank) on every rank: else wrong
    rows or a backward that waits forever. ``error``: this rank's rejection of its own arguments, which every
    rank hears of. Small all_gathers (and a host sync) per call say which rank differs, on every rank, before
    any exchange."""
    if ring.world == 1:
        if error is not None:
            raise error
        return
    device = _collective_device(ring, q)

    def dims(t):
        shape = list(t.shape) if isinstance(t, torch.Tensor) else []
        return (shape + [-1] * 4)[:4] if len(shape) <= 4 else [-2] * 4

    n = 4
    ok = error is None
    code = _CODES.index(q.dtype) if ok and q.dtype in _CODES else -1
    ncu = -1 if cu_seqlens is None else len(cu_seqlens)
    mine = [int(ok), *dims(q), *dims(k), *dims(v), code, ncu, *(settings or [0] * len(_SETTINGS))]
    rows = _all_gather_ints(ring, mine, device)
    failed = [i for i, r in enumerate(rows) if not r[0]]
    if failed:  # every rank takes this branch (the same rows everywhere): one more gather, of the messages
        said = [None] * ring.world
        dist.all_gather_object(said, None if ok else f"{type(error).__name__}: {error}", group=ring.group)
        if error is not None:
            raise error
        raise ValueError(f"{caller}: rank{'s' if len(failed) > 1 else ''} {', '.join(map(str, failed))} of the "
                         f"group rejected {'their' if len(failed) > 1 else 'its'} arguments, so no rank enters "
                         f"the ring: " + "; ".join(f"rank {i}: {said[i]}" for i in failed))
    rows = [r[1:] for r in rows]
    layout = 3 * n + 2
    if any(r[:layout] != rows[0][:layout] for r in rows):
        def describe(r):
            cu = "" if r[3 * n + 1] < 0 else f", batch {r[3 * n + 1] - 1}"
            shape = lambda d: tuple(x for x in d if x >= 0)  # noqa: E731
            return (f"q {shape(r[0:n])}, k {shape(r[n:2 * n])}, v {shape(r[2 * n:3 * n])}, "
                    f"dtype {_CODES[r[3 * n]] if r[3 * n] >= 0 else '?'}{cu}")
        raise ValueError(f"{caller}: every rank must pass shards of the same shapes and dtype, got "
                         + "; ".join(f"rank {i}: {describe(r)}" for i, r in enumerate(rows)))
    if any(r[layout:] != rows[0][layout:] for r in rows):
        def describe(r):
            vals = dict(zip(_SETTINGS, r[layout:]))
            for key in ("softmax_scale", "softcap"):
                vals[key] = f"{_bits_float(vals[key]):.9g}"
            vals["causal"], vals["needs_grad"] = bool(vals["causal"]), bool(vals["needs_grad"])
            return ", ".join(f"{key}={val}" for key, val in vals.items())
        raise ValueError(f"{caller}: every rank must pass the same causal, window_size, softmax_scale and softcap "
                         f"and ask for gradients alike (grad mode and requires_grad of q, k, v: the backward is a "
                         f"ring pass every rank takes part in), got "
                         + "; ".join(f"rank {i}: {describe(r)}" for i, r in enumerate(rows)))
    if cu_seqlens is not None:
        rows = _all_gather_ints(ring, cu_seqlens, device)
        if any(r != rows[0] for r in rows):
            raise ValueError(f"{caller}: every rank must pass the same local cu_seqlens (each sequence split in "
                             f"equal shards, rocflash.parallel.zigzag_varlen_cu_seqlens), got "
                             + "; ".join(f"rank {i}: {list(r)}" for i, r in enumerate(rows)))


def _all_gather_ints(ring: "_Ring", values: list[int], device) -> list[tuple[int, ...]]:
    mine = torch.tensor(values, dtype=torch.int64, device=device)
    everyone = [torch.empty_like(mine) for _ in range(ring.world)]
    dist.all_gather(everyone, mine, group=ring.group)
    return [tuple(t.tolist()) for t in everyone]


class _Ring:
    """The ring of a process group: rank r sends to r+1 and receives from r-1 (group ranks)."""

    def __init__(self, group):
        self.group = group
        self.rank = dist.get_rank(group)
        if self.rank < 0:  # torch gives non-members a placeholder group of rank -1 and size -1
            raise ValueError(f"group: this process (global rank {dist.get_rank()}) is not a member of the process "
                             f"group it passed; only the group's ranks call ring attention on it")
        self.world = dist.get_world_size(group)
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


def step_blocks(rank: int, world: int, step: int, causal: bool, seqlen_q: int, seqlen_k: int, args: FwdArgs):
    """(query rows, key rows, args) of rank ``rank`` against the K/V it holds at ``step`` (that of rank
    rank - step), for one sequence of seqlen_q local rows and seqlen_k local keys: slices of the shard."""
    full = replace(args, window_left=-1, window_right=-1)
    src = (rank - step) % world
    if args.window_left >= 0 or (args.window_right >= 0 and not causal):
        return _window_blocks(rank, world, src, seqlen_q, args)
    if not causal:
        return [(slice(0, seqlen_q), slice(0, seqlen_k), full)]
    half = seqlen_q // 2
    if src == rank:
        return [(slice(0, seqlen_q), slice(0, seqlen_k), replace(args, window_left=-1, window_right=0))]
    if src < rank:
        return [(slice(0, seqlen_q), slice(0, half), full)]
    return [(slice(half, seqlen_q), slice(0, seqlen_k), full)]


def dense_plan(rank: int, world: int, causal: bool, seqlen_q: int, seqlen_k: int, args: FwdArgs) -> list[list[Block]]:
    """The blocks of every ring step (index: step) for shards of the dense layout."""
    return [[Block(rows, keys, a) for rows, keys, a in step_blocks(rank, world, step, causal, seqlen_q, seqlen_k, args)]
            for step in range(world)]


def _window_blocks(rank: int, world: int, src: int, seqlen: int, args: FwdArgs):
    """Sliding window in the load-balanced layout: one block per (query chunk, key chunk) pair that the band
    touches, cut to the band's bounding rectangle (see :func:`window_rect`)."""
    c, last = seqlen // 2, 2 * world - 1
    blocks = []
    for q_off, q_chunk in ((0, rank), (c, last - rank)):
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


def _covers(index, n: int) -> bool:
    """Whether a block's rows (or keys) ``index`` are all n rows of the shard, in order (a slice; the varlen
    ring's index tensors never are taken as covering)."""
    return isinstance(index, slice) and range(n)[index] == range(n)


def _zeros_if_none(t, shape, dtype, device):
    return torch.zeros(shape, dtype=dtype, device=device) if t is None else t


def _merge(out, lse, out_b, lse_b):
    """Fold a block's (out_b, lse_b) into the running (out fp32 (b, s, h, d), lse float64 (b, h, s)), in place.
    The LSE merges in float64 and is rounded once at the end: merged in float32, each step's rounding of an LSE of
    magnitude ~|softmax_scale| |q| |k| moved every P of the backward (exp(S - LSE)) and, at softmax_scale 10 in
    float32, put dq and dk 2x past FlashAttention's rule (see RING_MAX_BACKWARD_SCALE_FP32).

    With w = exp(LSE_b - LSE_new) the merge is O_new = (1 - w) * O + w * O_b = lerp(O, O_b, w): one pass over O
    (read O and O_b, write O) instead of a scale, a product and a sum. A row that has seen no key yet (LSE -inf)
    takes O_b exactly (w = 1); a block row that sees no key (LSE_b -inf, O_b 0) leaves the row as it is (w = 0)."""
    lse_b = lse_b.to(lse.dtype)
    new = torch.logaddexp(lse, lse_b)
    w_b = torch.where(torch.isneginf(new), torch.zeros_like(new), torch.exp(lse_b - new))
    out.lerp_(out_b.to(out.dtype), w_b.to(out.dtype).transpose(1, 2).unsqueeze(-1))
    lse.copy_(new)


def _merge_rows(out, lse, rows, out_b, lse_b):
    """_merge into the rows ``rows`` (a slice: in place on views; an index tensor: gather, merge, scatter)."""
    if isinstance(rows, slice):
        _merge(out[:, rows], lse[:, :, rows], out_b, lse_b)
        return
    o, l = out[:, rows], lse[:, :, rows]
    _merge(o, l, out_b, lse_b)
    out[:, rows], lse[:, :, rows] = o, l


def ring_forward(ring: _Ring, kernels: _Kernels, q, k, v, plan: list[list[Block]], keep_out_fp32: bool = False):
    """The forward ring pass over ``plan`` (the blocks of each step): (out in q's dtype, lse (b, h, seqlen_q) in
    the accumulation dtype, merged in float64 and rounded once), and with keep_out_fp32=True also the merged O
    before its rounding (float32, out's shape; the backward's D reads it)."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    batch, seqlen_q, nheads, headdim = q.shape

    def no_key_yet():  # O = 0, LSE = -inf: rows that have seen no key
        return (torch.zeros(batch, seqlen_q, nheads, headdim, dtype=acc, device=q.device),
                torch.full((batch, nheads, seqlen_q), float("-inf"), dtype=torch.float64, device=q.device))

    out = lse = None
    kv = (k, v)
    for step in range(ring.world):
        pending = ring.send_recv(kv, _KV_TAG) if step + 1 < ring.world else None
        for blk in plan[step]:
            out_b, lse_b = kernels.forward(q[:, blk.rows], kv[0][:, blk.keys], kv[1][:, blk.keys], blk.args, blk.seq)
            if out is None and _covers(blk.rows, seqlen_q):
                # the first block holds every row: the running result starts as the block's own (fresh tensors
                # from the backend), which is what merging it into O = 0, LSE = -inf gives (weight exp(0) = 1),
                # without a fill and a pass over O
                out, lse = out_b.to(acc).contiguous(), lse_b.to(torch.float64).contiguous()
                continue
            if out is None:
                out, lse = no_key_yet()
            _merge_rows(out, lse, blk.rows, out_b, lse_b)
        if pending is not None:
            kv = tuple(pending.wait())
    if out is None:  # no block at all
        out, lse = no_key_yet()
    lse = lse.to(acc)  # rounded once, after the last merge
    if keep_out_fp32:
        return out.to(q.dtype), lse, out
    return out.to(q.dtype), lse


def ring_backward(ring: _Ring, kernels: _Kernels, q, k, v, out, lse, dout, plan: list[list[Block]], out_fp32=None):
    """The backward ring pass: (dq, dk, dv) in the inputs' dtype. dK/dV accumulate in fp32 buffers that travel
    with their K/V, one exchange behind it, and reach their owner after the last step (rounded to the inputs'
    dtype for that last hop). ``out_fp32``: the merged O in float32 (``ring_forward(..., keep_out_fp32=True)``),
    from which the kernels compute D; None: from out."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    seqlen_q, seqlen_k = q.shape[1], k.shape[1]
    dq = None
    kv, dkv_pending = (k, v), None
    for step in range(ring.world):
        kv_pending = ring.send_recv(kv, _KV_TAG) if step + 1 < ring.world else None
        grads = []
        for blk in plan[step]:
            rows, keys = blk.rows, blk.keys
            o32 = None if out_fp32 is None else out_fp32[:, rows]
            grads.append((rows, keys, kernels.backward(q[:, rows], kv[0][:, keys], kv[1][:, keys], out[:, rows],
                                                       lse[:, :, rows].contiguous(), dout[:, rows], blk.args,
                                                       blk.seq, out_fp32=o32)))
        dk = dv = None
        if dkv_pending is not None:
            dk, dv = dkv_pending.wait()  # the accumulators of the K/V this rank holds now
        # dK/dV first: their exchange (posted right after, on the communication stream) waits only for these adds;
        # dQ's adds and, at the end, its rounding run on the compute stream while the accumulators travel.
        # An accumulator's first block that covers all of it starts it (0 + x = x: no fill, no add).
        for _, keys, (_, dk_b, dv_b) in grads:  # rows / keys repeat nowhere within a block
            if dk is None and _covers(keys, seqlen_k):
                dk, dv = dk_b.to(acc, copy=True), dv_b.to(acc, copy=True)
            else:
                dk = _zeros_if_none(dk, kv[0].shape, acc, q.device)
                dv = _zeros_if_none(dv, kv[1].shape, acc, q.device)
                dk[:, keys] += dk_b
                dv[:, keys] += dv_b
        dk = _zeros_if_none(dk, kv[0].shape, acc, q.device)  # step 0 without a block (a window): sent as zeros
        dv = _zeros_if_none(dv, kv[1].shape, acc, q.device)
        if step + 1 == ring.world:
            # the last hop takes every accumulator to its owner, which only rounds it: round before sending
            # (the same rounding, so the same bits) and send half the bytes of float32 for 16-bit inputs. This
            # hop follows the last block's backward: only dQ's adds and rounding are left to hide it.
            dk, dv = dk.to(k.dtype), dv.to(v.dtype)
        dkv_pending = ring.send_recv((dk, dv), _DKV_TAG)
        for rows, _, (dq_b, _, _) in grads:
            if dq is None and _covers(rows, seqlen_q):
                dq = dq_b.to(acc, copy=True)
            else:
                dq = _zeros_if_none(dq, q.shape, acc, q.device)
                dq[:, rows] += dq_b
        del grads
        if kv_pending is not None:
            kv = tuple(kv_pending.wait())
    dq = _zeros_if_none(dq, q.shape, acc, q.device).to(q.dtype)  # before the wait: overlaps the last hop
    dk, dv = dkv_pending.wait()  # after world_size hops: this rank's own dK/dV, in k's and v's dtype
    return dq, dk, dv


# The ring's backward for float32 inputs, every backend (torch included): |softmax_scale| <= this, else ValueError.
# Each block's backward takes P = exp(S - LSE) from the merged LSE rounded to float32 (the single-GPU float32
# backward recomputes its own row statistics instead: rocflash.backends.sim.own_stats_pass); an LSE of magnitude
# ~|softmax_scale| * |q| |k| carries ~2^-24 * |LSE| of error into every P. Measured on 2 gloo ranks (sim, fp32,
# standard-normal inputs, headdim 32 / 128, causal and not, 2 seeds; LSE merged in float64 and rounded once): worst
# ratio to FlashAttention's rule 0.41 at 5, 0.60 at 10, 1.58 at 20, 2.4 at 50, 4.8 at 100 (with the LSE merged
# in float32 it was 2.07 already at 10). float16 / bfloat16 keep the fused range (their eager baseline is coarser:
# worst 0.30 at 50); float64 has no limit.
RING_MAX_BACKWARD_SCALE_FP32 = 10.0


def check_ring_backward_scale(softmax_scale: float, dtype: torch.dtype) -> None:
    if dtype == torch.float32 and abs(softmax_scale) > RING_MAX_BACKWARD_SCALE_FP32:
        raise ValueError(
            f"ring_flash_attn_func: softmax_scale must be in [-{RING_MAX_BACKWARD_SCALE_FP32:g}, "
            f"{RING_MAX_BACKWARD_SCALE_FP32:g}] for the backward of torch.float32 inputs on the ring, got "
            f"{softmax_scale:g}: each block's backward reads P = exp(S - LSE) from the float32 LSE, which put dq "
            f"and dk up to 1.6x (at 20) and 4.8x (at 100) past FlashAttention's error rule "
            f"(rocflash.parallel.ring.RING_MAX_BACKWARD_SCALE_FP32). The forward is exact at any scale; float64 "
            f"inputs (backends sim, torch) have no limit")


class _RingAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, ring, kernels, plan):
        q, k, v = (x.contiguous() for x in (q, k, v))  # P2P sends whole storages; kernels need headdim contiguous
        # O in float32 for the backward's D (4 bytes per element of out while the graph holds it): only when a
        # gradient will be asked for and the backend's backward reads it
        keep = any(ctx.needs_input_grad[:3]) and kernels.reads_out_fp32(q.dtype)
        out, lse, *out32 = ring_forward(ring, kernels, q, k, v, plan, keep_out_fp32=keep)
        ctx.save_for_backward(q, k, v, out, lse, *out32)
        ctx.ring, ctx.kernels, ctx.plan = ring, kernels, plan
        lse = lse.float()
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    def backward(ctx, dout, _dlse):
        if torch.is_grad_enabled():
            # create_graph=True (a gradient penalty): the ring's backward (fused kernels, in-place accumulators,
            # point-to-point exchanges) has no derivative. once_differentiable returned its gradients WITHOUT a
            # graph whenever dout needed none, so a penalty built on them was silently a constant.
            raise RuntimeError(
                "ring attention does not support second derivatives (a backward with create_graph=True, e.g. a "
                "gradient penalty): its backward is a ring pass of fused kernels, not differentiable on any backend")
        q, k, v, out, lse, *out32 = ctx.saved_tensors
        scale = next((b.args.softmax_scale for step in ctx.plan for b in step), None)
        if scale is not None:  # the fused backward's range (rocflash.ops.MAX_BACKWARD_SCALE)
            check_backward_scale(scale, q.dtype, ctx.kernels.backend, "ring_flash_attn_func")
            check_ring_backward_scale(scale, q.dtype)
        dq, dk, dv = ring_backward(ctx.ring, ctx.kernels, q, k, v, out, lse, dout.contiguous(), ctx.plan,
                                   out_fp32=out32[0] if out32 else None)
        return dq, dk, dv, None, None, None


def _check_args(q, k, v, causal, softmax_scale, window_size, softcap, alibi_slopes, deterministic,
                return_attn_probs) -> FwdArgs:
    """ring_flash_attn_func's checks: flash_attn_func's own (rocflash.interface.check_args: dtypes, shapes,
    GQA, scale, softcap, window), then the ring's: the layout a causal mask or a window needs, no ALiBi."""
    fa = check_args(q, k, v, 0.0, softmax_scale, causal, window_size, softcap, None, deterministic,
                    return_attn_probs)
    args = global_window(fa, causal, window_size)
    seqlen_q = q.shape[1]
    if (causal or args.window_left >= 0 or args.window_right >= 0) and (k.shape[1] != seqlen_q or seqlen_q % 2):
        raise ValueError(f"causal or windowed ring attention needs the load-balanced layout "
                         f"(rocflash.parallel.zigzag_shard): q and k shards of the same even local_seqlen, got "
                         f"local_seqlen_q={seqlen_q}, local_seqlen_k={k.shape[1]}")
    check_no_alibi(alibi_slopes)
    return args


def global_window(fa: FwdArgs, causal: bool, window_size) -> FwdArgs:
    """The checked args with the window as the user gave it, in global positions: flash_attn_func's checks
    normalise a bound past the (local) keys to -1, which a shard's length does not justify."""
    left, right = window_size
    return replace(fa, window_left=int(left), window_right=0 if causal else int(right))


def check_no_alibi(alibi_slopes) -> None:
    if isinstance(alibi_slopes, torch.Tensor):  # a bad value is named first, as flash_attn_func does
        from ..interface import check_alibi_finite
        check_alibi_finite(alibi_slopes)
    if alibi_slopes is not None:
        raise NotImplementedError("alibi_slopes is not implemented by ring attention (the kernels' ALiBi bias is "
                                  "relative to each block's corner, not to global positions): pass None")


def memory_model(batch: int, local_seqlen: int, nheads: int, nheads_k: int, headdim: int,
                 dtype: torch.dtype = torch.bfloat16) -> dict[str, int]:
    """Bytes one rank holds for ring attention (a model, not a measurement; the GPU script measures it).

    Everything is linear in local_seqlen = seqlen / world_size; nothing depends on the full sequence:
    - ``inputs``: q, k, v shards (the caller's).
    - ``saved``: what autograd keeps from forward to backward: out (q's dtype) and LSE (fp32), plus q, k, v,
      and for 16-bit inputs the merged O in fp32 (the fused backends' D reads it; backend "torch" keeps none).
    - ``forward_peak``: transient forward memory beyond inputs: the fp32 O and float64 LSE accumulators, one K/V
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
    saved = e * nq + 4 * rows + (4 * nq if e == 2 else 0)
    forward = 4 * nq + 8 * rows + 2 * e * nk + e * nq + 4 * rows + e * nq
    backward = 4 * nq + 2 * 2 * 4 * nk + 2 * e * nk + e * (nq + 2 * nk) + 4 * rows + e * (nq + 2 * nk)
    return {"inputs": inputs, "saved": saved, "forward_peak": forward, "backward_peak": backward,
            "total_peak": inputs + saved + e * nq + backward}
