"""Floating-point helpers of the emulator (numpy, vectorised over lanes).

The wave's float mode is what our kernels' descriptors declare (``.amdhsa_float_denorm_mode_32 3``,
``..._16_64 3``, ``.amdhsa_ieee_mode 1``, round to nearest even): fp32 and fp16 denormals are kept, which
numpy's IEEE arithmetic does. Where an instruction's definition is a formula with one rounding (FMA), the
exact result is computed in float64 and rounded once (see :func:`fma_f32`).
"""

from __future__ import annotations

import numpy as np

F16, F32, F64 = np.float16, np.float32, np.float64
U16, U32, U64 = np.uint16, np.uint32, np.uint64
F32_MIN_NORMAL = np.float32(2.0 ** -126)


def round64_to_f32(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """Round ``s + err`` (s float64, err its exact float64 remainder, |err| <= ulp(s)/2) to float32 once.

    Converting s alone could round twice (to float64, then to float32) and so be wrong when s is an exact
    float32 midpoint; then the sign of ``err`` decides the direction.
    """
    s = np.asarray(s, dtype=F64)
    r = s.astype(F32)
    r64 = r.astype(F64)
    toward = np.where(s > r64, F32(np.inf), F32(-np.inf))
    other = np.nextafter(r, toward)
    mid = (r64 + other.astype(F64)) * 0.5
    fix = np.isfinite(s) & (s == mid) & (r64 != s) & (err != 0)
    if np.any(fix):
        lo = np.minimum(r, other)
        hi = np.maximum(r, other)
        r = np.where(fix, np.where(err > 0, hi, lo), r)
    return r.astype(F32)


def fma_f32(a, b, c) -> np.ndarray:
    """a * b + c with a single rounding to float32 (IEEE fusedMultiplyAdd; Vega ISA V_FMA_F32)."""
    p = np.asarray(a, dtype=F64) * np.asarray(b, dtype=F64)  # exact: 24 + 24 bits < 53
    c64 = np.asarray(c, dtype=F64)
    s = p + c64
    # Converting s to float32 is already the single rounding unless s sits exactly on a float32 midpoint
    # (low 29 mantissa bits 1000...0) or in the float32 denormal range: only then take the exact path.
    mid = (np.asarray(s).view(U64) & U64(0x1FFFFFFF)) == U64(0x10000000)
    tiny = (np.abs(s) < 2.0 ** -125) & (s != 0)
    if not (np.any(mid) or np.any(tiny)):
        return s.astype(F32)
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)  # TwoSum: s + err == p + c exactly (finite case)
    err = np.where(np.isfinite(err), err, 0.0)
    if not np.any((err != 0) & (mid | tiny)):
        return s.astype(F32)  # the float64 sum is exact: one rounding
    return round64_to_f32(s, err)


def fma_f64(a, b, c) -> np.ndarray:
    """a * b + c with a single rounding to float64 (IEEE fusedMultiplyAdd; Vega ISA V_FMA_F64).

    Where the product is exact in float64 (both factors float32 values widened, as our kernels' fp32 scores
    give them: 24 + 24 bits < 53, no overflow or underflow; or a factor zero or not finite), numpy's p + c is the
    one rounding. Other lanes are computed exactly with rationals (Python's int division rounds correctly)."""
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype=F64) for x in (a, b, c)))  # an inline constant is 0-d
    with np.errstate(all="ignore"):
        p = a * b
        r = p + c
        narrow = lambda x: (x.astype(F32).astype(F64) == x) | ~np.isfinite(x) | (x == 0)
        slow = ~(narrow(a) & narrow(b)) & np.isfinite(c)
    if not np.any(slow):
        return r
    from fractions import Fraction
    r = np.array(r, dtype=F64, copy=True)
    for i in zip(*np.nonzero(slow)):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        try:
            r[i] = exact.numerator / exact.denominator  # correctly rounded; an exact 0 is +0 (RNE)
        except OverflowError:
            r[i] = np.inf if exact > 0 else -np.inf
    return r


def is_denorm32(x: np.ndarray) -> np.ndarray:
    return (np.abs(x) < F32_MIN_NORMAL) & (x != 0)


def flush32(x: np.ndarray) -> np.ndarray:
    """Denormal float32 values -> zero of the same sign."""
    x = np.asarray(x, dtype=F32)
    return np.where(is_denorm32(x), np.copysign(F32(0), x), x).astype(F32)


def exponent32(x: np.ndarray) -> np.ndarray:
    """The biased exponent field of float32 values (the manual's ``exponent()``)."""
    return ((np.asarray(x, dtype=F32).view(U32) >> U32(23)) & U32(0xFF)).astype(np.int32)


def max_f32(a, b) -> np.ndarray:
    """V_MAX_F32 in IEEE mode: a NaN input gives the other input (a signalling NaN is quieted); +0 > -0."""
    a = np.asarray(a, dtype=F32)
    b = np.asarray(b, dtype=F32)
    r = np.where(a >= b, a, b)
    r = np.where(np.isnan(a), b, np.where(np.isnan(b), a, r))
    zeros = (a == 0) & (b == 0)
    if np.any(zeros):
        r = np.where(zeros, (a.view(U32) & b.view(U32)).view(F32), r)
    return _quiet_snan(a, b, r)


def min_f32(a, b) -> np.ndarray:
    """V_MIN_F32 in IEEE mode: as :func:`max_f32`, with -0 < +0."""
    a = np.asarray(a, dtype=F32)
    b = np.asarray(b, dtype=F32)
    r = np.where(a <= b, a, b)
    r = np.where(np.isnan(a), b, np.where(np.isnan(b), a, r))
    zeros = (a == 0) & (b == 0)
    if np.any(zeros):
        r = np.where(zeros, (a.view(U32) | b.view(U32)).view(F32), r)
    return _quiet_snan(a, b, r)


def _quiet_snan(a, b, r):
    ab, bb = a.view(U32), b.view(U32)
    snan_a = np.isnan(a) & ((ab & U32(0x400000)) == 0)
    snan_b = np.isnan(b) & ((bb & U32(0x400000)) == 0)
    if np.any(snan_a) or np.any(snan_b):
        r = np.where(snan_a, (ab | U32(0x400000)).view(F32), np.where(snan_b, (bb | U32(0x400000)).view(F32), r))
    return np.asarray(r, dtype=F32)


def f32_to_u32(x) -> np.ndarray:
    """V_CVT_U32_F32: truncate toward zero, clamp to [0, 2^32 - 1], NaN -> 0."""
    x = np.asarray(x, dtype=F64)
    r = np.clip(np.trunc(np.nan_to_num(x, nan=0.0)), 0, 4294967295.0)
    return r.astype(U32)


def f32_to_i32(x) -> np.ndarray:
    """V_CVT_I32_F32: truncate toward zero, clamp to the int32 range, NaN -> 0."""
    x = np.asarray(x, dtype=F64)
    r = np.clip(np.trunc(np.nan_to_num(x, nan=0.0)), -2147483648.0, 2147483647.0)
    return r.astype(np.int64).astype(np.int32)


def f16_bits_to_f32(bits) -> np.ndarray:
    return (np.asarray(bits, dtype=U32) & U32(0xFFFF)).astype(U16).view(F16).astype(F32)


def f32_to_f16_bits(x) -> np.ndarray:
    """Round to nearest even, overflow to inf (``.amdhsa_fp16_overflow 0``), denormals kept."""
    return np.asarray(x, dtype=F32).astype(F16).view(U16).astype(U32)
