// fmha_bulk_copy.h - Hopper (sm_90) bulk copies global -> shared completing on an mbarrier (PTX ISA 8.0:
// "cp.async.bulk", "mbarrier"), for the tensor-core split-KV kernel's bulk-copy variant (fmha_splitkv_mma.h,
// ROCFLASH_SPLITKV_BULK=1). CUDA only (the file is included from fmha_splitkv_mma.h); below sm_90 every helper traps
// (the host selects the variant on sm_90+ devices only: rocflash/backends/compiled.py splitkv_copy_mode).
//
// Protocol (one mbarrier per (warp, ring stage), arrival count 1): lane 0 declares the stage's bytes
// (arrive_expect_tx), the lanes issue their row copies (copy), every lane waits for the phase (wait_parity); the
// u-th use of a stage waits for parity u & 1. Shared memory written by ordinary stores and later overwritten by a
// bulk copy needs fence_proxy_async() in the writing thread before the copy is issued (PTX ISA "proxies").
#pragma once

#include "rf_vendor.h"

namespace rf {
namespace bulk {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define RF_BULK_PTX(...) asm volatile(__VA_ARGS__)
#else
#define RF_BULK_PTX(...) __trap()
#endif

RF_DEVICE void mbar_init(uint32_t bar, int count) {
  RF_BULK_PTX("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

RF_DEVICE void mbar_inval(uint32_t bar) { RF_BULK_PTX("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory"); }

// The initialised barriers are visible to the async proxy (and, after a barrier of the threads, to every thread).
RF_DEVICE void fence_mbar_init() { RF_BULK_PTX("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

// This thread's earlier generic-proxy accesses of shared memory are ordered before later async-proxy ones.
RF_DEVICE void fence_proxy_async() { RF_BULK_PTX("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// One arrival on the barrier that also expects `bytes` more bytes of completing copies in the current phase.
RF_DEVICE void arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  RF_BULK_PTX("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// Spin until the phase of parity `parity` has completed (its copies' bytes are then visible to this thread).
RF_DEVICE void wait_parity(uint32_t bar, uint32_t parity) {
  RF_BULK_PTX(
      "{\n"
      ".reg .pred rf_p;\n"
      "RF_BULK_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 rf_p, [%0], %1;\n"
      "@rf_p bra RF_BULK_DONE;\n"
      "bra RF_BULK_WAIT;\n"
      "RF_BULK_DONE:\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// `bytes` (a multiple of 16; src and dst 16-byte aligned) from global src to shared dst, completing on bar.
RF_DEVICE void copy(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  RF_BULK_PTX("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
              "l"(src), "r"(bytes), "r"(bar)
              : "memory");
}

#undef RF_BULK_PTX

}  // namespace bulk
}  // namespace rf
