// fmha_mma_bwd_tile.h - tile shapes, fragment layouts and shared-memory layouts of the backward kernels'
// tensor-core tile math (fmha_mma_bwd.h, NVIDIA sm_80+), as constexpr data (plain C++17, like fmha_mma_tile.h,
// whose m16n8k16 fragment conventions it reuses).
//
// FlashAttention-2 backward (Dao 2023, Algorithm 2 and its CUDA kernels' formulation), two kernels, no atomics:
//
//   dK/dV kernel: a block owns Bc = block_n keys of one (batch, head_k); warp w owns the MT m16 tiles of keys
//     [w*Wr, (w+1)*Wr), Wr = block_n / warps = 16 * MT (MT = 1 or 2: two tiles share every B fragment load).
//     Per query tile of Br = block_m rows (every query head of the GQA group):
//       S^T  = K.Q^T        A = K rows (ldmatrix), B = Q rows ("col" operand, ldmatrix)       Wr x Br per warp
//       dP^T = V.dO^T       A = V rows, B = dO rows
//       P^T, dS^T in the accumulator registers (per query column: m, 1/l, D from shared memory)
//       dV  += P^T.dO       A = P^T (accumulator -> A fragment, as the forward's P), B = dO (ldmatrix.trans)
//       dK  += dS^T.Q       A = dS^T, B = Q (ldmatrix.trans)
//     Q, dO and the per-row statistics are double-buffered: tile t+1 is in flight (cp.async) during tile t.
//   dQ kernel: a block owns Br = block_m query rows of one (batch, head); warp w owns rows [w*Wr, (w+1)*Wr),
//     Wr = block_m / warps = 16 * MT.
//     Per K/V tile of Bc keys:
//       S  = Q.K^T,  dP = dO.V^T,  P and dS in the accumulator registers (row statistics in registers)
//       dQ += dS.K          A = dS, B = K (ldmatrix.trans)
//     K and V are double-buffered.
//
// Accumulator layout of a warp's Wr rows (m16n8 fragments, PTX ISA "Matrix fragments for mma.m16n8k16"):
// lane l holds, per m16 tile mt, rows g = l/4 and g + 8 and, per 8-column tile, columns 2t and 2t + 1 (t = l%4):
//   acc[i][c] (i < 2*MT): row w*Wr + (i/2)*16 + (i%2)*8 + g, column (c/2)*8 + 2t + c%2 (the forward's order).
// Shared memory rows are padded by lds_pad_bytes (16) so that the eight 16-byte rows of one ldmatrix phase
// fall in eight different bank groups whenever (headdim*2)/16 is even (the forward's rule).
#pragma once

#include "fmha_tile.h"

namespace rf {

struct MmaBwdTileBase {
  int headdim;        // headdim bucket
  int block_m;        // Br: query rows per tile
  int block_n;        // Bc: keys per tile
  int threads;        // threads per block (whole warps)
  int threads_n;      // lanes sharing one accumulator row: 4, fixed by the mma fragment
  int lds_pad_bytes;  // padding after each Q/dO/K/V row
  int elem_bytes;     // 2: fp16 or bf16
  // 0: Q/dO/K/V rows padded by lds_pad_bytes (ldmatrix only). > 0 (the deterministic dK/dV kernel's compact grid
  // tile below sm_90, MmaBwdDkdvShape::compact; lds_pad_bytes 0): the K-major no-swizzle core-matrix layout (wgmma's),
  // 16-byte column chunk ch of row r at ch * core_rows * 16 + r * 16 (8 rows x 16 bytes = one 128-byte core matrix;
  // ldmatrix reads 8 consecutive rows of one chunk, 128 contiguous bytes: no bank conflict either)
  int core_rows = 0;

  static constexpr int kWarpLanes = 32;
  static constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
  static constexpr int kRowLanes = 4;

  RF_HDC int warps() const { return threads / kWarpLanes; }
  RF_HDC int warp(int tid) const { return tid / kWarpLanes; }
  RF_HDC int lane(int tid) const { return tid % kWarpLanes; }
  RF_HDC int vec_elems() const { return kVectorBytes / elem_bytes; }
  RF_HDC int chunks_per_row() const { return headdim / vec_elems(); }
  RF_HDC int row_bytes() const { return headdim * elem_bytes + lds_pad_bytes; }
  RF_HDC int o_cols_per_thread() const { return 2 * (headdim / kMmaN); }  // TD: gradient accumulator columns
  // accumulator row (within the warp's Wr) and column of lane `tid`'s element (i, c)
  RF_HDC int frag_row(int tid, int i) const { return (i / 2) * kMmaM + (i % 2) * 8 + lane(tid) / kRowLanes; }
  RF_HDC int frag_col(int tid, int c) const { return (c / 2) * kMmaN + 2 * (lane(tid) % kRowLanes) + c % 2; }
  RF_HDC int o_col(int tid, int g, int e) const { return g * kMmaN + 2 * (lane(tid) % kRowLanes) + e; }

  // ---- ldmatrix row addresses of lane l within a buffer of rows of row_bytes() (offset `base`)
  // A operand (16 rows from `row0`, k-step kk over headdim): matrices (rows 0-7|8-15) x (k 0-7|8-15).
  RF_HDC int a_read(int base, int tid, int row0, int kk) const {
    const int l = lane(tid);
    return write(base, row0 + l % 16, kk * 2 + l / 16);
  }
  // B operand ("col": B^T rows in memory) of the n-tiles 2np, 2np+1 at k-step kk over headdim.
  RF_HDC int b_read(int base, int tid, int np, int kk) const {
    const int l = lane(tid);
    return write(base, np * 16 + l % 8 + 8 * (l / 16), kk * 2 + (l / 8) % 2);
  }
  // B operand through ldmatrix.trans (B rows = k in memory, i.e. row-major [k][headdim]): k-step kk over the
  // rows, the column tiles 2dp, 2dp+1 over headdim.
  RF_HDC int bt_read(int base, int tid, int kk, int dp) const {
    const int l = lane(tid);
    return write(base, kk * 16 + l % 8 + 8 * ((l / 8) % 2), dp * 2 + l / 16);
  }
  // byte offset of 16-byte chunk d of row r (either layout, see core_rows)
  RF_HDC int write(int base, int r, int d) const {
    return core_rows ? base + d * core_rows * kVectorBytes + r * kVectorBytes : base + r * row_bytes() + d * kVectorBytes;
  }
  // byte offset of element col of row r
  RF_HDC int elem(int base, int r, int col) const {
    return core_rows ? write(base, r, col / vec_elems()) + (col % vec_elems()) * elem_bytes
                     : base + r * row_bytes() + col * elem_bytes;
  }

  RF_HDC bool base_valid() const {
    return elem_bytes == 2 && threads_n == kRowLanes && threads % kWarpLanes == 0 && threads > 0 &&
           headdim % 16 == 0 && block_m % 16 == 0 && block_n % 16 == 0 && lds_pad_bytes % kVectorBytes == 0;
  }
};

// dK/dV kernel. Two warp layouts (s_query_warps):
//   1: warp w owns keys [w*Wr, (w+1)*Wr), Wr = block_n / warps = 16 * MT, for every product: S^T, dP^T over all
//      block_m queries, P^T and dS^T stay in its registers as the A fragments of dV += P^T.dO, dK += dS^T.Q, and
//      its dK, dV rows are whole (headdim columns).
//   2: FlashAttention-2's warp grid (Dao-AILab/flash-attention, csrc/flash_attn/src/kernel_traits.h
//      Flash_bwd_kernel_traits: AtomLayoutMSdP / AtomLayoutNdKV): warp w = (kw, qw), kw = w % (warps / 2),
//      qw = w / (warps / 2), computes S^T and dP^T for keys [kw*Wr, (kw+1)*Wr), Wr = block_n / (warps / 2), and
//      queries [qw*block_m/2, (qw+1)*block_m/2); P^T and dS^T go through shared memory (rounded to E); the same
//      warp then owns dK, dV of its keys for headdim columns [qw*headdim/2, (qw+1)*headdim/2), A = P^T / dS^T rows
//      from shared memory (ldmatrix) over all block_m queries. Same registers for dK, dV as layout 1 at twice the
//      keys per warp: twice the mma per shared-memory operand load in S^T / dP^T and in dV / dK.
// Shared memory (bytes):
//   K, V        [block_n][row]                       loaded once
//   Q, dO  x B  [block_m][row]                       B = q_buffers: 2 (tile t+1 in flight during tile t) or 1
//   stats  x B  [block_m] float2 (m, 1/l), delta [block_m] float
//   dS^T        [block_n][block_m * 2 + pad]         layout 2, and layout 1's atomic-dQ kernel
//   P^T         [block_n][block_m * 2 + pad]         layout 2
struct MmaBwdDkdvShape : MmaBwdTileBase {
  int s_query_warps = 1;  // warps along the queries of S^T (1 or 2; see above)
  int q_buffers = 2;      // Q/dO/statistics buffers (2: double-buffered; 1: the other resident blocks hide the load)
  // the atomic-dQ kernel's dQ += dS.K: m16 query tiles per warp (1, or 2: FlashAttention-2's dQ warp tile of 32
  // rows, two A fragments per B fragment load; the opt-in ROCFLASH_BWD_DQ_TILE, dq_tile2(), fmha_mma_bwd.h)
  int dq_m_tiles = 1;

  RF_HDC bool grid() const { return s_query_warps > 1; }
  RF_HDC int s_key_warps() const { return warps() / s_query_warps; }
  RF_HDC int rows_per_warp() const { return block_n / s_key_warps(); }    // Wr: keys per warp
  RF_HDC int m_tiles() const { return rows_per_warp() / kMmaM; }           // MT
  RF_HDC int s_queries_per_warp() const { return block_m / s_query_warps; }
  RF_HDC int s_cols_per_thread() const { return 2 * (s_queries_per_warp() / kMmaN); }  // TN: S^T columns (queries)
  RF_HDC int o_cols_per_thread() const { return 2 * (headdim / s_query_warps / kMmaN); }  // TD: dK/dV columns
  // (layout 1 spelled without the grid's % and /: ptxas cannot know warp(tid) < warps(), and the extra terms
  // kept values alive that spilled)
  RF_HDC int key_warp(int tid) const { return grid() ? warp(tid) % s_key_warps() : warp(tid); }
  RF_HDC int key(int tid, int i) const { return key_warp(tid) * rows_per_warp() + frag_row(tid, i); }
  RF_HDC int s_query0(int tid) const { return grid() ? (warp(tid) / s_key_warps()) * s_queries_per_warp() : 0; }
  RF_HDC int query(int tid, int c) const { return s_query0(tid) + frag_col(tid, c); }  // S^T column of element c
  RF_HDC int dkv_col0(int tid) const { return grid() ? (warp(tid) / s_key_warps()) * (headdim / s_query_warps) : 0; }
  // rows per K/V and per Q/dO buffer (core layout: core_rows each)
  RF_HDC int k_rows() const { return core_rows ? core_rows : block_n; }
  RF_HDC int q_rows() const { return core_rows ? core_rows : block_m; }
  RF_HDC int k_offset() const { return 0; }
  RF_HDC int v_offset() const { return k_rows() * row_bytes(); }
  RF_HDC int q_offset(int buf) const { return 2 * k_rows() * row_bytes() + buf * 2 * q_rows() * row_bytes(); }
  RF_HDC int do_offset(int buf) const { return q_offset(buf) + q_rows() * row_bytes(); }
  RF_HDC int stats_offset(int buf) const {
    return 2 * k_rows() * row_bytes() + 2 * q_buffers * q_rows() * row_bytes() + buf * 12 * block_m;
  }
  RF_HDC int delta_offset(int buf) const { return stats_offset(buf) + 8 * block_m; }
  RF_HDC int lds_bytes() const { return grid() ? pt_offset() + st_bytes() : stats_offset(q_buffers); }

  // ---- dS^T (and P^T in layout 2) of the tile, rounded to E, as [block_n keys][block_m queries] rows padded by
  // lds_pad_bytes: with an odd number of 16-byte units per row (block_m 32: 80 B, 64: 144 B) the eight rows of an
  // ldmatrix phase and the 8 x 4 lanes' 32-bit writes fall in distinct banks. Layout 1 keeps dS^T there only in
  // its atomic-dQ kernel (deterministic=False). dQ = dS.K is split over the warps as dq_row_warps() x
  // dq_col_warps() tiles of 16 query rows x dq_cols_per_warp() columns.
  // The grid tile in the core-matrix layout (compact(): sm_80) stores P^T and dS^T as core matrices too: 16-byte
  // chunk ch (queries 8ch..8ch+7) of key row r at ch * block_n * 16 + r * 16 (st_core(); no padding: the eight rows
  // of an ldmatrix phase and the 8 x 4 lanes' 32-bit writes are 128 contiguous bytes).
  RF_HDC bool st_core() const { return core_rows > 0 && grid(); }
  RF_HDC int ds_row_bytes() const { return block_m * elem_bytes + (core_rows ? kVectorBytes : lds_pad_bytes); }
  RF_HDC int st_bytes() const { return st_core() ? block_n * block_m * elem_bytes : block_n * ds_row_bytes(); }
  // byte offset (within the P^T or dS^T buffer) of key row r, query column q
  RF_HDC int st_elem(int r, int q) const {
    return st_core() ? (q / vec_elems()) * block_n * kVectorBytes + r * kVectorBytes + (q % vec_elems()) * elem_bytes
                     : r * ds_row_bytes() + q * elem_bytes;
  }
  RF_HDC int ds_offset() const { return stats_offset(q_buffers); }
  RF_HDC int pt_offset() const { return ds_offset() + st_bytes(); }
  RF_HDC int lds_bytes_atomic_dq() const { return grid() ? lds_bytes() : ds_offset() + block_n * ds_row_bytes(); }
  RF_HDC int dq_rows_per_warp() const { return kMmaM * dq_m_tiles; }
  RF_HDC int dq_row_warps() const { return block_m / dq_rows_per_warp() < warps() ? block_m / dq_rows_per_warp() : warps(); }
  RF_HDC int dq_col_warps() const { return warps() / dq_row_warps(); }
  RF_HDC int dq_cols_per_warp() const { return headdim / dq_col_warps(); }
  // byte offset (within the dS^T or P^T rows) of the accumulator element pair (i, c), c even: key row, query
  // columns c, c + 1
  RF_HDC int st_index(int tid, int i, int c) const {
    return st_core() ? st_elem(key(tid, i), query(tid, c)) : key(tid, i) * ds_row_bytes() + query(tid, c) * elem_bytes;
  }
  RF_HDC int ds_write(int tid, int i, int c) const { return ds_offset() + st_index(tid, i, c); }
  // A operand dS (query rows qrow0..+15, k-step kk over the block's keys) from dS^T through ldmatrix.trans:
  // matrices (queries 0-7 | 8-15) x (keys 0-7 | 8-15), i.e. stored rows keys + 8 * (i / 2), columns + 8 * (i % 2).
  RF_HDC int ds_read(int tid, int qrow0, int kk) const {
    const int l = lane(tid);
    return ds_offset() + (kk * kMmaK + l % 8 + 8 * (l / 16)) * ds_row_bytes() + (qrow0 + 8 * ((l / 8) % 2)) * elem_bytes;
  }

  // ---- the atomic-dQ kernel's dQ product on a Hopper warpgroup (wgmma, sm_90a; fmha_wgmma.h): layout 1, one
  // warpgroup (4 warps), dQ^T[headdim x block_m] = K^T . dS^T as headdim / 64 m64nNk16 tiles (N = block_m),
  // k over the block's keys. Both operands K-major without swizzle, in 8 x 16-byte core matrices (128 B each):
  //   dS  [block_m queries][block_n keys] at ds_offset() (in place of the padded dS^T rows): core (query / 8,
  //       key / 8) at (key / 8) * wg_ds_lead() + (query / 8) * 128
  //   K^T [headdim][block_n keys] at wg_kt_offset() (a second copy of K, built once per block): core (d / 8,
  //       key / 8) at (key / 8) * wg_kt_lead() + (d / 8) * 128
  static constexpr int kCoreBytes = 128;  // one core matrix: 8 rows x 16 bytes
  RF_HDC bool wgmma_dq() const {
    return !grid() && threads == 4 * kWarpLanes && headdim % 64 == 0 && (block_m == 32 || block_m == 64) &&
           block_n % kMmaK == 0;
  }
  RF_HDC int wg_ds_lead() const { return block_m * kVectorBytes; }  // bytes between core matrices adjacent in keys
  RF_HDC int wg_kt_lead() const { return headdim * kVectorBytes; }
  RF_HDC int wg_ds_index(int q, int key) const {
    return (key / 8) * wg_ds_lead() + (q / 8) * kCoreBytes + (q % 8) * kVectorBytes + (key % 8) * elem_bytes;
  }
  RF_HDC int wg_kt_index(int d, int key) const {
    return (key / 8) * wg_kt_lead() + (d / 8) * kCoreBytes + (d % 8) * kVectorBytes + (key % 8) * elem_bytes;
  }
  RF_HDC int wg_kt_offset() const { return ds_offset() + block_n * ds_row_bytes(); }
  RF_HDC int lds_bytes_wgmma_dq() const { return wg_kt_offset() + headdim * block_n * elem_bytes; }

  // this shape with K, V, Q, dO in the core-matrix layout (core_rows = the larger of block_m, block_n: one chunk
  // stride for all four buffers; Q/dO buffers of block_m < block_n rows would leave the rest unused); on the grid
  // tile (compact()) also P^T and dS^T (st_core)
  RF_HDC MmaBwdDkdvShape core_layout() const {
    MmaBwdDkdvShape s = *this;
    s.core_rows = block_n > block_m ? block_n : block_m;
    s.lds_pad_bytes = 0;
    return s;
  }
  // The deterministic grid tile on sm_80 (fmha_bwd_dkdv_mma_kernel below sm_90; the launcher's compact_lds()):
  // every buffer in the core-matrix layout, no row padding: at bf16 d128 (block_m = block_n = 64, one Q/dO buffer)
  // 4 x 64 x 256 + 768 + 2 x 64 x 128 = 82688 B instead of 88832 B, so that the designed 2 blocks per SM fit sm_80's
  // 164 KB (2 x (82688 + 1 KB reserved) = 167424 B; sm_90's 228 KB keep the padded tile). Same products in the
  // same order: only the shared-memory addresses differ (dK, dV bitwise equal to the padded tile's).
  RF_HDC MmaBwdDkdvShape compact() const { return grid() && block_m == block_n ? core_layout() : *this; }

  // ---- this shape with the dQ warp tile of 32 query rows (dq_m_tiles 2): warps split as dq_row_warps() x
  // dq_col_warps() tiles of 32 rows x dq_cols_per_warp() columns (block_m 64, 4 warps: 2 x 2 tiles of 32 x
  // headdim / 2, FlashAttention-2's dQ atom layout; block_m 32: 1 x 4 of 32 x headdim / 4). Same dS, K and
  // arithmetic per dQ element (the k order over the block's keys is unchanged), twice the mma per B fragment.
  RF_HDC MmaBwdDkdvShape dq_tile2() const {
    MmaBwdDkdvShape s = *this;
    s.dq_m_tiles = 2;
    return s;
  }

  // ---- this shape with twice the keys over twice the warps (block_n 128 over 8 warps at the atomic tiles of d64 /
  // d128; the lean kernel's variant 3, fmha_mma_bwd_lean.h): the same warp tile (16 keys per warp), half the dQ
  // atomics and half the Q / dO / statistics copies per key, one block per SM (registers) instead of two.
  RF_HDC MmaBwdDkdvShape wide() const {
    MmaBwdDkdvShape s = *this;
    s.block_n *= 2;
    s.threads *= 2;
    return s;
  }

  RF_HDC bool valid() const {
    return base_valid() &&
           (core_rows == 0 || (lds_pad_bytes == 0 && core_rows >= block_m && core_rows >= block_n &&
                               (!grid() || (core_rows == block_m && core_rows == block_n)))) &&
           (s_query_warps == 1 || s_query_warps == 2) && warps() % s_query_warps == 0 &&
           (q_buffers == 2 || (q_buffers == 1 && grid())) && block_n % (kMmaM * s_key_warps()) == 0 &&
           (m_tiles() == 1 || m_tiles() == 2) && s_queries_per_warp() % kMmaM == 0 &&
           (headdim / s_query_warps) % kMmaM == 0 && (dq_m_tiles == 1 || dq_m_tiles == 2) &&
           block_m % dq_rows_per_warp() == 0 && warps() % dq_row_warps() == 0 &&
           dq_cols_per_warp() % kMmaM == 0 && dq_cols_per_warp() > 0;
  }
};

// dQ kernel: block_m = 16 * MT query rows per warp. Shared memory (bytes):
//   Q, dO       [block_m][row]                       loaded once
//   K, V   x 2  [block_n][row]                       double-buffered per K/V tile
struct MmaBwdDqShape : MmaBwdTileBase {
  RF_HDC int rows_per_warp() const { return block_m / warps(); }          // Wr: query rows per warp
  RF_HDC int m_tiles() const { return rows_per_warp() / kMmaM; }           // MT
  RF_HDC int s_cols_per_thread() const { return 2 * (block_n / kMmaN); }  // TN: S columns (keys)
  RF_HDC int row(int tid, int i) const { return warp(tid) * rows_per_warp() + frag_row(tid, i); }
  RF_HDC int q_offset() const { return 0; }
  RF_HDC int do_offset() const { return block_m * row_bytes(); }
  RF_HDC int k_offset(int buf) const { return 2 * block_m * row_bytes() + buf * 2 * block_n * row_bytes(); }
  RF_HDC int v_offset(int buf) const { return k_offset(buf) + block_n * row_bytes(); }
  RF_HDC int lds_bytes() const { return k_offset(2); }

  RF_HDC bool valid() const {
    return base_valid() && block_m % (kMmaM * warps()) == 0 && (m_tiles() == 1 || m_tiles() == 2);
  }
};

}  // namespace rf
