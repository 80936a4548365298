"""Which keys each query row sees: the Python mirror of ``hip_src/fmha_mask.h``.

Convention (flash-attn >= 2.1, bottom-right aligned): query row ``i`` sees key ``j`` iff
``0 <= j < seqlen_k`` and ``i + seqlen_k - seqlen_q - left <= j <= i + seqlen_k - seqlen_q + right``,
a negative bound meaning unbounded; ``causal`` is ``right = 0``. For seqlen_q = 2, seqlen_k = 5::

    causal      keys 0 1 2 3 4
    row 0            x x x x .
    row 1            x x x x x

The tile functions reproduce the kernel's block-level decisions exactly (tests compare them with the C++
header through ``rocflash._probe``): which K/V tiles a block visits and which of them need a per-element mask.
"""

from __future__ import annotations

from dataclasses import dataclass

_UNBOUNDED = 1 << 62


@dataclass(frozen=True)
class MaskRule:
    seqlen_q: int
    seqlen_k: int
    window_left: int = -1  # < 0: unbounded
    window_right: int = -1  # < 0: unbounded; causal is 0

    def first_key(self, i: int) -> int:
        return -_UNBOUNDED if self.window_left < 0 else i + self.seqlen_k - self.seqlen_q - self.window_left

    def last_key(self, i: int) -> int:
        return _UNBOUNDED if self.window_right < 0 else i + self.seqlen_k - self.seqlen_q + self.window_right

    def visible(self, i: int, j: int) -> bool:
        return 0 <= j < self.seqlen_k and self.first_key(i) <= j <= self.last_key(i)

    def sees_any_key(self, i: int) -> bool:
        """Whether row i sees a key (hip_src/fmha_mask.h MaskRule::sees_any_key: the epilogues tell a row that sees
        no key (O 0, LSE -inf) from one whose visible scores all overflowed to -inf (NaN))."""
        return bool(self.sees_any_key_grid(i))  # the closed form works on ints too

    def sees_any_key_grid(self, rows):
        """Boolean tensor like ``rows`` (an index tensor) of :meth:`sees_any_key`, the closed form: a row
        0 <= i < seqlen_q sees a key iff seqlen_k > 0 and (window_right < 0 or i + seqlen_k - seqlen_q +
        window_right >= 0) (a left bound never empties a row: first_key(i) <= seqlen_k - 1 - window_left)."""
        ok = (rows >= 0) & (rows < self.seqlen_q) & (self.seqlen_k > 0)
        if self.window_right >= 0:
            ok = ok & (rows + self.seqlen_k - self.seqlen_q + self.window_right >= 0)
        return ok

    def visible_grid(self, rows, cols):
        """Boolean tensor (len(rows), len(cols)) of :meth:`visible` for index tensors ``rows`` and ``cols``
        (any torch device; works on anything with tensor operators, this module imports no torch)."""
        r, c = rows.reshape(-1, 1), cols.reshape(1, -1)
        ok = (c >= 0) & (c < self.seqlen_k) & (r == r)  # r == r: broadcast to the full grid
        if self.window_left >= 0:
            ok = ok & (c >= r + self.seqlen_k - self.seqlen_q - self.window_left)
        if self.window_right >= 0:
            ok = ok & (c <= r + self.seqlen_k - self.seqlen_q + self.window_right)
        return ok

    def key_tile_range(self, m_begin: int, m_end: int, block_n: int) -> tuple[int, int]:
        """K/V tiles ``[begin, end)`` that query rows ``[m_begin, m_end)`` (valid rows only) must visit."""
        first = max(self.first_key(m_begin), 0)
        last = min(self.last_key(m_end - 1), self.seqlen_k - 1)
        if m_end <= m_begin or first > last:
            return 0, 0
        return first // block_n, last // block_n + 1

    def query_tile_range(self, n_begin: int, n_end: int, block_m: int) -> tuple[int, int]:
        """Query tiles ``[begin, end)`` whose rows see a key of ``[n_begin, n_end)`` (valid keys only)."""
        diag = self.seqlen_k - self.seqlen_q
        first = 0 if self.window_right < 0 else max(n_begin - diag - self.window_right, 0)
        last = self.seqlen_q - 1 if self.window_left < 0 else min(n_end - 1 - diag + self.window_left, self.seqlen_q - 1)
        if n_end <= n_begin or first > last:
            return 0, 0
        return first // block_m, last // block_m + 1

    def tile_needs_mask(self, m_begin: int, m_end: int, n_begin: int, block_n: int) -> bool:
        """True when some (valid row, key) pair of the tile is masked: the tile runs the per-element predicate."""
        n_last = n_begin + block_n - 1
        return n_last >= self.seqlen_k or self.first_key(m_end - 1) > n_begin or self.last_key(m_begin) < n_last


def resolve_window(causal: bool, window_size: tuple[int, int]) -> tuple[int, int]:
    """flash-attn's (causal, window_size) -> (window_left, window_right) with -1 = unbounded."""
    left, right = window_size
    return left, 0 if causal else right
