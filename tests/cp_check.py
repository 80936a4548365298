"""Correctness checks of ring attention, run on every rank of a process group (CPU gloo in the tests, NCCL in
perf/cp_gpu.py): full inputs from a shared seed, sharded in the load-balanced layout, ring forward and backward,
gathered, and compared on rank 0 against the single-process fp64 reference with FlashAttention's rule
(forward max|out - ref| <= 2 * max|eager_lowprec - ref| + 1e-3, backward 3x).

Not a test module itself (no test_ prefix): tests/test_parallel.py and perf/cp_gpu.py import it.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from dataclasses import asdict, dataclass

import torch
import torch.distributed as dist

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from rocflash.parallel import (ring_flash_attn_func, ring_flash_attn_varlen_func, zigzag_shard, zigzag_shard_varlen,
                               zigzag_unshard, zigzag_unshard_varlen, zigzag_varlen_cu_seqlens)

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64}


@dataclass(frozen=True)
class Case:
    seqlen: int
    causal: bool
    batch: int = 1
    nheads: int = 4
    nheads_k: int = 2
    headdim: int = 32
    dtype: str = "bf16"
    softcap: float = 0.0
    window: tuple[int, int] = (-1, -1)
    backend: str = "torch"
    seed: int = 0
    seqlens: tuple[int, ...] | None = None  # varlen: the global length of each packed sequence (batch ignored)
    softmax_scale: float | None = None  # None: 1 / sqrt(headdim)
    deterministic: bool = False

    def __str__(self):
        lens = f"seqlens={self.seqlens} " if self.seqlens is not None else ""
        return (f"{lens}seqlen={self.seqlen} causal={self.causal} b={self.batch} h={self.nheads}/{self.nheads_k} "
                f"d={self.headdim} {self.dtype} softcap={self.softcap} window={self.window} backend={self.backend}"
                + (f" softmax_scale={self.softmax_scale:g}" if self.softmax_scale is not None else ""))


def varlen_case(seqlens, **kw) -> Case:
    """A Case of packed sequences of these global lengths (ring_flash_attn_varlen_func)."""
    return Case(sum(seqlens), seqlens=tuple(seqlens), **kw)


def _errors(got, ref, low):
    err = (got.double() - ref).abs().max().item()
    base = (low.double() - ref).abs().max().item()
    return err, base


def _reference(q, k, v, dout, args, compute_dtype):
    a, b, c = (t.detach().to(compute_dtype).requires_grad_() for t in (q, k, v))
    out, lse = attention_reference(a, b, c, args, compute_dtype)
    out.backward(dout.to(compute_dtype))
    return out.detach(), lse, a.grad, b.grad, c.grad


def _varlen_reference(q, k, v, dout, cu, args, compute_dtype):
    """Per sequence attention_reference of a packed batch: out (total, h, d), lse (h, total), dq, dk, dv."""
    a, b, c = (t.detach().to(compute_dtype).requires_grad_() for t in (q, k, v))
    outs, lses = [], []
    for s, e in zip(cu, cu[1:]):
        if e == s:
            continue
        o, l = attention_reference(a[s:e].unsqueeze(0), b[s:e].unsqueeze(0), c[s:e].unsqueeze(0), args, compute_dtype)
        outs.append(o[0])
        lses.append(l[0])
    out = torch.cat(outs)
    out.backward(dout.to(compute_dtype))
    return out.detach(), torch.cat(lses, dim=1), a.grad, b.grad, c.grad


def check_case(case: Case, device: torch.device, group=None) -> dict | None:
    """Run one case on this rank; rank 0 returns a dict (errors, bounds, ok), the other ranks None.

    A sequence that does not divide into 2 * world_size chunks is padded at the end (causal: exact, see
    rocflash.parallel.layout) or must be rejected by zigzag_shard with a ValueError (non-causal)."""
    if case.seqlens is not None:
        return check_varlen_case(case, device, group)
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    dtype = DTYPES[case.dtype]
    g = torch.Generator().manual_seed(case.seed)
    shape_q = (case.batch, case.seqlen, case.nheads, case.headdim)
    shape_k = (case.batch, case.seqlen, case.nheads_k, case.headdim)
    q, k, v = (torch.randn(s, generator=g).to(device=device, dtype=dtype) for s in (shape_q, shape_k, shape_k))
    dout = torch.randn(shape_q, generator=g).to(device=device, dtype=dtype)
    divides = case.seqlen % (2 * world) == 0
    result = {"case": asdict(case), "world": world}
    if not divides and not case.causal:
        try:
            zigzag_shard(q, group)
        except ValueError as e:
            result.update(ok="divisible by" in str(e), rejected=str(e))
        else:
            result.update(ok=False, rejected=None)
        return result if rank == 0 else None

    ql, kl, vl = (zigzag_shard(t, group, pad=not divides).requires_grad_() for t in (q, k, v))
    dl = zigzag_shard(dout, group, pad=not divides)  # padded rows of dO are 0: they feed no gradient
    out_l, lse_l, _ = ring_flash_attn_func(ql, kl, vl, group, causal=case.causal, softcap=case.softcap,
                                           window_size=case.window, softmax_scale=case.softmax_scale,
                                           deterministic=case.deterministic, return_attn_probs=True,
                                           backend=case.backend)
    out_l.backward(dl)
    n = case.seqlen
    out, dq, dk, dv = (zigzag_unshard(t, group, seqlen=n) for t in (out_l.detach(), ql.grad, kl.grad, vl.grad))
    lse = zigzag_unshard(lse_l, group, dim=2, seqlen=n)
    if rank != 0:
        return None
    args = _ref_args(case)
    ref = _reference(q, k, v, dout, args, torch.float64)
    low = _reference(q, k, v, dout, args, dtype if dtype != torch.float64 else torch.float32)
    return _compare(result, (out, lse, dq, dk, dv), ref, low, dtype)


def _ref_args(case: Case) -> FwdArgs:
    scale = case.softmax_scale if case.softmax_scale is not None else case.headdim ** -0.5
    return FwdArgs(scale, case.window[0], 0 if case.causal else case.window[1], case.softcap, None)


def _compare(result: dict, got, ref, low, dtype) -> dict:
    """FlashAttention's rule on (out, lse, dq, dk, dv) against the fp64 reference and the low-precision one."""
    out, lse, dq, dk, dv = got
    ok = True
    for i, (name, g, factor) in enumerate((("out", out, 2), ("dq", dq, 3), ("dk", dk, 3), ("dv", dv, 3))):
        j = (0, 2, 3, 4)[i]
        err, base = _errors(g, ref[j], low[j])
        bound = factor * base + 1e-3
        nan = bool(torch.isnan(g).any())
        result[name] = {"err": err, "bound": bound}
        ok = ok and not nan and err <= bound and g.dtype == dtype and g.shape == ref[j].shape
    lse_err = (lse.double() - ref[1].double()).abs().max().item()
    result["lse"] = {"err": lse_err, "bound": 1e-3 * max(1.0, ref[1].abs().max().item())}
    ok = ok and lse.dtype == torch.float32 and lse.shape == ref[1].shape and lse_err <= result["lse"]["bound"]
    result["ok"] = ok
    return result


def check_varlen_case(case: Case, device: torch.device, group=None) -> dict | None:
    """check_case for packed sequences: each sequence sharded in the zigzag layout (padded at its end when
    causal and not divisible; rejected with a ValueError when not causal), ring_flash_attn_varlen_func."""
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    dtype = DTYPES[case.dtype]
    g = torch.Generator().manual_seed(case.seed)
    total = sum(case.seqlens)
    q, k, v, dout = (torch.randn(total, h, case.headdim, generator=g).to(device=device, dtype=dtype)
                     for h in (case.nheads, case.nheads_k, case.nheads_k, case.nheads))
    cu_list = [0]
    for n in case.seqlens:
        cu_list.append(cu_list[-1] + n)
    cu = torch.tensor(cu_list, dtype=torch.int32, device=device)
    divides = all(n % (2 * world) == 0 for n in case.seqlens)
    result = {"case": asdict(case), "world": world}
    if not divides and not case.causal:
        try:
            zigzag_shard_varlen(q, cu, group)
        except ValueError as e:
            result.update(ok="divisible by" in str(e), rejected=str(e))
        else:
            result.update(ok=False, rejected=None)
        return result if rank == 0 else None
    pad = not divides
    ql, kl, vl = (zigzag_shard_varlen(t, cu, group, pad=pad).requires_grad_() for t in (q, k, v))
    dl = zigzag_shard_varlen(dout, cu, group, pad=pad)
    cu_l, max_l = zigzag_varlen_cu_seqlens(cu, group, pad=pad)
    out_l, lse_l, _ = ring_flash_attn_varlen_func(ql, kl, vl, cu_l, max_l, group, causal=case.causal,
                                                  softcap=case.softcap, softmax_scale=case.softmax_scale,
                                                  window_size=case.window, return_attn_probs=True,
                                                  backend=case.backend)
    out_l.backward(dl)
    out, dq, dk, dv = (zigzag_unshard_varlen(t, cu, group) for t in (out_l.detach(), ql.grad, kl.grad, vl.grad))
    lse = zigzag_unshard_varlen(lse_l, cu, group, dim=1)
    if rank != 0:
        return None
    args = _ref_args(case)
    ref = _varlen_reference(q, k, v, dout, cu_list, args, torch.float64)
    low = _varlen_reference(q, k, v, dout, cu_list, args, dtype if dtype != torch.float64 else torch.float32)
    return _compare(result, (out, lse, dq, dk, dv), ref, low, dtype)


def run_cases(cases, device, group=None) -> list[dict]:
    """check_case over ``cases``; an exception in one case is reported as a failed result (rank 0)."""
    results = []
    for case in cases:
        try:
            r = check_case(case, device, group)
        except Exception:  # noqa: BLE001 (report and go on; a rank-local error may still hang the others)
            r = {"case": asdict(case), "ok": False, "error": traceback.format_exc(limit=4)}
            if dist.get_rank(group) != 0:
                print(f"rank {dist.get_rank(group)}: {r['error']}", flush=True)
        if r is not None:
            results.append(r)
    return results


@contextlib.contextmanager
def process_group(backend: str, port: int, rank: int, world: int, **kwargs):
    """init_process_group on 127.0.0.1:port; on leaving, a barrier (only when the body finished: a rank that
    raised must not wait for peers that may be gone), then destroy_process_group. The barrier keeps a rank from
    tearing gloo down while a peer still holds the connection, which aborts the peer ("terminate called without
    an active exception")."""
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world, **kwargs)
    try:
        yield
        dist.barrier()
    finally:
        dist.destroy_process_group()


def spawn_worker(rank: int, world: int, port: int, cases, queue, backend: str = "gloo"):
    """torch.multiprocessing.spawn target: init the group on CPU, run the cases, rank 0 puts its results."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)
    with process_group(backend, port, rank, world):
        results = run_cases(cases, torch.device("cpu"))
        if rank == 0:
            queue.put(results)


def mismatch_worker(rank: int, world: int, port: int, queue):
    """Ranks pass K/V shards of different lengths, then (varlen) different cu_seqlens: every rank must raise
    ValueError before any exchange."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)
    with process_group("gloo", port, rank, world):
        from rocflash.parallel import ring_flash_attn_func
        q = torch.randn(1, 4, 2, 8)
        k = torch.randn(1, 4 + rank, 2, 8)
        try:
            ring_flash_attn_func(q, k, k.clone(), backend="sim")
            queue.put((rank, "no error"))
        except ValueError as e:
            queue.put((rank, str(e)))
        from rocflash.parallel import ring_flash_attn_varlen_func
        x = torch.randn(8, 2, 8)
        cu = torch.tensor([0, 4 - 2 * rank, 8], dtype=torch.int32)  # same total, different sequence bounds
        try:
            ring_flash_attn_varlen_func(x, x, x, cu, 6, causal=True, backend="sim")
            queue.put(((rank, "varlen"), "no error"))
        except ValueError as e:
            queue.put(((rank, "varlen"), str(e)))


def disagreement_worker(rank: int, world: int, port: int, queue):
    """Ranks that disagree (world >= 3): one rank's arguments fail its own checks, or the ranks pass different
    causal / softmax_scale / gradient requests, or a process outside a subgroup calls on it. Every rank must raise
    (never a hang, a closed connection or a silent result), and the group must stay usable: each scenario ends with
    an all_reduce that every rank reaches. Puts ((rank, scenario), message) for each."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)
    last = world - 1

    def attempt(name, fn, errors=(TypeError, ValueError, NotImplementedError)):
        try:
            fn()
            msg = "no error"
        except errors as e:
            msg = f"{type(e).__name__}: {e}"
        token = torch.ones(1)
        dist.all_reduce(token)  # the group still works: no rank is stuck in a collective of the ring
        queue.put(((rank, name), msg if token.item() == world else f"group broken after: {msg}"))

    def shards(n=4, heads=2, headdim=8, **kw):
        return [torch.randn(1, n, heads, headdim, **kw) for _ in range(3)]

    with process_group("gloo", port, rank, world):
        # the last rank's local shard has an odd length under causal: its own ValueError, the others name it
        attempt("odd", lambda: ring_flash_attn_func(*shards(3 if rank == last else 4), causal=True, backend="sim"))
        # one rank's q has nheads not divisible by nheads_k
        q, k, v = shards()
        q = torch.randn(1, 4, 3, 8) if rank == 1 else q
        attempt("heads", lambda: ring_flash_attn_func(q, k, v, backend="sim"))
        # arguments that change each rank's plan or masks: silently wrong rows if not caught
        attempt("causal", lambda: ring_flash_attn_func(*shards(), causal=rank == 0, backend="sim"))
        attempt("scale", lambda: ring_flash_attn_func(*shards(), softmax_scale=0.5 + rank, backend="sim"))
        # only rank 0 asks for gradients: its backward would wait forever for the other ranks' ring pass
        attempt("grad", lambda: ring_flash_attn_func(*shards(requires_grad=rank == 0), backend="sim"))
        # varlen: one rank's cu_seqlens decreases
        x = torch.randn(8, 2, 8)
        cu = torch.tensor([0, 6, 4, 8] if rank == 1 else [0, 2, 4, 8], dtype=torch.int32)
        attempt("varlen", lambda: ring_flash_attn_varlen_func(x, x, x, cu, 4, causal=True, backend="sim"))
        # a subgroup of ranks 0 and last: the members run the ring (checked against the reference on the gathered
        # tensors), the process outside it gets a ValueError instead of an empty ring's zeros
        sub = dist.new_group([0, last])

        def subgroup():
            g = torch.Generator().manual_seed(7)
            q, k, v = (torch.randn(1, 8, 2, 8, generator=g, dtype=torch.float64) for _ in range(3))
            if rank not in (0, last):
                ring_flash_attn_func(q[:, :4], k[:, :4], v[:, :4], sub, causal=True, backend="sim")
                return
            out = zigzag_unshard(ring_flash_attn_func(*(zigzag_shard(t, sub) for t in (q, k, v)), sub, causal=True,
                                                      backend="sim"), sub)
            ref, _ = attention_reference(q, k, v, FwdArgs(8 ** -0.5, -1, 0, 0.0, None), torch.float64)
            err = (out - ref).abs().max().item()
            if not err < 1e-10:
                raise AssertionError(f"subgroup ring off the reference by {err}")
        attempt("subgroup", subgroup)

        # create_graph=True (a gradient penalty): a RuntimeError, not first derivatives returned without a graph
        def penalty():
            q, k, v = shards(requires_grad=True)
            out = ring_flash_attn_func(q, k, v, causal=True, backend="torch")
            grads = torch.autograd.grad(out, (q, k, v), torch.ones_like(out), create_graph=True)
            sum((g ** 2).sum() for g in grads).backward()
        attempt("create_graph", penalty, errors=(RuntimeError,))
        # the gathering helpers on shards of different lengths (all_gather alone: garbage on one rank, a dead
        # connection on the others)
        attempt("unshard", lambda: zigzag_unshard(torch.randn(1, 4 + 2 * (rank == 1), 2, 8)))
        attempt("unshard_varlen", lambda: zigzag_unshard_varlen(torch.randn(8 + 2 * (rank == 1), 2, 8),
                                                                torch.tensor([0, 8 * world], dtype=torch.int32)))
