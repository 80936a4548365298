// fmha_tile_math.h - the tile products of the attention kernels, on the vector ALU (gfx906 has no
// matrix cores): 128-bit LDS reads, fp16 pairs through v_dot2_f32_f16, bf16/fp32 through fp32 FMA
// (fmha_elem.h). Two shapes of product cover the forward and the backward:
//
//   tile_rowdot   acc[i][c] += sum_d A[row i][d] * B[row c][d]         both operands row-major over d
//                 (S = Q.K^T, dP = dO.V^T)
//   tile_pairdot  acc[i][x] += sum_j A[row i][j] * B[j][col x]        A row-major over j; B either stored in
//                 row pairs (Vp[j'][2x + r] = V[2j'+r][x], the v_dot2 operand layout) or plain row-major, in
//                 which case rows 2j' and 2j'+1 are interleaved in registers after the read
//                 (O += P.V, dV += P^T.dO, dK += dS^T.Q, dQ += dS.K)
//
// Operand addresses come from callables (LDS byte offsets), so every address is computed by the tile
// layout structs (fmha_tile.h, fmha_bwd_tile.h) that the host-side bank-conflict audit evaluates too.
// Results stay in fp32 registers. A matrix-core implementation (MFMA on CDNA, tensor cores on NVIDIA)
// replaces VectorTileMath without touching softmax, masking or the load/store stages.
#pragma once

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

// acc[i][c] += sum over num_vecs 128-bit vectors d of A(i, d) . B(c, d); a(i, d), b(c, d) give LDS byte offsets.
template <class E, int TM, int TN, class AddrA, class AddrB>
RF_DEVICE void tile_rowdot(const char* lds, int num_vecs, AddrA a, AddrB b, float (&acc)[TM][TN]) {
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

// The forward kernel's two products (interface kept small so a matrix-core version can replace it).
template <class E, class Tile>
struct VectorTileMath {
  // Device functions re-declare T as a local constexpr copy: nvcc cannot odr-use a static data
  // member (a host object) in device code.
  static constexpr FwdTileShape T = Tile::kShape;
  static constexpr int TM = T.rows_per_thread();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();

  // stage 1: s[i][c] += Q[row(i)] . K[s_col(c)]   (S = Q.K^T, raw scores)
  RF_DEVICE static void qk(const char* lds, int tid, float (&s)[TM][TN]) {
    constexpr FwdTileShape T = Tile::kShape;
    tile_rowdot<E, TM, TN>(lds, T.chunks_per_row(), [&](int i, int d) { return T.q_read(tid, i, d); },
                           [&](int c, int d) { return T.k_read(tid, c, d); }, s);
  }

  // stage 3: o[i][x] += sum_j P[row(i)][j] * V[j][o_col(x)]   (P from LDS in the element type, V in row pairs)
  // On boundary tiles `rows` (DropMaskedA) keeps each row's masked keys out: their V rows are never multiplied.
  template <class Rows = KeepAllRows>
  RF_DEVICE static void pv(const char* lds, int tid, float (&o)[TM][TD], Rows rows = Rows{}) {
    constexpr FwdTileShape T = Tile::kShape;
    tile_pairdot<E, TM, TD, T.o_chunk_cols(), true>(lds, T.block_n * E::kBytes / kVectorBytes,
                                                    [&](int i, int v) { return T.p_read(tid, i, v); },
                                                    [&](int jp, int g) { return T.v_read(tid, jp, g); }, o, rows);
  }
};

}  // namespace rf
