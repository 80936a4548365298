// fmha_fwd_kernel.h - exact fused attention forward (FlashAttention-2, Dao 2023, Algorithm 1): one pipeline
// over a tile-math policy. gfx906 (MI50/MI60, wave64, no matrix cores) is the tuning target of the vector
// policy (VectorTileMath, fmha_tile_math.h); the CUDA build runs the same vector code and, on sm_80+ for
// fp16/bf16, the tensor-core policy (MmaTileMath, fmha_mma.h).
//
//   O = softmax(Q.K^T * softmax_scale + mask) . V,   LSE = log(rowsum(exp(...)))
//
// One block owns Br = block_m query rows of one (batch, head). It keeps its Q tile in LDS, walks the
// K/V tiles of Bc = block_n keys that its rows can see, and keeps the online-softmax state (row max m,
// row sum l) and the O accumulator in fp32 registers. S and P never leave the chip; O and LSE are
// written once.
//
// Per K/V tile (the policy's stage functions in brackets):
//   stage 0  the V tile in flight during stage 1                            [issue_v]
//   stage 1  S = Q.K^T                                                      [qk]
//   stage 2  online softmax in the log2 domain: m' = max(m, rowmax(S)), P = exp2(S - m'),
//            l = l*exp2(m - m') + rowsum(P), O *= exp2(m - m'). Boundary tiles only apply the mask.
//   stage 3  V and P to their operand places, the next K tile in flight    [exchange]; O += P.V [pv]
//            vector: V -> LDS in row pairs, P -> LDS, next K into registers; tensor cores: V via cp.async
//            into its own buffer, P stays in registers, next K via cp.async into the K buffer
// The policy owns the accumulator layout: the softmax and the epilogue index S and O only through
// Math::row / s_col / o_col and reduce rows over Math::kRowLanes lanes.
//            (boundary tiles: masked S is a select to -inf and the policy keeps the V elements under masked P
//            out of the product, so a NaN or inf in a V row the query row cannot see never reaches it: the
//            vector policy by P's -0.0 mark, the tensor-core one by position (pv_masked). Plain-score kernels
//            decide which tiles are boundary tiles once per block (unmasked_tile_range) and mask them with
//            one int32 row span per thread (RowSpan).)
// The log2 trick: exp(x) = exp2(x * log2(e)); scaling the scores once by softmax_scale*log2(e) turns every
// exponential into one v_exp_f32 / ex2.approx. LSE = (m + log2(l)) * ln(2) converts back.
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_params.h"
#include "fmha_mask.h"
#include "fmha_seq.h"
#include "fmha_tile_math.h"
#if defined(RF_PLATFORM_CUDA)
#include "fmha_mma.h"  // tensor-core tile math (NVIDIA sm_80+); the HIP build never compiles it
#endif

namespace rf {

// The tile math a Tile config asks for: Tile::kMath if it names one, else the vector ALU.
template <class Tile, class = void>
struct TileMathOf {
  static constexpr TileMath value = TileMath::kVector;
};
template <class Tile>
struct TileMathOf<Tile, decltype(void(Tile::kMath))> {
  static constexpr TileMath value = Tile::kMath;
};

template <class E, class Tile, bool kAligned, TileMath = TileMathOf<Tile>::value>
struct FwdTileMathPolicy {
  using type = VectorTileMath<E, Tile, kAligned>;
};
template <class Tile>
struct GeneralScoreTile;  // fmha_mma.h (CUDA build): the tile of an mma config's general-score kernel

#if defined(RF_PLATFORM_CUDA)
template <class E, class Tile, bool kAligned>
struct FwdTileMathPolicy<E, Tile, kAligned, TileMath::kMma> {
  using type = MmaTileMath<E, Tile, kAligned>;
};
#endif

// The forward pipeline: one skeleton (tile range, masks, online softmax, LSE, epilogue) over a tile-math
// policy that owns the accumulator layout, the operand layout in LDS and the products (fmha_tile_math.h).
// kPlainScore: the launcher saw no softcap, no ALiBi and softmax_scale > 0 (see online_softmax); only policies
// with kPlainScorePath get such an instance, so the vector kernels are the gfx906-audited code unchanged.
template <class E, class Tile, bool kAligned, bool kPlainScore = false>
struct FmhaFwdPipeline {
  using Math = typename FwdTileMathPolicy<E, Tile, kAligned>::type;
  static_assert(!kPlainScore || Math::kPlainScorePath, "plain-score instances are for policies that opt in");
  static constexpr int TM = Math::TM;
  static constexpr int TN = Math::TN;
  static constexpr int TD = Math::TD;
  static constexpr int CW = Math::CW;
  // Plain-score kernels: how far (log2 units of the scaled scores) a row's max may rise before the running max,
  // and with it O and l, is rescaled. 8: P <= 256, far inside fp16's and bf16's range; l and O stay fp32.
  static constexpr float kRescaleThresholdLog2 = 8.f;
  // float32 inputs (the vector policy only: the tensor-core one takes fp16/bf16): the score from Q.K^T's fp64 sum
  // scaled before its one rounding (VectorTileMath::qk_fp64, ScoreTransform::from_fp64_sum; eco14).
  static constexpr bool kFp64Score = E::kDType == DType::kFp32;

  // ---- stage 2: online softmax over one S tile (in place: scores in, probabilities out)
  // kPlain (ScoreTransform::plain(): no softcap, no ALiBi, softmax_scale > 0): the row max is taken on the raw
  // scores and the scale applies in the exponent, exp2(raw * scale*log2(e) - m), with no per-element test of
  // the score's form (whose branches and registers are what keeps the general kernel from larger tiles). The
  // product is rounded on its own (rf_mul_rn, not fma(raw, scale*log2(e), -m)): m is that rounded product of the
  // key that set it, whose probability is then exp2(0) = 1 exactly, as on the general path and in the backward; the
  // fma's rounding residual made it exp2(r) != 1, so a row that sees one key had l = 1 + eps and a float32 O of
  // V / (1 + eps), and the backward's D (from that O) missed its dP by eps |dP|: dq 0.17 instead of 0 at
  // softmax_scale 50, headdim 128 (H200, tests/test_one_key_rows.py). Cost: one multiply more per score. (A row
  // whose max key stays within kRescaleThresholdLog2 of an earlier tile's max keeps that m and P = 2^x of it; such
  // a row is not one-hot: its earlier key has P >= 2^-8.)
  // rows: RowSpan of this thread's first row (Math::row(tid, 0)), for the plain path's int32 span test.
  template <bool kMask, bool kPlain = false>
  RF_DEVICE static void online_softmax(float (&s)[TM][TN], float (&m)[TM], float (&l)[TM], float (&alpha)[TM],
                                       const ScoreTransform& score, const MaskRule& rule, const RowSpan& rows, int m0,
                                       int n0, int tid) {
    RowSpan::Tile span{};  // kPlain && kMask: the visible columns of this thread's rows (int32: few registers)
    if constexpr (kPlain && kMask) span = rows.tile(n0);
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + Math::row(tid, i);
      float row_max = neg_inf();
      int32_t lo = 0, hi = 0;  // kPlain && kMask: the row's visible keys as a span of tile columns [lo, hi]
      if constexpr (kPlain && kMask) {
        const int32_t off = Math::row(tid, i) - Math::row(tid, 0);  // a constant of the accumulator layout
        lo = span.lo(off);
        hi = span.hi(off);
      }
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        const int col = n0 + Math::s_col(tid, c);
        float x = kPlain ? s[i][c] : kFp64Score ? score.from_fp64_sum(s[i][c], row, col) : score(s[i][c], row, col);
        if constexpr (kMask && kPlain) {
          const int rel = Math::s_col(tid, c);
          if (rel < lo || rel > hi) x = neg_inf();  // same set as rule.visible(row, col), one int32 span test
        } else if constexpr (kMask) {
          if (!rule.visible(row, col)) x = neg_inf();
        }
        s[i][c] = x;
        row_max = rf_max(row_max, x);
      }
      row_max = group_max<Math::kRowLanes>(row_max);
      float m_new;
      if constexpr (kPlain) {
        row_max = rf_mul_rn(row_max, score.scale_log2);  // -inf stays -inf: the scale is positive
        // Conditional rescaling (as FlashAttention-4): the running max moves only when the tile's max passes it by
        // more than kRescaleThresholdLog2; else the row keeps its max, alpha is exactly 1 and O is not rescaled
        // (Math::rescale skips the product when no row of the warp moved), and P = exp2(S - m) <= 2^threshold.
        // Exact all the same: l and O are summed against the same m, and LSE = m + log2(l) for any m >= -inf.
        // NaN compares false (keeps m; the NaN reaches l and O through P), as does -inf against -inf.
        m_new = row_max > m[i] + kRescaleThresholdLog2 ? row_max : m[i];
      } else {
        m_new = rf_max(m[i], row_max);
      }
      // A row that has seen no visible key keeps m = -inf; subtracting 0 instead keeps exp2 at 0, not NaN.
      const float base = m_new == neg_inf() ? 0.f : m_new;
      alpha[i] = kPlain && m_new == m[i] ? 1.f : rf_exp2(m[i] - base);
      m[i] = m_new;
      float row_sum = 0.f;
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        const float prob = rf_exp2((kPlain ? rf_mul_rn(s[i][c], score.scale_log2) : s[i][c]) - base);
        row_sum += prob;
        s[i][c] = prob;
        // kPlain (tensor cores): a masked score is -inf here, so its prob is exp2(-inf) = +0; the policy's masked
        // P.V keeps masked keys' V out by position (pv_masked), not by a -0.0 mark.
        if constexpr (kMask && !kPlain) {  // -0.0 marks a masked entry for the vector policy's P.V product
          if (!rule.visible(row, n0 + Math::s_col(tid, c))) s[i][c] = -0.f;
        }
      }
      l[i] = l[i] * alpha[i] + row_sum;  // per-lane partial sum; reduced across the row group once, at the end
    }
  }

  // Where the epilogue decides the rows whose every visible score overflowed to -inf (fmha_common.h
  // empty_row_inv_l) is register-dependent, as in the split kernel (SplitRowEnd), the other way round: on AMD in the
  // inv_l loop (eco11: 0 B scratch on every gfx906 forward; the pass after the stores cost the fp16 d128 vector
  // kernel 8 B), on CUDA in a pass after the O stores (the inv_l loop kept the mask bounds live beside O: 36 B of
  // spill in the sm_90 tensor-core d128 b128x64 plain kernels, 40 B on sm_80; integ20's mma audit). Same values.
#if defined(RF_PLATFORM_HIP)
  static constexpr bool kFwdOverflowAfterStores = false;
#else
  static constexpr bool kFwdOverflowAfterStores = true;
#endif

  // ---- epilogue: O /= l, write O (element type) and LSE (fp32, natural log) once
  // The LSE adds back the ALiBi row constant the scores left out (ScoreTransform::row_shift; 0 without ALiBi).
  RF_DEVICE static void store_output(const FmhaFwdParams& p, const SeqInfo& seq, const float (&o)[TM][TD],
                                     const float (&m)[TM], const float (&l)[TM], int m0, int head, int batch, int tid,
                                     const ScoreTransform& score) {
    float inv_l[TM], l_rows[TM];
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
#pragma unroll
    for (int i = 0; i < TM; ++i) {  // every lane takes part in the reductions, rows past seqlen_q too
      l_rows[i] = group_sum<Math::kRowLanes>(l[i]);
      // l == 0: the row saw no visible key, it outputs 0 (LSE -inf), or every visible score overflowed to -inf:
      // NaN (empty_row_inv_l): decided here on AMD, rewritten after the stores below on CUDA (kFwdOverflowAfterStores).
      // A NaN l (NaN or inf in the inputs) propagates as NaN to O and LSE instead of passing for a fully masked row.
      inv_l[i] = l_rows[i] != 0.f            ? rf_rcp(l_rows[i])
                 : kFwdOverflowAfterStores ? 0.f
                                           : empty_row_inv_l(rule.sees_any_key(m0 + Math::row(tid, i)));
    }
    const GlobalRows<E> out = q_side_rows<E>(p.o, p.o_batch_stride, p.o_row_stride, p.o_head_stride, seq, batch, head, p.headdim);
    // training forwards of 16-bit inputs also write O unrounded (p.o_fp32: O's strides in elements, so its byte
    // offsets are twice O's) for the backward's D
    char* o32 = p.o_fp32 ? reinterpret_cast<char*>(p.o_fp32) + 2 * (out.base - reinterpret_cast<const char*>(p.o)) : nullptr;
    store_acc_rows<E, kAligned, TM, TD, CW>(const_cast<char*>(out.base), out.row_stride_bytes, seq.seqlen_q, p.headdim, o,
                                            [&](int i) { return inv_l[i]; }, [&](int i) { return m0 + Math::row(tid, i); },
                                            [&](int g) { return Math::o_col(tid, g, 0); }, o32);
    // CUDA (kFwdOverflowAfterStores): rows that see a key but whose every visible score overflowed to -inf (l == 0;
    // empty_row_inv_l) get O rewritten with NaN after the stores above, when O's registers are free. One bit per
    // row; the second store runs only for such rows (0 * NaN = NaN).
    static_assert(TM <= 32, "overflow_rows: one bit per row");
    uint32_t overflow_rows = 0;
    if constexpr (kFwdOverflowAfterStores) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
        overflow_rows |= uint32_t(l_rows[i] == 0.f && rule.sees_any_key(m0 + Math::row(tid, i))) << i;
    }
    if (kFwdOverflowAfterStores && overflow_rows != 0u) {
      const float zero[TM][TD] = {};
      store_acc_rows<E, kAligned, TM, TD, CW>(const_cast<char*>(out.base), out.row_stride_bytes, seq.seqlen_q, p.headdim,
                                              zero, [&](int) { return quiet_nan(); },
                                              [&](int i) { return (overflow_rows >> i) & 1u ? m0 + Math::row(tid, i) : seq.seqlen_q; },
                                              [&](int g) { return Math::o_col(tid, g, 0); }, o32);
    }
    if (!Math::row_leader(tid)) return;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + Math::row(tid, i);
      if (row < seq.seqlen_q) {
        const int64_t idx = lse_index(p.seq, seq, batch, head, row);
        const bool sees_key = kFwdOverflowAfterStores ? ((overflow_rows >> i) & 1u) != 0u : rule.sees_any_key(row);
        p.lse[idx] = l_rows[i] == 0.f ? empty_row_lse(sees_key) : rf_mul_rn(m[i] + rf_log2(l_rows[i]), kLn2) + score.row_shift(row);
        if (p.softmax_stats) {  // what O was normalised with: the backward's P = exp2(S2 - m) * inv_l
          p.softmax_stats[2 * idx] = m[i];
          p.softmax_stats[2 * idx + 1] = kFwdOverflowAfterStores && l_rows[i] == 0.f ? empty_row_inv_l(sees_key) : inv_l[i];
        }
      }
    }
  }

  RF_DEVICE static void run(const FmhaFwdParams& p, char* lds, int m_block, int head, int batch) {
    constexpr auto T = Tile::kShape;
    // tid opaque per block (rf_vendor.h), so the per-lane addresses of the prologue and epilogue are not hoisted out
    // of the grid-stride loop and kept live across the main loop (they made Br 128 spill on gfx906; on sm_90 the
    // d128 32-rows-per-warp tensor-core kernel spilled 8 B of them while tid was threadIdx.x).
    const int tid = Math::kPlainScorePath ? rf_thread_index_here() : rf_thread_index(T.threads);
    const SeqInfo seq = SeqInfo::make(p, batch);
    const int m0 = m_block * T.block_m;
    if (m0 >= seq.seqlen_q) return;  // a varlen sequence shorter than the longest: nothing here (uniform)
    const int m_end = min(m0 + T.block_m, seq.seqlen_q);
    const int head_k = head / (p.nheads / p.nheads_k);  // GQA/MQA: query heads share K/V head head_k

    const auto q = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, seq, batch, head_k);

    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const ScoreTransform score = ScoreTransform::make(
        p.softmax_scale, p.softcap, p.alibi_slopes ? p.alibi_slopes[int64_t(batch) * p.alibi_batch_stride + head] : 0.f,
        seq.seqlen_k - seq.seqlen_q, seq.seqlen_k);

    int tile_begin, tile_end, full_begin = 0, full_end = 0;
    key_tile_range(rule, m0, m_end, T.block_n, &tile_begin, &tile_end);
    // Plain-score (tensor-core) kernels decide which tiles need the mask once per block; the vector kernels keep
    // the per-tile test they were audited with on gfx906 (their register allocation is at the limit there).
    if constexpr (kPlainScore) unmasked_tile_range(rule, m0, m_end, T.block_n, &full_begin, &full_end);
    RowSpan rows = RowSpan::make(rule, m0 + Math::row(tid, 0));  // boundary tiles' masks, as int32 spans
    rows.first0 = rf_pin(rows.first0);  // two registers across the loop, not the 64-bit values they came from
    rows.last0 = rf_pin(rows.last0);

    float o[TM][TD], m[TM], l[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      m[i] = neg_inf();
      l[i] = 0.f;
#pragma unroll
      for (int x = 0; x < TD; ++x) o[i][x] = 0.f;
    }

    if (tile_begin < tile_end) {  // uniform per block
      Math math;  // the policy's per-thread state (staging registers, operand fragments)
      math.prologue(lds, q, k, m0, tile_begin * T.block_n, tid);

      for (int t = tile_begin; t < tile_end; ++t) {
        const int n0 = t * T.block_n;
        const bool has_next = t + 1 < tile_end;
        // stage 0: V tile in flight
        math.issue_v(lds, v, n0, tid);

        // stage 1: S = Q.K^T
        float s[TM][TN];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int c = 0; c < TN; ++c) s[i][c] = 0.f;
        if constexpr (kFp64Score) math.qk_fp64(lds, tid, s, score.fp64_multiplier());
        else math.qk(lds, tid, s);

        // stage 2: mask (boundary tiles only) and online softmax
        float alpha[TM];
        const bool boundary = kPlainScore ? t < full_begin || t >= full_end  // == tile_needs_mask(...)
                                          : tile_needs_mask(rule, m0, m_end, n0, T.block_n);  // uniform per block
        if (boundary)
          online_softmax<true, kPlainScore>(s, m, l, alpha, score, rule, rows, m0, n0, tid);
        else
          online_softmax<false, kPlainScore>(s, m, l, alpha, score, rule, rows, m0, n0, tid);

        // stage 3: V and P to their operand places, next K in flight; O = alpha * O + P.V
        math.exchange(lds, k, s, n0 + T.block_n, has_next, tid);
        if constexpr (kPlainScore) {
          Math::rescale(o, alpha);  // skipped when alpha is 1 for every row of the warp (conditional rescaling)
        } else {
#pragma unroll
          for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int x = 0; x < TD; ++x) o[i][x] *= alpha[i];
        }
        if (boundary)  // masked P is -0 and 0 * NaN = NaN: masked keys' V must not enter the product
          math.pv_masked(lds, tid, s, o, [&](int i, int j) {
            return rows.visible(Math::row(tid, i) - Math::row(tid, 0), n0 + j);
          });
        else
          math.pv(lds, tid, s, o);
        math.finish_tile(lds, has_next, tid);
      }
    }
    // == tid; the plain-score kernels re-read it (rf_vendor.h) so that the epilogue's indices are not kept across the loop
    store_output(p, seq, o, m, l, m0, head, batch, kPlainScore ? rf_thread_index_here() : tid, score);
  }
};

// Blocks are numbered with the Br-row slice fastest, so the blocks sharing one (batch, head)'s K/V run
// together; within a head the slices run last-first (with a causal mask the last rows see the most keys:
// the longest blocks start first). A grid-stride loop covers grids larger than the launch grid.
template <class E, class Tile, bool kAligned, bool kPlainScore = false>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_fwd_kernel(const FmhaFwdParams p) {
  extern __shared__ uint4 rf_lds[];
  const int num_m_blocks = (p.seqlen_q + Tile::kShape.block_m - 1) / Tile::kShape.block_m;
  const int64_t total = int64_t(num_m_blocks) * p.nheads * p.batch;
  for (int64_t bid = blockIdx.x; bid < total; bid += gridDim.x) {
    const int m_block = num_m_blocks - 1 - int(bid % num_m_blocks);
    const int64_t bh = bid / num_m_blocks;
    FmhaFwdPipeline<E, Tile, kAligned, kPlainScore>::run(p, reinterpret_cast<char*>(rf_lds), m_block, int(bh % p.nheads),
                                            int(bh / p.nheads));
    __syncthreads();  // the next block of the loop reuses LDS
  }
}

}  // namespace rf
