// fmha_kvstep.h - the first kernel of a KV-cache decode step (flash_attn_with_kvcache's fast path,
// rocflash/kvcache_fast.py): per sequence, the index checks of ROCFLASH_INDEX_CHECKS on the device, the keys the
// attention kernel may read (seqused_k), and the append of the new keys / values into the cache. It replaces the
// clamp / compare / assert torch ops of the host path (about 10 us of host time each on an H200 host) by one
// launch inside the same C++ call as the split-KV and combine kernels (fmha_kvcache_step, fmha_api.hip).
//
// A sequence is bad when cache_seqlens[b] + seqlen_new leaves [0, capacity], cache_batch_idx[b] leaves
// [0, num_rows), or a block_table entry of a page that holds one of its keys leaves [0, num_rows). A bad
// sequence gets seqused_k[b] = -1 (SeqInfo::bad: the attention kernels read none of its keys and write NaN to
// its O and LSE), nothing of it is appended, *error_flag is set to 1, and with assert_on_error (the `device`
// policy) the kernel stops in a device-side assert (the error surfaces at the caller's next synchronization,
// as for an out-of-range index in torch's own kernels).
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_params.h"
#include "fmha_seq.h"

namespace rf {

// KvStepParams: fmha_fwd_params.h (plain C++, filled by the bindings).
inline constexpr int kKvStepThreads = 128;

// One block per sequence (grid-stride). The cache (dense: (num_rows, capacity, nheads_k, headdim) at p.k / p.v
// with p's strides; the fast path appends into dense caches only) and cache_batch_idx / block_table come from
// the attention params p, so the step kernel checks exactly the indices the attention kernel will read.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) fmha_kvstep_kernel(const FmhaFwdParams p, const KvStepParams s) {
  __shared__ int bad_page;
  const SeqLayout& l = p.seq;
  const int tid = threadIdx.x;
  const int elem_bytes = p.dtype == DType::kFp32 ? 4 : 2;
  rf_allow_dependent_grid();  // the split kernel may be scheduled now; it waits for this grid's end (p.pdl)
  for (int b = blockIdx.x; b < p.batch; b += gridDim.x) {
    const int32_t n = s.cache_seqlens ? s.cache_seqlens[b] : s.seqlen_cache;
    const int32_t row = l.cache_batch_idx ? l.cache_batch_idx[b] : b;
    bool bad = n < 0 || n > s.capacity - s.seqlen_new || row < 0 || row >= s.num_rows;
    const int32_t used = n + s.seqlen_new;
    // only the pages that hold this sequence's keys (none when already bad or dense)
    const bool paged = !bad && l.block_table != nullptr;
    bad = used_pages_out_of_range<kThreads>(l.block_table + (paged ? int64_t(b) * l.block_table_batch_stride : 0),
                                            paged ? (used + l.page_block_size - 1) / l.page_block_size : 0,
                                            s.num_rows, bad_page) || bad;
    if (bad) {
      if (tid == 0) {
        s.seqused_k[b] = -1;
        if (s.error_flag != nullptr) *s.error_flag = 1;
        if (s.assert_on_error)
          rf_assert_fail("rocflash: flash_attn_with_kvcache index out of range (cache_seqlens + seqlen_new outside "
                        "[0, capacity], or cache_batch_idx / a used block_table entry outside the cache; "
                        "ROCFLASH_INDEX_CHECKS=host names the value)");
      }
      continue;
    }
    if (tid == 0) s.seqused_k[b] = used;
    if (s.seqlen_new > 0 && l.block_table == nullptr) {  // append: 2-byte words (fp32 = two words per element)
      const int words = p.headdim * elem_bytes / 2;
      const int64_t count = int64_t(s.seqlen_new) * p.nheads_k * words;
      for (int64_t id = tid; id < count; id += kThreads) {
        const int w = int(id % words);
        const int h = int(id / words % p.nheads_k);
        const int i = int(id / words / p.nheads_k);
        const int64_t kn = int64_t(b) * s.kn_batch_stride + int64_t(i) * s.kn_row_stride + int64_t(h) * s.kn_head_stride;
        const int64_t vn = int64_t(b) * s.vn_batch_stride + int64_t(i) * s.vn_row_stride + int64_t(h) * s.vn_head_stride;
        const int64_t kc = int64_t(row) * p.k_batch_stride + int64_t(n + i) * p.k_row_stride + int64_t(h) * p.k_head_stride;
        const int64_t vc = int64_t(row) * p.v_batch_stride + int64_t(n + i) * p.v_row_stride + int64_t(h) * p.v_head_stride;
        const uint16_t* ksrc = reinterpret_cast<const uint16_t*>(static_cast<const char*>(s.k_new) + kn * elem_bytes);
        const uint16_t* vsrc = reinterpret_cast<const uint16_t*>(static_cast<const char*>(s.v_new) + vn * elem_bytes);
        uint16_t* kdst = reinterpret_cast<uint16_t*>(const_cast<char*>(static_cast<const char*>(p.k)) + kc * elem_bytes);
        uint16_t* vdst = reinterpret_cast<uint16_t*>(const_cast<char*>(static_cast<const char*>(p.v)) + vc * elem_bytes);
        kdst[w] = ksrc[w];
        vdst[w] = vsrc[w];
      }
    }
  }
}

// The step folded into the tensor-core split-KV kernel (FmhaFwdParams::step.fold; fmha_splitkv_mma.h calls it
// first): the step kernel's launch and its wait cost 3-4 us of GPU time per decode step on the H200 (run D5-1),
// as much as the paged addressing. Every block of sequence b (one per row chunk, split and kv-head) decides
// alone, before it reads any key:
//   - the scalar rules of the step kernel (cache_seqlens[b] + seqlen_new within [0, capacity], cache_batch_idx[b]
//     within the cache's rows): the same answer in every block of b;
//   - the block-table entries of the pages that hold keys of its own split range [key_lo, key_hi) (splits cover
//     the capacity, so every used page is checked by the blocks of one split): a bad entry makes that split's
//     partial NaN, and NaN in one split's LSE makes the combine's O and LSE NaN for every row of b (as the step
//     kernel's seqused_k = -1 does). The entries of the split's pages within the table's row (up to the
//     capacity) are loaded together with cache_seqlens[b], not after it (one memory latency at the block's start,
//     not two); only those of pages that hold keys are judged, so vLLM's padding entries never matter;
//   - a bad sequence reads no key (seq.bad, seqlen_k 0), sets *error_flag and asserts under the device policy;
//   - the append (dense caches only, as the fast path's): the block writes the new rows of its own split range
//     and kv-head, the blocks of its other row chunks the same bytes, then a barrier: the block reads only keys
//     of its own split range, so every new key it reads is one it wrote itself. No block of another kv-head or
//     split touches those rows.
// Uniform in the block (barriers inside). CUDA only (__syncthreads_or; the tensor-core kernel's helper). The vector
// split kernel (gfx906) keeps the step kernel: folded into it (with an LDS flag for the OR), the bf16 d128 gfx906
// instance went from 246 VGPRs to 256 plus 16-19 spilled (scratch 60-88 B), even with only the flag's barriers
// and no page check or append (hipcc 5.2 --cuda-device-only -S, dec6); the ISA audit allows no scratch there.
// (Also seen there: `c ? global[i] : kernarg_field` became one load through a generic pointer, i.e. a 16-byte
// scratch copy of the kernarg; an empty asm on the kernarg value avoided it.)
template <int kThreads>
RF_DEVICE void folded_kv_step(const FmhaFwdParams& p, SeqInfo& seq, int b, int head_k, int64_t key_lo, int64_t key_hi) {
  const KvStepParams& s = p.step;
  const SeqLayout& l = p.seq;
  const int32_t n = s.cache_seqlens ? s.cache_seqlens[b] : s.seqlen_cache;
  const int32_t row = seq.kv_batch;  // cache_batch_idx[b], or b
  // this thread's entries of the split's pages (at most two per thread at the preset's shapes), loaded now
  constexpr int kEntries = 2;
  const int page = l.page_block_size;
  const int64_t in_cap = key_hi < s.capacity ? key_hi : int64_t(s.capacity);
  const bool paged = l.block_table != nullptr && in_cap > key_lo;
  const int first = paged ? int(key_lo / page) : 0;  // (split starts are multiples of block_n, not of the page size)
  const int split_pages = paged ? int((in_cap - 1) / page) + 1 - first : 0;
  const int32_t* table = l.block_table + (paged ? int64_t(b) * l.block_table_batch_stride + first : 0);
  int32_t entry[kEntries];
#pragma unroll
  for (int e = 0; e < kEntries; ++e) {
    const int j = int(threadIdx.x) + e * kThreads;
    entry[e] = j < split_pages ? table[j] : 0;
  }
  bool bad = n < 0 || n > s.capacity - s.seqlen_new || row < 0 || row >= s.num_rows;
  const int64_t used = bad ? 0 : int64_t(n) + s.seqlen_new;
  const int used_pages = paged && used > key_lo ? int((used - 1) / page) + 1 - first : 0;  // of the split's pages
  bool mine = false;  // a used page of this thread's with an entry outside [0, num_rows)
#pragma unroll
  for (int e = 0; e < kEntries; ++e) {
    const int j = int(threadIdx.x) + e * kThreads;
    mine |= j < split_pages && j < used_pages && (entry[e] < 0 || entry[e] >= s.num_rows);
  }
#pragma unroll 4
  for (int j = int(threadIdx.x) + kEntries * kThreads; j < split_pages && j < used_pages; j += kThreads)  // long splits
    mine |= table[j] < 0 || table[j] >= s.num_rows;
  bad = __syncthreads_or(mine) != 0 || bad;
  if (bad) {
    seq.bad = true;
    seq.seqlen_k = 0;
    if (threadIdx.x == 0) {
      if (s.error_flag != nullptr) *s.error_flag = 1;
      if (s.assert_on_error)
        rf_assert_fail("rocflash: flash_attn_with_kvcache index out of range (cache_seqlens + seqlen_new outside "
                       "[0, capacity], or cache_batch_idx / a used block_table entry outside the cache; "
                       "ROCFLASH_INDEX_CHECKS=host names the value)");
    }
    return;
  }
  seq.seqlen_k = int32_t(used);
  if (s.seqlen_new <= 0 || l.block_table != nullptr) return;
  const int64_t lo = key_lo > n ? key_lo : int64_t(n);
  const int64_t end = key_hi < used ? key_hi : used;
  if (lo >= end) return;  // uniform: no new row in this split
  // (the step kernel's append loop, for one kv-head and key range: a helper shared by both, taking the params by
  // reference, gave the gfx906 step kernel 512 B of LDS and two more SGPR spills (rocflash.isa, dec6): kept apart)
  const int words = p.headdim;  // 2-byte elements (the tensor-core kernel takes fp16 / bf16 only)
  const int64_t count = (end - lo) * words;
  for (int64_t id = threadIdx.x; id < count; id += kThreads) {
    const int w = int(id % words);
    const int64_t j = lo + id / words;  // the cache row; new row j - n
    const int64_t i = j - n;
    const int64_t kn = int64_t(b) * s.kn_batch_stride + i * s.kn_row_stride + int64_t(head_k) * s.kn_head_stride;
    const int64_t vn = int64_t(b) * s.vn_batch_stride + i * s.vn_row_stride + int64_t(head_k) * s.vn_head_stride;
    const int64_t kc = int64_t(row) * p.k_batch_stride + j * p.k_row_stride + int64_t(head_k) * p.k_head_stride;
    const int64_t vc = int64_t(row) * p.v_batch_stride + j * p.v_row_stride + int64_t(head_k) * p.v_head_stride;
    const uint16_t* ksrc = static_cast<const uint16_t*>(s.k_new) + kn;
    const uint16_t* vsrc = static_cast<const uint16_t*>(s.v_new) + vn;
    uint16_t* kdst = static_cast<uint16_t*>(const_cast<void*>(p.k)) + kc;
    uint16_t* vdst = static_cast<uint16_t*>(const_cast<void*>(p.v)) + vc;
    kdst[w] = ksrc[w];
    vdst[w] = vsrc[w];
  }
  __syncthreads();  // the block's copies of these rows (cp.async, through L2) come after every thread's stores
}

}  // namespace rf
