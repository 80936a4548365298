// fmha_mma_bwd_launch.h - the host side of the tensor-core dK/dV kernels (fmha_mma_bwd.h, fmha_mma_bwd_lean.h):
// the launcher that picks the deterministic or atomic-dQ kernel and its variant, and the run-time switches it
// reads at every launch (ROCFLASH_BWD_DQ_WGMMA, ROCFLASH_BWD_DQ_TILE; ROCFLASH_BWD_LEAN in fmha_mma_bwd_lean.h;
// checked first by rocflash/envvars.py). Moved out of fmha_mma_bwd.h in branch tc80 (file length).
//
// Only the CUDA build includes this file (fmha_mma_bwd.h).
#pragma once

namespace rf {

// Whether the atomic-dQ kernel takes its dQ product on the warpgroup (MmaBwdDkdvPipeline's kWgmma = 1): only when
// ROCFLASH_BWD_DQ_WGMMA is "1" (opt-in, read at each launch: a same-process A/B, perf/tcbwd5_ab.py; slower than
// mma.sync in run W1) on a compute capability 9 device. Only builds with RF_CUDA_SM90A ask.
inline bool wgmma_dq_enabled() {
  const char* env = std::getenv("ROCFLASH_BWD_DQ_WGMMA");
  if (env == nullptr || env[0] != '1' || env[1] != '\0') return false;
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  return major == 9;
}

// ROCFLASH_BWD_DQ_TILE as the atomic-dQ kernel's dQ warp tile: "1" = 32 query rows (fmha_bwd_dkdvq_dq2_kernel),
// else 16 (the default). Read at each launch (the same-process A/B, perf/tcbwd5_ab.py --switch); any compute
// capability (mma.sync only), but only builds with RF_CUDA_SM90A ask. ROCFLASH_BWD_DQ_WGMMA, when set, takes
// precedence.
inline bool dq_tile2_enabled() {
  const char* env = std::getenv("ROCFLASH_BWD_DQ_TILE");
  return env != nullptr && env[0] == '1' && env[1] == '\0';
}


// Compute capability major of the current device (fmha_mma_bwd_lean.h cached_device_attribute; 9 when it cannot be
// read: the padded tile's shared memory, which covers every tile).
inline int compute_capability_major() { return cached_device_attribute<cudaDevAttrComputeCapabilityMajor>(9); }

template <class E, class Tile, bool kAligned>
rfError_t launch_fmha_bwd_dkdv_mma(const FmhaBwdParams& p, rfStream_t stream) {
  if (p.dq_accum != nullptr) {
    using Atomic = AtomicDqTile<Tile>;
    constexpr MmaBwdDkdvShape T = Atomic::kShape;
    const int64_t total = (int64_t(p.seqlen_k) + T.block_n - 1) / T.block_n * p.nheads_k * p.batch;
#if defined(RF_CUDA_SM90A)
    if constexpr (T.wgmma_dq()) {
      if (wgmma_dq_enabled())
        return launch_grid_stride(fmha_bwd_dkdvq_wgmma_kernel<E, Atomic, kAligned, 1>, p, total, T.threads, T.lds_bytes_wgmma_dq(), stream);
    }
    if constexpr (Dq2Tile<Tile>::kShape.valid()) {
      if (dq_tile2_enabled()) {
        constexpr MmaBwdDkdvShape D = Dq2Tile<Tile>::kShape;
        return launch_grid_stride(fmha_bwd_dkdvq_dq2_kernel<E, Dq2Tile<Tile>, kAligned>, p, total, D.threads, D.lds_bytes_atomic_dq(), stream);
      }
    }
#endif
    // The lean kernels (fmha_mma_bwd_lean.h; every CUDA arch; the 128-bit path without softcap and ALiBi, whose plain
    // score they take; one block per key block): ROCFLASH_BWD_LEAN (bwd_lean_mode) auto / 2 / 3, else the kernel below.
    if constexpr (!T.grid() && kAligned) {
      if (p.softcap == 0.f && p.alibi_slopes == nullptr && total <= kMaxGridBlocks) {
        using Wide = WideAtomicTile<Tile>;
        constexpr MmaBwdDkdvShape W = Wide::kShape;
        const int64_t wide_total = (int64_t(p.seqlen_k) + W.block_n - 1) / W.block_n * p.nheads_k * p.batch;
        int mode = bwd_lean_mode();
        if (mode == kLeanAuto) mode = W.valid() && wide_total >= multiprocessor_count() ? 3 : 2;
        switch (mode) {
          case 2: return launch_grid_stride(fmha_bwd_dkdvq_lean_kernel<E, Atomic, kAligned, 2>, p, total, T.threads, MmaBwdDkdvLean<E, Atomic, kAligned, 2>::lds_bytes(), stream);
          case 3:
            if constexpr (W.valid())
              return launch_grid_stride(fmha_bwd_dkdvq_lean_kernel<E, Wide, kAligned, 3>, p, wide_total, W.threads, MmaBwdDkdvLean<E, Wide, kAligned, 3>::lds_bytes(), stream);
            break;
#if defined(RF_TCBWD8_DIAG)
          case 1: return launch_grid_stride(fmha_bwd_dkdvq_lean_kernel<E, Atomic, kAligned, 1>, p, total, T.threads, MmaBwdDkdvLean<E, Atomic, kAligned, 1>::lds_bytes(), stream);
          case 8: return launch_grid_stride(fmha_bwd_dkdvq_lean_kernel<E, Atomic, kAligned, 8>, p, total, T.threads, MmaBwdDkdvLean<E, Atomic, kAligned, 8>::lds_bytes(), stream);
          case 9: return launch_grid_stride(fmha_bwd_dkdvq_lean_kernel<E, Atomic, kAligned, 9>, p, total, T.threads, MmaBwdDkdvLean<E, Atomic, kAligned, 9>::lds_bytes(), stream);
#endif
          default: break;
        }
      }
    }
    return launch_grid_stride(fmha_bwd_dkdvq_mma_kernel<E, Atomic, kAligned>, p, total, T.threads, T.lds_bytes_atomic_dq(), stream);
  }
  constexpr MmaBwdDkdvShape T = Tile::kShape;
  const int64_t total = (int64_t(p.seqlen_k) + T.block_n - 1) / T.block_n * p.nheads_k * p.batch;
  // below compute capability 9 the kernel runs CompactTile (code for those devices is compiled below sm_90); on 9+
  // the padded tile's bytes, which also cover the compact tile's (code compiled for compute_8x, JIT-run there)
  static_assert(CompactTile<Tile>::kShape.lds_bytes() <= T.lds_bytes(), "the compact tile needs no more shared memory");
  const int lds = compute_capability_major() < 9 ? CompactTile<Tile>::kShape.lds_bytes() : T.lds_bytes();
  return launch_grid_stride(fmha_bwd_dkdv_mma_kernel<E, Tile, kAligned>, p, total, T.threads, lds, stream);
}

}  // namespace rf
