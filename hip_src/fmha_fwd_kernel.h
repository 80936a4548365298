// fmha_fwd_kernel.h - exact fused attention forward (FlashAttention-2, Dao 2023, Algorithm 1) for GPUs
// without matrix cores; gfx906 (MI50/MI60, wave64) is the tuning target, the CUDA build runs the same code.
//
//   O = softmax(Q.K^T * softmax_scale + mask) . V,   LSE = log(rowsum(exp(...)))
//
// One block owns Br = block_m query rows of one (batch, head). It keeps its Q tile in LDS, walks the
// K/V tiles of Bc = block_n keys that its rows can see, and keeps the online-softmax state (row max m,
// row sum l) and the O accumulator in fp32 registers. S and P never leave the chip; O and LSE are
// written once.
//
// Per K/V tile:
//   stage 0  issue the global loads of the V tile into registers (in flight during stage 1)
//   stage 1  S = Q.K^T                       (TileMath::qk, LDS operands)
//   stage 2  online softmax in the log2 domain: m' = max(m, rowmax(S)), P = exp2(S - m'),
//            l = l*exp2(m - m') + rowsum(P), O *= exp2(m - m'). Boundary tiles only apply the mask.
//   stage 3  V -> LDS (row pairs), P -> LDS, prefetch of the next K tile into registers; O += P.V
//            (boundary tiles: masked P is stored as -0.0 and the V elements under it are ANDed to 0, so a NaN
//            or inf in a V row the query row cannot see never reaches it; masked S is a select to -inf)
// The log2 trick: exp(x) = exp2(x * log2(e)); scaling the scores once by softmax_scale*log2(e) turns every
// exponential into one v_exp_f32 / ex2.approx. LSE = (m + log2(l)) * ln(2) converts back.
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_params.h"
#include "fmha_mask.h"
#include "fmha_seq.h"
#include "fmha_tile_math.h"

namespace rf {

template <class E, class Tile, bool kAligned>
struct FmhaFwdPipeline {
  // Device functions below re-declare T as a local constexpr copy: nvcc cannot odr-use a static data
  // member (a host object) in device code.
  static constexpr FwdTileShape T = Tile::kShape;
  using Math = VectorTileMath<E, Tile>;
  static constexpr int TM = T.rows_per_thread();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int CW = T.o_chunk_cols();
  static constexpr int CPR = T.chunks_per_row();
  static constexpr int kStage = T.stage_vectors();

  static_assert(T.valid(), "invalid tile config (see FwdTileShape::valid)");
  static_assert(T.elem_bytes == E::kBytes, "tile config built for another element size");
  static_assert(T.threads % kWaveSize == 0, "a block must hold whole waves");
  static_assert(T.threads_n <= kWaveSize, "a row group must not straddle waves");

  // ---- global -> registers -> LDS staging of K and V tiles
  RF_DEVICE static void load_k(uint4 (&stage)[kStage], const GlobalRows<E>& k, int n0, int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int it = 0; it < T.k_stage_vectors(); ++it) {
      const int id = tid + it * T.threads;
      if (id < T.block_n * CPR) stage[it] = k.template load_vec<kAligned>(n0 + id / CPR, id % CPR);
    }
  }
  RF_DEVICE static void store_k(char* lds, const uint4 (&stage)[kStage], int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int it = 0; it < T.k_stage_vectors(); ++it) {
      const int id = tid + it * T.threads;
      if (id < T.block_n * CPR) *reinterpret_cast<uint4*>(lds + T.k_write(id / CPR, id % CPR)) = stage[it];
    }
  }
  RF_DEVICE static void load_v(uint4 (&stage)[kStage], const GlobalRows<E>& v, int n0, int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int it = 0; it < T.v_stage_pairs(); ++it) {
      const int id = tid + it * T.threads;
      if (id < T.block_n / 2 * CPR) {
        const int jp = id / CPR, d = id % CPR;
        stage[2 * it] = v.template load_vec<kAligned>(n0 + 2 * jp, d);
        stage[2 * it + 1] = v.template load_vec<kAligned>(n0 + 2 * jp + 1, d);
      }
    }
  }
  RF_DEVICE static void store_v(char* lds, const uint4 (&stage)[kStage], int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int it = 0; it < T.v_stage_pairs(); ++it) {
      const int id = tid + it * T.threads;
      if (id < T.block_n / 2 * CPR) {
        const Words<8> pairs = interleave_words<E, 4>(to_words(stage[2 * it]), to_words(stage[2 * it + 1]));
        char* dst = lds + T.vp_write(id / CPR, id % CPR);
        *reinterpret_cast<uint4*>(dst) = make_uint4(pairs.w[0], pairs.w[1], pairs.w[2], pairs.w[3]);
        *reinterpret_cast<uint4*>(dst + kVectorBytes) = make_uint4(pairs.w[4], pairs.w[5], pairs.w[6], pairs.w[7]);
      }
    }
  }

  // ---- stage 2: online softmax over one S tile (in place: scores in, probabilities out)
  template <bool kMask>
  RF_DEVICE static void online_softmax(float (&s)[TM][TN], float (&m)[TM], float (&l)[TM], float (&alpha)[TM],
                                       const ScoreTransform& score, const MaskRule& rule, int m0, int n0, int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + T.row(tid, i);
      float row_max = neg_inf();
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        const int col = n0 + T.s_col(tid, c);
        float x = score(s[i][c], row, col);
        if constexpr (kMask) {
          if (!rule.visible(row, col)) x = neg_inf();
        }
        s[i][c] = x;
        row_max = rf_max(row_max, x);
      }
      row_max = group_max<T.threads_n>(row_max);
      const float m_new = rf_max(m[i], row_max);
      // A row that has seen no visible key keeps m = -inf; subtracting 0 instead keeps exp2 at 0, not NaN.
      const float base = m_new == neg_inf() ? 0.f : m_new;
      alpha[i] = rf_exp2(m[i] - base);
      m[i] = m_new;
      float row_sum = 0.f;
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        const float prob = rf_exp2(s[i][c] - base);
        row_sum += prob;
        s[i][c] = prob;
        if constexpr (kMask) {  // -0.0 marks a masked entry for the P.V product (DropMaskedA)
          if (!rule.visible(row, n0 + T.s_col(tid, c))) s[i][c] = -0.f;
        }
      }
      l[i] = l[i] * alpha[i] + row_sum;  // per-lane partial sum; reduced across the row group once, at the end
    }
  }

  RF_DEVICE static void store_p(char* lds, const float (&s)[TM][TN], int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        char* dst = lds + T.p_write(T.row(tid, i), T.s_col(tid, c));
        if constexpr (E::kBytes == 2) *reinterpret_cast<uint16_t*>(dst) = uint16_t(to_bits<E>(s[i][c]));
        else *reinterpret_cast<float*>(dst) = s[i][c];
      }
  }

  // ---- epilogue: O /= l, write O (element type) and LSE (fp32, natural log) once
  RF_DEVICE static void store_output(const FmhaFwdParams& p, const SeqInfo& seq, const float (&o)[TM][TD],
                                     const float (&m)[TM], const float (&l)[TM], int m0, int head, int batch, int tid) {
    constexpr FwdTileShape T = Tile::kShape;
    float inv_l[TM], l_rows[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) {  // every lane takes part in the reductions, rows past seqlen_q too
      l_rows[i] = group_sum<T.threads_n>(l[i]);
      // l == 0: the row saw no visible key, it outputs 0 (LSE -inf). A NaN l (NaN or inf in the inputs)
      // propagates as NaN to O and LSE instead of passing for a fully masked row.
      inv_l[i] = l_rows[i] == 0.f ? 0.f : rf_rcp(l_rows[i]);
    }
    const GlobalRows<E> out = q_side_rows<E>(p.o, p.o_batch_stride, p.o_row_stride, p.o_head_stride, seq, batch, head, p.headdim);
    store_acc_rows<E, kAligned, TM, TD, CW>(const_cast<char*>(out.base), out.row_stride_bytes, seq.seqlen_q, p.headdim, o,
                                            [&](int i) { return inv_l[i]; }, [&](int i) { return m0 + T.row(tid, i); },
                                            [&](int g) { return T.o_col(tid, g, 0); });
    if (T.lane_tx(tid) != 0) return;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + T.row(tid, i);
      if (row < seq.seqlen_q) {
        const int64_t idx = lse_index(p.seq, seq, batch, head, row);
        p.lse[idx] = l_rows[i] == 0.f ? neg_inf() : (m[i] + rf_log2(l_rows[i])) * kLn2;
        if (p.softmax_stats) {  // what O was normalised with: the backward's P = exp2(S2 - m) * inv_l
          p.softmax_stats[2 * idx] = m[i];
          p.softmax_stats[2 * idx + 1] = inv_l[i];
        }
      }
    }
  }

  RF_DEVICE static void run(const FmhaFwdParams& p, char* lds, int m_block, int head, int batch) {
    constexpr FwdTileShape T = Tile::kShape;
    const int tid = threadIdx.x;
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
        seq.seqlen_k - seq.seqlen_q);

    int tile_begin, tile_end;
    key_tile_range(rule, m0, m_end, T.block_n, &tile_begin, &tile_end);

    float o[TM][TD], m[TM], l[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      m[i] = neg_inf();
      l[i] = 0.f;
#pragma unroll
      for (int x = 0; x < TD; ++x) o[i][x] = 0.f;
    }

    if (tile_begin < tile_end) {  // uniform per block
      copy_rows_to_lds<E, kAligned>(lds, q, m0, T.block_m, CPR, [&](int r, int d) { return T.q_write(r, d); }, tid, T.threads);
      uint4 stage[kStage];
      load_k(stage, k, tile_begin * T.block_n, tid);
      store_k(lds, stage, tid);
      __syncthreads();

      for (int t = tile_begin; t < tile_end; ++t) {
        const int n0 = t * T.block_n;
        // stage 0: V tile in flight
        load_v(stage, v, n0, tid);

        // stage 1: S = Q.K^T
        float s[TM][TN];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int c = 0; c < TN; ++c) s[i][c] = 0.f;
        Math::qk(lds, tid, s);

        // stage 2: mask (boundary tiles only) and online softmax
        float alpha[TM];
        const bool boundary = tile_needs_mask(rule, m0, m_end, n0, T.block_n);  // uniform per block
        if (boundary)
          online_softmax<true>(s, m, l, alpha, score, rule, m0, n0, tid);
        else
          online_softmax<false>(s, m, l, alpha, score, rule, m0, n0, tid);
        __syncthreads();  // every lane is done reading K

        // stage 3: V, P -> LDS; next K in flight; O = alpha * O + P.V
        store_v(lds, stage, tid);
        store_p(lds, s, tid);
        if (t + 1 < tile_end) load_k(stage, k, n0 + T.block_n, tid);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int x = 0; x < TD; ++x) o[i][x] *= alpha[i];
        __syncthreads();
        if (boundary) {  // masked P is -0 and 0 * NaN = NaN: masked keys' V rows must not enter the product
          Math::pv(lds, tid, o, DropMaskedA{});
        } else {
          Math::pv(lds, tid, o);
        }
        __syncthreads();  // every lane is done reading V and P
        if (t + 1 < tile_end) {
          store_k(lds, stage, tid);
          __syncthreads();
        }
      }
    }
    store_output(p, seq, o, m, l, m0, head, batch, tid);
  }
};

// Blocks are numbered with the Br-row slice fastest, so the blocks sharing one (batch, head)'s K/V run
// together; within a head the slices run last-first (with a causal mask the last rows see the most keys:
// the longest blocks start first). A grid-stride loop covers grids larger than the launch grid.
template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_fwd_kernel(const FmhaFwdParams p) {
  extern __shared__ uint4 rf_lds[];
  const int num_m_blocks = (p.seqlen_q + Tile::kShape.block_m - 1) / Tile::kShape.block_m;
  const int64_t total = int64_t(num_m_blocks) * p.nheads * p.batch;
  for (int64_t bid = blockIdx.x; bid < total; bid += gridDim.x) {
    const int m_block = num_m_blocks - 1 - int(bid % num_m_blocks);
    const int64_t bh = bid / num_m_blocks;
    FmhaFwdPipeline<E, Tile, kAligned>::run(p, reinterpret_cast<char*>(rf_lds), m_block, int(bh % p.nheads),
                                            int(bh / p.nheads));
    __syncthreads();  // the next block of the loop reuses LDS
  }
}

}  // namespace rf
