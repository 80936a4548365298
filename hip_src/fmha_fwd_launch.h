// fmha_fwd_launch.h - host-side launch of one forward kernel instance (grid, block, dynamic LDS).
// Instances are explicit instantiations of launch_fmha_fwd, generated from ck_configs/fmha_fwd.toml.
#pragma once

#include "fmha_fwd_kernel.h"

namespace rf {

// Blocks in the launch grid; larger problems are covered by the kernel's grid-stride loop. Far above
// what any GPU keeps resident, far below the grid limits of both vendors.
inline constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

template <class E, class Tile, bool kAligned, bool kPlainScore>
rfError_t launch_fmha_fwd_kernel(const FmhaFwdParams& p, rfStream_t stream) {
  constexpr auto T = Tile::kShape;
  constexpr int kLdsBytes = T.lds_bytes();
  const auto kernel = fmha_fwd_kernel<E, Tile, kAligned, kPlainScore>;
  rfError_t err = rfFuncSetDynamicLds(kernel, kLdsBytes);
  if (err != rfSuccess) return err;
  const int64_t num_m_blocks = (int64_t(p.seqlen_q) + T.block_m - 1) / T.block_m;
  const int64_t total = num_m_blocks * p.nheads * p.batch;
  const int64_t grid = total < kMaxGridBlocks ? total : kMaxGridBlocks;
  kernel<<<dim3(unsigned(grid)), dim3(T.threads), kLdsBytes, stream>>>(p);
  return rfGetLastError();
}

// Policies with a plain-score path (tensor cores) get two kernels per config: the plain one for the common
// case (no softcap, no ALiBi, softmax_scale > 0; FmhaFwdPipeline::online_softmax<kMask, true>) on the config's
// tile, and the general one on GeneralScoreTile<Tile> (fmha_mma.h: one m16 tile per warp, since the per-element
// score transform needs the registers of a second one).
template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_fwd(const FmhaFwdParams& p, rfStream_t stream) {
  if constexpr (FmhaFwdPipeline<E, Tile, kAligned>::Math::kPlainScorePath) {
    if (p.softcap == 0.f && p.alibi_slopes == nullptr && p.softmax_scale > 0.f)
      return launch_fmha_fwd_kernel<E, Tile, kAligned, true>(p, stream);
    return launch_fmha_fwd_kernel<E, GeneralScoreTile<Tile>, kAligned, false>(p, stream);
  } else {
    return launch_fmha_fwd_kernel<E, Tile, kAligned, false>(p, stream);
  }
}

}  // namespace rf
