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

// The step folded into the split-KV kernels (FmhaFwdParams::step.fold; the tensor-core kernel calls it first in
// each block, the vector kernel in its grid-stride loop before each block's work): the step kernel's launch and
// its wait cost 3-4 us of GPU time per decode step on the H200 (run D5-1), as much as the paged addressing. Every
// block of sequence b (one per row chunk, split and kv-head) decides alone, before it reads any key:
//   - the scalar rules of the step kernel (cache_seqlens[b] + seqlen_new within [0, capacity], cache_batch_idx[b]
//     within the cache's rows): the same answer in every block of b;
//   - the block-table entries of the pages that hold keys of its own split range [key_lo, key_hi) (splits cover
//     the capacity, so every used page is checked by the blocks of one split): a bad entry makes that split's
//     partial NaN, and NaN in one split's LSE makes the combine's O and LSE NaN for every row of b (as the step
//     kernel's seqused_k = -1 does). The entries of the split's pages within the table's row (up to the
//     capacity) are loaded together with cache_seqlens[b], not after it (one memory latency at the block's start,
//     not two); only those of pages that hold keys are judged, so vLLM's padding entries never matter;
//   - a block that finds its sequence bad reads no key (SeqInfo::bad, seqlen_k 0: NaN O and LSE), sets
//     *error_flag and asserts under the device policy;
//   - the append (dense caches only, as the fast path's): the block writes the new rows of its own split range
//     and kv-head, the blocks of its other row chunks the same bytes, then a barrier: the block reads only keys
//     of its own split range, so every new key it reads is one it wrote itself. No block of another kv-head or
//     split touches those rows.
// Uniform in the block (three or four barriers; `flag`: an int of the caller's LDS, free at the call).
// gfx906 register budget (hipcc 5.2, dec6): called inside the vector kernel's run() it took the bf16 d128
// instance from 246 VGPRs to 256 plus 16-19 spilled, even with only the flag's barriers; called before run(), in
// the grid-stride loop, no spill on any instance but the bf16 d256 aligned one (already at 256 VGPRs), which
// keeps the step kernel (vector_split_folds_step, below).

// Whether the vector split kernel of headdim bucket d does the step itself: on AMD for d <= 128 (the d256 tiles
// are at gfx906's register limit, above); never in the CUDA build (its vector kernel serves fp32 and
// ROCFLASH_KERNEL=vector; the tensor-core kernel always folds). fmha_kvcache_step and the kernel both ask it.
RF_HDC bool vector_split_folds_step(int d) {
#if defined(RF_PLATFORM_HIP)
  return d <= 128;
#else
  return d < 0;  // (never)
#endif
}

// x, through an empty asm: the compiler cannot turn `c ? global[i] : kernarg` into one load through a generic
// pointer, which on gfx906 put a copy of the kernarg value in scratch (16 B in the vector split kernel, dec6).
RF_DEVICE int32_t kvstep_opaque(int32_t x) {
#if defined(RF_PLATFORM_HIP)
  asm volatile("" : "+s"(x));  // an SGPR: the value stays uniform
#else
  asm volatile("" : "+r"(x));
#endif
  return x;
}

// x, equal in every lane, as the compiler then knows it (AMD: an SGPR). The folded step's answer comes through LDS,
// which the compiler takes for per-lane: without this, seqlen_k and what follows from it went to VGPRs and the
// gfx906 vector split kernels spilled 14-17 VGPRs (bf16 d128, fp16 d64 / d128 aligned; dec6).
RF_DEVICE int32_t kvstep_uniform(int32_t x) {
#if defined(RF_PLATFORM_HIP)
  return __builtin_amdgcn_readfirstlane(x);
#else
  return x;
#endif
}

// What folded_kv_step reads before it decides (issued together: one memory latency): cache_seqlens[b] and this
// thread's first two entries of the split's pages (at most two per thread at the preset's shapes). A caller that
// has other loads to put in flight meanwhile (the tensor-core kernel's first copies, fmha_splitkv_mma.h) issues
// these first and passes them on.
struct FoldedStepLoads {
  int32_t n;        // keys in the cache before the append: cache_seqlens[b], or seqlen_cache
  int32_t e0, e1;   // block-table entries first + threadIdx.x and first + threadIdx.x + kThreads (0 past the split)
  int first;        // the split's first page (paged), else 0
  int split_pages;  // pages of the split's keys inside the capacity (paged), else 0
};

template <int kThreads>
RF_DEVICE FoldedStepLoads folded_kv_step_loads(const FmhaFwdParams& p, int b, int64_t key_lo, int64_t key_hi) {
  const KvStepParams& s = p.step;
  const SeqLayout& l = p.seq;
  const int32_t* lens = s.cache_seqlens;
  FoldedStepLoads r;
  r.n = lens != nullptr ? lens[b] : kvstep_opaque(s.seqlen_cache);
  const int page = l.page_block_size;
  const int64_t in_cap = key_hi < s.capacity ? key_hi : int64_t(s.capacity);
  const bool paged = l.block_table != nullptr && in_cap > key_lo;
  r.first = paged ? int(key_lo / page) : 0;  // (split starts are multiples of block_n, not of the page size)
  r.split_pages = paged ? int((in_cap - 1) / page) + 1 - r.first : 0;
  const int32_t* table = l.block_table + (paged ? int64_t(b) * l.block_table_batch_stride + r.first : 0);
  const int j0 = int(threadIdx.x), j1 = j0 + kThreads;
  r.e0 = j0 < r.split_pages ? table[j0] : 0;
  r.e1 = j1 < r.split_pages ? table[j1] : 0;
  return r;
}

// Returns the sequence's keys after the append, or -1 (bad: the caller's SeqInfo::bad). `row`: its cache row
// (SeqInfo::kv_batch); `pre`: folded_kv_step_loads of the same b, key_lo, key_hi.
template <int kThreads, int kElemBytes>
RF_DEVICE int32_t folded_kv_step(const FmhaFwdParams& p, int b, int32_t row, int head_k, int64_t key_lo, int64_t key_hi,
                                 int& flag, const FoldedStepLoads& pre) {
  const KvStepParams& s = p.step;
  const SeqLayout& l = p.seq;
  constexpr int kEntries = 2;
  const int32_t n = pre.n, e0 = pre.e0, e1 = pre.e1;
  const int page = l.page_block_size;
  const bool paged = pre.split_pages > 0;
  const int first = pre.first, split_pages = pre.split_pages;
  const int32_t* table = l.block_table + (paged ? int64_t(b) * l.block_table_batch_stride + first : 0);
  const int j0 = int(threadIdx.x), j1 = j0 + kThreads;
  if (threadIdx.x == 0) flag = 0;
  bool bad = n < 0 || n > s.capacity - s.seqlen_new || row < 0 || row >= s.num_rows;
  const int64_t used = bad ? 0 : int64_t(n) + s.seqlen_new;
  const int used_pages = paged && used > key_lo ? int((used - 1) / page) + 1 - first : 0;  // of the split's pages
  bool mine = false;  // a used page of this thread's with an entry outside [0, num_rows)
  mine |= j0 < split_pages && j0 < used_pages && (e0 < 0 || e0 >= s.num_rows);
  mine |= j1 < split_pages && j1 < used_pages && (e1 < 0 || e1 >= s.num_rows);
#pragma unroll 4
  for (int j = int(threadIdx.x) + kEntries * kThreads; j < split_pages && j < used_pages; j += kThreads)  // long splits
    mine |= table[j] < 0 || table[j] >= s.num_rows;
  __syncthreads();  // flag = 0 is seen by every thread
  if (mine) flag = 1;  // same value from every writer
  __syncthreads();
  bad = kvstep_uniform(flag) != 0 || bad;
  __syncthreads();  // every thread has read the flag before the caller reuses its LDS
  if (bad) {
    if (threadIdx.x == 0) {
      if (s.error_flag != nullptr) *s.error_flag = 1;
      if (s.assert_on_error)
        rf_assert_fail("rocflash: flash_attn_with_kvcache index out of range (cache_seqlens + seqlen_new outside "
                       "[0, capacity], or cache_batch_idx / a used block_table entry outside the cache; "
                       "ROCFLASH_INDEX_CHECKS=host names the value)");
    }
    return kvstep_uniform(-1);
  }
  const int64_t lo = key_lo > n ? key_lo : int64_t(n);
  const int64_t end = key_hi < used ? key_hi : used;
  if (s.seqlen_new <= 0 || l.block_table != nullptr || lo >= end) return kvstep_uniform(int32_t(used));  // no append
  // (the step kernel's append loop, for one kv-head and key range: a helper shared by both, taking the params by
  // reference, gave the gfx906 step kernel 512 B of LDS and two more SGPR spills (rocflash.isa, dec6): kept apart)
  const int words = p.headdim * kElemBytes / 2;  // 2-byte words (fp32: two per element)
  const int64_t count = (end - lo) * words;
  for (int64_t id = threadIdx.x; id < count; id += kThreads) {
    const int w = int(id % words);
    const int64_t j = lo + id / words;  // the cache row; new row j - n
    const int64_t i = j - n;
    const int64_t kn = int64_t(b) * s.kn_batch_stride + i * s.kn_row_stride + int64_t(head_k) * s.kn_head_stride;
    const int64_t vn = int64_t(b) * s.vn_batch_stride + i * s.vn_row_stride + int64_t(head_k) * s.vn_head_stride;
    const int64_t kc = int64_t(row) * p.k_batch_stride + j * p.k_row_stride + int64_t(head_k) * p.k_head_stride;
    const int64_t vc = int64_t(row) * p.v_batch_stride + j * p.v_row_stride + int64_t(head_k) * p.v_head_stride;
    const uint16_t* ksrc = reinterpret_cast<const uint16_t*>(static_cast<const char*>(s.k_new) + kn * kElemBytes);
    const uint16_t* vsrc = reinterpret_cast<const uint16_t*>(static_cast<const char*>(s.v_new) + vn * kElemBytes);
    uint16_t* kdst = reinterpret_cast<uint16_t*>(const_cast<char*>(static_cast<const char*>(p.k)) + kc * kElemBytes);
    uint16_t* vdst = reinterpret_cast<uint16_t*>(const_cast<char*>(static_cast<const char*>(p.v)) + vc * kElemBytes);
    kdst[w] = ksrc[w];
    vdst[w] = vsrc[w];
  }
  __syncthreads();  // the block's reads of these rows (cp.async through L2 on CUDA) come after every thread's stores
  return kvstep_uniform(int32_t(used));
}

// The same, its reads issued here.
template <int kThreads, int kElemBytes>
RF_DEVICE int32_t folded_kv_step(const FmhaFwdParams& p, int b, int32_t row, int head_k, int64_t key_lo, int64_t key_hi,
                                 int& flag) {
  return folded_kv_step<kThreads, kElemBytes>(p, b, row, head_k, key_lo, key_hi, flag,
                                              folded_kv_step_loads<kThreads>(p, b, key_lo, key_hi));
}

}  // namespace rf
