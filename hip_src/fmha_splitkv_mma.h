// fmha_splitkv_mma.h - the split-KV decode kernel on tensor cores (NVIDIA sm_80+, fp16 and bf16), beside the
// vector kernel of fmha_splitkv_kernel.h (gfx906, fp32, and ROCFLASH_KERNEL=vector). Same params, same split
// boundaries rule (split_keys), same partial buffers and combine kernel, same masked-garbage contract.
//
// Why: on the H200 the vector kernel's score (a reduction over the lanes of a key group), bf16 -> fp32
// conversions and per-lane softmax made it instruction- and latency-bound at ~2 TB/s (perf/RESULTS.md, runs I2
// and F1). Here the products run as mma.sync m16n8k16 (fragment layouts: fmha_mma_tile.h) and K/V stream
// global -> shared through cp.async, several tiles deep, with no register staging:
//   - a block owns (row chunk, split, kv-head, batch) like the vector kernel; its block_m = 16 query rows (the
//     GQA group's heads x query positions, padded to one m16 tile) are the A operand of every warp;
//   - the warps split the keys, not the rows: warp w takes the tiles w, w + warps, ... of warp_keys keys of the
//     block's key range, each warp with its own kStages-deep ring of K/V tiles in shared memory, its own
//     cp.async groups and its own online softmax (m, l, O): no block barrier in the main loop;
//   - per tile: S = Q K^T (ldmatrix of K), scores transformed and masked per element (softcap, ALiBi, windows,
//     the split's end), online softmax in the log2 domain, P rounded to the input type as the A fragment of
//     O += P V (ldmatrix.trans of V);
//   - at the end the warps' states merge through shared memory in warp order (fixed: bitwise repeatable), and
//     the block writes O / l and LSE, to the output (one split) or to the fp32 partials of the combine kernel.
// Keys past the split's end (and so past the sequence) are never read: cp.async zero-fills them. Masked keys
// inside the sequence (windows, speculative causal rows) may hold garbage: their scores are -inf, and a tile
// whose V holds a non-finite value goes through the rare path of fmha_mma.h's pv_masked (each row adds the
// non-finite V elements of the keys it sees, then they are zeroed), so 0 * NaN never reaches a row.
// Blocks of plain decode run the loop of fmha_splitkv_mma_plain.h (FmhaFwdSplitKvMmaPlain) on this file's tile math.
#pragma once

#include "fmha_mma.h"
#include "fmha_splitkv_kernel.h"
#include "fmha_splitkv_mma_plain.h"

namespace rf {

// How many K/V tiles each warp keeps in flight while it computes one (FmhaFwdParams::kv_k_first picks the kernel at
// launch, each value its own kernel): kSplitKvCopyNear, one (the default since dec9: the ring's third stage idles;
// on the H200 level with or faster than two at every decode point measured, up to 1.09x with CUDA graphs at batch 1,
// perf/RESULTS.md "dec9"), kSplitKvCopyAsync, kStages - 1 = 2 (ROCFLASH_SPLITKV_INFLIGHT=2). cp.async, 16 bytes per
// lane, one group per tile, in both. kSplitKvCopyNearLazy (ROCFLASH_SPLITKV_LAZY_RESCALE=1, opt-in, dec9, NOT yet
// executed): kSplitKvCopyNear whose warps skip the per-tile rescale of O (o *= alpha, 64 multiplies per thread at
// headdim 128) when every row of the warp has alpha == 1 (its running max did not move): bitwise the same results.
// (dec7 / dec8's K-first, bulk-copy and lockstep variants lost and were removed.)
inline constexpr int kSplitKvCopyAsync = 0, kSplitKvCopyNear = 3, kSplitKvCopyNearLazy = 5;
// kSplitKvCopyPlain (ROCFLASH_SPLITKV_PLAIN=1, dec11): kSplitKvCopyNear whose blocks of plain decode (run_plain's
// rule: no softcap, no ALiBi, at most 8 query rows, headdim = the bucket, every key of the split visible from every
// row) take a loop compiled for that case alone (two tiles in flight per warp since dec13: kPlainAhead); the other
// blocks of the launch run kSplitKvCopyNear's loop. The same products and softmax operations in the same order on
// the rows that are stored: bitwise kSplitKvCopyNear.
inline constexpr int kSplitKvCopyPlain = 6;
// kSplitKvCopyPlainAsync (ROCFLASH_SPLITKV_PLAIN=1 with ROCFLASH_SPLITKV_INFLIGHT=2, dec11): the same plain loop, and
// kSplitKvCopyAsync's loop (two tiles in flight) for the other blocks.
inline constexpr int kSplitKvCopyPlainAsync = 7;

// Tile: MmaSplitKvShape (fmha_splitkv_tile.h, plain C++ for the host-side probe). kCopy: one of the values above.
template <class E, class Tile, bool kAligned, int kCopy = kSplitKvCopyAsync>
struct FmhaFwdSplitKvMmaPipeline {
  // tiles a warp of run's loop has in flight while it computes one: kStages - 1, or 1 (kSplitKvCopyNear; the ring's
  // third stage then idles); the plain loop's depth is kPlainAhead
  static constexpr int kAhead =
      kCopy == kSplitKvCopyNear || kCopy == kSplitKvCopyNearLazy || kCopy == kSplitKvCopyPlain ? 1 : MmaSplitKvShape::kStages - 1;
  static constexpr bool kLazyRescale = kCopy == kSplitKvCopyNearLazy;
  static constexpr MmaSplitKvShape T = Tile::kShape;
  static constexpr int NW = T.warp_keys();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int KQ = T.headdim / MmaSplitKvShape::kMmaK;  // k-steps of S = Q K^T
  static constexpr int KP = NW / MmaSplitKvShape::kMmaK;         // k-steps of O += P V
  static constexpr int CPR = T.chunks_per_row();
  static constexpr int S = MmaSplitKvShape::kStages;
  static_assert(T.valid(), "invalid tensor-core split-KV tile (see MmaSplitKvShape::valid)");
  static_assert(T.elem_bytes == E::kBytes && E::kBytes == 2, "the tensor-core tile math takes fp16 or bf16");
  static_assert(kWaveSize == MmaSplitKvShape::kWarpLanes, "mma.sync fragments are laid out over 32 lanes");
  static_assert((NW * CPR) % MmaSplitKvShape::kWarpLanes == 0, "a tile copy must be whole warp rounds");

  static constexpr int kLanes = MmaSplitKvShape::kWarpLanes;
  // A lane copies the same 16-byte column of every row it copies when a warp round covers whole rows (d64 and
  // d128 at 2 bytes: 4 and 2 rows per round): the global copy addresses of a tile are then one pointer plus a
  // constant step per round, not a row index and a 64-bit product per copy (issue_tile's fast path; the shared ones
  // follow the row's swizzle, T.chunk_offset).
  static constexpr bool kLaneColumnFixed = kLanes % CPR == 0;
  static constexpr int kRowsPerRound = kLaneColumnFixed ? kLanes / CPR : 1;
  static constexpr int kRounds = NW * CPR / kLanes;

  // L2 prefetch-size hint of the fast path's copies (PTX cp.async ... .L2::128B), CUTLASS's and flash-attn 2's
  // cp.async default; dec8's switch over 0 / 64 / 256 bytes (ROCFLASH_SPLITKV_L2_PREFETCH) measured no gain: removed.
  static constexpr int kL2Prefetch = 128;
  // The copies' L2 cache policy: evict_first (mma::cp_async_16_l2). On the H200 (24-call graphs, per call x cuDNN,
  // against the same tree without it in alternating processes): batch 1 +0.7-3.5 %, 8 x 4k +1.5-1.9 %, 32 x 16k
  // level (-0.5 to +0.3 %); the 256-byte hint lost 2-5 % at batch 8 / 32 with or without it (perf/RESULTS.md "dec14").
  static constexpr bool kL2EvictFirst = true;

  // The fast path's copies: rounds it < kRounds copy row r + it * kRowsPerRound (r: the lane's first row), chunk d
  // of K and V from kp / vp + it * (k_round / v_round) into the tiles at shared addresses sk / sv (that row's chunk
  // d: T.chunk_offset); `rows` is the number of rows from the lane's first row that lie before the split's end
  // (<= 0: none); the others are zero-filled (never read). kL2Prefetch / kL2EvictFirst: the copies' L2 hints.
  RF_DEVICE static void copy_tile(uint32_t sk, uint32_t sv, int r, int d, const char* kp, const char* vp,
                                  int64_t k_round, int64_t v_round, int rows, const char* kz, const char* vz) {
    constexpr MmaSplitKvShape T = Tile::kShape;
#pragma unroll
    for (int it = 0; it < kRounds; ++it) {
      const bool inside = it * kRowsPerRound < rows;
      const int bytes = inside ? kVectorBytes : 0;
      const int s_off = T.chunk_offset(r + it * kRowsPerRound, d);
      mma::cp_async_16_l2<kL2Prefetch, kL2EvictFirst>(sk + s_off, inside ? kp + it * k_round : kz, bytes);
      mma::cp_async_16_l2<kL2Prefetch, kL2EvictFirst>(sv + s_off, inside ? vp + it * v_round : vz, bytes);
    }
  }

  // The block-table entry of the page that holds key n0 when a tile lies in one page (paged, page_size a multiple
  // of NW, n0 < k_end), else 0 (unused). The main loop reads it one iteration before issue_tile needs it, so the
  // dependent table load is not on the copy's path (page 16: one lookup per tile).
  RF_DEVICE static int64_t tile_block(const GlobalRows<E>& k, int n0, int k_end) {
    const bool one_page = k.pages != nullptr && k.page_size % NW == 0;
    return one_page && n0 < k_end ? int64_t(k.pages[n0 / k.page_size]) : 0;
  }

  // Keys [n0, n0 + NW) of K and V into a warp's tiles; keys >= k_end and columns past headdim are zero-filled
  // (never read). Tiles start on multiples of NW (16) and pages hold multiples of 16 rows (the API's rule), so a
  // tile lies in one page: one block-table lookup per tile serves every row of K and V (a per-row lookup, with
  // its integer division, is kept for other page sizes). block: tile_block(k, n0, k_end), read earlier by the
  // caller.
  RF_DEVICE static void issue_tile(char* lds_k, char* lds_v, const GlobalRows<E>& k, const GlobalRows<E>& v, int n0,
                                   int k_end, int lane, int64_t block) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const bool paged = k.pages != nullptr;
    const bool one_page = !paged || k.page_size % NW == 0;
    int64_t k0 = int64_t(n0) * k.row_stride_bytes, v0 = int64_t(n0) * v.row_stride_bytes;  // row n0 (dense)
    if (paged && one_page && n0 < k_end) {
      const int page = n0 / k.page_size;
      const int in_page = n0 - page * k.page_size;
      k0 = block * k.page_stride_bytes + int64_t(in_page) * k.row_stride_bytes;
      v0 = block * v.page_stride_bytes + int64_t(in_page) * v.row_stride_bytes;
    }
    if constexpr (kAligned && kLaneColumnFixed) {
      if (one_page) {
        const int r = lane / CPR, d = lane % CPR;
        const int rows = d * T.vec_elems() < k.cols ? k_end - (n0 + r) : 0;
        const char* kp = k.base + k0 + int64_t(r) * k.row_stride_bytes + d * kVectorBytes;
        const char* vp = v.base + v0 + int64_t(r) * v.row_stride_bytes + d * kVectorBytes;
        const int64_t k_round = kRowsPerRound * k.row_stride_bytes, v_round = kRowsPerRound * v.row_stride_bytes;
        copy_tile(mma::smem_address(lds_k), mma::smem_address(lds_v), r, d, kp, vp, k_round, v_round, rows, k.base,
                  v.base);
        return;
      }
    }
#pragma unroll
    for (int it = 0; it < NW * CPR / MmaSplitKvShape::kWarpLanes; ++it) {
      const int id = lane + it * MmaSplitKvShape::kWarpLanes;
      const int r = id / CPR, d = id % CPR;
      const int j = n0 + r;
      const bool inside = j < k_end && d * T.vec_elems() < k.cols;
      int64_t ko = k0 + int64_t(r) * k.row_stride_bytes, vo = v0 + int64_t(r) * v.row_stride_bytes;
      if (inside && !one_page) {
        const int page = j / k.page_size;
        const int64_t block = k.pages[page];
        const int in_page = j - page * k.page_size;
        ko = block * k.page_stride_bytes + int64_t(in_page) * k.row_stride_bytes;
        vo = block * v.page_stride_bytes + int64_t(in_page) * v.row_stride_bytes;
      }
      char* dk = lds_k + T.chunk_offset(r, d);
      char* dv = lds_v + T.chunk_offset(r, d);
      if constexpr (kAligned) {
        const int bytes = inside ? kVectorBytes : 0;
        mma::cp_async_16(mma::smem_address(dk), inside ? k.base + ko + d * kVectorBytes : k.base, bytes);
        mma::cp_async_16(mma::smem_address(dv), inside ? v.base + vo + d * kVectorBytes : v.base, bytes);
      } else {
        const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
        *reinterpret_cast<uint4*>(dk) = inside ? k.template load_vec_at<false>(k.base + ko, d) : zero;
        *reinterpret_cast<uint4*>(dv) = inside ? v.template load_vec_at<false>(v.base + vo, d) : zero;
      }
    }
  }

  // The non-finite V elements of a masked tile: rows add those of the keys they see, then they become 0. (The scan
  // and the zeroing visit every 16-byte chunk of the tile, in shared-memory order; the reads of a key's element go
  // through T.swizzle_bits.)
  template <class Visible>
  RF_DEVICE static void clean_v(char* lds_v, float (&o)[2][TD], int lane, Visible visible) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    bool found = false;
#pragma unroll 1
    for (int id = lane; id < NW * CPR; id += MmaSplitKvShape::kWarpLanes)
      found |= mma::has_nonfinite<E>(*reinterpret_cast<const uint4*>(lds_v + (id / CPR) * T.row_bytes() + (id % CPR) * kVectorBytes));
    if (!__any_sync(0xffffffffu, found)) return;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) {
        const int col = (x / 2) * MmaSplitKvShape::kMmaN + 2 * (lane % 4) + x % 2;
#pragma unroll 1
        for (int j = 0; j < NW; ++j) {  // rolled: a rare path, kept small
          const uint32_t bits = *reinterpret_cast<const uint16_t*>(
              lds_v + j * T.row_bytes() + ((col * E::kBytes) ^ T.swizzle_bits(j)));
          if (mma::nonfinite16<E>(bits) && visible(i, j)) o[i][x] += mma::to_float<E>(bits);
        }
      }
    __syncwarp();
#pragma unroll 1
    for (int id = lane; id < NW * CPR; id += MmaSplitKvShape::kWarpLanes) {
      uint4* p = reinterpret_cast<uint4*>(lds_v + (id / CPR) * T.row_bytes() + (id % CPR) * kVectorBytes);
      *p = mma::zero_nonfinite<E>(*p);
    }
    __syncwarp();
  }

  // How tile_scores / tile_pv form their ldmatrix addresses on swizzled tiles: as T.at_step's XOR of the lane's full
  // shared address (the kernel checks the kLdsAlign it needs), not through T.k_read / v_read's offsets, which
  // spilled 52 B on sm_80 in the plain-loop kernels (ptxas, dec12) and cost 36 more instructions per tile in the
  // sm_90a plain loop (361 against 325; dec13 measured the XOR form 0-1 % faster on the H200). Both are the same
  // addresses (tests/test_splitkv_swizzle.py); the offsets remain for padded tiles.
  static constexpr bool kXorAddresses = T.swizzled();

  // S = Q K^T of one warp tile (K at tk in shared memory): the rows g, g + 8 of each lane (fragments: fmha_mma_tile.h)
  RF_DEVICE static void tile_scores(float (&s)[2][TN], const uint32_t (&qa)[KQ][4], const char* tk, int lane) {
    constexpr MmaSplitKvShape T = Tile::kShape;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int x = 0; x < TN; ++x) s[i][x] = 0.f;
    const uint32_t lane_k = mma::smem_address(tk) + T.k_lane(lane);  // (kXorAddresses: the tile on kLdsAlign)
#pragma unroll
    for (int kk = 0; kk < KQ; ++kk)
#pragma unroll
      for (int np = 0; np < NW / 16; ++np) {
        uint32_t b[4];
        mma::ldmatrix_x4(b, kXorAddresses ? T.at_step(lane_k, kk) + np * 16 * T.row_bytes()
                                          : mma::smem_address(tk + T.k_read(lane, np, kk)));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int x = 2 * (2 * np + h);
          mma::mma_16816<E>(s[0][x], s[0][x + 1], s[1][x], s[1][x + 1], qa[kk], b[2 * h], b[2 * h + 1]);
        }
      }
  }

  // O += P V for key step kk of one warp tile (V at tv in shared memory; a: P's A fragment of that step)
  RF_DEVICE static void tile_pv(float (&o)[2][TD], const uint32_t (&a)[4], const char* tv, int lane, int kk) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const uint32_t lane_v = mma::smem_address(tv) + kk * 16 * T.row_bytes() + T.v_lane(lane);  // (kXorAddresses)
#pragma unroll
    for (int dp = 0; dp < T.headdim / 16; ++dp) {
      uint32_t b[4];
      mma::ldmatrix_x4_trans(b, kXorAddresses ? T.at_step(lane_v, dp) : mma::smem_address(tv + T.v_read(lane, kk, dp)));
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int x = 2 * (2 * dp + h);
        mma::mma_16816<E>(o[0][x], o[0][x + 1], o[1][x], o[1][x + 1], a, b[2 * h], b[2 * h + 1]);
      }
    }
  }

  // ---- plain decode: fmha_splitkv_mma_plain.h (kCopy kSplitKvCopyPlain or kSplitKvCopyPlainAsync)
  static constexpr bool kPlainKernel = kCopy == kSplitKvCopyPlain || kCopy == kSplitKvCopyPlainAsync;
  using Elem = E;
  using TileType = Tile;
  static constexpr bool kAlignedPath = kAligned;
  using Plain = FmhaFwdSplitKvMmaPlain<FmhaFwdSplitKvMmaPipeline>;

  RF_DEVICE static void run(const FmhaFwdParams& p, char* lds, int chunk, int split, int head_k, int batch) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const int warp = tid / MmaSplitKvShape::kWarpLanes, lane = tid % MmaSplitKvShape::kWarpLanes;
    const int g = lane / 4, t4 = lane % 4;
    SeqInfo seq = SeqInfo::make(p, batch);
    typename Plain::SpecCopies spec;  // speculate_first_tiles' copies (none unless the step is folded)
    if (p.step.fold) {  // uniform: the KV-cache step of this block's split range (fmha_kvstep.h), before any read
      const int kps = split_keys(p.seqlen_k, p.num_splits, T.block_n);
      const int64_t key_lo = int64_t(split) * kps, key_hi = int64_t(split + 1) * kps;
      const FoldedStepLoads pre = folded_kv_step_loads<T.threads>(p, batch, key_lo, key_hi);  // in flight with the copy
      if constexpr (kPlainKernel) spec = Plain::speculate_first_tiles(p, lds, split, head_k, batch, kps);
      // (the step's flag in the last stage of warp 0's ring: stages 0 .. kPlainAhead - 1 may be receiving the copies)
      const int32_t keys = kvstep_uniform(folded_kv_step<T.threads, E::kBytes>(
          p, batch, seq.kv_batch, head_k, key_lo, key_hi, *reinterpret_cast<int*>(lds + T.k_tile(0, S - 1)), pre));
      seq.bad = keys < 0;
      seq.seqlen_k = keys < 0 ? 0 : keys;
    }
    const int group = p.nheads / p.nheads_k;
    const int rows_total = seq.seqlen_q * group;  // row rr: query position rr / group, head head_k*group + rr % group
    const int r0 = chunk * T.block_m;
    if (r0 >= rows_total) {  // uniform
      Plain::spec_drain(spec);
      return;
    }
    const int r_end = min(r0 + T.block_m, rows_total);
    const int nrows = r_end - r0;

    // ---- this split's keys, narrowed to what the block's query positions can see
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const int kps = split_keys(p.seqlen_k, p.num_splits, T.block_n);
    int64_t k_begin = int64_t(split) * kps, k_end = min(int64_t(k_begin) + kps, int64_t(seq.seqlen_k));
    const int i_first = r0 / group, i_last = (r_end - 1) / group;
    k_begin = k_begin > rule.first_key(i_first) ? k_begin : rule.first_key(i_first);
    k_end = k_end < rule.last_key(i_last) + 1 ? k_end : rule.last_key(i_last) + 1;
    k_begin = k_begin < 0 ? 0 : k_begin / T.block_n * T.block_n;  // tiles start on block_n boundaries
    const int kb = int(k_begin), ke = int(k_end);

    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, seq, batch, head_k);
    const ScoreTransform score = ScoreTransform::make(p.softmax_scale, p.softcap, 0.f, seq.seqlen_k - seq.seqlen_q, seq.seqlen_k);
    if constexpr (kPlainKernel) {
      // uniform: plain decode (see kSplitKvCopyPlain): the keys [kb, ke) are visible from every row of the block, so
      // a key is masked exactly when it lies at or past ke (Near's `masked && !visible` on these blocks)
      const bool plain = kAligned && p.softcap == 0.f && p.alibi_slopes == nullptr && nrows <= Plain::kPlainRows &&
                         k.cols == T.headdim && v.cols == T.headdim && (k.pages == nullptr || k.page_size % NW == 0) &&
                         rule.first_key(i_last) <= kb && rule.last_key(i_first) >= int64_t(ke) - 1;
      if (plain) {
        float m[2], l[2], o[2][TD];
        Plain::run_plain(p, lds, k, v, score, kb, ke, r0, nrows, head_k, batch, seq, spec, m, l, o);
        epilogue(p, lds, m, l, o, seq, rule, score, chunk, split, head_k, batch, r0, nrows);
        return;
      }
    }

    Plain::spec_drain(spec);  // (the speculative copies' stages are this loop's)
    // ---- this warp's tiles n0 = kb + (warp + c * warps) * NW, c < count: the first kAhead go in flight
    // before Q is read, so the block's first K/V and Q latencies overlap
    const int tiles = kb < ke ? (ke - kb + NW - 1) / NW : 0;
    const int count = tiles > warp ? (tiles - warp + T.warps() - 1) / T.warps() : 0;
    const auto tile_n0 = [&](int c) { return kb + (warp + c * T.warps()) * NW; };
    // the block-table entries of the first kStages tiles are read before any copy is issued: independent loads
    // in flight together, not one table latency per prologue tile ahead of its copies (paged caches)
    int64_t first_blocks[S];
#pragma unroll
    for (int c = 0; c < S; ++c) first_blocks[c] = c < count ? tile_block(k, tile_n0(c), ke) : 0;
#pragma unroll
    for (int c = 0; c < kAhead; ++c) {
      if (c < count)
        issue_tile(lds + T.k_tile(warp, c), lds + T.v_tile(warp, c), k, v, tile_n0(c), ke, lane, first_blocks[c]);
      mma::cp_async_commit();
    }
    int64_t next_block = first_blocks[kAhead];  // the main loop's first copy
    // ---- this thread's two accumulator rows (g, g + 8): query position, ALiBi slope; Q's A fragments
    int qi[2];
    float slope[2];
    uint32_t qa[KQ][4];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int r = g + 8 * i;
      const int rr = r0 + (r < nrows ? r : nrows - 1);  // padding rows: the last row's position (never stored)
      const int head = head_k * group + rr % group;
      qi[i] = rr / group;
      slope[i] = p.alibi_slopes ? p.alibi_slopes[int64_t(batch) * p.alibi_batch_stride + head] : 0.f;
    }
    {
      uint16_t qe[2][KQ][4];  // [row i][k-step][element pair 0/1 x half]: columns 16kk + 2t4 + {0,1} + {0,8}
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int r = g + 8 * i;
        const bool real = r < nrows;
        const int rr = r0 + (real ? r : 0);
        const int head = head_k * group + rr % group;
        const auto qrows = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
        const char* row = qrows.base + int64_t(rr / group) * qrows.row_stride_bytes;
#pragma unroll
        for (int kk = 0; kk < KQ; ++kk)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int col = 16 * kk + 2 * t4 + (e % 2) + 8 * (e / 2);
            qe[i][kk][e] = real && col < p.headdim ? *reinterpret_cast<const uint16_t*>(row + int64_t(col) * E::kBytes) : 0;
          }
      }
#pragma unroll
      for (int kk = 0; kk < KQ; ++kk) {
        qa[kk][0] = uint32_t(qe[0][kk][0]) | (uint32_t(qe[0][kk][1]) << 16);  // row g, cols 2t4..+1
        qa[kk][1] = uint32_t(qe[1][kk][0]) | (uint32_t(qe[1][kk][1]) << 16);  // row g+8
        qa[kk][2] = uint32_t(qe[0][kk][2]) | (uint32_t(qe[0][kk][3]) << 16);  // row g, cols 8+2t4..+1
        qa[kk][3] = uint32_t(qe[1][kk][2]) | (uint32_t(qe[1][kk][3]) << 16);
      }
    }

    float m[2] = {neg_inf(), neg_inf()}, l[2] = {0.f, 0.f};  // l: this lane's columns only (summed at the end)
    float o[2][TD];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) o[i][x] = 0.f;

    // ---- main loop
#pragma unroll 1
    for (int c = 0; c < count; ++c) {
      const int nxt = c + kAhead;
      if (nxt < count) {
        issue_tile(lds + T.k_tile(warp, nxt % S), lds + T.v_tile(warp, nxt % S), k, v, tile_n0(nxt), ke, lane,
                   next_block);
        next_block = nxt + 1 < count ? tile_block(k, tile_n0(nxt + 1), ke) : 0;  // used one iteration later
      }
      mma::cp_async_commit();
      mma::cp_async_wait<kAhead>();
      __syncwarp();
      char* tk = lds + T.k_tile(warp, c % S);
      char* tv = lds + T.v_tile(warp, c % S);
      const int n0 = tile_n0(c);

      float s[2][TN];
      tile_scores(s, qa, tk, lane);  // S = Q K^T

      // scores (log2 domain), mask, online softmax
      const bool masked = n0 + NW > ke || tile_needs_mask(rule, i_first, i_last + 1, n0, NW);
      const auto key_of = [&](int x) { return n0 + (x / 2) * MmaSplitKvShape::kMmaN + 2 * t4 + x % 2; };
      const auto visible = [&](int i, int j) { return j < ke && rule.visible(qi[i], j); };  // j: absolute key
      float alphas[2];  // kLazyRescale: each row's alpha, for the warp-wide test below
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        float row_max = neg_inf();
#pragma unroll
        for (int x = 0; x < TN; ++x) {
          const int j = key_of(x);
          float y = score(s[i][x], qi[i], j);
          // ALiBi from the row's anchor (the row constant to the LSE / the statistics' shift; eco14), as the dense kernels
          if (slope[i] != 0.f) y -= slope[i] * kLog2e * rf_abs(float(score.query_anchor32(qi[i]) - j));
          if (masked && !visible(i, j)) y = neg_inf();
          s[i][x] = y;
          row_max = rf_max(row_max, y);
        }
        row_max = group_max<4>(row_max);
        const float m_new = rf_max(m[i], row_max);
        const float base = m_new == neg_inf() ? 0.f : m_new;  // no visible key yet: exp2 stays 0, not NaN
        const float alpha = rf_exp2(m[i] - base);
        m[i] = m_new;
        float sum = 0.f;
#pragma unroll
        for (int x = 0; x < TN; ++x) {
          s[i][x] = rf_exp2(s[i][x] - base);
          sum += s[i][x];
        }
        l[i] = l[i] * alpha + sum;
        if constexpr (kLazyRescale) {
          alphas[i] = alpha;
        } else {
#pragma unroll
          for (int x = 0; x < TD; ++x) o[i][x] *= alpha;
        }
      }
      if constexpr (kLazyRescale) {  // uniform: o * 1 == o, so skipping it changes no bit
        if (!__all_sync(0xffffffffu, alphas[0] == 1.f && alphas[1] == 1.f)) {
#pragma unroll
          for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int x = 0; x < TD; ++x) o[i][x] *= alphas[i];
        }
      }
      if (masked) clean_v(tv, o, lane, [&](int i, int jt) { return visible(i, n0 + jt); });

      // O += P V
#pragma unroll
      for (int kk = 0; kk < KP; ++kk) {
        uint32_t a[4];
        a[0] = mma::pack2<E>(s[0][4 * kk], s[0][4 * kk + 1]);
        a[1] = mma::pack2<E>(s[1][4 * kk], s[1][4 * kk + 1]);
        a[2] = mma::pack2<E>(s[0][4 * kk + 2], s[0][4 * kk + 3]);
        a[3] = mma::pack2<E>(s[1][4 * kk + 2], s[1][4 * kk + 3]);
        tile_pv(o, a, tv, lane, kk);
      }
      __syncwarp();  // every lane is done with this stage before the next round's copies refill it
    }
    mma::cp_async_wait<0>();  // (only empty groups can remain)
    rf_allow_dependent_grid();  // the combine kernel may be scheduled now (it waits for this grid's end)
    epilogue(p, lds, m, l, o, seq, rule, score, chunk, split, head_k, batch, r0, nrows);
  }

  // The end of a block item: the warps' states (m, l, o: rows g and g + 8 of each lane) merge through shared memory in
  // warp order, then O / l and LSE go to the output (one split) or to the combine kernel's fp32 partials.
  RF_DEVICE static void epilogue(const FmhaFwdParams& p, char* lds, float (&m)[2], float (&l)[2], float (&o)[2][TD],
                                const SeqInfo& seq, const MaskRule& rule, const ScoreTransform& score, int chunk,
                                int split, int head_k, int batch, int r0, int nrows) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const int warp = tid / MmaSplitKvShape::kWarpLanes, lane = tid % MmaSplitKvShape::kWarpLanes;
    const int g = lane / 4, t4 = lane % 4;
    const int group = p.nheads / p.nheads_k;
    // ---- merge the warps' states through shared memory (warp order), then the epilogue
#pragma unroll
    for (int i = 0; i < 2; ++i) l[i] = group_sum<4>(l[i]);
    __syncthreads();  // every warp is done with its K/V ring: the merge reuses it
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int r = g + 8 * i;
      if (r >= nrows) continue;
#pragma unroll
      for (int x = 0; x < TD; x += 2) {
        const int col = (x / 2) * MmaSplitKvShape::kMmaN + 2 * t4;
        *reinterpret_cast<float2*>(lds + T.merge_o(warp, r, col)) = make_float2(o[i][x], o[i][x + 1]);
      }
      if (t4 == 0) {
        *reinterpret_cast<float*>(lds + T.merge_m(warp, r)) = m[i];
        *reinterpret_cast<float*>(lds + T.merge_l(warp, r)) = l[i];
      }
    }
    __syncthreads();
    constexpr int kColsPerThread = 4;
    for (int id = tid; id < nrows * (T.headdim / kColsPerThread); id += T.threads) {
      const int r = id / (T.headdim / kColsPerThread), col = (id % (T.headdim / kColsPerThread)) * kColsPerThread;
      float mx = neg_inf();
#pragma unroll
      for (int w = 0; w < T.warps(); ++w) mx = rf_max(mx, *reinterpret_cast<const float*>(lds + T.merge_m(w, r)));
      const float base = mx == neg_inf() ? 0.f : mx;
      float lsum = 0.f, acc[kColsPerThread] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int w = 0; w < T.warps(); ++w) {
        const float a = rf_exp2(*reinterpret_cast<const float*>(lds + T.merge_m(w, r)) - base);
        lsum = rf_fma(a, *reinterpret_cast<const float*>(lds + T.merge_l(w, r)), lsum);
        const float4 ov = *reinterpret_cast<const float4*>(lds + T.merge_o(w, r, col));
        acc[0] = rf_fma(a, ov.x, acc[0]);
        acc[1] = rf_fma(a, ov.y, acc[1]);
        acc[2] = rf_fma(a, ov.z, acc[2]);
        acc[3] = rf_fma(a, ov.w, acc[3]);
      }
      const int rr = r0 + r;
      const int head = head_k * group + rr % group, qrow = rr / group;
      // l == 0: no visible key, O = 0 and LSE = -inf, or a row that sees keys whose scores were all -inf
      // (SplitRowEnd); a NaN l (NaN inputs) propagates; a bad index: NaN.
      const bool ovf = SplitRowEnd::overflow(seq, rule, qrow, lsum);
      const float inv_l = seq.bad ? quiet_nan() : ovf ? SplitRowEnd::o_value(p) : lsum == 0.f ? 0.f : rf_rcp(lsum);
      const float shift = score.query_row_shift(  // ALiBi's row constant (0 without)
          p.alibi_slopes ? p.alibi_slopes[int64_t(batch) * p.alibi_batch_stride + head] : 0.f, qrow);
      if (p.num_splits == 1) {
        const float lse = seq.bad ? quiet_nan() : ovf ? SplitRowEnd::lse_value(p) : lsum == 0.f ? neg_inf() : (mx + rf_log2(lsum)) * kLn2 + shift;
        const auto out = q_side_rows<E>(p.o, p.o_batch_stride, p.o_row_stride, p.o_head_stride, seq, batch, head, p.headdim);
        char* row = const_cast<char*>(out.base) + int64_t(qrow) * out.row_stride_bytes;
#pragma unroll
        for (int e = 0; e < kColsPerThread; ++e)
          if (col + e < p.headdim) store_elem<E>(row + int64_t(col + e) * E::kBytes, acc[e] * inv_l);
        if (col == 0) p.lse[lse_index(p.seq, seq, batch, head, qrow)] = lse;
      } else {
        const int64_t flat = (p.seq.cu_seqlens_q ? seq.q_row0 : int64_t(batch) * p.seqlen_q) + qrow;
        const int64_t part = (int64_t(split) * p.nheads + head) * p.seq.total_q + flat;
        *reinterpret_cast<float4*>(p.o_accum + part * T.headdim + col) =
            make_float4(acc[0] * inv_l, acc[1] * inv_l, acc[2] * inv_l, acc[3] * inv_l);
        if (col == 0)  // (m_s, l_s, shift): fmha_common.h kSplitStats
          store_split_stats(p, part, seq.bad ? quiet_nan() : ovf ? SplitRowEnd::lse_value(p) : lsum == 0.f ? neg_inf() : mx,
                            seq.bad ? quiet_nan() : ovf ? 0.f : lsum, shift);
      }
    }
    if (p.num_splits > 1 && p.split_counters != nullptr) combine_if_last(p, lds, seq, batch, head_k, chunk, r0, nrows);
  }

  // Fused combine (p.split_counters set, more than one split; the launcher then skips the combine kernel): the
  // block that completes a (batch, kv-head, row chunk) slot last merges every split's partial of its rows into O
  // and LSE with fmha_fwd_splitkv_combine_kernel's formulas, summing the splits in split order, so the result
  // does not depend on which block came last (bitwise repeatable), and resets the slot's counter to 0 for the
  // next launch. Ordering as the CUDA C Programming Guide's "Memory Fence Functions" example: partials, fence,
  // atomic arrival; the last block fences again and reads the partials from L2 (ld.global.cg).
  RF_DEVICE static void combine_if_last(const FmhaFwdParams& p, char* lds, const SeqInfo& seq, int batch, int head_k,
                                        int chunk, int r0, int nrows) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const int group = p.nheads / p.nheads_k;
    const int chunks = (p.seqlen_q * group + T.block_m - 1) / T.block_m;
    __threadfence();  // this thread's partials are visible device-wide before the block's arrival is counted
    __syncthreads();  // (also: every thread is done with the merge's shared memory)
    int* flag = reinterpret_cast<int*>(lds);
    if (tid == 0) {
      int* counter = p.split_counters + (int64_t(batch) * p.nheads_k + head_k) * chunks + chunk;
      const bool last = atomicAdd(counter, 1) == p.num_splits - 1;
      if (last) *counter = 0;  // every split of the slot has arrived: nothing else touches it in this launch
      *flag = last ? 1 : 0;
    }
    __syncthreads();
    if (*flag == 0) return;  // uniform
    __threadfence();
    const int splits = p.num_splits;
    const int64_t split_stride = int64_t(p.nheads) * p.seq.total_q;
    const int64_t flat0 = p.seq.cu_seqlens_q ? seq.q_row0 : int64_t(batch) * p.seqlen_q;
    const auto part0 = [&](int r) {  // partial index of row r (of this chunk) in split 0
      const int rr = r0 + r;
      return int64_t(head_k * group + rr % group) * p.seq.total_q + flat0 + rr / group;
    };
    // the splits' m_s and l_s (kSplitStats) of every row, [nrows][splits] each, after the flag
    float* m_sm = reinterpret_cast<float*>(lds) + 4;
    float* l_sm = m_sm + nrows * splits;
    if (16 + nrows * splits * 8 > T.lds_bytes()) __trap();  // the host fuses only when it fits (compiled.py)
    for (int id = tid; id < nrows * splits; id += T.threads) {
      const int64_t part = part0(id / splits) + int64_t(id % splits) * split_stride;
      m_sm[id] = __ldcg(p.lse_accum + part * kSplitStats);
      l_sm[id] = __ldcg(p.lse_accum + part * kSplitStats + 1);
    }
    __syncthreads();
    constexpr int kCols = 4;
    for (int id = tid; id < nrows * (T.headdim / kCols); id += T.threads) {
      const int r = id / (T.headdim / kCols), col = (id % (T.headdim / kCols)) * kCols;
      const float* ms = m_sm + r * splits;
      const float* ls = l_sm + r * splits;
      float mx = neg_inf();
      for (int sp = 0; sp < splits; ++sp) mx = rf_max(mx, ms[sp]);
      const float base = mx == neg_inf() ? 0.f : mx;
      float sum = 0.f;
      for (int sp = 0; sp < splits; ++sp) sum += rf_exp2(ms[sp] - base) * ls[sp];
      // sum == 0: every split empty (no visible key): O = 0, LSE = -inf; NaN: splitkv_combined_lse / _inv
      const float lse = splitkv_combined_lse(mx, base, sum, __ldcg(p.lse_accum + part0(r) * kSplitStats + 2));
      const float inv = splitkv_combined_inv(mx, sum);
      const float* src = p.o_accum + part0(r) * T.headdim + col;
      float acc[kCols] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll 8
      for (int sp = 0; sp < splits; ++sp) {
        const float w = rf_exp2(ms[sp] - base) * ls[sp] * inv;
        const float4 x = __ldcg(reinterpret_cast<const float4*>(src + int64_t(sp) * split_stride * T.headdim));
        acc[0] = rf_fma(w, x.x, acc[0]);
        acc[1] = rf_fma(w, x.y, acc[1]);
        acc[2] = rf_fma(w, x.z, acc[2]);
        acc[3] = rf_fma(w, x.w, acc[3]);
      }
      const int rr = r0 + r;
      const int head = head_k * group + rr % group, qrow = rr / group;
      const auto out = q_side_rows<E>(p.o, p.o_batch_stride, p.o_row_stride, p.o_head_stride, seq, batch, head, p.headdim);
      char* row = const_cast<char*>(out.base) + int64_t(qrow) * out.row_stride_bytes;
#pragma unroll
      for (int e = 0; e < kCols; ++e)
        if (col + e < p.headdim) store_elem<E>(row + int64_t(col + e) * E::kBytes, acc[e]);
      if (col == 0) p.lse[lse_index(p.seq, seq, batch, head, qrow)] = lse;
    }
  }
};

// Blocks as the vector kernel's (row chunk fastest, then split, kv-head, batch), grid-stride loop.
template <class E, class Tile, bool kAligned, int kCopy = kSplitKvCopyAsync>
__global__ void __launch_bounds__(Tile::kShape.threads)
    fmha_fwd_splitkv_mma_kernel(const FmhaFwdParams p) {
  // dynamic shared memory on MmaSplitKvShape::kLdsAlign (with kXorAddresses the ldmatrix addresses are XORs of the
  // full shared address, T.at_step); checked, not assumed
  extern __shared__ __align__(MmaSplitKvShape::kLdsAlign) uint4 rf_lds_split[];
  char* const lds = reinterpret_cast<char*>(rf_lds_split);
#if !defined(RF_MMA_UNSUPPORTED)
  if (FmhaFwdSplitKvMmaPipeline<E, Tile, kAligned, kCopy>::kXorAddresses &&
      mma::smem_address(lds) % MmaSplitKvShape::kLdsAlign != 0)
    __trap();
#endif
  rf_wait_prior_grid();  // launched as a dependent (p.pdl): the step kernel's seqused_k and append are visible past here
  const int group = p.nheads / p.nheads_k;
  const int chunks = (p.seqlen_q * group + Tile::kShape.block_m - 1) / Tile::kShape.block_m;
  const int64_t total = int64_t(chunks) * p.num_splits * p.nheads_k * p.batch;
  for (int64_t bid = blockIdx.x; bid < total; bid += gridDim.x) {
    const int chunk = int(bid % chunks);
    int64_t rest = bid / chunks;
    const int split = int(rest % p.num_splits);
    rest /= p.num_splits;
#if defined(RF_MMA_UNSUPPORTED)
    __trap();
#else
    FmhaFwdSplitKvMmaPipeline<E, Tile, kAligned, kCopy>::run(p, lds, chunk, split,
                                                             int(rest % p.nheads_k), int(rest / p.nheads_k));
#endif
    __syncthreads();  // the next block of the loop reuses shared memory
  }
}

}  // namespace rf
