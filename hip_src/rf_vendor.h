// rf_vendor.h - the vendor shim: the kernels are written once against the HIP names below; for the
// CUDA build (nvcc) this header maps them onto CUDA. Nothing else in hip_src/ may test the platform.
//
//   RF_PLATFORM_HIP / RF_PLATFORM_CUDA   which toolchain compiles this translation unit
//   rf::kWaveSize                        physical wave (warp) size of the device code being compiled:
//                                        64 on AMD gfx9 (wave64), 32 on NVIDIA. A compile-time constant
//                                        per target: kernels derive every lane count from it.
//   rf_shfl_xor(v, mask)                 butterfly exchange within a wave (mask < 32)
//   rf_fma, rf_rcp, rf_max, rf_abs       fp32 arithmetic lowered to single instructions (no libm call);
//   rf_fma_f64                           fp64 fused multiply-add (v_fma_f64 / fma.rn.f64)
//   rf_mul_rn                            a product never contracted into an FMA
//   rf_mul_rn_f64, rf_sub_rn_f64         fp64 product / difference, each rounded on its own (no FMA)
//   rf_pin, rf_thread_index_here         values the optimiser must materialise / re-read (no-ops on AMD)
//   rf_exp2 / rf_log2                    fast base-2 exp/log of the hardware (v_exp_f32 / v_log_f32 on
//                                        AMD, ex2.approx / lg2.approx on NVIDIA); exp2(-inf) = 0
//   rfError_t, rfSuccess, rfGetLastError, rfGetErrorString, rfStream_t, rfFuncSetDynamicLds,
//   rfDeviceProp_t, rfGetDeviceProperties, rfGetDeviceCount, rfRuntimeGetVersion, kPlatformName,
//   rf_arch_name (gcnArchName on AMD, sm_XY on NVIDIA), rf_lds_per_block, rf_lds_per_multiprocessor
//   rfLaunch(kernel, grid, block, lds, stream, dependent, args...)   a kernel launch; dependent: on NVIDIA
//                                        sm_90+ a programmatic dependent launch (PDL, below), else a plain one
//   rf_wait_prior_grid, rf_allow_dependent_grid   the device side of PDL (griddepcontrol.wait /
//                                        .launch_dependents on sm_90+; no-ops on AMD and older NVIDIA archs)
//   rf_assert_fail(message)              stop the kernel: NVIDIA's device-side assert (message printed,
//                                        cudaErrorAssert at the host's next synchronization); on AMD a trap
//                                        (s_trap: the queue fails, no message; see the definition)
#pragma once

#include <assert.h>  // __assert_fail: the device-side assert of both toolchains (rf_assert_fail)
#include <stdint.h>

#include <mutex>
#include <set>
#include <string>
#include <tuple>

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#define RF_PLATFORM_HIP 1
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__)
#define RF_PLATFORM_CUDA 1
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#else
#error "rf_vendor.h: compile with hipcc/clang -x hip (AMD) or nvcc (NVIDIA)"
#endif

#define RF_DEVICE __device__ __forceinline__

// RF_LAUNCH_BOUNDS(threads, waves_per_simd): block size and the occupancy a tile config was designed for.
// AMD: amdgpu_waves_per_eu makes the compiler keep VGPRs within 256 / waves_per_simd (the ISA audit checks the
// result). NVIDIA: an SM has 4 sub-partitions (the SIMD's counterpart), so waves_per_simd warps on each is
// 4 * waves_per_simd warps per SM, i.e. that many / (threads / 32) resident blocks, at least one: ptxas
// keeps registers within 64K / (threads * blocks). Configs tuned for the vector ALU ask for 1 (up to 255
// registers rather than spills); the tensor-core configs name their designed occupancy.
// RF_LAUNCH_BOUNDS_MIN_BLOCKS(threads, waves_per_simd, blocks): the same on AMD; on NVIDIA at least `blocks`
// resident blocks per SM (memory-bound kernels that need warps in flight more than registers).
#if defined(RF_PLATFORM_HIP)
#define RF_LAUNCH_BOUNDS(threads, waves_per_simd) \
  __launch_bounds__(threads) __attribute__((amdgpu_waves_per_eu(waves_per_simd)))
#define RF_LAUNCH_BOUNDS_MIN_BLOCKS(threads, waves_per_simd, blocks) RF_LAUNCH_BOUNDS(threads, waves_per_simd)
#else
#define RF_LAUNCH_BOUNDS(threads, waves_per_simd) \
  __launch_bounds__(threads, (4 * (waves_per_simd) * 32 / (threads)) > 1 ? (4 * (waves_per_simd) * 32 / (threads)) : 1)
#define RF_LAUNCH_BOUNDS_MIN_BLOCKS(threads, waves_per_simd, blocks) __launch_bounds__(threads, blocks)
#endif
#define RF_HOST_DEVICE __host__ __device__ __forceinline__

namespace rf {

#if defined(RF_PLATFORM_HIP)
// clang defines __AMDGCN_WAVEFRONT_SIZE for each device compilation (64 on gfx9, 32 or 64 on gfx10+).
// The host pass of a HIP compile sees no device: kernels are never executed there, 64 keeps the host
// pass's template instantiation consistent with gfx9.
#if defined(__AMDGCN_WAVEFRONT_SIZE)
inline constexpr int kWaveSize = __AMDGCN_WAVEFRONT_SIZE;
#else
inline constexpr int kWaveSize = 64;
#endif
#else
inline constexpr int kWaveSize = 32;
#endif

}  // namespace rf

#if defined(RF_PLATFORM_HIP)

using rfError_t = hipError_t;
using rfStream_t = hipStream_t;
#define rfSuccess hipSuccess
#define rfGetLastError hipGetLastError
#define rfGetErrorString hipGetErrorString
#define rfGetDeviceCount hipGetDeviceCount
#define rfRuntimeGetVersion hipRuntimeGetVersion
inline constexpr const char* kPlatformName = "hip";
using rfDeviceProp_t = hipDeviceProp_t;
inline rfError_t rfGetDeviceProperties(rfDeviceProp_t* prop, int device) { return hipGetDeviceProperties(prop, device); }
inline std::string rf_arch_name(const rfDeviceProp_t& prop) { return prop.gcnArchName; }
inline long long rf_lds_per_block(const rfDeviceProp_t& prop) { return (long long)prop.sharedMemPerBlock; }
inline long long rf_lds_per_multiprocessor(const rfDeviceProp_t& prop) {
  return (long long)prop.maxSharedMemoryPerMultiProcessor;
}

// Dynamic LDS up to the 64 KiB of a gfx9 CU needs no opt-in on AMD.
template <typename Kernel>
inline rfError_t rfFuncSetDynamicLds(Kernel, int) { return hipSuccess; }

// A plain launch: HIP has no programmatic dependent launch (rfLaunch's `dependent` is a CUDA-only overlap hint).
template <typename... KArgs, typename... Args>
inline rfError_t rfLaunch(void (*kernel)(KArgs...), dim3 grid, dim3 block, int lds_bytes, rfStream_t stream,
                          bool /*dependent*/, Args&&... args) {
  kernel<<<grid, block, lds_bytes, stream>>>(static_cast<Args&&>(args)...);
  return hipGetLastError();
}
RF_DEVICE void rf_wait_prior_grid() {}
RF_DEVICE void rf_allow_dependent_grid() {}

RF_DEVICE float rf_shfl_xor(float v, int mask) {
#if defined(__HIP_DEVICE_COMPILE__) && defined(__GFX9__) && __has_builtin(__builtin_amdgcn_ds_swizzle)
  // ds_swizzle_b32 in bit-mask mode (ISA manual, "LDS instructions", DS_SWIZZLE_B32 offset[15] = 0):
  // and_mask = 0x1f, or_mask = 0, xor_mask = mask. Works within 32-lane halves of the wave, needs no
  // LDS allocation and has a lower latency than ds_bpermute (__shfl_xor).
  switch (mask) {
    case 1: return __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, v), 0x041f));
    case 2: return __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, v), 0x081f));
    case 4: return __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, v), 0x101f));
    case 8: return __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, v), 0x201f));
    case 16: return __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, v), 0x401f));
    default: return __shfl_xor(v, mask);
  }
#else
  return __shfl_xor(v, mask);
#endif
}

RF_DEVICE float rf_fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
RF_DEVICE double rf_fma_f64(double a, double b, double c) { return __builtin_fma(a, b, c); }

// a * b rounded on its own: never contracted into an FMA with a later add (see the CUDA definition).
RF_DEVICE float rf_mul_rn(float a, float b) {
#pragma clang fp contract(off)
  return a * b;
}
RF_DEVICE double rf_mul_rn_f64(double a, double b) {
#pragma clang fp contract(off)
  return a * b;
}
RF_DEVICE double rf_sub_rn_f64(double a, double b) {
#pragma clang fp contract(off)
  return a - b;
}

RF_DEVICE float rf_rcp(float x) { return __builtin_amdgcn_rcpf(x); }

RF_DEVICE float rf_max(float a, float b) { return __builtin_fmaxf(a, b); }

RF_DEVICE float rf_abs(float x) { return __builtin_fabsf(x); }

RF_DEVICE int32_t rf_pin(int32_t x) { return x; }  // see the CUDA definition
RF_DEVICE int rf_thread_index_here() { return int(threadIdx.x); }  // see the CUDA definition

RF_DEVICE float rf_exp2(float x) {
#if __has_builtin(__builtin_amdgcn_exp2f)
  return __builtin_amdgcn_exp2f(x);
#else
  return __builtin_exp2f(x);
#endif
}

RF_DEVICE float rf_log2(float x) {
#if __has_builtin(__builtin_amdgcn_logf)
  return __builtin_amdgcn_logf(x);
#else
  return __builtin_log2f(x);
#endif
}

// threadIdx.x (< threads, the block size) through an empty asm the optimiser cannot look through or hoist: a
// kernel with a grid-stride loop reads it once per block, so the per-lane values derived from it (addresses of
// the prologue and epilogue) are computed where they are used instead of being hoisted out of the block loop
// and kept live, in registers, across the main loop (where they forced spills on gfx906).
RF_DEVICE int rf_thread_index(int threads) {
  int t = int(threadIdx.x);
  asm volatile("" : "+v"(t));
  __builtin_assume(t >= 0 && t < threads);  // what the compiler knew of threadIdx.x (24-bit multiplies)
  return t;
}

#else  // CUDA

using rfError_t = cudaError_t;
using rfStream_t = cudaStream_t;
#define rfSuccess cudaSuccess
#define rfGetLastError cudaGetLastError
#define rfGetErrorString cudaGetErrorString
#define rfGetDeviceCount cudaGetDeviceCount
#define rfRuntimeGetVersion cudaRuntimeGetVersion
inline constexpr const char* kPlatformName = "cuda";
using rfDeviceProp_t = cudaDeviceProp;
inline rfError_t rfGetDeviceProperties(rfDeviceProp_t* prop, int device) { return cudaGetDeviceProperties(prop, device); }
inline std::string rf_arch_name(const rfDeviceProp_t& prop) {
  return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
}
inline long long rf_lds_per_block(const rfDeviceProp_t& prop) { return (long long)prop.sharedMemPerBlockOptin; }
inline long long rf_lds_per_multiprocessor(const rfDeviceProp_t& prop) {
  return (long long)prop.sharedMemPerMultiprocessor;
}

// Above 48 KiB of dynamic shared memory a CUDA kernel must opt in. The attribute stays set, so it is set once per
// (kernel, device, bytes): a decode step repeats the same launches thousands of times (the runtime call costs
// host time at every launch otherwise).
template <typename Kernel>
inline rfError_t rfFuncSetDynamicLds(Kernel k, int bytes) {
  static std::mutex mu;
  static std::set<std::tuple<const void*, int, int>> done;
  int device = 0;
  rfError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const auto key = std::make_tuple(reinterpret_cast<const void*>(k), device, bytes);
  std::lock_guard<std::mutex> lock(mu);
  if (done.count(key)) return cudaSuccess;
  err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess) done.insert(key);
  return err;
}

// Programmatic dependent launch (CUDA Programming Guide, "Programmatic Dependent Launch and Synchronization";
// sm_90+): with `dependent`, the kernel may be scheduled before the kernel queued ahead of it on the stream has
// finished (once every block of that one has run rf_allow_dependent_grid or exited), which hides the second
// launch's latency behind the first one's tail. Such a kernel must call rf_wait_prior_grid before it reads or
// writes anything the earlier kernels touch: it returns once they have completed and their memory is visible.
// Both device calls are no-ops in a kernel launched without the attribute. CUDA-graph capture keeps the edge
// (a programmatic dependency). The caller passes dependent = false on devices before sm_90.
template <typename... KArgs, typename... Args>
inline rfError_t rfLaunch(void (*kernel)(KArgs...), dim3 grid, dim3 block, int lds_bytes, rfStream_t stream,
                          bool dependent, Args&&... args) {
  if (!dependent) {
    kernel<<<grid, block, lds_bytes, stream>>>(static_cast<Args&&>(args)...);
    return cudaGetLastError();
  }
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = size_t(lds_bytes);
  config.stream = stream;
  config.attrs = attr;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Args&&>(args)...);
}

RF_DEVICE void rf_wait_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

RF_DEVICE void rf_allow_dependent_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

RF_DEVICE float rf_shfl_xor(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }

RF_DEVICE float rf_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
RF_DEVICE double rf_fma_f64(double a, double b, double c) { return __fma_rn(a, b, c); }

// a * b rounded on its own: never contracted into an FMA with a later add (the compiler may contract a plain *).
RF_DEVICE float rf_mul_rn(float a, float b) { return __fmul_rn(a, b); }
RF_DEVICE double rf_mul_rn_f64(double a, double b) { return __dmul_rn(a, b); }
RF_DEVICE double rf_sub_rn_f64(double a, double b) { return __dsub_rn(a, b); }

// rcp.approx (1 ulp, like AMD's v_rcp_f32): __frcp_rn's IEEE rounding costs a called slow path per use.
RF_DEVICE float rf_rcp(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

RF_DEVICE float rf_max(float a, float b) { return fmaxf(a, b); }

RF_DEVICE float rf_abs(float x) { return fabsf(x); }

RF_DEVICE float rf_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

RF_DEVICE float rf_log2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// threadIdx.x (< threads, the block size) through an empty asm the optimiser cannot look through or hoist: a
// kernel with a grid-stride loop reads it once per block, so the per-lane values derived from it (addresses of
// the prologue and epilogue) are computed where they are used instead of being hoisted out of the block loop
// and kept live, in registers, across the main loop (where they forced spills on gfx906).
RF_DEVICE int rf_thread_index(int threads) {
  int t = int(threadIdx.x);
  asm volatile("" : "+r"(t));
  __builtin_assume(t >= 0 && t < threads);  // what the compiler knew of threadIdx.x (24-bit multiplies)
  return t;
}

// threadIdx.x, read again where it is used: values derived from it after a long loop are then computed there,
// not hoisted before the loop and kept (or spilled) across it.
RF_DEVICE int rf_thread_index_here() {
  int t;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
  return t;
}

// x, opaque to the optimiser: the value is materialised here as one 32-bit register instead of being
// recomputed at each use from the (wider) values it came from.
RF_DEVICE int32_t rf_pin(int32_t x) {
  asm volatile("" : "+r"(x));
  return x;
}

#endif

// NVIDIA: __assert_fail is the device-side assert (message, file and line printed by the runtime; the stream then
// fails with cudaErrorAssert). AMD: the device libraries' __assert_fail prints through a hostcall buffer that costs
// every calling kernel 224 B of scratch per lane on gfx9 (clang-15 + ROCm 5.2 device libs; the KV-cache step kernel
// had it, tests/test_isa.py) and then traps anyway; rocflash traps directly (s_trap 2, no scratch): the queue fails
// at the host's next synchronization without the message. The callers set an error flag first (rocflash's
// index_error_flag), and ROCFLASH_INDEX_CHECKS=host names the failing value.
#if defined(RF_PLATFORM_HIP)
#define rf_assert_fail(message) ((void)(message), __builtin_trap())
#else
#define rf_assert_fail(message) __assert_fail(message, __FILE__, __LINE__, __func__)
#endif
