"""The compiled backends' host path on a GPU (marker ``gpu``): repeated decode steps take the fast path without a
device->host sync (torch.cuda.set_sync_debug_mode("error")), give bitwise the result of the first call (which ran
the full checks), and a step captured in a CUDA graph replays bitwise like the eager step on the same inputs.

Outputs poisoned with NaN (conftest); fresh random inputs; cache slots past each sequence and unused pages NaN.
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from conftest import gpu_platform

pytestmark = pytest.mark.gpu
NAN = float("nan")


@pytest.fixture
def platform():
    return gpu_platform()


def _bits(t):
    return t.view(torch.int16) if t.element_size() == 2 else t.view(torch.int32)


def _decode_inputs(paged: bool, seed: int, batch=3, hk=2, h=8, d=128, page=16, pages=8):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = torch.bfloat16
    q = torch.randn(batch, 1, h, d, generator=g, device="cuda").to(dt)
    k, v = (torch.randn(batch, 1, hk, d, generator=g, device="cuda").to(dt) for _ in range(2))
    lens = torch.tensor([5, 70, 100], dtype=torch.int32, device="cuda")[:batch]
    if paged:
        blocks = batch * pages + 3
        kc, vc = (torch.full((blocks, page, hk, d), NAN, dtype=dt, device="cuda") for _ in range(2))
        table = torch.randperm(blocks, generator=torch.Generator().manual_seed(seed))[:batch * pages]
        table = table.view(batch, pages).to(torch.int32).cuda()
        flat_k, flat_v = (c[table.long()].flatten(1, 2) for c in (kc, vc))  # (batch, pages * page, hk, d) copies
        for b, n in enumerate(lens.tolist()):
            flat_k[b, :n] = torch.randn(n, hk, d, generator=g, device="cuda").to(dt)
            flat_v[b, :n] = torch.randn(n, hk, d, generator=g, device="cuda").to(dt)
        kc[table.long()] = flat_k.view(batch, pages, page, hk, d)
        vc[table.long()] = flat_v.view(batch, pages, page, hk, d)
        return dict(q=q, k_cache=kc, v_cache=vc, cache_seqlens=lens, block_table=table)
    kc, vc = (torch.full((batch, pages * page, hk, d), NAN, dtype=dt, device="cuda") for _ in range(2))
    for b, n in enumerate(lens.tolist()):
        kc[b, :n] = torch.randn(n, hk, d, generator=g, device="cuda").to(dt)
        vc[b, :n] = torch.randn(n, hk, d, generator=g, device="cuda").to(dt)
    return dict(q=q, k_cache=kc, v_cache=vc, k=k, v=v, cache_seqlens=lens)


def _clone(call):
    return {name: t.clone() for name, t in call.items()}


@pytest.mark.parametrize("paged", [False, True], ids=["dense_append", "paged"])
def test_gpu_kvcache_fast_path_no_sync_same_bits_and_graph_replay(platform, paged):
    call = _decode_inputs(paged, seed=1)
    first_call = _clone(call)
    first = rocflash.flash_attn_with_kvcache(**first_call, causal=True, return_softmax_lse=True, backend=platform)
    second_call = _clone(call)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        second = rocflash.flash_attn_with_kvcache(**second_call, causal=True, return_softmax_lse=True,
                                                  backend=platform)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    for a, b in zip(first, second):  # the full path's checks once, then the fast path: the same bits
        assert torch.equal(_bits(a), _bits(b))
    if not paged:  # the append landed in both
        assert torch.equal(_bits(first_call["k_cache"]), _bits(second_call["k_cache"]))
    assert not first[0].isnan().any()

    # a CUDA graph of the step, replayed on new values written into the captured tensors
    static = _clone(call)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        rocflash.flash_attn_with_kvcache(**_clone(call), causal=True, backend=platform)  # warm-up on this stream
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out_graph, lse_graph = rocflash.flash_attn_with_kvcache(**static, causal=True, return_softmax_lse=True,
                                                                backend=platform)
    fresh = _decode_inputs(paged, seed=2)
    fresh["cache_seqlens"] = torch.tensor([3, 64, 99], dtype=torch.int32, device="cuda")  # within the filled keys
    for name, t in fresh.items():
        static[name].copy_(t)
    eager_call = _clone(static)
    graph.replay()
    out_eager, lse_eager = rocflash.flash_attn_with_kvcache(**eager_call, causal=True, return_softmax_lse=True,
                                                            backend=platform)
    torch.cuda.synchronize()
    assert torch.equal(_bits(out_graph), _bits(out_eager)) and torch.equal(_bits(lse_graph), _bits(lse_eager))
    assert torch.equal(_bits(static["k_cache"]), _bits(eager_call["k_cache"]))
    assert not out_graph.isnan().any()


def test_gpu_flash_attn_func_decode_no_sync_and_graph_replay(platform):
    g = torch.Generator(device="cuda").manual_seed(3)
    q = torch.randn(2, 1, 32, 128, generator=g, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(2, 4096, 8, 128, generator=g, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    first = rocflash.flash_attn_func(q, k, v, backend=platform)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        second = rocflash.flash_attn_func(q, k, v, backend=platform)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert torch.equal(_bits(first), _bits(second))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out_graph = rocflash.flash_attn_func(q, k, v, backend=platform)
    q.copy_(torch.randn(q.shape, generator=g, device="cuda", dtype=q.dtype))
    graph.replay()
    eager = rocflash.flash_attn_func(q, k, v, backend=platform)
    torch.cuda.synchronize()
    assert torch.equal(_bits(out_graph), _bits(eager)) and not eager.isnan().any()
    assert not torch.equal(_bits(out_graph), _bits(first))  # the replay saw the new q


@pytest.mark.parametrize("what", ["cache_seqlens", "block_table", "cache_batch_idx"])
def test_gpu_kvcache_bad_index_off_gives_nan_and_flag(platform, monkeypatch, what):
    """ROCFLASH_INDEX_CHECKS=off on the fast path: a sequence whose index leaves the cache reads nothing, appends
    nothing and gets NaN in its O and LSE; the other sequences give the bits of the same call with good indices;
    the device flag is set."""
    from rocflash import kvcache_fast
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "off")
    call = _decode_inputs(what == "block_table", seed=4)
    if what == "cache_batch_idx":  # rows of a larger cache: no append (an append with cache_batch_idx: full path)
        del call["k"], call["v"]
        call["cache_batch_idx"] = torch.tensor([2, 0, 1], dtype=torch.int32, device="cuda")
        call["cache_seqlens"] = torch.tensor([100, 5, 70], dtype=torch.int32, device="cuda")  # keys of rows 2, 0, 1
    good = rocflash.flash_attn_with_kvcache(**_clone(call), causal=True, return_softmax_lse=True, backend=platform)
    good = rocflash.flash_attn_with_kvcache(**_clone(call), causal=True, return_softmax_lse=True, backend=platform)
    bad = _clone(call)
    if what == "cache_seqlens":
        bad["cache_seqlens"][1] = bad["k_cache"].shape[1]  # + seqlen_new 1: one past the capacity
    elif what == "block_table":
        bad["block_table"][1, 2] = bad["k_cache"].shape[0]  # page 2 holds keys 32..47 of the 70
    else:
        bad["cache_batch_idx"][1] = -1
    before = bad["k_cache"].clone()
    flag = kvcache_fast.index_error_flag(call["q"].device)
    flag.zero_()
    torch.cuda.set_sync_debug_mode("error")
    try:
        out, lse = rocflash.flash_attn_with_kvcache(**bad, causal=True, return_softmax_lse=True, backend=platform)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    assert flag.item() == 1
    assert out[1].isnan().all() and lse[1].isnan().all()
    for b in (0, 2):
        assert torch.equal(_bits(out[b]), _bits(good[0][b])) and torch.equal(_bits(lse[b]), _bits(good[1][b]))
    if "k" in bad:  # the bad sequence appended nothing, the others appended their token
        n = call["cache_seqlens"].tolist()
        assert torch.equal(_bits(bad["k_cache"][1]), _bits(before[1]))
        assert torch.equal(_bits(bad["k_cache"][0, n[0]]), _bits(call["k"][0, 0]))


def test_gpu_kvcache_bad_index_device_asserts():
    """ROCFLASH_INDEX_CHECKS=device (default) on the fast path: an out-of-range cache_seqlens stops the stream in the
    step kernel's device-side assert (in a child process: the GPU context is unusable afterwards)."""
    script = (
        "import torch, rocflash\n"
        "from conftest import gpu_platform\n"
        "from test_gpu_host_path import _decode_inputs\n"
        "call = _decode_inputs(False, seed=5)\n"
        "p = gpu_platform()\n"
        "for _ in range(2):\n"
        "    rocflash.flash_attn_with_kvcache(**{k: t.clone() for k, t in call.items()}, backend=p)\n"
        "torch.cuda.synchronize()\n"
        "print('good calls passed', flush=True)\n"
        "call['cache_seqlens'][0] = -1\n"
        "rocflash.flash_attn_with_kvcache(**call, backend=p)\n"
        "torch.cuda.synchronize()\n"
        "print('no error', flush=True)\n")
    _child_stops_after_good_calls(script, "index out of range")


def _child_stops_after_good_calls(script: str, message: str) -> None:
    """Run ``script`` in a child process (from tests/, default ROCFLASH_INDEX_CHECKS): it prints 'good calls
    passed', then its bad call must stop it in a device-side assert before it prints 'no error'."""
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    env.pop("ROCFLASH_INDEX_CHECKS", None)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env,
                         cwd=os.path.dirname(os.path.abspath(__file__)))
    text = res.stdout + res.stderr
    assert "good calls passed" in text and "no error" not in text and res.returncode != 0, text[-2000:]
    assert message in text or "device-side assert" in text, text[-2000:]


@pytest.mark.parametrize("paged", [False, True], ids=["packed", "paged"])
def test_gpu_varlen_no_sync_same_bits_as_host_checks(platform, monkeypatch, paged):
    """flash_attn_varlen_func on the compiled backend: no device->host sync (its index values are checked on the
    device), forward and backward bitwise those of ROCFLASH_INDEX_CHECKS=host (the exact host checks, two syncs)."""
    from rocflash import kvcache_fast
    g = torch.Generator(device="cuda").manual_seed(6)
    lens_q, lens_k = [5, 0, 33, 1], [40, 7, 33, 64]
    cu_q = torch.tensor([0, 5, 5, 38, 39], dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0, 40, 47, 80, 144], dtype=torch.int32, device="cuda")
    q = torch.randn(39, 8, 64, generator=g, device="cuda", dtype=torch.bfloat16)
    kw = dict(causal=True, backend=platform)
    if paged:
        k, v = (torch.randn(24, 16, 2, 64, generator=g, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        table = torch.randperm(24, generator=torch.Generator().manual_seed(6))[:16].view(4, 4).to(torch.int32).cuda()
        table[1, 1:] = -1  # unused pages of the 7-key sequence
        kw["block_table"] = table
    else:
        k, v = (torch.randn(144, 2, 64, generator=g, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    grads = not paged  # no paged backward on the fused backends
    q, k, v = (t.requires_grad_(grads) for t in (q, k, v))
    results = {}
    for mode in ("host", "device"):
        monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, mode)
        torch.cuda.synchronize()
        if mode == "device":
            torch.cuda.set_sync_debug_mode("error")
        try:
            out, lse, _ = rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k),
                                                          return_attn_probs=True, **kw)
            dq = torch.autograd.grad(out, q, torch.ones_like(out))[0] if grads else None
        finally:
            torch.cuda.set_sync_debug_mode("default")
        results[mode] = (out, lse, dq)
    torch.cuda.synchronize()
    for a, b in zip(results["host"], results["device"]):
        if a is not None:
            assert torch.equal(_bits(a), _bits(b))
    assert not results["device"][0].isnan().any()


def _varlen_check(platform, cu_q, cu_k, total_q, total_k, max_q, max_k, table=None, num_blocks=0, page=0):
    """The varlen check kernel (hip_src/fmha_varlen_check.h) launched alone without its assert: the error flag."""
    from rocflash.backends import compiled
    mod = compiled.load_module(platform)
    flag = torch.zeros(1, dtype=torch.int32, device="cuda")
    cu_q, cu_k = (torch.tensor(c, dtype=torch.int32, device="cuda") for c in (cu_q, cu_k))
    if table is not None:
        table = torch.tensor(table, dtype=torch.int32, device="cuda")
    mod.varlen_check(compiled.current_stream(cu_q), cu_q.data_ptr(), cu_k.data_ptr(), cu_q.numel() - 1, total_q,
                     total_k, max_q, max_k, 0 if table is None else table.data_ptr(),
                     0 if table is None else table.stride(0), 0 if table is None else table.shape[1], page,
                     num_blocks, flag.data_ptr(), False)
    torch.cuda.synchronize()
    return int(flag.item())


def test_gpu_varlen_check_kernel_flags_each_rule(platform):
    """Every value rule of flash_attn_varlen_func's index tensors, one violation at a time, on the check kernel
    (no assert; varlen_ref.CHECK_GOOD / CHECK_BAD, the emulator test's cases): the flag turns 1 exactly for the
    bad cases; entries of unused pages are never read; many sequences (one block each) with the bad one last."""
    from varlen_ref import CHECK_BAD, CHECK_GOOD
    for case in CHECK_GOOD:
        assert _varlen_check(platform, *case) == 0, case
    for case in CHECK_BAD:
        assert _varlen_check(platform, *case) == 1, case
    n = 3000
    cq = list(range(n + 1))
    ck = [2 * i for i in range(n + 1)]
    assert _varlen_check(platform, cq, ck, n, 2 * n, 1, 2) == 0
    ck[-1] -= 3
    assert _varlen_check(platform, cq, ck, n, 2 * n - 3, 1, 2) == 1


def test_gpu_varlen_bad_index_device_asserts():
    """A decreasing cu_seqlens_k stops the stream in the check kernel's device-side assert before the attention
    kernels run (in a child process: the GPU context is unusable afterwards)."""
    script = (
        "import torch, rocflash\n"
        "from conftest import gpu_platform\n"
        "p = gpu_platform()\n"
        "q, k, v = (torch.randn(n, 4, 64, device='cuda', dtype=torch.float16) for n in (8, 20, 20))\n"
        "cu_q = torch.tensor([0, 3, 3, 8], dtype=torch.int32, device='cuda')\n"
        "cu_k = torch.tensor([0, 7, 11, 20], dtype=torch.int32, device='cuda')\n"
        "for _ in range(2):\n"
        "    rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 9, backend=p)\n"
        "torch.cuda.synchronize()\n"
        "print('good calls passed', flush=True)\n"
        "cu_k[2] = 5\n"
        "rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 9, backend=p)\n"
        "torch.cuda.synchronize()\n"
        "print('no error', flush=True)\n")
    _child_stops_after_good_calls(script, "index values")
