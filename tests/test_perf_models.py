"""rocflash.perf.models: exact unmasked-pair counts, FLOP and byte models, roofline bound."""

from __future__ import annotations

import itertools

import pytest

from rocflash.perf import models
from rocflash.perf.cases import Case


def brute_visible(sq, sk, left, right):
    """The mask rule of shared/reference/facts.md section 1, element by element (small sizes only)."""
    out = []
    for i in range(sq):
        diag = i + sk - sq
        out.append([j for j in range(sk)
                    if (left < 0 or j >= diag - left) and (right < 0 or j <= diag + right)])
    return out


SIZES = [(1, 1), (1, 7), (7, 1), (5, 5), (2, 5), (5, 2), (13, 40), (40, 13), (1, 64), (33, 33)]
WINDOWS = [(-1, -1), (-1, 0), (0, 0), (3, -1), (3, 0), (0, 2), (4, 6), (-1, 5), (100, 0), (0, 100)]


@pytest.mark.parametrize("sq,sk", SIZES)
@pytest.mark.parametrize("left,right", WINDOWS)
def test_pairs_and_keys_match_brute_force(sq, sk, left, right):
    rows = brute_visible(sq, sk, left, right)
    assert models.visible_pairs(sq, sk, left, right) == sum(len(r) for r in rows)
    seen = set(itertools.chain.from_iterable(rows))
    assert models.visible_keys(sq, sk, left, right) == len(seen)
    _, _, count = models.row_bounds(sq, sk, left, right)
    assert count.tolist() == [len(r) for r in rows]


def test_closed_forms():
    n = 4096
    assert models.visible_pairs(n, n) == n * n
    assert models.visible_pairs(n, n, -1, 0) == n * (n + 1) // 2
    # bottom-right causal, seqlen_q=2, seqlen_k=5: row 0 sees keys 0-3, row 1 sees 0-4 (the docstring picture)
    assert models.visible_pairs(2, 5, -1, 0) == 9
    # seqlen_q > seqlen_k: rows 0-2 fully masked (count 0), rows 3, 4 see 1 and 2 keys
    assert models.visible_pairs(5, 2, -1, 0) == 3
    assert models.row_bounds(5, 2, -1, 0)[2].tolist() == [0, 0, 0, 1, 2]
    # decode with a window: one query row sees left + 1 keys, and only those keys are read
    assert models.visible_pairs(1, 1000, 127, 0) == 128
    assert models.visible_keys(1, 1000, 127, 0) == 128
    # sliding window on a square problem: sum over rows of min(i, left) + 1
    assert models.visible_pairs(10, 10, 2, 0) == sum(min(i, 2) + 1 for i in range(10))


def test_large_causal_is_fast_and_exact():
    n = 1 << 20  # vectorised per row, not an O(N^2) loop
    assert models.visible_pairs(n, n, -1, 0) == n * (n + 1) // 2
    assert models.visible_pairs(n // 2, n, -1, 0) == sum_range(n // 2 + 1, n)


def sum_range(a, b):
    return (a + b) * (b - a + 1) // 2


def test_flops_issue2_case():
    # batch 4, 32 heads, 4096 x 4096, headdim 128: 4 * B * H * N^2 * D
    assert models.attention_flops(4, 32, 4096, 4096, 128) == 4 * 4 * 32 * 4096 * 4096 * 128
    causal = models.attention_flops(4, 32, 4096, 4096, 128, -1, 0)
    assert causal == 4 * 4 * 32 * (4096 * 4097 // 2) * 128
    assert models.attention_flops(4, 32, 4096, 4096, 128, direction="fwd+bwd") == pytest.approx(
        3.5 * 4 * 4 * 32 * 4096 * 4096 * 128)
    assert models.BWD_FLOP_FACTOR == 2.5


def test_bytes_forward():
    # fp16: Q, K, V, O each 4*4096*32*128*2 bytes, plus the fp32 LSE 4*32*4096*4
    t = 4 * 4096 * 32 * 128 * 2
    assert models.attention_bytes(4, 32, 32, 4096, 4096, 128, 2) == 4 * t + 4 * 32 * 4096 * 4
    # decode GQA: K/V have nheads_k heads
    b, hq, hk, sk, d = 8, 32, 8, 16384, 128
    q = b * 1 * hq * d * 2
    kv = b * sk * hk * d * 2
    assert models.attention_bytes(b, hq, hk, 1, sk, d, 2) == q + 2 * kv + q + b * hq * 4
    # a window reads only the visible keys
    full = models.attention_bytes(1, 1, 1, 1, 1000, 64, 2)
    win = models.attention_bytes(1, 1, 1, 1, 1000, 64, 2, 99, 0)
    assert full - win == 2 * (1000 - 100) * 64 * 2


def test_bytes_fwd_bwd():
    b, h, s, d, e = 2, 4, 128, 64, 2
    t = b * s * h * d * e
    lse = b * h * s * 4
    fwd = 4 * t + lse
    bwd = (t + 2 * t + t + t + lse) + 3 * t  # read Q K V O dO LSE, write dQ dK dV
    assert models.attention_bytes(b, h, h, s, s, d, e, direction="fwd+bwd") == fwd + bwd


def test_case_uses_models():
    c = Case(batch=2, seqlen_q=40, seqlen_k=100, nheads=4, nheads_k=2, headdim=32, dtype="bf16", causal=True)
    assert c.flop == models.attention_flops(2, 4, 40, 100, 32, -1, 0)
    assert c.bytes == models.attention_bytes(2, 4, 2, 40, 100, 32, 2, -1, 0)
    assert c.case_id == "b2_h4-2_q40_k100_d32_bf16_causal_fwd"


def test_roofline():
    ridge, bound, att = models.roofline(10.0, 26.5, 1.024)
    assert ridge == pytest.approx(26.5 / 1.024)
    assert bound == "memory" and att == pytest.approx(10.24)
    assert models.roofline(1000.0, 26.5, 1.024)[1:] == ("compute", 26.5)
    assert models.roofline(10.0, None, 1.0) == (None, None, None)
    assert models.intensity(100.0, 0) == float("inf")


@pytest.mark.parametrize("call,pattern", [
    (lambda: models.visible_pairs(4, 4, -2, 0), r"window_left must be an int >= -1 \(-1 = unbounded\), got -2"),
    (lambda: models.visible_keys(4, 4, 0, 1.5), r"window_right must be an int >= -1 .*got 1.5"),
    (lambda: models.attention_flops(1, 1, 1, 1, 1, direction="bwd"),
     r"direction must be one of fwd, fwd\+bwd, got 'bwd'"),
])
def test_errors(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_empty_and_fully_masked_rows():
    assert models.visible_pairs(0, 10) == 0
    assert models.visible_keys(3, 0, -1, 0) == 0
    # seqlen_q > seqlen_k causal: only the last row sees a key; masked rows add no pairs and no keys
    assert models.visible_pairs(5, 1, -1, 0) == 1
    assert models.visible_keys(5, 1, -1, 0) == 1
