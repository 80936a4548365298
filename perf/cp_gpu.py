"""Context parallelism on several GPUs: correctness through the compiled kernels, then speed and memory.

    python3 perf/cp_gpu.py --out $OUT                       # every visible GPU, NCCL, backend cuda/hip
    python3 perf/cp_gpu.py --device cpu --nprocs 2 --tiny --nheads 4 --headdim 32   # logic check on CPU (gloo, torch)

One process per GPU (torch.multiprocessing spawn). Stages, all on the same process group:
1. correctness: tests/cp_check.py's cases (bf16/fp16, causal and not, GQA, softcap, sliding windows, a padded
   causal sequence, a non-causal one that does not divide and must be rejected; packed varlen batches of
   uneven sequences through ring_flash_attn_varlen_func) against the fp64 reference on the gathered tensors,
   FlashAttention's tolerance rule.
2. speed, per sequence length (ascending, sampled to fit --time-limit-s; a size whose predicted time does not
   fit is skipped and listed): causal fwd+bwd, bf16, nheads 32, headdim 128, batch 1:
   - ring: rocflash.parallel.ring_flash_attn_func on world_size GPUs (time, TFLOP/s, per-rank peak memory
     against rocflash.parallel.memory_model);
   - compute only (seqlen <= --compute-only-max): the same ring schedule (same blocks, same kernels) with the
     K/V exchange replaced by a no-op; comm only: the same exchanges (K/V, fp32 dK/dV) without compute.
     Exposed communication = ring - compute; hidden fraction = 1 - exposed / comm, reported raw and clamped
     to [0, 1]: timing noise of the ring or compute-only run (both seconds long) can exceed the exchange time
     (milliseconds), which pushes the raw value below 0 or above 1; ``comm_share`` = comm / ring says how
     much there was to hide, and sizes where it is below the noise are the ones to read with care;
   - per-rank peak memory (torch.cuda.max_memory_allocated beyond the inputs' allocation) of the ring at every
     size, against rocflash.parallel.memory_model: the summary line divides it by local_seqlen, which stays
     flat when memory grows with the local sequence and not with the full one;
   - one GPU (seqlen <= --one-gpu-max): rocflash.flash_attn_func on the full sequence on rank 0, where it fits
     in time and memory;
   - torch: torch.distributed.tensor.experimental.context_parallel with SDPA (flash) on the same GPUs.
   - profile (--profile-seqlens): one ring fwd+bwd under torch.profiler on every rank: GPU time per kernel class
     (forward, backward preprocess / dK,dV / dQ kernels, NCCL, and the ring's own elementwise work: LSE merge,
     fp32 accumulation, conversions, fills), and from the kernel timeline the NCCL time that ran while a compute
     kernel ran (hidden) or alone (exposed), and the GPU's idle time.
Every row records ROCFLASH_KERNEL and the tile math the last forward / backward launch used (tensor cores "mma"
or "vector"). Sizes run ascending; every measurement is predicted from the last measured rate and skipped
(listed) when it does not fit the time left of --time-limit-s, so 256k and 512k can be asked for in one bounded
call:
    python3 perf/cp_gpu.py --seqlens 16384,131072,262144,524288 --compute-only-max 131072 \
        --one-gpu-max 131072 --profile-seqlens 65536 --time-limit-s 120
Small sizes (predicted ring time < 1 s) are timed over 3 repetitions after a warm-up; larger ones once, without
a warm-up when the ring is predicted over --no-warmup-over-s seconds (kernels and communicators are warm from
the smaller sizes; the first call at a size also pays the caching allocator's growth, well under 1 % there).
torch's context_parallel follows the same rule.
Writes cp.json and cp.txt into --out. Timings: wall clock between device synchronisations and barriers.
FLOPs (flash-attn's benchmark convention): forward 4·b·h·d·N²/2 for causal, backward 2.5x forward.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import socket
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))

for _var, _val in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ.setdefault(_var, _val)  # NVLink multicast stays off (device machines' rule)


def correctness_cases(backend: str, tiny: bool):
    from cp_check import Case, varlen_case
    if tiny:
        return [Case(32, causal=True, backend=backend), Case(30, causal=True, backend=backend, dtype="fp32"),
                Case(32, causal=False, backend=backend, nheads=4, nheads_k=1),
                Case(40, causal=False, backend=backend, window=(5, 3)),
                varlen_case((32, 8, 21), causal=True, backend=backend, nheads=4, nheads_k=2)]
    return [
        Case(4096, causal=True, batch=2, nheads=8, nheads_k=2, headdim=128, backend=backend),
        Case(4096, causal=False, batch=1, nheads=8, nheads_k=8, headdim=128, backend=backend, dtype="fp16"),
        Case(2048, causal=True, batch=1, nheads=8, nheads_k=1, headdim=64, backend=backend, softcap=30.0),
        Case(3001, causal=True, batch=1, nheads=4, nheads_k=2, headdim=128, backend=backend),  # padded
        Case(4096, causal=True, nheads=8, nheads_k=4, headdim=128, backend=backend, window=(1000, 0)),
        Case(2048, causal=False, nheads=4, nheads_k=4, headdim=96, backend=backend, window=(300, 129)),
        Case(1002, causal=False, backend=backend),  # does not divide: must be rejected
        # varlen: packed uneven sequences, each split in the zigzag layout (1001 padded at its end)
        varlen_case((3000, 1024, 4096), causal=True, nheads=8, nheads_k=2, headdim=128, backend=backend),
        varlen_case((2048, 520, 1500), causal=False, nheads=4, nheads_k=4, headdim=64, dtype="fp16",
                    window=(256, 64), backend=backend),
        varlen_case((1001, 2048), causal=True, nheads=4, nheads_k=1, headdim=128, backend=backend),
        # softmax_scale at the fused backward's 16-bit limit (50; at 100 the tensor-core backward itself left the
        # rule on the first case): D from the merged fp32 O (tests/test_parallel.py has the sim's version)
        Case(96, causal=False, nheads=2, nheads_k=2, headdim=128, dtype="fp16", softmax_scale=50.0, seed=1,
             backend=backend),
        Case(2048, causal=True, nheads=4, nheads_k=2, headdim=128, softmax_scale=50.0, seed=1, backend=backend),
        # deterministic=True: the dQ kernel instead of atomic dQ (the default above) in every block's backward
        Case(4096, causal=True, batch=2, nheads=8, nheads_k=2, headdim=128, deterministic=True, backend=backend),
    ]


def flops_fwd_bwd(batch, seqlen, nheads, headdim, causal=True):
    fwd = 4 * batch * nheads * headdim * seqlen * seqlen / (2 if causal else 1)
    return 3.5 * fwd


class _Timer:
    def __init__(self, device):
        self.device = device

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        dist.barrier()

    def __call__(self, fn, reps=1):
        self.sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        self.sync()
        return (time.perf_counter() - t0) / reps


def _mem_reset(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        return torch.cuda.memory_allocated(device)
    return 0


def _mem_peak(device, base):
    return torch.cuda.max_memory_allocated(device) - base if device.type == "cuda" else None


def speed(args, device, backend, log, save=lambda *_: None):
    from rocflash import flash_attn_func
    from rocflash.parallel import memory_model, ring_flash_attn_func, zigzag_shard
    from rocflash.backends import compiled
    from rocflash.parallel.ring import _check_args, _Exchange, _Kernels, _Ring, dense_plan, ring_backward, ring_forward

    world, rank = dist.get_world_size(), dist.get_rank()
    timer = _Timer(device)
    b, h, d = args.batch, args.nheads, args.headdim
    dtype = torch.bfloat16
    ring = _Ring(None)

    class NoCommRing(_Ring):  # the ring's schedule with the exchange replaced by a no-op: compute only
        def send_recv(self, tensors, tag):
            return _Exchange([], list(tensors))

    no_comm = NoCommRing(None)
    kernels = _Kernels(backend, deterministic=False)  # as ring_flash_attn_func's default (atomic dQ on cuda mma)
    results, skipped, results_profile = [], [], []
    # one GPU's memory for fwd+bwd of the whole sequence, bytes per element of q (batch x seqlen x nheads x
    # headdim), until a one-GPU run measures it: q k v dout out dq dk dv in bf16 (16 B), the fp32 O for D and the
    # atomic dQ's fp32 buffer (8 B), 8 B to spare (cp2 measured 28.2 at 128k)
    one_gpu_bytes_per_element = 32.0
    start = time.perf_counter()
    rate = {"ring": None, "compute": None, "one_gpu": None, "torch_cp": None}  # seconds per FLOP, measured

    def predicted_s(what, seqlen):
        """From the last measured rate of `what`; before its first measurement from the ring's (one GPU: world
        times it), before any from --assumed-tflops."""
        if rate[what] is not None:
            return rate[what] * flops_fwd_bwd(b, seqlen, h, d)
        if rate["ring"] is not None:
            return rate["ring"] * (world if what == "one_gpu" else 1) * flops_fwd_bwd(b, seqlen, h, d)
        per_flop = 1.0 / (args.assumed_tflops * 1e12 * (1 if what == "one_gpu" else world))
        return per_flop * flops_fwd_bwd(b, seqlen, h, d)

    def reps_for(seqlen, what="ring"):
        """(timed repetitions, warm-up calls): 3 after a warm-up where `what` is predicted under 1 s; else 1,
        after a warm-up only while predicted under --no-warmup-over-s."""
        t = predicted_s(what, seqlen)
        return (3, 1) if t < 1.0 else (1, 1 if t < args.no_warmup_over_s else 0)

    def fits(what, seqlen):
        """Predicted seconds of `what` at seqlen from the last measurement (quadratic), against the budget left."""
        left = args.time_limit_s - (time.perf_counter() - start)
        calls = sum(reps_for(seqlen, what if what in ("torch_cp", "one_gpu") else "ring"))
        predicted = predicted_s(what, seqlen) * calls
        ok = torch.tensor([1.0 if predicted < left else 0.0], device=device)  # NCCL: device tensors
        dist.broadcast(ok, 0)  # rank 0 decides, every rank follows
        if not ok.item():
            skip({"what": what, "seqlen": seqlen, "predicted_s": round(predicted, 2), "budget_left_s": round(left, 2),
                  "reason": f"predicted {predicted:.1f} s ({calls} call(s)) > {left:.1f} s left of --time-limit-s"})
        return bool(ok.item())

    def skip(entry):  # listed in cp.json and logged at once
        skipped.append(entry)
        log(f"  skipped {entry['what']} at seqlen {entry['seqlen']}: {entry.get('reason', '')}")

    # warm-up: communicators and kernels at a small size
    warm = 2 * world * 64
    g = torch.Generator().manual_seed(0)
    x = torch.randn(b, warm, h, d, generator=g).to(device, dtype)
    xs = zigzag_shard(x, None).requires_grad_()
    ring_flash_attn_func(xs, xs, xs, causal=True, backend=backend).sum().backward()

    for seqlen in args.profile_seqlens:
        if seqlen % (2 * world) == 0 and fits("ring", seqlen):
            try:
                rows = profile_ring(seqlen, b, h, d, dtype, device, backend, world)
            except Exception:  # noqa: BLE001 (the same code on every rank: all of them end up here)
                log(f"profile seqlen {seqlen} failed: {traceback.format_exc(limit=3)}")
                continue
            if rate["ring"] is None:  # the profiled call's wall time (an upper bound) predicts the first size
                rate["ring"] = max(r["wall_s"] for r in rows) / flops_fwd_bwd(b, seqlen, h, d)
            for r in rows:
                log(format_profile(r))
            results_profile.extend(rows)
            if device.type == "cuda":
                torch.cuda.empty_cache()

    for seqlen in args.seqlens:
        if seqlen % (2 * world):
            skip({"what": "all", "seqlen": seqlen, "reason": f"not a multiple of 2*world={2 * world}"})
            continue
        row = {"seqlen": seqlen, "batch": b, "nheads": h, "headdim": d, "dtype": "bf16", "causal": True,
               "world": world, "flops_fwd_bwd": flops_fwd_bwd(b, seqlen, h, d)}
        if not fits("ring", seqlen):
            break
        local = seqlen // world
        g = torch.Generator(device=device).manual_seed(seqlen + rank)
        q, k, v, dout = (torch.randn(b, local, h, d, device=device, dtype=dtype, generator=g) for _ in range(4))
        for t in (q, k, v):
            t.requires_grad_()
        base = _mem_reset(device)

        def ring_step():
            out = ring_flash_attn_func(q, k, v, causal=True, backend=backend)
            out.backward(dout)

        reps, warm = reps_for(seqlen)
        for _ in range(warm):
            ring_step()
        row["reps"], row["warmup"] = reps, warm
        row["ring_s"] = timer(ring_step, reps=reps)
        row["rocflash_kernel"] = compiled.kernel_choice() if backend in ("cuda", "hip") else None
        row["tile_math"] = compiled.last_kernels() if backend in ("cuda", "hip") else None
        row["deterministic"] = False  # ring_flash_attn_func's and flash_attn_func's default
        peak = _mem_peak(device, base)
        peaks = [None] * world
        dist.all_gather_object(peaks, peak)
        row["ring_peak_bytes_per_rank"] = peaks
        row["model_bytes"] = memory_model(b, local, h, h, d, dtype)
        row["ring_tflops"] = row["flops_fwd_bwd"] / row["ring_s"] / 1e12
        results.append(row)  # the row grows below; rank 0 rewrites cp.json after each measurement (save): a run
        save(results, skipped, results_profile)  # stopped by its time limit keeps what it measured
        rate["ring"] = row["ring_s"] / row["flops_fwd_bwd"]
        log(f"seqlen {seqlen}: ring on {world} ranks {row['ring_s']:.3f} s ({row['ring_tflops']:.1f} TFLOP/s; "
            f"{reps} rep(s) after {warm} warm-up; ROCFLASH_KERNEL={row['rocflash_kernel']} tile math "
            f"{row['tile_math']}), peak per rank {peaks}")

        # comm only: the exchanges of one fwd+bwd without compute: world-1 K/V hops in each pass, world hops of the
        # dK/dV accumulators (fp32; the last one, to their owners, in the inputs' dtype, as ring_backward sends it)
        with torch.no_grad():
            qd, kd, vd = q.detach(), k.detach(), v.detach()

            def comm_only():
                kv = (kd, vd)
                for _ in range(2 * (world - 1)):
                    kv = tuple(ring.send_recv(kv, 0).wait())
                dkv = tuple(torch.zeros(t.shape, dtype=torch.float32, device=device) for t in (kd, vd))
                for hop in range(world):
                    dkv = tuple(ring.send_recv(dkv if hop + 1 < world else [t.to(dtype) for t in dkv], 1).wait())

            row["comm_only_s"] = timer(comm_only, reps=3)
            row["comm_share"] = row["comm_only_s"] / row["ring_s"]
            if seqlen > args.compute_only_max:
                skip({"what": "compute", "seqlen": seqlen, "reason": f"> --compute-only-max {args.compute_only_max}"})
            elif fits("compute", seqlen):
                fa = _check_args(qd, kd, vd, True, None, (-1, -1), 0.0, None, False, False)
                plan = dense_plan(no_comm.rank, no_comm.world, True, local, local, fa)

                keep = kernels.reads_out_fp32(dtype)

                def compute_only():  # what _RingAttention runs, without the exchange
                    out, lse, *out32 = ring_forward(no_comm, kernels, qd, kd, vd, plan, keep_out_fp32=keep)
                    ring_backward(no_comm, kernels, qd, kd, vd, out, lse, dout, plan,
                                  out_fp32=out32[0] if keep else None)

                row["compute_only_s"] = timer(compute_only, reps=reps)
                rate["compute"] = row["compute_only_s"] / row["flops_fwd_bwd"]
                row.update(hidden_fraction(row["ring_s"], row["compute_only_s"], row["comm_only_s"]))
                log(f"  compute only {row['compute_only_s']:.4f} s, comm only {row['comm_only_s']:.4f} s "
                    f"({100 * row['comm_share']:.2f}% of the ring's time), exposed {row['exposed_comm_s']:+.4f} s, "
                    f"hidden fraction {row['comm_hidden_fraction']:.2f} (raw {row['comm_hidden_fraction_raw']:+.2f})")
        del q, k, v, dout

        # one GPU: the whole sequence on rank 0, where it fits in memory (estimated first) and in the time left
        elements = b * seqlen * h * d
        need = int(one_gpu_bytes_per_element * elements)
        if device.type == "cuda":
            torch.cuda.empty_cache()  # what the ring's run left in the caching allocator is free
        free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else float("inf")
        room = torch.tensor([1.0 if need < free else 0.0], device=device)
        dist.broadcast(room, 0)  # rank 0 runs it: its memory decides, every rank follows
        if seqlen > args.one_gpu_max:
            skip({"what": "one_gpu", "seqlen": seqlen, "reason": f"> --one-gpu-max {args.one_gpu_max}"})
        elif not room.item():
            skip({"what": "one_gpu", "seqlen": seqlen, "needs_bytes": need, "free_bytes": free,
                  "reason": f"needs ~{need / 2**30:.1f} GiB ({one_gpu_bytes_per_element:.1f} B per element of q), "
                            f"{free / 2**30:.1f} GiB free on rank 0"})
        elif fits("one_gpu", seqlen):
            log(f"  one GPU at seqlen {seqlen}: needs ~{need / 2**30:.1f} GiB of {free / 2**30:.1f} GiB free, "
                f"predicted {predicted_s('one_gpu', seqlen):.1f} s per call: run")
            t = None
            if rank == 0:
                g = torch.Generator(device=device).manual_seed(seqlen)
                q1, k1, v1, d1 = (torch.randn(b, seqlen, h, d, device=device, dtype=dtype, generator=g) for _ in range(4))
                for x1 in (q1, k1, v1):
                    x1.requires_grad_()
                base = _mem_reset(device)
                sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)

                def one_gpu():
                    flash_attn_func(q1, k1, v1, causal=True, backend=backend).backward(d1)
                    q1.grad = k1.grad = v1.grad = None

                reps1, warm1 = reps_for(seqlen, "one_gpu")
                try:  # an error here (out of memory: the estimate was wrong) is reported; rank 1 waits below
                    for _ in range(warm1):
                        one_gpu()
                    sync()
                    t0 = time.perf_counter()
                    for _ in range(reps1):
                        one_gpu()
                    sync()
                    t = (time.perf_counter() - t0) / reps1
                    row["one_gpu_peak_bytes"] = _mem_peak(device, base)
                    if row["one_gpu_peak_bytes"] is not None:  # measured: inputs (q k v dout) + peak beyond them
                        row["one_gpu_bytes_per_element"] = 4 * q1.element_size() + row["one_gpu_peak_bytes"] / elements
                    row["one_gpu_reps"], row["one_gpu_warmup"] = reps1, warm1
                except Exception as e:  # noqa: BLE001
                    row["one_gpu_error"] = f"{type(e).__name__}: {e}"[:500]
                del q1, k1, v1, d1
            box = [t, row.get("one_gpu_bytes_per_element"), row.get("one_gpu_error")]
            dist.broadcast_object_list(box, 0)
            if box[0] is None:
                row["one_gpu_error"] = box[2]
                log(f"  one GPU failed: {box[2]}")
            else:
                row["one_gpu_s"] = box[0]
                if box[1]:  # the next size's memory estimate: this one's, with 10 % to spare
                    one_gpu_bytes_per_element = 1.1 * box[1]
                rate["one_gpu"] = box[0] / row["flops_fwd_bwd"]
                row["speedup_vs_one_gpu"] = box[0] / row["ring_s"]
                log(f"  one GPU {box[0]:.3f} s: ring speedup {row['speedup_vs_one_gpu']:.2f}x on {world}")
            save(results, skipped, results_profile)

        # torch context_parallel + SDPA (flash) on the same ranks (after one GPU: where the budget ends within a
        # size, the figure never measured before goes first)
        if device.type == "cuda":
            torch.cuda.empty_cache()
        if device.type != "cuda":  # a baseline that cannot exist here is said so, not reported as failed
            row["torch_cp_unavailable"] = TORCH_CP_NOT_ON_CPU
        elif fits("torch_cp", seqlen):
            try:
                row.update(_torch_cp(seqlen, b, h, d, dtype, device, world, timer, *reps_for(seqlen, "torch_cp")))
                rate["torch_cp"] = row["torch_cp_s"] / row["flops_fwd_bwd"]
                save(results, skipped, results_profile)
                log(f"  torch context_parallel + SDPA {row['torch_cp_s']:.3f} s, peak per rank "
                    f"{row['torch_cp_peak_bytes_per_rank']}")
            except Exception as e:  # noqa: BLE001 (a baseline that does not run is reported, not fatal)
                row["torch_cp_error"] = f"{type(e).__name__}: {e}"[:500]
                log(f"  torch context_parallel failed: {row['torch_cp_error']}")
        if device.type == "cuda":
            torch.cuda.empty_cache()
    if results:
        log("per-rank peak memory of the ring fwd+bwd vs local_seqlen (bytes per local token, max over ranks; "
            "model = rocflash.parallel.memory_model total_peak): " + "; ".join(
                f"local {r['seqlen'] // world}: {max(p or 0 for p in r['ring_peak_bytes_per_rank']) / 2**30:.2f} GiB, "
                f"{max(p or 0 for p in r['ring_peak_bytes_per_rank']) / (r['seqlen'] // world):.0f} B/token "
                f"(model {r['model_bytes']['total_peak'] / (r['seqlen'] // world):.0f})" for r in results))
    return results, skipped, results_profile


def hidden_fraction(ring_s: float, compute_s: float, comm_s: float) -> dict:
    """Fraction of the exchange time hidden behind compute: 1 - (ring - compute_only) / comm_only.

    Raw: > 1 when the ring ran faster than compute-only (noise), < 0 when more than the whole exchange time
    showed up (noise, or costs the exchange-only run does not have: synchronisation, launch gaps). Clamped to
    [0, 1] for the headline; both are kept."""
    exposed = ring_s - compute_s
    raw = 1.0 - exposed / comm_s if comm_s > 0 else float("nan")
    return {"exposed_comm_s": exposed, "comm_hidden_fraction_raw": raw,
            "comm_hidden_fraction": min(1.0, max(0.0, raw)) if comm_s > 0 else None}


def _union(intervals):
    """Sorted disjoint (start, end) covering ``intervals``."""
    out = []
    for a, e in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([a, e])
    return out


def _overlap(a, b) -> float:
    """Total length of the intersection of two sorted disjoint interval lists."""
    i = j = 0
    total = 0.0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0.0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


KERNEL_CLASSES = (("fwd", "fmha_fwd"), ("bwd_preprocess", "fmha_bwd_preprocess"), ("bwd_dkdv", "fmha_bwd_dkdv"),
                  ("bwd_dq", "fmha_bwd_dq"), ("nccl", "nccl"))


def kernel_class(name: str) -> str:
    """The class of a GPU kernel by name: rocflash's attention kernels, NCCL, else "ring_other" (the ring's own
    elementwise work: LSE merge, fp32 accumulation, conversions, fills, copies)."""
    for cls, key in KERNEL_CLASSES:
        if key in name:
            return cls
    return "ring_other"


def summarize_kernels(kernels: list[tuple[str, float, float]], wall_s: float) -> dict:
    """From (name, start_us, duration_us) of one rank's GPU kernels: seconds per class, the top "ring_other"
    kernels, and from the timeline: NCCL time while a compute kernel ran (hidden) or not (exposed), idle time."""
    per_class: dict[str, float] = {}
    other: dict[str, float] = {}
    comm, compute = [], []
    for name, ts, dur in kernels:
        cls = kernel_class(name)
        per_class[cls] = per_class.get(cls, 0.0) + dur * 1e-6
        if cls == "ring_other":
            short = name[:90]
            other[short] = other.get(short, 0.0) + dur * 1e-6
        (comm if cls == "nccl" else compute).append((ts, ts + dur))
    comm_u, compute_u = _union(comm), _union(compute)
    comm_s = sum(e - a for a, e in comm_u) * 1e-6
    hidden_s = _overlap(comm_u, compute_u) * 1e-6
    busy = _union(comm + compute)
    span = (busy[-1][1] - busy[0][0]) * 1e-6 if busy else 0.0
    return {"wall_s": wall_s, "gpu_span_s": span, "gpu_busy_s": sum(e - a for a, e in busy) * 1e-6,
            "seconds_per_class": per_class, "nccl_active_s": comm_s, "nccl_hidden_s": hidden_s,
            "nccl_exposed_s": comm_s - hidden_s, "nccl_hidden_fraction": hidden_s / comm_s if comm_s else None,
            "top_ring_other": sorted(other.items(), key=lambda kv: -kv[1])[:6]}


def profile_ring(seqlen, b, h, d, dtype, device, backend, world) -> list[dict]:
    """One ring fwd+bwd at ``seqlen`` under torch.profiler (after one unprofiled call), every rank; the
    summaries of all ranks (summarize_kernels), gathered on every rank."""
    from torch.profiler import ProfilerActivity, profile
    from rocflash.parallel import ring_flash_attn_func

    rank = dist.get_rank()
    g = torch.Generator(device=device).manual_seed(seqlen + rank)
    local = seqlen // world
    q, k, v, dout = (torch.randn(b, local, h, d, device=device, dtype=dtype, generator=g) for _ in range(4))
    for t in (q, k, v):
        t.requires_grad_()

    def step():
        ring_flash_attn_func(q, k, v, causal=True, backend=backend).backward(dout)
        q.grad = k.grad = v.grad = None

    step()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    dist.barrier()
    with profile(activities=activities) as prof:
        t0 = time.perf_counter()
        step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        wall = time.perf_counter() - t0
    kernels = _device_activities(prof)
    summary = {"seqlen": seqlen, "rank": rank, "world": world, **summarize_kernels(kernels, wall)}
    everyone = [None] * world
    dist.all_gather_object(everyone, summary)
    del q, k, v, dout
    return everyone


def _device_activities(prof) -> list[tuple[str, float, float]]:
    """(name, start us, duration us) of every GPU activity (kernels, memcpy, memset) of a finished profile."""
    cuda = torch.autograd.DeviceType.CUDA
    try:
        return [(e.name(), e.start_ns() / 1e3, e.duration_ns() / 1e3) for e in prof.profiler.kineto_results.events()
                if e.device_type() == cuda]
    except AttributeError:  # older / newer profiler objects: the FunctionEvent view of the same activities
        return [(e.name, e.time_range.start, e.time_range.elapsed_us()) for e in prof.events()
                if e.device_type == cuda]


def format_profile(r: dict) -> str:
    cls = ", ".join(f"{c} {t:.4f}" for c, t in sorted(r["seconds_per_class"].items(), key=lambda kv: -kv[1]))
    frac = r["nccl_hidden_fraction"]
    hidden = f"hidden fraction {frac:.3f}" if frac is not None else "no NCCL kernel"
    top = "; ".join(f"{n} {t * 1e3:.2f} ms" for n, t in r["top_ring_other"])
    return (f"profile seqlen {r['seqlen']} rank {r['rank']}: wall {r['wall_s']:.4f} s, "
            f"GPU busy {r['gpu_busy_s']:.4f} s "
            f"of span {r['gpu_span_s']:.4f} s; kernel seconds: {cls}; NCCL active {r['nccl_active_s']:.4f} s, "
            f"hidden behind compute {r['nccl_hidden_s']:.4f} s, exposed {r['nccl_exposed_s']:.4f} s ({hidden}); "
            f"top ring_other: {top}")


# torch's context_parallel shards SDPA through DTensor, which has no sharding strategy for the CPU SDPA ops
# (NotImplementedError "... sharding strategy"): the baseline needs CUDA.
TORCH_CP_NOT_ON_CPU = "not available on CPU (torch context_parallel needs CUDA)"


def _torch_cp(seqlen, b, h, d, dtype, device, world, timer, reps=3, warm=1):
    """torch.distributed.tensor.experimental.context_parallel with SDPA's flash backend: fwd+bwd seconds."""
    import torch.nn.functional as F
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.experimental import context_parallel
    from torch.nn.attention import SDPBackend, sdpa_kernel

    mesh = init_device_mesh(device.type, (world,))
    g = torch.Generator(device=device).manual_seed(seqlen)
    q, k, v, dout = (torch.randn(b, h, seqlen, d, device=device, dtype=dtype, generator=g) for _ in range(4))
    sdpa = [SDPBackend.FLASH_ATTENTION]
    out_stats = {}
    with context_parallel(mesh, buffers=[q, k, v, dout], buffer_seq_dims=[2, 2, 2, 2],
                          no_restore_buffers={q, k, v, dout}):
        for t in (q, k, v):
            t.requires_grad_()
        base = _mem_reset(device)

        def step():
            with sdpa_kernel(sdpa):
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            out.backward(dout)

        for _ in range(warm):
            step()
        out_stats["torch_cp_s"] = timer(step, reps=reps)
        out_stats["torch_cp_reps"], out_stats["torch_cp_warmup"] = reps, warm
        peak = _mem_peak(device, base)
    peaks = [None] * world
    dist.all_gather_object(peaks, peak)
    out_stats["torch_cp_peak_bytes_per_rank"] = peaks
    out_stats["torch_cp_setup"] = "context_parallel defaults (head-tail load balancing, allgather K/V rotation), SDPA flash"
    return out_stats


def worker(rank, world, port, opts, queue):
    device = torch.device("cuda", rank) if opts.device == "cuda" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    else:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    from cp_check import process_group  # init, then a barrier before the teardown (gloo peer aborts)
    with process_group("nccl" if device.type == "cuda" else "gloo", port, rank, world,
                       timeout=datetime.timedelta(seconds=opts.timeout_s),
                       **({"device_id": device} if device.type == "cuda" else {})):
        _worker_body(rank, world, device, opts, queue)


def _worker_body(rank, world, device, opts, queue):
    """The stages on an initialised group (worker); rank 0 puts its report on queue."""
    lines = []

    def log(msg):  # rank 0: stdout and cp.txt, line by line (a run cut short keeps what it measured)
        if rank == 0:
            print(msg, flush=True)
            lines.append(msg)
            with open(os.path.join(opts.out, "cp.txt"), "a") as f:
                f.write(msg + "\n")

    report = {"world": world, "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
              "torch": torch.__version__}
    try:
        from cp_check import run_cases
        from rocflash.selector import select_backend
        backend = opts.backend or select_backend(device).backend
        report["backend"] = backend
        if device.type == "cuda":
            os.environ["ROCFLASH_POISON_OUTPUTS"] = "1"  # outputs start as NaN: an unwritten element fails
        t0 = time.perf_counter()
        if not opts.skip_correctness:
            correct = run_cases(correctness_cases(backend, opts.tiny), device)
            report["correctness"] = correct
            if rank == 0:
                for r in correct:
                    log(f"correctness {'PASS' if r['ok'] else 'FAIL'} {r['case']} "
                        f"{ {n: r[n] for n in ('out', 'dq', 'dk', 'dv') if n in r} } {r.get('error', '')}")
                log(f"correctness: {sum(r['ok'] for r in correct)}/{len(correct)} pass in "
                    f"{time.perf_counter() - t0:.1f} s")
        os.environ.pop("ROCFLASH_POISON_OUTPUTS", None)
        if not opts.skip_speed:
            def save(results, skipped, profile):
                if rank == 0:
                    _write_json(opts.out, {**report, "speed": results, "skipped": skipped, "profile": profile,
                                           "partial": True, "log": lines})

            report["speed"], report["skipped"], report["profile"] = speed(opts, device, backend, log, save)
    except Exception:  # noqa: BLE001
        report["error"] = traceback.format_exc()
        print(f"rank {rank}: {report['error']}", flush=True)
    if rank == 0:
        report["log"] = lines
        queue.put(report)


def _write_json(out_dir: str, report: dict) -> None:
    tmp = os.path.join(out_dir, "cp.json.tmp")
    with open(tmp, "w") as f:
        json.dump(report, f, indent=1, default=str)
    os.replace(tmp, os.path.join(out_dir, "cp.json"))


def summarize(paths: list[str], labels: list[str] | None = None) -> str:
    """Markdown of cp.json files (perf/cp_final_run.sh's stages): correctness counts, then one row per size:
    ring on world GPUs, torch context_parallel, one GPU (seconds, same process), skips and errors. ``labels``:
    the names the lines give the files (default: their paths; e.g. where the results are kept after a scratch
    directory is removed)."""
    lines, rows, notes = [], [], []
    if labels is not None and len(labels) != len(paths):
        raise ValueError(f"labels must name each of the {len(paths)} files, got {len(labels)}: {labels}")
    for path, label in zip(paths, labels or paths):
        try:
            with open(path) as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            lines.append(f"{label}: unreadable ({type(e).__name__}: {e})")
            continue
        if rep.get("correctness"):
            ok = sum(r["ok"] for r in rep["correctness"])
            lines.append(f"{label}: correctness {ok}/{len(rep['correctness'])} PASS on {rep.get('world')} ranks, "
                         f"backend {rep.get('backend')}, {rep.get('device')}")
            lines += [f"  FAIL {r['case']}: { {n: r[n] for n in ('out', 'dq', 'dk', 'dv') if n in r} } "
                      f"{r.get('error', '')}" for r in rep["correctness"] if not r["ok"]]
        rows += rep.get("speed") or []
        notes += [f"skipped {s['what']} at {s['seqlen']}: {s.get('reason', '')}" for s in rep.get("skipped") or []]
        for p in rep.get("profile") or []:
            frac = p.get("nccl_hidden_fraction")
            notes.append(f"profile {p['seqlen']} rank {p['rank']}: NCCL {p['nccl_active_s'] * 1e3:.1f} ms, hidden "
                         f"{'-' if frac is None else f'{frac:.2f}'}, wall {p['wall_s']:.3f} s")
        if rep.get("error"):
            notes.append(f"{label}: ERROR {rep['error'].strip().splitlines()[-1]}")
        if rep.get("partial"):
            notes.append(f"{label}: partial (the run stopped before its end)")

    def cell(row, key, fmt="{:.3f} s", error_key=None):
        if row.get(key) is not None:
            return fmt.format(row[key])
        if key == "torch_cp_s" and row.get("torch_cp_unavailable"):
            return row["torch_cp_unavailable"]
        return "failed" if error_key and row.get(error_key) else "not run"

    if rows:
        lines += ["", "| seqlen | ring, world GPUs | TFLOP/s | torch CP + SDPA | ring / torch CP | 1 GPU | ring speedup "
                  "| ring peak per rank (GiB) |", "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            peaks = " / ".join(f"{p / 2**30:.2f}" for p in r.get("ring_peak_bytes_per_rank") or [] if p)
            ratio = f"{r['ring_s'] / r['torch_cp_s']:.2f}x" if r.get("torch_cp_s") else "-"
            lines.append(f"| {r['seqlen']} | {cell(r, 'ring_s')} ({r['world']}) | {cell(r, 'ring_tflops', '{:.1f}')} | "
                         f"{cell(r, 'torch_cp_s', error_key='torch_cp_error')} | {ratio} | "
                         f"{cell(r, 'one_gpu_s', error_key='one_gpu_error')} | "
                         f"{cell(r, 'speedup_vs_one_gpu', '{:.2f}x')} | {peaks or '-'} |")
    return "\n".join(lines + [""] + notes)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu_out"))
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--nprocs", type=int, default=None, help="ranks (default: every visible GPU; 2 on CPU)")
    ap.add_argument("--backend", default=None, help="rocflash backend (default: probe: cuda/hip on GPUs, torch on CPU)")
    ap.add_argument("--seqlens", default=None, help="comma-separated (default 131072,262144,524288 on GPUs, 256,512 on CPU)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--nheads", type=int, default=32)
    ap.add_argument("--headdim", type=int, default=128)
    ap.add_argument("--time-limit-s", type=float, default=180.0, help="budget of the speed stage")
    ap.add_argument("--compute-only-max", type=int, default=1 << 30,
                    help="largest seqlen at which the compute-only ring (for the hidden fraction) is timed")
    ap.add_argument("--one-gpu-max", type=int, default=1 << 30, help="largest seqlen timed on one GPU")
    ap.add_argument("--profile-seqlens", default="",
                    help="comma-separated: one ring fwd+bwd under torch.profiler each")
    ap.add_argument("--no-warmup-over-s", type=float, default=4.0,
                    help="sizes whose ring (or torch CP) is predicted over this many seconds run without a warm-up")
    ap.add_argument("--assumed-tflops", type=float, default=None,
                    help="per-rank rate that predicts the first size (default 20 on GPUs, 0.01 on CPU)")
    ap.add_argument("--timeout-s", type=float, default=480.0, help="the whole run's limit (hung ranks are killed)")
    ap.add_argument("--tiny", action="store_true", help="small correctness cases (CPU logic check)")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-correctness", action="store_true", help="speed stage only")
    ap.add_argument("--summarize", nargs="+", metavar="CP_JSON",
                    help="print the correctness count and a speed table (markdown) of cp.json files, and exit")
    ap.add_argument("--labels", nargs="+", metavar="NAME",
                    help="with --summarize: the names its lines give the files (one per file; default their paths)")
    opts = ap.parse_args(argv)
    if opts.summarize:
        try:
            print(summarize(opts.summarize, opts.labels))
        except ValueError as e:  # --labels not one per file
            ap.error(str(e))
        return 0
    gpu = opts.device == "cuda"
    opts.seqlens = sorted(int(s) for s in (opts.seqlens or ("131072,262144,524288" if gpu else "256,512")).split(","))
    opts.profile_seqlens = [int(s) for s in opts.profile_seqlens.split(",") if s]
    opts.assumed_tflops = opts.assumed_tflops or (20.0 if gpu else 0.01)
    world = opts.nprocs or (torch.cuda.device_count() if opts.device == "cuda" else 2)
    if world < 2:
        print(f"cp_gpu: needs >= 2 ranks, got {world}", file=sys.stderr)
        return 2
    os.makedirs(opts.out, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    open(os.path.join(opts.out, "cp.txt"), "w").close()
    if os.path.exists(os.path.join(opts.out, "cp.json")):
        os.remove(os.path.join(opts.out, "cp.json"))  # only this run's sizes are merged into an error report
    queue = mp.get_context("spawn").SimpleQueue()
    procs = mp.start_processes(worker, args=(world, port, opts, queue), nprocs=world, join=False, start_method="spawn")
    deadline = time.monotonic() + opts.timeout_s
    try:
        while not procs.join(timeout=1):
            if time.monotonic() > deadline:
                raise TimeoutError(f"ranks still running after --timeout-s {opts.timeout_s}")
    except Exception as e:  # noqa: BLE001 (a rank died or hung: keep what was logged)
        for p in procs.processes:
            if p.is_alive():
                p.kill()
        report = {"error": f"{type(e).__name__}: {e}"}
    else:
        report = queue.get()
    if "error" in report and os.path.exists(os.path.join(opts.out, "cp.json")):
        with open(os.path.join(opts.out, "cp.json")) as f:  # the sizes measured before the ranks were stopped
            report = {**json.load(f), "error": report["error"]}
    _write_json(opts.out, report)
    if "error" in report:
        with open(os.path.join(opts.out, "cp.txt"), "a") as f:
            f.write(report["error"] + "\n")
    ok = "error" not in report and all(r["ok"] for r in report.get("correctness", []))
    print(f"cp_gpu: {'OK' if ok else 'FAILED'}; wrote {opts.out}/cp.json, cp.txt")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
