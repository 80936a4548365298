// fmha_elem.h - element types of Q, K, V, O and the arithmetic on packed 32-bit words of them.
//
// Data moves through registers and LDS as raw 32-bit words (uint4 = one 128-bit vector). A word holds
// two 16-bit elements (fp16, bf16; the lower address in the low half) or one fp32 element. Inner products
// always accumulate in fp32:
//   fp16  v_dot2_f32_f16 (gfx906 and later; __builtin_amdgcn_fdot2): two products and the fp32
//         accumulate in one instruction (AMD Vega 7nm ISA reference, "VOP3P instructions"). The CUDA
//         build converts the pair to float2 and issues two FMAs.
//   bf16  widened to fp32 by a 16-bit shift (bf16 is the upper half of an fp32), two fp32 FMAs
//   fp32  one fp32 FMA per word (the score and dP products S = Q.K^T, dP = dO.V^T accumulate fp32 inputs
//         in fp64 instead: fmha_tile_math.h tile_rowdot_fp64)
#pragma once

#include "fmha_fwd_params.h"
#include "rf_vendor.h"

namespace rf {

struct Fp16 {
  static constexpr DType kDType = DType::kFp16;
  static constexpr int kBytes = 2;
  static constexpr int kPerWord = 2;
};
struct Bf16 {
  static constexpr DType kDType = DType::kBf16;
  static constexpr int kBytes = 2;
  static constexpr int kPerWord = 2;
};
struct Fp32 {
  static constexpr DType kDType = DType::kFp32;
  static constexpr int kBytes = 4;
  static constexpr int kPerWord = 1;
};

#if defined(RF_PLATFORM_HIP)
typedef _Float16 rf_half2_t __attribute__((ext_vector_type(2)));
#endif

// ---- element <-> fp32 (raw bits in the low bits of a uint32_t for 16-bit types)
RF_DEVICE float fp16_to_float(uint32_t bits) {
#if defined(RF_PLATFORM_HIP)
  return float(__builtin_bit_cast(_Float16, uint16_t(bits)));
#else
  return __half2float(__ushort_as_half(uint16_t(bits)));
#endif
}
RF_DEVICE uint32_t float_to_fp16(float x) {
#if defined(RF_PLATFORM_HIP)
  return __builtin_bit_cast(uint16_t, _Float16(x));
#else
  return __half_as_ushort(__float2half_rn(x));
#endif
}
RF_DEVICE float bf16_to_float(uint32_t bits) { return __uint_as_float(bits << 16); }
RF_DEVICE uint32_t float_to_bf16(float x) {  // round to nearest even; NaN stays NaN
  const uint32_t u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

template <class E>
RF_DEVICE uint32_t to_bits(float x);
template <>
RF_DEVICE uint32_t to_bits<Fp16>(float x) { return float_to_fp16(x); }
template <>
RF_DEVICE uint32_t to_bits<Bf16>(float x) { return float_to_bf16(x); }
template <>
RF_DEVICE uint32_t to_bits<Fp32>(float x) { return __float_as_uint(x); }

template <class E>
RF_DEVICE float from_bits(uint32_t bits);
template <>
RF_DEVICE float from_bits<Fp16>(uint32_t bits) { return fp16_to_float(bits); }
template <>
RF_DEVICE float from_bits<Bf16>(uint32_t bits) { return bf16_to_float(bits); }
template <>
RF_DEVICE float from_bits<Fp32>(uint32_t bits) { return __uint_as_float(bits); }

// Stores x converted to E at p (2 or 4 bytes).
template <class E>
RF_DEVICE void store_elem(char* p, float x) {
  if constexpr (E::kBytes == 2) *reinterpret_cast<uint16_t*>(p) = uint16_t(to_bits<E>(x));
  else *reinterpret_cast<float*>(p) = x;
}

// ---- acc + sum over the elements of one word: a.b (two products for 16-bit types, one for fp32)
template <class E>
RF_DEVICE float dot_word(uint32_t a, uint32_t b, float acc);

template <>
RF_DEVICE float dot_word<Fp16>(uint32_t a, uint32_t b, float acc) {
#if defined(RF_PLATFORM_HIP)
  return __builtin_amdgcn_fdot2(__builtin_bit_cast(rf_half2_t, a), __builtin_bit_cast(rf_half2_t, b), acc, false);
#else
  const float2 fa = __half22float2(*reinterpret_cast<const __half2*>(&a));
  const float2 fb = __half22float2(*reinterpret_cast<const __half2*>(&b));
  return rf_fma(fa.y, fb.y, rf_fma(fa.x, fb.x, acc));
#endif
}
template <>
RF_DEVICE float dot_word<Bf16>(uint32_t a, uint32_t b, float acc) {
  acc = rf_fma(__uint_as_float(a << 16), __uint_as_float(b << 16), acc);
  return rf_fma(__uint_as_float(a & 0xffff0000u), __uint_as_float(b & 0xffff0000u), acc);
}
template <>
RF_DEVICE float dot_word<Fp32>(uint32_t a, uint32_t b, float acc) {
  return rf_fma(__uint_as_float(a), __uint_as_float(b), acc);
}

// ---- 128-bit vectors as four words
RF_DEVICE uint32_t word(const uint4& v, int w) { return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w; }
RF_DEVICE void set_word(uint4& v, int w, uint32_t x) {
  if (w == 0) v.x = x; else if (w == 1) v.y = x; else if (w == 2) v.z = x; else v.w = x;
}

// Element e (compile-time after unrolling) of a 128-bit vector, raw bits.
template <class E>
RF_DEVICE uint32_t get_elem(const uint4& v, int e) {
  if constexpr (E::kPerWord == 2) return (word(v, e / 2) >> (16 * (e % 2))) & 0xffffu;
  else return word(v, e);
}
template <class E>
RF_DEVICE void set_elem(uint4& v, int e, uint32_t bits) {
  if constexpr (E::kPerWord == 2) {
    const uint32_t shift = 16 * (e % 2);
    set_word(v, e / 2, (word(v, e / 2) & ~(0xffffu << shift)) | ((bits & 0xffffu) << shift));
  } else {
    set_word(v, e, bits);
  }
}

template <int kWords>
struct Words {
  uint32_t w[kWords];
};

RF_DEVICE Words<4> to_words(const uint4& v) { return Words<4>{{v.x, v.y, v.z, v.w}}; }

// Words of row 2j' (a) and row 2j'+1 (b), same columns, into element pairs (a0,b0),(a1,b1),...
template <class E, int kWords>
RF_DEVICE Words<2 * kWords> interleave_words(const Words<kWords>& a, const Words<kWords>& b) {
  Words<2 * kWords> out;
#pragma unroll
  for (int w = 0; w < 2 * kWords; ++w) {
    if constexpr (E::kPerWord == 2) {  // word w pairs element w of a with element w of b
      const uint32_t x = a.w[w / 2], y = b.w[w / 2];
      out.w[w] = (w % 2 == 0) ? ((x & 0xffffu) | (y << 16)) : ((x >> 16) | (y & 0xffff0000u));
    } else {  // fp32: words alternate a, b
      out.w[w] = (w % 2 == 0) ? a.w[w / 2] : b.w[w / 2];
    }
  }
  return out;
}

// Masked entries of P and dS are stored as -0.0 (a computed probability or visible gradient is never -0.0:
// exp2 >= +0, and visible dS is canonicalised to +0). For an A word of such elements (two 16-bit or one fp32)
// the AND-mask of the B word they multiply (same element positions: interleave_words): zero under a -0.0
// element, all ones elsewhere. A masked product ANDs its B operand with it, so a masked entry contributes
// -0 * +0 = 0 whatever B's bits (NaN, inf): a select, not a multiply by 0.
template <class E>
RF_DEVICE uint32_t keep_mask_of(uint32_t a) {
  if constexpr (E::kPerWord == 2)
    return ((a & 0xffffu) == 0x8000u ? 0u : 0x0000ffffu) | ((a >> 16) == 0x8000u ? 0u : 0xffff0000u);
  else return a == 0x80000000u ? 0u : 0xffffffffu;
}

}  // namespace rf
