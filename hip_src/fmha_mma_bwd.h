// fmha_mma_bwd.h - the backward's dK/dV kernels on tensor cores (NVIDIA sm_80+, fp16 and bf16 inputs, fp32
// accumulation; the dQ kernel is in fmha_mma_bwd_dq.h, the launcher in fmha_mma_bwd_launch.h): FlashAttention-2's backward formulation (Dao 2023) on the
// m16n8k16 primitives of fmha_mma.h, with the layouts of fmha_mma_bwd_tile.h. They replace the vector dK/dV and dQ kernels of
// fmha_bwd_kernel.h for the configs whose `impl` is "mma" (ck_configs/fmha_bwd.toml) and keep everything
// else of that backward: the preprocess (D), the params struct, the row statistics (load_row_stats: the
// forward's m and 1/l), the masks and score transform (softcap, ALiBi, windows), GQA summed in registers,
// varlen, one write per gradient element (no atomics: bitwise repeatable).
//
// Per tile, with x = score(S) in log2 units, P = exp2(x - m) * inv_l, dS = P o (dP - D) o g (g = 1, or
// 1 - tanh^2 under softcap); P and dS are rounded to E for the products, as the forward rounds P.
//
// Masked pairs contribute exactly nothing, even when K or V hold NaN/inf: on boundary tiles P and dS are
// selected to 0 (not multiplied), so S and dP of a masked pair never reach a gradient; the dK/dV products
// take only Q and dO rows (the rows' own data; rows past seqlen_q are zero-filled) as B operands. The dQ
// product's B operand is the K tile: on a boundary tile whose K tile holds a non-finite element (a cheap
// block-wide test) each row first adds the non-finite K elements of the keys it sees (what dS * inf or
// dS * NaN gives it: non-finite), then those elements are replaced by 0 and the product runs as usual, so rows
// that see none of them get exactly the products of a clean K (the forward's V guard, fmha_mma.h pv_masked).
//
// deterministic=False (flash_attn_func's default) runs the dK/dV kernel's atomic-dQ variant instead of the dQ kernel
// (FlashAttention-2's own split): per (key block, query tile) it also stores dS^T to shared memory and adds
// dQ += dS.K of its keys to a zeroed float32 buffer (p.dq_accum) with atomic adds; the host scales it by
// softmax_scale into dq. Five tile products per (query tile, key tile) instead of the two kernels' seven, but the
// order of the float32 additions varies from run to run (dQ is not bitwise repeatable; dK, dV still are). Masked
// pairs add exactly 0 there too: dS is selected to 0, and a key block whose K holds a non-finite element takes
// the dQ kernel's guard (each row adds the non-finite elements of the keys it sees, the product runs on K with
// them zeroed, then K is reloaded for the next query tile's S^T).
//
// Warp layouts (MmaBwdDkdvShape, fmha_mma_bwd_tile.h): layout 1 keeps P^T and dS^T in the registers of the warp
// that owns their 16 keys; layout 2 (s_query_warps = 2, FlashAttention-2's warp grid) computes S^T and dP^T for 32
// keys x half of the tile's queries per warp, passes P^T and dS^T through shared memory, and gives each warp dK, dV
// of its 32 keys x half of headdim. The deterministic and atomic-dQ kernels of one config may run different tiles
// (the config's atomic_* fields); dK and dV are bitwise equal either way (same products, same order of 16-query
// steps; tests/test_gpu_backward.py compares them across the two modes).
//
// sm_90a builds (RF_CUDA_SM90A) also compile opt-in variants of the atomic-dQ kernel with products on a Hopper
// warpgroup (fmha_mma_bwd_wgmma.h, wgmma from shared-memory descriptors): its dQ product (ROCFLASH_BWD_DQ_WGMMA=1;
// measured 7-10 % slower than mma.sync, perf/RESULTS.md tcbwd5 run W1). (Branch tcws6's S^T and dP^T on wgmma,
// ROCFLASH_BWD_SDP_WGMMA, measured 7-9 % slower in integ20 and spilling at d128, were removed in branch tc80.) Also
// sm_90a builds only, mma.sync only: the atomic-dQ kernel with a dQ warp tile of 32 query rows
// (ROCFLASH_BWD_DQ_TILE=1; fmha_bwd_dkdvq_dq2_kernel; branch tcws7).
//
// Only the CUDA build includes this file (fmha_bwd_launch.h under RF_PLATFORM_CUDA).
#pragma once

#include <cstdlib>
#include <type_traits>

#include "fmha_bwd_kernel.h"
#include "fmha_mma.h"
#include "fmha_mma_bwd_tile.h"

namespace rf {
namespace mma {

// 4 or 8 bytes global -> shared (cp.async.ca); src_bytes = 0 writes zeros and reads nothing.
template <int kBytes>
RF_DEVICE void cp_async_small(uint32_t dst, const void* src, int src_bytes) {
#if defined(RF_MMA_UNSUPPORTED)
  __trap();
#else
  static_assert(kBytes == 4 || kBytes == 8, "cp.async.ca copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(kBytes), "r"(src_bytes));
#endif
}

// *dst += (x, y): one 8-byte vector atomic on sm_90 (global memory), two 4-byte ones before.
RF_DEVICE void atomic_add2(float* dst, float x, float y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float2*>(dst), make_float2(x, y));
#else
  atomicAdd(dst, x);
  atomicAdd(dst + 1, y);
#endif
}

}  // namespace mma
}  // namespace rf

#include "fmha_mma_bwd_wgmma.h"

namespace rf {

// Shared pieces of the two tensor-core backward kernels.
template <class E, class Shape, bool kAligned>
struct MmaBwdOps {
  // kRows rows of `src` from first_row into shared memory (write(r, d): byte offset of vector d of row r):
  // cp.async on the 128-bit path (zero-filled outside the tensor), else through registers, two passes unrolled (a
  // full unroll held every pass's vector and addresses at once: up to 676 B of spill, ptxas sm_80). kCore (the core-matrix
  // layout, MmaBwdTileBase::core_rows): 8 consecutive threads take 8 rows of one chunk (128 contiguous bytes of
  // shared memory; a warp still reads 64 contiguous bytes of each of 8 rows), not one row's chunks (all in one bank
  // group there).
  template <int kRows, int kThreads, int kChunks, class Write, bool kCore = false>
  RF_DEVICE static void copy_rows(char* lds, const GlobalRows<E>& src, int first_row, Write write, int tid) {
    constexpr int kVecElems = kVectorBytes / E::kBytes;
    static_assert(!kCore || kRows % 8 == 0, "the core-matrix copy takes rows in groups of 8");
    if constexpr (!kAligned) {  // two passes in flight per thread, not every pass: the element-wise loads hold few registers
#pragma unroll 2
      for (int it = 0; it < (kRows * kChunks + kThreads - 1) / kThreads; ++it) {
        const int id = tid + it * kThreads;
        if (kRows * kChunks % kThreads != 0 && id >= kRows * kChunks) break;
        const int r = kCore ? id % 8 + 8 * (id / (8 * kChunks)) : id / kChunks, d = kCore ? (id / 8) % kChunks : id % kChunks;
        *reinterpret_cast<uint4*>(lds + write(r, d)) = src.template load_vec<false>(first_row + r, d);
      }
    } else {
#pragma unroll
      for (int it = 0; it < (kRows * kChunks + kThreads - 1) / kThreads; ++it) {
        const int id = tid + it * kThreads;
        if (kRows * kChunks % kThreads != 0 && id >= kRows * kChunks) break;
        const int r = kCore ? id % 8 + 8 * (id / (8 * kChunks)) : id / kChunks, d = kCore ? (id / 8) % kChunks : id % kChunks;
        char* dst = lds + write(r, d);
        const bool inside = first_row + r < src.rows && d * kVecElems < src.cols;
        const char* from = inside ? src.base + src.row_offset(first_row + r) + d * kVectorBytes : src.base;
        mma::cp_async_16(mma::smem_address(dst), from, inside ? kVectorBytes : 0);
      }
    }
  }

  // acc[2*MT][2*N/8] += A(MT m16 tiles of rows from a_row0 at a_base, k over headdim) . B^T, B rows (N of them)
  // at b_base; each B fragment load serves the MT tiles.
  template <int N, int KD, int MT, int TN>
  RF_DEVICE static void gemm_rows_by_rows(const char* lds, const Shape& T, int tid, int a_base, int a_row0, int b_base,
                                          float (&acc)[2 * MT][TN]) {
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) {
      uint32_t a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        mma::ldmatrix_x4(a[mt], mma::smem_address(lds + T.a_read(a_base, tid, a_row0 + mt * 16, kk)));
#pragma unroll
      for (int np = 0; np < N / 16; ++np) {
        uint32_t b[4];
        mma::ldmatrix_x4(b, mma::smem_address(lds + T.b_read(b_base, tid, np, kk)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int c = 2 * (2 * np + h);
            mma::mma_16816<E>(acc[2 * mt][c], acc[2 * mt][c + 1], acc[2 * mt + 1][c], acc[2 * mt + 1][c + 1], a[mt],
                              b[2 * h], b[2 * h + 1]);
          }
      }
    }
  }

  // Two independent products of gemm_rows_by_rows in one k loop (S^T = A0.B0^T and dP^T = A1.B1^T, same row tile):
  // twice the independent mma chains per k-step, for warps whose accumulators leave no room for a second row tile.
  template <int N, int KD, int MT, int TN>
  RF_DEVICE static void gemm_rows_by_rows2(const char* lds, const Shape& T, int tid, int a_row0, int a_base0, int b_base0,
                                           float (&acc0)[2 * MT][TN], int a_base1, int b_base1, float (&acc1)[2 * MT][TN]) {
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) {
      uint32_t a0[MT][4], a1[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        mma::ldmatrix_x4(a0[mt], mma::smem_address(lds + T.a_read(a_base0, tid, a_row0 + mt * 16, kk)));
        mma::ldmatrix_x4(a1[mt], mma::smem_address(lds + T.a_read(a_base1, tid, a_row0 + mt * 16, kk)));
      }
#pragma unroll
      for (int np = 0; np < N / 16; ++np) {
        uint32_t b0[4], b1[4];
        mma::ldmatrix_x4(b0, mma::smem_address(lds + T.b_read(b_base0, tid, np, kk)));
        mma::ldmatrix_x4(b1, mma::smem_address(lds + T.b_read(b_base1, tid, np, kk)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int c = 2 * (2 * np + h);
            mma::mma_16816<E>(acc0[2 * mt][c], acc0[2 * mt][c + 1], acc0[2 * mt + 1][c], acc0[2 * mt + 1][c + 1], a0[mt],
                              b0[2 * h], b0[2 * h + 1]);
            mma::mma_16816<E>(acc1[2 * mt][c], acc1[2 * mt][c + 1], acc1[2 * mt + 1][c], acc1[2 * mt + 1][c + 1], a1[mt],
                              b1[2 * h], b1[2 * h + 1]);
          }
      }
    }
  }

  // acc[2*MT][TD] += X . B, X = x[2*MT][TX] (accumulator layout, rounded to E: the A fragments), B row-major
  // [TX/2 rows][headdim] at b_base (ldmatrix.trans); each B fragment load serves the MT tiles.
  template <int TX, int KD, int MT, int TD>
  RF_DEVICE static void gemm_frag_by_rows(const char* lds, const Shape& T, int tid, const float (&x)[2 * MT][TX],
                                          int b_base, float (&acc)[2 * MT][TD]) {
#pragma unroll
    for (int kk = 0; kk < TX / 4; ++kk) {
      uint32_t a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        a[mt][0] = mma::pack2<E>(x[2 * mt][4 * kk], x[2 * mt][4 * kk + 1]);
        a[mt][1] = mma::pack2<E>(x[2 * mt + 1][4 * kk], x[2 * mt + 1][4 * kk + 1]);
        a[mt][2] = mma::pack2<E>(x[2 * mt][4 * kk + 2], x[2 * mt][4 * kk + 3]);
        a[mt][3] = mma::pack2<E>(x[2 * mt + 1][4 * kk + 2], x[2 * mt + 1][4 * kk + 3]);
      }
#pragma unroll
      for (int dp = 0; dp < KD; ++dp) {
        uint32_t b[4];
        mma::ldmatrix_x4_trans(b, mma::smem_address(lds + T.bt_read(b_base, tid, kk, dp)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int c = 2 * (2 * dp + h);
            mma::mma_16816<E>(acc[2 * mt][c], acc[2 * mt][c + 1], acc[2 * mt + 1][c], acc[2 * mt + 1][c + 1], a[mt],
                              b[2 * h], b[2 * h + 1]);
          }
      }
    }
  }

  // acc[2*MT][TD] += A . B, A = MT m16 tiles of rows a_row0.. of a row-major [rows][k] buffer at a_base (pitch
  // a_pitch bytes, ldmatrix; kStCore: the P^T / dS^T core matrices of MmaBwdDkdvShape::st_elem instead), k over KS
  // k-steps; B row-major [k][headdim] at b_base (ldmatrix.trans), TD / 4 pairs of 8-column tiles from column col0.
  // Each B fragment load serves the MT tiles.
  template <int KS, int MT, int TD, bool kStCore = false>
  RF_DEVICE static void gemm_lds_by_rows(const char* lds, const Shape& T, int tid, int a_base, int a_pitch, int a_row0,
                                         int b_base, int col0, float (&acc)[2 * MT][TD]) {
    const int l = T.lane(tid);
#pragma unroll
    for (int kk = 0; kk < KS; ++kk) {
      uint32_t a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        if constexpr (kStCore)
          mma::ldmatrix_x4(a[mt], mma::smem_address(lds + a_base + T.st_elem(a_row0 + mt * 16 + l % 16, (kk * 2 + l / 16) * T.vec_elems())));
        else
          mma::ldmatrix_x4(a[mt], mma::smem_address(lds + a_base + (a_row0 + mt * 16 + l % 16) * a_pitch +
                                                    (kk * 2 + l / 16) * kVectorBytes));
      }
#pragma unroll
      for (int dp = 0; dp < TD / 4; ++dp) {
        uint32_t b[4];
        mma::ldmatrix_x4_trans(b, mma::smem_address(lds + T.bt_read(b_base, tid, kk, col0 / 16 + dp)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int c = 2 * (2 * dp + h);
            mma::mma_16816<E>(acc[2 * mt][c], acc[2 * mt][c + 1], acc[2 * mt + 1][c], acc[2 * mt + 1][c + 1], a[mt],
                              b[2 * h], b[2 * h + 1]);
          }
      }
    }
  }
};

// ---------------------------------------------------------------------------------------------------------
// dK/dV kernel: one block per (block_n keys, head_k, batch); warp w owns keys n0 + [w*Wr, (w+1)*Wr), Wr = 16 * MT.
// kAtomicDq: also dQ += dS.K into p.dq_accum (float32, atomic adds; see the file comment).
// kWgmma (with kAtomicDq, sm_90a only, opt-in: ROCFLASH_BWD_DQ_WGMMA=1): that dQ product on the block's warpgroup
// (MmaBwdWgmmaOps::dq_issue / dq_add) after dK += dS^T.Q. Measured slower than the mma.sync product in one process on
// the H200 (perf/RESULTS.md, tcbwd5 run W1: +9 % d128, +7 % d64 bf16 4k), as was a variant that issued its first
// tile between the dV and dK products (+10 %, removed).
template <class E, class Tile, bool kAligned, bool kAtomicDq = false, int kWgmma = 0>
struct MmaBwdDkdvPipeline {
  static constexpr MmaBwdDkdvShape T = Tile::kShape;
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int KD = T.headdim / MmaBwdTileBase::kMmaK;
  static constexpr int MT = T.m_tiles();
  static constexpr int TK = 2 * MT;  // accumulator rows per thread (keys)
  using Ops = MmaBwdOps<E, MmaBwdDkdvShape, kAligned>;
  // The atomic-dQ variant waits for its tile's copies before one barrier per tile (then issues the next tile) and
  // computes S^T and dP^T in one k loop (gemm_rows_by_rows2); the deterministic kernel keeps two barriers per tile
  // and the two k loops. Same products in the same order either way (dK, dV bitwise equal between the variants).
  // Measured in one process on the H200 (perf/RESULTS.md, tcbwd3 run U2, bf16 4k): the atomic-dQ kernel 1.2 %
  // (d128) and 3.6 % (d64) faster this way, the deterministic d128 kernel 3.4 % slower, so each keeps its best.
  // Layout 2 (P^T, dS^T through shared memory) runs the two k loops: the fused one's extra fragments spill there.
  static constexpr bool kFusedLoop = kAtomicDq && !T.grid();
  static_assert(T.valid(), "invalid tensor-core dK/dV tile config (see MmaBwdDkdvShape::valid)");
  static_assert(T.elem_bytes == E::kBytes && E::kBytes == 2, "the tensor-core tile math takes fp16 or bf16");
  static_assert(kWaveSize == MmaBwdTileBase::kWarpLanes, "mma.sync fragments are laid out over 32 lanes");
  static constexpr bool kWgmmaDq = kWgmma != 0;
  static_assert(!kWgmmaDq || (kAtomicDq && T.wgmma_dq() && kWgmma == 1 && T.core_rows == 0), "the wgmma dQ product needs MmaBwdDkdvShape::wgmma_dq()");
  static constexpr bool kCore = T.core_rows > 0;
  static_assert(!kCore || (T.st_core() && !kAtomicDq),
                "the core-matrix layout is the deterministic kernel's compact grid tile's only (sm_80)");
  using Wg = MmaBwdWgmmaOps<E, Tile, kAligned>;

  // Q, dO rows and the row statistics of query tile m0 (head `head`) into buffer `buf`, one cp.async group.
  // Rows past seqlen_q get zeros: P = exp2(x - 0) * 0 = 0 and dS = 0 for their (zero) Q and dO rows.
  RF_DEVICE static void issue_tile(const FmhaBwdParams& p, const SeqInfo& seq, char* lds, int batch, int head, int m0,
                                   int buf, int tid) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    const auto q = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
    const auto dout = q_side_rows<E>(p.dout, p.do_batch_stride, p.do_row_stride, p.do_head_stride, seq, batch, head, p.headdim);
    const auto q_at = [&](int r, int d) { return T.write(T.q_offset(buf), r, d); };
    const auto do_at = [&](int r, int d) { return T.write(T.do_offset(buf), r, d); };
    Ops::template copy_rows<T.block_m, T.threads, T.chunks_per_row(), decltype(q_at), kCore>(lds, q, m0, q_at, tid);
    Ops::template copy_rows<T.block_m, T.threads, T.chunks_per_row(), decltype(do_at), kCore>(lds, dout, m0, do_at, tid);
    for (int id = tid; id < 2 * T.block_m; id += T.threads) {
      const int r = id % T.block_m;
      const bool inside = m0 + r < seq.seqlen_q;
      const int64_t idx = inside ? lse_index(p.seq, seq, batch, head, m0 + r) : 0;
      if (id < T.block_m)
        mma::cp_async_small<8>(mma::smem_address(lds + T.stats_offset(buf) + 8 * r), p.softmax_stats + 2 * idx, inside ? 8 : 0);
      else
        mma::cp_async_small<4>(mma::smem_address(lds + T.delta_offset(buf) + 4 * r), p.delta + idx, inside ? 4 : 0);
    }
    mma::cp_async_commit();
  }

  // P^T and dS^T of one tile (in place: s holds S^T on entry, P^T on exit; dp holds dP^T, then dS^T), for the R
  // accumulator rows from i0 (R = TK: all of the warp's keys). kPlain (the lean kernels of fmha_mma_bwd_lean.h,
  // launched only without softcap and ALiBi): the score is raw * scale_log2 with no run-time test per element,
  // the same arithmetic as ScoreTransform's plain case (one rounded product, then the subtraction; grad factor 1).
  template <bool kMask, int R, bool kPlain = false>
  RF_DEVICE static void probs_and_grads(const char* lds, int buf, const ScoreTransform& score, const MaskRule& rule,
                                        int m0, int n0, int tid, int i0, float (&s)[R][TN], float (&dp)[R][TN]) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const int qr = T.query(tid, c);  // query row of the tile
      const float2 st = *reinterpret_cast<const float2*>(lds + T.stats_offset(buf) + 8 * qr);
      const float delta = *reinterpret_cast<const float*>(lds + T.delta_offset(buf) + 4 * qr);
      const float row_max = st.x == neg_inf() ? pos_inf() : st.x;  // fully masked row: P = 0, not inf * 0
      const int row = m0 + qr;
      int32_t lo = 0, hi = 0;
      if constexpr (kMask) visible_key_span(rule, row, &lo, &hi);
#pragma unroll
      for (int i = 0; i < R; ++i) {
        const int col = n0 + T.key(tid, i0 + i);
        float prob, ds;
        if constexpr (kPlain) {
          prob = rf_exp2(__fmul_rn(s[i][c], score.scale_log2) - row_max) * st.y;  // (__fmul_rn: no contraction)
          ds = prob * (dp[i][c] - delta);
        } else {
          prob = rf_exp2(score(s[i][c], row, col) - row_max) * st.y;
          ds = prob * (dp[i][c] - delta) * score.grad_factor(s[i][c]);
        }
        if constexpr (kMask) {  // selects, not products: S^T and dP^T of a masked pair may be NaN
          if (col < lo || col > hi) prob = ds = 0.f;
        }
        s[i][c] = prob;
        dp[i][c] = ds;
      }
    }
  }

  // ---- atomic dQ (kAtomicDq)
  // dQ columns per accumulator chunk: 64 (2 * 64 / 4 = 32 floats per thread: 8 independent mma chains; 32 columns
  // were 1-4 % slower, run U2); layout 2: 32 (64 spilled beside its dK, dV of 32 keys)
  static constexpr int kDqChunkCols = T.grid() ? 32 : 64;
  // dS^T (accumulator layout, rounded to E) into its shared-memory rows (kWgmmaDq: the wgmma dQ product's core
  // matrices, MmaBwdWgmmaOps::store_ds).
  RF_DEVICE static void store_ds(char* lds, int tid, const float (&ds)[TK][TN], int ds_off = 0) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    if constexpr (kWgmmaDq) {
      Wg::store_ds(lds, tid, ds);
    } else {
#pragma unroll
      for (int i = 0; i < TK; ++i)
#pragma unroll
        for (int c = 0; c < TN; c += 2)
          *reinterpret_cast<uint32_t*>(lds + ds_off + T.ds_write(tid, i, c)) = mma::pack2<E>(ds[i][c], ds[i][c + 1]);
    }
  }
  // Publishes dS (and K^T) to the wgmma operand reads of every warp; on a K with a non-finite element, the K
  // guard first, and K^T again from the zeroed K.
  RF_DEVICE static void wgmma_dq_prepare(const FmhaBwdParams& p, const SeqInfo& seq, const MaskRule& rule, char* lds,
                                         int tid, int batch, int head, int m0, int n0, bool k_nonfinite) {
    wgmma::fence_proxy_async();  // this thread's dS (and K^T) stores -> the async proxy
    __syncthreads();             // every warp's
    if (k_nonfinite) {
      guard_k(p, seq, rule, lds, tid, batch, head, m0, n0);
      Wg::build_kt(lds, tid);
      wgmma::fence_proxy_async();
      __syncthreads();
    }
  }

  // P^T and dS^T (accumulator layout, rounded to E) into their shared-memory rows (layout 2).
  template <int R>
  RF_DEVICE static void store_pt_ds(char* lds, int tid, int i0, const float (&pt)[R][TN], const float (&ds)[R][TN]) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
      for (int c = 0; c < TN; c += 2) {
        const int at = T.st_index(tid, i0 + i, c);
        *reinterpret_cast<uint32_t*>(lds + T.pt_offset() + at) = mma::pack2<E>(pt[i][c], pt[i][c + 1]);
        *reinterpret_cast<uint32_t*>(lds + T.ds_offset() + at) = mma::pack2<E>(ds[i][c], ds[i][c + 1]);
      }
  }

  // dQ rows m0.. of head `head` += dS.K (dS^T and K in shared memory): warp tile of DM = dq_m_tiles m16 tiles of
  // rows x dq_cols_per_warp() columns, in chunks of kDqChunkCols columns (each B fragment serves the DM tiles),
  // each added to p.dq_accum atomically. ds_off: the dS^T buffer (the deferred lean kernel's second one);
  // kDiag = 1 (a timing diagnostic, RF_TCBWD8_DIAG builds only: dq is wrong): the atomics are skipped (behind a
  // data-dependent test that never passes, so the product is not optimised away).
  // kFastRed (the lean kernels): a chunk whose columns all lie inside headdim (uniform) adds its rows with one
  // address per row and constant offsets, no per-element column test (the default kernel's 16 branch regions).
  template <int kDiag = 0, bool kFastRed = false>
  RF_DEVICE static void add_dq(const FmhaBwdParams& p, const SeqInfo& seq, const char* lds, int tid, int batch, int head,
                               int m0, int ds_off = 0) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    constexpr int KN = T.block_n / MmaBwdTileBase::kMmaK;  // k-steps over the block's keys
    constexpr int COLS = T.dq_cols_per_warp();
    constexpr int CHUNK = COLS < kDqChunkCols ? COLS : kDqChunkCols;
    constexpr int NT = CHUNK / MmaBwdTileBase::kMmaN;  // 8-column tiles per chunk
    constexpr int DM = T.dq_m_tiles;
    const int w = T.warp(tid), l = T.lane(tid);
    const int qrow0 = (w % T.dq_row_warps()) * T.dq_rows_per_warp();
    const int col0 = (w / T.dq_row_warps()) * COLS;
    const auto acc_rows = q_side_rows<Fp32>(p.dq_accum, p.dq_batch_stride, p.dq_row_stride, p.dq_head_stride, seq, batch,
                                            head, p.headdim);
#pragma unroll
    for (int ch = 0; ch < COLS / CHUNK; ++ch) {
      const int c0 = col0 + ch * CHUNK;
      float acc[2 * DM][2 * NT];
#pragma unroll
      for (int r = 0; r < 2 * DM; ++r)
#pragma unroll
        for (int x = 0; x < 2 * NT; ++x) acc[r][x] = 0.f;
#pragma unroll
      for (int kk = 0; kk < KN; ++kk) {
        uint32_t a[DM][4];
#pragma unroll
        for (int mt = 0; mt < DM; ++mt)
          mma::ldmatrix_x4_trans(a[mt], mma::smem_address(lds + ds_off + T.ds_read(tid, qrow0 + mt * MmaBwdTileBase::kMmaM, kk)));
#pragma unroll
        for (int dp = 0; dp < NT / 2; ++dp) {
          uint32_t b[4];
          mma::ldmatrix_x4_trans(b, mma::smem_address(lds + T.bt_read(T.k_offset(), tid, kk, c0 / 16 + dp)));
#pragma unroll
          for (int mt = 0; mt < DM; ++mt)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int c = 2 * (2 * dp + h);
              mma::mma_16816<E>(acc[2 * mt][c], acc[2 * mt][c + 1], acc[2 * mt + 1][c], acc[2 * mt + 1][c + 1], a[mt],
                                b[2 * h], b[2 * h + 1]);
            }
        }
      }
      if (kFastRed && kAligned && c0 + CHUNK <= p.headdim) {
#pragma unroll
        for (int r = 0; r < 2 * DM; ++r) {
          const int row = m0 + qrow0 + 8 * r + l / MmaBwdTileBase::kRowLanes;
          if (row >= seq.seqlen_q) continue;
          float* dst = reinterpret_cast<float*>(const_cast<char*>(acc_rows.base) + row * acc_rows.row_stride_bytes) + c0 +
                       2 * (l % MmaBwdTileBase::kRowLanes);
#pragma unroll
          for (int n = 0; n < NT; ++n) {
            if constexpr (kDiag == 1) {
              if (acc[r][2 * n] != -1.0e-30f) continue;
            }
            mma::atomic_add2(dst + n * MmaBwdTileBase::kMmaN, acc[r][2 * n], acc[r][2 * n + 1]);
          }
        }
        continue;
      }
#pragma unroll
      for (int r = 0; r < 2 * DM; ++r) {
        const int row = m0 + qrow0 + 8 * r + l / MmaBwdTileBase::kRowLanes;
        if (row >= seq.seqlen_q) continue;
        float* dst = reinterpret_cast<float*>(const_cast<char*>(acc_rows.base) + row * acc_rows.row_stride_bytes);
#pragma unroll
        for (int n = 0; n < NT; ++n) {
          const int col = c0 + n * MmaBwdTileBase::kMmaN + 2 * (l % MmaBwdTileBase::kRowLanes);
          if constexpr (kDiag == 1) {
            if (acc[r][2 * n] != -1.0e-30f) continue;
          }
          if (kAligned && col + 1 < p.headdim) {
            mma::atomic_add2(dst + col, acc[r][2 * n], acc[r][2 * n + 1]);
          } else {
            if (col < p.headdim) atomicAdd(dst + col, acc[r][2 * n]);
            if (col + 1 < p.headdim) atomicAdd(dst + col + 1, acc[r][2 * n + 1]);
          }
        }
      }
    }
  }

  // The K guard of add_dq when K holds a non-finite element (rare; see the file comment): every visible pair's
  // non-finite K element goes to dq_accum, then those elements are zeroed in shared memory for the product.
  RF_DEVICE static void guard_k(const FmhaBwdParams& p, const SeqInfo& seq, const MaskRule& rule, char* lds, int tid,
                                int batch, int head, int m0, int n0) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    constexpr int CPR = T.chunks_per_row();
    const auto acc_rows = q_side_rows<Fp32>(p.dq_accum, p.dq_batch_stride, p.dq_row_stride, p.dq_head_stride, seq, batch,
                                            head, p.headdim);
#pragma unroll 1
    for (int id = tid; id < T.block_m * p.headdim; id += T.threads) {  // rolled: a rare path, kept small
      const int row = m0 + id / p.headdim, col = id % p.headdim;
      if (row >= rule.seqlen_q) continue;
      float sum = 0.f;
      bool any = false;
#pragma unroll 1
      for (int j = 0; j < T.block_n; ++j) {
        const uint32_t bits = *reinterpret_cast<const uint16_t*>(lds + T.elem(T.k_offset(), j, col));
        if (mma::nonfinite16<E>(bits) && rule.visible(row, n0 + j)) {
          sum += mma::to_float<E>(bits);
          any = true;
        }
      }
      if (any) atomicAdd(reinterpret_cast<float*>(const_cast<char*>(acc_rows.base) + row * acc_rows.row_stride_bytes) + col, sum);
    }
    __syncthreads();  // every thread is done reading K
#pragma unroll 1
    for (int id = tid; id < T.block_n * CPR; id += T.threads) {
      uint4* w = reinterpret_cast<uint4*>(lds + T.write(T.k_offset(), id / CPR, id % CPR));
      *w = mma::zero_nonfinite<E>(*w);
    }
    __syncthreads();
  }

  RF_DEVICE static void run(const FmhaBwdParams& p, char* lds, int n_block, int head_k, int batch) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const SeqInfo seq = SeqInfo::make(p, batch);
    const int n0 = n_block * T.block_n;
    if (n0 >= seq.seqlen_k) return;  // uniform
    const int n_end = min(n0 + T.block_n, seq.seqlen_k);
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, seq, batch, head_k);
    const auto k_at = [&](int r, int d) { return T.write(T.k_offset(), r, d); };
    const auto v_at = [&](int r, int d) { return T.write(T.v_offset(), r, d); };

    float dk[TK][TD], dv[TK][TD];
#pragma unroll
    for (int i = 0; i < TK; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) dk[i][x] = dv[i][x] = 0.f;

    int tile_begin, tile_end;
    query_tile_range(rule, n0, n_end, T.block_m, &tile_begin, &tile_end);
    const int group = p.nheads / p.nheads_k;
    const int tiles = tile_end - tile_begin;
    const int total = tiles * group;  // (query head of the group, query tile), tile fastest
    if (total > 0) {                  // uniform
      // sm_80, the deterministic kernel: tid re-read for the K, V copies (rf_vendor.h), whose lane addresses, kept
      // across the tile loop beside the grid walk's 64-bit index, spilled 48 B at fp16 d128 (ptxas, nvcc 13.0).
      // Elsewhere tid as it was: on sm_90a the re-read made the atomic-dQ kernels spill 48-56 B, and the sm_90
      // deterministic kernel needs none (its SASS stays that of branch tc80's base).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
      constexpr bool kKvReread = !kAtomicDq;
#else
      constexpr bool kKvReread = false;
#endif
      Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row(), decltype(k_at), kCore>(lds, k, n0, k_at, kKvReread ? rf_thread_index_here() : tid);
      Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row(), decltype(v_at), kCore>(lds, v, n0, v_at, kKvReread ? rf_thread_index_here() : tid);
      issue_tile(p, seq, lds, batch, head_k * group, tile_begin * T.block_m, 0, tid);  // one group with K, V
      const int key0 = T.key_warp(tid) * T.rows_per_warp();
      bool k_nonfinite = false;  // kAtomicDq: K holds a non-finite element (uniform; set once K is visible)
      for (int it = 0; it < total; ++it) {
        const int buf = T.q_buffers == 2 ? it & 1 : 0;
        const int head = head_k * group + it / tiles;
        const int m0 = (tile_begin + it % tiles) * T.block_m;
        const int next_head = head_k * group + (it + 1) / tiles, next_m0 = (tile_begin + (it + 1) % tiles) * T.block_m;
        if constexpr (T.grid() && T.q_buffers == 1) {
          if (it > 0) {
            __syncthreads();  // every warp is done with tile it - 1 (Q, dO, statistics, P^T, dS^T)
            issue_tile(p, seq, lds, batch, head, m0, 0, tid);
          }
          mma::cp_async_wait<0>();
          __syncthreads();  // tile it (and K, V) visible to every warp
        } else if constexpr (kFusedLoop || T.grid()) {
          mma::cp_async_wait<0>();  // this thread's copies of tile it (and K, V)
          __syncthreads();          // visible to every warp; every warp is done with buffer buf ^ 1 and dS^T (tile it - 1)
          if (it + 1 < total) issue_tile(p, seq, lds, batch, next_head, next_m0, buf ^ 1, tid);  // in flight during tile it
        } else {
          __syncthreads();  // every warp is done with buffer buf ^ 1 (tile it - 1)
          if (it + 1 < total) {
            issue_tile(p, seq, lds, batch, next_head, next_m0, buf ^ 1, tid);
            mma::cp_async_wait<1>();
          } else {
            mma::cp_async_wait<0>();
          }
          __syncthreads();  // tile it (and K, V) visible to every warp
        }
        if constexpr (kAtomicDq) {
          if (it == 0) {
            constexpr int CPR = T.chunks_per_row();
            bool found = false;
#pragma unroll 1
            for (int id = tid; id < T.block_n * CPR; id += T.threads)
              found |= mma::has_nonfinite<E>(*reinterpret_cast<const uint4*>(lds + T.write(T.k_offset(), id / CPR, id % CPR)));
            k_nonfinite = __syncthreads_or(found);
            if constexpr (kWgmmaDq) Wg::build_kt(lds, tid);  // published by the dS barrier below
          }
        }

        const ScoreTransform score = ScoreTransform::make(p.softmax_scale, p.softcap, head_alibi_slope(p, batch, head),
                                                          seq.seqlen_k - seq.seqlen_q, seq.seqlen_k);
        // S^T = K.Q^T and dP^T = V.dO^T (keys are the rows; layout 2: the warp's queries from s_query0), P^T and
        // dS^T, in SP passes over the warp's m16 key tiles (layout 2's atomic-dQ kernel: one at a time, its S^T and
        // dP^T of 32 keys beside dK, dV and the dQ state spilled; the same values either way)
        constexpr int SP = (T.grid() && kAtomicDq) ? MT : 1, RM = MT / SP;
        constexpr int SQ = T.s_queries_per_warp();
        float s[2 * RM][TN], dp[2 * RM][TN];
#pragma unroll
        for (int sp = 0; sp < SP; ++sp) {
#pragma unroll
          for (int i = 0; i < 2 * RM; ++i)
#pragma unroll
            for (int c = 0; c < TN; ++c) s[i][c] = dp[i][c] = 0.f;
          const int qoff = kCore ? T.write(0, T.s_query0(tid), 0) : T.s_query0(tid) * T.row_bytes();
          const int krow = key0 + sp * RM * MmaBwdTileBase::kMmaM;
          if constexpr (kFusedLoop) {
            Ops::template gemm_rows_by_rows2<SQ, KD, RM>(lds, T, tid, krow, T.k_offset(), T.q_offset(buf) + qoff, s,
                                                         T.v_offset(), T.do_offset(buf) + qoff, dp);
          } else {
            Ops::template gemm_rows_by_rows<SQ, KD, RM>(lds, T, tid, T.k_offset(), krow, T.q_offset(buf) + qoff, s);
            Ops::template gemm_rows_by_rows<SQ, KD, RM>(lds, T, tid, T.v_offset(), krow, T.do_offset(buf) + qoff, dp);
          }
          const int m_end = min(m0 + T.block_m, seq.seqlen_q);
          if (tile_needs_mask(rule, m0, m_end, n0, T.block_n))  // uniform per block
            probs_and_grads<true>(lds, buf, score, rule, m0, n0, tid, 2 * RM * sp, s, dp);
          else
            probs_and_grads<false>(lds, buf, score, rule, m0, n0, tid, 2 * RM * sp, s, dp);
          if constexpr (T.grid()) store_pt_ds(lds, tid, 2 * RM * sp, s, dp);
        }
        if constexpr (T.grid()) {
          // dV += P^T.dO, dK += dS^T.Q over the tile's block_m queries, P^T and dS^T rows from shared memory
          __syncthreads();  // P^T, dS^T visible to every warp
          constexpr int KM = T.block_m / MmaBwdTileBase::kMmaK;
          // tid re-read (rf_vendor.h): the lane addresses computed here, not kept across the loop
          const int t = rf_thread_index_here(), col0 = T.dkv_col0(t), row0 = T.key_warp(t) * T.rows_per_warp();
          Ops::template gemm_lds_by_rows<KM, MT, TD, T.st_core()>(lds, T, t, T.pt_offset(), T.ds_row_bytes(), row0, T.do_offset(buf), col0, dv);
          Ops::template gemm_lds_by_rows<KM, MT, TD, T.st_core()>(lds, T, t, T.ds_offset(), T.ds_row_bytes(), row0, T.q_offset(buf), col0, dk);
        } else {
          if constexpr (kAtomicDq) store_ds(lds, tid, dp);
          // dV += P^T.dO, dK += dS^T.Q (the accumulators are the A fragments)
          Ops::template gemm_frag_by_rows<TN, KD, MT>(lds, T, tid, s, T.do_offset(buf), dv);
          Ops::template gemm_frag_by_rows<TN, KD, MT>(lds, T, tid, dp, T.q_offset(buf), dk);
        }
        if constexpr (kAtomicDq) {
          if constexpr (kWgmmaDq) {
            wgmma_dq_prepare(p, seq, rule, lds, tid, batch, head, m0, n0, k_nonfinite);
            const int t = rf_thread_index_here();
#pragma unroll
            for (int tile = 0; tile < Wg::kDqTiles; ++tile) {
              float acc[Wg::kDqN / 2];
              Wg::dq_issue(lds, tile, acc);
              Wg::template dq_add<0>(p, seq, t, batch, head, m0, tile, acc);
            }
          } else {
            if constexpr (!T.grid()) __syncthreads();  // dS^T visible to every warp (layout 2: already)
            if (k_nonfinite) guard_k(p, seq, rule, lds, tid, batch, head, m0, n0);
            // tid re-read (rf_vendor.h): add_dq's lane addresses computed here, not kept across the loop (they
            // spilled 20 B on sm_80 at d128)
            add_dq(p, seq, lds, rf_thread_index_here(), batch, head, m0);
          }
          if (k_nonfinite) {  // K again as loaded, for the next tile's S^T
            __syncthreads();
            Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row(), decltype(k_at), kCore>(lds, k, n0, k_at, tid);
            mma::cp_async_commit();
            mma::cp_async_wait<0>();
            __syncthreads();
          }
        }
      }
    }

    // epilogue: dK = softmax_scale * sum dS^T.Q, dV = sum P^T.dO, written once (zeros for keys no row sees)
    const auto key_of = [&](int i) { return n0 + T.key(tid, i); };
    const auto col_of = [&](int g) { return T.dkv_col0(tid) + T.o_col(tid, g, 0); };
    const auto dk_rows = k_side_rows<E>(p, p.dk, p.dk_batch_stride, p.dk_row_stride, p.dk_head_stride, seq, batch, head_k);
    const auto dv_rows = k_side_rows<E>(p, p.dv, p.dv_batch_stride, p.dv_row_stride, p.dv_head_stride, seq, batch, head_k);
    store_acc_rows<E, kAligned, TK, TD, 2>(const_cast<char*>(dk_rows.base), dk_rows.row_stride_bytes, seq.seqlen_k, p.headdim, dk, [&](int) { return p.softmax_scale; }, key_of, col_of);
    store_acc_rows<E, kAligned, TK, TD, 2>(const_cast<char*>(dv_rows.base), dv_rows.row_stride_bytes, seq.seqlen_k, p.headdim, dv, [&](int) { return 1.f; }, key_of, col_of);
  }
};

// The deterministic kernel's tile below sm_90: the grid tile in the core-matrix layout (MmaBwdDkdvShape::compact;
// the other tiles unchanged). The launcher asks for its shared memory on devices of compute capability < 9
// (compact_lds): only code compiled for those runs there.
template <class Tile>
struct CompactTile {
  static constexpr MmaBwdDkdvShape kShape = Tile::kShape.compact();
  static constexpr int kWavesPerSimd = Tile::kWavesPerSimd;
};

template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dkdv_mma_kernel(const FmhaBwdParams p) {
  extern __shared__ uint4 rf_lds[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  using Run = MmaBwdDkdvPipeline<E, std::conditional_t<Tile::kShape.grid(), CompactTile<Tile>, Tile>, kAligned>;
#else
  using Run = MmaBwdDkdvPipeline<E, Tile, kAligned>;
#endif
  bwd_grid_walk((p.seqlen_k + Tile::kShape.block_n - 1) / Tile::kShape.block_n, p.nheads_k, p.batch, [&](int n_block, int head_k, int batch) {
    Run::run(p, reinterpret_cast<char*>(rf_lds), n_block, head_k, batch);
  });
}

// dK/dV and atomic dQ (deterministic=False)
template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dkdvq_mma_kernel(const FmhaBwdParams p) {
  extern __shared__ uint4 rf_lds[];
  bwd_grid_walk((p.seqlen_k + Tile::kShape.block_n - 1) / Tile::kShape.block_n, p.nheads_k, p.batch, [&](int n_block, int head_k, int batch) {
    MmaBwdDkdvPipeline<E, Tile, kAligned, true>::run(p, reinterpret_cast<char*>(rf_lds), n_block, head_k, batch);
  });
}

// dK/dV and atomic dQ with the dQ product on the warpgroup (wgmma): launched only by a build whose CUDA arches
// are sm_90a without plain sm_90 (RF_CUDA_SM90A, rocflash/build.py) on a compute capability 9.x device; any other
// device pass traps.
template <class E, class Tile, bool kAligned, int kWgmma>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dkdvq_wgmma_kernel(const FmhaBwdParams p) {
#if defined(RF_WGMMA)
  extern __shared__ uint4 rf_lds[];
  bwd_grid_walk((p.seqlen_k + Tile::kShape.block_n - 1) / Tile::kShape.block_n, p.nheads_k, p.batch, [&](int n_block, int head_k, int batch) {
    MmaBwdDkdvPipeline<E, Tile, kAligned, true, kWgmma>::run(p, reinterpret_cast<char*>(rf_lds), n_block, head_k, batch);
  });
#else
  __trap();
#endif
}

// dK/dV and atomic dQ on the atomic tile with the dQ warp tile of 32 query rows (MmaBwdDkdvShape::dq_tile2; opt-in
// ROCFLASH_BWD_DQ_TILE=1, dq_tile2_enabled): each K fragment (ldmatrix.trans) serves two m16 tiles of dS rows, 4
// ldmatrix per 8 mma per k-step instead of 5 (block_m 32: 1 x 4 warps of 32 rows x headdim / 4; block_m 64: 2 x 2
// of 32 x headdim / 2). The same products in the same order per dQ element (dK, dV untouched: bitwise equal to the
// default kernel's). mma.sync only, but launched only by RF_CUDA_SM90A builds (an opt-in like the wgmma variants:
// the default builds compile nothing more). FlashAttention-2's own 2 x 2 tile of 32 x 64 needs block_m 64 and the
// warp grid (P^T, dS^T in shared memory): that kernel spills (perf/RESULTS.md, tcws7), so it is not built.
template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dkdvq_dq2_kernel(const FmhaBwdParams p) {
  extern __shared__ uint4 rf_lds[];
  bwd_grid_walk((p.seqlen_k + Tile::kShape.block_n - 1) / Tile::kShape.block_n, p.nheads_k, p.batch, [&](int n_block, int head_k, int batch) {
    MmaBwdDkdvPipeline<E, Tile, kAligned, true>::run(p, reinterpret_cast<char*>(rf_lds), n_block, head_k, batch);
  });
}

// The atomic-dQ kernel's tile (deterministic=False): the config's atomic_* fields (Tile::kAtomicShape; codegen).
template <class Tile>
struct AtomicDqTile {
  static constexpr MmaBwdDkdvShape kShape = Tile::kAtomicShape;
  static constexpr int kWavesPerSimd = Tile::kWavesPerSimd;
};

// The tile of fmha_bwd_dkdvq_dq2_kernel: the config's atomic tile with the dQ warp tile of 32 query rows.
template <class Tile>
struct Dq2Tile {
  static constexpr MmaBwdDkdvShape kShape = Tile::kAtomicShape.dq_tile2();
  static constexpr int kWavesPerSimd = Tile::kWavesPerSimd;
};

}  // namespace rf

#include "fmha_mma_bwd_lean.h"    // the lean atomic-dQ kernels (ROCFLASH_BWD_LEAN)
#include "fmha_mma_bwd_launch.h"  // the launcher and its run-time switches
