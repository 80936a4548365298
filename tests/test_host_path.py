"""The compiled backends' host path (rocflash.kvcache_fast, the cached checks of flash_attn_func) on the CPU, with
the launches stubbed: the real compiled module's params (pybind11) on CPU tensors, its kernels replaced by a
recorder, torch.cuda's device queries answered as on an H200.

Checked: a repeated call reads no tensor value on the host (no device->host sync on a GPU: graph-capturable);
it hands the kernel the same params as the first call, which took the full checks (so the results are bitwise
the same); the KV-cache append writes exactly the new slots; out-of-range index values are flagged by the step
kernel (modelled here on the CPU: a RuntimeError stands for the device assert; ROCFLASH_INDEX_CHECKS=host gives the
full path's ValueError; `off` marks the sequence bad: no key read, NaN output on a GPU); a changed argument still
gets the full path's error.
"""

from __future__ import annotations

import contextlib
import ctypes
import types

import pytest
import torch

import rocflash
from rocflash import interface, kvcache_fast, selector
from rocflash.backends import compiled

_FIELDS = ("batch", "nheads", "nheads_k", "headdim", "seqlen_q", "seqlen_k", "num_splits", "softmax_scale",
           "window_left", "window_right", "softcap", "aligned", "seq_total_q", "seq_page_block_size",
           "seq_block_table_batch_stride", "k_batch_stride", "k_row_stride", "k_head_stride", "q_row_stride")
_HOST_READS = ("item", "tolist", "__bool__", "__int__", "__index__", "__float__")


def _module():
    for platform in ("cuda", "hip"):
        if compiled.load_module(platform) is not None:
            return platform, compiled.load_module(platform)
    pytest.skip(f"needs a compiled rocflash module (cuda or hip): {compiled.module_error('cuda')}")


class _Params:
    """The params struct as a Python object: fields never set read 0 (the C++ struct's zero initialisation), so
    the test does not depend on the built module having the newest fields."""

    def __getattr__(self, name):
        return 0


@pytest.fixture
def stub(monkeypatch):
    """Launches recorded instead of run; a GPU-like device for the selector and the split plan. The compiled
    module's instance tables (select_instance, instances, the enums) are the real ones; its params struct a
    Python object."""
    platform, real = _module()
    mod = types.SimpleNamespace(DType=real.DType, TileMath=real.TileMath, select_instance=real.select_instance,
                                instances=real.instances, platform=real.platform,
                                compiled_archs=real.compiled_archs, FmhaFwdParams=_Params, FmhaBwdParams=_Params)
    monkeypatch.setattr(compiled, "load_module", lambda name: mod if name == platform else None)
    monkeypatch.setattr(selector, "load_module", lambda name: mod if name == platform else None)
    launches, pointers = [], []

    def record(kind):
        def launch(p, stream, tile_math):
            fields = {f: getattr(p, f) for f in _FIELDS}
            if kind == "bwd":  # dQ added atomically (deterministic=False on the tensor-core backward) or not
                fields["atomic_dq"] = bool(getattr(p, "dq_accum", 0))
            launches.append((kind, fields,
                             _ints(p.seq_seqused_k, p.batch) if p.seq_seqused_k else None,
                             _ints(p.seq_block_table, p.batch * max(1, p.seq_block_table_batch_stride))
                             if p.seq_block_table else None))
            pointers.append({f: getattr(p, f) for f in ("o", "lse", "o_accum", "lse_accum")})
        return launch

    for kind in ("fwd", "fwd_splitkv", "bwd"):
        setattr(mod, kind, record(kind))

    def kvcache_step(p, s, stream, tile_math, split, q, k_cache, v_cache, o, lse, cache_seqlens, seqlen_cache,
                     cache_batch_idx, block_table, k_new, v_new, seqused_k, o_accum, lse_accum, split_counters):
        """The step kernel (hip_src/fmha_kvstep.h) on the CPU tensors' memory, then the attention launch recorded
        as the kernels would receive it (the binding's copy of p with this call's pointers)."""
        batch, page, width = p.batch, p.seq_page_block_size, p.seq_block_table_batch_stride
        lens = _ints(cache_seqlens, batch) if cache_seqlens else [seqlen_cache] * batch
        rows = _ints(cache_batch_idx, batch) if cache_batch_idx else list(range(batch))
        table = _ints(block_table, batch * max(1, width)) if block_table else None
        elem = 4 if p.dtype == real.DType.fp32 else 2
        used = []
        for b in range(batch):
            n, new = lens[b], s.seqlen_new
            bad = n < 0 or n > s.capacity - new or not 0 <= rows[b] < s.num_rows
            if not bad and table is not None:
                pages = table[b * width:b * width + (n + new + page - 1) // page]
                bad = any(not 0 <= e < s.num_rows for e in pages)
            used.append(-1 if bad else n + new)
            if bad:
                if s.error_flag:
                    ctypes.c_int32.from_address(s.error_flag).value = 1
                if s.assert_on_error:
                    raise RuntimeError("CUDA error: device-side assert triggered (rocflash: flash_attn_with_kvcache "
                                       "index out of range)")
            elif new and k_new and table is None:
                for i in range(new):
                    for h in range(p.nheads_k):
                        for dst, strides, src, sstr in ((k_cache, "k", k_new, "kn"), (v_cache, "v", v_new, "vn")):
                            d = (rows[b] * getattr(p, f"{strides}_batch_stride") + (n + i) *
                                 getattr(p, f"{strides}_row_stride") + h * getattr(p, f"{strides}_head_stride"))
                            a = (b * getattr(s, f"{sstr}_batch_stride") + i * getattr(s, f"{sstr}_row_stride") +
                                 h * getattr(s, f"{sstr}_head_stride"))
                            ctypes.memmove(dst + d * elem, src + a * elem, p.headdim * elem)
        (ctypes.c_int32 * batch).from_address(seqused_k)[:] = used
        launches.append(("fwd_splitkv" if split else "fwd", {f: getattr(p, f) for f in _FIELDS}, used, table))
        pointers.append({"o": o, "lse": lse, "o_accum": o_accum, "lse_accum": lse_accum, "seqused_k": seqused_k,
                         "stream": stream})

    mod.kvcache_step = kvcache_step
    mod.KvStepParams = _Params

    def fwd_step(p, stream, tile_math, split, q, k, v, o, lse, o_accum, lse_accum, split_counters):
        """A planned flash_attn_func launch: the binding's copy of p with this call's pointers."""
        launches.append(("fwd_splitkv" if split else "fwd", {f: getattr(p, f) for f in _FIELDS}, None, None))
        pointers.append({"o": o, "lse": lse, "o_accum": o_accum, "lse_accum": lse_accum})

    mod.fwd_step = fwd_step

    def varlen_check(stream, cu_q, cu_k, batch, total_q, total_k, max_q, max_k, block_table, table_stride, width,
                     page, num_blocks, error_flag, assert_on_error):
        """The varlen check kernel (hip_src/fmha_varlen_check.h) on the CPU tensors' memory."""
        q, k = _ints(cu_q, batch + 1), _ints(cu_k, batch + 1)
        limit_k = min(max_k, width * page) if block_table else max_k
        bad = q[0] != 0 or k[0] != 0 or q[-1] != total_q or (total_k >= 0 and k[-1] != total_k)
        for b in range(batch):
            lq, lk = q[b + 1] - q[b], k[b + 1] - k[b]
            bad = bad or not (0 <= lq <= max_q and 0 <= lk <= limit_k)
            if not bad and block_table:
                row = _ints(block_table + 4 * b * table_stride, (lk + page - 1) // page)
                bad = any(not 0 <= e < num_blocks for e in row)
        launches.append(("varlen_check", dict(batch=batch, total_q=total_q, total_k=total_k, max_q=max_q,
                                              max_k=max_k, width=width, page=page, num_blocks=num_blocks), None, None))
        if bad:
            if error_flag:
                ctypes.c_int32.from_address(error_flag).value = 1
            if assert_on_error:
                raise RuntimeError("CUDA error: device-side assert triggered (rocflash: flash_attn_varlen_func index "
                                   "values)")

    mod.varlen_check = varlen_check
    props = types.SimpleNamespace(name="stub GPU", major=9, minor=0, multi_processor_count=132,
                                  shared_memory_per_multiprocessor=233472)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: None)  # CPU tensors: device.index None
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=0))
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (9, 0))
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device=None: props)
    arch = "sm_90" if platform == "cuda" else mod.compiled_archs()[0]
    monkeypatch.setattr(selector, "probe_device",
                        lambda device: selector.DeviceProbe("cuda", platform, arch, props.name, 32, 232448))
    monkeypatch.setattr(compiled, "_num_cus", lambda index: 132)
    monkeypatch.delenv(kvcache_fast.INDEX_CHECKS_ENV, raising=False)
    kvcache_fast._PLANS.clear()
    interface._CHECKED.clear()
    yield types.SimpleNamespace(platform=platform, launches=launches, pointers=pointers, mod=mod)
    kvcache_fast._PLANS.clear()
    interface._CHECKED.clear()


def _ints(ptr: int, n: int) -> list[int]:
    """n int32 values at a host address (the stub's tensors are CPU tensors)."""
    return list((ctypes.c_int32 * n).from_address(ptr))


@contextlib.contextmanager
def no_host_reads():
    """Fails on Tensor.item / tolist / bool / int / index / float (each a device->host sync on a GPU)."""
    saved = {n: getattr(torch.Tensor, n) for n in _HOST_READS}

    def refuse(name):
        def f(self, *a, **kw):
            raise AssertionError(f"host read of a tensor value: Tensor.{name}")
        return f

    for n in _HOST_READS:
        setattr(torch.Tensor, n, refuse(n))
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(torch.Tensor, n, f)


def _rand(*shape, seed=0, dtype=torch.bfloat16):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype)

def _varlen_case(stub, paged: bool, seed: int):
    """Three sequences (one empty query) for the stubbed varlen calls: (lens_q, lens_k, cu_q, cu_k, q, k, v, call
    kwargs); paged: K/V in 9 pages of 16 with a block table whose -1 is an unused page."""
    lens_q, lens_k = [3, 0, 5], [7, 4, 9]
    cu_q = torch.tensor([0, 3, 3, 8], dtype=torch.int32)
    cu_k = torch.tensor([0, 7, 11, 20], dtype=torch.int32)
    q = _rand(8, 4, 64, seed=seed)
    call = dict(backend=stub.platform, causal=True)
    if paged:
        k, v = _rand(9, 16, 2, 64, seed=seed + 1), _rand(9, 16, 2, 64, seed=seed + 2)
        call["block_table"] = torch.tensor([[4, 8], [0, -1], [2, 6]], dtype=torch.int32)
    else:
        k, v = _rand(20, 2, 64, seed=seed + 1), _rand(20, 2, 64, seed=seed + 2)
    return lens_q, lens_k, cu_q, cu_k, q, k, v, call


def _paged(batch=2, pages=4, page=16, hk=2, d=64, blocks=11):
    kc, vc = _rand(blocks, page, hk, d, seed=1), _rand(blocks, page, hk, d, seed=2)
    table = torch.randperm(blocks, generator=torch.Generator().manual_seed(3))[:batch * pages].view(batch, pages)
    return kc, vc, table.to(torch.int32).contiguous()


def test_kvcache_repeated_call_reads_no_value_and_launches_the_same_params(stub):
    q = _rand(2, 1, 8, 64, seed=4)
    kc, vc, table = _paged()
    lens = torch.tensor([37, 64], dtype=torch.int32)
    call = dict(cache_seqlens=lens, block_table=table, backend=stub.platform)
    first = rocflash.flash_attn_with_kvcache(q, kc, vc, **call)  # full path: checks, values read once
    with no_host_reads():
        second = rocflash.flash_attn_with_kvcache(q, kc, vc, **call)
    assert len(stub.launches) == 2 and first.shape == second.shape == q.shape
    (kind1, fields1, used1, table1), (kind2, fields2, used2, table2) = stub.launches
    assert kind1 == kind2 == "fwd_splitkv" and fields1 == fields2
    assert used1 == used2 == [37, 64] and table1 == table2 == table.flatten().tolist()
    assert fields2["seqlen_k"] == 4 * 16  # the cache's capacity plans the splits (flash-attn's seqlen_k)


def test_kvcache_dense_append_writes_the_new_slots_only(stub):
    q, k, v = _rand(3, 1, 4, 32, seed=5), _rand(3, 1, 2, 32, seed=6), _rand(3, 1, 2, 32, seed=7)
    kc, vc = torch.full((3, 40, 2, 32), float("nan"), dtype=torch.bfloat16), _rand(3, 40, 2, 32, seed=8)
    lens = torch.tensor([0, 17, 39], dtype=torch.int32)
    rocflash.flash_attn_with_kvcache(q, kc.clone(), vc.clone(), k, v, cache_seqlens=lens, causal=True,
                                     backend=stub.platform)  # full path once
    k2, v2 = _rand(3, 1, 2, 32, seed=9), _rand(3, 1, 2, 32, seed=10)
    kc_before, vc_before = kc.clone(), vc.clone()
    with no_host_reads():
        rocflash.flash_attn_with_kvcache(q, kc, vc, k2, v2, cache_seqlens=lens, causal=True, backend=stub.platform)
    assert stub.launches[-1][2] == [1, 18, 40]  # the kernel's keys per sequence: cache_seqlens + 1
    for b, n in enumerate(lens.tolist()):
        assert torch.equal(kc[b, n], k2[b, 0]) and torch.equal(vc[b, n], v2[b, 0])
        for before, after in ((kc_before, kc), (vc_before, vc)):
            rest = [i for i in range(40) if i != n]
            assert torch.equal(before[b, rest].view(torch.int16), after[b, rest].view(torch.int16))


@pytest.mark.parametrize("paged", [False, True])
def test_kvcache_out_of_range_values_flagged(stub, monkeypatch, paged):
    q = _rand(2, 1, 8, 64, seed=11)
    if paged:
        kc, vc, table = _paged()
        call = dict(block_table=table, backend=stub.platform)
    else:
        kc, vc = _rand(2, 64, 2, 64, seed=12), _rand(2, 64, 2, 64, seed=13)
        call = dict(backend=stub.platform)
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=torch.tensor([5, 9], dtype=torch.int32), **call)
    bad = torch.tensor([5, 65], dtype=torch.int32)  # past the capacity 64
    with pytest.raises(RuntimeError, match="index out of range"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=bad, **call)
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "host")  # the full path's exact error
    with pytest.raises(ValueError, match=r"cache_seqlens\[1\] \+ seqlen_new must be in \[0, .*64\], got 65 \+ 0"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=bad, **call)
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "off")  # no assert: sequence 1 reads no key (NaN output)
    with pytest.raises(ValueError, match=r"cache_seqlens\[1\]"):  # a changed environment: the full checks once
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=bad, **call)
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=torch.tensor([5, 9], dtype=torch.int32), **call)
    flag = kvcache_fast.index_error_flag(q.device)
    flag.zero_()
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=bad, **call)
    assert stub.launches[-1][2] == [5, -1] and flag.tolist() == [1]
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "everything")
    with pytest.raises(ValueError, match="ROCFLASH_INDEX_CHECKS must be one of device, host, off"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=bad, **call)


def test_kvcache_block_table_flag_covers_used_pages_only(stub, monkeypatch):
    q = _rand(2, 1, 8, 64, seed=14)
    kc, vc, table = _paged()
    lens = torch.tensor([20, 64], dtype=torch.int32)  # sequence 0 uses pages 0-1 of its 4
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, backend=stub.platform)
    garbage = table.clone()
    garbage[0, 2:] = -1  # unused pages: anything goes (vLLM pads tables)
    with no_host_reads():
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=garbage, backend=stub.platform)
    used_bad = table.clone()
    used_bad[1, 3] = 11  # num_blocks = 11: outside the cache, in a used page
    with pytest.raises(RuntimeError, match="index out of range"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=used_bad, backend=stub.platform)
    table[1, 3] = 12  # an in-place write into the table of an earlier call: every call checks the values it reads
    with pytest.raises(RuntimeError, match="index out of range"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, backend=stub.platform)
    table[1, 3] = used_bad[0, 0]
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, backend=stub.platform)
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "off")
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, backend=stub.platform)
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=used_bad, backend=stub.platform)
    assert stub.launches[-1][2] == [20, -1]  # sequence 1 marked bad: the kernels read none of its keys


def test_kvcache_changed_arguments_still_get_the_full_checks(stub):
    q = _rand(2, 1, 8, 64, seed=15)
    kc, vc = _rand(2, 64, 2, 64, seed=16), _rand(2, 64, 2, 64, seed=17)
    lens = torch.tensor([5, 9], dtype=torch.int32)
    rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, causal=True, backend=stub.platform)
    with pytest.raises(TypeError, match="causal must be a bool, got 1"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, causal=1, backend=stub.platform)
    with pytest.raises(ValueError, match="cache_seqlens must have dtype torch.int32"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens.long(), causal=True, backend=stub.platform)
    with pytest.raises(ValueError, match=r"cache_seqlens\[0\] \+ seqlen_new must be in \[0, seqlen_cache"):
        rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=70, causal=True, backend=stub.platform)
    with pytest.raises(NotImplementedError, match="forward only"):
        rocflash.flash_attn_with_kvcache(q.clone().requires_grad_(), kc, vc, cache_seqlens=lens, causal=True,
                                         backend=stub.platform)
    k_new = _rand(2, 1, 2, 64, seed=18)
    rocflash.flash_attn_with_kvcache(q, kc, vc, k_new, k_new.clone(), cache_seqlens=lens, backend=stub.platform)
    with pytest.raises(ValueError, match="k must not share memory with k_cache"):  # storage shared: full path
        rocflash.flash_attn_with_kvcache(q, kc, vc, kc[:, 10:11], k_new.clone(), cache_seqlens=lens,
                                         backend=stub.platform)


def test_flash_attn_func_repeated_call_skips_the_checks_and_keeps_the_errors(stub, monkeypatch):
    q, k, v = _rand(2, 1, 8, 128, seed=19), _rand(2, 300, 2, 128, seed=20), _rand(2, 300, 2, 128, seed=21)
    rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform)
    with monkeypatch.context() as m, no_host_reads():
        m.setattr(interface, "_check_args", None)  # a repeated signature does not run them again
        m.setattr(interface, "select_backend", None)
        rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform)
        rocflash.flash_attn_func(q + 1, k.clone(), v.clone(), causal=True, backend=stub.platform)
    (_, f1, _, _), (_, f2, _, _), (_, f3, _, _) = stub.launches
    assert f1 == f2 == f3
    with pytest.raises(TypeError, match="causal must be a bool, got 1"):
        rocflash.flash_attn_func(q, k, v, causal=1, backend=stub.platform)
    with pytest.raises(ValueError, match="softcap must be a finite float >= 0"):
        rocflash.flash_attn_func(q, k, v, causal=True, softcap=-1.0, backend=stub.platform)
    prefill = _rand(2, 64, 8, 128, seed=22)
    for _ in range(2):
        rocflash.flash_attn_func(prefill, k, v, window_size=(16, 0), backend=stub.platform)
    assert stub.launches[-1][0] == stub.launches[-2][0] == "fwd" and stub.launches[-1][1] == stub.launches[-2][1]
    assert stub.launches[-1][1]["window_left"] == 16


def test_decode_scratch_buffers_reused_on_one_stream(stub):
    """Split-KV partials (one buffer: O partials, then LSE partials) and an LSE nobody returns are kept per
    stream by the planned launches; a returned LSE is a fresh tensor every call."""
    q, k, v = _rand(1, 1, 8, 64, seed=23), _rand(1, 2048, 2, 64, seed=24), _rand(1, 2048, 2, 64, seed=25)
    for _ in range(3):
        rocflash.flash_attn_func(q, k, v, backend=stub.platform)
    first, second, third = stub.pointers
    splits = stub.launches[-1][1]["num_splits"]
    assert stub.launches[-1][0] == "fwd_splitkv" and splits > 1
    assert second["o_accum"] == third["o_accum"] and second["lse"] == third["lse"]
    assert third["lse_accum"] == third["o_accum"] + splits * 8 * 1 * 64 * 4  # after (splits, nheads, rows, 64) fp32
    lses = []
    for _ in range(2):
        _, lse, _ = rocflash.flash_attn_func(q, k, v, return_attn_probs=True, backend=stub.platform)
        lses.append(lse)
        assert stub.pointers[-1]["lse"] == lse.data_ptr()
    assert lses[0].data_ptr() != lses[1].data_ptr()


def test_flash_attn_func_repeated_backward_skips_the_op_dispatch_same_launches(stub):
    """A repeated eager call that needs a gradient runs ops.EagerAttention (fwd_impl / bwd_impl without the
    torch.library dispatch): the same forward and backward launches as the first call through torch.ops.rocflash,
    and the same refusal of a second derivative."""
    g = torch.Generator().manual_seed(26)
    q, k, v = (torch.randn(1, 16, 2, 32, generator=g).half().requires_grad_() for _ in range(3))
    dout = torch.randn(1, 16, 2, 32, generator=g).half()
    outs = []
    for _ in range(2):
        out = rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform)
        outs.append(out)
        out.backward(dout)
    assert "EagerAttention" in type(outs[1].grad_fn).__name__ and "EagerAttention" not in type(outs[0].grad_fn).__name__
    kinds = [launch[0] for launch in stub.launches]
    assert kinds == ["fwd", "bwd", "fwd", "bwd"]
    assert stub.launches[0][1] == stub.launches[2][1] and stub.launches[1][1] == stub.launches[3][1]
    for deterministic in (True, False, True):  # each dQ mode its own cached signature, as on its first call
        rocflash.flash_attn_func(q, k, v, causal=True, deterministic=deterministic, backend=stub.platform).backward(dout)
    modes = [launch[1]["atomic_dq"] for launch in stub.launches[-6:] if launch[0] == "bwd"]
    assert modes[0] == modes[2] and (modes[1] != modes[0]) == (stub.launches[1][1]["atomic_dq"] is True)
    assert q.grad is not None and q.grad.shape == q.shape
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform)
    (gq,) = torch.autograd.grad(out, q, dout, create_graph=False)
    assert gq.shape == q.shape
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=stub.platform)
    with pytest.raises(RuntimeError, match="does not support second derivatives"):
        torch.autograd.grad(out, q, dout, create_graph=True)


@pytest.mark.parametrize("paged", [False, True])
def test_varlen_repeated_inference_call_skips_the_host_checks(stub, monkeypatch, paged):
    """A repeated inference signature of flash_attn_varlen_func on a compiled backend skips the host checks and the
    backend selection (rocflash.varlen._plan_key): it launches the check kernel on this call's index values, then the
    same forward as the first call; bad index values still stop it (the check kernel); a gradient, a changed
    max_seqlen or ROCFLASH_INDEX_CHECKS=host take the full path."""
    from rocflash import varlen
    varlen._PLANS.clear()
    lens_q, lens_k, cu_q, cu_k, q, k, v, call = _varlen_case(stub, paged, seed=33)
    rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 9, **call)
    first = [x for x in stub.launches if x[0] != "varlen_check"][-1]
    n0 = len(stub.launches)
    with monkeypatch.context() as m, no_host_reads():
        for name in ("_prepare", "_checks_on_device", "select_varlen_backend", "run_varlen"):
            m.setattr(varlen, name, None)  # a planned call runs none of them
        out = rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 9, **call)
        out2, lse, _ = rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 9, return_attn_probs=True, **call)
        with pytest.raises(RuntimeError, match="flash_attn_varlen_func index values"):  # the check kernel, per call
            rocflash.flash_attn_varlen_func(q, k, v, cu_q, torch.tensor([0, 7, 5, 20], dtype=torch.int32), 5, 9, **call)
    assert out.shape == out2.shape == q.shape and lse.shape == (4, 8)
    planned = stub.launches[n0:]
    assert [x[0] for x in planned] == ["varlen_check", first[0], "varlen_check", first[0], "varlen_check"]
    assert all(fields == first[1] and table == first[3] for _, fields, _, table in planned[1:4:2])
    n = len(stub.launches)
    with monkeypatch.context() as m:
        m.setattr(varlen, "_prepare", None)  # these must take the full path (which calls _prepare)
        with pytest.raises(TypeError):
            rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 6, 9, **call)  # another max_seqlen_q
        m.setenv(kvcache_fast.INDEX_CHECKS_ENV, "host")
        with pytest.raises(TypeError):
            rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 9, **call)
    assert len(stub.launches) == n
    if not paged:
        qg = q.clone().requires_grad_()
        with monkeypatch.context() as m:
            m.setattr(varlen, "_prepare", None)
            with pytest.raises(TypeError):
                rocflash.flash_attn_varlen_func(qg, k, v, cu_q, cu_k, 5, 9, **call)
    varlen._PLANS.clear()


@pytest.mark.parametrize("kernel", [True, False], ids=["check_kernel", "torch_ops"])
@pytest.mark.parametrize("paged", [False, True])
def test_varlen_reads_no_value_and_checks_on_the_device(stub, monkeypatch, paged, kernel):
    """flash_attn_varlen_func on a compiled backend reads no index value on the host (no sync on a GPU): the grid
    comes from max_seqlen_q / k, the values are checked on their device: by the module's check kernel (modelled by
    the stub on the CPU memory; one launch, no torch op) or, for a module without it, by torch ops (here on the
    CPU: the assert raises at once); it launches what ROCFLASH_INDEX_CHECKS=host (the exact host checks)
    launches."""
    if not kernel:
        monkeypatch.delattr(stub.mod, "varlen_check")
    lens_q, lens_k, cu_q, cu_k, q, k, v, call = _varlen_case(stub, paged, seed=30)
    with no_host_reads():
        out = rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k), **call)
    checks = [x for x in stub.launches if x[0] == "varlen_check"]
    assert [c[1] for c in checks] == ([dict(batch=3, total_q=8, total_k=-1 if paged else 20, max_q=5, max_k=9,
                                            width=2 if paged else 0, page=16 if paged else 0,
                                            num_blocks=9 if paged else 0)] if kernel else [])
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "host")
    ref = rocflash.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k), **call)
    assert out.shape == ref.shape == q.shape
    (kind1, fields1, _, table1), (kind2, fields2, _, table2) = stub.launches[-2:]
    assert kind1 == kind2 and fields1 == fields2 and table1 == table2
    assert len([x for x in stub.launches if x[0] == "varlen_check"]) == len(checks)  # host: no check kernel
    monkeypatch.delenv(kvcache_fast.INDEX_CHECKS_ENV)
    bad_cases = [(cu_q, torch.tensor([0, 7, 5, 20], dtype=torch.int32), max(lens_k)),  # decreasing
                 (cu_q, cu_k, max(lens_k) - 1),  # a sequence longer than max_seqlen_k
                 (torch.tensor([1, 3, 3, 8], dtype=torch.int32), cu_k, max(lens_k))]  # not starting at 0
    if paged:
        bad_table = call["block_table"].clone()
        bad_table[2, 0] = 9  # num_blocks = 9, a used page
        bad_cases.append((cu_q, cu_k, max(lens_k), bad_table))
    else:
        bad_cases.append((cu_q, torch.tensor([0, 7, 11, 19], dtype=torch.int32), max(lens_k)))  # not ending at total_k
    for cq, ck, mk, *table in bad_cases:
        kw = dict(call, block_table=table[0]) if table else call
        with pytest.raises(RuntimeError, match="flash_attn_varlen_func index values"):
            rocflash.flash_attn_varlen_func(q, k, v, cq, ck, max(lens_q), mk, **kw)
        monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "host")  # the exact error, naming the value
        with pytest.raises(ValueError):
            rocflash.flash_attn_varlen_func(q, k, v, cq, ck, max(lens_q), mk, **kw)
        monkeypatch.delenv(kvcache_fast.INDEX_CHECKS_ENV)
