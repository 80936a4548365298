// fmha_splitkv_launch.h - host-side launch of the split-KV decode kernel and, with more than one split, the
// combine kernel. Instances are explicit instantiations of launch_fmha_fwd_splitkv, generated from
// ck_configs/fmha_splitkv.toml ([[fwd_splitkv]]).
#pragma once

#include "fmha_fwd_launch.h"
#include "fmha_splitkv_kernel.h"

namespace rf {

inline constexpr int kCombineThreads = 128;  // block of the combine kernel
inline constexpr int kCombineLanes = 16;     // lanes per (query row, head) in the combine

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_fwd_splitkv(const FmhaFwdParams& p, rfStream_t stream) {
  constexpr SplitKvShape T = Tile::kShape;
  constexpr int kLdsBytes = T.lds_bytes();
  const auto kernel = fmha_fwd_splitkv_kernel<E, Tile, kAligned>;
  rfError_t err = rfFuncSetDynamicLds(kernel, kLdsBytes);
  if (err != rfSuccess) return err;
  const int64_t chunks = (int64_t(p.seqlen_q) * (p.nheads / p.nheads_k) + T.block_m - 1) / T.block_m;
  const int64_t total = chunks * p.num_splits * p.nheads_k * p.batch;
  kernel<<<dim3(unsigned(total < kMaxGridBlocks ? total : kMaxGridBlocks)), dim3(T.threads), kLdsBytes, stream>>>(p);
  err = rfGetLastError();
  if (err != rfSuccess || p.num_splits == 1) return err;
  constexpr int kPairsPerBlock = kCombineThreads / kCombineLanes;
  const int64_t blocks = (int64_t(p.seq.total_q) * p.nheads + kPairsPerBlock - 1) / kPairsPerBlock;
  fmha_fwd_splitkv_combine_kernel<E, kCombineThreads, kCombineLanes, T.headdim>
      <<<dim3(unsigned(blocks < kMaxGridBlocks ? blocks : kMaxGridBlocks)), dim3(kCombineThreads), 0, stream>>>(p);
  return rfGetLastError();
}

}  // namespace rf
