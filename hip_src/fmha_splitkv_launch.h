// fmha_splitkv_launch.h - host-side launch of the split-KV decode kernel and, with more than one split, the
// combine kernel. Instances are explicit instantiations of launch_fmha_fwd_splitkv, generated from
// ck_configs/fmha_splitkv.toml ([[fwd_splitkv]]): vector configs run fmha_splitkv_kernel.h, `impl = "mma"`
// configs (CUDA, fp16/bf16) the tensor-core kernel of fmha_splitkv_mma.h. Both write the same partials.
#pragma once

#include "fmha_fwd_launch.h"
#include "fmha_splitkv_kernel.h"
#if defined(RF_PLATFORM_CUDA)
#include "fmha_splitkv_mma.h"
#endif

namespace rf {

inline constexpr int kCombineThreads = 256;  // block of the combine kernel: one (query row, head) per block

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_fwd_splitkv(const FmhaFwdParams& p, rfStream_t stream) {
  constexpr auto T = Tile::kShape;
  const int lds_bytes = T.lds_bytes();
  const auto kernel = [&] {
#if defined(RF_PLATFORM_CUDA)
    if constexpr (Tile::kMath == TileMath::kMma) {  // kv_k_first: the copy variant's kernel (fmha_splitkv_mma.h)
      if (p.kv_k_first == kSplitKvCopyNearLazy)
        return fmha_fwd_splitkv_mma_kernel<E, Tile, kAligned, kSplitKvCopyNearLazy>;
      if constexpr (kAligned) {  // (the plain loop takes the 128-bit path only; else the kernel without it)
        if (p.kv_k_first == kSplitKvCopyPlain) return fmha_fwd_splitkv_mma_kernel<E, Tile, kAligned, kSplitKvCopyPlain>;
        if (p.kv_k_first == kSplitKvCopyPlainAsync)
          return fmha_fwd_splitkv_mma_kernel<E, Tile, kAligned, kSplitKvCopyPlainAsync>;
      }
      return p.kv_k_first == kSplitKvCopyAsync || p.kv_k_first == kSplitKvCopyPlainAsync
                 ? fmha_fwd_splitkv_mma_kernel<E, Tile, kAligned, kSplitKvCopyAsync>
                 : fmha_fwd_splitkv_mma_kernel<E, Tile, kAligned, kSplitKvCopyNear>;
    } else
#endif
      return fmha_fwd_splitkv_kernel<E, Tile, kAligned>;
  }();
  const int64_t chunks = (int64_t(p.seqlen_q) * (p.nheads / p.nheads_k) + T.block_m - 1) / T.block_m;
  const bool dependent = Tile::kMath == TileMath::kMma && p.pdl != 0;  // the vector kernel never waits
  const rfError_t err = launch_grid_stride(kernel, p, chunks * p.num_splits * p.nheads_k * p.batch, T.threads,
                                           lds_bytes, stream, dependent);
  // The tensor-core kernel merges the splits itself when given arrival counters (fused combine).
  const bool fused = Tile::kMath == TileMath::kMma && p.split_counters != nullptr;
  if (err != rfSuccess || p.num_splits == 1 || fused) return err;
  const int64_t blocks = int64_t(p.seq.total_q) * p.nheads;
  // dependent: the combine kernel's blocks are scheduled while the split kernel's last blocks finish, then wait
  // for it (rf_wait_prior_grid, its first statement)
  return rfLaunch(fmha_fwd_splitkv_combine_kernel<E, kCombineThreads, T.headdim>,
                  dim3(unsigned(blocks < kMaxGridBlocks ? blocks : kMaxGridBlocks)), dim3(kCombineThreads), 0, stream,
                  dependent, p);
}

}  // namespace rf
