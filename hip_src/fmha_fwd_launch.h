// fmha_fwd_launch.h - host-side launch of one forward kernel instance (grid, block, dynamic LDS).
// Instances are explicit instantiations of launch_fmha_fwd, generated from ck_configs/fmha_fwd.toml.
#pragma once

#include "fmha_fwd_kernel.h"

namespace rf {

// Blocks in the launch grid; larger problems are covered by the kernel's grid-stride loop. Far above
// what any GPU keeps resident, far below the grid limits of both vendors.
inline constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_fwd(const FmhaFwdParams& p, rfStream_t stream) {
  constexpr auto T = Tile::kShape;
  constexpr int kLdsBytes = T.lds_bytes();
  const auto kernel = fmha_fwd_kernel<E, Tile, kAligned>;
  rfError_t err = rfFuncSetDynamicLds(kernel, kLdsBytes);
  if (err != rfSuccess) return err;
  const int64_t num_m_blocks = (int64_t(p.seqlen_q) + T.block_m - 1) / T.block_m;
  const int64_t total = num_m_blocks * p.nheads * p.batch;
  const int64_t grid = total < kMaxGridBlocks ? total : kMaxGridBlocks;
  kernel<<<dim3(unsigned(grid)), dim3(T.threads), kLdsBytes, stream>>>(p);
  return rfGetLastError();
}

}  // namespace rf
