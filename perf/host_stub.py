"""Host (CPU) cost of the compiled backends' Python path per call, with the GPU stubbed out: no GPU needed.

    python perf/host_stub.py [--calls N] [--profile NAME]

Runs the public calls with backend="cuda" on CPU tensors: the real compiled module rocflash._C_cuda (its params
struct and instance tables through pybind11) with its launches (fwd, fwd_splitkv, bwd) replaced by no-ops, and
torch.cuda's device queries answered by an H200-like stub. What it measures is everything between the call and
the launch: argument checks, backend selection, params, allocations, the KV-cache append. Per case it prints the
host CPU time per call (process time, best of 5 loops), the aten ops dispatched per call and the host reads of tensor values
(.item() / .tolist() / bool(tensor): each one a device->host sync on a GPU). CPU torch ops are cheaper than CUDA
launches (no driver call), so on a GPU each dispatched op costs a few microseconds more than here.
Needs rocflash._C_cuda importable and built from these sources (a CUDA build links no torch and loads without
a GPU; a module older than the Python fails on the params fields it lacks).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import pstats
import time
import types

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import rocflash
from rocflash import selector
from rocflash.backends import compiled

_HOST_READS = ("item", "tolist", "__bool__", "__int__", "__index__", "__float__")


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func.overloadpacket.__name__))
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def count_host_reads(counter: list):
    """Counts Tensor.item / tolist / bool / int / index / float calls (device->host reads on a GPU)."""
    saved = {n: getattr(torch.Tensor, n) for n in _HOST_READS}

    def wrap(name, f):
        def g(self, *a, **kw):
            counter.append(name)
            return f(self, *a, **kw)
        return g

    for n, f in saved.items():
        setattr(torch.Tensor, n, wrap(n, f))
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(torch.Tensor, n, f)


def install_stub() -> None:
    """The compiled module with no-op launches; torch.cuda's queries as on an H200 (sm_90, 132 SMs)."""
    mod = compiled.load_module("cuda")
    if mod is None:
        raise SystemExit(f"rocflash._C_cuda is not importable: {compiled.module_error('cuda')}")
    # fwd_step, kvcache_step, varlen_check: their pybind11 argument conversion (~12-20 integers) is not in the
    # figures; a module built before them gets the no-ops too, so the figures are those of this Python
    for name in ("fwd", "fwd_splitkv", "fwd_step", "bwd", "kvcache_step", "varlen_check"):
        setattr(mod, name, lambda *a, **kw: None)
    if not hasattr(mod, "KvStepParams"):  # a module built before the KV-cache step kernel
        mod.KvStepParams = type("KvStepParams", (), {})
    props = types.SimpleNamespace(name="H200 (stub)", major=9, minor=0, multi_processor_count=132,
                                  shared_memory_per_multiprocessor=233472, shared_memory_per_block_optin=232448,
                                  warp_size=32)
    stream = types.SimpleNamespace(cuda_stream=0)
    torch.cuda.current_device = lambda: None  # CPU tensors' device.index is None: "already current"
    torch.cuda.current_stream = lambda device=None: stream
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.is_current_stream_capturing = lambda: False
    selector.probe_device = lambda device: selector.DeviceProbe("cuda", "cuda", "sm_90", props.name, 32, 232448)


def cases():
    g = torch.Generator().manual_seed(0)

    def r(*s, dt=torch.bfloat16, grad=False):
        return torch.randn(*s, generator=g).to(dt).requires_grad_(grad)

    out = {}
    # the tensor-core preset's seqlen-1k forward at a small batch: the host path does not depend on the sizes, while
    # CPU allocations of the real sizes (tens of MB: fresh pages) would (on a GPU the caching allocator serves them)
    S = 64
    q, k, v = r(4, S, 16, 64, dt=torch.float16), r(4, S, 16, 64, dt=torch.float16), r(4, S, 16, 64, dt=torch.float16)
    out["fwd_1k"] = lambda: rocflash.flash_attn_func(q, k, v, causal=True, backend="cuda")
    qg, kg, vg = (r(4, S, 16, 64, dt=torch.float16, grad=True) for _ in range(3))
    dout = torch.randn(4, S, 16, 64).half()

    def fwd_bwd():
        o = rocflash.flash_attn_func(qg, kg, vg, causal=True, backend="cuda")
        o.backward(dout)
    out["fwd_bwd_1k"] = fwd_bwd
    # decode preset: batch 1, 32 q heads / 8 kv heads, d128 bf16, dense K/V through flash_attn_func
    qd, kd, vd = r(1, 1, 32, 128), r(1, 4096, 8, 128), r(1, 4096, 8, 128)
    out["decode_func"] = lambda: rocflash.flash_attn_func(qd, kd, vd, backend="cuda")
    # KV cache: dense, append 1 token at cache_seqlens (int32 tensor)
    kc, vc = r(1, 8192, 8, 128), r(1, 8192, 8, 128)
    kn, vn = r(1, 1, 8, 128), r(1, 1, 8, 128)
    lens = torch.tensor([4096], dtype=torch.int32)
    out["kvcache_append"] = lambda: rocflash.flash_attn_with_kvcache(qd, kc, vc, kn, vn, cache_seqlens=lens,
                                                                    causal=True, backend="cuda")
    out["kvcache_dense"] = lambda: rocflash.flash_attn_with_kvcache(qd, kc, vc, cache_seqlens=lens, backend="cuda")
    # paged cache (the decode-paged preset's call): page 16, 4096 keys, no append
    kp, vp = r(512, 16, 8, 128), r(512, 16, 8, 128)
    table = torch.randperm(512, generator=g).to(torch.int32).view(1, 512)[:, :256].contiguous()
    out["kvcache_paged"] = lambda: rocflash.flash_attn_with_kvcache(qd, kp, vp, cache_seqlens=lens, block_table=table,
                                                                   backend="cuda")
    # varlen prefill: 4 sequences of S tokens
    qv, kv_, vv = r(4 * S, 16, 64, dt=torch.float16), r(4 * S, 16, 64, dt=torch.float16), r(4 * S, 16, 64, dt=torch.float16)
    cu = torch.tensor([0, S, 2 * S, 3 * S, 4 * S], dtype=torch.int32)
    out["varlen"] = lambda: rocflash.flash_attn_varlen_func(qv, kv_, vv, cu, cu, S, S, causal=True,
                                                            backend="cuda")
    return out


def per_call_us(fn, calls: int) -> float:
    for _ in range(20):
        fn()
    best = float("inf")
    for _ in range(5):
        t = time.process_time()  # this process's CPU time: robust to other processes on a shared machine
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - t) / calls * 1e6)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--profile", default=None, help="print a cProfile of this case")
    ap.add_argument("--only", nargs="*", default=None)
    a = ap.parse_args()
    install_stub()
    for name, fn in cases().items():
        if a.only and name not in a.only:
            continue
        us = per_call_us(fn, a.calls if "bwd" not in name else max(20, a.calls // 10))
        fn()
        reads: list = []
        with count_host_reads(reads), OpCounter() as c:
            fn()
        print(f"{name:16s} {us:8.1f} us/call  {len(c.ops):3d} aten ops  {len(reads)} host reads  "
              f"ops: {' '.join(c.ops)}  reads: {' '.join(reads)}")
        if a.profile == name:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(a.calls):
                fn()
            prof.disable()
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
            print(s.getvalue())


if __name__ == "__main__":
    main()
