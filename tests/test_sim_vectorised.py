"""The vectorised ``sim`` backend is bit-for-bit the loop-per-block-and-tile model it replaced.

tests/sim_slow_ref.py is the previous implementation (one Python loop iteration per block and tile). Both
run on the same inputs over boundary shapes (partial tiles, sq < sk and sq > sk, empty blocks under windows),
masks, GQA, headdim buckets, dtypes, softcap, ALiBi, NaN/inf in keys some rows cannot see (the boundary
tiles' masked_product) and both backward inputs (stats, LSE); fp16, bf16 and fp32 outputs are compared bit by
bit (the raw bytes: -0.0 vs +0.0 and NaN payloads count), fp64 to 1e-13 (see assert_bitwise), and the traces
must record the same blocks and tiles.
"""

from __future__ import annotations

import pytest
import torch

import sim_slow_ref as slow
from rocflash.backends import sim
from conftest import fwd_args

_INT = {2: torch.int16, 4: torch.int32, 8: torch.int64}


def assert_bitwise(new, old, what):
    assert new.shape == old.shape and new.dtype == old.dtype, what
    if new.dtype == torch.float64:
        # fp64 (the gradcheck path, no kernel runs it): MKL's dgemm rounds differently for a strided tile (the
        # old loop's full tiles were views) and a contiguous one, so the products agree to a few ulp only
        torch.testing.assert_close(new, old, rtol=1e-13, atol=1e-13, equal_nan=True, msg=what)
        return
    a, b = new.contiguous(), old.contiguous()
    if a.is_floating_point():
        a, b = a.view(_INT[a.element_size()]), b.view(_INT[b.element_size()])
    diff = (a != b).sum().item()
    assert diff == 0, f"{what}: {diff} of {a.numel()} elements differ in their bits"


# (sq, sk, h, hk, d, dtype, causal, window, extra): extra = softcap / alibi / garbage keys
CASES = [
    (1, 1, 2, 1, 64, "fp16", False, (-1, -1), None),
    (17, 129, 2, 2, 64, "fp16", True, (-1, -1), None),
    (129, 17, 2, 1, 64, "bf16", True, (-1, -1), None),
    (200, 200, 4, 2, 32, "fp16", False, (-1, -1), None),
    (130, 70, 2, 2, 32, "fp32", False, (-1, -1), None),
    (150, 150, 2, 1, 59, "fp16", False, (8, 4), None),
    (30, 200, 4, 2, 128, "bf16", False, (5, 0), None),  # most key blocks seen by no row
    (257, 65, 2, 2, 256, "fp16", False, (-1, 3), None),
    (129, 129, 8, 2, 1, "fp32", True, (16, -1), None),
    (100, 100, 2, 2, 40, "fp64", True, (-1, -1), None),
    (128, 128, 2, 1, 64, "fp32", True, (-1, -1), None),
    (128, 192, 2, 2, 128, "fp32", False, (-1, -1), None),
    (128, 128, 2, 2, 128, "fp16", True, (-1, -1), None),
    (65, 129, 4, 2, 64, "fp16", True, (-1, -1), "softcap"),
    (129, 65, 4, 2, 64, "bf16", False, (-1, -1), "alibi"),
    (100, 100, 4, 4, 32, "fp32", False, (10, 10), "both"),
    (70, 90, 2, 1, 64, "fp32", True, (-1, -1), "alibi"),  # the fp64-shifted score with ALiBi's term (eco12)
    (100, 100, 2, 2, 64, "fp16", True, (-1, -1), "garbage"),
    (150, 150, 2, 1, 32, "fp16", False, (8, 4), "garbage"),
    (40, 100, 2, 2, 32, "bf16", True, (-1, -1), "garbage"),
]
DT = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64}


def _ids(c):
    return f"sq{c[0]}-sk{c[1]}-h{c[2]}/{c[3]}-d{c[4]}-{c[5]}-causal{int(c[6])}-w{c[7][0]},{c[7][1]}-{c[8]}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_bitwise_equal_to_loop_model(case):
    sq, sk, h, hk, d, dtype, causal, window, extra = case
    g = torch.Generator().manual_seed(sq * 1000 + sk)
    q, k, v, dout = (torch.randn(2, s, n, d, generator=g, dtype=torch.float64).to(DT[dtype])
                     for s, n in ((sq, h), (sk, hk), (sk, hk), (sq, h)))
    softcap = 5.0 if extra in ("softcap", "both") else 0.0
    slopes = torch.rand(2, h, generator=g) * 0.3 if extra in ("alibi", "both") else None
    if extra == "garbage":  # keys at tile edges that some rows of a boundary tile cannot see
        for j in (0, sk // 2, sk - 1):
            k[:, j, 0], v[:, j, -1] = float("nan"), float("inf")
    args = fwd_args(d, causal, window, softcap, slopes)
    t_new, t_old = sim.SimTrace(), slow.SimTrace()
    new = sim.forward(q, k, v, args, trace=t_new, with_stats=True)
    old = slow.forward(q, k, v, args, trace=t_old, with_stats=True)
    assert (t_new.config, t_new.blocks) == (t_old.config, t_old.blocks)
    for name, a, b in zip(("out", "lse", "stats"), new, old):
        assert_bitwise(a, b, f"forward {name}")
    out, lse, stats = old
    tb_new, tb_old = sim.SimTrace(), slow.SimTrace()
    grads_new = sim.backward(q, k, v, out, None, dout, args, trace=tb_new, stats=stats)
    grads_old = slow.backward(q, k, v, out, None, dout, args, trace=tb_old, stats=stats)
    assert (tb_new.config, tb_new.blocks) == (tb_old.config, tb_old.blocks)
    for name, a, b in zip(("dq", "dk", "dv"), grads_new, grads_old):
        assert_bitwise(a, b, f"backward (stats) {name}")
    if extra is None or extra == "garbage":  # split-KV partials (one split's key tiles, unrounded O and LSE)
        n_tiles = -(-sk // t_old.config.block_n)
        for tiles in ((0, (n_tiles + 1) // 2), ((n_tiles + 1) // 2, n_tiles)):
            t_new, t_old = sim.SimTrace(), slow.SimTrace()
            new = sim.forward(q, k, v, args, trace=t_new, key_tiles=tiles)
            old = slow.forward(q, k, v, args, trace=t_old, key_tiles=tiles)
            assert t_new.blocks == t_old.blocks
            for name, a, b in zip(("split out", "split lse"), new, old):
                assert_bitwise(a, b, f"forward key_tiles={tiles} {name}")
    if extra in (None, "alibi", "both"):  # the LSE path (P = exp2(S2 - LSE log2 e); fp32: the forward's score, eco15;
        # with softcap the cap's argument from the fp64 sum, eco16)
        for name, a, b in zip(("dq", "dk", "dv"), sim.backward(q, k, v, out, lse, dout, args),
                              slow.backward(q, k, v, out, lse, dout, args)):
            assert_bitwise(a, b, f"backward (lse) {name}")
