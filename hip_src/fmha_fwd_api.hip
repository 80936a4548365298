// fmha_fwd_api.hip - instance table, dispatch (dtype -> headdim bucket -> load path) and runtime facts.
#include "fmha_fwd_api.h"

#include "fmha_fwd_instances.h"  // generated: tile types of every instance and their launch functions

namespace rf {
namespace {

struct FwdEntry {
  FwdInstanceInfo info;
  rfError_t (*launch)(const FmhaFwdParams&, rfStream_t);
};

const FwdEntry kFwdTable[] = {
#include "fmha_fwd_table.inc"  // generated: one row per instance
};
constexpr int kFwdTableSize = int(sizeof(kFwdTable) / sizeof(kFwdTable[0]));

}  // namespace

int fwd_num_instances() { return kFwdTableSize; }

FwdInstanceInfo fwd_instance(int i) { return kFwdTable[i].info; }

int fwd_select_instance(DType dtype, int headdim, bool aligned) {
  int best = -1;
  for (int i = 0; i < kFwdTableSize; ++i) {
    const FwdInstanceInfo& c = kFwdTable[i].info;
    if (c.dtype != dtype || c.aligned != aligned || c.headdim < headdim) continue;
    if (best < 0 || c.headdim < kFwdTable[best].info.headdim) best = i;
  }
  return best;
}

int fmha_fwd(const FmhaFwdParams& params, void* stream, std::string* error) {
  const int i = fwd_select_instance(params.dtype, params.headdim, params.aligned);
  if (i < 0) {
    *error = "rocflash: no forward kernel instance for dtype " + std::to_string(int(params.dtype)) +
             ", headdim " + std::to_string(params.headdim);
    return 1;
  }
  const rfError_t err = kFwdTable[i].launch(params, static_cast<rfStream_t>(stream));
  if (err != rfSuccess) {
    *error = std::string("rocflash: launch of ") + kFwdTable[i].info.name + " failed: " + rfGetErrorString(err);
    return 1;
  }
  return 0;
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
