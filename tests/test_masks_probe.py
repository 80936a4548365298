"""The Python mask mirror (rocflash/masks.py) against the kernel's own C++ (hip_src/fmha_mask.h), evaluated by
the host-side probe (rocflash/_probe): MaskRule::visible, key_tile_range, query_tile_range (the backward dK/dV
kernel's query tiles) and tile_needs_mask must agree on random (seqlen_q, seqlen_k, window_left, window_right,
block_m, block_n, m_begin / n_begin) cases, including unbounded windows (-1), seqlen 1 and windows larger than
the sequences.

Needs the host C++ compiler (c++/g++): without it the tests skip, except under CI=true where they fail.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rocflash.build import BuildError
from rocflash.masks import MaskRule


@pytest.fixture(scope="module")
def probe():
    from rocflash._probe import Probe

    try:
        return Probe.load()
    except BuildError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the host C++ compiler is missing ({e})")
        pytest.skip(f"the host C++ compiler is missing ({e})")


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# -1 = unbounded; small windows; windows far beyond any sequence here
window = st.one_of(st.just(-1), st.integers(0, 40), st.integers(1000, 5000))


@SETTINGS
@given(seqlen_q=st.integers(1, 40), seqlen_k=st.integers(1, 40), left=window, right=window)
@example(seqlen_q=1, seqlen_k=1, left=-1, right=-1)
@example(seqlen_q=1, seqlen_k=40, left=0, right=0)
@example(seqlen_q=40, seqlen_k=1, left=-1, right=0)
@example(seqlen_q=7, seqlen_k=3, left=5000, right=5000)
def test_visible_matches_cpp(probe, seqlen_q, seqlen_k, left, right):
    rule = MaskRule(seqlen_q, seqlen_k, left, right)
    for i in range(seqlen_q):
        for j in range(-2, seqlen_k + 2):  # keys outside [0, seqlen_k) are never visible
            assert rule.visible(i, j) == probe.visible(seqlen_q, seqlen_k, left, right, i, j), (i, j)


@SETTINGS
@given(seqlen_q=st.integers(1, 40), seqlen_k=st.integers(1, 40), left=window, right=window)
@example(seqlen_q=1, seqlen_k=1, left=-1, right=-1)
@example(seqlen_q=40, seqlen_k=1, left=-1, right=0)
@example(seqlen_q=7, seqlen_k=3, left=5000, right=5000)
@example(seqlen_q=3, seqlen_k=40, left=0, right=0)
def test_visible_key_span_matches_visible(probe, seqlen_q, seqlen_k, left, right):
    """The tensor-core backward's per-row key span (visible_key_span) is the visible set, rows past seqlen_q
    (tile padding) included: they see nothing."""
    rule = MaskRule(seqlen_q, seqlen_k, left, right)
    for i in range(seqlen_q + 3):
        lo, hi = probe.visible_key_span(seqlen_q, seqlen_k, left, right, i)
        for j in range(0, seqlen_k + 2):
            assert (lo <= j <= hi) == (i < seqlen_q and rule.visible(i, j)), (i, j, lo, hi)


@SETTINGS
@given(seqlen_q=st.integers(1, 40), seqlen_k=st.integers(0, 40), left=window, right=window)
@example(seqlen_q=1, seqlen_k=0, left=-1, right=-1)
@example(seqlen_q=40, seqlen_k=3, left=-1, right=0)
@example(seqlen_q=7, seqlen_k=3, left=5000, right=5000)
@example(seqlen_q=40, seqlen_k=3, left=0, right=2)
def test_sees_any_key_matches_visible(probe, seqlen_q, seqlen_k, left, right):
    """The epilogues' "does this row see a key" (MaskRule::sees_any_key, issue 8's overflow NaN: a row with l == 0
    that sees one is NaN, one that sees none 0 / -inf) is the visible set's, in C++ and in Python (closed form)."""
    import torch
    rule = MaskRule(seqlen_q, seqlen_k, left, right)
    grid = rule.sees_any_key_grid(torch.arange(-1, seqlen_q + 3))
    for i in range(-1, seqlen_q + 3):
        want = 0 <= i < seqlen_q and any(rule.visible(i, j) for j in range(seqlen_k))
        assert probe.sees_any_key(seqlen_q, seqlen_k, left, right, i) == want, (i, want)
        assert rule.sees_any_key(i) == want and bool(grid[i + 1]) == want, (i, want)


@st.composite
def tile_case(draw):
    seqlen_q = draw(st.one_of(st.just(1), st.integers(1, 4096)))
    seqlen_k = draw(st.one_of(st.just(1), st.integers(1, 4096)))
    left = draw(st.one_of(st.just(-1), st.integers(0, 300), st.integers(4096, 100000)))
    right = draw(st.one_of(st.just(-1), st.just(0), st.integers(0, 300), st.integers(4096, 100000)))
    block_m = draw(st.sampled_from([1, 2, 16, 32, 64, 128]) | st.integers(1, 200))
    block_n = draw(st.sampled_from([1, 2, 32, 64]) | st.integers(1, 200))
    m_begin = draw(st.integers(0, seqlen_q - 1))
    return seqlen_q, seqlen_k, left, right, block_m, block_n, m_begin


@SETTINGS
@given(case=tile_case())
@example(case=(1, 1, -1, -1, 64, 64, 0))
@example(case=(1, 1, 0, 0, 1, 1, 0))
@example(case=(128, 4096, -1, 0, 64, 64, 64))  # causal, seqlen_k > seqlen_q
@example(case=(4096, 128, -1, 0, 64, 64, 0))  # causal, seqlen_q > seqlen_k: early rows see nothing
@example(case=(100, 100, 100000, 100000, 64, 32, 64))  # windows larger than the sequences
def test_tile_functions_match_cpp(probe, case):
    seqlen_q, seqlen_k, left, right, block_m, block_n, m_begin = case
    rule = MaskRule(seqlen_q, seqlen_k, left, right)
    m_end = min(m_begin + block_m, seqlen_q)

    # Step 1: the K/V tiles this block visits
    tiles = rule.key_tile_range(m_begin, m_end, block_n)
    assert tiles == probe.key_tile_range(seqlen_q, seqlen_k, left, right, m_begin, m_end, block_n)

    # Step 2: which tiles need the per-element mask: every visited tile plus one on each side and the
    # first / last tile of the key range (capped so that block_n = 1 stays fast)
    n_tiles = -(-seqlen_k // block_n)
    candidates = set(range(max(tiles[0] - 1, 0), min(tiles[1] + 1, n_tiles)))
    candidates = sorted(candidates)[:64] + sorted(candidates)[-64:] + [0, n_tiles - 1]
    for t in set(candidates):
        n_begin = t * block_n
        assert rule.tile_needs_mask(m_begin, m_end, n_begin, block_n) == probe.tile_needs_mask(
            seqlen_q, seqlen_k, left, right, m_begin, m_end, n_begin, block_n), (t, n_begin)

    # Step 3: the tensor-core kernels' once-per-block form of step 2 (unmasked_tile_range) on every visited tile
    full = probe.unmasked_tile_range(seqlen_q, seqlen_k, left, right, m_begin, m_end, block_n)
    for t in list(range(tiles[0], tiles[1]))[:64] + list(range(tiles[0], tiles[1]))[-64:]:
        assert (not full[0] <= t < full[1]) == rule.tile_needs_mask(m_begin, m_end, t * block_n, block_n), (t, full)


@SETTINGS
@given(case=tile_case(), offs=st.lists(st.sampled_from([0, 8, 16, 24, 40, 56]), min_size=1, max_size=3))
@example(case=(128, 4096, -1, 0, 64, 64, 64), offs=[0, 8])
@example(case=(4096, 128, 0, 0, 16, 32, 96), offs=[24])
def test_row_span_matches_visible(probe, case, offs):
    """RowSpan (fmha_mask.h: the tensor-core kernels' int32 span per thread, and its per-tile form) against
    MaskRule::visible for rows row0 + off of a block and the keys of its tiles."""
    seqlen_q, seqlen_k, left, right, block_m, block_n, m_begin = case
    rule = MaskRule(seqlen_q, seqlen_k, left, right)
    tiles = rule.key_tile_range(m_begin, min(m_begin + block_m, seqlen_q), block_n)
    for t in sorted({tiles[0], tiles[1] - 1, (tiles[0] + tiles[1]) // 2}):
        n0 = t * block_n
        for off in offs:  # rows past seqlen_q too: the kernel evaluates its padding rows' spans as well
            for c in range(min(block_n, 80)):
                assert probe.row_span_visible(seqlen_q, seqlen_k, left, right, m_begin, off, n0, c) == \
                    (n0 + c < seqlen_k and rule.visible(m_begin + off, n0 + c)), (t, off, c)


@st.composite
def key_tile_case(draw):
    """A block of keys [n_begin, n_end) of a dK/dV block (n_end clipped to seqlen_k, as the kernel passes it)."""
    seqlen_q = draw(st.one_of(st.just(1), st.integers(1, 4096)))
    seqlen_k = draw(st.one_of(st.just(1), st.integers(1, 4096)))
    left = draw(st.one_of(st.just(-1), st.just(0), st.integers(0, 300), st.integers(4096, 100000)))
    right = draw(st.one_of(st.just(-1), st.just(0), st.integers(0, 300), st.integers(4096, 100000)))
    block_m = draw(st.sampled_from([1, 2, 8, 16, 32, 64]) | st.integers(1, 200))
    block_n = draw(st.sampled_from([1, 2, 16, 32, 64]) | st.integers(1, 200))
    n_begin = draw(st.integers(0, seqlen_k - 1))
    return seqlen_q, seqlen_k, left, right, block_m, block_n, n_begin


@SETTINGS
@given(case=key_tile_case())
@example(case=(1, 1, -1, -1, 64, 64, 0))
@example(case=(1, 1, 0, 0, 1, 1, 0))
@example(case=(128, 4096, -1, 0, 32, 64, 0))  # causal, seqlen_k > seqlen_q: the first keys are seen by every row
@example(case=(4096, 128, -1, 0, 32, 64, 64))  # causal, seqlen_q > seqlen_k
@example(case=(4096, 128, 0, 0, 16, 32, 96))  # a window of one key per row
@example(case=(100, 100, 100000, 100000, 64, 32, 64))  # windows larger than the sequences
def test_query_tile_range_matches_cpp(probe, case):
    seqlen_q, seqlen_k, left, right, block_m, block_n, n_begin = case
    rule = MaskRule(seqlen_q, seqlen_k, left, right)
    n_end = min(n_begin + block_n, seqlen_k)
    tiles = rule.query_tile_range(n_begin, n_end, block_m)
    assert tiles == probe.query_tile_range(seqlen_q, seqlen_k, left, right, n_begin, n_end, block_m)
    # the range is exact at tile granularity: its first and last tile hold a row that sees one of the keys
    # (checked by brute force on small cases), and an empty range means no row sees any of them
    if seqlen_q * (n_end - n_begin) <= 20000:
        rows = [i for i in range(seqlen_q) if any(rule.visible(i, j) for j in range(n_begin, n_end))]
        expected = (rows[0] // block_m, rows[-1] // block_m + 1) if rows else (0, 0)
        assert tiles == expected
