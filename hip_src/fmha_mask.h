// fmha_mask.h - which keys each query row sees, and the block-level view of it that lets the kernel
// skip fully masked K/V tiles and run fully visible tiles without per-element predicates.
//
// Plain C++ with host/device qualifiers only: compiled into the kernels and into the host-side probe
// (rocflash/_probe) that the tests use to check the Python golden model (rocflash/masks.py) against it.
//
// Convention (flash-attn >= 2.1, bottom-right aligned): query row i sees key j iff
//     0 <= j < seqlen_k  and  i + seqlen_k - seqlen_q - window_left <= j <= i + seqlen_k - seqlen_q + window_right
// with a negative window bound meaning "unbounded on that side"; causal is window_right = 0.
#pragma once

#include <stdint.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define RF_HD __host__ __device__ inline
#else
#define RF_HD inline
#endif

namespace rf {

struct MaskRule {
  int32_t seqlen_q, seqlen_k;
  int32_t window_left, window_right;  // < 0: unbounded

  // First and last key index row i may see (before clipping to [0, seqlen_k)).
  RF_HD int64_t first_key(int64_t i) const {
    return window_left < 0 ? INT64_MIN / 4 : i + seqlen_k - seqlen_q - window_left;
  }
  RF_HD int64_t last_key(int64_t i) const {
    return window_right < 0 ? INT64_MAX / 4 : i + seqlen_k - seqlen_q + window_right;
  }
  RF_HD bool visible(int64_t i, int64_t j) const {
    return j >= 0 && j < seqlen_k && j >= first_key(i) && j <= last_key(i);
  }
  // Whether row i sees at least one key (rows past seqlen_q see none). The epilogues ask it for rows whose online
  // softmax ended with l == 0 (m = -inf): with no visible key that is flash-attn's convention (O = 0, LSE = -inf);
  // with one it means every visible scaled score overflowed float32 to -inf (q.k ~ -3e40, or softmax_scale ~ -2e38),
  // whose fp64 answer is finite: the row must be NaN, never a silent 0 (issue 8; fmha_common.h empty_row_inv_l).
  // Closed form, int32: a left bound never empties a row (first_key(i) <= seqlen_k - 1 for i < seqlen_q); only the
  // right bound and seqlen_k can (last_key(i) >= 0). seqlen_q - i - seqlen_k cannot overflow for 0 <= i < seqlen_q.
  RF_HD bool sees_any_key(int32_t i) const {
    return i >= 0 && i < seqlen_q && seqlen_k > 0 && (window_right < 0 || window_right >= seqlen_q - i - seqlen_k);
  }
};

// The keys query row i sees, as one int32 span [*lo, *hi] (empty when *lo > *hi): for every key j >= 0,
// lo <= j <= hi iff i < seqlen_q && visible(i, j). Rows past seqlen_q (tile padding) see nothing. The 64-bit
// window arithmetic is done once per row instead of per (row, key) element (the tensor-core backward's masks).
RF_HD void visible_key_span(const MaskRule& r, int64_t i, int32_t* lo, int32_t* hi) {
  const int64_t first = r.first_key(i) > 0 ? r.first_key(i) : 0;
  const int64_t last = r.last_key(i) < int64_t(r.seqlen_k) - 1 ? r.last_key(i) : int64_t(r.seqlen_k) - 1;
  *lo = int32_t(first > int64_t(INT32_MAX) ? int64_t(INT32_MAX) : first);
  *hi = i < r.seqlen_q ? int32_t(last < -1 ? int64_t(-1) : last) : -1;
}

// The visible keys of the query rows row0 + off (0 <= off < 2^20) as one int32 span per row, for kernels that
// test many rows a fixed offset apart: key j (0 <= j < seqlen_k) is visible to row row0 + off iff
// first(off) <= j <= last(off). Two int32 per thread instead of two int64 per row (registers); exact for
// seqlen_k <= 2^30 (bounds beyond +-2^30 are clamped there, where no key can lie).
struct RowSpan {
  int32_t first0, last0, seqlen_k;

  RF_HD static RowSpan make(const MaskRule& r, int64_t row0) {
    constexpr int64_t kLim = int64_t(1) << 30;
    const int64_t f = r.first_key(row0), l = r.last_key(row0);
    return RowSpan{int32_t(f < -kLim ? -kLim : f > kLim ? kLim : f), int32_t(l < -kLim ? -kLim : l > kLim ? kLim : l),
                   r.seqlen_k};
  }
  RF_HD int32_t first(int32_t off) const { return first0 + off > 0 ? first0 + off : 0; }
  RF_HD int32_t last(int32_t off) const { return last0 + off < seqlen_k - 1 ? last0 + off : seqlen_k - 1; }
  RF_HD bool visible(int32_t off, int32_t j) const { return j >= first(off) && j <= last(off); }

  // The same spans relative to a key tile starting at n0: tile column c (key n0 + c) is visible to row row0 + off
  // iff lo(off) <= c <= hi(off). Each bound is one add and one min/max of values that change with n0 (so a
  // compiler keeps two registers per thread, not two per row, across a loop over tiles).
  struct Tile {
    int32_t a, b, lo_min, hi_max;
    RF_HD int32_t lo(int32_t off) const { return a + off > lo_min ? a + off : lo_min; }
    RF_HD int32_t hi(int32_t off) const { return b + off < hi_max ? b + off : hi_max; }
  };
  RF_HD Tile tile(int32_t n0) const { return Tile{first0 - n0, last0 - n0, -n0, seqlen_k - 1 - n0}; }
};

// The K/V tiles of [tile_begin, tile_end) (key_tile_range) that need no mask for any row of [m_begin, m_end):
// [*full_begin, *full_end) (empty: *full_begin >= *full_end). tile_needs_mask(t) == !(full_begin <= t < full_end)
// for every visited tile t, with two int32 compares instead of int64 key arithmetic per tile.
RF_HD void unmasked_tile_range(const MaskRule& r, int32_t m_begin, int32_t m_end, int32_t block_n,
                               int32_t* full_begin, int32_t* full_end) {
  // tile t is unmasked iff first_key(m_end - 1) <= t*Bc, t*Bc + Bc - 1 <= last_key(m_begin), t*Bc + Bc <= seqlen_k
  const int64_t lo_key = r.first_key(int64_t(m_end) - 1);
  int64_t hi_key = r.last_key(m_begin);
  if (hi_key > int64_t(r.seqlen_k) - 1) hi_key = int64_t(r.seqlen_k) - 1;
  const int64_t begin = lo_key <= 0 ? 0 : (lo_key + block_n - 1) / block_n;
  const int64_t end = hi_key < 0 ? 0 : (hi_key + 1) / block_n;  // tiles whose last key <= hi_key
  *full_begin = int32_t(begin > (int64_t(1) << 30) ? (int64_t(1) << 30) : begin);
  *full_end = int32_t(end);
}

// The K/V tiles (of block_n keys) a block of query rows [m_begin, m_end) must visit: [*tile_begin, *tile_end).
// Tiles outside are fully masked for every row of the block and are skipped; the set is empty
// (*tile_begin == *tile_end) when no row of the block sees any key. Only valid rows (< seqlen_q) count:
// the caller passes m_end = min(m_begin + block_m, seqlen_q).
RF_HD void key_tile_range(const MaskRule& r, int32_t m_begin, int32_t m_end, int32_t block_n,
                          int32_t* tile_begin, int32_t* tile_end) {
  int64_t first = r.first_key(m_begin);
  int64_t last = r.last_key(m_end - 1);
  if (first < 0) first = 0;
  if (last > int64_t(r.seqlen_k) - 1) last = int64_t(r.seqlen_k) - 1;
  if (m_end <= m_begin || first > last) {
    *tile_begin = *tile_end = 0;
    return;
  }
  *tile_begin = int32_t(first / block_n);
  *tile_end = int32_t(last / block_n + 1);
}

// The query tiles (of block_m rows) whose rows see at least one key of [n_begin, n_end) (valid keys only:
// n_end = min(n_begin + block_n, seqlen_k)): [*tile_begin, *tile_end). The backward dK/dV kernel visits
// only these; the set is empty when no query row sees any of the keys.
RF_HD void query_tile_range(const MaskRule& r, int32_t n_begin, int32_t n_end, int32_t block_m,
                            int32_t* tile_begin, int32_t* tile_end) {
  const int64_t diag = int64_t(r.seqlen_k) - r.seqlen_q;
  int64_t first = r.window_right < 0 ? 0 : int64_t(n_begin) - diag - r.window_right;
  int64_t last = r.window_left < 0 ? int64_t(r.seqlen_q) - 1 : int64_t(n_end) - 1 - diag + r.window_left;
  if (first < 0) first = 0;
  if (last > int64_t(r.seqlen_q) - 1) last = int64_t(r.seqlen_q) - 1;
  if (n_end <= n_begin || first > last) {
    *tile_begin = *tile_end = 0;
    return;
  }
  *tile_begin = int32_t(first / block_m);
  *tile_end = int32_t(last / block_m + 1);
}

// True when some (valid row, key) pair of the tile [n_begin, n_begin + block_n) x [m_begin, m_end) is
// masked: only such boundary tiles run the per-element predicate.
RF_HD bool tile_needs_mask(const MaskRule& r, int32_t m_begin, int32_t m_end, int32_t n_begin, int32_t block_n) {
  const int64_t n_last = int64_t(n_begin) + block_n - 1;
  return n_last >= r.seqlen_k || r.first_key(m_end - 1) > n_begin || r.last_key(m_begin) < n_last;
}

}  // namespace rf
