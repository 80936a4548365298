// fmha_mma_bwd_wgmma.h - the tensor-core backward's opt-in dQ product on a Hopper warpgroup (wgmma, sm_90a;
// primitives in fmha_wgmma.h), for the atomic-dQ dK/dV kernel (MmaBwdDkdvPipeline, fmha_mma_bwd.h) on layout 1
// (one warpgroup: 4 warps, block_n = 64 keys, warp w owns keys 16w..16w+15), read at each launch (fmha_mma_bwd.h
// wgmma_dq_enabled):
//
//   ROCFLASH_BWD_DQ_WGMMA=1  dQ^T = K^T . dS^T (kWgmma = 1): dS in wgmma core matrices in place of the padded dS^T
//       rows, K^T a second copy of K built once per block. Measured 7-10 % slower than the mma.sync product
//       (perf/RESULTS.md, tcbwd5 run W1).
//
// (Branch tcws6's S^T = K.Q^T and dP^T = V.dO^T on the warpgroup, ROCFLASH_BWD_SDP_WGMMA, measured 7-9 % slower than
// the mma.sync kernel in integ20 and spilling 48 B at d128, was removed in branch tc80.)
// Facts used (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate": matrix descriptor, K-major
// no-swizzle core matrices, the m64nNk16 accumulator fragment, wgmma.fence / commit_group / wait_group, the async
// proxy fence for operands written by ordinary or cp.async stores). No code copied.
#pragma once

#include "fmha_bwd_kernel.h"
#include "fmha_mma.h"
#include "fmha_mma_bwd_tile.h"
#include "fmha_wgmma.h"

namespace rf {

template <class E, class Tile, bool kAligned>
struct MmaBwdWgmmaOps {
  static constexpr MmaBwdDkdvShape T = Tile::kShape;
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TK = 2 * T.m_tiles();
  static constexpr int KD = T.headdim / MmaBwdTileBase::kMmaK;

  // ---- dQ (kWgmma = 1)
  // dQ rows m0.. += dS.K on the warpgroup: dQ^T = K^T . dS^T in kDqTiles m64n32k16 tiles.
  static constexpr int kDqN = 32;  // (wgmma::mma_async_m64n32)
  static constexpr int kDqNh = T.block_m / kDqN;
  static constexpr int kDqTiles = T.headdim / 64 * kDqNh;

  // dS^T (accumulator layout, rounded to E) as dS [query][key] in wgmma core matrices (MmaBwdDkdvShape::
  // wg_ds_index), 16-bit stores, in place of the padded dS^T rows.
  RF_DEVICE static void store_ds(char* lds, int tid, const float (&ds)[TK][TN]) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    // element (i, c) of the lane sits at its (0, 0) + i * wg_ds_lead() (keys 8 apart: the next core matrix
    // in k) + (c / 2) * 128 (queries 8 apart) + (c % 2) * 16 (the next query row): one lane base, constant
    // offsets (per-element addresses made the d128 kernel spill 16 B)
    char* base = lds + T.ds_offset() + T.wg_ds_index(T.query(tid, 0), T.key(tid, 0));
#pragma unroll
    for (int i = 0; i < TK; ++i)
#pragma unroll
      for (int c = 0; c < TN; c += 2) {
        const uint32_t pair = mma::pack2<E>(ds[i][c], ds[i][c + 1]);
        char* at = base + i * T.wg_ds_lead() + (c / 2) * T.kCoreBytes;
        *reinterpret_cast<uint16_t*>(at) = uint16_t(pair & 0xffffu);
        *reinterpret_cast<uint16_t*>(at + kVectorBytes) = uint16_t(pair >> 16);
      }
  }

  // K^T (the K rows in shared memory, transposed) into its wgmma core matrices
  // (MmaBwdDkdvShape::wg_kt_index); the caller fences (wgmma::fence_proxy_async) and synchronises before the
  // product reads it.
  RF_DEVICE static void build_kt(char* lds, int tid) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    constexpr int CPR = T.chunks_per_row();
#pragma unroll 1
    for (int id = tid; id < T.block_n * CPR; id += T.threads) {
      const int key = id % T.block_n, ch = id / T.block_n;
      const uint4 v = *reinterpret_cast<const uint4*>(lds + T.write(T.k_offset(), key, ch));
      const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int e = 0; e < 8; ++e)
        *reinterpret_cast<uint16_t*>(lds + T.wg_kt_offset() + T.wg_kt_index(ch * 8 + e, key)) =
            uint16_t(e % 2 ? w[e / 2] >> 16 : w[e / 2] & 0xffffu);
    }
  }

  // dQ rows m0.. of head `head` += dS.K on the warpgroup: dQ^T = K^T . dS^T in kDqTiles m64n32k16 tiles (64
  // columns of headdim x 32 queries; tile = md * (block_m / 32) + nh), k over the block's keys. dq_issue
  // starts one tile (one commit group; dS and K^T published to the async proxy and every warp before);
  // dq_add waits for all but kPending groups, then adds the tile to p.dq_accum: each pair of dQ^T rows
  // (d, d + 1) of one query column becomes one float2 atomic (lanes 4 apart, rows g and g + 1 of the
  // accumulator, exchange one element each). 32 queries per tile (not block_m): 16 accumulators per thread (d64's
  // 64 queries at once spilled 36 B when the tile was in flight beside the dK product).
  RF_DEVICE static void dq_issue(const char* lds, int tile, float (&acc)[kDqN / 2]) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    constexpr int KN = T.block_n / MmaBwdTileBase::kMmaK;  // k16 steps over the block's keys
    const int md = tile / kDqNh, nh = tile % kDqNh;
    // (opaque per call: the descriptors, hoisted out of the query-tile loop, spilled at d128)
    const uint32_t base = wgmma::opaque(mma::smem_address(lds));
    const uint32_t kt = base + T.wg_kt_offset() + md * 8 * T.kCoreBytes;
    const uint32_t ds = base + T.ds_offset() + nh * (kDqN / 8) * T.kCoreBytes;
#pragma unroll
    for (int x = 0; x < kDqN / 2; ++x) acc[x] = 0.f;  // (overwritten: the first k-step does not accumulate)
    wgmma::fence();
#pragma unroll
    for (int kk = 0; kk < KN; ++kk)
      wgmma::mma_async_m64n32<E>(acc, wgmma::desc(kt + 2 * kk * T.wg_kt_lead(), T.wg_kt_lead(), T.kCoreBytes),
                                wgmma::desc(ds + 2 * kk * T.wg_ds_lead(), T.wg_ds_lead(), T.kCoreBytes), kk > 0);
    wgmma::commit();
  }

  template <int kPending>
  RF_DEVICE static void dq_add(const FmhaBwdParams& p, const SeqInfo& seq, int tid, int batch, int head, int m0, int tile,
                              float (&acc)[kDqN / 2]) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    const int md = tile / kDqNh, q0 = m0 + (tile % kDqNh) * kDqN;
    wgmma::wait<kPending>();
    wgmma::hold(acc);
    const int w = T.warp(tid), l = T.lane(tid), g = l / MmaBwdTileBase::kRowLanes, t = l % MmaBwdTileBase::kRowLanes;
    const bool even = g % 2 == 0;
    const auto acc_rows = q_side_rows<Fp32>(p.dq_accum, p.dq_batch_stride, p.dq_row_stride, p.dq_head_stride, seq, batch,
                                            head, p.headdim);
#pragma unroll
    for (int j = 0; j < kDqN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float c0 = acc[4 * j + 2 * h], c1 = acc[4 * j + 2 * h + 1];  // (d, q), (d, q + 1)
        const float other = __shfl_xor_sync(0xffffffffu, even ? c1 : c0, MmaBwdTileBase::kRowLanes);
        const int row = q0 + 8 * j + 2 * t + (even ? 0 : 1);       // query
        const int col = md * 64 + 16 * w + 8 * h + (g & ~1);       // d, d + 1
        const float x = even ? c0 : other, y = even ? other : c1;  // dQ[row][col], dQ[row][col + 1]
        if (row >= seq.seqlen_q) continue;
        float* dst = reinterpret_cast<float*>(const_cast<char*>(acc_rows.base) + row * acc_rows.row_stride_bytes);
        if (kAligned && col + 1 < p.headdim) {
          mma::atomic_add2(dst + col, x, y);
        } else {
          if (col < p.headdim) atomicAdd(dst + col, x);
          if (col + 1 < p.headdim) atomicAdd(dst + col + 1, y);
        }
      }
  }
};

}  // namespace rf
