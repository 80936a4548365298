// fmha_common.h - device pieces shared by the forward and backward kernels: constants, row-group
// reductions, strided global rows with zero padding, and the score transform (scale, softcap, ALiBi).
#pragma once

#include "fmha_elem.h"
#include "fmha_tile.h"

namespace rf {

inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr double kLog2e64 = 1.4426950408889634;  // the double nearest log2(e) (0x1.71547652b82fep+0)
inline constexpr float kLn2 = 0.6931471805599453f;

RF_DEVICE float neg_inf() { return __uint_as_float(0xff800000u); }
RF_DEVICE float quiet_nan() { return __uint_as_float(0x7fc00000u); }

// 1/l and LSE of a row whose online softmax ended with l == 0 (its m stayed -inf). No visible key (`sees_key`
// false): 0 and -inf, flash-attn's convention (O = 0). Visible keys (MaskRule::sees_any_key) whose
// every scaled score overflowed float32 to -inf (q.k ~ -3e40, softmax_scale ~ -1e38 on positive scores; the fp64
// answer is finite): NaN, so O, LSE and the backward's P = exp2(S2 - m) * inv_l are NaN, never a silent 0 (issue
// 8). Decided here, once per row after the main loop, rather than by a select per score in ScoreTransform: the
// unmasked main loop is unchanged. A row with some finite visible scores is exact (an overflowed score weighs
// exp(-3e40 - m) = 0 in fp64 too).
RF_DEVICE float empty_row_inv_l(bool sees_key) { return sees_key ? quiet_nan() : 0.f; }
RF_DEVICE float empty_row_lse(bool sees_key) { return sees_key ? quiet_nan() : neg_inf(); }
// Split-KV partial statistics (eco14). Each split writes, per (split, head, row), kSplitStats consecutive float32 of
// FmhaFwdParams::lse_accum ((num_splits, nheads, total_q, kSplitStats)): its max score m_s (log2 units,
// the state its O_s and l_s were summed against), its row sum l_s and the row's ALiBi constant (row_shift, natural
// units; 0 without ALiBi). The combine weighs split s by exp2(m_s - M) * l_s, M = max_s m_s, and writes
// LSE = (M + log2 sum) * ln 2 + shift: differences of the splits' float32 max scores, exact where they are equal.
// One float32 LSE_s per split (before eco14) rounded log2(l_s) away at |LSE| ~ 1e19 (fp32, every score ~ -1e19):
// the splits were weighed equally, not by their key counts (adv16: errors 0.35 / 1.9 / 1.8 with 2 / 3 / 7 splits).
// A row with no key in the split: m_s = -inf, l_s = 0. A row that sees a key but met no finite score in the split
// (fmha_splitkv_kernel.h SplitRowEnd): m_s = overflow_split_m() = -FLT_MAX, l_s = 0, O_s = 0 (a real split has
// l_s >= 1: its max key weighs exp2(0)). Either weighs 0 beside a real split; a row with neither real split is -inf
// (all empty) or NaN (an overflow split: every visible score overflowed, splitkv_combined_lse).
inline constexpr int kSplitStats = 3;
RF_DEVICE float overflow_split_m() { return -__uint_as_float(0x7f7fffffu); }
// The combine's LSE of a row from the largest m_s `mx`, the base (mx, or 0 when -inf), sum_s exp2(m_s - base) * l_s
// `sum` and the row's ALiBi constant `shift`: -inf when every split is empty, NaN when only overflow splits remain.
RF_DEVICE float splitkv_combined_lse(float mx, float base, float sum, float shift) {
  return sum == 0.f ? (mx == neg_inf() ? neg_inf() : quiet_nan()) : (base + rf_log2(sum)) * kLn2 + shift;
}
// The factor of each split's weight exp2(m_s - base) * l_s: 1 / sum; 0 when every split is empty (O = 0), NaN when
// only overflow splits remain (O NaN).
RF_DEVICE float splitkv_combined_inv(float mx, float sum) {
  return sum == 0.f ? (mx == neg_inf() ? 0.f : quiet_nan()) : rf_rcp(sum);
}

// Butterfly reductions across the `kWidth` consecutive lanes of one row group (kWidth <= 32 divides the
// wave, so a group never straddles waves: correct for wave64 and warp32 alike).
// (The loops count steps, not masks: a `mask /= 2` induction has no trip count the unroller can compute in
// every context, and a rolled loop keeps the shuffle's mask dynamic.)
template <int kWidth>
RF_DEVICE constexpr int log2_width() { return kWidth <= 1 ? 0 : 1 + log2_width<kWidth / 2>(); }
template <int kWidth>
RF_DEVICE float group_max(float v) {
#pragma unroll
  for (int step = 1; step <= log2_width<kWidth>(); ++step) v = rf_max(v, rf_shfl_xor(v, kWidth >> step));
  return v;
}
template <int kWidth>
RF_DEVICE float group_sum(float v) {
#pragma unroll
  for (int step = 1; step <= log2_width<kWidth>(); ++step) v += rf_shfl_xor(v, kWidth >> step);
  return v;
}

// Rows of one (batch, head) slice in global memory: row-strided, headdim contiguous, optionally paged.
// Reads outside [0, rows) x [0, cols) return zero, which pads headdim up to the bucket and the last tiles
// up to Bc; rows >= `rows` are never touched (a KV cache may hold garbage there).
// Paged (pages != nullptr): row r lives in block pages[r / page_size] at row r % page_size, blocks
// page_stride_bytes apart (vLLM's / flash-attn's block_table layout).
template <class E>
struct GlobalRows {
  const char* base;          // row 0, column 0 (paged: block 0, row 0)
  int64_t row_stride_bytes;  // 64-bit: row offsets can pass 2^31 bytes
  int rows, cols;
  const int32_t* pages = nullptr;  // this sequence's row of the block table
  int page_size = 0;
  int64_t page_stride_bytes = 0;

  RF_DEVICE int64_t row_offset(int r) const {
    if (pages == nullptr) return int64_t(r) * row_stride_bytes;
    const int page = r / page_size;
    return int64_t(pages[page]) * page_stride_bytes + int64_t(r - page * page_size) * row_stride_bytes;
  }

  template <bool kAligned>
  RF_DEVICE uint4 load_vec(int r, int d) const {
    constexpr int kVec = kVectorBytes / E::kBytes;
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    const int c0 = d * kVec;
    if (r >= rows || c0 >= cols) return v;
    return load_vec_at<kAligned>(base + row_offset(r), d);
  }

  // Vector d of the row starting at `row` (a pointer from row_offset; the row is known to be valid).
  template <bool kAligned>
  RF_DEVICE uint4 load_vec_at(const char* row, int d) const {
    constexpr int kVec = kVectorBytes / E::kBytes;
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    const int c0 = d * kVec;
    if (c0 >= cols) return v;
    const char* src = row + int64_t(c0) * E::kBytes;
    if constexpr (kAligned) {
      v = *reinterpret_cast<const uint4*>(src);  // global_load_dwordx4
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        if (c0 + e < cols) {
          const uint32_t bits = E::kBytes == 2 ? uint32_t(*reinterpret_cast<const uint16_t*>(src + e * E::kBytes))
                                               : *reinterpret_cast<const uint32_t*>(src + e * E::kBytes);
          set_elem<E>(v, e, bits);
        }
      }
    }
    return v;
  }
};

// The rows of one (batch, head) of a (batch, seqlen, heads, headdim) tensor with strides in elements.
template <class E>
RF_DEVICE GlobalRows<E> rows_of(const void* base, int64_t batch_stride, int64_t row_stride, int64_t head_stride,
                                int batch, int head, int rows, int cols) {
  return GlobalRows<E>{reinterpret_cast<const char*>(base) + (int64_t(batch) * batch_stride + int64_t(head) * head_stride) * E::kBytes,
                       row_stride * E::kBytes, rows, cols};
}

// Copies rows [first_row, first_row + num_rows) of `src` (128-bit vectors, zero outside src) into LDS at
// write(r, d) (r relative to first_row), all threads of the block cooperating.
template <class E, bool kAligned, class Write>
RF_DEVICE void copy_rows_to_lds(char* lds, const GlobalRows<E>& src, int first_row, int num_rows, int vecs_per_row,
                                Write write, int tid, int threads) {
  for (int id = tid; id < num_rows * vecs_per_row; id += threads) {
    const int r = id / vecs_per_row, d = id % vecs_per_row;
    *reinterpret_cast<uint4*>(lds + write(r, d)) = src.template load_vec<kAligned>(first_row + r, d);
  }
}

// Writes the CW values x[e] * scale, converted to E, to dst_row's columns col0 + e (< cols). The aligned path
// stores them at once, in 128-bit parts when they take more than one vector (fp32 values of a 16-bit CW).
template <class E, bool kAligned, int CW, int TD>
RF_DEVICE void store_chunk(char* dst_row, int col0, int cols, const float (&x)[TD], int first, float scale) {
  constexpr int kParts = CW * E::kBytes > 16 ? CW * E::kBytes / 16 : 1;  // 128-bit stores per CW elements
  constexpr int kPartElems = CW / kParts;
  constexpr int kOutWords = kPartElems * E::kBytes / 4;
  static_assert(kParts * kPartElems == CW, "CW elements split into whole 128-bit parts");
  if constexpr (kAligned && kOutWords >= 1) {
#pragma unroll
    for (int part = 0; part < kParts; ++part) {
      uint4 packed = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
      for (int e = 0; e < kPartElems; ++e) set_elem<E>(packed, e, to_bits<E>(x[first + part * kPartElems + e] * scale));
      char* dst = dst_row + int64_t(col0 + part * kPartElems) * E::kBytes;
      if constexpr (kOutWords == 4) *reinterpret_cast<uint4*>(dst) = packed;
      else if constexpr (kOutWords == 2) *reinterpret_cast<uint2*>(dst) = make_uint2(packed.x, packed.y);
      else *reinterpret_cast<uint32_t*>(dst) = packed.x;
    }
  } else {
#pragma unroll
    for (int e = 0; e < CW; ++e) {
      if (col0 + e >= cols) break;
      char* dst = dst_row + int64_t(col0 + e) * E::kBytes;
      const uint32_t bits = to_bits<E>(x[first + e] * scale);
      if constexpr (E::kBytes == 2) *reinterpret_cast<uint16_t*>(dst) = uint16_t(bits);
      else *reinterpret_cast<uint32_t*>(dst) = bits;
    }
  }
}

// Writes acc[i][g*CW + e] * scale_of(i), converted to E, to global row row_of(i) and column col_of(g) + e;
// rows >= num_rows and columns >= cols are skipped. The aligned path stores CW elements at once.
// base32 (16-bit E only; nullptr: none): the same values also in float32, unrounded, at the same element
// offsets from base32 (twice the byte offsets: the forward's fp32 copy of O, which has O's strides in elements,
// hip_src/fmha_fwd_params.h), each chunk right after its E store (one pass: no accumulator stays live for a
// second one, no second address computation).
template <class E, bool kAligned, int R, int TD, int CW, class ScaleOf, class RowOf, class ColOf>
RF_DEVICE void store_acc_rows(char* base, int64_t row_stride_bytes, int num_rows, int cols, const float (&acc)[R][TD],
                              ScaleOf scale_of, RowOf row_of, ColOf col_of, char* base32 = nullptr) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int r = row_of(i);
    if (r >= num_rows) continue;
    const float scale = scale_of(i);
    const int64_t row_off = int64_t(r) * row_stride_bytes;
    char* dst_row = base + row_off;
#pragma unroll
    for (int g = 0; g < TD / CW; ++g) {
      const int col0 = col_of(g);
      if (col0 >= cols) continue;
      store_chunk<E, kAligned, CW>(dst_row, col0, cols, acc[i], g * CW, scale);
      if constexpr (E::kBytes == 2) {
        if (base32) store_chunk<Fp32, kAligned, CW>(base32 + 2 * row_off, col0, cols, acc[i], g * CW, scale);
      }
    }
  }
}

// tanh(y) = 1 - 2 / (exp(2y) + 1): one exp2 and one reciprocal, no libm call; saturates to +-1.
RF_DEVICE float tanh_exp2(float y) { return 1.f - 2.f * rf_rcp(rf_exp2(2.f * kLog2e * y) + 1.f); }

// The score of (row, col) in log2 units: raw Q.K^T -> scale, optional softcap and ALiBi -> * log2(e).
// ALiBi's bias -slope * |i + seqlen_k - seqlen_q - j| is split at the row's anchor a = clamp(i + sk - sq, 0, sk - 1):
// |i + sk - sq - j| = |i + sk - sq - a| + |a - j| for every key j in [0, sk) (the diagonal outside the keys: both
// differences have one sign; inside: the first is 0). The score keeps -slope * |a - j| and the per-row constant
// (row_shift) is left to the LSE, since it cancels in softmax: a row far from every key (seqlen_q > seqlen_k without
// causal) rounds a score of the size of scale * q.k, not of slope * seqlen_q (issue 8: |score| ~ 2000-2800 in float32
// left FlashAttention's backward rule). ALiBi without softcap is one product in log2 units, raw * scale_log2 -
// slope_log2 * |a - j|, as the plain score: no second rounding of a large score by log2(e) (the other half of that
// defect, at softmax_scale 100). The sim (rocflash/backends/sim.py _Tiles.scores_log2) models both.
struct ScoreTransform {
  double scale_log2_64;    // double(softmax_scale) * log2(e), in fp64 (shifted_log2)
  float scale_log2;        // softmax_scale * log2(e)
  float scale;             // softmax_scale
  float softcap;           // 0 = off
  float cap_scale;         // softmax_scale / softcap
  float alibi_slope;       // 0 = off
  float alibi_slope_log2;  // alibi_slope * log2(e)
  int32_t diag;            // seqlen_k - seqlen_q (bottom-right alignment)
  int32_t last_key;        // seqlen_k - 1: the anchor's upper bound

  RF_DEVICE static ScoreTransform make(float softmax_scale, float softcap, float alibi_slope, int32_t diag,
                                       int32_t seqlen_k) {
    ScoreTransform t;
    t.scale = softmax_scale;
    t.scale_log2 = softmax_scale * kLog2e;
    t.scale_log2_64 = rf_mul_rn_f64(double(softmax_scale), kLog2e64);
    t.softcap = softcap;
    t.cap_scale = softcap > 0.f ? softmax_scale / softcap : 0.f;
    t.alibi_slope = alibi_slope;
    t.alibi_slope_log2 = alibi_slope * kLog2e;
    t.diag = diag;
    t.last_key = seqlen_k - 1;
    return t;
  }

  // Scores are raw * scale_log2: no softcap, no ALiBi, and a positive scale (the row max commutes with it).
  RF_DEVICE bool plain() const { return softcap == 0.f && alibi_slope == 0.f && scale_log2 > 0.f; }

  // The key row `row`'s ALiBi distance is measured from: its diagonal position clamped into [0, seqlen_k - 1].
  RF_DEVICE int64_t alibi_anchor(int row) const {
    const int64_t d = int64_t(row) + diag;
    const int64_t a = d < last_key ? d : int64_t(last_key);
    return a > 0 ? a : 0;
  }

  // The per-row ALiBi constant the scores leave out, natural units (0 without ALiBi): LSE = (m + log2 l) * ln 2 +
  // row_shift(row) (the forward's epilogue); a backward from an LSE subtracts it first (compiled.stats_from_lse).
  RF_DEVICE float row_shift(int row) const { return row_shift_of(alibi_slope, row); }
  // The same for a row's own slope (the split-KV kernels: one slope per row of a GQA group).
  RF_DEVICE float row_shift_of(float slope, int row) const {
    if (slope == 0.f) return 0.f;
    return -slope * rf_abs(float(int64_t(row) + diag - alibi_anchor(row)));
  }
  // alibi_anchor of a query row (row < seqlen_q, so row + diag <= seqlen_k - 1: only the lower clamp binds), int32:
  // max(row + diag, 0), one instruction and no seqlen_k live in the loop (the split-KV kernels sit at 256 VGPRs on
  // gfx906), and its row constant: -slope * |row + diag - anchor| = slope * min(row + diag, 0), the same bits as
  // row_shift_of.
  RF_DEVICE int32_t query_anchor32(int row) const {
    int32_t d = row + diag;
#if defined(RF_PLATFORM_HIP)
    asm volatile("" : "+v"(d));  // recomputed per use, not one more VGPR per row across the split kernel's loop (eco14)
#endif
    return d > 0 ? d : 0;
  }
  RF_DEVICE float query_row_shift(float slope, int row) const {
    const int32_t d = row + diag;
    return slope * float(d < 0 ? d : 0);
  }

  // float32 inputs (eco14): what the fp64 sum of Q.K^T is multiplied by before its one rounding to float32
  // (tile_rowdot_fp64's epilogue, VectorTileMath::qk_fp64 and the backward from an LSE, fmha_bwd_kernel.h
  // tile_s_and_dp, eco15: the same score bits; the split-KV kernel's lane sums): scale_log2_64 without
  // softcap, so the score is float32(raw * scale_log2) rounded once (from_fp64_sum); with softcap (eco16) the
  // float32 cap_scale widened (exact), so the float32 value is the cap's argument t = float32(raw * cap_scale) rounded
  // once, which from_fp64_sum and grad_factor_of_cap_arg take. Rounding q.k to float32 first made a sum past FLT_MAX
  // -inf before the scale: at softmax_scale 1e-37 a key of exact weight 0.49 weighed 0 (adv16); with softcap 5 at
  // softmax_scale 1e-38 the capped row [0.5006, 0.4994] came out [0.885, 0.115] (adv17). cap_scale is subnormal
  // there (2e-39; gfx906 keeps fp32 subnormals, .amdhsa_float_denorm_mode_32 3, CUDA without ftz; the gfx906 emulator
  // does not: its v_div_fmas_f32 rescale of a subnormal quotient, so its tests take a normal cap_scale).
  RF_DEVICE double fp64_multiplier() const { return softcap == 0.f ? scale_log2_64 : double(cap_scale); }
  // The score in log2 units from float32(raw * fp64_multiplier()): without softcap that value, less ALiBi's term in
  // float32 (shifted_alibi_log2, as the fp32 backward's shifted score with ref 0); with softcap the capped score of
  // the argument t (capped_log2, as operator()).
  RF_DEVICE float from_fp64_sum(float x, int row, int col) const {
    if (softcap == 0.f) return alibi_slope == 0.f ? x : shifted_alibi_log2(x, row, col);
    return capped_log2(x, row, col);
  }
  // softcap * tanh(t), ALiBi's term, * log2(e): the capped score of the cap's argument t = raw * scale / softcap.
  RF_DEVICE float capped_log2(float t, int row, int col) const {
    float x = softcap * tanh_exp2(t);
    if (alibi_slope != 0.f) x -= alibi_slope * rf_abs(float(alibi_anchor(row) - col));
    return x * kLog2e;
  }

  RF_DEVICE float operator()(float raw, int row, int col) const {
    if (softcap == 0.f && alibi_slope == 0.f) return raw * scale_log2;
    if (softcap == 0.f) return raw * scale_log2 - alibi_slope_log2 * rf_abs(float(alibi_anchor(row) - col));
    return capped_log2(raw * cap_scale, row, col);  // softcap * tanh(raw * scale / softcap)
  }

  // The fp32 backward's score without softcap (ALiBi's term: shifted_alibi_log2) relative to its row's reference `ref` (the row max its
  // statistics were taken against, log2 units), from the fp64 sum `raw` of Q.K^T (tile_rowdot_fp64, before its
  // rounding): x = raw * scale_log2_64 - ref, each step one fp64 operation rounded on its own, then rounded once to
  // fp32. Rounding S to fp32 first (|S2| ~ 3000 at softmax_scale 50) put |S2| * 2^-24 into every exp2 argument of
  // P = exp2(S2 - m): dq 2.02x FlashAttention's rule where a row's softmax splits over two keys (adv15,
  // tests/test_score_overflow.py); x carries |x| * 2^-24. The sim: rocflash/backends/sim.py _Tiles.shifted_log2.
  // ALiBi's term is not in the fp64 value (it cost the gfx906 fp32 d32 dQ kernel its last VGPRs and a spill):
  // shifted_alibi_log2 subtracts it afterwards, in float32.
  RF_DEVICE float shifted_log2(double raw, float ref) const {
#if defined(RF_PLATFORM_HIP)
    asm volatile("" : "+v"(ref));  // double(ref) per element, not a VGPR pair per row hoisted out of the loop (eco13)
#endif
    return float(rf_sub_rn_f64(rf_mul_rn_f64(raw, scale_log2_64), double(ref)));
  }

  // ALiBi on the shifted score x = shifted_log2(raw, ref): x - slope_log2 * |anchor(row) - col|, in float32, after
  // the fp64 value was rounded. For the keys that carry weight x ~ bias + (the row's spread of scale * S), so its
  // rounding and this subtraction each carry |bias| * 2^-24 (a distance-sized term, as eager float32's own bias
  // addition), not |S2| * 2^-24: adv15's two-key rows with ALiBi, seed 2, softmax_scale 50 went from 3.16x
  // FlashAttention's backward rule to 0.01x (sim; tests/test_score_overflow.py). Without ALiBi (slope 0) the term
  // is +0 and x is unchanged bit for bit. No fp64 value is live here. The anchor in int32, not alibi_anchor's int64
  // (one register per value, not two: the gfx906 fp32 d32 dQ kernel sits at 128 VGPRs): row + diag < seqlen_k and
  // >= -seqlen_q. Register cost per kernel: perf/RESULTS.md "eco13".
  RF_DEVICE float shifted_alibi_log2(float x, int row, int col) const {
    const int32_t d = row + diag;
    const int32_t a = d < last_key ? (d > 0 ? d : 0) : last_key;
    return x - alibi_slope_log2 * rf_abs(float(a - col));
  }

  // d(score)/d(raw) / softmax_scale: 1, or 1 - tanh^2(raw * scale / softcap) with softcap (ALiBi is additive).
  RF_DEVICE float grad_factor(float raw) const {
    if (softcap == 0.f) return 1.f;
    return grad_factor_of_cap_arg(raw * cap_scale);
  }
  // The same from the cap's argument t (float32 inputs: tile_s_and_dp's float32(S * fp64_multiplier()), eco16).
  RF_DEVICE float grad_factor_of_cap_arg(float t) const {
    if (softcap == 0.f) return 1.f;
    const float th = tanh_exp2(t);
    return 1.f - th * th;
  }
};

}  // namespace rf
