// fmha_bwd_kernel.h - exact attention backward by recomputation from the LSE (FlashAttention-2, Dao 2023,
// Algorithm 2), for GPUs without matrix cores; same building blocks as the forward.
//
// With x = score(Q.K^T) in natural units (scale, softcap, ALiBi, mask) and P = exp(x - LSE):
//   preprocess   D = rowsum(dO o O)                                   (fp32, one value per query row; its
//                dO . O part in the dP arithmetic of the tiles: fmha_bwd_preprocess_kernel)
//                (float32 inputs with p.bwd_stats: no preprocess; the dQ kernel, launched first, recomputes m,
//                1/l and D = rowsum(P o dP) / l from its own S and dP: FmhaBwdDqPipeline::own_row_stats)
//   per tile     S = Q.K^T,  P = exp2(score_log2(S) - m) * inv_l,  dP = dO.V^T   (m, inv_l: the forward's
//                final row max and 1 / row sum, the values it normalised O with)
//                (float32: P = exp2(x - shift) * inv_l, x = score_log2(S) - m; shift and inv_l: the statistics
//                pass's, or 0 and the forward's; with the pass and no softcap x comes from S's fp64 sum,
//                rounded once, ALiBi's term after it in float32: ScoreTransform::shifted_log2, kShifted;
//                from an LSE alone, score_log2(S) is the forward's own: float32(S_fp64 * fp64_multiplier())
//                through from_fp64_sum, as VectorTileMath::qk_fp64, then - m in float32)
//                dS = P o (dP - D) o g,   g = 1, or 1 - tanh^2 under softcap   (dS = dL/d(raw S) / scale)
//   dK/dV kernel dV += P^T.dO,  dK += dS^T.Q          (dK scaled by softmax_scale once, at the end)
//   dQ kernel    dQ += dS.K                           (scaled by softmax_scale once, at the end)
// P and dS are rounded to the element type in LDS, as the forward rounds P. No N x N tensor touches
// global memory. Rows that saw no key (LSE = -inf) and rows past seqlen_q get P = 0: zero gradients.
// Masked entries contribute exactly nothing, even next to NaN or inf in a K/V row their query row cannot
// see: on boundary tiles P and dS are selected to 0 and the dQ product ANDs masked K rows out (dK, dV read
// only Q and dO rows, which belong to the rows themselves).
#pragma once

#include "fmha_bwd_params.h"
#include "fmha_bwd_tile.h"
#include "fmha_common.h"
#include "fmha_mask.h"
#include "fmha_seq.h"
#include "fmha_tile_math.h"

namespace rf {

RF_DEVICE float pos_inf() { return __uint_as_float(0x7f800000u); }

// Per query row: the forward's row max m (log2 units; +inf for rows that must get P = 0), 1/l, and D.
// P = exp2(S2 - m) * inv_l is what the forward weighted V with: P <= 1 whatever softmax_scale is, where
// exp2(S2 - LSE * log2(e)) from the float32 LSE is off by |LSE| * 2^-24 in the exponent (and may pass 1).
// Indices follow the LSE layout of the sequence (fmha_seq.h: dense or varlen).
RF_DEVICE void load_row_stats(const FmhaBwdParams& p, const SeqInfo& seq, int batch, int head, int row, float* row_max,
                               float* inv_l, float* delta) {
  if (row >= seq.seqlen_q) {
    *row_max = pos_inf();
    *inv_l = *delta = 0.f;
    return;
  }
  const int64_t idx = lse_index(p.seq, seq, batch, head, row);
  const float m = p.softmax_stats[2 * idx];
  // -inf, a fully masked row (inv_l 0): exp2(x - inf) = 0, not inf * 0. +inf, a row whose scores overflowed (its
  // out and LSE are NaN): NaN gradients, not the zeros the fp32 backward's fp64 score shifted by +inf would give.
  *row_max = m == neg_inf() ? pos_inf() : m == pos_inf() ? quiet_nan() : m;
  *inv_l = p.softmax_stats[2 * idx + 1];
  *delta = p.delta[idx];
}

// float32 with the backward's own statistics (p.bwd_stats, written by the dQ kernel's statistics pass): the row's
// shift (the pass's own max of x = score_log2(S) - m, 0 for a row without a visible key) and its 1/l.
RF_DEVICE void load_own_stats(const FmhaBwdParams& p, const SeqInfo& seq, int batch, int head, int row, float* shift,
                              float* inv_l) {
  if (row >= seq.seqlen_q) {
    *shift = *inv_l = 0.f;
    return;
  }
  const int64_t idx = lse_index(p.seq, seq, batch, head, row);
  *shift = p.bwd_stats[2 * idx];
  *inv_l = p.bwd_stats[2 * idx + 1];
}

RF_DEVICE float head_alibi_slope(const FmhaBwdParams& p, int batch, int head) {
  return p.alibi_slopes ? p.alibi_slopes[int64_t(batch) * p.alibi_batch_stride + head] : 0.f;
}

// kShifted (float32 with the statistics pass, p.bwd_stats, no softcap: shifted_variant): tile_s_and_dp forms
// x = S * scale_log2 - row_max from S's fp64 sum (ScoreTransform::shifted_log2), rounded once, ALiBi's term is
// subtracted from that in float32 (shifted_score: ScoreTransform::shifted_alibi_log2, issue 8, eco13), and the
// pass's own max of x (the row's shift) cancels row_max's float32 rounding. Else x = score_log2(S) - row_max with
// score_log2(S) the forward's float32 score bit for bit: a backward from an LSE has no such shift, and its m
// (compiled.stats_from_lse) shares the forward's rounding of S2 only if P is rebuilt from the same S2 bits (an S2
// rounded otherwise: the sim 3.7x the rule on adv15's case from the LSE, eco12). float32 (eco15): S's fp64 sum
// times ScoreTransform::fp64_multiplier(), rounded once, then from_fp64_sum (the forward's qk_fp64 since eco14;
// the float32 S times the float32 scale_log2 left the H200's far-row ALiBi cases from the LSE, fp32 softmax_scale
// 50 / 100, past the rule); with softcap the multiplier is cap_scale: s is the cap's argument t (eco16), which the
// score (from_fp64_sum) and dS's factor (softcap_grad_factor) both take.
// 16-bit: the float32 S through operator(), as their forward.
// A template parameter, not a runtime test per element: the runtime select cost the fp32 d32 dQ kernel 8 VGPRs
// and a spill on gfx906 at its 2 waves per SIMD (ISA audit).
template <class E>
RF_DEVICE bool shifted_variant(const FmhaBwdParams& p) {
  return E::kDType == DType::kFp32 && p.bwd_stats != nullptr && p.softcap == 0.f;
}

// The thread index the float32 per-element loops derive their rows from (ALiBi's distance needs the row on
// interior tiles too), through an empty asm: the compiler recomputes the row from it there instead of keeping the
// thread's row across the main loop (gfx906 fp32 d32 dQ: a 4-VGPR spill at its 128 VGPRs without it, eco13; eco15:
// the from-LSE path's from_fp64_sum too, else 8 / 12 B of scratch there). kHip: float32, both variants. On CUDA
// only where it helps (kCuda: the dK/dV kernel's kShifted loop, sm_90 fp32 d256 193 -> 167 registers, d128 159 ->
// 128; in the dQ kernel it cost d64 128 -> 145: ptxas -v, RESULTS "eco13"; on the dK/dV kernel's from-LSE loop
// d256 167 -> 193, d32 96 -> 118: eco15).
template <bool kHip, bool kCuda = false>
RF_DEVICE int shifted_row_tid(int tid) {
#if defined(RF_PLATFORM_HIP)
  if constexpr (kHip) asm volatile("" : "+v"(tid));
#else
  if constexpr (kCuda) asm volatile("" : "+r"(tid));
#endif
  return tid;
}

// x = score_log2(S) - row_max of one element, s as tile_s_and_dp leaves it: under kShifted S * scale_log2 - row_max
// (fp64, rounded once), ALiBi's term (+0 without ALiBi) comes off here, in float32; else float32 inputs:
// float32(S * fp64_multiplier()), the forward's score through from_fp64_sum (eco15); 16-bit: S through operator().
template <class E, bool kShifted>
RF_DEVICE float shifted_score(float s, float row_max, const ScoreTransform& score, int row, int col) {
  if constexpr (kShifted) return score.shifted_alibi_log2(s, row, col);
  else if constexpr (E::kDType == DType::kFp32) return score.from_fp64_sum(s, row, col) - row_max;
  else return score(s, row, col) - row_max;
}

// dS's softcap factor 1 - tanh^2(t) from s as tile_s_and_dp leaves it (read only under softcap, never kShifted):
// float32: s is the cap's argument t = float32(S * fp64_multiplier()), the score's own (eco16: the float32 S was
// -inf past FLT_MAX); 16-bit: s = S, t = S * cap_scale in float32 (grad_factor), as their forward.
template <class E, bool kShifted>
RF_DEVICE float softcap_grad_factor(float s, const ScoreTransform& score) {
  if constexpr (kShifted) return 1.f;
  else if constexpr (E::kDType == DType::kFp32) return score.grad_factor_of_cap_arg(s);
  else return score.grad_factor(s);
}

// One S tile's P and dS (in place: s holds tile_s_and_dp's score on entry and P on exit, dp holds dP on entry and
// dS on exit). float32: P = exp2(x - shift) * inv_l (shift: the statistics pass's own max of x, or 0); 16-bit:
// exp2(x) * inv_l. The softcap factor reads s only under softcap (softcap_grad_factor).
template <class E, bool kShifted, bool kMask, int TM, int TN, class RowOf, class ColOf>
RF_DEVICE void tile_probs_and_grads(float (&s)[TM][TN], float (&dp)[TM][TN], const float (&row_max)[TM],
                                    const float (&inv_l)[TM], const float (&delta)[TM], const float (&shift)[TM],
                                    const ScoreTransform& score, const MaskRule& rule, RowOf row_of, ColOf col_of) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const int row = row_of(i), col = col_of(c);
      float x = shifted_score<E, kShifted>(s[i][c], row_max[i], score, row, col);
      if constexpr (E::kDType == DType::kFp32) x -= shift[i];
      float prob = rf_exp2(x) * inv_l[i];
      float ds = prob * (dp[i][c] - delta[i]) * softcap_grad_factor<E, kShifted>(s[i][c], score);
      if constexpr (kMask) {  // selects, not products: S and dP of a masked key may be NaN (0 * NaN = NaN).
        // Masked: -0.0, the mark the dQ product drops K rows under (DropMaskedA); visible dS: +0 for -0.
        if (!(row < rule.seqlen_q && rule.visible(row, col))) prob = ds = -0.f;
        else ds += 0.f;
      }
      dp[i][c] = ds;
      s[i][c] = prob;
    }
}

// Stages 1 and 2 of both gradient kernels, for the S tile (rows m0.., keys n0..) whose operands are in LDS:
// S = Q.K^T and dP = dO.V^T, then P (in s) and dS (in dp); the mask applies on boundary tiles only (the
// return value: true for a boundary tile). Rows past seqlen_q count as masked there: the dK/dV kernel sums
// over rows, and a padding row's P (LSE +inf) is NaN when the key's S is.
// S = Q.K^T and dP = dO.V^T of the tile in LDS (each element one dot product over headdim in a fixed order:
// the same bits in the dK/dV kernel, the dQ kernel and the dQ kernel's statistics pass). kShifted: s gets x =
// score_log2(S) - row_max from S's fp64 sum instead (ScoreTransform::shifted_log2, rounded once; ALiBi's term
// comes off in the callers' per-element loops, shifted_score). Else float32: s = S's fp64 sum times
// ScoreTransform::fp64_multiplier(), rounded once (the forward's VectorTileMath::qk_fp64 bits; shifted_score takes
// it through from_fp64_sum); 16-bit: s = S.
template <class E, class Tile, bool kShifted, int TM, int TN>
RF_DEVICE void tile_s_and_dp(const char* lds, int tid, const ScoreTransform& score, const float (&row_max)[TM],
                             float (&s)[TM][TN], float (&dp)[TM][TN]) {
  constexpr auto T = Tile::kShape;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int c = 0; c < TN; ++c) s[i][c] = dp[i][c] = 0.f;
  const auto q_at = [&](int i, int d) { return T.q_read(tid, i, d); };
  const auto k_at = [&](int c, int d) { return T.k_read(tid, c, d); };
  if constexpr (kShifted) {
    static_assert(E::kDType == DType::kFp32, "the shifted fp64 score is the float32 backward's");
    tile_rowdot_fp64<TM, TN>(lds, T.chunks_per_row(), q_at, k_at, s, [&](int i, int c, double wide) {
      return score.shifted_log2(wide, row_max[i]);
    });
  } else if constexpr (E::kDType == DType::kFp32) {
    const double mult = score.fp64_multiplier();
    tile_rowdot_fp64<TM, TN>(lds, T.chunks_per_row(), q_at, k_at, s,
                             [mult](int, int, double wide) { return float(rf_mul_rn_f64(wide, mult)); });
  } else {
    tile_rowdot<E, TM, TN>(lds, T.chunks_per_row(), q_at, k_at, s);
  }
  tile_rowdot<E, TM, TN>(lds, T.chunks_per_row(), [&](int i, int d) { return T.do_read(tid, i, d); },
                         [&](int c, int d) { return T.v_read(tid, c, d); }, dp);
}

template <class E, class Tile, bool kShifted, bool kCudaOpaqueRow, int TM, int TN>
RF_DEVICE bool recompute_p_and_ds(const char* lds, int tid, const MaskRule& rule, const ScoreTransform& score, int m0,
                                  int m_end, int n0, const float (&row_max)[TM], const float (&inv_l)[TM],
                                  const float (&delta)[TM], const float (&shift)[TM], float (&s)[TM][TN],
                                  float (&dp)[TM][TN]) {
  constexpr auto T = Tile::kShape;
  tile_s_and_dp<E, Tile, kShifted>(lds, tid, score, row_max, s, dp);
  const auto row_of = [&](int i) { return m0 + T.row(shifted_row_tid<E::kDType == DType::kFp32, kShifted && kCudaOpaqueRow>(tid), i); };
  const auto col_of = [&](int c) { return n0 + T.s_col(tid, c); };
  const bool boundary = tile_needs_mask(rule, m0, m_end, n0, T.block_n);  // uniform per block
  if (boundary)
    tile_probs_and_grads<E, kShifted, true>(s, dp, row_max, inv_l, delta, shift, score, rule, row_of, col_of);
  else
    tile_probs_and_grads<E, kShifted, false>(s, dp, row_max, inv_l, delta, shift, score, rule, row_of, col_of);
  return boundary;
}

// ---------------------------------------------------------------------------------------------------------
// preprocess: delta[b, h, i] = sum_d dO[b, i, h, d] * O[b, i, h, d] as hi + lo, threads_n lanes per row:
//   hi = dO . O over the stored O (element type), the row group's first lane alone, word by word from word 0
//        with dot_word (fp32: in fp64, as tile_rowdot_fp64): the arithmetic and order tile_rowdot gives
//        dP = dO . V^T in both gradient kernels
//   lo = dO . (O_fp32 - O), the forward's float32 O (p.o_fp32, same strides as p.o) minus its rounding, when it
//        kept one: any order (lanes strided, then summed), fp32 products
// hi + lo is D from the float32 O to fp32 rounding. A row that sees one key (or whose softmax is exactly
// one-hot) has O_fp32 = O = that key's V row: lo = 0 and D is that key's dP bit for bit, so dS = P o (dP - D) is
// exactly 0, as autograd's softmax gives (D summed in another order left dQ and dK |softmax_scale| * 2^-24 *
// |dO| |V| |K| off). Padding words past headdim add dot_word(0, 0, acc) = acc in the kernels: not needed here.
template <class E>
RF_DEVICE uint32_t row_word(const char* row, int w, int headdim) {  // word w of a row, zero past headdim
  if constexpr (E::kBytes == 4) return *reinterpret_cast<const uint32_t*>(row + 4 * w);
  const uint16_t* h = reinterpret_cast<const uint16_t*>(row);
  return uint32_t(h[2 * w]) | (2 * w + 1 < headdim ? uint32_t(h[2 * w + 1]) << 16 : 0u);
}

template <class E, int kThreads, int kThreadsN>
__global__ void __launch_bounds__(kThreads) fmha_bwd_preprocess_kernel(const FmhaBwdParams p) {
  constexpr int kRowsPerBlock = kThreads / kThreadsN;
  const int tx = threadIdx.x % kThreadsN;
  const int64_t rows = int64_t(p.batch) * p.nheads * p.seqlen_q;
  for (int64_t first = int64_t(blockIdx.x) * kRowsPerBlock; first < rows; first += int64_t(gridDim.x) * kRowsPerBlock) {
    const int64_t r = first + threadIdx.x / kThreadsN;  // (batch, head, row), row fastest
    float hi = 0.f, lo = 0.f;
    if (r < rows) {
      const int row = int(r % p.seqlen_q);
      const int64_t bh = r / p.seqlen_q;
      const int64_t head = bh % p.nheads, batch = bh / p.nheads;
      const int64_t offset = batch * p.o_batch_stride + head * p.o_head_stride + row * p.o_row_stride;
      const char* o = reinterpret_cast<const char*>(p.o) + offset * E::kBytes;
      const char* d = reinterpret_cast<const char*>(p.dout) +
                      (batch * p.do_batch_stride + head * p.do_head_stride + row * p.do_row_stride) * E::kBytes;
      if (tx == 0) {
        if constexpr (E::kDType == DType::kFp32) {  // tile_rowdot_fp64's fp64 sum, ascending d
          double wide = 0.0;
          for (int w = 0; w < p.headdim; ++w)
            wide = rf_fma_f64(double(from_bits<E>(row_word<E>(d, w, p.headdim))),
                              double(from_bits<E>(row_word<E>(o, w, p.headdim))), wide);
          hi = float(wide);
        } else {
          for (int w = 0; w < (p.headdim + E::kPerWord - 1) / E::kPerWord; ++w)
            hi = dot_word<E>(row_word<E>(d, w, p.headdim), row_word<E>(o, w, p.headdim), hi);
        }
      }
      const float* o32 = p.o_fp32 ? p.o_fp32 + offset : nullptr;
      for (int c = tx; c < p.headdim && o32 && E::kBytes == 2; c += kThreadsN) {
        const float oc = from_bits<E>(*reinterpret_cast<const uint16_t*>(o + 2 * c));
        lo = rf_fma(from_bits<E>(*reinterpret_cast<const uint16_t*>(d + 2 * c)), o32[c] - oc, lo);
      }
    }
    lo = group_sum<kThreadsN>(lo);  // every lane of the block takes part (uniform loop)
    if (r < rows && tx == 0) p.delta[r] = hi + lo;
  }
}

// ---------------------------------------------------------------------------------------------------------
// dK/dV kernel: one block per (block_n keys, head_k, batch).
template <class E, class Tile, bool kAligned>
struct FmhaBwdDkdvPipeline {
  // Device functions re-declare T as a local constexpr copy (nvcc cannot odr-use a host static).
  static constexpr BwdDkdvShape T = Tile::kShape;
  static constexpr int TM = T.rows_per_thread();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TK = T.keys_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int CW = T.o_chunk_cols();
  static_assert(T.valid(), "invalid dK/dV tile config (see BwdDkdvShape::valid)");
  static_assert(T.elem_bytes == E::kBytes, "tile config built for another element size");
  static_assert(T.threads % kWaveSize == 0 && T.threads_n <= kWaveSize, "row groups must not straddle waves");

  template <bool kShifted>
  RF_DEVICE static void run(const FmhaBwdParams& p, char* lds, int n_block, int head_k, int batch) {
    constexpr BwdDkdvShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const SeqInfo seq = SeqInfo::make(p, batch);
    const int n0 = n_block * T.block_n;
    if (n0 >= seq.seqlen_k) return;  // a varlen sequence shorter than the longest: nothing here (uniform)
    const int n_end = min(n0 + T.block_n, seq.seqlen_k);
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, seq, batch, head_k);
    copy_rows_to_lds<E, kAligned>(lds, k, n0, T.block_n, T.chunks_per_row(), [&](int r, int d) { return T.k_write(r, d); }, tid, T.threads);
    copy_rows_to_lds<E, kAligned>(lds, v, n0, T.block_n, T.chunks_per_row(), [&](int r, int d) { return T.v_write(r, d); }, tid, T.threads);

    float dk[TK][TD], dv[TK][TD];
#pragma unroll
    for (int i = 0; i < TK; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) dk[i][x] = dv[i][x] = 0.f;

    int tile_begin, tile_end;
    query_tile_range(rule, n0, n_end, T.block_m, &tile_begin, &tile_end);
    const int group = p.nheads / p.nheads_k;
    for (int head = head_k * group; head < (head_k + 1) * group; ++head) {  // GQA: sum over the query heads
      const auto q = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
      const auto dout = q_side_rows<E>(p.dout, p.do_batch_stride, p.do_row_stride, p.do_head_stride, seq, batch, head, p.headdim);
      const ScoreTransform score = ScoreTransform::make(p.softmax_scale, p.softcap, head_alibi_slope(p, batch, head),
                                                        seq.seqlen_k - seq.seqlen_q, seq.seqlen_k);
      for (int t = tile_begin; t < tile_end; ++t) {
        const int m0 = t * T.block_m;
        const int m_end = min(m0 + T.block_m, seq.seqlen_q);
        __syncthreads();  // K, V are in LDS; the previous tile's reads of Q, dO, P^T, dS^T are done
        copy_rows_to_lds<E, kAligned>(lds, q, m0, T.block_m, T.chunks_per_row(), [&](int r, int d) { return T.q_write(r, d); }, tid, T.threads);
        copy_rows_to_lds<E, kAligned>(lds, dout, m0, T.block_m, T.chunks_per_row(), [&](int r, int d) { return T.do_write(r, d); }, tid, T.threads);
        float row_max[TM], inv_l[TM], delta[TM], shift[TM];
#pragma unroll
        for (int i = 0; i < TM; ++i) {
          load_row_stats(p, seq, batch, head, m0 + T.row(tid, i), &row_max[i], &inv_l[i], &delta[i]);
          shift[i] = 0.f;
        }
        if constexpr (E::kDType == DType::kFp32) {
          if (p.bwd_stats != nullptr) {  // uniform: the dQ kernel's statistics pass wrote (shift, 1/l) and D
#pragma unroll
            for (int i = 0; i < TM; ++i) load_own_stats(p, seq, batch, head, m0 + T.row(tid, i), &shift[i], &inv_l[i]);
          }
        }
        __syncthreads();

        // stages 1 and 2: S, dP, then P and dS, stored transposed into LDS
        float s[TM][TN], dp[TM][TN];
        recompute_p_and_ds<E, Tile, kShifted, true>(lds, tid, rule, score, m0, m_end, n0, row_max, inv_l, delta, shift, s, dp);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int c = 0; c < TN; ++c) {
            store_elem<E>(lds + T.pt_write(T.row(tid, i), T.s_col(tid, c)), s[i][c]);
            store_elem<E>(lds + T.dst_write(T.row(tid, i), T.s_col(tid, c)), dp[i][c]);
          }
        __syncthreads();

        // stage 3: dV += P^T.dO, dK += dS^T.Q
        tile_pairdot<E, TK, TD, CW, false>(lds, T.block_m * E::kBytes / kVectorBytes,
                                           [&](int i, int vv) { return T.pt_read(tid, i, vv); },
                                           [&](int r, int g) { return T.do_col_read(tid, r, g); }, dv);
        tile_pairdot<E, TK, TD, CW, false>(lds, T.block_m * E::kBytes / kVectorBytes,
                                           [&](int i, int vv) { return T.dst_read(tid, i, vv); },
                                           [&](int r, int g) { return T.q_col_read(tid, r, g); }, dk);
      }
    }

    // epilogue: dK = softmax_scale * sum dS^T.Q, dV = sum P^T.dO, written once
    const auto key_of = [&](int i) { return n0 + T.key(tid, i); };
    const auto col_of = [&](int g) { return T.o_col(tid, g, 0); };
    const auto dk_rows = k_side_rows<E>(p, p.dk, p.dk_batch_stride, p.dk_row_stride, p.dk_head_stride, seq, batch, head_k);
    const auto dv_rows = k_side_rows<E>(p, p.dv, p.dv_batch_stride, p.dv_row_stride, p.dv_head_stride, seq, batch, head_k);
    store_acc_rows<E, kAligned, TK, TD, CW>(const_cast<char*>(dk_rows.base), dk_rows.row_stride_bytes, seq.seqlen_k, p.headdim, dk, [&](int) { return p.softmax_scale; }, key_of, col_of);
    store_acc_rows<E, kAligned, TK, TD, CW>(const_cast<char*>(dv_rows.base), dv_rows.row_stride_bytes, seq.seqlen_k, p.headdim, dv, [&](int) { return 1.f; }, key_of, col_of);
  }
};

// ---------------------------------------------------------------------------------------------------------
// dQ kernel: one block per (block_m query rows, head, batch).
template <class E, class Tile, bool kAligned>
struct FmhaBwdDqPipeline {
  static constexpr BwdDqShape T = Tile::kShape;
  static constexpr int TM = T.rows_per_thread();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int CW = T.o_chunk_cols();
  static_assert(T.valid(), "invalid dQ tile config (see BwdDqShape::valid)");
  static_assert(T.elem_bytes == E::kBytes, "tile config built for another element size");
  static_assert(T.threads % kWaveSize == 0 && T.threads_n <= kWaveSize, "row groups must not straddle waves");

  // fp32 inputs (p.bwd_stats): a first pass over the block's key tiles recomputes each row's softmax statistics
  // with the forward's recurrence on this kernel's own S bits (row max m across the row group per tile, rescaled
  // per-lane sums l and sum P * dP, reduced once at the end), then D = rowsum(P * dP) / l. Where the row's
  // softmax is one-hot (every other key's exp2 underflows: large |softmax_scale| * |q| |k|), P = exp2(0) * 1 = 1
  // and D is that key's dP bit for bit, so dS = P * (dP - D) is exactly 0 as autograd's softmax gives; D from O
  // (a dot product in another order) leaves it about 2^-24 * |dO| |V| off, which dQ and dK carry times
  // softmax_scale * |K| (|Q|). The recurrence runs on x = score_log2(S) - m_fwd, the score relative to the
  // forward's row max (row_max, loaded; ScoreTransform::shifted_log2: from S's fp64 sum, rounded once), and its
  // own max of x is the row's shift: P = exp2(x - shift) * inv_l. Writes (shift, 1/l) to p.bwd_stats and D to
  // p.delta (the row group's first lane) for the dK/dV kernel, launched after this one, which reads row_max from
  // the forward's stats as this kernel does. Masked entries are selected out (their S or dP may be NaN).
  template <bool kShifted, class Rows>
  RF_DEVICE static void own_row_stats(const FmhaBwdParams& p, char* lds, const SeqInfo& seq, int batch, int head,
                                      const MaskRule& rule, const ScoreTransform& score, int m0, int m_end,
                                      int tile_begin, int tile_end, const Rows& k, const Rows& v,
                                      const float (&row_max)[TM], float (&inv_l)[TM], float (&delta)[TM],
                                      float (&shift)[TM]) {
    constexpr BwdDqShape T = Tile::kShape;
    const int tid = threadIdx.x;
    float m[TM], l[TM], d[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      m[i] = neg_inf();
      l[i] = d[i] = 0.f;
    }
    for (int t = tile_begin; t < tile_end; ++t) {
      const int n0 = t * T.block_n;
      __syncthreads();  // Q, dO are in LDS; the previous tile's reads of K, V are done
      copy_rows_to_lds<E, kAligned>(lds, k, n0, T.block_n, T.chunks_per_row(), [&](int r, int dd) { return T.k_write(r, dd); }, tid, T.threads);
      copy_rows_to_lds<E, kAligned>(lds, v, n0, T.block_n, T.chunks_per_row(), [&](int r, int dd) { return T.v_write(r, dd); }, tid, T.threads);
      __syncthreads();
      float s[TM][TN], dp[TM][TN];
      tile_s_and_dp<E, Tile, kShifted>(lds, tid, score, row_max, s, dp);
      const bool boundary = tile_needs_mask(rule, m0, m_end, n0, T.block_n);  // uniform per block
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int row = m0 + T.row(shifted_row_tid<E::kDType == DType::kFp32>(tid), i);
        float tile_max = neg_inf();
#pragma unroll
        for (int c = 0; c < TN; ++c) {
          const int col = n0 + T.s_col(tid, c);
          float x = shifted_score<E, kShifted>(s[i][c], row_max[i], score, row, col);
          if (boundary && !(row < rule.seqlen_q && rule.visible(row, col))) x = neg_inf();
          s[i][c] = x;
          tile_max = rf_max(tile_max, x);
        }
        const float m_new = rf_max(m[i], group_max<T.threads_n>(tile_max));
        const float base = m_new == neg_inf() ? 0.f : m_new;  // no visible key yet: exp2(-inf) = 0, not NaN
        const float alpha = rf_exp2(m[i] - base);
        m[i] = m_new;
        float l_tile = 0.f, d_tile = 0.f;
#pragma unroll
        for (int c = 0; c < TN; ++c) {
          const float e = rf_exp2(s[i][c] - base);
          l_tile += e;
          d_tile += s[i][c] == neg_inf() ? 0.f : e * dp[i][c];  // select: a masked key's dP may be NaN
        }
        l[i] = l[i] * alpha + l_tile;
        d[i] = d[i] * alpha + d_tile;
      }
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {  // every lane takes part in the reductions, rows past seqlen_q too
      const int row = m0 + T.row(tid, i);
      const float l_row = group_sum<T.threads_n>(l[i]);
      const float d_row = group_sum<T.threads_n>(d[i]);
      // l == 0: no visible key (P = 0, zero gradients), or every visible score overflowed to -inf: NaN, as the
      // forward (empty_row_inv_l); a NaN l (NaN or inf inputs) propagates, as in the forward
      inv_l[i] = l_row == 0.f ? empty_row_inv_l(rule.sees_any_key(row)) : rf_rcp(l_row);
      delta[i] = d_row * inv_l[i];  // rf_rcp, as the forward: no IEEE division sequence
      shift[i] = m[i] == neg_inf() ? 0.f : m[i];  // no visible key (x = -inf everywhere): P = 0 with inv_l = 0
      if (row < seq.seqlen_q && T.lane_tx(tid) == 0) {
        const int64_t idx = lse_index(p.seq, seq, batch, head, row);
        p.bwd_stats[2 * idx] = shift[i];
        p.bwd_stats[2 * idx + 1] = inv_l[i];
        p.delta[idx] = delta[i];
      }
      if (row >= seq.seqlen_q) inv_l[i] = delta[i] = shift[i] = 0.f;
    }
  }

  template <bool kShifted>
  RF_DEVICE static void run(const FmhaBwdParams& p, char* lds, int m_block, int head, int batch) {
    constexpr BwdDqShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const SeqInfo seq = SeqInfo::make(p, batch);
    const int m0 = m_block * T.block_m;
    if (m0 >= seq.seqlen_q) return;  // uniform
    const int m_end = min(m0 + T.block_m, seq.seqlen_q);
    const int head_k = head / (p.nheads / p.nheads_k);
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const ScoreTransform score = ScoreTransform::make(p.softmax_scale, p.softcap, head_alibi_slope(p, batch, head),
                                                      seq.seqlen_k - seq.seqlen_q, seq.seqlen_k);
    const auto q = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
    const auto dout = q_side_rows<E>(p.dout, p.do_batch_stride, p.do_row_stride, p.do_head_stride, seq, batch, head, p.headdim);
    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, seq, batch, head_k);
    copy_rows_to_lds<E, kAligned>(lds, q, m0, T.block_m, T.chunks_per_row(), [&](int r, int d) { return T.q_write(r, d); }, tid, T.threads);
    copy_rows_to_lds<E, kAligned>(lds, dout, m0, T.block_m, T.chunks_per_row(), [&](int r, int d) { return T.do_write(r, d); }, tid, T.threads);
    float row_max[TM], inv_l[TM], delta[TM], shift[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      load_row_stats(p, seq, batch, head, m0 + T.row(tid, i), &row_max[i], &inv_l[i], &delta[i]);
      shift[i] = 0.f;
    }

    float dq[TM][TD];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) dq[i][x] = 0.f;

    int tile_begin, tile_end;
    key_tile_range(rule, m0, m_end, T.block_n, &tile_begin, &tile_end);
    if constexpr (E::kBytes == 4) {
      if (p.bwd_stats != nullptr)  // uniform: fp32 inputs, the backward's own (m, 1/l) and D (fmha_bwd_params.h)
        own_row_stats<kShifted>(p, lds, seq, batch, head, rule, score, m0, m_end, tile_begin, tile_end, k, v, row_max, inv_l, delta,
                      shift);
    }
    for (int t = tile_begin; t < tile_end; ++t) {
      const int n0 = t * T.block_n;
      __syncthreads();  // Q, dO are in LDS; the previous tile's reads of K, V, dS are done
      copy_rows_to_lds<E, kAligned>(lds, k, n0, T.block_n, T.chunks_per_row(), [&](int r, int d) { return T.k_write(r, d); }, tid, T.threads);
      copy_rows_to_lds<E, kAligned>(lds, v, n0, T.block_n, T.chunks_per_row(), [&](int r, int d) { return T.v_write(r, d); }, tid, T.threads);
      __syncthreads();

      float s[TM][TN], dp[TM][TN];
      const bool boundary = recompute_p_and_ds<E, Tile, kShifted, false>(lds, tid, rule, score, m0, m_end, n0, row_max, inv_l, delta, shift,
                                                        s, dp);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int c = 0; c < TN; ++c) store_elem<E>(lds + T.ds_write(T.row(tid, i), T.s_col(tid, c)), dp[i][c]);
      __syncthreads();
      const auto ds_read = [&](int i, int vv) { return T.ds_read(tid, i, vv); };
      const auto k_read = [&](int j, int g) { return T.k_col_read(tid, j, g); };
      if (boundary) {  // masked dS is -0: masked keys' K rows (maybe NaN) are ANDed out, not multiplied by 0
        tile_pairdot<E, TM, TD, CW, false>(lds, T.block_n * E::kBytes / kVectorBytes, ds_read, k_read, dq, DropMaskedA{});
      } else {
        tile_pairdot<E, TM, TD, CW, false>(lds, T.block_n * E::kBytes / kVectorBytes, ds_read, k_read, dq);
      }
    }
    const auto dq_rows = q_side_rows<E>(p.dq, p.dq_batch_stride, p.dq_row_stride, p.dq_head_stride, seq, batch, head, p.headdim);
    store_acc_rows<E, kAligned, TM, TD, CW>(const_cast<char*>(dq_rows.base), dq_rows.row_stride_bytes, seq.seqlen_q, p.headdim, dq, [&](int) { return p.softmax_scale; },
                                            [&](int i) { return m0 + T.row(tid, i); }, [&](int g) { return T.o_col(tid, g, 0); });
  }
};

// Grid: flat, tile index fastest, grid-stride loop as in the forward: run(block, head, batch) per work item (every
// backward kernel, vector and tensor-core, walks its grid through this).
template <class Run>
RF_DEVICE void bwd_grid_walk(int num_blocks, int nheads, int batch, Run run) {
  const int64_t total = int64_t(num_blocks) * nheads * batch;
  for (int64_t bid = blockIdx.x; bid < total; bid += gridDim.x) {
    const int64_t bh = bid / num_blocks;
    run(int(bid % num_blocks), int(bh % nheads), int(bh / nheads));
    __syncthreads();
  }
}

// The grid walk's per-block lambdas are always inlined: clang-19 left the bf16 d64 dK/dV body a real call on gfx942
// (472 B of scratch, a call: CI's ISA audit) once ALiBi's row anchor grew the score transform.
template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dkdv_kernel(const FmhaBwdParams p) {
  extern __shared__ uint4 rf_lds[];
  bwd_grid_walk((p.seqlen_k + Tile::kShape.block_n - 1) / Tile::kShape.block_n, p.nheads_k, p.batch, [&](int n_block, int head_k, int batch) __attribute__((always_inline)) {
    using Pipeline = FmhaBwdDkdvPipeline<E, Tile, kAligned>;
    if (shifted_variant<E>(p)) Pipeline::template run<E::kDType == DType::kFp32>(p, reinterpret_cast<char*>(rf_lds), n_block, head_k, batch);
    else Pipeline::template run<false>(p, reinterpret_cast<char*>(rf_lds), n_block, head_k, batch);
  });
}

template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dq_kernel(const FmhaBwdParams p) {
  extern __shared__ uint4 rf_lds[];
  bwd_grid_walk((p.seqlen_q + Tile::kShape.block_m - 1) / Tile::kShape.block_m, p.nheads, p.batch, [&](int m_block, int head, int batch) __attribute__((always_inline)) {
    using Pipeline = FmhaBwdDqPipeline<E, Tile, kAligned>;
    if (shifted_variant<E>(p)) Pipeline::template run<E::kDType == DType::kFp32>(p, reinterpret_cast<char*>(rf_lds), m_block, head, batch);
    else Pipeline::template run<false>(p, reinterpret_cast<char*>(rf_lds), m_block, head, batch);
  });
}

}  // namespace rf
