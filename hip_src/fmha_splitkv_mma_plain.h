// fmha_splitkv_mma_plain.h - the plain-decode loop of the tensor-core split-KV kernel (fmha_splitkv_mma.h): blocks
// of plain decode (no softcap, no ALiBi, at most 8 query rows, headdim = the bucket, every key of the split visible
// from every row) of the kSplitKvCopyPlain / kSplitKvCopyPlainAsync kernels run this loop instead of the pipeline's
// general one (perf/RESULTS.md "dec11"), with the speculative first copies of a folded KV-cache step ("dec13").
// Its tile math (S = Q K^T, O += P V on shared-memory tiles) is the pipeline's.
#pragma once

#include "fmha_mma.h"
#include "fmha_splitkv_kernel.h"

namespace rf {

// P: the FmhaFwdSplitKvMmaPipeline whose loop this is (its element type, tile, load path, constants, tile_scores
// and tile_pv).
template <class P>
struct FmhaFwdSplitKvMmaPlain {
  using E = typename P::Elem;
  using Tile = typename P::TileType;
  static constexpr bool kAligned = P::kAlignedPath;
  static constexpr bool kPlainKernel = P::kPlainKernel;
  static constexpr int NW = P::NW, TN = P::TN, TD = P::TD, KQ = P::KQ, KP = P::KP, CPR = P::CPR, S = P::S;
  static constexpr int kLanes = P::kLanes;
  static constexpr int kL2Prefetch = P::kL2Prefetch;
  static constexpr bool kL2EvictFirst = P::kL2EvictFirst;

  // ---- plain decode (kCopy kSplitKvCopyPlain or kSplitKvCopyPlainAsync; perf/RESULTS.md "dec11")
  // Its blocks hold at most kPlainRows query rows: the rows g of the mma tile; the rows g + 8 are padding, whose
  // softmax and O rescale it skips (their P fragments are 0; their accumulators are never stored).
  static constexpr int kPlainRows = MmaSplitKvShape::kMmaM / 2;
  // Copies: kPlainRowLanes lanes share a K/V row, lane `sub` of them copying its 16-byte chunks sub, sub + 8, ...,
  // so one copy instruction moves 128 contiguous bytes (one L2 line) of each of 4 rows, and a lane's copies of a
  // tile are its kPlainRowsPerLane row pointers plus compile-time offsets (the copy instructions' immediates; in
  // shared memory plus the lane's kPlainSwizzlePeriod swizzled chunk offsets, plain_chunks): per
  // tile one row offset per tensor, not an address per 16 bytes (Near's issue_tile: ~100 integer instructions per
  // tile). 4 lanes per row (64 bytes of 8 rows per instruction, fewer pointers) lost 3-4 % at batch 8 / 32 on the
  // H200 (perf/RESULTS.md "dec11").
  static constexpr int kPlainRowLanes = CPR < 8 ? CPR : 8;
  static constexpr int kPlainRowsPerRound = kLanes / kPlainRowLanes;
  static constexpr int kPlainRowsPerLane = NW / kPlainRowsPerRound;
  static constexpr int kPlainChunksPerRow = CPR / kPlainRowLanes;
  // The rows a lane copies, row0 + rr * kPlainRowsPerRound, repeat their swizzle (row % kSwizzleRows) every
  // kPlainSwizzlePeriod rows of the lane: the lane's chunk offsets of one period (plain_chunks) serve every row.
  static constexpr int kPlainSwizzlePeriod =
      MmaSplitKvShape::kSwizzleRows % kPlainRowsPerRound == 0 ? MmaSplitKvShape::kSwizzleRows / kPlainRowsPerRound : 1;
  // tiles a warp of the plain loop has in flight while it computes one: kStages - 1 = 2 in both plain kernels since
  // dec13 (with the speculative first copies and the XOR ldmatrix addresses, 1.00-1.04x one tile's per-call time in
  // 24-call graphs at batch 1 and 8 on the H200, level at batch 32: perf/RESULTS.md "dec13"); kCopy's kAhead is then
  // the depth of the other blocks' loop (kSplitKvCopyPlain: one, as kSplitKvCopyNear; kSplitKvCopyPlainAsync: two)
  static constexpr int kPlainAhead = MmaSplitKvShape::kStages - 1;
  static constexpr int kPlainStages = kPlainAhead + 1;
  static_assert(kPlainAhead <= S - 1, "the folded KV-cache step's flag lies in the last stage of warp 0's ring, "
                                      "which the speculative copies (stages below kPlainAhead) leave free");
  static_assert(kPlainStages <= MmaSplitKvShape::kStages, "the plain loop's ring lies in the warp's K/V ring");
  // An A-fragment register of the padding rows g + 8: whatever the register holds (no instruction; zeros cost a move
  // into every operand quad, dec11). Those rows' S and O are never read: mma rows are independent.
  RF_DEVICE static uint32_t padding_fragment() {
    uint32_t x;
    asm("" : "=r"(x));
    return x;
  }

  // The shared-memory offsets, within their rows, of lane `sub`'s first chunk in its rows row0 + p *
  // kPlainRowsPerRound, p < kPlainSwizzlePeriod (T.chunk_offset; its chunk sub + it * kPlainRowLanes of those rows
  // lies it * kPlainRowLanes chunks further: the swizzle's XOR stays inside an aligned group of kSwizzleRows chunks).
  struct PlainChunks {
    int at[kPlainSwizzlePeriod];
  };
  RF_DEVICE static PlainChunks plain_chunks(int row0, int sub) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    static_assert(!T.swizzled() || (MmaSplitKvShape::kSwizzleRows % kPlainRowsPerRound == 0 &&
                                    kPlainRowLanes % MmaSplitKvShape::kSwizzleRows == 0),
                  "the plain loop's copy mapping must keep a lane's swizzled chunks a fixed period apart");
    PlainChunks c;
#pragma unroll
    for (int q = 0; q < kPlainSwizzlePeriod; ++q) {
      const int r = row0 + q * kPlainRowsPerRound;
      c.at[q] = T.chunk_offset(r, sub) - r * T.row_bytes();
    }
    return c;
  }

  // Keys [n0, n0 + NW) of K and V into a warp's stage (plain loop). sk / sv: shared address of the lane's first row
  // in the stage; chunks: plain_chunks of the lane; k_row / v_row: byte offset of row n0 from k.base / v.base;
  // rows_left: keys from the lane's first row to the split's end (rows at or past it are zero-filled, never read);
  // k_lane / v_lane: the lane's row and chunk offset, k_round / v_round: kPlainRowsPerRound rows.
  RF_DEVICE static void plain_copy(uint32_t sk, uint32_t sv, const PlainChunks& chunks, const GlobalRows<E>& k,
                                   const GlobalRows<E>& v, int64_t k_row, int64_t v_row, int rows_left,
                                   int64_t k_lane, int64_t v_lane, int64_t k_round, int64_t v_round) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    static_assert(kLanes % kPlainRowLanes == 0 && NW % kPlainRowsPerRound == 0 && CPR % kPlainRowLanes == 0,
                  "the plain loop's copy mapping must tile a K/V tile exactly");
    const char* kp = k.base + k_row + k_lane;
    const char* vp = v.base + v_row + v_lane;
#pragma unroll
    for (int rr = 0; rr < kPlainRowsPerLane; ++rr) {
      const bool inside = rr * kPlainRowsPerRound < rows_left;
      const int bytes = inside ? kVectorBytes : 0;
      const char* kr = inside ? kp + rr * k_round : k.base;  // (nothing is read when bytes = 0)
      const char* vr = inside ? vp + rr * v_round : v.base;
#pragma unroll
      for (int it = 0; it < kPlainChunksPerRow; ++it) {
        const int s_off = rr * kPlainRowsPerRound * T.row_bytes() + chunks.at[rr % kPlainSwizzlePeriod] +
                          it * kPlainRowLanes * kVectorBytes;
        const int g_off = it * kPlainRowLanes * kVectorBytes;
        mma::cp_async_16_l2<kL2Prefetch, kL2EvictFirst>(sk + s_off, kr + g_off, bytes);
        mma::cp_async_16_l2<kL2Prefetch, kL2EvictFirst>(sv + s_off, vr + g_off, bytes);
      }
    }
  }

  // A lane's fixed copy offsets in the plain loop: its row and chunk in global memory (k_lane / v_lane; k_round /
  // v_round: kPlainRowsPerRound rows), its first row's shared address in stage 0 of its warp's ring (s_lane) and its
  // swizzled chunk offsets (plain_chunks). Stage s of the ring lies s * kStageBytes further.
  static constexpr int kStageBytes = 2 * Tile::kShape.tile_bytes();  // k_tile(w, s + 1) - k_tile(w, s); v = k + tile
  struct PlainLane {
    int64_t k_lane, v_lane, k_round, v_round;
    uint32_t s_lane;
    PlainChunks chunks;
  };
  RF_DEVICE static PlainLane plain_lane(char* lds, const GlobalRows<E>& k, const GlobalRows<E>& v, int warp, int lane) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const int row0 = lane / kPlainRowLanes, sub = lane % kPlainRowLanes;
    PlainLane r;
    r.k_lane = int64_t(row0) * k.row_stride_bytes + sub * kVectorBytes;
    r.v_lane = int64_t(row0) * v.row_stride_bytes + sub * kVectorBytes;
    r.k_round = kPlainRowsPerRound * k.row_stride_bytes;
    r.v_round = kPlainRowsPerRound * v.row_stride_bytes;
    r.s_lane = mma::smem_address(lds + T.k_tile(warp, 0) + row0 * T.row_bytes());
    r.chunks = plain_chunks(row0, sub);
    return r;
  }

  // The first copies of a KV-cache step, put in flight before the step (p.step.fold) decides anything. The folded
  // step (fmha_kvstep.h) must read cache_seqlens[b] (and the block-table entries of the split) and pass three
  // barriers before the block knows its keys: a memory latency and more ahead of every first copy (dec13: 0.3-0.6
  // us per call at batch 1 on the H200). This warp's first kPlainAhead plain-loop tiles, keys n0 + c * kStepKeys with
  // n0 = split * kps + warp * NW, are copied now into stages c of its ring, each its own cp.async group, where
  // that read is safe whatever the step decides: the tile's rows lie inside the cache's capacity and the split, in
  // cache row `batch` (dense, no cache_batch_idx, batch < num_rows) or in the block whose table entry (read here)
  // lies in [0, num_rows) (paged, pages of a multiple of NW rows). Only the plain-decode instances and calls (the
  // part of run's `plain` rule that the parameters alone decide) speculate. run_plain takes a tile's copy when its
  // tile c is that tile and every row of it is a key of the sequence from before the step's append; when one is
  // not taken, the warp waits for all of them to land before its stages are reused (spec_drain).
  static constexpr int kStepKeys = Tile::kShape.warps() * NW;  // keys from one of a warp's tiles to its next
  struct SpecCopies {
    int n0 = -1;    // the warp's first key (its first tile), -1: no copy in flight
    int tiles = 0;  // bit c: tile c (keys n0 + c * kStepKeys) is in flight in stage c
  };
  RF_DEVICE static SpecCopies speculate_first_tiles(const FmhaFwdParams& p, char* lds, int split, int head_k,
                                                    int batch, int kps) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const KvStepParams& s = p.step;
    const SeqLayout& l = p.seq;
    const int warp = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
    const bool paged = l.block_table != nullptr;
    const bool eligible = kPlainKernel && kAligned && s.fold && p.headdim == T.headdim && p.softcap == 0.f &&
                          p.alibi_slopes == nullptr && p.window_left < 0 && l.cu_seqlens_q == nullptr &&
                          l.cu_seqlens_k == nullptr && p.seqlen_q * (p.nheads / p.nheads_k) <= kPlainRows &&
                          (paged ? l.page_block_size % NW == 0 : l.cache_batch_idx == nullptr && batch < s.num_rows);
    SpecCopies r;
    if (!eligible) return r;
    SeqInfo rows;  // the cache as the step's attention sees it before the step: every slot up to the capacity
    rows.seqlen_q = p.seqlen_q;
    rows.seqlen_k = s.capacity;
    rows.q_row0 = rows.k_row0 = 0;
    rows.kv_batch = batch;
    rows.bad = false;
    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, rows, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, rows, batch, head_k);
    const int64_t n0 = int64_t(split) * kps + warp * NW;
    const int64_t end = min(int64_t(s.capacity), int64_t(split + 1) * kps);
    // paged: the tiles' table entries, loaded together (the table's row holds capacity / page_size entries)
    int32_t blocks[kPlainAhead];
#pragma unroll
    for (int c = 0; c < kPlainAhead; ++c) {
      const int64_t key = n0 + c * kStepKeys;
      blocks[c] = paged && key + NW <= end ? k.pages[key / k.page_size] : 0;
    }
    const PlainLane pl = plain_lane(lds, k, v, warp, lane);
#pragma unroll
    for (int c = 0; c < kPlainAhead; ++c) {
      const int64_t key = n0 + c * kStepKeys;
      const bool ok = key + NW <= end && (!paged || (blocks[c] >= 0 && blocks[c] < s.num_rows));  // uniform in the warp
      if (ok) {
        const int in_page = paged ? int(key % k.page_size) : 0;
        const int64_t k_row = paged ? int64_t(blocks[c]) * k.page_stride_bytes + int64_t(in_page) * k.row_stride_bytes
                                    : key * k.row_stride_bytes;
        const int64_t v_row = paged ? int64_t(blocks[c]) * v.page_stride_bytes + int64_t(in_page) * v.row_stride_bytes
                                    : key * v.row_stride_bytes;
        const uint32_t sk = pl.s_lane + c * kStageBytes;
        plain_copy(sk, sk + T.tile_bytes(), pl.chunks, k, v, k_row, v_row, NW, pl.k_lane, pl.v_lane, pl.k_round,
                   pl.v_round);
        r.tiles |= 1 << c;
      }
      mma::cp_async_commit();
    }
    r.n0 = r.tiles != 0 ? int(n0) : -1;
    return r;
  }

  // Speculative copies that are not all taken (speculate_first_tiles): the stages are reused only once every one of
  // them has landed.
  RF_DEVICE static void spec_drain(const SpecCopies& spec) {
    if (spec.n0 >= 0) {
      mma::cp_async_wait<0>();
      __syncwarp();
    }
  }

  // spec: speculate_first_tiles' copies of this warp.
  RF_DEVICE static void run_plain(const FmhaFwdParams& p, char* lds, const GlobalRows<E>& k, const GlobalRows<E>& v,
                                  const ScoreTransform& score, int kb, int ke, int r0, int nrows, int head_k, int batch,
                                  const SeqInfo& seq, const SpecCopies& spec, float (&m)[2], float (&l)[2],
                                  float (&o)[2][TD]) {
    constexpr MmaSplitKvShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const int warp = tid / kLanes, lane = tid % kLanes;
    const int g = lane / 4, t4 = lane % 4;
    const int group = p.nheads / p.nheads_k;
    const int tiles = kb < ke ? (ke - kb + NW - 1) / NW : 0;
    const int count = tiles > warp ? (tiles - warp + T.warps() - 1) / T.warps() : 0;
    const bool paged = k.pages != nullptr;

    // ---- the copy cursor: the next tile to copy (first key n_next; paged: its page and row in the page, and the
    // page's block, read one tile ahead of its copy)
    int n_next = kb + warp * NW;
    int page = 0, in_page = 0, page_step = 0, in_step = 0;
    if (paged) {
      page = n_next / k.page_size;
      in_page = n_next - page * k.page_size;
      page_step = kStepKeys / k.page_size;
      in_step = kStepKeys - page_step * k.page_size;
    }
    // tile c < kPlainAhead is the speculative copy's when it is that copy's tile and all of its rows are keys of the
    // sequence from before the step's append (rows at or past ke would have to be zero-filled; appended rows were
    // written after the copy was issued)
    int taken = 0;
    const int old_end = min(ke, seq.seqlen_k - max(p.step.seqlen_new, 0));
#pragma unroll
    for (int c = 0; c < kPlainAhead; ++c) {
      const bool t = spec.n0 == n_next && (spec.tiles >> c & 1) && c < count && n_next + c * kStepKeys + NW <= old_end;
      taken |= t ? 1 << c : 0;
    }
    if (taken != spec.tiles) spec_drain(spec);
    // whether issue() copies tile c (else it is not in the split, or speculatively in flight)
    const auto copies = [&](int c) { return c < count && !(c < kPlainAhead && (taken >> c & 1)); };
    int64_t block = paged && copies(0) ? int64_t(k.pages[page]) : 0;
    const int row0 = lane / kPlainRowLanes;
    const PlainLane pl = plain_lane(lds, k, v, warp, lane);
    const auto advance = [&]() {  // the cursor moves to the warp's next tile
      n_next += kStepKeys;
      if (paged) {
        in_page += in_step;
        page += page_step;
        if (in_page >= k.page_size) {
          in_page -= k.page_size;
          ++page;
        }
      }
    };
    const auto issue = [&](int stage) {  // the cursor's tile into `stage`, then the cursor moves to the next tile
      const int64_t k_row = paged ? block * k.page_stride_bytes + int64_t(in_page) * k.row_stride_bytes
                                  : int64_t(n_next) * k.row_stride_bytes;
      const int64_t v_row = paged ? block * v.page_stride_bytes + int64_t(in_page) * v.row_stride_bytes
                                  : int64_t(n_next) * v.row_stride_bytes;
      const uint32_t sk = pl.s_lane + stage * kStageBytes;
      plain_copy(sk, sk + T.tile_bytes(), pl.chunks, k, v, k_row, v_row, ke - n_next - row0, pl.k_lane, pl.v_lane,
                 pl.k_round, pl.v_round);
      advance();
    };
#pragma unroll
    for (int c = 0; c < kPlainAhead; ++c) {  // the first kPlainAhead tiles, each its own cp.async group
      if (c < count) {
        if (taken >> c & 1)
          advance();  // (its copy is speculate_first_tiles', an older group: complete when this one is)
        else
          issue(c);
        block = paged && copies(c + 1) ? int64_t(k.pages[page]) : 0;
      }
      mma::cp_async_commit();
    }

    // ---- Q's A fragments of rows g (32-bit pairs: the aligned path's rows start on 16 bytes); rows g + 8: padding
    uint32_t qa[KQ][4];
    {
      const bool real = g < nrows;
      const int rr = r0 + (real ? g : 0);
      const auto qrows = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch,
                                        head_k * group + rr % group, p.headdim);
      const char* row = qrows.base + int64_t(rr / group) * qrows.row_stride_bytes;
#pragma unroll
      for (int kk = 0; kk < KQ; ++kk) {
        const int col = 16 * kk + 2 * t4;
        qa[kk][0] = real ? *reinterpret_cast<const uint32_t*>(row + int64_t(col) * E::kBytes) : 0u;
        qa[kk][2] = real ? *reinterpret_cast<const uint32_t*>(row + int64_t(col + 8) * E::kBytes) : 0u;
        qa[kk][1] = padding_fragment();
        qa[kk][3] = padding_fragment();
      }
    }

    m[0] = m[1] = neg_inf();
    l[0] = l[1] = 0.f;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) o[i][x] = 0.f;

    // ---- main loop
#pragma unroll 1
    for (int c = 0; c < count; ++c) {
      if (c + kPlainAhead < count) {
        issue((c + kPlainAhead) % kPlainStages);  // the stage computed in the previous iteration
        block = paged && c + kPlainAhead + 1 < count ? int64_t(k.pages[page]) : 0;  // used one iteration later
      }
      mma::cp_async_commit();
      mma::cp_async_wait<kPlainAhead>();
      __syncwarp();
      char* tk = lds + T.k_tile(warp, c % kPlainStages);
      char* tv = lds + T.v_tile(warp, c % kPlainStages);
      const int n0 = kb + (warp + c * T.warps()) * NW;

      float s[2][TN];
      P::tile_scores(s, qa, tk, lane);  // S = Q K^T

      // scores (log2 domain: raw * scale_log2, ScoreTransform without softcap or ALiBi), keys >= ke masked, online
      // softmax of rows g
      const bool last = n0 + NW > ke;  // uniform: the split's last tile of this warp
      float row_max = neg_inf();
#pragma unroll
      for (int x = 0; x < TN; ++x) {
        float y = s[0][x] * score.scale_log2;
        if (last && n0 + (x / 2) * MmaSplitKvShape::kMmaN + 2 * t4 + x % 2 >= ke) y = neg_inf();
        s[0][x] = y;
        row_max = rf_max(row_max, y);
      }
      row_max = group_max<4>(row_max);
      const float m_new = rf_max(m[0], row_max);
      const float base = m_new == neg_inf() ? 0.f : m_new;  // no visible key yet: exp2 stays 0, not NaN
      const float alpha = rf_exp2(m[0] - base);
      m[0] = m_new;
      float sum = 0.f;
#pragma unroll
      for (int x = 0; x < TN; ++x) {
        s[0][x] = rf_exp2(s[0][x] - base);
        sum += s[0][x];
      }
      l[0] = l[0] * alpha + sum;
      if (__any_sync(0xffffffffu, alpha != 1.f)) {  // uniform: o * 1 == o, so skipping it changes no bit
#pragma unroll
        for (int x = 0; x < TD; ++x) o[0][x] *= alpha;
      }
      // (no clean_v: keys at or past ke are zero-filled by the copies, and every key before ke is visible, so no
      // masked key holds garbage; a non-finite V of a visible key meets its P as in any unmasked tile)

      // O += P V (rows g + 8: padding, their A fragments whatever a register holds)
#pragma unroll
      for (int kk = 0; kk < KP; ++kk) {
        uint32_t a[4];
        a[0] = mma::pack2<E>(s[0][4 * kk], s[0][4 * kk + 1]);
        a[1] = padding_fragment();
        a[2] = mma::pack2<E>(s[0][4 * kk + 2], s[0][4 * kk + 3]);
        a[3] = padding_fragment();
        P::tile_pv(o, a, tv, lane, kk);
      }
      __syncwarp();  // every lane is done with this stage before the next round's copies refill it
    }
    mma::cp_async_wait<0>();  // (only empty groups can remain)
    rf_allow_dependent_grid();  // the combine kernel may be scheduled now (it waits for this grid's end)
  }
};

}  // namespace rf
