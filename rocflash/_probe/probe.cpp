// probe.cpp - host-side view of the forward kernel's tile layout and mask rules, for the tests and the
// ISA audit (rocflash/isa.py). Compiled with the host C++ compiler into a shared library and loaded with
// ctypes by rocflash/_probe/__init__.py.
//
// It #includes the kernel's own headers (hip_src/fmha_tile.h, hip_src/fmha_mask.h; both plain C++17
// outside hipcc/nvcc), so every number returned here comes from the address arithmetic and the mask
// rules the kernel is compiled with, not from a second copy of the formulas.
//
// Tile shapes cross the C boundary as int[7] in FwdTileShape field order:
//   {headdim, block_m, block_n, threads, threads_n, lds_pad_bytes, elem_bytes}
#include <stdint.h>

#include "fmha_mask.h"
#include "fmha_tile.h"

namespace {

constexpr int kShapeFields = 7;

rf::FwdTileShape shape_from(const int* s) {
  return rf::FwdTileShape{s[0], s[1], s[2], s[3], s[4], s[5], s[6]};
}

// The four LDS reads of the main loop (fmha_tile_math.h, VectorTileMath::qk / ::pv).
enum ReadKind { kQ = 0, kK = 1, kP = 2, kV = 3 };

}  // namespace

extern "C" {

// Bumped whenever a signature below changes: the Python side refuses a library of another version.
int rf_probe_abi_version() { return 1; }

int rf_probe_shape_fields() { return kShapeFields; }

// 1 when the shape satisfies FwdTileShape::valid() (the kernel's static_assert), else 0.
int rf_probe_valid(const int* s) { return shape_from(s).valid() ? 1 : 0; }

// Dynamic LDS bytes per block the launcher requests for this shape (fmha_fwd_launch.h).
int rf_probe_lds_bytes(const int* s) { return shape_from(s).lds_bytes(); }

// Index ranges and width of one read kind, as the loops of VectorTileMath walk them:
//   q_read(tid, i, d)   i < rows_per_thread,   d < chunks_per_row,        16 bytes
//   k_read(tid, c, d)   c < s_cols_per_thread, d < chunks_per_row,        16 bytes
//   p_read(tid, i, j)   i < rows_per_thread,   j < block_n*elem_bytes/16, 16 bytes
//   v_read(tid, jp, g)  jp < block_n / 2,      g < o_chunks_per_thread,   v_read_bytes()
// Returns 0, or -1 for an unknown kind.
int rf_probe_read_extent(const int* s, int kind, int* n_a, int* n_b, int* width_bytes) {
  const rf::FwdTileShape t = shape_from(s);
  switch (kind) {
    case kQ: *n_a = t.rows_per_thread(); *n_b = t.chunks_per_row(); *width_bytes = rf::kVectorBytes; return 0;
    case kK: *n_a = t.s_cols_per_thread(); *n_b = t.chunks_per_row(); *width_bytes = rf::kVectorBytes; return 0;
    case kP:
      *n_a = t.rows_per_thread();
      *n_b = t.block_n * t.elem_bytes / rf::kVectorBytes;
      *width_bytes = rf::kVectorBytes;
      return 0;
    case kV: *n_a = t.block_n / 2; *n_b = t.o_chunks_per_thread(); *width_bytes = t.v_read_bytes(); return 0;
    default: return -1;
  }
}

// LDS byte address of read `kind` for threads tid0 .. tid0+n-1 at loop indices (a, b), into out[0..n).
// Returns 0, or -1 for an unknown kind.
int rf_probe_lane_addrs(const int* s, int kind, int a, int b, int tid0, int n, int* out) {
  const rf::FwdTileShape t = shape_from(s);
  for (int l = 0; l < n; ++l) {
    const int tid = tid0 + l;
    switch (kind) {
      case kQ: out[l] = t.q_read(tid, a, b); break;
      case kK: out[l] = t.k_read(tid, a, b); break;
      case kP: out[l] = t.p_read(tid, a, b); break;
      case kV: out[l] = t.v_read(tid, a, b); break;
      default: return -1;
    }
  }
  return 0;
}

// ---- fmha_mask.h
int rf_probe_mask_visible(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                          int64_t i, int64_t j) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  return r.visible(i, j) ? 1 : 0;
}

void rf_probe_key_tile_range(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                             int32_t m_begin, int32_t m_end, int32_t block_n, int32_t* tile_begin,
                             int32_t* tile_end) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  rf::key_tile_range(r, m_begin, m_end, block_n, tile_begin, tile_end);
}

int rf_probe_tile_needs_mask(int32_t seqlen_q, int32_t seqlen_k, int32_t window_left, int32_t window_right,
                             int32_t m_begin, int32_t m_end, int32_t n_begin, int32_t block_n) {
  const rf::MaskRule r{seqlen_q, seqlen_k, window_left, window_right};
  return rf::tile_needs_mask(r, m_begin, m_end, n_begin, block_n) ? 1 : 0;
}

}  // extern "C"
