"""What the benchmark can time ("methods"), each prepared into one callable per input set.

- ``rocflash-hip`` / ``rocflash-cuda`` / ``rocflash-torch`` / ``rocflash-sim``: ``rocflash.flash_attn_func``
  with that ``backend=``; ``rocflash-cuda-vector``: the CUDA backend with ``ROCFLASH_KERNEL=vector`` during its
  calls (the vector tile math, i.e. the gfx906 kernel logic, beside the default tensor-core one). These run
  flash_attn_func's default deterministic=False (on the tensor-core backward: dQ added atomically by the dK/dV
  kernel); ``rocflash-cuda-deterministic`` passes deterministic=True (the separate dQ kernel).
- ``sdpa-flash`` / ``sdpa-efficient`` / ``sdpa-cudnn`` / ``sdpa-math``: ``F.scaled_dot_product_attention``
  restricted to one backend with ``torch.nn.attention.sdpa_kernel``, on (batch, heads, seq, dim) views of
  the same tensors (a transpose, no copy). SDPA's ``is_causal`` is top-left aligned, so causal cases with
  seqlen_q != seqlen_k pass ``torch.nn.attention.bias.causal_lower_right`` (bottom-right, as flash-attn);
  windows pass an explicit boolean mask (built once, outside the timed calls). GQA uses
  ``enable_gqa=True``; where the chosen SDPA backend refuses it, K/V are repeated to nheads before timing
  (noted in the result).
- ``naive``: matmul, softmax, matmul in the input dtype (S and P materialised; O(N^2) memory).
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

from .cases import Case
from .models import row_bounds

OOM = getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError)
ROCFLASH = ("rocflash-hip", "rocflash-cuda", "rocflash-cuda-vector", "rocflash-cuda-deterministic", "rocflash-torch",
            "rocflash-sim")
SDPA = ("sdpa-flash", "sdpa-efficient", "sdpa-cudnn", "sdpa-math")
METHODS = ROCFLASH + SDPA + ("naive",)
ALIASES = {
    "hip": ("rocflash-hip",), "cuda": ("rocflash-cuda",), "cuda-vector": ("rocflash-cuda-vector",),
    "cuda-deterministic": ("rocflash-cuda-deterministic",), "torch": ("rocflash-torch",), "sim": ("rocflash-sim",),
    "sdpa": SDPA, "flash": ("sdpa-flash",), "efficient": ("sdpa-efficient",), "cudnn": ("sdpa-cudnn",),
    "math": ("sdpa-math",),
}


class Unavailable(Exception):
    """The method cannot run this case here. ``status``: "unavailable" (not built / wrong device) or
    "unsupported" (this case: a mask, GQA, dtype the backend refuses)."""

    def __init__(self, status: str, reason: str):
        super().__init__(reason)
        self.status = status


@dataclass
class InputSet:
    """One set of inputs: q (batch, seqlen_q, nheads, headdim), k/v (batch, seqlen_k, nheads_k, headdim),
    dout like q for fwd+bwd (else None). Leaf tensors; requires_grad for fwd+bwd."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    dout: torch.Tensor | None = None


@dataclass
class Call:
    """fn() -> out (batch, seqlen_q, nheads, headdim); ``leaves`` are the tensors a backward differentiates."""

    fn: Callable[[], torch.Tensor]
    leaves: tuple[torch.Tensor, ...]
    dout: torch.Tensor | None = None


@dataclass
class Prepared:
    """One Call per input set; ``context()`` is entered around every use (SDPA: the backend restriction);
    ``caught`` collects the warnings raised inside it (SDPA says there why it refuses a case)."""

    calls: list[Call]
    context: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext
    notes: list[str] = field(default_factory=list)
    caught: list[str] = field(default_factory=list)


def default_methods(platform: str | None) -> list[str]:
    """Methods timed when --backends is not given: rocflash's compiled backend for the platform, every SDPA
    backend the platform has, naive. On the CPU: rocflash's torch backend, SDPA flash and math, naive."""
    if platform == "cuda":
        return ["rocflash-cuda", "sdpa-flash", "sdpa-efficient", "sdpa-cudnn", "sdpa-math", "naive"]
    if platform == "hip":
        return ["rocflash-hip", "sdpa-flash", "sdpa-efficient", "sdpa-math", "naive"]
    return ["rocflash-torch", "sdpa-flash", "sdpa-math", "naive"]


def parse_methods(names: list[str], platform: str | None) -> list[str]:
    """Expand --backends values (comma or space separated; method names, aliases, "rocflash" = the compiled
    backend of the platform, "all") into method names, in order, without duplicates."""
    out: list[str] = []
    for raw in names:
        for n in filter(None, (x.strip() for x in raw.split(","))):
            if n in METHODS:
                expanded = (n,)
            elif n in ALIASES:
                expanded = ALIASES[n]
            elif n == "rocflash":
                expanded = ("rocflash-hip",) if platform == "hip" else ("rocflash-cuda",) if platform == "cuda" \
                    else ("rocflash-torch",)
            elif n == "all":
                expanded = tuple(m for m in METHODS if m != "rocflash-sim")
            else:
                raise ValueError(f"--backends: each name must be one of {', '.join(METHODS)}, "
                                 f"{', '.join(ALIASES)}, rocflash, all; got {n!r}")
            out += [m for m in expanded if m not in out]
    return out


def visible_mask(case: Case, device) -> torch.Tensor:
    """Boolean (seqlen_q, seqlen_k), True where query row i may attend key j (bottom-right aligned)."""
    lo, hi, _ = row_bounds(case.seqlen_q, case.seqlen_k, case.window_left, case.right)
    j = torch.arange(case.seqlen_k, dtype=torch.int64).view(1, -1)
    return ((j >= lo.view(-1, 1)) & (j <= hi.view(-1, 1))).to(device)


def make_inputs(case: Case, n_sets: int, device, seed: int = 0) -> list[InputSet]:
    """``n_sets`` independent standard-normal input sets (leaf tensors; requires_grad for fwd+bwd)."""
    g = torch.Generator(device=device).manual_seed(seed)
    dt, grad = case.torch_dtype, case.direction == "fwd+bwd"

    def rnd(*shape):
        return torch.randn(shape, generator=g, device=device, dtype=dt).requires_grad_(grad)

    sets = []
    for _ in range(n_sets):
        q = rnd(case.batch, case.seqlen_q, case.nheads, case.headdim)
        k = rnd(case.batch, case.seqlen_k, case.nheads_k, case.headdim)
        v = rnd(case.batch, case.seqlen_k, case.nheads_k, case.headdim)
        dout = torch.randn(q.shape, generator=g, device=device, dtype=dt) if grad else None
        sets.append(InputSet(q, k, v, dout))
    return sets


def prepare(method: str, case: Case, sets: list[InputSet], device: torch.device) -> Prepared:
    """One Call per input set for ``method``; raises Unavailable when it cannot run here."""
    if method in ROCFLASH:
        return _prepare_rocflash(method, case, sets, device)
    if method in SDPA:
        return _prepare_sdpa(method, case, sets, device)
    if method == "naive":
        return _prepare_naive(case, sets, device)
    raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def _prepare_rocflash(method, case, sets, device):
    import rocflash
    from rocflash.selector import UnsupportedDeviceError, select_backend

    backend, _, kernel = method.removeprefix("rocflash-").partition("-")
    deterministic = kernel == "deterministic"  # flash_attn_func's deterministic=True (not a tile math)
    if deterministic:
        kernel = ""
    try:
        select_backend(device, backend)
    except UnsupportedDeviceError as e:
        raise Unavailable("unavailable", str(e)) from None
    window = (case.window_left, case.window_right)

    def call(s):
        if case.page_size:  # the same values in a paged cache (built here, outside the timed calls)
            k_cache, v_cache, table = paged_cache(s.k, s.v, case.page_size)
            lens = torch.full((case.batch,), case.seqlen_k, dtype=torch.int32, device=s.q.device)

            def fn():
                return rocflash.flash_attn_with_kvcache(s.q, k_cache, v_cache, cache_seqlens=lens, block_table=table,
                                                       causal=case.causal, window_size=window, backend=backend)
        else:
            def fn():
                return rocflash.flash_attn_func(s.q, s.k, s.v, causal=case.causal, window_size=window, backend=backend,
                                                deterministic=deterministic)

        return Call(_with_kernel(kernel, fn) if kernel else fn, (s.q, s.k, s.v), s.dout)

    prep = Prepared([call(s) for s in sets])
    plan = split_plan_note(backend, kernel, case, sets[0].q)
    if plan:
        prep.notes.append(plan)
    return prep


def paged_cache(k: torch.Tensor, v: torch.Tensor, page: int, seed: int = 0):
    """(k_cache, v_cache, block_table): k/v (batch, seqlen, nheads_k, headdim) copied into shuffled pages of
    ``page`` rows (num_blocks, page, nheads_k, headdim); block_table int32 (batch, pages per sequence)."""
    b, s, hk, d = k.shape
    per = -(-s // page)
    perm = torch.randperm(b * per, generator=torch.Generator().manual_seed(seed)).to(k.device, torch.int32)
    table = perm.view(b, per)
    caches = []
    for t in (k, v):
        padded = torch.nn.functional.pad(t.detach(), (0, 0, 0, 0, 0, per * page - s)).reshape(b * per, page, hk, d)
        cache = torch.empty_like(padded)
        cache[perm.long()] = padded
        caches.append(cache)
    return caches[0], caches[1], table


def split_plan_note(backend: str, kernel: str, case: Case, q: torch.Tensor) -> str:
    """The split-KV decision of the compiled backend for ``case`` (kernel, num_splits by the heuristic, instance),
    for the result's note; "" when the call runs the forward kernel or the backend is not compiled."""
    if backend not in ("cuda", "hip"):
        return ""
    from rocflash.backends import compiled

    def plan():
        return compiled.split_plan(backend, q, case.nheads_k, case.batch, case.seqlen_q, case.seqlen_k, 0,
                                   compiled.is_aligned(q))

    try:
        split, n, inst = _with_kernel(kernel, plan)() if kernel else plan()
    except Exception as e:  # noqa: BLE001 - a note, never fatal
        return f"split plan unavailable: {_first_line(e)}"
    return f"split-KV: num_splits {n} (heuristic), {inst['name']}" if split else ""


def _with_kernel(kernel: str, fn):
    """fn run with ROCFLASH_KERNEL=kernel (the compiled backend reads it at every call), restored after."""
    import os

    from rocflash.backends.compiled import KERNEL_ENV

    def wrapped():
        old = os.environ.get(KERNEL_ENV)
        os.environ[KERNEL_ENV] = kernel
        try:
            return fn()
        finally:
            if old is None:
                del os.environ[KERNEL_ENV]
            else:
                os.environ[KERNEL_ENV] = old

    return wrapped


_SDPA_BACKENDS = {"sdpa-flash": "FLASH_ATTENTION", "sdpa-efficient": "EFFICIENT_ATTENTION",
                  "sdpa-cudnn": "CUDNN_ATTENTION", "sdpa-math": "MATH"}


def _prepare_sdpa(method, case, sets, device):
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        raise Unavailable("unavailable", "torch.nn.attention.sdpa_kernel needs torch >= 2.3") from None
    backend = getattr(SDPBackend, _SDPA_BACKENDS[method], None)
    if backend is None:
        raise Unavailable("unavailable", f"this torch has no SDPBackend.{_SDPA_BACKENDS[method]}")
    notes = []
    mask, is_causal = None, False
    if case.window_left >= 0 or case.window_right >= 0:
        mask = visible_mask(case, device)
        notes.append("explicit boolean mask (SDPA has no sliding window)")
    elif case.causal and case.seqlen_q == case.seqlen_k:
        is_causal = True
    elif case.causal:
        from torch.nn.attention.bias import causal_lower_right

        with warnings.catch_warnings():  # "will produce NaNs when seq_len_q > seq_len_kv": the fully masked rows
            warnings.simplefilter("ignore")
            mask = causal_lower_right(case.seqlen_q, case.seqlen_k)
        notes.append("causal_lower_right mask (SDPA's is_causal is top-left aligned)")
    scale = case.headdim ** -0.5

    caught: list[str] = []

    def context():
        stack = contextlib.ExitStack()
        stack.enter_context(sdpa_kernel([backend]))
        # "... kernel not used because ...": kept for the note of an unsupported case, not printed
        record = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        stack.callback(lambda: caught.extend(_first_line(w.message) for w in record if _first_line(w.message)
                                             not in caught))
        return stack

    def make(q, k, v, gqa):
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        kw = {"enable_gqa": True} if gqa else {}
        return lambda: F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask, is_causal=is_causal, scale=scale,
                                                      **kw).transpose(1, 2)

    if case.group == 1:
        return Prepared([Call(make(s.q, s.k, s.v, False), (s.q, s.k, s.v), s.dout) for s in sets], context, notes,
                        caught)
    try:  # GQA: enable_gqa where the backend takes it
        with context():
            make(sets[0].q, sets[0].k, sets[0].v, True)()
        return Prepared([Call(make(s.q, s.k, s.v, True), (s.q, s.k, s.v), s.dout) for s in sets], context, notes,
                        caught)
    except OOM:
        raise
    except (RuntimeError, TypeError) as e:
        first_error = _first_line(e)
        caught.clear()
    calls = []
    rep_bytes = 2 * sets[0].k.numel() * case.group * sets[0].k.element_size()
    if device.type == "cuda":  # the repeated copies are group x the K/V: keep them within half the free memory
        n_fit = max(1, int(0.5 * torch.cuda.mem_get_info(device)[0] // rep_bytes))
        if n_fit < len(sets):
            notes.append(f"{n_fit} input set(s) with repeated K/V fit in memory")
            sets = sets[:n_fit]
    for s in sets:  # repeated K/V heads, made before timing (leaves of their own for the backward)
        k = s.k.detach().repeat_interleave(case.group, dim=2).requires_grad_(s.k.requires_grad)
        v = s.v.detach().repeat_interleave(case.group, dim=2).requires_grad_(s.v.requires_grad)
        calls.append(Call(make(s.q, k, v, False), (s.q, k, v), s.dout))
    notes.append(f"K/V heads repeated to nheads (enable_gqa refused: {first_error})")
    return Prepared(calls, context, notes, caught)


def _prepare_naive(case, sets, device):
    mask = visible_mask(case, device) if case.masked else None
    scale = case.headdim ** -0.5
    group = case.group

    def make(q, k, v):
        def fn():
            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            if group > 1:
                kt, vt = kt.repeat_interleave(group, dim=1), vt.repeat_interleave(group, dim=1)
            s = torch.matmul(qt, kt.transpose(-1, -2)) * scale
            if mask is not None:
                s = s.masked_fill(~mask, float("-inf"))
            return torch.matmul(torch.softmax(s, dim=-1), vt).transpose(1, 2)
        return fn

    return Prepared([Call(make(s.q, s.k, s.v), (s.q, s.k, s.v), s.dout) for s in sets])


def _first_line(e) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:200]
