// fmha_mma_bwd_dq.h - the tensor-core backward's dQ kernel (deterministic=True; NVIDIA sm_80+, fp16 and bf16 inputs,
// fp32 accumulation): per block of block_m query rows, S = Q.K^T, dP = dO.V^T, dS and dQ += dS.K over the key tiles,
// one write per dQ element (bitwise repeatable). The formulation, masks and K guard are fmha_mma_bwd.h's (see its
// file comment); the shared pieces (MmaBwdOps) live there. Only the CUDA build includes this file
// (fmha_bwd_launch.h under RF_PLATFORM_CUDA).
#pragma once

#include "fmha_mma_bwd.h"

namespace rf {

// dQ kernel: one block per (block_m query rows, head, batch); warp w owns rows m0 + [w*Wr, (w+1)*Wr), Wr = 16 * MT.
template <class E, class Tile, bool kAligned>
struct MmaBwdDqPipeline {
  static constexpr MmaBwdDqShape T = Tile::kShape;
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int KD = T.headdim / MmaBwdTileBase::kMmaK;
  static constexpr int MT = T.m_tiles();
  static constexpr int TM = 2 * MT;  // accumulator rows per thread (query rows)
  using Ops = MmaBwdOps<E, MmaBwdDqShape, kAligned>;
  static_assert(T.valid(), "invalid tensor-core dQ tile config (see MmaBwdDqShape::valid)");
  static_assert(T.elem_bytes == E::kBytes && E::kBytes == 2, "the tensor-core tile math takes fp16 or bf16");
  static_assert(kWaveSize == MmaBwdTileBase::kWarpLanes, "mma.sync fragments are laid out over 32 lanes");

  RF_DEVICE static void issue_kv(char* lds, const GlobalRows<E>& k, const GlobalRows<E>& v, int n0, int buf, int tid) {
    constexpr MmaBwdDqShape T = Tile::kShape;
    Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row()>(lds, k, n0, [&](int r, int d) { return T.write(T.k_offset(buf), r, d); }, tid);
    Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row()>(lds, v, n0, [&](int r, int d) { return T.write(T.v_offset(buf), r, d); }, tid);
    mma::cp_async_commit();
  }

  template <bool kMask>
  RF_DEVICE static void grads(const ScoreTransform& score, const MaskRule& rule, int m0, int n0, int tid,
                              const float (&row_max)[TM], const float (&inv_l)[TM], const float (&delta)[TM],
                              const float (&s)[TM][TN], float (&dp)[TM][TN]) {
    constexpr MmaBwdDqShape T = Tile::kShape;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + T.row(tid, i);
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        const int col = n0 + T.frag_col(tid, c);
        const float prob = rf_exp2(score(s[i][c], row, col) - row_max[i]) * inv_l[i];
        float ds = prob * (dp[i][c] - delta[i]) * score.grad_factor(s[i][c]);
        if constexpr (kMask) {  // a select: S and dP of a masked pair may be NaN
          // (per element, not visible_key_span: the rows' spans are loop-invariant here, and ptxas keeps them in
          // registers across the key-tile loop, which made the d64 two-tile kernel spill on sm_80)
          if (!(row < rule.seqlen_q && rule.visible(row, col))) ds = 0.f;
        }
        dp[i][c] = ds;
      }
    }
  }

  // The K guard of a boundary tile (see the file comment): visible(i, j) says whether accumulator row i sees
  // key j of the tile.
  template <class Visible>
  RF_DEVICE static void guard_k(char* lds, int buf, int tid, float (&dq)[TM][TD], Visible visible) {
    constexpr MmaBwdDqShape T = Tile::kShape;
    constexpr int CPR = T.chunks_per_row();
    bool found = false;
#pragma unroll 1
    for (int id = tid; id < T.block_n * CPR; id += T.threads)
      found |= mma::has_nonfinite<E>(*reinterpret_cast<const uint4*>(lds + T.write(T.k_offset(buf), id / CPR, id % CPR)));
    if (!__syncthreads_or(found)) return;  // also: every warp is done reading K for S = Q.K^T
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) {
        const int col = T.o_col(tid, x / 2, x % 2);
#pragma unroll 1
        for (int j = 0; j < T.block_n; ++j) {  // rolled: a rare path, kept small
          const uint32_t bits = *reinterpret_cast<const uint16_t*>(lds + T.write(T.k_offset(buf), j, 0) + col * E::kBytes);
          if (mma::nonfinite16<E>(bits) && visible(i, j)) dq[i][x] += mma::to_float<E>(bits);
        }
      }
    __syncthreads();
#pragma unroll 1
    for (int id = tid; id < T.block_n * CPR; id += T.threads) {
      uint4* w = reinterpret_cast<uint4*>(lds + T.write(T.k_offset(buf), id / CPR, id % CPR));
      *w = mma::zero_nonfinite<E>(*w);
    }
    __syncthreads();
  }

  RF_DEVICE static void run(const FmhaBwdParams& p, char* lds, int m_block, int head, int batch) {
    constexpr MmaBwdDqShape T = Tile::kShape;
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

    float dq[TM][TD];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) dq[i][x] = 0.f;

    int tile_begin, tile_end;
    key_tile_range(rule, m0, m_end, T.block_n, &tile_begin, &tile_end);
    if (tile_begin < tile_end) {  // uniform
      Ops::template copy_rows<T.block_m, T.threads, T.chunks_per_row()>(lds, q, m0, [&](int r, int d) { return T.write(T.q_offset(), r, d); }, tid);
      Ops::template copy_rows<T.block_m, T.threads, T.chunks_per_row()>(lds, dout, m0, [&](int r, int d) { return T.write(T.do_offset(), r, d); }, tid);
      issue_kv(lds, k, v, tile_begin * T.block_n, 0, tid);  // one group with Q, dO
      float row_max[TM], inv_l[TM], delta[TM];
#pragma unroll
      for (int i = 0; i < TM; ++i) load_row_stats(p, seq, batch, head, m0 + T.row(tid, i), &row_max[i], &inv_l[i], &delta[i]);
      const int row0 = T.warp(tid) * T.rows_per_warp();
      for (int t = tile_begin; t < tile_end; ++t) {
        const int buf = (t - tile_begin) & 1;
        const int n0 = t * T.block_n;
        __syncthreads();  // every warp is done with buffer buf ^ 1 (tile t - 1)
        if (t + 1 < tile_end) {
          issue_kv(lds, k, v, n0 + T.block_n, buf ^ 1, tid);
          mma::cp_async_wait<1>();
        } else {
          mma::cp_async_wait<0>();
        }
        __syncthreads();

        float s[TM][TN], dp[TM][TN];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int c = 0; c < TN; ++c) s[i][c] = dp[i][c] = 0.f;
        // S = Q.K^T, dP = dO.V^T
        Ops::template gemm_rows_by_rows<T.block_n, KD, MT>(lds, T, tid, T.q_offset(), row0, T.k_offset(buf), s);
        Ops::template gemm_rows_by_rows<T.block_n, KD, MT>(lds, T, tid, T.do_offset(), row0, T.v_offset(buf), dp);
        if (tile_needs_mask(rule, m0, m_end, n0, T.block_n)) {  // uniform per block
          grads<true>(score, rule, m0, n0, tid, row_max, inv_l, delta, s, dp);
          guard_k(lds, buf, tid, dq, [&](int i, int j) {
            const int row = m0 + T.row(tid, i);
            return row < rule.seqlen_q && rule.visible(row, n0 + j);
          });
        } else {
          grads<false>(score, rule, m0, n0, tid, row_max, inv_l, delta, s, dp);
        }
        // dQ += dS.K (K row-major [key][headdim]: ldmatrix.trans)
        Ops::template gemm_frag_by_rows<TN, KD, MT>(lds, T, tid, dp, T.k_offset(buf), dq);
      }
    }
    const auto dq_rows = q_side_rows<E>(p.dq, p.dq_batch_stride, p.dq_row_stride, p.dq_head_stride, seq, batch, head, p.headdim);
    store_acc_rows<E, kAligned, TM, TD, 2>(const_cast<char*>(dq_rows.base), dq_rows.row_stride_bytes, seq.seqlen_q, p.headdim, dq,
                                          [&](int) { return p.softmax_scale; }, [&](int i) { return m0 + T.row(tid, i); },
                                          [&](int g) { return T.o_col(tid, g, 0); });
  }
};

// Query blocks of one (batch, head) run last-first: with a causal mask the last rows see the most keys.
template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dq_mma_kernel(const FmhaBwdParams p) {
  extern __shared__ uint4 rf_lds[];
  const int num_m_blocks = (p.seqlen_q + Tile::kShape.block_m - 1) / Tile::kShape.block_m;
  bwd_grid_walk(num_m_blocks, p.nheads, p.batch, [&](int m_block, int head, int batch) {
    MmaBwdDqPipeline<E, Tile, kAligned>::run(p, reinterpret_cast<char*>(rf_lds), num_m_blocks - 1 - m_block, head, batch);
  });
}

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_bwd_dq_mma(const FmhaBwdParams& p, rfStream_t stream) {
  constexpr MmaBwdDqShape T = Tile::kShape;
  const int64_t total = (int64_t(p.seqlen_q) + T.block_m - 1) / T.block_m * p.nheads * p.batch;
  return launch_grid_stride(fmha_bwd_dq_mma_kernel<E, Tile, kAligned>, p, total, T.threads, T.lds_bytes(), stream);
}

}  // namespace rf
