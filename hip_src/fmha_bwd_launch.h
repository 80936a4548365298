// fmha_bwd_launch.h - host-side launches of the backward kernels. The dK/dV and dQ instances are explicit
// instantiations generated from ck_configs/fmha_fwd.toml ([[bwd_dkdv]], [[bwd_dq]]).
#pragma once

#include "fmha_bwd_kernel.h"
#include "fmha_fwd_launch.h"
#if defined(RF_PLATFORM_CUDA)
#include "fmha_mma_bwd.h"     // tensor-core dK/dV kernels (NVIDIA sm_80+); the HIP build never compiles them
#include "fmha_mma_bwd_dq.h"  // and the tensor-core dQ kernel
#include "fmha_mma_bwd_pre.h"  // their preprocess (D in the tensor-core dP arithmetic)
#endif

namespace rf {

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_bwd_dkdv_vector(const FmhaBwdParams& p, rfStream_t stream) {
  constexpr BwdDkdvShape T = Tile::kShape;
  const int64_t total = (int64_t(p.seqlen_k) + T.block_n - 1) / T.block_n * p.nheads_k * p.batch;
  return launch_grid_stride(fmha_bwd_dkdv_kernel<E, Tile, kAligned>, p, total, T.threads, T.lds_bytes(), stream);
}

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_bwd_dq_vector(const FmhaBwdParams& p, rfStream_t stream) {
  constexpr BwdDqShape T = Tile::kShape;
  const int64_t total = (int64_t(p.seqlen_q) + T.block_m - 1) / T.block_m * p.nheads * p.batch;
  return launch_grid_stride(fmha_bwd_dq_kernel<E, Tile, kAligned>, p, total, T.threads, T.lds_bytes(), stream);
}

// The generated instances: the tile config's tile math (Tile::kMath) picks the kernel.
template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_bwd_dkdv(const FmhaBwdParams& p, rfStream_t stream) {
#if defined(RF_PLATFORM_CUDA)
  if constexpr (TileMathOf<Tile>::value == TileMath::kMma) return launch_fmha_bwd_dkdv_mma<E, Tile, kAligned>(p, stream);
  else
#endif
  return launch_fmha_bwd_dkdv_vector<E, Tile, kAligned>(p, stream);
}

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_bwd_dq(const FmhaBwdParams& p, rfStream_t stream) {
#if defined(RF_PLATFORM_CUDA)
  if constexpr (TileMathOf<Tile>::value == TileMath::kMma) return launch_fmha_bwd_dq_mma<E, Tile, kAligned>(p, stream);
  else
#endif
  return launch_fmha_bwd_dq_vector<E, Tile, kAligned>(p, stream);
}

// delta = rowsum(dO * O): 256 threads, 16 lanes per row.
template <class E>
rfError_t launch_fmha_bwd_preprocess(const FmhaBwdParams& p, rfStream_t stream) {
  constexpr int kThreads = 256, kThreadsN = 16;
  const int64_t blocks = (int64_t(p.batch) * p.nheads * p.seqlen_q + kThreads / kThreadsN - 1) / (kThreads / kThreadsN);
  fmha_bwd_preprocess_kernel<E, kThreads, kThreadsN>
      <<<dim3(unsigned(blocks < kMaxGridBlocks ? blocks : kMaxGridBlocks)), dim3(kThreads), 0, stream>>>(p);
  return rfGetLastError();
}

}  // namespace rf
