// fmha_tile_math.h - the forward kernel's two tile products behind one small interface:
//
//   qk(lds, tid, s)   stage 1:  s[i][c] += sum_d Q[row(i)][d] * K[s_col(c)][d]     (S = Q.K^T, raw scores)
//   pv(lds, tid, o)   stage 3:  o[i][x] += sum_j P[row(i)][j] * V[j][o_col(x)]     (O += P.V)
//
// Operands come from LDS in the layout of fmha_tile.h; results stay in fp32 registers in the thread
// mapping of fmha_tile.h, which is all the softmax, masking and load/store stages rely on. A matrix-core
// implementation (MFMA on CDNA, tensor cores on NVIDIA) replaces this struct without touching them.
//
// VectorTileMath: the vector-ALU version for gfx906 (no matrix cores): 128-bit LDS reads, fp16 pairs
// through v_dot2_f32_f16, bf16/fp32 through fp32 FMA (see fmha_elem.h).
#pragma once

#include "fmha_elem.h"
#include "fmha_tile.h"

namespace rf {

template <int kWords>
struct Words {
  uint32_t w[kWords];
};

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

template <class E, class Tile>
struct VectorTileMath {
  // Device functions below re-declare T as a local constexpr copy: nvcc cannot odr-use a static data
  // member (a host object) in device code.
  static constexpr FwdTileShape T = Tile::kShape;
  static constexpr int TM = T.rows_per_thread();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int CW = T.o_chunk_cols();
  static constexpr int kPairWords = E::kPerWord == 2 ? 1 : 2;           // words per (row 2j', row 2j'+1) pair
  static constexpr int kPairsPerVec = kVectorBytes / T.pair_bytes();    // pairs per 128-bit P read
  static constexpr int kPVecsPerRow = T.block_n * E::kBytes / kVectorBytes;

  // -- stage 1: S = Q.K^T (raw, unscaled), accumulated into s
  RF_DEVICE static void qk(const char* lds, int tid, float (&s)[TM][TN]) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll 2
    for (int d = 0; d < T.chunks_per_row(); ++d) {
      Words<4> q[TM], k[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) q[i] = lds_read<4>(lds + T.q_read(tid, i, d));
#pragma unroll
      for (int c = 0; c < TN; ++c) k[c] = lds_read<4>(lds + T.k_read(tid, c, d));
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int c = 0; c < TN; ++c)
#pragma unroll
          for (int w = 0; w < 4; ++w) s[i][c] = dot_word<E>(q[i].w[w], k[c].w[w], s[i][c]);
    }
  }

  // -- stage 3: O += P.V, P from LDS in the element type, V in row pairs (Vp)
  RF_DEVICE static void pv(const char* lds, int tid, float (&o)[TM][TD]) {
    constexpr FwdTileShape T = Tile::kShape;
#pragma unroll 1
    for (int j = 0; j < kPVecsPerRow; ++j) {
      Words<4> p[TM];
#pragma unroll
      for (int i = 0; i < TM; ++i) p[i] = lds_read<4>(lds + T.p_read(tid, i, j));
#pragma unroll
      for (int pp = 0; pp < kPairsPerVec; ++pp) {
        const int jp = j * kPairsPerVec + pp;
#pragma unroll
        for (int g = 0; g < TD / CW; ++g) {
          const Words<CW * kPairWords> v = lds_read<CW * kPairWords>(lds + T.v_read(tid, jp, g));
#pragma unroll
          for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int e = 0; e < CW; ++e)
#pragma unroll
              for (int w = 0; w < kPairWords; ++w)
                o[i][g * CW + e] = dot_word<E>(p[i].w[pp * kPairWords + w], v.w[e * kPairWords + w], o[i][g * CW + e]);
        }
      }
    }
  }
};

}  // namespace rf
