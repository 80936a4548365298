"""FLOP and byte models of one attention call, and the roofline bound.

Conventions (the same as the Triton fused-attention tutorial and FlashAttention's benchmarks):

- Forward FLOP = 4 * batch * nheads * pairs * headdim: two GEMMs (S = Q.K^T and O = P.V), each one multiply
  and one add per (query row, key, headdim element). ``pairs`` is the exact number of unmasked
  (query row, key) pairs, counted per query row (a fully masked row counts 0). Softmax and masking FLOPs
  are not counted.
- Backward FLOP = 2.5 * forward FLOP (five GEMMs against the forward's two); a forward+backward step is
  therefore 3.5 * forward FLOP.
- Bytes = the minimum HBM traffic of a fused kernel: every input element read once, every output written
  once. Forward: read Q and the K/V rows that at least one query row can see, write O and the fp32 LSE.
  Backward: read Q, K, V (visible rows), O, dO and LSE; write dQ, dK, dV (full size).

Masks follow flash-attn (shared/reference/facts.md section 1): causal and sliding windows are aligned to
the bottom-right corner, query row i sees key j iff
``i + seqlen_k - seqlen_q - left <= j <= i + seqlen_k - seqlen_q + right`` (-1 = unbounded; causal is
right = 0).
"""

from __future__ import annotations

import torch

BWD_FLOP_FACTOR = 2.5
"""Backward FLOP as a multiple of the forward's (Triton tutorial 06, FlashAttention-2 paper section 4)."""

LSE_BYTES = 4  # the softmax log-sum-exp is float32 per (batch, head, query row)

DIRECTIONS = ("fwd", "fwd+bwd")


def row_bounds(seqlen_q: int, seqlen_k: int, window_left: int = -1, window_right: int = -1):
    """Visible key range of every query row.

    Returns (lo, hi, count): int64 tensors of shape (seqlen_q,); row i sees keys lo[i]..hi[i] inclusive and
    count[i] = max(0, hi[i] - lo[i] + 1) of them (0 for a fully masked row, whose lo/hi are meaningless).
    """
    _check_window(window_left, window_right)
    i = torch.arange(seqlen_q, dtype=torch.int64)
    diag = i + (seqlen_k - seqlen_q)  # the key aligned with row i (bottom-right)
    lo = (diag - window_left).clamp(min=0) if window_left >= 0 else torch.zeros_like(i)
    hi = (diag + window_right).clamp(max=seqlen_k - 1) if window_right >= 0 else torch.full_like(i, seqlen_k - 1)
    count = (hi - lo + 1).clamp(min=0)
    return lo, hi, count


def visible_pairs(seqlen_q: int, seqlen_k: int, window_left: int = -1, window_right: int = -1) -> int:
    """Number of (query row, key) pairs that are not masked, exact for any seqlen_q, seqlen_k and window.

    Examples: no mask -> seqlen_q * seqlen_k; causal (right=0) with seqlen_q == seqlen_k == n -> n(n+1)/2;
    causal with seqlen_q=2, seqlen_k=5 -> 4 + 5 = 9.
    """
    if seqlen_q <= 0 or seqlen_k <= 0:
        return 0
    if window_left < 0 and window_right < 0:
        _check_window(window_left, window_right)
        return seqlen_q * seqlen_k
    return int(row_bounds(seqlen_q, seqlen_k, window_left, window_right)[2].sum())


def visible_keys(seqlen_q: int, seqlen_k: int, window_left: int = -1, window_right: int = -1) -> int:
    """Number of keys that at least one query row can see (the K/V rows a fused kernel must read).

    The visible ranges of consecutive rows overlap or touch (each bound moves by at most one key per row),
    so their union is one interval.
    """
    if seqlen_q <= 0 or seqlen_k <= 0:
        return 0
    if window_left < 0 and window_right < 0:
        _check_window(window_left, window_right)
        return seqlen_k
    lo, hi, count = row_bounds(seqlen_q, seqlen_k, window_left, window_right)
    seen = count > 0
    if not bool(seen.any()):
        return 0
    return int(hi[seen].max() - lo[seen].min() + 1)


def attention_flops(batch: int, nheads: int, seqlen_q: int, seqlen_k: int, headdim: int,
                    window_left: int = -1, window_right: int = -1, direction: str = "fwd") -> float:
    """FLOP of one call: 4 * batch * nheads * visible_pairs * headdim, times 3.5 for "fwd+bwd"."""
    _check_direction(direction)
    fwd = 4.0 * batch * nheads * visible_pairs(seqlen_q, seqlen_k, window_left, window_right) * headdim
    return fwd * (1.0 + BWD_FLOP_FACTOR) if direction == "fwd+bwd" else fwd


def attention_bytes(batch: int, nheads: int, nheads_k: int, seqlen_q: int, seqlen_k: int, headdim: int,
                    elem_bytes: int, window_left: int = -1, window_right: int = -1,
                    direction: str = "fwd") -> int:
    """Bytes moved by one call of an ideal fused kernel (each tensor read or written exactly once).

    elem_bytes: bytes per element of Q, K, V, O (2 for fp16/bf16, 4 for fp32); LSE is float32.
    Forward: Q + K_visible + V_visible (read) + O + LSE (written).
    "fwd+bwd": the forward's bytes plus Q + K_visible + V_visible + O + dO + LSE (read) + dQ + dK + dV (written).
    """
    _check_direction(direction)
    q = batch * seqlen_q * nheads * headdim * elem_bytes
    kv_visible = batch * visible_keys(seqlen_q, seqlen_k, window_left, window_right) * nheads_k * headdim * elem_bytes
    kv_full = batch * seqlen_k * nheads_k * headdim * elem_bytes
    o = q
    lse = batch * nheads * seqlen_q * LSE_BYTES
    fwd = q + 2 * kv_visible + o + lse
    if direction == "fwd":
        return fwd
    bwd_read = q + 2 * kv_visible + o + o + lse  # Q, K, V, O, dO, LSE
    bwd_write = q + 2 * kv_full  # dQ, dK, dV
    return fwd + bwd_read + bwd_write


def intensity(flop: float, nbytes: float) -> float:
    """Arithmetic intensity in FLOP per byte."""
    return flop / nbytes if nbytes else float("inf")


def roofline(flop_intensity: float, peak_tflops: float | None, peak_tbps: float | None):
    """(ridge point FLOP/byte, bound, attainable TFLOP/s) of the classic roofline model (Williams et al.,
    CACM 2009): attainable = min(peak FLOP/s, intensity * peak bandwidth); the kernel is "memory" bound
    below the ridge point peak_flops / peak_bandwidth and "compute" bound at or above it. None without
    both peaks."""
    if not peak_tflops or not peak_tbps:
        return None, None, None
    ridge = peak_tflops / peak_tbps  # TFLOP/s over TB/s = FLOP/byte
    bound = "compute" if flop_intensity >= ridge else "memory"
    return ridge, bound, min(peak_tflops, flop_intensity * peak_tbps)


def _check_window(left: int, right: int) -> None:
    for name, w in (("window_left", left), ("window_right", right)):
        if not isinstance(w, int) or isinstance(w, bool) or w < -1:
            raise ValueError(f"{name} must be an int >= -1 (-1 = unbounded), got {w!r}")


def _check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
