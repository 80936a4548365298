"""CPU time of the ``sim`` backend on the README example, against the loop-per-tile model it replaced.

    python perf/sim_speed.py [--threads N] [--repeat R] [--api]

Runs both in this process, alternating (tests/sim_slow_ref.py is the previous implementation), on
q (2, 1024, 16, 128), k/v (2, 1024, 4, 128) fp16, causal and not, forward (with the backward's statistics)
then backward. Prints process CPU seconds (all threads) and wall seconds per call. ``--api`` times the README
example as a user runs it instead: ``flash_attn_func(..., backend="sim")`` and ``.backward()`` through autograd,
q/k/v (2, 1024, 16, 128) fp16.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import torch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    ap.add_argument("--repeat", type=int, default=2, help="alternating runs of each version (default 2)")
    ap.add_argument("--api", action="store_true", help="time flash_attn_func(backend='sim') + autograd backward")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.api:
        return api(a)
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
    import sim_slow_ref as old
    from rocflash.backends import FwdArgs
    from rocflash.backends import sim as new

    g = torch.Generator().manual_seed(0)
    q, dout = (torch.randn(2, 1024, 16, 128, generator=g).half() for _ in range(2))
    k, v = (torch.randn(2, 1024, 4, 128, generator=g).half() for _ in range(2))
    for _ in range(a.repeat):
        for name, mod in (("loop model", old), ("vectorised", new)):
            for causal in (False, True):
                args = FwdArgs(128 ** -0.5, -1, 0 if causal else -1, 0.0, None)
                c0, w0 = time.process_time(), time.perf_counter()
                out, _, stats = mod.forward(q, k, v, args, with_stats=True)
                c1, w1 = time.process_time(), time.perf_counter()
                mod.backward(q, k, v, out, None, dout, args, stats=stats)
                c2, w2 = time.process_time(), time.perf_counter()
                print(f"{name:10s} causal={causal!s:5s} threads={a.threads}: forward cpu {c1 - c0:6.2f} s "
                      f"wall {w1 - w0:6.2f} s | backward cpu {c2 - c1:6.2f} s wall {w2 - w1:6.2f} s", flush=True)


def api(a) -> None:
    from rocflash import flash_attn_func

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 1024, 16, 128, generator=g).half().requires_grad_() for _ in range(3))
    for causal in (False, True):
        for _ in range(a.repeat):
            c0, w0 = time.process_time(), time.perf_counter()
            out = flash_attn_func(q, k, v, causal=causal, backend="sim")
            c1, w1 = time.process_time(), time.perf_counter()
            out.float().sum().backward()
            c2, w2 = time.process_time(), time.perf_counter()
            print(f"flash_attn_func(backend='sim') causal={causal!s:5s} threads={a.threads}: forward cpu {c1 - c0:6.2f} s "
                  f"wall {w1 - w0:6.2f} s | backward cpu {c2 - c1:6.2f} s wall {w2 - w1:6.2f} s", flush=True)


if __name__ == "__main__":
    main()
