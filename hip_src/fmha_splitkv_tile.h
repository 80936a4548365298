// fmha_splitkv_tile.h - thread mapping and LDS layout of the split-KV decode kernel (fmha_splitkv_kernel.h),
// as constexpr data (plain C++17, shared with the host-side config checks like fmha_tile.h).
//
// Flash-decoding (Dao, Haziza, Massa, Sizov 2023): for few query rows over a long KV cache, a block owns
// (batch, kv-head, split, row chunk): up to block_m query rows of the kv-head's GQA group (query heads x query
// positions, so K/V are read once per group) against the keys of one split of the sequence. Threads form key
// groups of threads_n consecutive lanes; each key group streams its own keys, lane tx holding the 128-bit
// vectors tx + v*threads_n (v < vecs_per_lane) of every Q, K, V row, so a K row or a V row is one coalesced
// 128-bit load per lane. The row's score is a reduction over the key group's lanes; each key group keeps its
// own online-softmax state (m, l, O) in fp32 registers, and the key groups' states merge through LDS at the
// end of the split, in a tree (key_groups/2 slots).
#pragma once

#include "fmha_tile.h"

namespace rf {

struct SplitKvShape {
  int headdim;        // headdim bucket
  int block_m;        // query rows per block (heads of one GQA group x query positions)
  int block_n;        // keys per main-loop iteration of the block (key_groups x keys_per_group)
  int threads;        // threads per block
  int threads_n;      // lanes per key group (one K/V row = chunks_per_row 128-bit vectors over these lanes)
  int lds_pad_bytes;  // padding after each O row of a merge slot
  int elem_bytes;     // 2 (fp16, bf16) or 4 (fp32)

  RF_HDC int vec_elems() const { return kVectorBytes / elem_bytes; }
  RF_HDC int chunks_per_row() const { return headdim / vec_elems(); }
  RF_HDC int vecs_per_lane() const { return chunks_per_row() / threads_n; }
  RF_HDC int key_groups() const { return threads / threads_n; }
  RF_HDC int keys_per_group() const { return block_n / key_groups(); }  // keys in flight per lane, per iteration
  RF_HDC int o_cols_per_lane() const { return vecs_per_lane() * vec_elems(); }

  RF_HDC int lane_tx(int tid) const { return tid % threads_n; }
  RF_HDC int key_group(int tid) const { return tid / threads_n; }
  RF_HDC int vec_of(int tid, int v) const { return lane_tx(tid) + v * threads_n; }  // 128-bit vector index in a row
  RF_HDC int key_of(int tid, int n0, int u) const { return n0 + u * key_groups() + key_group(tid); }

  // ---- LDS: merge slots, each O [block_m][headdim fp32 + pad], then m [block_m], l [block_m]
  RF_HDC int o_row_bytes() const { return headdim * 4 + lds_pad_bytes; }
  RF_HDC int slot_bytes() const { return block_m * o_row_bytes() + 2 * block_m * 4; }
  RF_HDC int merge_slots() const { return key_groups() / 2 > 0 ? key_groups() / 2 : 1; }
  RF_HDC int lds_bytes() const { return merge_slots() * slot_bytes(); }
  RF_HDC int o_write(int slot, int r, int col) const { return slot * slot_bytes() + r * o_row_bytes() + col * 4; }
  RF_HDC int m_write(int slot, int r) const { return slot * slot_bytes() + block_m * o_row_bytes() + r * 4; }
  RF_HDC int l_write(int slot, int r) const { return m_write(slot, r) + block_m * 4; }

  RF_HDC bool valid() const {
    return threads_n >= 1 && threads_n <= 32 && (threads_n & (threads_n - 1)) == 0 && threads % threads_n == 0 &&
           (key_groups() & (key_groups() - 1)) == 0 && block_m >= 1 && (headdim * elem_bytes) % kVectorBytes == 0 &&
           chunks_per_row() % threads_n == 0 && vecs_per_lane() >= 1 && block_n % key_groups() == 0 &&
           keys_per_group() >= 1 && lds_pad_bytes % kVectorBytes == 0;
  }
};

// Tile of the tensor-core split-KV kernel (fmha_splitkv_mma.h, NVIDIA sm_80+): the seven fields of every plain
// config. mma fragment layouts as fmha_mma_tile.h (MmaFwdTileShape).
struct MmaSplitKvShape {
  int headdim;        // headdim bucket
  int block_m;        // query rows per block: one m16 tile
  int block_n;        // keys per block and round = warps x warp_keys; splits start on multiples of it
  int threads;        // threads per block (whole warps)
  int threads_n;      // 4: lanes sharing an mma accumulator row
  int lds_pad_bytes;  // padding after each K/V row in shared memory; 0: unpadded rows, 16-byte chunks swizzled
  int elem_bytes;     // 2: fp16 or bf16

  static constexpr int kWarpLanes = 32, kMmaM = 16, kMmaN = 8, kMmaK = 16, kRowLanes = 4;
  static constexpr int kStages = 3;  // K/V tiles per warp ring: kStages - 1 in flight while one is computed

  RF_HDC int warps() const { return threads / kWarpLanes; }
  RF_HDC int warp_keys() const { return block_n / warps(); }
  RF_HDC int vec_elems() const { return kVectorBytes / elem_bytes; }
  RF_HDC int chunks_per_row() const { return headdim / vec_elems(); }
  RF_HDC int s_cols_per_thread() const { return 2 * (warp_keys() / kMmaN); }  // TN
  RF_HDC int o_cols_per_thread() const { return 2 * (headdim / kMmaN); }      // TD

  // ---- shared memory: per warp kStages x (K tile, V tile) of warp_keys rows; then reused by the merge
  // K/V rows: unpadded with their 16-byte chunks swizzled (lds_pad_bytes 0, the configs since dec12), or padded.
  // Swizzled: logical chunk c of row r sits at chunk c ^ (r % kSwizzleRows) of the row (the XOR stays inside an
  // aligned group of kSwizzleRows chunks, one 128-byte L2 line of the row). Why: a cp.async of a global line whose
  // shared-memory destination straddles a 128-byte boundary reaches the L2 as several requests, and the padded rows
  // (272 bytes at headdim 128) put 7 of every 8 rows' lines across one: on the H200, 2.6 L2 requests and 1.5 sectors
  // per sector of K/V, where unpadded rows give 1 and 1 (ncu, perf/RESULTS.md "dec12"; cuDNN's decode kernel: 1 and
  // 1). The XOR keeps ldmatrix conflict-free: its 8 row addresses (8 consecutive rows, one logical chunk) land in 8
  // distinct chunks of a 128-byte bank row, as the padding did.
  static constexpr int kSwizzleRows = 8;
  RF_HDC bool swizzled() const { return lds_pad_bytes == 0; }
  RF_HDC int row_bytes() const { return headdim * elem_bytes + lds_pad_bytes; }
  // The swizzle of row r as bits of a byte offset: logical byte b of the row (b < headdim * elem_bytes) lies at
  // b ^ swizzle_bits(r) from the row's start (the XOR touches bits 4-6 only: it permutes the 16-byte chunks of each
  // aligned 128-byte group and keeps every byte's place in its chunk).
  RF_HDC int swizzle_bits(int r) const { return swizzled() ? (r % kSwizzleRows) * kVectorBytes : 0; }
  // byte offset of logical 16-byte chunk c of row r from its tile's start
  RF_HDC int chunk_offset(int r, int c) const { return r * row_bytes() + ((c * kVectorBytes) ^ swizzle_bits(r)); }
  RF_HDC int tile_bytes() const { return warp_keys() * row_bytes(); }
  RF_HDC int warp_bytes() const { return kStages * 2 * tile_bytes(); }
  RF_HDC int k_tile(int warp, int stage) const { return warp * warp_bytes() + stage * 2 * tile_bytes(); }
  RF_HDC int v_tile(int warp, int stage) const { return k_tile(warp, stage) + tile_bytes(); }
  // merge: per warp O [block_m][headdim] fp32, then m [block_m], l [block_m]
  RF_HDC int merge_o(int warp, int r, int col) const { return ((warp * block_m + r) * headdim + col) * 4; }
  RF_HDC int merge_m(int warp, int r) const { return (warps() * block_m * headdim + warp * block_m + r) * 4; }
  RF_HDC int merge_l(int warp, int r) const { return merge_m(warp, r) + warps() * block_m * 4; }
  RF_HDC int merge_bytes() const { return warps() * block_m * (headdim + 2) * 4; }
  RF_HDC int lds_bytes() const {
    return warps() * warp_bytes() > merge_bytes() ? warps() * warp_bytes() : merge_bytes();
  }

  // ldmatrix row addresses inside a tile (as MmaFwdTileShape::k_read / v_read): K as the "col" B operand of the
  // key tiles 2np, 2np+1 at k-step kk; V (transposed) as the B operand of column tiles 2dp, 2dp+1 at key step kk.
  RF_HDC int k_read(int lane, int np, int kk) const {
    return chunk_offset(np * 16 + lane % 8 + 8 * (lane / 16), kk * 2 + (lane / 8) % 2);
  }
  RF_HDC int v_read(int lane, int kk, int dp) const {
    return chunk_offset(kk * 16 + lane % 8 + 8 * ((lane / 8) % 2), dp * 2 + lane / 16);
  }
  // The same addresses as a lane's first one and a step per kk (K) or dp (V), in the form the kernel computes them:
  // k_read(lane, np, kk) = at_step(k_lane(lane), kk) + np * 16 * row_bytes(), v_read(lane, kk, dp) =
  // at_step(v_lane(lane), dp) + kk * 16 * row_bytes(). Swizzled, the step is an XOR of bits 5-7 (a lane's chunk
  // pair 2s, 2s + 1 of rows whose swizzle is the lane's), exact on a full shared address when the tile starts on a
  // multiple of kLdsAlign: one LOP3 per ldmatrix and no per-step offsets held in registers (fmha_splitkv_mma.h
  // kXorAddresses, every swizzled tile since dec13).
  static constexpr int kLdsAlign = 1024;
  RF_HDC int k_lane(int lane) const { return k_read(lane, 0, 0); }
  RF_HDC int v_lane(int lane) const { return v_read(lane, 0, 0); }
  template <class A>
  RF_HDC A at_step(A lane_address, int step) const {
    return swizzled() ? (lane_address ^ A(step * 2 * kVectorBytes)) : lane_address + A(step * 2 * kVectorBytes);
  }

  RF_HDC bool valid() const {
    return elem_bytes == 2 && threads_n == kRowLanes && threads % kWarpLanes == 0 && threads > 0 &&
           block_m == kMmaM && block_n % warps() == 0 && warp_keys() % 16 == 0 && headdim % 16 == 0 &&
           lds_pad_bytes % kVectorBytes == 0 &&
           (!swizzled() || (chunks_per_row() % kSwizzleRows == 0 && tile_bytes() % kLdsAlign == 0 &&
                            headdim / kMmaK <= kSwizzleRows));
  }
};

}  // namespace rf
