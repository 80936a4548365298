"""Semantics of the vector ALU instructions our gfx906 kernels use, as typed numpy functions.

Each entry: mnemonic (without the _e32/_e64/_sdwa/_dpp encoding suffix) -> (destination type, source
types, function). Functions take and return numpy values of the named types, one element per lane.
Sources, per the Vega ISA (AMD, "Vega" Instruction Set Architecture Reference Guide, 2017):
  12.7 "VOP2 Instructions", 12.8 "VOP1 Instructions", 12.12 "VOP3A & VOP3B Instructions" (definitions as
  formulas, e.g. ``D.u = S0.u + S1.u``), 6.4 "Denormalized and Rounding Modes". Where the Vega text is a
  one-line formula, edge cases (NaN, infinities, zero signs, overflow) follow AMD's pseudocode for the
  same gfx9 instructions in the CDNA3 ISA reference guide (section "Instructions", per opcode).
Readings worth stating (no timing, no hardware check behind any of them):
  * V_EXP_F32 / V_LOG_F32 / V_RCP_F32 are approximations on silicon (1 ULP); here 2^x, log2 x and 1/x are
    computed in float64 and rounded once. Their denormal inputs/outputs are flushed to zero of the same sign
    (LLVM's lowering scales around these instructions for exactly that reason).
  * V_MAC_F32 / V_MAD_F32 are not fused: round(round(a*b) + c). V_FMA_F32 / V_FMAC_F32 are fused.
  * V_DOT2_F32_F16 ``D = S0.f16[0]*S1.f16[0] + S0.f16[1]*S1.f16[1] + S2.f32`` (Vega 12.12) with one
    rounding: products and sum in float64 (exact products of fp16, denormals kept), then float32.
"""

from __future__ import annotations

import numpy as np

from .fp import (F16, F32, F64, U16, U32, U64, exponent32, f32_to_i32, f32_to_u32, flush32, fma_f32,  # noqa: F401
                 fma_f64,
                 is_denorm32, max_f32, min_f32)

I32, I64 = np.int32, np.int64


def _i32(x):
    return np.asarray(x).astype(I32)


def _u32(x):
    return np.asarray(x).astype(U32)


def _sh5(x):
    return np.asarray(x, dtype=U32) & U32(31)


def _f32(x):
    return np.asarray(x, dtype=F32)


def _mul_hi_u32(a, b):
    return _u32((np.asarray(a, U64) * np.asarray(b, U64)) >> U64(32))


def _mul_hi_i32(a, b):
    return _u32((np.asarray(a, I64) * np.asarray(b, I64)) >> I64(32))


def _mul_lo_u32(a, b):
    return _u32((np.asarray(a, U64) * np.asarray(b, U64)) & U64(0xFFFFFFFF))


def _u24(x):
    return np.asarray(x, U64) & U64(0xFFFFFF)


def _ffbh_u32(a):
    a = np.asarray(a, U32)
    r = np.full(a.shape, 0xFFFFFFFF, dtype=U32)
    nz = a != 0
    lz = 31 - np.floor(np.log2(np.where(nz, a, 1).astype(F64))).astype(np.int64)
    return np.where(nz, lz.astype(U32), r)


def _ffbh_i32(a):
    a = np.asarray(a, U32)
    flipped = np.where((a >> U32(31)) != 0, ~a, a)  # count from the MSB to the first bit != the sign bit
    lz = _ffbh_u32(flipped)
    return np.where(flipped == 0, U32(0xFFFFFFFF), lz)


def _ffbl_b32(a):
    a = np.asarray(a, U32)
    low = a & (~a + U32(1))
    r = np.floor(np.log2(np.where(a != 0, low, 1).astype(F64))).astype(U32)
    return np.where(a != 0, r, U32(0xFFFFFFFF))


def _bfrev(a):
    a = np.asarray(a, U32)
    b = np.unpackbits(np.atleast_1d(a).view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
    r = np.packbits(b[:, ::-1], axis=1, bitorder="little").view(U32).reshape(-1)
    return r.reshape(a.shape)


def _bcnt(a):
    a = np.asarray(a, U32)
    return np.unpackbits(np.atleast_1d(a).view(np.uint8)).reshape(-1, 32).sum(1).astype(U32).reshape(a.shape)


def _bfe_u32(a, off, width):
    off, width = _sh5(off), _sh5(width)
    mask = ((U64(1) << width.astype(U64)) - U64(1)).astype(U32)
    return (np.asarray(a, U32) >> off) & mask


def _bfe_i32(a, off, width):
    off, width = _sh5(off).astype(I64), _sh5(width).astype(I64)
    v = (np.asarray(a, U32).astype(I64) >> off) & ((1 << width) - 1)
    sign = (v >> np.maximum(width - 1, 0)) & 1
    v = np.where((width > 0) & (sign != 0), v - (1 << width), v)
    return np.where(width == 0, 0, v).astype(I32)


def _alignbit(a, b, s):
    v = (np.asarray(a, U64) << U64(32)) | np.asarray(b, U64)
    return _u32((v >> (np.asarray(s, U64) & U64(31))) & U64(0xFFFFFFFF))


def _exp_f32(x):
    x = flush32(_f32(x))
    with np.errstate(all="ignore"):
        r = np.exp2(x.astype(F64)).astype(F32)
    return flush32(r)


def _log_f32(x):
    x = flush32(_f32(x))
    with np.errstate(all="ignore"):
        r = np.log2(x.astype(F64)).astype(F32)
    return np.where(x == 0, F32(-np.inf), r).astype(F32)


def _rcp_f32(x):
    x = flush32(_f32(x))
    with np.errstate(all="ignore"):
        r = (1.0 / x.astype(F64)).astype(F32)
    return flush32(r)


def _rsq_f32(x):
    x = flush32(_f32(x))
    with np.errstate(all="ignore"):
        r = (1.0 / np.sqrt(x.astype(F64))).astype(F32)
    return flush32(r)


def _sqrt_f32(x):
    with np.errstate(all="ignore"):
        return np.sqrt(_f32(x)).astype(F32)


def _ldexp_f32(x, e):
    e = np.clip(np.asarray(e).astype(I64), -1000, 1000)
    with np.errstate(all="ignore"):
        return np.ldexp(_f32(x), e.astype(np.int32)).astype(F32)


def _mad_f32(a, b, c):
    with np.errstate(all="ignore"):
        return (_f32(a) * _f32(b)).astype(F32) + _f32(c)


def _med3_f32(a, b, c):
    return max_f32(min_f32(a, b), min_f32(max_f32(a, b), c))


def _div_fixup_f32(q, d, n):
    """V_DIV_FIXUP_F32 (S0 quotient, S1 denominator, S2 numerator): the special cases of n / d."""
    q, d, n = _f32(q), _f32(d), _f32(n)
    sign = ((d.view(U32) ^ n.view(U32)) & U32(0x80000000)) != 0
    inf = np.where(sign, F32(-np.inf), F32(np.inf))
    zero = np.where(sign, F32(-0.0), F32(0.0))
    qnan = F32(np.nan)
    conds = [np.isnan(n), np.isnan(d), (d == 0) & (n == 0), np.isinf(d) & np.isinf(n),
             (d == 0) | np.isinf(n), np.isinf(d) | (n == 0)]
    vals = [n, d, np.full_like(q, qnan), np.full_like(q, qnan), inf, zero]
    absq = np.abs(q)
    default = np.where(sign, -absq, absq)
    with np.errstate(all="ignore"):
        r = np.select(conds, vals, default)
    return np.where(np.isnan(r), F32(np.nan), r).astype(F32)


def _div_scale_f32(s0, s1, s2):
    """V_DIV_SCALE_F32 (S0 value to scale, S1 denominator, S2 numerator) -> (D, VCC bit per lane)."""
    s0, s1, s2 = _f32(s0), _f32(s1), _f32(s2)
    e1, e2 = exponent32(s1), exponent32(s2)
    with np.errstate(all="ignore"):
        q = (s2 / s1).astype(F32)
    up = np.ldexp(s0, 64).astype(F32)
    zero = (s2 == 0) | (s1 == 0)
    near_max = ~zero & (e2 - e1 >= 96)
    den_denorm = ~zero & ~near_max & is_denorm32(s1)
    q_denorm = ~zero & ~near_max & ~den_denorm & is_denorm32(q)
    tiny_num = ~zero & ~near_max & ~den_denorm & ~q_denorm & (e2 <= 23)
    d = s0.copy() if s0.ndim else np.full(np.broadcast(s0, s1, s2).shape, s0, dtype=F32)
    d = np.broadcast_to(d, np.broadcast(s0, s1, s2).shape).copy()
    d = np.where(zero, F32(np.nan), d)
    d = np.where(near_max & (s0 == s1), up, d)
    d = np.where(den_denorm, up, d)
    d = np.where(q_denorm & (s0 == s2), up, d)
    d = np.where(tiny_num, up, d)
    vcc = near_max | q_denorm
    return d.astype(F32), vcc


def _div_fmas_f32(a, b, c, vcc):
    """V_DIV_FMAS_F32: fma(a, b, c), on VCC lanes rescaled by 2^64 or 2^-64 after V_DIV_SCALE_F32 scaled the
    denominator up (quotient near FLT_MAX: c, the scaled quotient, >= 1) or the numerator up (subnormal quotient:
    c < 1): exponent(c) >= 127 selects 2^64. A fixed 2^32 (before eco16) left a subnormal n / d 2^96 too large
    (cap_scale = 1e-38 / 5 came out 1.6e-10); tests/test_emu.py test_div_sequence_subnormal_and_huge_quotients.
    On VCC lanes the fma is formed in fp64 (a * b exact) and rounded once to float32 after the scale."""
    r = fma_f32(a, b, c)
    scale = np.where(exponent32(c) >= 127, 2.0 ** 64, 2.0 ** -64)
    with np.errstate(all="ignore"):
        wide = (_f32(a).astype(F64) * _f32(b).astype(F64) + _f32(c).astype(F64)) * scale
        return np.where(vcc, wide.astype(F32), r).astype(F32)


def _cvt_f16_f32(x):
    with np.errstate(all="ignore"):
        return _f32(x).astype(F16)


def _cvt_f32_f64(x):
    with np.errstate(all="ignore"):
        return np.asarray(x, dtype=F64).astype(F32)


def _sel(b):
    return b


# name -> (dst type, src types, fn). Types: b32/u32 (raw), i32, f32, f16, u16, b64/u64, i64, f64.
VOP: dict[str, tuple[str, tuple[str, ...], object]] = {
    # VOP1 (Vega 12.8)
    "v_mov_b32": ("b32", ("b32",), _sel),
    "v_not_b32": ("b32", ("b32",), lambda a: ~np.asarray(a, U32)),
    "v_bfrev_b32": ("b32", ("b32",), _bfrev),
    "v_ffbh_u32": ("u32", ("u32",), _ffbh_u32),
    "v_ffbh_i32": ("u32", ("u32",), _ffbh_i32),
    "v_ffbl_b32": ("u32", ("u32",), _ffbl_b32),
    "v_cvt_f32_i32": ("f32", ("i32",), lambda a: np.asarray(a, I64).astype(F32)),
    "v_cvt_f32_u32": ("f32", ("u32",), lambda a: np.asarray(a, U64).astype(F32)),
    "v_cvt_u32_f32": ("u32", ("f32",), f32_to_u32),
    "v_cvt_i32_f32": ("i32", ("f32",), f32_to_i32),
    "v_cvt_f16_f32": ("f16", ("f32",), _cvt_f16_f32),
    "v_cvt_f32_f16": ("f32", ("f16",), lambda a: np.asarray(a, F16).astype(F32)),
    # fp64 (Vega 12.8 / 12.12): exact widening; narrowing rounds to nearest even, fp32 denormals kept
    "v_cvt_f64_f32": ("f64", ("f32",), lambda a: np.asarray(a, F32).astype(F64)),
    "v_cvt_f32_f64": ("f32", ("f64",), _cvt_f32_f64),
    "v_trunc_f32": ("f32", ("f32",), lambda a: np.trunc(_f32(a))),
    "v_floor_f32": ("f32", ("f32",), lambda a: np.floor(_f32(a))),
    "v_ceil_f32": ("f32", ("f32",), lambda a: np.ceil(_f32(a))),
    "v_rndne_f32": ("f32", ("f32",), lambda a: np.rint(_f32(a))),
    "v_fract_f32": ("f32", ("f32",), lambda a: (_f32(a) - np.floor(_f32(a))).astype(F32)),
    "v_exp_f32": ("f32", ("f32",), _exp_f32),
    "v_log_f32": ("f32", ("f32",), _log_f32),
    "v_rcp_f32": ("f32", ("f32",), _rcp_f32),
    "v_rcp_iflag_f32": ("f32", ("f32",), _rcp_f32),
    "v_rsq_f32": ("f32", ("f32",), _rsq_f32),
    "v_sqrt_f32": ("f32", ("f32",), _sqrt_f32),
    # VOP2 (Vega 12.7)
    "v_add_f32": ("f32", ("f32", "f32"), lambda a, b: _f32(a) + _f32(b)),
    "v_sub_f32": ("f32", ("f32", "f32"), lambda a, b: _f32(a) - _f32(b)),
    "v_subrev_f32": ("f32", ("f32", "f32"), lambda a, b: _f32(b) - _f32(a)),
    "v_mul_f32": ("f32", ("f32", "f32"), lambda a, b: _f32(a) * _f32(b)),
    "v_max_f32": ("f32", ("f32", "f32"), max_f32),
    "v_min_f32": ("f32", ("f32", "f32"), min_f32),
    "v_ldexp_f32": ("f32", ("f32", "i32"), _ldexp_f32),
    "v_add_u32": ("u32", ("u32", "u32"), lambda a, b: _u32(np.asarray(a, U64) + np.asarray(b, U64))),
    "v_sub_u32": ("u32", ("u32", "u32"), lambda a, b: _u32(np.asarray(a, I64) - np.asarray(b, I64))),
    "v_subrev_u32": ("u32", ("u32", "u32"), lambda a, b: _u32(np.asarray(b, I64) - np.asarray(a, I64))),
    "v_mul_lo_u32": ("u32", ("u32", "u32"), _mul_lo_u32),
    "v_mul_hi_u32": ("u32", ("u32", "u32"), _mul_hi_u32),
    "v_mul_hi_i32": ("u32", ("i32", "i32"), _mul_hi_i32),
    "v_mul_u32_u24": ("u32", ("u32", "u32"), lambda a, b: _u32((_u24(a) * _u24(b)) & U64(0xFFFFFFFF))),
    "v_mul_hi_u32_u24": ("u32", ("u32", "u32"), lambda a, b: _u32((_u24(a) * _u24(b)) >> U64(32))),
    "v_min_u32": ("u32", ("u32", "u32"), np.minimum),
    "v_max_u32": ("u32", ("u32", "u32"), np.maximum),
    "v_min_i32": ("i32", ("i32", "i32"), np.minimum),
    "v_max_i32": ("i32", ("i32", "i32"), np.maximum),
    "v_and_b32": ("b32", ("b32", "b32"), lambda a, b: np.asarray(a, U32) & np.asarray(b, U32)),
    "v_or_b32": ("b32", ("b32", "b32"), lambda a, b: np.asarray(a, U32) | np.asarray(b, U32)),
    "v_xor_b32": ("b32", ("b32", "b32"), lambda a, b: np.asarray(a, U32) ^ np.asarray(b, U32)),
    "v_lshlrev_b32": ("b32", ("u32", "b32"), lambda s, a: np.asarray(a, U32) << _sh5(s)),
    "v_lshrrev_b32": ("b32", ("u32", "b32"), lambda s, a: np.asarray(a, U32) >> _sh5(s)),
    "v_ashrrev_i32": ("i32", ("u32", "i32"), lambda s, a: np.asarray(a, I32) >> _sh5(s).astype(I32)),
    "v_bcnt_u32_b32": ("u32", ("b32", "u32"), lambda a, b: _u32(_bcnt(a).astype(U64) + np.asarray(b, U64))),
    # VOP3-only (Vega 12.12)
    "v_fma_f32": ("f32", ("f32", "f32", "f32"), fma_f32),
    "v_fma_f64": ("f64", ("f64", "f64", "f64"), fma_f64),
    # one IEEE rounding to float64 each (numpy's float64 + and *): the fp32 backward's shifted score, x = S * c - m
    # (hip_src/fmha_common.h ScoreTransform::shifted_log2; the subtraction is v_add_f64 with a neg modifier)
    "v_add_f64": ("f64", ("f64", "f64"), lambda a, b: np.asarray(a, F64) + np.asarray(b, F64)),
    "v_mul_f64": ("f64", ("f64", "f64"), lambda a, b: np.asarray(a, F64) * np.asarray(b, F64)),
    "v_mad_f32": ("f32", ("f32", "f32", "f32"), _mad_f32),
    "v_max3_f32": ("f32", ("f32", "f32", "f32"), lambda a, b, c: max_f32(max_f32(a, b), c)),
    "v_min3_f32": ("f32", ("f32", "f32", "f32"), lambda a, b, c: min_f32(min_f32(a, b), c)),
    "v_med3_f32": ("f32", ("f32", "f32", "f32"), _med3_f32),
    "v_div_fixup_f32": ("f32", ("f32", "f32", "f32"), _div_fixup_f32),
    "v_add3_u32": ("u32", ("u32", "u32", "u32"),
                   lambda a, b, c: _u32(np.asarray(a, U64) + np.asarray(b, U64) + np.asarray(c, U64))),
    "v_lshl_add_u32": ("u32", ("u32", "u32", "u32"),
                       lambda a, s, c: _u32((np.asarray(a, U32) << _sh5(s)).astype(U64) + np.asarray(c, U64))),
    "v_add_lshl_u32": ("u32", ("u32", "u32", "u32"),
                       lambda a, b, s: _u32(np.asarray(a, U64) + np.asarray(b, U64)) << _sh5(s)),
    "v_lshl_or_b32": ("b32", ("b32", "u32", "b32"), lambda a, s, c: (np.asarray(a, U32) << _sh5(s)) | np.asarray(c, U32)),
    "v_and_or_b32": ("b32", ("b32", "b32", "b32"),
                     lambda a, b, c: (np.asarray(a, U32) & np.asarray(b, U32)) | np.asarray(c, U32)),
    "v_or3_b32": ("b32", ("b32", "b32", "b32"),
                  lambda a, b, c: np.asarray(a, U32) | np.asarray(b, U32) | np.asarray(c, U32)),
    "v_xad_u32": ("u32", ("u32", "u32", "u32"),
                  lambda a, b, c: _u32((np.asarray(a, U32) ^ np.asarray(b, U32)).astype(U64) + np.asarray(c, U64))),
    "v_mad_u32_u24": ("u32", ("u32", "u32", "u32"),
                      lambda a, b, c: _u32((_u24(a) * _u24(b) + np.asarray(c, U64)) & U64(0xFFFFFFFF))),
    "v_bfe_u32": ("u32", ("u32", "u32", "u32"), _bfe_u32),
    "v_bfe_i32": ("i32", ("u32", "u32", "u32"), _bfe_i32),
    "v_bfi_b32": ("b32", ("b32", "b32", "b32"),
                  lambda m, a, b: (np.asarray(m, U32) & np.asarray(a, U32)) | (~np.asarray(m, U32) & np.asarray(b, U32))),
    "v_alignbit_b32": ("b32", ("b32", "b32", "u32"), _alignbit),
    "v_min3_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_u32": ("u32", ("u32", "u32", "u32"), lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_min3_i32": ("i32", ("i32", "i32", "i32"), lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_i32": ("i32", ("i32", "i32", "i32"), lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_lshlrev_b64": ("b64", ("u32", "b64"), lambda s, a: np.asarray(a, U64) << (np.asarray(s, U64) & U64(63))),
    "v_lshrrev_b64": ("b64", ("u32", "b64"), lambda s, a: np.asarray(a, U64) >> (np.asarray(s, U64) & U64(63))),
    "v_ashrrev_i64": ("i64", ("u32", "i64"), lambda s, a: np.asarray(a, I64) >> (np.asarray(s, I64) & 63)),
    "v_pack_b32_f16": ("b32", ("f16", "f16"),
                       lambda a, b: np.asarray(a, F16).view(U16).astype(U32)
                       | (np.asarray(b, F16).view(U16).astype(U32) << U32(16))),
}

# Accumulating forms: D = op(S0, S1, D) (the destination is the third source).
ACCUMULATE = {"v_fmac_f32": "v_fma_f32", "v_mac_f32": "v_mad_f32"}

# Comparisons (VOPC, Vega 12.9): suffix -> predicate on (a, b); NaN semantics of the "n*" forms.
CMP_FLOAT = {
    "f": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    "lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "lg": lambda a, b: (a < b) | (a > b), "ge": lambda a, b: a >= b,
    "o": lambda a, b: ~np.isnan(a) & ~np.isnan(b), "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)), "ngt": lambda a, b: ~(a > b),
    "nle": lambda a, b: ~(a <= b), "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b),
    "tru": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
}
CMP_INT = {
    "f": CMP_FLOAT["f"], "lt": CMP_FLOAT["lt"], "eq": CMP_FLOAT["eq"], "le": CMP_FLOAT["le"],
    "gt": CMP_FLOAT["gt"], "ne": lambda a, b: a != b, "lg": lambda a, b: a != b, "ge": CMP_FLOAT["ge"],
    "t": CMP_FLOAT["tru"],
}
CMP_TYPES = {"f32": "f32", "f16": "f16", "f64": "f64", "i32": "i32", "u32": "u32", "i64": "i64", "u64": "u64",
             "i16": "i16", "u16": "u16"}


def cmp_class_f32(x, mask):
    """V_CMP_CLASS_F32: bit k of S1 selects class k (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denorm, 5 -0,
    6 +0, 7 +denorm, 8 +normal, 9 +inf)."""
    x = _f32(x)
    bits = x.view(U32)
    neg = (bits >> U32(31)) != 0
    cls = np.select(
        [np.isnan(x) & ((bits & U32(0x400000)) == 0), np.isnan(x), np.isinf(x), exponent32(x) > 0, x != 0],
        [0, 1, np.where(neg, 2, 9), np.where(neg, 3, 8), np.where(neg, 4, 7)], np.where(neg, 5, 6))
    return ((np.asarray(mask, U32) >> cls.astype(U32)) & U32(1)) != 0
