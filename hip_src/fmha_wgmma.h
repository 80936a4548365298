// fmha_wgmma.h - Hopper warpgroup MMA (wgmma, PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
// sm_90a only) for the tensor-core backward's opt-in warpgroup products (fmha_mma_bwd_wgmma.h). CUDA build only:
// fmha_mma_bwd.h is included under RF_PLATFORM_CUDA, so the HIP build never sees this file.
//
// A warpgroup (4 consecutive warps, the first one's index divisible by 4) issues
//   D[64 x N] (+)= A[64 x 16] . B[16 x N]     (here N = 32)     (f32 accumulators in registers, A and B from shared memory)
// with both operands described by 64-bit shared-memory matrix descriptors (PTX ISA "Matrix Descriptor Format"):
// bits 0-13 start address >> 4, 16-29 leading-dimension byte offset >> 4, 32-45 stride-dimension byte offset >> 4,
// 62-63 swizzle mode (0: none). Operands here are K-major without swizzle: "core matrices" of 8 rows (M or N) x
// 16 bytes (8 K-elements), each 128 contiguous bytes; the leading-dimension byte offset is the distance between
// the two core matrices of one k16 step (adjacent in K), the stride-dimension byte offset the distance between
// core matrices adjacent in M (or N).
// Accumulator layout (PTX ISA "Register Fragments and Shared Memory Matrix Layouts", wgmma .m64nNk16 D): warp w of
// the warpgroup owns rows 16w..16w+15; per 8-column tile j its lane l holds d[4j + 0, 1] = row 16w + l/4, columns
// 8j + 2(l%4) + {0, 1}, and d[4j + 2, 3] = row 16w + 8 + l/4, the same columns (mma.m16n8's layout per n8 tile).
// Shared memory written by ordinary stores and read by wgmma next needs fence_proxy_async() in each writing thread
// before the barrier that publishes it (device/HOPPER.md; PTX ISA "Memory Consistency Model", async proxy).
//
// RF_WGMMA is defined in a device pass that can run wgmma (sm_90a: __CUDA_ARCH_FEAT_SM90_ALL); elsewhere the
// bodies trap (their kernels are never launched there: the launcher's RF_CUDA_SM90A, see fmha_mma_bwd.h).
#pragma once

#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define RF_WGMMA 1
#endif

namespace rf {
namespace wgmma {

// K-major, no-swizzle descriptor of the operand whose first core matrix starts at shared address `addr`.
RF_DEVICE uint64_t desc(uint32_t addr, uint32_t leading_bytes, uint32_t stride_bytes) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(leading_bytes >> 4) << 16) | (uint64_t(stride_bytes >> 4) << 32);
}

RF_DEVICE void fence() {
#if defined(RF_WGMMA)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}

RF_DEVICE void commit() {
#if defined(RF_WGMMA)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

template <int kPending>
RF_DEVICE void wait() {
#if defined(RF_WGMMA)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}

// Ordinary shared-memory stores of this thread -> visible to the async proxy (wgmma operand reads).
RF_DEVICE void fence_proxy_async() {
#if defined(RF_WGMMA)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// x, computed here (not hoisted out of the caller's loops, nor kept in a register across them).
RF_DEVICE uint32_t opaque(uint32_t x) {
  uint32_t y;
  asm volatile("mov.b32 %0, %1;\n" : "=r"(y) : "r"(x));
  return y;
}

// Keeps the compiler from moving accumulator reads/writes across the asynchronous MMA (a register "fence").
template <int N>
RF_DEVICE void hold(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#define RF_WGMMA_M64N32K16(type, d, desc_a, desc_b, scale_d)                                                         \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"                                                          \
               "wgmma.mma_async.sync.aligned.m64n32k16.f32." type "." type                                            \
               " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),        \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])   \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// d[16] (+)= A.B for one m64n32k16 step (A: 64 x 16, B: 16 x 32, both K-major in shared memory); accumulate =
// false overwrites d (D = A.B). E: Fp16 or Bf16.
template <class E>
RF_DEVICE void mma_async_m64n32(float (&d)[16], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
#if defined(RF_WGMMA)
  const int scale_d = accumulate ? 1 : 0;
  if constexpr (E::kDType == DType::kBf16)
    RF_WGMMA_M64N32K16("bf16", d, desc_a, desc_b, scale_d);
  else
    RF_WGMMA_M64N32K16("f16", d, desc_a, desc_b, scale_d);
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
  __trap();
#endif
}

#undef RF_WGMMA_M64N32K16

}  // namespace wgmma
}  // namespace rf
