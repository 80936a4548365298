"""The gfx906 machine code on the emulator: a row whose every visible scaled score overflows float32 to -inf gives
NaN (issue 8, adv15's defect 2), a row that sees no key 0 / LSE -inf, the other rows exact (tests/test_score_overflow.py
for the problems and checks; there on sim and torch, tests/test_gpu_score_overflow.py on the H200's CUDA build).

The forward kernel (fp16 with softmax_scale > 0; fp32 with q.k past float32 and its backward from the forward's
statistics: the dQ kernel's statistics pass recomputes l = 0 and must give NaN too), the split-KV decode kernel with
one split (it writes NaN) and with several (the combine kernel), and the sbcast forward. Marked ``toolchain`` like
tests/test_emu_kernels.py. Functional semantics as the emulator reads the Vega ISA manual: no timing, not silicon.
"""
from __future__ import annotations

import pytest
import torch

from rocflash.backends import FwdArgs
from test_emu_kernels import _toolchain  # noqa: F401  (autouse: skip / fail without hipcc and clang++)
from test_score_overflow import check_grads, check_rows, overflow_problem

pytestmark = pytest.mark.toolchain


@pytest.mark.parametrize("how, dtype", [("pos", torch.float16), ("sum", torch.float32)])
def test_emulated_forward_and_backward(how, dtype):
    from rocflash.emu.driver import run_backward, run_forward

    q, k, v, dout, scale = overflow_problem(how, dtype, 40, 30, 2, 1, 32)
    out, lse, info = run_forward(q, k, v, softmax_scale=scale, window_right=0, with_stats=True)
    check_rows(out[0], lse[0], q[0], k[0], v[0], scale, f"emulated {info['kernel']}")
    if how == "sum":
        dq, dk, dv, binfo = run_backward(q, k, v, out, lse, dout, softmax_scale=scale, window_right=0,
                                         stats=info["softmax_stats"])
        check_grads(dq[0], dk[0], dv[0], q[0], k[0], dout[0], f"emulated {', '.join(binfo['kernels'])}")


@pytest.mark.parametrize("num_splits", [1, 3])
def test_emulated_splitkv(num_splits):
    from rocflash.emu.driver_varlen import run_forward_seq

    q, k, v, _, scale = overflow_problem("pos", torch.float16, 2, 150, 4, 1, 32)
    out, lse, info = run_forward_seq(q, k, v, FwdArgs(scale, -1, 0, 0.0, None), num_splits=num_splits)
    assert any("splitkv" in name for name in info["kernels"]) and info["num_splits"] == num_splits, info["kernels"]
    check_rows(out[0], lse[0], q[0], k[0], v[0], scale, f"emulated {info['kernels']}")


def test_emulated_sbcast():
    from rocflash.emu.driver_sbcast import run_forward_sbcast

    q, k, v, _, scale = overflow_problem("pos", torch.float16, 70, 66, 1, 1, 64)
    out, lse, _ = run_forward_sbcast(q, k, v, softmax_scale=scale, window_right=0)
    check_rows(out[0], lse[0], q[0], k[0], v[0], scale, "emulated sbcast")
