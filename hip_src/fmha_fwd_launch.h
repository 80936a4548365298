// fmha_fwd_launch.h - host-side launch of one forward kernel instance (grid, block, dynamic LDS).
// Instances are explicit instantiations of launch_fmha_fwd, generated from ck_configs/fmha_fwd.toml.
#pragma once

#include "fmha_fwd_kernel.h"

namespace rf {

// Blocks in the launch grid; larger problems are covered by the kernel's grid-stride loop. Far above
// what any GPU keeps resident, far below the grid limits of both vendors.
inline constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

// One launch of a grid-stride kernel over `total` blocks of work: the dynamic LDS opt-in, then a grid of at most
// kMaxGridBlocks blocks (the forward, backward and split-KV launchers all go through it).
template <class Kernel, class Params>
rfError_t launch_grid_stride(Kernel kernel, const Params& p, int64_t total, int threads, int lds_bytes,
                             rfStream_t stream, bool dependent = false) {
  rfError_t err = rfFuncSetDynamicLds(kernel, lds_bytes);
  if (err != rfSuccess) return err;
  return rfLaunch(kernel, dim3(unsigned(total < kMaxGridBlocks ? total : kMaxGridBlocks)), dim3(threads), lds_bytes,
                  stream, dependent, p);
}

template <class E, class Tile, bool kAligned, bool kPlainScore>
rfError_t launch_fmha_fwd_kernel(const FmhaFwdParams& p, rfStream_t stream) {
  constexpr auto T = Tile::kShape;
  const int64_t num_m_blocks = (int64_t(p.seqlen_q) + T.block_m - 1) / T.block_m;
  return launch_grid_stride(fmha_fwd_kernel<E, Tile, kAligned, kPlainScore>, p, num_m_blocks * p.nheads * p.batch,
                            T.threads, T.lds_bytes(), stream);
}

// The scalar-broadcast forward (ck_configs impl "sbcast"), defined in fmha_fwd_sbcast.h. It takes K/V through the
// scalar cache and requests no dynamic LDS (kSbcastLdsBytes, what its launcher passes).
template <class Tile>
rfError_t launch_fmha_fwd_sbcast(const FmhaFwdParams& p, rfStream_t stream);
inline constexpr int kSbcastLdsBytes = 0;

// The dynamic LDS launch_fmha_fwd requests for a config (what the instance table reports): the tile shape's
// lds_bytes(), none for the scalar-broadcast forward. (A tensor-core config's general-score kernel runs a tile
// with fewer rows, so lds_bytes() of the config's shape bounds both of its kernels.)
template <class Tile>
constexpr int fwd_launch_lds_bytes() {
  if constexpr (TileMathOf<Tile>::value == TileMath::kSbcast) return kSbcastLdsBytes;
  else return Tile::kShape.lds_bytes();
}

// Policies with a plain-score path (tensor cores) get two kernels per config: the plain one for the common
// case (no softcap, no ALiBi, softmax_scale > 0; FmhaFwdPipeline::online_softmax<kMask, true>) on the config's
// tile, and the general one on GeneralScoreTile<Tile> (fmha_mma.h: one m16 tile per warp, since the per-element
// score transform needs the registers of a second one).
template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_fwd(const FmhaFwdParams& p, rfStream_t stream) {
  if constexpr (TileMathOf<Tile>::value == TileMath::kSbcast) {
    static_assert(kAligned, "the scalar-broadcast forward has the aligned (128-bit) load path only");
    return launch_fmha_fwd_sbcast<Tile>(p, stream);
  } else if constexpr (FmhaFwdPipeline<E, Tile, kAligned>::Math::kPlainScorePath) {
    if (p.softcap == 0.f && p.alibi_slopes == nullptr && p.softmax_scale > 0.f)
      return launch_fmha_fwd_kernel<E, Tile, kAligned, true>(p, stream);
    return launch_fmha_fwd_kernel<E, GeneralScoreTile<Tile>, kAligned, false>(p, stream);
  } else {
    return launch_fmha_fwd_kernel<E, Tile, kAligned, false>(p, stream);
  }
}

}  // namespace rf
