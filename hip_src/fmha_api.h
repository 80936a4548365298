// fmha_api.h - what the compiled library exposes to its bindings (plain C++, no HIP/CUDA types).
#pragma once

#include <string>

#include "fmha_bwd_params.h"
#include "fmha_fwd_params.h"
#include "fmha_tile.h"  // TileMath

namespace rf {

// One compiled kernel instance, as generated from ck_configs/*.toml.
struct KernelInfo {
  const char* kind;  // "fwd", "bwd_dkdv", "bwd_dq", "fwd_splitkv"
  const char* name;  // self-describing, e.g. rocflash_fmha_fwd_gfx9_fp16_d128_b64x64_t256x16_p16_vec
  DType dtype;
  int headdim;       // bucket
  int block_m, block_n, threads, threads_n, lds_pad_bytes;
  int lds_bytes;     // dynamic LDS requested at launch
  bool aligned;      // 128-bit load path (true) or narrow path
  TileMath math;     // vector ALU or tensor cores (ck_configs `impl`)
};

int num_kernels();
KernelInfo kernel_info(int i);

// Index of the kernel of `kind` the dispatch runs for these parameters (smallest headdim bucket of tile math
// `math` that fits), or -1.
int select_kernel(const std::string& kind, DType dtype, int headdim, bool aligned, TileMath math = TileMath::kVector);

// Launch on `stream` (a hipStream_t / cudaStream_t, nullptr = default stream). Return 0, or non-zero with a
// message in *error. They do not synchronize.
// `math`: which tile math the forward runs (the caller checks that the device supports it: mma needs sm_80+).
int fmha_fwd(const FmhaFwdParams& params, void* stream, std::string* error, TileMath math = TileMath::kVector);
int fmha_fwd_splitkv(const FmhaFwdParams& params, void* stream, std::string* error,
                     TileMath math = TileMath::kVector);  // + combine
// One KV-cache decode step (flash_attn_with_kvcache's fast path): the step kernel (fmha_kvstep.h: index checks
// on the device, append, seqused_k), then the split-KV kernel and its combine (`split`) or the forward kernel, all
// on `stream`. `attn`'s seq.seqused_k is replaced by step.seqused_k.
int fmha_kvcache_step(const FmhaFwdParams& attn, const KvStepParams& step, void* stream, std::string* error,
                      TileMath math, bool split);
// flash_attn_varlen_func's index checks on the device (hip_src/fmha_varlen_check.h), one launch on `stream`.
int fmha_varlen_check(const VarlenCheckParams& check, void* stream, std::string* error);
// preprocess, dK/dV, dQ; `math` for the dK/dV and dQ kernels (the preprocess is one kernel for both)
int fmha_bwd(const FmhaBwdParams& params, void* stream, std::string* error, TileMath math = TileMath::kVector);

// Runtime facts for `rocflash info` (no torch needed).
const char* platform_name();  // "hip" or "cuda"
int device_count(std::string* error);
struct DeviceInfo {
  std::string name, arch;  // arch: gcnArchName ("gfx906:sramecc+:xnack-") or "sm_90"
  int wave_size = 0, multiprocessors = 0;
  long long lds_per_block = 0, lds_per_multiprocessor = 0, total_memory = 0;
};
int device_info(int device, DeviceInfo* info, std::string* error);
int runtime_version();

}  // namespace rf
