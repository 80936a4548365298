"""Adversarial cases of the compiled backends' cached host path (the stub of test_host_path: launches recorded on
the CPU): a cached signature must launch what the full checks would launch for *this* call's values, on buffers
large enough for *this* call's plan, and a params struct shared between threads must carry each call's own
pointers to its launch."""

from __future__ import annotations

import threading
import time
import types

import pytest
import torch

import rocflash
from rocflash import interface, kvcache_fast
from rocflash.backends import compiled

from test_host_path import _rand, stub  # noqa: F401  (the fixture)


@pytest.mark.parametrize("paged", [False, True])
def test_kvcache_window_of_a_cached_signature_follows_this_calls_keys(stub, monkeypatch, paged):
    """window_size's left bound was normalised against the first call's longest sequence (-1 when it reached past
    every key) and reused by later decode steps of the signature: once the cache grew past the window, they
    attended to every key. Each call must launch what the full path (ROCFLASH_INDEX_CHECKS=host) launches."""
    q = _rand(2, 1, 8, 64, seed=1)
    if paged:
        kc, vc = _rand(40, 16, 2, 64, seed=2), _rand(40, 16, 2, 64, seed=3)
        call = dict(block_table=torch.arange(32, dtype=torch.int32).view(2, 16))
    else:
        kc, vc = _rand(2, 256, 2, 64, seed=2), _rand(2, 256, 2, 64, seed=3)
        call = {}
    for lens in ([5, 9], [100, 200], [100, 200], [3, 250]):
        seqlens = torch.tensor(lens, dtype=torch.int32)
        for mode in ("host", "device"):
            monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, mode)
            rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=seqlens, window_size=(16, 0),
                                             backend=stub.platform, **call)
        full, fast = stub.launches[-2:]
        assert full[1] == fast[1] and full[2] == fast[2] == lens
        assert fast[1]["window_left"] == 16


def _state_buffers(shape_q):
    states = [st for key, (_, _, _, st) in interface._CHECKED.items() if key[0][0] == shape_q]
    assert len(states) == 1
    return states[0]


def test_split_scratch_fits_the_plan_of_this_call(stub, monkeypatch):
    """One signature's state keeps a plan per (pointer alignment, ROCFLASH_KERNEL) but one split-KV scratch per
    stream: a plan with more splits than the one that allocated it wrote past its end."""
    q, k, v = _rand(1, 1, 8, 64, seed=4), _rand(1, 4096, 2, 64, seed=5), _rand(1, 4096, 2, 64, seed=6)
    splits = []
    for i, kernel in enumerate(("vector", "vector", "mma", "mma")):
        monkeypatch.setenv(compiled.KERNEL_ENV, kernel)
        rocflash.flash_attn_func(q, k, v, backend=stub.platform)
        kind, fields, _, _ = stub.launches[-1]
        assert kind == "fwd_splitkv"
        splits.append(fields["num_splits"])
        if i == 0:
            continue  # the full path's first call: fresh partial buffers
        o_accum, lse_accum = stub.pointers[-1]["o_accum"], stub.pointers[-1]["lse_accum"]
        bufs = [t for key, t in _state_buffers(q.shape).items() if key[0] == "scratch"]
        (buf,) = [t for t in bufs if t.data_ptr() == o_accum]
        n = fields["num_splits"] * 8 * 1  # splits x nheads x total_q
        assert lse_accum == o_accum + n * 64 * 4
        assert buf.numel() >= n * 64 + n, (splits, buf.numel())  # partial outputs, then partial LSEs
    if splits[0] == splits[-1]:
        pytest.skip(f"the two tile maths plan the same split count here ({splits}): nothing to grow")


def test_kept_lse_scratch_is_small(stub):
    """An LSE nobody returns is kept per signature and stream only when small (decode): prefill-sized ones of up
    to _CHECKED_SIZE signatures would stay allocated. (Planned flash_attn_func calls keep it in the float32
    "scratch" buffer after the split partials; 64 keys: one split, the buffer is that LSE.)"""
    for seqlen, kept in ((1, True), (16384, False)):
        q, k, v = _rand(1, seqlen, 32, 64, seed=7), _rand(1, 64, 8, 64, seed=8), _rand(1, 64, 8, 64, seed=9)
        for _ in range(2):
            rocflash.flash_attn_func(q, k, v, backend=stub.platform)
        assert stub.launches[-1][1]["num_splits"] <= 1
        lse = [t for key, t in _state_buffers(q.shape).items() if key[0] in ("lse", "scratch")]
        limit = getattr(compiled, "SCRATCH_KEEP_BYTES", 1 << 20)
        assert bool(lse) == kept and all(t.numel() * 4 <= limit for t in lse)


@pytest.mark.parametrize("api", ["func", "kvcache"])
def test_cached_params_are_not_shared_between_threads_mid_launch(stub, monkeypatch, api):
    """Two threads on one signature share its params struct: a thread switch between one call's pointer writes and
    its launch (forced here inside the stream query) launched both calls on the second call's tensors, and the
    first call returned an output no kernel wrote."""
    if api == "func":
        q, k, v = _rand(2, 64, 8, 64, seed=10), _rand(2, 64, 2, 64, seed=11), _rand(2, 64, 2, 64, seed=12)

        def call():
            return rocflash.flash_attn_func(q, k, v, backend=stub.platform)
    else:
        q, kc, vc = _rand(2, 1, 8, 64, seed=13), _rand(2, 64, 2, 64, seed=14), _rand(2, 64, 2, 64, seed=15)
        lens = torch.tensor([5, 9], dtype=torch.int32)

        def call():
            return rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, num_splits=1,
                                                    backend=stub.platform)
    call(), call()  # the signature is cached, its params filled
    a_waits, entered = threading.Event(), []
    device_of = compiled._device_of

    def switch_here(t):  # entered right before each launch
        if threading.current_thread().name == "A" and not entered:
            entered.append(1)
            a_waits.set()
            time.sleep(0.3)  # B runs now, unless the launch path is locked
        return device_of(t)

    monkeypatch.setattr(compiled, "_device_of", switch_here)
    outs = {}
    a = threading.Thread(target=lambda: outs.__setitem__("A", call()), name="A")
    b = threading.Thread(target=lambda: (a_waits.wait(5), outs.__setitem__("B", call())), name="B")
    a.start(), b.start(), a.join(), b.join()
    assert entered and len(stub.launches) == 4
    launched = sorted(p["o"] for p in stub.pointers[-2:])
    assert launched == sorted(o.data_ptr() for o in outs.values())


def test_kvcache_step_scratch_kept_per_stream(stub, monkeypatch):
    """The fast path's scratch (the step kernel's seqused_k, split partials, an unreturned LSE) was once kept per
    device only: a call on another stream wrote it while the first stream's kernels could still read it. Each
    stream must write its own, and a repeated call on one stream reuses its buffer (no allocation per step)."""
    q = _rand(2, 1, 8, 64, seed=16)
    kc, vc = _rand(11, 16, 2, 64, seed=17), _rand(11, 16, 2, 64, seed=18)
    table = torch.arange(8, dtype=torch.int32).view(2, 4)
    handle = [7]
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=handle[0]))
    for stream in (7, 7, 9, 9, 7):
        handle[0] = stream
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=64, block_table=table, backend=stub.platform)
    by_stream = {}
    for p in stub.pointers[1:]:  # the fast path's calls
        by_stream.setdefault(p["stream"], set()).add((p["seqused_k"], p["o_accum"], p["lse"]))
    assert sorted(by_stream) == [7, 9] and all(len(v) == 1 for v in by_stream.values())
    assert not by_stream[7] & by_stream[9]


def test_kvcache_graph_capture_owns_its_scratch(stub, monkeypatch):
    """A decode step captured into a CUDA graph after eager steps of its signature must not write the kept scratch
    of eager calls (an eager step queued after a replay would race it), nor keep the capture's buffer (it lives in
    the graph's pool)."""
    q = _rand(2, 1, 8, 64, seed=19)
    kc, vc = _rand(11, 16, 2, 64, seed=20), _rand(11, 16, 2, 64, seed=21)
    table = torch.arange(8, dtype=torch.int32).view(2, 4)
    for _ in range(2):  # eager: the second call's scratch is kept
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=64, block_table=table, backend=stub.platform)
    (plan,) = kvcache_fast._PLANS.values()
    kept = {k: t for k, t in plan.launch.items() if isinstance(k, tuple) and k[0] == "scratch"}

    def in_kept(ptr):
        return any(t.data_ptr() <= ptr < t.data_ptr() + 4 * t.numel() for t in kept.values())

    assert len(kept) == 1 and in_kept(stub.pointers[-1]["seqused_k"])
    monkeypatch.setattr(kvcache_fast, "_capturing", lambda dev: True, raising=False)  # as under torch.cuda.graph
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=64, block_table=table, backend=stub.platform)
    after = {k: t for k, t in plan.launch.items() if isinstance(k, tuple) and k[0] == "scratch"}
    assert after.keys() == kept.keys() and all(after[k] is kept[k] for k in kept)
    assert not in_kept(stub.pointers[-1]["seqused_k"]) and not in_kept(stub.pointers[-1]["lse"])


@pytest.mark.gpu
def test_gpu_kvcache_window_after_the_cache_grew(monkeypatch):
    """On the GPU: a decode step with a sliding window whose signature was first seen with short sequences attends
    to the last window_left + 1 keys only (fp64 reference), bitwise like the full path."""
    from conftest import gpu_platform

    platform = gpu_platform()
    g = torch.Generator(device="cuda").manual_seed(30)
    q = torch.randn(2, 1, 8, 64, generator=g, device="cuda").half()
    kc, vc = (torch.randn(2, 256, 2, 64, generator=g, device="cuda").half() for _ in range(2))
    call = dict(window_size=(16, 0), backend=platform)
    short = torch.tensor([5, 9], dtype=torch.int32, device="cuda")
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=short, **call)  # full path: the signature kept
    lens = torch.tensor([100, 200], dtype=torch.int32, device="cuda")
    fast = rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, **call)
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "host")
    full = rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, **call)
    assert torch.equal(fast.view(torch.int16), full.view(torch.int16))
    for b, n in enumerate(lens.tolist()):
        ks, vs = (c[b, n - 17:n].double().repeat_interleave(4, dim=1) for c in (kc, vc))  # (17, 8, 64)
        p = (torch.einsum("hd,jhd->hj", q[b, 0].double(), ks) / 8).softmax(-1)
        ref = torch.einsum("hj,jhd->hd", p, vs)
        assert (fast[b, 0].double() - ref).abs().max() < 3e-3


def test_atomic_dq_off_under_torch_deterministic_algorithms(stub):
    """deterministic=False (the default) adds dQ atomically on the cuda tensor-core backward: run to run different
    bits. torch.use_deterministic_algorithms(True) asks for the deterministic implementation of every op: the
    backward must then run the dQ kernel, on the first (op) and the cached (EagerAttention) calls alike."""
    g = torch.Generator().manual_seed(31)
    q, k, v = (torch.randn(1, 16, 2, 32, generator=g).half().requires_grad_() for _ in range(3))
    dout = torch.randn(1, 16, 2, 32, generator=g).half()
    rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform).backward(dout)
    if not stub.launches[-1][1]["atomic_dq"]:
        pytest.skip("no atomic dQ here (vector tile math or hip)")
    saved = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        for _ in range(2):
            rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform).backward(dout)
            assert stub.launches[-1][0] == "bwd" and not stub.launches[-1][1]["atomic_dq"]
    finally:
        torch.use_deterministic_algorithms(saved)
    rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform).backward(dout)
    assert stub.launches[-1][1]["atomic_dq"]
