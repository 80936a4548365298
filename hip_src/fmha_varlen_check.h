// fmha_varlen_check.h - the value rules of flash_attn_varlen_func's index tensors, checked on the device in one
// launch (rocflash/varlen.py device_checks on the compiled backends): no host read of cu_seqlens or block_table
// (no device->host sync, CUDA-graph capturable) and no chain of small torch ops (about 10 us of host time each on
// an H200 host; the torch-op version of these rules was ~28 ops per call).
//
// Rules (the host path's ValueErrors, rocflash/varlen.py check_cu_seqlens / check_block_table):
//   cu_seqlens_q[0] == cu_seqlens_k[0] == 0; both non-decreasing; cu_seqlens_q[batch] == total_q and, without a
//   block table, cu_seqlens_k[batch] == total_k; every sequence has at most max_seqlen_q query rows and
//   max_seqlen_k keys (the attention grid is sized by them); with a block table at most max_blocks_per_seq x
//   page_block_size keys, and the entries of the pages that hold its keys index blocks in [0, num_blocks)
//   (entries past them are never read: vLLM pads tables with anything).
// A violation sets *error_flag to 1 and, with assert_on_error, stops the kernel in a device-side assert (the
// error surfaces at the caller's next synchronization). The attention kernels queued after it on the stream never
// run then, so they never read through a bad index.
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_params.h"
#include "fmha_seq.h"

namespace rf {

inline constexpr int kVarlenCheckThreads = 128;

// One block per sequence (grid-stride): thread 0 checks the sequence's cu_seqlens entries, every thread a share of
// its used block-table entries.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) fmha_varlen_check_kernel(const VarlenCheckParams c) {
  __shared__ int bad_seq;
  const int tid = threadIdx.x;
  for (int b = blockIdx.x; b < c.batch; b += gridDim.x) {
    const int32_t q0 = c.cu_seqlens_q[b], q1 = c.cu_seqlens_q[b + 1];
    const int32_t k0 = c.cu_seqlens_k[b], k1 = c.cu_seqlens_k[b + 1];
    // differences in 64 bits: int32 entries far apart must not wrap into a small, valid-looking length
    const int64_t len_q = int64_t(q1) - q0, len_k = int64_t(k1) - k0;
    int64_t limit_k = c.max_seqlen_k;
    if (c.block_table != nullptr) {
      const int64_t capacity = int64_t(c.max_blocks_per_seq) * c.page_block_size;
      limit_k = capacity < limit_k ? capacity : limit_k;
    }
    bool bad = len_q < 0 || len_q > c.max_seqlen_q || len_k < 0 || len_k > limit_k;
    if (b == 0) bad = bad || q0 != 0 || k0 != 0;
    if (b == c.batch - 1) bad = bad || q1 != c.total_q || (c.total_k >= 0 && k1 != c.total_k);
    const bool paged = !bad && c.block_table != nullptr;  // only the pages that hold this sequence's keys
    bad = used_pages_out_of_range<kThreads>(c.block_table + (paged ? int64_t(b) * c.block_table_batch_stride : 0),
                                            paged ? int((len_k + c.page_block_size - 1) / c.page_block_size) : 0,
                                            c.num_blocks, bad_seq) || bad;
    if (bad && tid == 0) {
      if (c.error_flag != nullptr) *c.error_flag = 1;
      if (c.assert_on_error)
        rf_assert_fail("rocflash: flash_attn_varlen_func index values: cu_seqlens start at 0, do not decrease, end at "
                       "total_q/k; sequences within max_seqlen_q/k and the block table; used pages in [0, num_blocks) "
                       "(ROCFLASH_INDEX_CHECKS=host names the value)");
    }
  }
}

}  // namespace rf
