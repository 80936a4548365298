// probe.cpp - host-side view of the kernels' tile layouts and mask rules, for the tests and the ISA audit
// (rocflash/isa/audit.py). Compiled with the host C++ compiler into a shared library and loaded with ctypes by
// rocflash/_probe/__init__.py.
//
// It #includes the kernels' own headers (hip_src/fmha_tile.h, fmha_bwd_tile.h, fmha_mask.h; plain C++17
// outside hipcc/nvcc), so every number returned here comes from the address arithmetic and the mask rules
// the kernels are compiled with, not from a second copy of the formulas.
//
// Tile shapes cross the C boundary as a shape kind plus int[7] in field order (FwdTileShape and BwdTileBase
// have the same fields):
//   {headdim, block_m, block_n, threads, threads_n, lds_pad_bytes, elem_bytes}
// Shape kinds: 0 = rf::FwdTileShape (forward), 1 = rf::BwdDkdvShape (dK/dV kernel), 2 = rf::BwdDqShape (dQ
// kernel). Read kinds are numbered per shape kind (the enums below; the Python side lists the same names in
// the same order, READ_KINDS).
#include <stdint.h>

#include "fmha_bwd_tile.h"
#include "fmha_mask.h"
#include "fmha_splitkv_tile.h"
#include "fmha_mma_tile.h"
#include "fmha_tile.h"

namespace {

constexpr int kShapeFields = 7;

enum ShapeKind { kFwd = 0, kBwdDkdv = 1, kBwdDq = 2, kSplitKv = 3, kFwdMma = 4, kSplitKvMma = 5 };  // kSplitKvMma: rf::MmaSplitKvShape  // split-KV: no main-loop LDS reads; kFwdMma: rf::MmaFwdTileShape

// The main-loop LDS reads of each kernel.
//   forward (fmha_tile_math.h, VectorTileMath::qk / ::pv)
enum FwdRead { kFwdQ = 0, kFwdK, kFwdP, kFwdV };
//   dK/dV (fmha_bwd_kernel.h): S = Q.K^T, dP = dO.V^T, then dV += P^T.dO, dK += dS^T.Q
enum DkdvRead { kDkdvQ = 0, kDkdvDo, kDkdvK, kDkdvV, kDkdvPt, kDkdvDst, kDkdvDoCol, kDkdvQCol };
//   dQ (fmha_bwd_kernel.h): S = Q.K^T, dP = dO.V^T, then dQ += dS.K
enum DqRead { kDqQ = 0, kDqDo, kDqK, kDqV, kDqDs, kDqKCol };
//   forward on tensor cores (fmha_mma.h): ldmatrix row addresses of Q (A of S = Q.K^T), K (B), V (B of O += P.V)
enum MmaRead { kMmaQ = 0, kMmaK, kMmaV };

rf::FwdTileShape fwd_from(const int* s) { return rf::FwdTileShape{s[0], s[1], s[2], s[3], s[4], s[5], s[6]}; }
rf::BwdDkdvShape dkdv_from(const int* s) { return rf::BwdDkdvShape{{s[0], s[1], s[2], s[3], s[4], s[5], s[6]}}; }
rf::BwdDqShape dq_from(const int* s) { return rf::BwdDqShape{{s[0], s[1], s[2], s[3], s[4], s[5], s[6]}}; }
rf::SplitKvShape splitkv_from(const int* s) { return rf::SplitKvShape{s[0], s[1], s[2], s[3], s[4], s[5], s[6]}; }
rf::MmaFwdTileShape mma_from(const int* s) { return rf::MmaFwdTileShape{s[0], s[1], s[2], s[3], s[4], s[5], s[6]}; }
rf::MmaSplitKvShape splitkv_mma_from(const int* s) { return rf::MmaSplitKvShape{s[0], s[1], s[2], s[3], s[4], s[5], s[6]}; }

struct Extent {
  int n_a, n_b, width_bytes;  // loop index a < n_a, b < n_b; bytes read per lane
};

// Index ranges and width of each read kind, as the loops of tile_rowdot / tile_pairdot walk them
// (fmha_tile_math.h). Returns false for an unknown read kind.
bool fwd_extent(const rf::FwdTileShape& t, int read, Extent* e) {
  const int p_vecs = t.block_n * t.elem_bytes / rf::kVectorBytes;
  switch (read) {
    case kFwdQ: *e = {t.rows_per_thread(), t.chunks_per_row(), rf::kVectorBytes}; return true;    // q_read(tid, i, d)
    case kFwdK: *e = {t.s_cols_per_thread(), t.chunks_per_row(), rf::kVectorBytes}; return true;  // k_read(tid, c, d)
    case kFwdP: *e = {t.rows_per_thread(), p_vecs, rf::kVectorBytes}; return true;                // p_read(tid, i, j)
    case kFwdV: *e = {t.block_n / 2, t.o_chunks_per_thread(), t.v_read_bytes()}; return true;     // v_read(tid, jp, g)
    default: return false;
  }
}

// Reads both backward kernels share (stages 1 and 2, recompute_p_and_ds): the same numbering in both enums.
static_assert(int(kDkdvQ) == int(kDqQ) && int(kDkdvDo) == int(kDqDo) && int(kDkdvK) == int(kDqK) &&
              int(kDkdvV) == int(kDqV), "the shared backward reads must keep one numbering");

template <class Shape>
bool bwd_shared_extent(const Shape& t, int read, Extent* e) {
  switch (read) {
    case kDkdvQ:
    case kDkdvDo: *e = {t.rows_per_thread(), t.chunks_per_row(), rf::kVectorBytes}; return true;    // (tid, i, d)
    case kDkdvK:
    case kDkdvV: *e = {t.s_cols_per_thread(), t.chunks_per_row(), rf::kVectorBytes}; return true;  // (tid, c, d)
    default: return false;
  }
}

template <class Shape>
bool bwd_shared_address(const Shape& t, int read, int tid, int a, int b, int* addr) {
  switch (read) {
    case kDkdvQ: *addr = t.q_read(tid, a, b); return true;
    case kDkdvDo: *addr = t.do_read(tid, a, b); return true;
    case kDkdvK: *addr = t.k_read(tid, a, b); return true;
    case kDkdvV: *addr = t.v_read(tid, a, b); return true;
    default: return false;
  }
}

bool dkdv_extent(const rf::BwdDkdvShape& t, int read, Extent* e) {
  const int pt_vecs = t.block_m * t.elem_bytes / rf::kVectorBytes;  // 128-bit vectors of one P^T / dS^T row
  const int col_chunks = t.o_cols_per_thread() / t.o_chunk_cols();
  switch (read) {
    case kDkdvPt:
    case kDkdvDst: *e = {t.keys_per_thread(), pt_vecs, rf::kVectorBytes}; return true;  // (tid, i, v)
    case kDkdvDoCol:
    case kDkdvQCol: *e = {t.block_m, col_chunks, t.o_col_read_bytes()}; return true;  // (tid, r, g)
    default: return bwd_shared_extent(t, read, e);
  }
}

bool dkdv_address(const rf::BwdDkdvShape& t, int read, int tid, int a, int b, int* addr) {
  switch (read) {
    case kDkdvPt: *addr = t.pt_read(tid, a, b); return true;
    case kDkdvDst: *addr = t.dst_read(tid, a, b); return true;
    case kDkdvDoCol: *addr = t.do_col_read(tid, a, b); return true;
    case kDkdvQCol: *addr = t.q_col_read(tid, a, b); return true;
    default: return bwd_shared_address(t, read, tid, a, b, addr);
  }
}

bool dq_extent(const rf::BwdDqShape& t, int read, Extent* e) {
  const int ds_vecs = t.block_n * t.elem_bytes / rf::kVectorBytes;  // 128-bit vectors of one dS row
  switch (read) {
    case kDqDs: *e = {t.rows_per_thread(), ds_vecs, rf::kVectorBytes}; return true;  // ds_read(tid, i, v)
    case kDqKCol:
      *e = {t.block_n, t.o_cols_per_thread() / t.o_chunk_cols(), t.o_col_read_bytes()};  // k_col_read(tid, j, g)
      return true;
    default: return bwd_shared_extent(t, read, e);
  }
}

bool dq_address(const rf::BwdDqShape& t, int read, int tid, int a, int b, int* addr) {
  switch (read) {
    case kDqDs: *addr = t.ds_read(tid, a, b); return true;
    case kDqKCol: *addr = t.k_col_read(tid, a, b); return true;
    default: return bwd_shared_address(t, read, tid, a, b, addr);
  }
}

// ldmatrix: each lane gives one 16-byte row address; (a, b) are the loops of MmaTileMath::qk / ::pv.
bool mma_extent(const rf::MmaFwdTileShape& t, int read, Extent* e) {
  const int k_steps = t.headdim / rf::MmaFwdTileShape::kMmaK, key_pairs = t.block_n / 16;
  switch (read) {
    case kMmaQ: *e = {t.m_tiles(), k_steps, rf::kVectorBytes}; return true;    // q_read(tid, mt, kk)
    case kMmaK: *e = {key_pairs, k_steps, rf::kVectorBytes}; return true;      // k_read(tid, np, kk)
    case kMmaV: *e = {key_pairs, t.headdim / 16, rf::kVectorBytes}; return true;  // v_read(tid, kk, dp)
    default: return false;
  }
}

bool mma_address(const rf::MmaFwdTileShape& t, int read, int tid, int a, int b, int* addr) {
  switch (read) {
    case kMmaQ: *addr = t.q_read(tid, a, b); return true;
    case kMmaK: *addr = t.k_read(tid, a, b); return true;
    case kMmaV: *addr = t.v_read(tid, a, b); return true;
    default: return false;
  }
}

bool fwd_address(const rf::FwdTileShape& t, int read, int tid, int a, int b, int* addr) {
  switch (read) {
    case kFwdQ: *addr = t.q_read(tid, a, b); return true;
    case kFwdK: *addr = t.k_read(tid, a, b); return true;
    case kFwdP: *addr = t.p_read(tid, a, b); return true;
    case kFwdV: *addr = t.v_read(tid, a, b); return true;
    default: return false;
  }
}

}  // namespace

extern "C" {

// Bumped whenever a signature below changes: the Python side refuses a library of another version.
// 2: shape kind argument (backward shapes), backward read kinds, query_tile_range.
int rf_probe_abi_version() { return 2; }

int rf_probe_shape_fields() { return kShapeFields; }

// 1 when the shape satisfies its valid() (the kernel's static_assert), 0 when not, -1 for an unknown shape kind.
int rf_probe_valid(int shape_kind, const int* s) {
  switch (shape_kind) {
    case kFwd: return fwd_from(s).valid() ? 1 : 0;
    case kBwdDkdv: return dkdv_from(s).valid() ? 1 : 0;
    case kBwdDq: return dq_from(s).valid() ? 1 : 0;
    case kSplitKv: return splitkv_from(s).valid() ? 1 : 0;
    case kFwdMma: return mma_from(s).valid() ? 1 : 0;
    case kSplitKvMma: return splitkv_mma_from(s).valid() ? 1 : 0;
    default: return -1;
  }
}

// Dynamic LDS bytes per block the launcher requests for this shape (fmha_fwd_launch.h, fmha_bwd_launch.h:
// lds_bytes() of the shape); -1 for an unknown shape kind.
int rf_probe_lds_bytes(int shape_kind, const int* s) {
  switch (shape_kind) {
    case kFwd: return fwd_from(s).lds_bytes();
    case kBwdDkdv: return dkdv_from(s).lds_bytes();
    case kBwdDq: return dq_from(s).lds_bytes();
    case kSplitKv: return splitkv_from(s).lds_bytes();
    case kFwdMma: return mma_from(s).lds_bytes();
    case kSplitKvMma: return splitkv_mma_from(s).lds_bytes();
    default: return -1;
  }
}

// Index ranges and width of one read kind of one shape kind:
//   forward   q_read(tid, i, d)    i < rows_per_thread,   d < chunks_per_row,          16 bytes
//             k_read(tid, c, d)    c < s_cols_per_thread, d < chunks_per_row,          16 bytes
//             p_read(tid, i, j)    i < rows_per_thread,   j < block_n*elem_bytes/16,   16 bytes
//             v_read(tid, jp, g)   jp < block_n / 2,      g < o_chunks_per_thread,     v_read_bytes()
//   backward  q_read, do_read      (tid, i, d) as q_read above;  k_read, v_read (tid, c, d) as k_read above
//   dK/dV     pt_read, dst_read    (tid, i, v)  i < keys_per_thread, v < block_m*elem_bytes/16, 16 bytes
//             do_col_read, q_col_read (tid, r, g)  r < block_m, g < o_cols_per_thread/o_chunk_cols,
//                                                  o_col_read_bytes()
//   dQ        ds_read              (tid, i, v)  i < rows_per_thread, v < block_n*elem_bytes/16, 16 bytes
//             k_col_read           (tid, j, g)  j < block_n, g < o_cols_per_thread/o_chunk_cols, o_col_read_bytes()
// Returns 0, or -1 for an unknown shape or read kind.
int rf_probe_read_extent(int shape_kind, const int* s, int read, int* n_a, int* n_b, int* width_bytes) {
  Extent e{};
  bool ok = false;
  switch (shape_kind) {
    case kFwd: ok = fwd_extent(fwd_from(s), read, &e); break;
    case kBwdDkdv: ok = dkdv_extent(dkdv_from(s), read, &e); break;
    case kBwdDq: ok = dq_extent(dq_from(s), read, &e); break;
    case kFwdMma: ok = mma_extent(mma_from(s), read, &e); break;
    default: return -1;
  }
  if (!ok) return -1;
  *n_a = e.n_a;
  *n_b = e.n_b;
  *width_bytes = e.width_bytes;
  return 0;
}

// LDS byte address of read `read` for threads tid0 .. tid0+n-1 at loop indices (a, b), into out[0..n).
// Returns 0, or -1 for an unknown shape or read kind.
int rf_probe_lane_addrs(int shape_kind, const int* s, int read, int a, int b, int tid0, int n, int* out) {
  for (int l = 0; l < n; ++l) {
    const int tid = tid0 + l;
    bool ok = false;
    switch (shape_kind) {
      case kFwd: ok = fwd_address(fwd_from(s), read, tid, a, b, &out[l]); break;
      case kBwdDkdv: ok = dkdv_address(dkdv_from(s), read, tid, a, b, &out[l]); break;
      case kBwdDq: ok = dq_address(dq_from(s), read, tid, a, b, &out[l]); break;
      case kFwdMma: ok = mma_address(mma_from(s), read, tid, a, b, &out[l]); break;
      default: return -1;
    }
    if (!ok) return -1;
  }
  return 0;
}

// ---- fmha_mask.h
int rf_probe_mask_visible(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                          int64_t i, int64_t j) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  return r.visible(i, j) ? 1 : 0;
}

void rf_probe_visible_key_span(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                               int64_t i, int32_t* lo, int32_t* hi) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  rf::visible_key_span(r, i, lo, hi);
}

int rf_probe_sees_any_key(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right, int32_t i) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  return r.sees_any_key(i) ? 1 : 0;
}

void rf_probe_key_tile_range(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                             int32_t m_begin, int32_t m_end, int32_t block_n, int32_t* tile_begin,
                             int32_t* tile_end) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  rf::key_tile_range(r, m_begin, m_end, block_n, tile_begin, tile_end);
}

void rf_probe_query_tile_range(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                               int32_t n_begin, int32_t n_end, int32_t block_m, int32_t* tile_begin,
                               int32_t* tile_end) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  rf::query_tile_range(r, n_begin, n_end, block_m, tile_begin, tile_end);
}

int rf_probe_tile_needs_mask(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                             int32_t m_begin, int32_t m_end, int32_t n_begin, int32_t block_n) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  return rf::tile_needs_mask(r, m_begin, m_end, n_begin, block_n) ? 1 : 0;
}

void rf_probe_unmasked_tile_range(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                                  int32_t m_begin, int32_t m_end, int32_t block_n, int32_t* full_begin,
                                  int32_t* full_end) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  rf::unmasked_tile_range(r, m_begin, m_end, block_n, full_begin, full_end);
}

// RowSpan of row0: 1 if key n0 + c is visible to row row0 + off by the span and by its per-tile form (both must
// agree; 2 when they disagree), else 0.
int rf_probe_row_span_visible(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                              int32_t row0, int32_t off, int32_t n0, int32_t c) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  const rf::RowSpan span = rf::RowSpan::make(r, row0);
  const rf::RowSpan::Tile tile = span.tile(n0);
  const bool a = span.visible(off, n0 + c), b = c >= tile.lo(off) && c <= tile.hi(off);
  return a != b ? 2 : a ? 1 : 0;
}

}  // extern "C"
