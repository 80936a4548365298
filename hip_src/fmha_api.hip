// fmha_api.hip - instance tables, dispatch (kind -> dtype -> headdim bucket -> load path), runtime facts.
#include "fmha_api.h"

#include "fmha_bwd_dkdv_instances.h"  // generated: tile types of every instance and their launch functions
#include "fmha_bwd_dq_instances.h"
#include "fmha_fwd_instances.h"
#include "fmha_fwd_splitkv_instances.h"
#include "fmha_kvstep.h"
#include "fmha_varlen_check.h"

namespace rf {
namespace {

template <class Params>
struct Entry {
  KernelInfo info;
  rfError_t (*launch)(const Params&, rfStream_t);
};

const Entry<FmhaFwdParams> kFwdTable[] = {
#include "fmha_fwd_table.inc"  // generated: one row per instance
};
const Entry<FmhaFwdParams> kFwdSplitKvTable[] = {
#include "fmha_fwd_splitkv_table.inc"
};
const Entry<FmhaBwdParams> kBwdDkdvTable[] = {
#include "fmha_bwd_dkdv_table.inc"
};
const Entry<FmhaBwdParams> kBwdDqTable[] = {
#include "fmha_bwd_dq_table.inc"
};

template <class Params, int N>
int select_in(const Entry<Params> (&table)[N], DType dtype, int headdim, bool aligned, TileMath math) {
  int best = -1;
  for (int i = 0; i < N; ++i) {
    const KernelInfo& c = table[i].info;
    if (c.dtype != dtype || c.aligned != aligned || c.math != math || c.headdim < headdim) continue;
    if (best < 0 || c.headdim < table[best].info.headdim) best = i;
  }
  return best;
}

template <class Params, int N>
int launch_from(const Entry<Params> (&table)[N], const char* kind, const Params& p, rfStream_t stream,
                std::string* error, TileMath math = TileMath::kVector) {
  const int i = select_in(table, p.dtype, p.headdim, p.aligned, math);
  if (i < 0) {
    *error = std::string("rocflash: no ") + kind + " kernel instance for dtype " + std::to_string(int(p.dtype)) +
             ", headdim " + std::to_string(p.headdim) + ", tile math " + (math == TileMath::kMma ? "mma" : math == TileMath::kSbcast ? "sbcast" : "vector") +
             (p.aligned ? "" : " (narrow load path)");
    return 1;
  }
  const rfError_t err = table[i].launch(p, stream);
  if (err != rfSuccess) {
    *error = std::string("rocflash: launch of ") + table[i].info.name + " failed: " + rfGetErrorString(err);
    return 1;
  }
  return 0;
}

constexpr int kNumFwd = int(sizeof(kFwdTable) / sizeof(kFwdTable[0]));
constexpr int kNumDkdv = int(sizeof(kBwdDkdvTable) / sizeof(kBwdDkdvTable[0]));
constexpr int kNumDq = int(sizeof(kBwdDqTable) / sizeof(kBwdDqTable[0]));
constexpr int kNumSplitKv = int(sizeof(kFwdSplitKvTable) / sizeof(kFwdSplitKvTable[0]));

}  // namespace

int num_kernels() { return kNumFwd + kNumDkdv + kNumDq + kNumSplitKv; }

KernelInfo kernel_info(int i) {
  if (i < kNumFwd) return kFwdTable[i].info;
  if (i < kNumFwd + kNumDkdv) return kBwdDkdvTable[i - kNumFwd].info;
  if (i < kNumFwd + kNumDkdv + kNumDq) return kBwdDqTable[i - kNumFwd - kNumDkdv].info;
  return kFwdSplitKvTable[i - kNumFwd - kNumDkdv - kNumDq].info;
}

int select_kernel(const std::string& kind, DType dtype, int headdim, bool aligned, TileMath math) {
  int i = -1;
  if (kind == "fwd") return select_in(kFwdTable, dtype, headdim, aligned, math);
  if (kind == "bwd_dkdv") return (i = select_in(kBwdDkdvTable, dtype, headdim, aligned, math)) < 0 ? -1 : kNumFwd + i;
  if (kind == "bwd_dq") return (i = select_in(kBwdDqTable, dtype, headdim, aligned, math)) < 0 ? -1 : kNumFwd + kNumDkdv + i;
  if (kind == "fwd_splitkv")
    return (i = select_in(kFwdSplitKvTable, dtype, headdim, aligned, math)) < 0 ? -1 : kNumFwd + kNumDkdv + kNumDq + i;
  return -1;
}

int fmha_fwd(const FmhaFwdParams& params, void* stream, std::string* error, TileMath math) {
  return launch_from(kFwdTable, "forward", params, static_cast<rfStream_t>(stream), error, math);
}

int fmha_fwd_splitkv(const FmhaFwdParams& params, void* stream, std::string* error, TileMath math) {
  return launch_from(kFwdSplitKvTable, "split-KV forward", params, static_cast<rfStream_t>(stream), error, math);
}

int fmha_kvcache_step(const FmhaFwdParams& attn, const KvStepParams& step, void* stream, std::string* error,
                      TileMath math, bool split) {
  const auto s = static_cast<rfStream_t>(stream);
  FmhaFwdParams p = attn;
  const int inst = split && step.fold ? select_in(kFwdSplitKvTable, p.dtype, p.headdim, p.aligned, math) : -1;
  const bool folds = inst >= 0 && (kFwdSplitKvTable[inst].info.math == TileMath::kMma ||
                                   vector_split_folds_step(kFwdSplitKvTable[inst].info.headdim));
  if (folds) {  // the split kernel's blocks do the step (fmha_kvstep.h folded_kv_step): one launch
    p.step = step;
    p.seq.seqused_k = nullptr;
    return launch_from(kFwdSplitKvTable, "split-KV forward", p, s, error, math);
  }
  p.step = KvStepParams{};  // (the step kernel's work, below)
  if (attn.batch > 0) {
    const int64_t blocks = attn.batch < kMaxGridBlocks ? attn.batch : kMaxGridBlocks;
    fmha_kvstep_kernel<kKvStepThreads><<<dim3(unsigned(blocks)), dim3(kKvStepThreads), 0, s>>>(attn, step);
    const rfError_t err = rfGetLastError();
    if (err != rfSuccess) {
      *error = std::string("rocflash: launch of the KV-cache step kernel failed: ") + rfGetErrorString(err);
      return 1;
    }
  }
  p.seq.seqused_k = step.seqused_k;
  return split ? launch_from(kFwdSplitKvTable, "split-KV forward", p, s, error, math)
               : launch_from(kFwdTable, "forward", p, s, error, math);
}

int fmha_varlen_check(const VarlenCheckParams& check, void* stream, std::string* error) {
  if (check.batch <= 0) return 0;
  const int64_t blocks = check.batch < kMaxGridBlocks ? check.batch : kMaxGridBlocks;
  fmha_varlen_check_kernel<kVarlenCheckThreads>
      <<<dim3(unsigned(blocks)), dim3(kVarlenCheckThreads), 0, static_cast<rfStream_t>(stream)>>>(check);
  const rfError_t err = rfGetLastError();
  if (err != rfSuccess) {
    *error = std::string("rocflash: launch of the varlen index-check kernel failed: ") + rfGetErrorString(err);
    return 1;
  }
  return 0;
}

int fmha_bwd(const FmhaBwdParams& params, void* stream, std::string* error, TileMath math) {
  const auto s = static_cast<rfStream_t>(stream);
  rfError_t err = rfSuccess;
  // The preprocess walks (batch, head, row) in the LSE layout; varlen rows are one (1, nheads, total_q) batch.
  FmhaBwdParams flat = params;
  if (params.seq.cu_seqlens_q != nullptr) {
    flat.batch = 1;
    flat.seqlen_q = params.seq.total_q;
  }
  if (params.bwd_stats != nullptr) {  // fp32: the dQ kernel's first pass writes (shift, 1/l) and D, then dK/dV reads
                                      // them (with the forward's m from softmax_stats, as the dQ kernel)
    if (params.dtype != DType::kFp32) {
      *error = "rocflash: bwd_stats (the backward's own softmax statistics) is for float32 inputs only";
      return 1;
    }
    if (params.dq_accum != nullptr) {  // the statistics pass lives in the dQ kernel, which atomic dQ skips
      *error = "rocflash: bwd_stats and dq_accum (atomic dQ) exclude each other";
      return 1;
    }
    if (launch_from(kBwdDqTable, "backward dQ", params, s, error, math) != 0) return 1;
    return launch_from(kBwdDkdvTable, "backward dK/dV", params, s, error, math);
  }
  // delta = rowsum(dO * O) first: both gradient kernels read it; its dO . O part in their dP arithmetic (the
  // tensor-core one over the dK/dV instance's headdim bucket), so that D of a one-key row is its dP bit for bit
  const int dkdv = select_in(kBwdDkdvTable, params.dtype, params.headdim, params.aligned, math);
  const bool mma_pre = math == TileMath::kMma && params.dtype != DType::kFp32 && dkdv >= 0;
  switch (params.dtype) {
#if defined(RF_PLATFORM_CUDA)
    case DType::kFp16: err = mma_pre ? launch_fmha_bwd_preprocess_mma<Fp16>(flat, kBwdDkdvTable[dkdv].info.headdim, s)
                                     : launch_fmha_bwd_preprocess<Fp16>(flat, s); break;
    case DType::kBf16: err = mma_pre ? launch_fmha_bwd_preprocess_mma<Bf16>(flat, kBwdDkdvTable[dkdv].info.headdim, s)
                                     : launch_fmha_bwd_preprocess<Bf16>(flat, s); break;
#else
    case DType::kFp16: err = launch_fmha_bwd_preprocess<Fp16>(flat, s); break;
    case DType::kBf16: err = launch_fmha_bwd_preprocess<Bf16>(flat, s); break;
#endif
    case DType::kFp32: err = launch_fmha_bwd_preprocess<Fp32>(flat, s); break;
  }
  (void)mma_pre;
  if (err != rfSuccess) {
    *error = std::string("rocflash: launch of the backward preprocess failed: ") + rfGetErrorString(err);
    return 1;
  }
  if (params.dq_accum != nullptr && math != TileMath::kMma) {  // only the tensor-core dK/dV kernel adds dQ
    *error = "rocflash: dq_accum (atomic dQ, deterministic=False) needs the mma tile math, got vector";
    return 1;
  }
  if (launch_from(kBwdDkdvTable, "backward dK/dV", params, s, error, math) != 0) return 1;
  if (params.dq_accum != nullptr) return 0;  // the dK/dV kernel added dQ (the caller scales dq_accum into dq)
  return launch_from(kBwdDqTable, "backward dQ", params, s, error, math);
}

const char* platform_name() { return kPlatformName; }

int device_count(std::string* error) {
  int n = 0;
  const rfError_t err = rfGetDeviceCount(&n);
  if (err != rfSuccess) {
    *error = rfGetErrorString(err);
    return -1;
  }
  return n;
}

int device_info(int device, DeviceInfo* info, std::string* error) {
  rfDeviceProp_t prop;
  const rfError_t err = rfGetDeviceProperties(&prop, device);
  if (err != rfSuccess) {
    *error = rfGetErrorString(err);
    return 1;
  }
  info->name = prop.name;
  info->arch = rf_arch_name(prop);
  info->wave_size = prop.warpSize;
  info->multiprocessors = prop.multiProcessorCount;
  info->lds_per_block = rf_lds_per_block(prop);
  info->lds_per_multiprocessor = rf_lds_per_multiprocessor(prop);
  info->total_memory = (long long)prop.totalGlobalMem;
  return 0;
}

int runtime_version() {
  int v = 0;
  rfRuntimeGetVersion(&v);
  return v;
}

}  // namespace rf
