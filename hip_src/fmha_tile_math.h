// fmha_tile_math.h - the tile products of the attention kernels, on the vector ALU (gfx906 has no
// matrix cores): 128-bit LDS reads, fp16 pairs through v_dot2_f32_f16, bf16/fp32 through fp32 FMA
// (fmha_elem.h). Two shapes of product cover the forward and the backward:
//
//   tile_rowdot   acc[i][c] += sum_d A[row i][d] * B[row c][d]         both operands row-major over d
//                 (S = Q.K^T, dP = dO.V^T; fp32 inputs accumulate in fp64: tile_rowdot_fp64)
//   tile_pairdot  acc[i][x] += sum_j A[row i][j] * B[j][col x]        A row-major over j; B either stored in
//                 row pairs (Vp[j'][2x + r] = V[2j'+r][x], the v_dot2 operand layout) or plain row-major, in
//                 which case rows 2j' and 2j'+1 are interleaved in registers after the read
//                 (O += P.V, dV += P^T.dO, dK += dS^T.Q, dQ += dS.K)
//
// Operand addresses come from callables (LDS byte offsets), so every address is computed by the tile
// layout structs (fmha_tile.h, fmha_bwd_tile.h) that the host-side bank-conflict audit evaluates too.
// Results stay in fp32 registers. VectorTileMath (below) is the forward pipeline's policy built on these
// products; fmha_mma.h is the tensor-core policy (NVIDIA sm_80+) the same pipeline takes instead (a config's
// `impl`, ck_configs/fmha_fwd.toml). The backward kernels call tile_rowdot / tile_pairdot directly (vector
// only so far).
#pragma once

#include "fmha_common.h"
#include "fmha_elem.h"
#include "fmha_tile.h"

namespace rf {

// One LDS read of kWords 32-bit words at a 4*kWords-byte aligned address (ds_read_b128 / _b64 / _b32).
template <int kWords>
RF_DEVICE Words<kWords> lds_read(const char* p) {
  Words<kWords> r;
  if constexpr (kWords == 4) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    r.w[0] = v.x; r.w[1] = v.y; r.w[2] = v.z; r.w[3] = v.w;
  } else if constexpr (kWords == 2) {
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    r.w[0] = v.x; r.w[1] = v.y;
  } else {
    static_assert(kWords == 1, "LDS reads are 4, 8 or 16 bytes");
    r.w[0] = *reinterpret_cast<const uint32_t*>(p);
  }
  return r;
}

// fp32 inputs: tile_rowdot's inner products (the scores S = Q.K^T and dP = dO.V^T) accumulate in fp64. Each
// product of two fp32 values is exact in fp64 and the fp64 sum of headdim <= 256 of them is off by at most
// headdim * 2^-53 * sum|q_d k_d|, so the one rounding to fp32 at the end gives the correctly rounded dot product
// but for sums within that distance of an fp32 rounding boundary. An fp32 FMA chain over headdim (the 16-bit
// types' arithmetic) rounds at every step: at |softmax_scale * S| in the thousands its few-ulp error, amplified
// by exp2 when the backward rebuilds P = exp2(S2 - m), left FlashAttention's rule (issue 8: ALiBi far rows,
// softmax_scale 50, dq 2.15x on the H200). The forward uses the same sums; since eco14 its score without softcap is
// the sum times softmax_scale * log2(e) in fp64, rounded once (qk_fp64), as the fp32 autograd backward's shifted score;
// the backward from an LSE alone (the ring's) forms the same bits (fmha_bwd_kernel.h tile_s_and_dp, eco15: it rebuilds
// P = exp2(S2 - m) with m from the LSE, so S2 must be the forward's S2, not float32(S) * scale_log2, one rounding of
// |S2| apart). Ascending d, one FMA per element, as dot_word's order (the
// preprocess's D = dO . O for fp32 is the same fp64 sum, bit for bit a one-hot row's dP).
// The one rounding of each fp64 sum to fp32 (tile_rowdot_fp64's default epilogue).
struct RoundFp64 {
  RF_DEVICE float operator()(int, int, double wide) const { return float(wide); }
};

// `epi(i, c, wide)` maps each element's fp64 sum to its fp32 result (RoundFp64: the sum rounded; the fp32 scores:
// the sum times ScoreTransform::fp64_multiplier() rounded once (the forward's qk_fp64, the backward from an LSE), or
// ScoreTransform::shifted_log2, the autograd backward's shifted score rounded once).
template <int TM, int TN, class AddrA, class AddrB, class Epi = RoundFp64>
RF_DEVICE void tile_rowdot_fp64(const char* lds, int num_vecs, AddrA a, AddrB b, float (&acc)[TM][TN], Epi epi = {}) {
  double wide[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int c = 0; c < TN; ++c) wide[i][c] = double(acc[i][c]);
#pragma unroll 1  // one 128-bit vector of each operand at a time: the fp64 sums and widened operands need
                  // twice the registers (the fp32 d32 backward spilled at its designed 2 waves/SIMD with 2)
  for (int d = 0; d < num_vecs; ++d) {
    Words<4> x[TM], y[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) x[i] = lds_read<4>(lds + a(i, d));
#pragma unroll
    for (int c = 0; c < TN; ++c) y[c] = lds_read<4>(lds + b(c, d));
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      double xd[TM], yd[TN];  // each operand widened once per word, not once per product
#pragma unroll
      for (int i = 0; i < TM; ++i) xd[i] = double(__uint_as_float(x[i].w[w]));
#pragma unroll
      for (int c = 0; c < TN; ++c) yd[c] = double(__uint_as_float(y[c].w[w]));
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int c = 0; c < TN; ++c) wide[i][c] = rf_fma_f64(xd[i], yd[c], wide[i][c]);
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[i][c] = epi(i, c, wide[i][c]);
}

// acc[i][c] += sum over num_vecs 128-bit vectors d of A(i, d) . B(c, d); a(i, d), b(c, d) give LDS byte offsets.
// 16-bit types: dot_word's fp32 chain (v_dot2_f32_f16 for fp16); fp32: tile_rowdot_fp64 (above).
template <class E, int TM, int TN, class AddrA, class AddrB>
RF_DEVICE void tile_rowdot(const char* lds, int num_vecs, AddrA a, AddrB b, float (&acc)[TM][TN]) {
  if constexpr (E::kDType == DType::kFp32) {
    tile_rowdot_fp64<TM, TN>(lds, num_vecs, a, b, acc);
  } else {
#pragma unroll 2
    for (int d = 0; d < num_vecs; ++d) {
      Words<4> x[TM], y[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) x[i] = lds_read<4>(lds + a(i, d));
#pragma unroll
      for (int c = 0; c < TN; ++c) y[c] = lds_read<4>(lds + b(c, d));
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int c = 0; c < TN; ++c)
#pragma unroll
          for (int w = 0; w < 4; ++w) acc[i][c] = dot_word<E>(x[i].w[w], y[c].w[w], acc[i][c]);
    }
  }
}

// Which rows j of B each row i of A may combine with in a masked product: all (the unmasked fast path).
struct KeepAllRows {
  static constexpr bool kMasked = false;
};

// Boundary tiles: A holds -0.0 at masked entries (fmha_elem.h, keep_mask_of); B elements under them are
// ANDed to +0 before the product, so B row j of a masked (i, j) (maybe NaN or inf: a key the query row cannot
// see) never reaches acc[i]. No extra registers: the mask comes from the A word already loaded.
struct DropMaskedA {
  static constexpr bool kMasked = true;
};

// acc[i][g*CW + e] += sum_j A[i][j] * B[j][col(g, e)] over the num_a_vecs 128-bit vectors of A's rows.
//   a(i, v):      LDS offset of vector v of A's row i (elements j = v*vec .. v*vec+vec-1)
//   kInterleaved: b(jp, g) = offset of the CW column pairs (B[2jp][col], B[2jp+1][col]) of chunk g
//   otherwise:    b(j, g)  = offset of the CW elements of B's row j in chunk g (interleaved after the read)
//   rows:         KeepAllRows, or DropMaskedA on boundary tiles: B elements under a -0.0 A element are
//                 replaced by +0 with a bitwise AND before the product
template <class E, int TM, int TD, int CW, bool kInterleaved, class AddrA, class AddrB, class Rows = KeepAllRows>
RF_DEVICE void tile_pairdot(const char* lds, int num_a_vecs, AddrA a, AddrB b, float (&acc)[TM][TD],
                            Rows = Rows{}) {
  constexpr int kPairWords = E::kPerWord == 2 ? 1 : 2;          // words per (row 2j', row 2j'+1) pair
  constexpr int kPairsPerVec = kVectorBytes / (2 * E::kBytes);  // pairs in one 128-bit read of A
  constexpr int kRowWords = CW * E::kBytes / 4;                 // words of CW elements of one row
#pragma unroll 1
  for (int v = 0; v < num_a_vecs; ++v) {
    Words<4> x[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) x[i] = lds_read<4>(lds + a(i, v));
#pragma unroll
    for (int pp = 0; pp < kPairsPerVec; ++pp) {
      const int jp = v * kPairsPerVec + pp;
#pragma unroll
      for (int g = 0; g < TD / CW; ++g) {
        Words<CW * kPairWords> y;
        if constexpr (kInterleaved) {
          y = lds_read<CW * kPairWords>(lds + b(jp, g));
        } else {
          y = interleave_words<E, kRowWords>(lds_read<kRowWords>(lds + b(2 * jp, g)),
                                             lds_read<kRowWords>(lds + b(2 * jp + 1, g)));
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int e = 0; e < CW; ++e)
#pragma unroll
            for (int w = 0; w < kPairWords; ++w) {
              const uint32_t xw = x[i].w[pp * kPairWords + w];
              uint32_t yw = y.w[e * kPairWords + w];
              if constexpr (Rows::kMasked) yw &= keep_mask_of<E>(xw);
              acc[i][g * CW + e] = dot_word<E>(xw, yw, acc[i][g * CW + e]);
            }
      }
    }
  }
}

// The forward pipeline's policy on the vector ALU (fmha_fwd_kernel.h; fmha_mma.h is the tensor-core one).
// A policy owns the accumulator layout (row / s_col / o_col, the lanes sharing a row), the LDS layout of
// its operands and the stages that move K, V and P to where its products read them:
//   prologue     Q and the first K tile into LDS
//   issue_v      stage 0: V(n0) in flight during stage 1
//   qk           stage 1: s += Q.K^T
//   exchange     stage 3a: after the softmax, V and P to their operand places; the next K in flight
//   pv           stage 3b: o += P.V
//   finish_tile  the next K in place, every read of this tile's operands done
// Here K and V are staged through registers into one shared KV buffer (V in row pairs, the v_dot2 operand
// layout) and P goes through LDS in the element type.
template <class E, class Tile, bool kAligned>
struct VectorTileMath {
  // Device functions re-declare T as a local constexpr copy: nvcc cannot odr-use a static data
  // member (a host object) in device code.
  static constexpr FwdTileShape T = Tile::kShape;
  static constexpr int TM = T.rows_per_thread();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int CW = T.o_chunk_cols();
  static constexpr int CPR = T.chunks_per_row();
  static constexpr int kStage = T.stage_vectors();
  static constexpr int kRowLanes = T.threads_n;
  static constexpr bool kPlainScorePath = false;  // the softmax as audited on gfx906 (see FmhaFwdPipeline)

  static_assert(T.valid(), "invalid tile config (see FwdTileShape::valid)");
  static_assert(T.elem_bytes == E::kBytes, "tile config built for another element size");
  static_assert(T.threads % kWaveSize == 0, "a block must hold whole waves");
  static_assert(T.threads_n <= kWaveSize, "a row group must not straddle waves");

  uint4 stage[kStage];  // the K or V tile on its way from global memory to LDS

  // ---- accumulator layout
  RF_DEVICE static int row(int tid, int i) { constexpr FwdTileShape T = Tile::kShape; return T.row(tid, i); }
  RF_DEVICE static int s_col(int tid, int c) { constexpr FwdTileShape T = Tile::kShape; return T.s_col(tid, c); }
  RF_DEVICE static int o_col(int tid, int g, int e) { constexpr FwdTileShape T = Tile::kShape; return T.o_col(tid, g, e); }
  RF_DEVICE static bool row_leader(int tid) { constexpr FwdTileShape T = Tile::kShape; return T.lane_tx(tid) == 0; }

  // ---- global -> registers -> LDS staging of K and V tiles
  RF_DEVICE void load_k(const GlobalRows<E>& k, int n0, int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int it = 0; it < T.k_stage_vectors(); ++it) {
      const int id = tid + it * T.threads;
      if (id < T.block_n * CPR) stage[it] = k.template load_vec<kAligned>(n0 + id / CPR, id % CPR);
    }
  }
  RF_DEVICE void store_k(char* lds, int tid) const {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int it = 0; it < T.k_stage_vectors(); ++it) {
      const int id = tid + it * T.threads;
      if (id < T.block_n * CPR) *reinterpret_cast<uint4*>(lds + T.k_write(id / CPR, id % CPR)) = stage[it];
    }
  }
  RF_DEVICE void load_v(const GlobalRows<E>& v, int n0, int tid) {
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
  RF_DEVICE void store_v(char* lds, int tid) const {
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
  RF_DEVICE static void store_p(char* lds, const float (&s)[TM][TN], int tid) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int c = 0; c < TN; ++c) store_elem<E>(lds + T.p_write(T.row(tid, i), T.s_col(tid, c)), s[i][c]);
  }

  // ---- the pipeline's stages
  RF_DEVICE void prologue(char* lds, const GlobalRows<E>& q, const GlobalRows<E>& k, int m0, int n0, int tid) {
    constexpr FwdTileShape T = Tile::kShape;
    copy_rows_to_lds<E, kAligned>(lds, q, m0, T.block_m, CPR, [&](int r, int d) { return T.q_write(r, d); }, tid, T.threads);
    load_k(k, n0, tid);
    store_k(lds, tid);
    __syncthreads();
  }

  RF_DEVICE void issue_v(char*, const GlobalRows<E>& v, int n0, int tid) { load_v(v, n0, tid); }

  // stage 1: s[i][c] += Q[row(i)] . K[s_col(c)]   (S = Q.K^T, raw scores)
  RF_DEVICE void qk(const char* lds, int tid, float (&s)[TM][TN]) const {
    constexpr FwdTileShape T = Tile::kShape;
    tile_rowdot<E, TM, TN>(lds, T.chunks_per_row(), [&](int i, int d) { return T.q_read(tid, i, d); },
                           [&](int c, int d) { return T.k_read(tid, c, d); }, s);
  }

  // stage 1 for float32 inputs (eco14): s[i][c] = float32(fp64 sum of Q[row(i)] . K[s_col(c)] * mult), one rounding;
  // mult = ScoreTransform::fp64_multiplier() (softmax_scale * log2(e) in fp64 without softcap, else cap_scale: the
  // cap's argument, eco16): the pipeline then takes the score through ScoreTransform::from_fp64_sum.
  RF_DEVICE void qk_fp64(const char* lds, int tid, float (&s)[TM][TN], double mult) const {
    constexpr FwdTileShape T = Tile::kShape;
    tile_rowdot_fp64<TM, TN>(lds, T.chunks_per_row(), [&](int i, int d) { return T.q_read(tid, i, d); },
                             [&](int c, int d) { return T.k_read(tid, c, d); }, s,
                             [mult](int, int, double wide) { return float(rf_mul_rn_f64(wide, mult)); });
  }

  // stage 3a: every lane is done reading K: V, P -> LDS; the next K tile in flight (registers).
  RF_DEVICE void exchange(char* lds, const GlobalRows<E>& k, const float (&s)[TM][TN], int next_n0, bool has_next,
                          int tid) {
    __syncthreads();
    store_v(lds, tid);
    store_p(lds, s, tid);
    if (has_next) load_k(k, next_n0, tid);
    __syncthreads();
  }

  // stage 3b: o[i][x] += sum_j P[row(i)][j] * V[j][o_col(x)]   (P from LDS in the element type, V in row pairs)
  RF_DEVICE void pv(const char* lds, int tid, const float (&)[TM][TN], float (&o)[TM][TD]) const {
    constexpr FwdTileShape T = Tile::kShape;
    tile_pairdot<E, TM, TD, T.o_chunk_cols(), true>(lds, T.block_n * E::kBytes / kVectorBytes,
                                                    [&](int i, int v) { return T.p_read(tid, i, v); },
                                                    [&](int jp, int g) { return T.v_read(tid, jp, g); }, o);
  }

  // stage 3b on a boundary tile: DropMaskedA keeps each row's masked keys out (their P was stored as -0.0 by
  // the softmax): their V rows are never multiplied. (`visible` is the tensor-core policy's interface.)
  template <class Visible>
  RF_DEVICE void pv_masked(const char* lds, int tid, const float (&)[TM][TN], float (&o)[TM][TD], Visible) const {
    constexpr FwdTileShape T = Tile::kShape;
    tile_pairdot<E, TM, TD, T.o_chunk_cols(), true>(lds, T.block_n * E::kBytes / kVectorBytes,
                                                    [&](int i, int v) { return T.p_read(tid, i, v); },
                                                    [&](int jp, int g) { return T.v_read(tid, jp, g); }, o,
                                                    DropMaskedA{});
  }

  RF_DEVICE void finish_tile(char* lds, bool has_next, int tid) {
    __syncthreads();  // every lane is done reading V and P
    if (has_next) {
      store_k(lds, tid);
      __syncthreads();
    }
  }
};

}  // namespace rf
