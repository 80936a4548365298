// fmha_mma_tile.h - tile shape, accumulator layout and shared-memory layout of the forward kernel's
// tensor-core tile math (fmha_mma.h, NVIDIA sm_80+), as constexpr data. Plain C++17 like fmha_tile.h: the
// kernel, the launcher (lds_bytes) and the host-side probe read the same functions.
//
// Warps split the Br = block_m query rows: warp w owns rows [w*Wr, (w+1)*Wr), Wr = block_m / warps, in
// MT = Wr/16 mma row tiles. Every product is mma.sync m16n8k16 (PTX ISA, "Matrix fragments for mma.m16n8k16"):
// in an m16n8 fp32 accumulator lane l holds rows g = l/4 and g + 8, columns 2t and 2t + 1 (t = l % 4). So
// a thread owns TM = 2*MT rows and, per 8-column tile, 2 columns; the four lanes 4g..4g+3 share a row,
// which makes the softmax row max / row sum a reduction over 4 consecutive lanes (threads_n = 4).
//
//   S accumulator  s[i][c]:  row(tid, i)  = w*Wr + (i/2)*16 + (i%2)*8 + g,   s_col(tid, c) = (c/2)*8 + 2t + c%2
//   O accumulator  o[i][x]:  same rows,                                     o_col(tid, x/2, x%2)
//
// Shared memory (bytes; rows padded by lds_pad_bytes = 16 so the eight 16-byte rows of one ldmatrix phase
// fall in eight different 16-byte bank groups whenever (headdim*2)/16 is even):
//   Q  [block_m][headdim*2 + pad]    loaded once
//   K  [block_n][headdim*2 + pad]    row-major, read by ldmatrix as the "col" B operand of S = Q.K^T
//   V  [block_n][headdim*2 + pad]    row-major, read by ldmatrix.trans as the B operand of O += P.V
// K and V have their own buffers, so V(t) is in flight during S = Q.K^T and K(t+1) during O += P.V.
// P never leaves registers: the S accumulator of two 8-column tiles is the A fragment of one k16 step.
#pragma once

#include "fmha_tile.h"

namespace rf {

struct MmaFwdTileShape {
  int headdim;        // headdim bucket
  int block_m;        // Br
  int block_n;        // Bc
  int threads;        // threads per block (whole warps)
  int threads_n;      // lanes sharing one accumulator row: 4, fixed by the mma fragment
  int lds_pad_bytes;  // padding after each Q/K/V row
  int elem_bytes;     // 2: fp16 or bf16 (fp32 inputs keep the vector tile math)

  static constexpr int kWarpLanes = 32;  // mma.sync is a warp-wide instruction of 32 lanes on every NVIDIA arch
  static constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
  static constexpr int kRowLanes = 4;    // lanes sharing one accumulator row

  // ---- thread mapping
  RF_HDC int warps() const { return threads / kWarpLanes; }
  RF_HDC int rows_per_warp() const { return block_m / warps(); }
  RF_HDC int m_tiles() const { return rows_per_warp() / kMmaM; }         // MT
  RF_HDC int rows_per_thread() const { return 2 * m_tiles(); }           // TM
  RF_HDC int s_cols_per_thread() const { return 2 * (block_n / kMmaN); }  // TN
  RF_HDC int o_cols_per_thread() const { return 2 * (headdim / kMmaN); }  // TD
  RF_HDC int vec_elems() const { return kVectorBytes / elem_bytes; }
  RF_HDC int chunks_per_row() const { return headdim / vec_elems(); }    // 16-byte vectors per row

  RF_HDC int warp(int tid) const { return tid / kWarpLanes; }
  RF_HDC int lane(int tid) const { return tid % kWarpLanes; }
  RF_HDC int row(int tid, int i) const {
    return warp(tid) * rows_per_warp() + (i / 2) * kMmaM + (i % 2) * 8 + lane(tid) / kRowLanes;
  }
  RF_HDC int s_col(int tid, int c) const { return (c / 2) * kMmaN + 2 * (lane(tid) % kRowLanes) + c % 2; }
  RF_HDC int o_col(int tid, int g, int e) const { return g * kMmaN + 2 * (lane(tid) % kRowLanes) + e; }
  RF_HDC bool row_leader(int tid) const { return lane(tid) % kRowLanes == 0; }

  // ---- shared memory layout (bytes)
  RF_HDC int row_bytes() const { return headdim * elem_bytes + lds_pad_bytes; }
  RF_HDC int q_offset() const { return 0; }
  RF_HDC int k_offset() const { return block_m * row_bytes(); }
  RF_HDC int v_offset() const { return k_offset() + block_n * row_bytes(); }
  RF_HDC int lds_bytes() const { return v_offset() + block_n * row_bytes(); }

  // ---- ldmatrix row addresses of lane l (each x4 load: lanes 8i..8i+7 address the rows of 8x8 matrix i)
  // Q, A operand of m-tile mt at k-step kk: matrices (rows 0-7|8-15) x (k 0-7|8-15) = a0, a1, a2, a3.
  RF_HDC int q_read(int tid, int mt, int kk) const {
    const int l = lane(tid);
    return q_offset() + (warp(tid) * rows_per_warp() + mt * kMmaM + l % 16) * row_bytes() +
           (kk * 2 + l / 16) * kVectorBytes;
  }
  // K, B operands of the key tiles 2np and 2np+1 at k-step kk: (keys 0-7, k 0-7 | 8-15), (keys 8-15, ...).
  RF_HDC int k_read(int tid, int np, int kk) const {
    const int l = lane(tid);
    return k_offset() + (np * 16 + l % 8 + 8 * (l / 16)) * row_bytes() + (kk * 2 + (l / 8) % 2) * kVectorBytes;
  }
  // V (transposed load), B operands of the column tiles 2dp and 2dp+1 at key step kk:
  // (keys 0-7 | 8-15, cols 0-7), then (keys 0-7 | 8-15, cols 8-15).
  RF_HDC int v_read(int tid, int kk, int dp) const {
    const int l = lane(tid);
    return v_offset() + (kk * 16 + l % 8 + 8 * ((l / 8) % 2)) * row_bytes() + (dp * 2 + l / 16) * kVectorBytes;
  }
  // global -> shared copies: 16-byte vector d of tile row r
  RF_HDC int q_write(int r, int d) const { return q_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int k_write(int r, int d) const { return k_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int v_write(int r, int d) const { return v_offset() + r * row_bytes() + d * kVectorBytes; }

  RF_HDC bool valid() const {
    return elem_bytes == 2 && threads_n == kRowLanes && threads % kWarpLanes == 0 && threads > 0 &&
           block_m % (kMmaM * warps()) == 0 && block_n % 16 == 0 && headdim % 16 == 0 &&
           lds_pad_bytes % kVectorBytes == 0;
  }
};

}  // namespace rf
