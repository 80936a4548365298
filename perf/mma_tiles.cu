// perf/mma_tiles.cu - times tensor-core tile configs of the forward kernel side by side on one NVIDIA GPU, to
// choose the [[fwd]] impl = "mma" tables of ck_configs/fmha_fwd.toml. Not part of the package: each variant
// below is the same kernel (hip_src/fmha_fwd_kernel.h + fmha_mma.h) with another Tile, instantiated here.
// Every variant's output is compared with the first one's of its headdim (same math, other tiling: they
// agree to rounding), so a broken tile shows up as a large difference.
//
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Ihip_src perf/mma_tiles.cu -o /tmp/mma_tiles
//   /tmp/mma_tiles [seqlen=4096] [tokens=65536] [nheads=16] [name filter] [timed runs=15]
// tokens = batch * nheads * seqlen
#include <cstdio>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fmha_fwd_launch.h"

namespace rf {
#define RF_MMA_TILE(NAME, D, BM, BN, TH, WAVES)                                                          \
  struct NAME {                                                                                          \
    static constexpr MmaFwdTileShape kShape = MmaFwdTileShape{D, BM, BN, TH, 4, 16, 2};                  \
    static constexpr TileMath kMath = TileMath::kMma;                                                    \
    static constexpr int kWavesPerSimd = WAVES;                                                          \
  };
// T*_cfg: the configs of ck_configs/fmha_fwd.toml (branch tcfwd3: d128 Bc 64, d256 Bc 32); T128_n32 / T256_n16:
// the configs before it (run tc4).
RF_MMA_TILE(T32_cfg, 32, 128, 64, 128, 2)
RF_MMA_TILE(T64_cfg, 64, 128, 64, 128, 2)
RF_MMA_TILE(T96_cfg, 96, 128, 32, 128, 2)
RF_MMA_TILE(T128_cfg, 128, 128, 64, 128, 2)
RF_MMA_TILE(T128_n32, 128, 128, 32, 128, 2)
RF_MMA_TILE(T192_cfg, 192, 64, 32, 128, 1)
RF_MMA_TILE(T256_cfg, 256, 64, 32, 128, 1)
RF_MMA_TILE(T256_n16, 256, 64, 16, 128, 1)
}  // namespace rf

using namespace rf;

struct Variant {
  const char* name;
  int headdim;
  rfError_t (*launch)(const FmhaFwdParams&, rfStream_t);
};

#define V(T, D) {#T, D, &launch_fmha_fwd<Bf16, T, true>}
static const Variant kVariants[] = {
    V(T32_cfg, 32),   V(T64_cfg, 64),    V(T96_cfg, 96),    V(T128_cfg, 128),
    V(T128_n32, 128), V(T192_cfg, 192),  V(T256_cfg, 256),  V(T256_n16, 256),
};

#define CHECK(x)                                                                                  \
  do {                                                                                            \
    cudaError_t e = (x);                                                                          \
    if (e != cudaSuccess) {                                                                       \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);        \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

__global__ void fill_random(uint16_t* p, int64_t n, uint32_t seed) {  // bf16 values of N(0,1)-ish magnitude
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    const float x = (float(h & 0xffffff) / float(0x1000000) - 0.5f) * 3.4f;
    p[i] = uint16_t(__float_as_uint(x) >> 16);
  }
}

__global__ void max_abs_diff(const uint16_t* a, const uint16_t* b, int64_t n, float* out) {
  float m = 0.f;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float x = __uint_as_float(uint32_t(a[i]) << 16), y = __uint_as_float(uint32_t(b[i]) << 16);
    const float d = fabsf(x - y);
    m = (d != d) ? 1e30f : fmaxf(m, d);
  }
  atomicMax(reinterpret_cast<int*>(out), __float_as_int(m));  // non-negative floats order as ints
}

int main(int argc, char** argv) {
  const int seqlen = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int tokens = argc > 2 ? std::atoi(argv[2]) : 65536;
  const int nheads = argc > 3 ? std::atoi(argv[3]) : 16;
  const char* only = argc > 4 ? argv[4] : "";  // run the variants whose name contains this (ncu: one kernel)
  const int iters = argc > 5 ? std::atoi(argv[5]) : 15;
  const int batch = tokens / (nheads * seqlen) > 0 ? tokens / (nheads * seqlen) : 1;
  std::printf("bf16 batch %d nheads %d seqlen %d; TFLOP/s = 4*b*h*s*s*d (/2 causal) / median time\n", batch, nheads,
              seqlen);
  std::printf("%-11s %5s %6s %9s %9s %9s\n", "tile", "d", "causal", "ms", "TFLOP/s", "maxdiff");
  const int64_t max_elems = int64_t(batch) * seqlen * nheads * 256;
  uint16_t *q, *k, *v, *o, *o_ref;
  float *lse, *diff;
  CHECK(cudaMalloc(&q, max_elems * 2)); CHECK(cudaMalloc(&k, max_elems * 2)); CHECK(cudaMalloc(&v, max_elems * 2));
  CHECK(cudaMalloc(&o, max_elems * 2)); CHECK(cudaMalloc(&o_ref, max_elems * 2));
  CHECK(cudaMalloc(&lse, int64_t(batch) * nheads * seqlen * 4)); CHECK(cudaMalloc(&diff, 4));
  fill_random<<<1024, 256>>>(q, max_elems, 1u); fill_random<<<1024, 256>>>(k, max_elems, 2u);
  fill_random<<<1024, 256>>>(v, max_elems, 3u);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0)); CHECK(cudaEventCreate(&e1));
  for (int causal = 0; causal < 2; ++causal) {
    int ref_headdim = -1;
    for (const Variant& var : kVariants) {
      if (!std::strstr(var.name, only)) continue;
      const int d = var.headdim;
      FmhaFwdParams p{};
      p.q = q; p.k = k; p.v = v; p.o = o; p.lse = lse;
      const int64_t row = int64_t(nheads) * d, bs = row * seqlen;
      p.q_batch_stride = p.k_batch_stride = p.v_batch_stride = p.o_batch_stride = bs;
      p.q_row_stride = p.k_row_stride = p.v_row_stride = p.o_row_stride = row;
      p.q_head_stride = p.k_head_stride = p.v_head_stride = p.o_head_stride = d;
      p.batch = batch; p.seqlen_q = p.seqlen_k = seqlen; p.nheads = p.nheads_k = nheads; p.headdim = d;
      p.dtype = DType::kBf16; p.softmax_scale = 1.f / sqrtf(float(d)); p.softcap = 0.f;
      p.alibi_slopes = nullptr; p.alibi_batch_stride = 0;
      p.window_left = -1; p.window_right = causal ? 0 : -1; p.aligned = true;
      const bool first = d != ref_headdim;
      if (first) { p.o = o_ref; ref_headdim = d; }
      CHECK(var.launch(p, nullptr));
      CHECK(cudaDeviceSynchronize());
      float maxdiff = 0.f;
      if (!first) {
        CHECK(cudaMemset(diff, 0, 4));
        max_abs_diff<<<1024, 256>>>(o, o_ref, int64_t(batch) * seqlen * nheads * d, diff);
        CHECK(cudaMemcpy(&maxdiff, diff, 4, cudaMemcpyDeviceToHost));
      }
      std::vector<float> ms;
      for (int it = 0; it < iters; ++it) {
        CHECK(cudaEventRecord(e0));
        CHECK(var.launch(p, nullptr));
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float t = 0.f;
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double flop = 4.0 * batch * nheads * double(seqlen) * seqlen * d / (causal ? 2.0 : 1.0);
      std::printf("%-11s %5d %6d %9.3f %9.1f %9.2e\n", var.name, d, causal, ms[ms.size() / 2],
                  flop / (ms[ms.size() / 2] * 1e-3) / 1e12, maxdiff);
    }
  }
  return 0;
}
