// fmha_bwd_tile.h - tile shape, thread mapping and LDS layout of the two backward kernels, as constexpr
// data (plain C++17, shared with the host-side audit like fmha_tile.h).
//
// FlashAttention-2 backward (Dao 2023, Algorithm 2), split in two kernels so that no gradient needs an
// atomic (deterministic by construction, GQA sums included):
//   dK/dV kernel: a block owns Bc = block_n keys of one (batch, head_k); it walks every query head of the
//                 GQA group and every query tile of Br = block_m rows that sees its keys, and accumulates
//                 dV += P^T.dO and dK += dS^T.Q in registers.
//   dQ kernel:    a block owns Br = block_m query rows of one (batch, head); it walks the K/V tiles its rows
//                 see and accumulates dQ += dS.K in registers (recomputing S, P, dP, dS).
// Both recompute S = Q.K^T and dP = dO.V^T with the same S-tile thread mapping as the forward:
//   row group ty owns query rows ty*TM + i, lane tx owns keys tx + c*threads_n.
// Row-major operands of the column products (dO, Q in dK/dV; K in dQ) are read two rows at a time and
// interleaved into v_dot2 pairs in registers, so each tile is stored in LDS once.
#pragma once

#include "fmha_tile.h"

namespace rf {

// Shared thread mapping of a backward block: S tiles of block_m x block_n, gradient accumulators of
// acc_rows x headdim (acc_rows = block_n keys for dK/dV, block_m query rows for dQ).
struct BwdTileBase {
  int headdim;        // headdim bucket
  int block_m;        // Br: query rows per tile
  int block_n;        // Bc: keys per tile
  int threads;        // threads per block
  int threads_n;      // lanes per row group
  int lds_pad_bytes;  // padding after each LDS row
  int elem_bytes;     // 2 (fp16, bf16) or 4 (fp32)

  RF_HDC int row_groups() const { return threads / threads_n; }
  RF_HDC int vec_elems() const { return kVectorBytes / elem_bytes; }
  RF_HDC int chunks_per_row() const { return headdim / vec_elems(); }
  RF_HDC int rows_per_thread() const { return block_m / row_groups(); }  // TM (S tile)
  RF_HDC int s_cols_per_thread() const { return block_n / threads_n; }   // TN (S tile)
  RF_HDC int o_cols_per_thread() const { return headdim / threads_n; }   // TD (accumulators)
  RF_HDC int o_chunk_cols() const {  // CW: columns of one row read by one lane in the column products
    return vec_elems() < o_cols_per_thread() ? vec_elems() : o_cols_per_thread();
  }
  RF_HDC int o_col_read_bytes() const { return o_chunk_cols() * elem_bytes; }
  RF_HDC int lane_tx(int tid) const { return tid % threads_n; }
  RF_HDC int lane_ty(int tid) const { return tid / threads_n; }
  RF_HDC int row(int tid, int i) const { return lane_ty(tid) * rows_per_thread() + i; }
  RF_HDC int s_col(int tid, int c) const { return lane_tx(tid) + c * threads_n; }
  RF_HDC int o_col(int tid, int g, int e) const {
    return lane_tx(tid) * o_chunk_cols() + g * threads_n * o_chunk_cols() + e;
  }
  RF_HDC int row_bytes() const { return headdim * elem_bytes + lds_pad_bytes; }  // Q, dO, K, V rows

  RF_HDC bool base_valid() const {
    return threads % threads_n == 0 && threads_n <= 32 && (threads_n & (threads_n - 1)) == 0 &&
           block_m % row_groups() == 0 && block_n % threads_n == 0 && block_n % 2 == 0 && block_m % 2 == 0 &&
           (headdim * elem_bytes) % kVectorBytes == 0 && headdim % threads_n == 0 &&
           o_cols_per_thread() % o_chunk_cols() == 0 && lds_pad_bytes % kVectorBytes == 0;
  }
};

// dK/dV kernel. LDS: K, V [block_n][row] (whole block), Q, dO [block_m][row] (per query tile),
// P^T, dS^T [block_n][block_m + pad] (the tile's probabilities and score gradients, transposed so that the
// pairs over query rows are contiguous for dV += P^T.dO and dK += dS^T.Q).
struct BwdDkdvShape : BwdTileBase {
  RF_HDC int keys_per_thread() const { return block_n / row_groups(); }  // TK: dK/dV rows per thread
  RF_HDC int key(int tid, int i) const { return lane_ty(tid) * keys_per_thread() + i; }
  RF_HDC int pt_row_bytes() const { return block_m * elem_bytes + lds_pad_bytes; }
  RF_HDC int k_offset() const { return 0; }
  RF_HDC int v_offset() const { return block_n * row_bytes(); }
  RF_HDC int q_offset() const { return 2 * block_n * row_bytes(); }
  RF_HDC int do_offset() const { return q_offset() + block_m * row_bytes(); }
  RF_HDC int pt_offset() const { return do_offset() + block_m * row_bytes(); }
  RF_HDC int dst_offset() const { return pt_offset() + block_n * pt_row_bytes(); }
  RF_HDC int lds_bytes() const { return dst_offset() + block_n * pt_row_bytes(); }

  // main-loop reads: S = Q.K^T and dP = dO.V^T (128-bit), then dV += P^T.dO and dK += dS^T.Q
  RF_HDC int q_read(int tid, int i, int d) const { return q_offset() + row(tid, i) * row_bytes() + d * kVectorBytes; }
  RF_HDC int do_read(int tid, int i, int d) const { return do_offset() + row(tid, i) * row_bytes() + d * kVectorBytes; }
  RF_HDC int k_read(int tid, int c, int d) const { return k_offset() + s_col(tid, c) * row_bytes() + d * kVectorBytes; }
  RF_HDC int v_read(int tid, int c, int d) const { return v_offset() + s_col(tid, c) * row_bytes() + d * kVectorBytes; }
  RF_HDC int pt_read(int tid, int i, int v) const { return pt_offset() + key(tid, i) * pt_row_bytes() + v * kVectorBytes; }
  RF_HDC int dst_read(int tid, int i, int v) const { return dst_offset() + key(tid, i) * pt_row_bytes() + v * kVectorBytes; }
  RF_HDC int do_col_read(int tid, int r, int g) const { return do_offset() + r * row_bytes() + o_col(tid, g, 0) * elem_bytes; }
  RF_HDC int q_col_read(int tid, int r, int g) const { return q_offset() + r * row_bytes() + o_col(tid, g, 0) * elem_bytes; }
  // writes
  RF_HDC int k_write(int r, int d) const { return k_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int v_write(int r, int d) const { return v_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int q_write(int r, int d) const { return q_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int do_write(int r, int d) const { return do_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int pt_write(int r, int c) const { return pt_offset() + c * pt_row_bytes() + r * elem_bytes; }
  RF_HDC int dst_write(int r, int c) const { return dst_offset() + c * pt_row_bytes() + r * elem_bytes; }

  RF_HDC bool valid() const {
    return base_valid() && block_n % row_groups() == 0 && (block_m * elem_bytes) % kVectorBytes == 0;
  }
};

// dQ kernel. LDS: Q, dO [block_m][row] (whole block), K, V [block_n][row] (per K/V tile),
// dS [block_m][block_n + pad] (pairs over keys contiguous for dQ += dS.K).
struct BwdDqShape : BwdTileBase {
  RF_HDC int ds_row_bytes() const { return block_n * elem_bytes + lds_pad_bytes; }
  RF_HDC int q_offset() const { return 0; }
  RF_HDC int do_offset() const { return block_m * row_bytes(); }
  RF_HDC int k_offset() const { return 2 * block_m * row_bytes(); }
  RF_HDC int v_offset() const { return k_offset() + block_n * row_bytes(); }
  RF_HDC int ds_offset() const { return v_offset() + block_n * row_bytes(); }
  RF_HDC int lds_bytes() const { return ds_offset() + block_m * ds_row_bytes(); }

  RF_HDC int q_read(int tid, int i, int d) const { return q_offset() + row(tid, i) * row_bytes() + d * kVectorBytes; }
  RF_HDC int do_read(int tid, int i, int d) const { return do_offset() + row(tid, i) * row_bytes() + d * kVectorBytes; }
  RF_HDC int k_read(int tid, int c, int d) const { return k_offset() + s_col(tid, c) * row_bytes() + d * kVectorBytes; }
  RF_HDC int v_read(int tid, int c, int d) const { return v_offset() + s_col(tid, c) * row_bytes() + d * kVectorBytes; }
  RF_HDC int ds_read(int tid, int i, int v) const { return ds_offset() + row(tid, i) * ds_row_bytes() + v * kVectorBytes; }
  RF_HDC int k_col_read(int tid, int j, int g) const { return k_offset() + j * row_bytes() + o_col(tid, g, 0) * elem_bytes; }
  RF_HDC int q_write(int r, int d) const { return q_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int do_write(int r, int d) const { return do_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int k_write(int r, int d) const { return k_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int v_write(int r, int d) const { return v_offset() + r * row_bytes() + d * kVectorBytes; }
  RF_HDC int ds_write(int r, int c) const { return ds_offset() + r * ds_row_bytes() + c * elem_bytes; }

  RF_HDC bool valid() const { return base_valid() && (block_n * elem_bytes) % kVectorBytes == 0; }
};

}  // namespace rf
