"""``flash_attn_with_kvcache``: one inference step against a KV cache (dense or paged), drop-in for flash-attn's.

The step, in order: (1) rotary embedding of q and the new k at their positions (optional), (2) the new k/v
written into the caller's cache in place at cache_seqlens, (3) attention of q over each sequence's first
cache_seqlens + seqlen_new keys, split over the key sequence (flash-decoding) when ``num_splits`` asks for it.
Steps 1-2 are torch ops on any backend; step 3 is the backend's ``varlen_forward``.
"""

from __future__ import annotations

import torch

from . import kvcache_fast
from .backends import SeqArgs
from .splitkv import MAX_SPLITS
from .varlen import (check_block_table, check_index, check_options, check_page_size, run_varlen,
                     select_varlen_backend, traced_backend_name)


def flash_attn_with_kvcache(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    k: torch.Tensor | None = None,
    v: torch.Tensor | None = None,
    rotary_cos: torch.Tensor | None = None,
    rotary_sin: torch.Tensor | None = None,
    cache_seqlens: int | torch.Tensor | None = None,
    cache_batch_idx: torch.Tensor | None = None,
    cache_leftpad: torch.Tensor | None = None,
    block_table: torch.Tensor | None = None,
    softmax_scale: float | None = None,
    causal: bool = False,
    window_size: tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
    rotary_interleaved: bool = True,
    alibi_slopes: torch.Tensor | None = None,
    num_splits: int = 0,
    return_softmax_lse: bool = False,
    *,
    backend: str | None = None,
):
    """Attention of new queries over a KV cache, appending new keys/values first; drop-in for
    ``flash_attn.flash_attn_with_kvcache``. Forward only (no autograd).

    Args:
        q: (batch, seqlen_q, nheads, headdim), float16 / bfloat16 / float32 (float64 on torch, sim).
            seqlen_q > 1 with causal=True is speculative decoding / chunked prefill: row i sits at position
            cache_seqlens + seqlen_new - seqlen_q + i (bottom-right aligned).
        k_cache, v_cache: dense (batch_cache, seqlen_cache, nheads_k, headdim), or paged with ``block_table``:
            (num_blocks, page_block_size, nheads_k, headdim), page_block_size a multiple of 16 from 16 to 256.
            Same dtype and device as q; nheads % nheads_k == 0. Modified in place when k, v are given.
        k, v: None, or the new tokens (batch, seqlen_new, nheads_k, headdim): written into the cache at
            positions [cache_seqlens[b], cache_seqlens[b] + seqlen_new) of sequence b (after rotary on k);
            nothing else in the cache changes.
        rotary_cos, rotary_sin: None, or (seqlen_ro, rotary_dim / 2) each, rotary_dim even and <= headdim;
            needs k and v. The new k at position p gets
            rotary position p; q row i gets position cache_seqlens + i when causal or windowed (flash-attn's
            rule), else every row position cache_seqlens. seqlen_ro >= cache_seqlens + max(seqlen_new,
            seqlen_q). Computed in float32, stored in the cache's dtype.
        rotary_interleaved: True rotates pairs (0, 1), (2, 3), ... (GPT-J); False pairs (i, i + rotary_dim/2)
            (GPT-NeoX).
        cache_seqlens: keys already in the cache per sequence: int, or int32 (batch,) on q's device. None =
            the whole cache (seqlen_cache, or max_blocks_per_seq * page_block_size; not with k, v).
            cache_seqlens + seqlen_new must fit the cache. Slots past it are never read (garbage, NaN included).
        cache_batch_idx: None, or int32 (batch,): sequence b uses cache row cache_batch_idx[b] (dense cache
            only); distinct rows when appending.
        cache_leftpad: not implemented (NotImplementedError when given).
        block_table: int32 (batch, max_blocks_per_seq) on q's device: key j of sequence b lives in block
            block_table[b, j // page_block_size]; the blocks it uses must be in [0, num_blocks).
        softmax_scale, causal, window_size, softcap, alibi_slopes: as :func:`rocflash.flash_attn_func`, per
            sequence with seqlen_k = cache_seqlens + seqlen_new.
        num_splits: split-KV count: 0 = a heuristic from (batch, nheads_k, row chunks, max seqlen_k, CU count)
            (:func:`rocflash.splitkv.num_splits_heuristic`), 1 = no split, n > 1 = n splits (splits past a
            sequence's keys are empty). The torch backend never splits. Same inputs give bitwise
            the same result on every call.
        return_softmax_lse: also return the LSE float32 (batch, nheads, seqlen_q), natural log.
        backend: "hip" | "cuda" | "torch" | "sim" | None (then ROCFLASH_BACKEND, then a device probe). Never
            "ck": CK's split-KV / paged-KV kernels are not mapped (CK 1.2.0's paged KV also takes only
            page_block_size multiples of 128), so a probe choosing ck runs this call on rocflash's hip kernel,
            and backend='ck' (or ROCFLASH_BACKEND=ck) raises NotImplementedError.

    Returns:
        out (batch, seqlen_q, nheads, headdim) in q's dtype, or (out, softmax_lse) with return_softmax_lse.

    Raises:
        TypeError / ValueError naming the argument, rule and value, before anything is written or launched:
        dtypes, shapes and devices of every tensor; page size; cache_seqlens + seqlen_new beyond the cache;
        block_table entries out of range; when k, v are appended, caches that cannot be written in place
        (inference tensors outside inference mode) or whose memory aliases (k_cache is v_cache, overlapping
        views of one storage, a stride 0 on a dimension of size > 1 or strides that do not nest, q / k / v
        sharing memory with a cache; a block listed twice in one sequence's used pages, a written (block, slot)
        that another sequence also reads or writes); num_splits outside [0, 128]. NotImplementedError when a
        gradient would be needed (q, k, v or a cache requires grad with grad mode on): the call is forward only.
        NotImplementedError for cache_leftpad. Whatever raises, also later (the attention), the caller's cache
        is left as it was: the slots the append overwrites are saved first and put back.

    Repeated calls on the compiled backends (hip, cuda): once a signature (shapes, strides, dtypes, devices, the
    other arguments) passed these checks, its next calls skip them and read no device value (no host sync; a
    decode step can be captured in a CUDA graph): the values of cache_seqlens, block_table and cache_batch_idx
    are then checked on the device by the kernel that appends k, v (hip_src/fmha_kvstep.h): under
    ``ROCFLASH_INDEX_CHECKS=device`` (default) an out-of-range one stops the stream with a device-side assert
    (RuntimeError at the next sync); ``host``: the ValueError above on every call; ``off``: that sequence reads
    no key, appends nothing and gets NaN in its output and LSE (no error). No read leaves the cache. The
    split-KV plan takes the cache's capacity as max_seqlen_k on these backends (as flash-attn). See
    rocflash.kvcache_fast.
    """
    if torch.compiler.is_compiling():
        # torch.compile: the checks read index values and the append writes the caches, so the whole step runs
        # inside torch.ops.rocflash.kvcache_fwd (mutates k_cache, v_cache; same checks and messages); the backend
        # is selected here, at trace time
        seqlens_t = cache_seqlens if isinstance(cache_seqlens, torch.Tensor) else None
        seqlens_i = None if seqlens_t is not None else cache_seqlens
        window_left, window_right = window_size
        out, lse = kvcache_fwd(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, seqlens_t, seqlens_i,
                               cache_batch_idx, cache_leftpad, block_table, softmax_scale, causal, window_left,
                               window_right, softcap, rotary_interleaved, alibi_slopes, num_splits,
                               traced_backend_name(q, backend))
        return (out, lse) if return_softmax_lse else out
    # repeated decode steps on the compiled backends: no host read of device values (rocflash.kvcache_fast)
    fast_key = kvcache_fast.signature(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx,
                                      cache_leftpad, block_table, softmax_scale, causal, window_size, softcap,
                                      rotary_interleaved, alibi_slopes, num_splits, return_softmax_lse, backend)
    plan = kvcache_fast.lookup(fast_key)
    if plan is not None:
        res = kvcache_fast.run(plan, kvcache_fast.signature_env(fast_key), q, k_cache, v_cache, k, v, cache_seqlens,
                               cache_batch_idx, block_table, num_splits, return_softmax_lse)
        if res is not NotImplemented:
            return res
    else:  # every backend and layout: ValueError for a bad ROCFLASH_INDEX_CHECKS before the value checks
        kvcache_fast.index_checks()
    _check_tensor("q", q, 4, "(batch, seqlen_q, nheads, headdim)")
    paged = block_table is not None
    layout = "(num_blocks, page_block_size, nheads_k, headdim) with block_table" if paged \
        else "(batch_cache, seqlen_cache, nheads_k, headdim)"
    _check_tensor("k_cache", k_cache, 4, layout)
    _check_tensor("v_cache", v_cache, 4, layout)
    if k_cache.shape != v_cache.shape:
        raise ValueError(f"k_cache and v_cache must have the same shape, got {tuple(k_cache.shape)} and "
                         f"{tuple(v_cache.shape)}")
    batch, seqlen_q, nheads, headdim = q.shape
    nheads_k = k_cache.shape[2]
    if k_cache.shape[3] != headdim:
        raise ValueError(f"k_cache and v_cache must have q's headdim {headdim} (their dimension 3), got "
                         f"{k_cache.shape[3]}")
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        if t.dtype != q.dtype or t.device != q.device:
            raise TypeError(f"{name} must have q's dtype {q.dtype} and device {q.device}, got {t.dtype} on {t.device}")
    if cache_leftpad is not None:
        raise NotImplementedError("cache_leftpad (sequences starting at an offset inside the cache) is not "
                                  "implemented by rocflash; pass None")
    if (k is None) != (v is None):
        raise ValueError(f"k and v must be given together (new tokens) or both None, got k={_desc(k)}, v={_desc(v)}")
    seqlen_new = 0
    if k is not None:
        for name, t in (("k", k), ("v", v)):
            _check_tensor(name, t, 4, "(batch, seqlen_new, nheads_k, headdim)")
            if tuple(t.shape[::2]) != (batch, nheads_k) or t.shape[3] != headdim or t.shape != k.shape:
                raise ValueError(f"{name} must have shape (batch, seqlen_new, nheads_k, headdim)=({batch}, seqlen_new, "
                                 f"{nheads_k}, {headdim}), the same for k and v, got {tuple(t.shape)}")
            if t.dtype != q.dtype or t.device != q.device:
                raise TypeError(f"{name} must have q's dtype {q.dtype} and device {q.device}, got {t.dtype} on {t.device}")
        seqlen_new = k.shape[1]

    # where the keys live: capacity per sequence
    if paged:
        check_page_size(k_cache.shape[1])
        if cache_batch_idx is not None:
            raise ValueError("cache_batch_idx must be None with a paged cache (block_table selects the blocks)")
        check_block_table(block_table, batch, k_cache.shape[0], k_cache.shape[1], [], q.device)  # dtype, shape
        capacity = block_table.shape[1] * k_cache.shape[1]
    else:
        capacity = k_cache.shape[1]
        rows = list(range(batch))
        if cache_batch_idx is not None:
            rows = check_index("cache_batch_idx", cache_batch_idx, (batch,), q.device, "(batch,)")
            bad = [r for r in rows if not 0 <= r < k_cache.shape[0]]
            if bad:
                raise ValueError(f"cache_batch_idx must index rows of k_cache in [0, {k_cache.shape[0]}), got {bad[0]}")
            if k is not None and len(set(rows)) != len(rows):
                raise ValueError(f"cache_batch_idx must hold distinct rows when k, v are appended, got {rows}")
        elif k_cache.shape[0] != batch:
            raise ValueError(f"k_cache must have q's batch size {batch} (dimension 0) when cache_batch_idx is None, "
                             f"got {k_cache.shape[0]}")

    # keys already in the cache
    if cache_seqlens is None:
        if k is not None:
            raise ValueError("cache_seqlens must be given when k, v are appended (where to write them)")
        lens = [capacity] * batch
    elif isinstance(cache_seqlens, int) and not isinstance(cache_seqlens, bool):
        lens = [cache_seqlens] * batch
    elif isinstance(cache_seqlens, torch.Tensor):
        lens = check_index("cache_seqlens", cache_seqlens, (batch,), q.device, "(batch,)")
    else:
        raise TypeError(f"cache_seqlens must be an int, an int32 tensor (batch,) or None, got "
                        f"{type(cache_seqlens).__name__}")
    neg = next((b for b, n in enumerate(lens) if n < 0), None)
    if neg is not None:  # its own message: n + seqlen_new may well lie in [0, capacity] (newuser9: "got -1 + 1")
        raise ValueError(f"cache_seqlens[{neg}] must be >= 0 (keys already in the cache), got {lens[neg]}")
    bad = next((b for b, n in enumerate(lens) if n + seqlen_new > capacity), None)
    if bad is not None:
        where = (f"max_blocks_per_seq {capacity // k_cache.shape[1]} x page_block_size {k_cache.shape[1]}" if paged
                 else f"seqlen_cache (k_cache dimension 1)")
        raise ValueError(f"cache_seqlens[{bad}] + seqlen_new must be in [0, {where} = {capacity}], got "
                         f"{lens[bad]} + {seqlen_new}")
    used = [n + seqlen_new for n in lens]
    if paged:
        check_block_table(block_table, batch, k_cache.shape[0], k_cache.shape[1], used, q.device)
    if not isinstance(num_splits, int) or isinstance(num_splits, bool) or not 0 <= num_splits <= MAX_SPLITS:
        raise ValueError(f"num_splits must be an int in [0, {MAX_SPLITS}] (0 = heuristic, 1 = no split), got "
                         f"{num_splits!r}")
    if not isinstance(rotary_interleaved, bool):
        raise TypeError(f"rotary_interleaved must be a bool, got {rotary_interleaved!r}")
    if torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (q, k, v, k_cache, v_cache)):
        raise NotImplementedError("flash_attn_with_kvcache is forward only (no autograd, as flash-attn's): call it "
                                  "under torch.no_grad() / torch.inference_mode() or with tensors that do not "
                                  "require grad (a gradient would otherwise be silently missing)")
    # the options' normalisation (a window bound past every key is unbounded: -1) against the cache's capacity, not
    # this call's keys: the compiled backends' later calls of the signature reuse args whatever cache_seqlens holds
    # then (kvcache_fast); capacity >= every used[b], so this call's masks are the same
    args = check_options(q, k_cache, batch, seqlen_q, capacity, 0.0, softmax_scale, causal, window_size,
                         softcap, alibi_slopes, False, return_softmax_lse)
    if rotary_cos is not None or rotary_sin is not None:
        _check_rotary(rotary_cos, rotary_sin, k, headdim, max((n + max(seqlen_new, seqlen_q) for n in lens), default=0),
                      q.device)
    if k is not None and seqlen_new > 0:
        _check_writable_caches(k_cache, v_cache, q, k, v)
        if paged:
            _check_paged_aliasing(block_table, k_cache.shape[0], k_cache.shape[1], lens, seqlen_new)
    name = select_varlen_backend(q, backend)  # every check done: only now may the cache change
    compiled_backend = name in ("hip", "cuda")
    if compiled_backend and fast_key is not None:
        kvcache_fast.remember(fast_key, kvcache_fast.Plan(name, args, seqlen_new, capacity, k_cache.shape[0]))

    # (1) rotary, (2) append in place, (3) attention
    dev = q.device
    start = torch.tensor(lens, dtype=torch.long, device=dev)  # (batch,) first new position
    if rotary_cos is not None:
        new_pos = start[:, None] + torch.arange(seqlen_new, device=dev)  # (batch, seqlen_new)
        if causal or args.window_left >= 0 or args.window_right >= 0:
            q_pos = start[:, None] + torch.arange(seqlen_q, device=dev)
        else:
            q_pos = start[:, None].expand(batch, seqlen_q)
        q = apply_rotary(q, rotary_cos, rotary_sin, q_pos, rotary_interleaved)
        k = apply_rotary(k, rotary_cos, rotary_sin, new_pos, rotary_interleaved)
    restore = []  # (cache, where, old values): put back if anything below raises
    try:
        if k is not None and seqlen_new > 0:
            _append(k_cache, v_cache, k, v, start, block_table, None if paged else rows, restore)
        # the compiled backends plan the split-KV launch for the cache's capacity (as flash-attn does, and as the
        # fast path must without reading cache_seqlens): the same bits on the first and the following calls
        return _attend(q, k_cache, v_cache, args, name, paged, block_table, cache_batch_idx, used, num_splits,
                       return_softmax_lse, capacity if compiled_backend else None)
    except BaseException:
        _restore(restore)
        raise


def _attend(q, k_cache, v_cache, args, name, paged, block_table, cache_batch_idx, used, num_splits,
            return_softmax_lse, max_seqlen_k=None):
    """Step (3): attention of q over each sequence's first used[b] keys of the (updated) cache."""
    batch, seqlen_q, nheads, headdim = q.shape
    dev = q.device
    seq = SeqArgs(
        cu_seqlens_q=torch.arange(0, (batch + 1) * seqlen_q, seqlen_q, dtype=torch.int32, device=dev)
        if seqlen_q else torch.zeros(batch + 1, dtype=torch.int32, device=dev),
        cu_seqlens_k=None,
        seqused_k=torch.tensor(used, dtype=torch.int32, device=dev),
        max_seqlen_q=seqlen_q,
        max_seqlen_k=max(used, default=0) if max_seqlen_k is None else max_seqlen_k,
        block_table=block_table.contiguous() if paged else None,  # the kernels index these flat
        cache_batch_idx=cache_batch_idx.contiguous() if cache_batch_idx is not None else None,
        num_splits=num_splits,
    )
    with torch.no_grad():
        out, lse = run_varlen(q.reshape(batch * seqlen_q, nheads, headdim), k_cache, v_cache, seq, args, name,
                              no_work=seqlen_q == 0 or max(used, default=0) == 0)
    out = out.view(batch, seqlen_q, nheads, headdim)
    if return_softmax_lse:
        return out, lse.view(nheads, batch, seqlen_q).transpose(0, 1).contiguous()
    return out


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, positions: torch.Tensor,
                 interleaved: bool) -> torch.Tensor:
    """Rotary position embedding (Su et al., "RoFormer", 2021, eq. 34) of x (batch, seqlen, heads, headdim) at
    ``positions`` (batch, seqlen): the first rotary_dim = 2 * cos.shape[1] dims rotate, the rest pass through.
    Pairs (2i, 2i+1) when ``interleaved`` (GPT-J), (i, i + rotary_dim/2) otherwise (GPT-NeoX). float32 math."""
    half = cos.shape[1]
    c = cos.float()[positions].unsqueeze(2)  # (batch, seqlen, 1, half)
    s = sin.float()[positions].unsqueeze(2)
    xr = x[..., :2 * half].float()
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
        rot = torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).flatten(-2)
    else:
        x1, x2 = xr[..., :half], xr[..., half:]
        rot = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)
    return torch.cat((rot.to(x.dtype), x[..., 2 * half:]), dim=-1)


def _append(k_cache, v_cache, k, v, start, block_table, rows, restore):
    """Write k, v (batch, seqlen_new, ...) at positions start[b] + i of each sequence, in place. Before each
    write, the slots it overwrites are copied into ``restore`` as (cache, where, old values), so that a failure
    later in the call (the v write, the attention) can put the caller's cache back as it was."""
    batch, seqlen_new = k.shape[:2]
    pos = (start[:, None] + torch.arange(seqlen_new, device=start.device)).reshape(-1)  # (batch * seqlen_new,)
    seq_of = torch.arange(batch, device=start.device).repeat_interleave(seqlen_new)
    if block_table is not None:
        page = k_cache.shape[1]
        where = (block_table.long()[seq_of, pos // page], pos % page)
    else:
        where = (torch.tensor(rows, dtype=torch.long, device=start.device)[seq_of], pos)
    with torch.no_grad():
        for cache, new in ((k_cache, k), (v_cache, v)):
            restore.append([cache, where, cache[where], False])  # advanced indexing: a copy
            cache.index_put_(where, new.reshape(-1, *new.shape[2:]).detach())
            restore[-1][3] = True  # written


def _restore(restore) -> None:
    """Undo _append's writes, newest first. A write that raised is undone too (in case it wrote part), but its
    cache may refuse writes: a failure there is suppressed, so the original error is the one raised."""
    with torch.no_grad():
        for cache, where, old, written in reversed(restore):
            try:
                cache.index_put_(where, old)
            except Exception:
                if written:
                    raise


def _check_writable_caches(k_cache, v_cache, q, k, v) -> None:
    """Before any write: both caches accept in-place writes, and no element of memory is written twice or
    written through one cache while read through the other (or through q, k, v: the append would change an
    input before it is read)."""
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        if t.is_inference() and not torch.is_inference_mode_enabled():
            raise ValueError(f"{name} must accept in-place writes when k, v are appended: it is an inference tensor "
                             f"(made under torch.inference_mode()) and this call runs outside inference mode")
        if any(st == 0 and n > 1 for n, st in zip(t.shape, t.stride())):  # expand(): one element, many indices
            raise ValueError(f"{name} must not have elements sharing memory when k, v are appended (an expanded "
                             f"tensor: stride 0 on a dimension of size > 1), got shape {tuple(t.shape)} stride "
                             f"{t.stride()}")
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        if _internal_overlap(t):
            raise ValueError(f"{name} must not have elements sharing memory when k, v are appended (its strides "
                             f"must nest: each larger than the span of the smaller ones), got shape "
                             f"{tuple(t.shape)} stride {t.stride()}")
        for other, o in (("q", q), ("k", k), ("v", v)):
            if o is not None and _may_overlap(t, o):
                raise ValueError(f"{other} must not share memory with {name} when k, v are appended (the append "
                                 f"would overwrite it before it is read), got views of one storage: offsets "
                                 f"{o.storage_offset()} and {t.storage_offset()}")
    if k_cache is v_cache:
        raise ValueError("k_cache and v_cache must be distinct tensors when k, v are appended, got the same tensor")
    if _may_overlap(k_cache, v_cache):
        raise ValueError(f"k_cache and v_cache must not share memory when k, v are appended, got views of one "
                         f"storage that overlap: offsets {k_cache.storage_offset()} and {v_cache.storage_offset()}, "
                         f"strides {k_cache.stride()} and {v_cache.stride()}")


def _internal_overlap(t: torch.Tensor) -> bool:
    """Whether two indices of t may address one element: False when its strides nest (sorted, each larger than
    the span of the smaller ones, as every tensor torch makes without as_strided or expand), True otherwise."""
    span = 0
    for st, n in sorted((st, n) for n, st in zip(t.shape, t.stride()) if n > 1):
        if st <= span:
            return True
        span += st * (n - 1)
    return False


def _may_overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether some element of a and some element of b are the same memory. Exact for tensors whose strides
    nest (each larger than the span of all smaller ones: every non-overlapping tensor torch makes, packed k/v
    views included); otherwise True unless their byte ranges are disjoint."""
    if a.numel() == 0 or b.numel() == 0 or a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return False
    size = a.element_size()
    if size != b.element_size():
        return True  # different dtypes over one storage: rejected without proof
    lo_a, lo_b = a.storage_offset(), b.storage_offset()
    hi_a = lo_a + sum((n - 1) * st for n, st in zip(a.shape, a.stride()))
    hi_b = lo_b + sum((n - 1) * st for n, st in zip(b.shape, b.stride()))
    if hi_a < lo_b or hi_b < lo_a:
        return False
    # same element iff sum_d i_d * a.stride_d - sum_e j_e * b.stride_e == lo_b - lo_a for in-range indices i, j:
    # per stride value, the coefficient range [lo, hi] of its merged dimensions
    terms: dict[int, list[int]] = {}
    for n, st, sign in [(n, st, 1) for n, st in zip(a.shape, a.stride())] + \
                       [(n, st, -1) for n, st in zip(b.shape, b.stride())]:
        if n > 1:
            r = terms.setdefault(st, [0, 0])
            r[0 if sign < 0 else 1] += sign * (n - 1)
    order = sorted(terms.items(), reverse=True)  # (stride, [lo, hi]), largest stride first
    span = 0  # reach of the smaller strides: max |sum c_d * stride_d|
    spans = []
    for st, (lo, hi) in reversed(order):
        if st <= span:
            return True  # strides do not nest: no cheap proof of disjointness
        spans.append(span)
        span += st * max(-lo, hi)
    spans.reverse()

    def solve(d: int, rest: int) -> bool:  # |rest| <= reach of strides d.. after the choices above
        if d == len(order):
            return rest == 0
        st, (lo, hi) = order[d]
        for c in {rest // st, -(-rest // st)}:  # nesting leaves only floor or ceil for this coefficient
            if lo <= c <= hi and abs(rest - c * st) <= spans[d] and solve(d + 1, rest - c * st):
                return True
        return False

    return solve(0, lo_b - lo_a)


def _check_paged_aliasing(block_table, num_blocks: int, page: int, lens: list, seqlen_new: int) -> None:
    """Before appending into a paged cache: no block twice in one sequence's used pages, and every written
    (block, slot) used by exactly one sequence (not written by two, not read by another). Vectorised torch ops
    on block_table's device; one host sync for the verdict (check_block_table already copied the table)."""
    dev = block_table.device
    batch, width = block_table.shape
    used = torch.tensor([n + seqlen_new for n in lens], dtype=torch.long, device=dev)  # (batch,)
    col = torch.arange(width, device=dev)
    extent = (used[:, None] - col * page).clamp(0, page)  # (batch, width) slots of each page in use
    in_use = extent > 0
    blk = block_table.long()
    # (i) within a sequence: sort (sequence, block) keys, look for equal neighbours
    key = torch.where(in_use, torch.arange(batch, device=dev)[:, None] * num_blocks + blk, -1 - col).flatten()
    key = key.sort().values
    dup = (key[1:] == key[:-1]) & (key[1:] >= 0)
    # (ii) each written (block, slot) lies below the extent of exactly one used page: its own
    ext_key = torch.where(in_use, blk * (page + 1) + extent, -1).flatten().sort().values
    pos = (torch.tensor(lens, dtype=torch.long, device=dev)[:, None]
           + torch.arange(seqlen_new, device=dev)).flatten()  # (batch * seqlen_new,)
    seq_of = torch.arange(batch, device=dev).repeat_interleave(seqlen_new)
    w_blk, w_slot = blk[seq_of, pos // page], pos % page
    base = w_blk * (page + 1)
    covering = (torch.searchsorted(ext_key, base + page, right=True)
                - torch.searchsorted(ext_key, base + w_slot, right=True))  # used pages of w_blk past w_slot
    shared = covering > 1
    if not bool(dup.any() | shared.any()):
        return
    # error path: name the first offender
    if bool(dup.any()):
        for b in range(batch):
            pages = block_table[b, :int(in_use[b].sum())].tolist()
            again = next((x for i, x in enumerate(pages) if x in pages[:i]), None)
            if again is not None:
                raise ValueError(f"block_table[{b}] must list distinct blocks in the {len(pages)} pages holding its "
                                 f"{int(used[b])} keys when k, v are appended (a block used twice aliases two key "
                                 f"positions), got block {again} twice")
    i = int(shared.nonzero()[0, 0])
    raise ValueError(f"block_table must not let sequences share a written (block, slot) when k, v are appended: "
                     f"sequence {int(seq_of[i])} writes position {int(pos[i])} into block {int(w_blk[i])} slot "
                     f"{int(w_slot[i])}, which another sequence also reads or writes")


def _check_tensor(name: str, t, dims: int, layout: str) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor {layout}, got {type(t).__name__}")
    if t.dim() != dims:
        raise ValueError(f"{name} must have {dims} dimensions {layout}, got shape {tuple(t.shape)}")


def _check_rotary(cos, sin, k, headdim: int, max_position: int, device) -> None:
    if cos is None or sin is None:
        raise ValueError(f"rotary_cos and rotary_sin must be given together, got rotary_cos={_desc(cos)}, "
                         f"rotary_sin={_desc(sin)}")
    if k is None:
        raise ValueError("rotary_cos / rotary_sin need the new tokens k, v (rotary applies to q and the new k)")
    for name, t in (("rotary_cos", cos), ("rotary_sin", sin)):
        if not isinstance(t, torch.Tensor) or t.dim() != 2 or not t.is_floating_point():
            raise ValueError(f"{name} must be a floating tensor (seqlen_ro, rotary_dim / 2), got {_desc(t)}")
        if t.device != device:
            raise ValueError(f"{name} must be on q's device {device}, got {t.device}")
    if cos.shape != sin.shape:
        raise ValueError(f"rotary_cos and rotary_sin must have the same shape, got {tuple(cos.shape)} and {tuple(sin.shape)}")
    if not 1 <= 2 * cos.shape[1] <= headdim:
        raise ValueError(f"rotary_dim = 2 * rotary_cos.shape[1] must be in [2, headdim={headdim}], got {2 * cos.shape[1]}")
    if cos.shape[0] < max_position:
        raise ValueError(f"rotary_cos / rotary_sin must have seqlen_ro >= cache_seqlens + max(seqlen_new, seqlen_q) = "
                         f"{max_position} "
                         f"rows (one per position), got {cos.shape[0]}")


def _desc(t) -> str:
    return f"tensor {tuple(t.shape)} {t.dtype}" if isinstance(t, torch.Tensor) else repr(t)


# ---------------------------------------------------------------- torch.library custom op (torch.compile)
@torch.library.custom_op("rocflash::kvcache_fwd", mutates_args=("k_cache", "v_cache"))
def kvcache_fwd(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, k: torch.Tensor | None,
                v: torch.Tensor | None, rotary_cos: torch.Tensor | None, rotary_sin: torch.Tensor | None,
                cache_seqlens: torch.Tensor | None, cache_seqlens_int: int | None,
                cache_batch_idx: torch.Tensor | None, cache_leftpad: torch.Tensor | None,
                block_table: torch.Tensor | None, softmax_scale: float | None, causal: bool, window_left: int,
                window_right: int, softcap: float, rotary_interleaved: bool, alibi_slopes: torch.Tensor | None,
                num_splits: int, backend: str) -> tuple[torch.Tensor, torch.Tensor]:
    """flash_attn_with_kvcache through a selected ``backend`` (not None), the cache append included (in place
    in k_cache, v_cache): (out (batch, seqlen_q, nheads, headdim) contiguous, lse float32 (batch, nheads,
    seqlen_q)). ``cache_seqlens`` (int32 tensor) or ``cache_seqlens_int`` (one int for every sequence), at
    most one given. Runs flash_attn_with_kvcache's checks itself (they read index values)."""
    out, lse = flash_attn_with_kvcache(
        q, k_cache, v_cache, k, v, rotary_cos, rotary_sin,
        cache_seqlens if cache_seqlens is not None else cache_seqlens_int, cache_batch_idx, cache_leftpad,
        block_table, softmax_scale, causal, (window_left, window_right), softcap, rotary_interleaved, alibi_slopes,
        num_splits, True, backend=backend)
    return out.contiguous(), lse.float().contiguous()


@kvcache_fwd.register_fake
def _kvcache_fwd_fake(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_seqlens_int,
                      cache_batch_idx, cache_leftpad, block_table, softmax_scale, causal, window_left, window_right,
                      softcap, rotary_interleaved, alibi_slopes, num_splits, backend):
    batch, seqlen_q, nheads, _ = q.shape
    return (torch.empty_like(q, memory_format=torch.contiguous_format),
            q.new_empty((batch, nheads, seqlen_q), dtype=torch.float32))
