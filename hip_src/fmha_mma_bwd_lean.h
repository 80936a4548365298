// fmha_mma_bwd_lean.h - lean variants of the tensor-core atomic-dQ dK/dV kernel (deterministic=False; NVIDIA, every
// CUDA arch; the default since branch tcbwd8, ROCFLASH_BWD_LEAN=0 restores the kernel before it, read at every
// launch). Same tile (layout 1, the
// fused S^T / dP^T k loop), same products in the same order as MmaBwdDkdvPipeline<..., kAtomicDq = true>, so dK and
// dV are bitwise equal to the default kernel's and dQ equal up to the order of its float32 atomics. What differs is
// the work around the products, as read in the default kernel's SASS (perf/RESULTS.md "tcbwd8"): per query tile
// the default loop runs ~1200 instructions per warp for 160 mma.sync and 100 ldmatrix, of which
//   - the score transform tests softcap / ALiBi per element (a branch region per S^T element: 16 per thread);
//   - issue_tile recomputes the Q / dO / statistics addresses of the next tile from (head, m0) with 64-bit
//     products per row, and its statistics copy is a generic loop (one pass is all it ever takes);
//   - the (head, tile) of each step comes from an integer division and a remainder;
//   - two barriers per tile: the top one, and one that publishes dS^T to the dQ product.
// kLean:
//   1  plain score (raw * scale_log2, no per-element test; launched only without softcap and ALiBi), Q / dO copies
//      with one column per thread and one pointer step per pass (the forward's copy_rows), one statistics pass,
//      (head, tile) counters instead of the division, the dQ atomics of a chunk inside headdim without a column
//      test per element (add_dq's kFastRed);
//   2  1 + one barrier per tile: the dQ product of tile t - 1 runs after tile t's top barrier, from a second dS^T
//      buffer (block_n * (block_m * 2 + 16) bytes more shared memory), so the top barrier publishes both, and the
//      dQ atomics of tile t - 1 are in flight while the warp computes S^T of tile t; the last tile's after the loop.
//   3  2 on twice the keys over twice the warps (MmaBwdDkdvShape::wide(), WideAtomicTile: block_n 128 over 8 warps
//      at d64 / d128): half the dQ atomics and half the Q / dO / statistics copies per key, one block per SM;
//   8, 9 (timing diagnostics: dq is WRONG): 1 without the dQ atomics (8), without the dQ product, its K guard and
//      atomics (9; the barrier before it stays).
// Ordinary builds compile variants 2 and 3 only; 1, 8 and 9 exist in builds with -DRF_TCBWD8_DIAG (e.g.
// NVCC_APPEND_FLAGS=-DRF_TCBWD8_DIAG=1 at install: perf/tcbwd8_run.sh's A/B build).
// Measured in one process on the H200 (perf/RESULTS.md "tcbwd8", b4 h16 s4096 bf16, dK/dV + atomic-dQ kernel ms):
// d128 9.59 (the kernel before) -> 6.61 (2) / 6.39 (3), causal 4.88 -> 3.51 / 3.49, d64 5.87 -> 3.47 / 3.12, d64
// causal 3.11 -> 1.86 / 1.74; dK, dV bitwise equal to the kernel before in every case.
// The K guard (a key block with a non-finite K element, rare) runs as in the default kernel: K zeroed for the dQ
// product, then reloaded before the next S^T (in kLean 2 that reload precedes tile t's S^T).
//
// Only the CUDA build includes this file (fmha_mma_bwd.h).
#pragma once

namespace rf {

template <class E, class Tile, bool kAligned, int kLean>
struct MmaBwdDkdvLean {
  using P = MmaBwdDkdvPipeline<E, Tile, kAligned, true>;
  using Ops = typename P::Ops;
  static constexpr MmaBwdDkdvShape T = Tile::kShape;
  static constexpr int TN = P::TN, TD = P::TD, KD = P::KD, MT = P::MT, TK = P::TK;
  static constexpr bool kDefer = kLean == 2 || kLean == 3;
  static constexpr int kDiag = kLean == 8 ? 1 : kLean == 9 ? 2 : 0;
  static constexpr int kDsBytes = T.block_n * T.ds_row_bytes();
  static_assert(kLean == 1 || kLean == 2 || kLean == 3 || kLean == 8 || kLean == 9, "lean variants: 1, 2, 3 (and the diagnostics 8, 9)");
  static_assert(P::kFusedLoop && T.core_rows == 0 && T.q_buffers == 2 && !T.grid() && T.dq_m_tiles == 1,
                "the lean kernels take the default atomic-dQ tile (layout 1, two Q/dO buffers)");

  static constexpr int lds_bytes() { return T.lds_bytes_atomic_dq() + (kDefer ? kDsBytes : 0); }

  // kRows rows of src from first_row into the buffer at `base`: thread tid always copies 16-byte column d = tid % CPR
  // of rows tid / CPR + pass * (threads / CPR), its source moving by a fixed stride per pass (128-bit path).
  template <int kRows>
  RF_DEVICE static void copy_fixed(char* lds, const GlobalRows<E>& src, int first_row, int base, int tid) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;  // (a local: the static member is not usable in device code)
    constexpr int CPR = T.chunks_per_row(), kPerPass = T.threads / CPR;
    constexpr int kPasses = (kRows + kPerPass - 1) / kPerPass;
    static_assert(T.threads % CPR == 0, "one column per thread");
    const int d = tid % CPR, r0 = tid / CPR;
    const bool col_inside = d * T.vec_elems() < src.cols;
    const char* from = src.base + int64_t(first_row + r0) * src.row_stride_bytes + d * kVectorBytes;
    const int64_t step = int64_t(kPerPass) * src.row_stride_bytes;
#pragma unroll
    for (int it = 0; it < kPasses; ++it, from += step) {
      const int r = r0 + it * kPerPass;
      if (kRows % kPerPass != 0 && r >= kRows) break;
      const bool inside = col_inside && first_row + r < src.rows;
      mma::cp_async_16(mma::smem_address(lds + T.write(base, r, d)), inside ? from : src.base, inside ? kVectorBytes : 0);
    }
  }

  // Q, dO rows and the row statistics of query tile m0 (head `head`) into buffer `buf`, one cp.async group (the
  // values of MmaBwdDkdvPipeline::issue_tile).
  RF_DEVICE static void issue_tile(const FmhaBwdParams& p, const SeqInfo& seq, char* lds, int batch, int head, int m0,
                                   int buf, int tid) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;  // (a local: the static member is not usable in device code)
    const auto q = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
    const auto dout = q_side_rows<E>(p.dout, p.do_batch_stride, p.do_row_stride, p.do_head_stride, seq, batch, head, p.headdim);
    if constexpr (kAligned) {
      copy_fixed<T.block_m>(lds, q, m0, T.q_offset(buf), tid);
      copy_fixed<T.block_m>(lds, dout, m0, T.do_offset(buf), tid);
    } else {
      const auto q_at = [&](int r, int d) { return T.write(T.q_offset(buf), r, d); };
      const auto do_at = [&](int r, int d) { return T.write(T.do_offset(buf), r, d); };
      Ops::template copy_rows<T.block_m, T.threads, T.chunks_per_row(), decltype(q_at)>(lds, q, m0, q_at, tid);
      Ops::template copy_rows<T.block_m, T.threads, T.chunks_per_row(), decltype(do_at)>(lds, dout, m0, do_at, tid);
    }
    static_assert(2 * T.block_m <= T.threads, "one statistics pass: a thread per row statistic");
    if (tid < 2 * T.block_m) {
      const int r = tid % T.block_m;
      const bool inside = m0 + r < seq.seqlen_q;
      const int64_t idx = inside ? lse_index(p.seq, seq, batch, head, m0 + r) : 0;
      if (tid < T.block_m)
        mma::cp_async_small<8>(mma::smem_address(lds + T.stats_offset(buf) + 8 * r), p.softmax_stats + 2 * idx, inside ? 8 : 0);
      else
        mma::cp_async_small<4>(mma::smem_address(lds + T.delta_offset(buf) + 4 * r), p.delta + idx, inside ? 4 : 0);
    }
    mma::cp_async_commit();
  }

  // dQ rows m0.. of `head` += dS.K from the dS^T buffer at ds_off (the K guard first when K holds a non-finite
  // element; reload_k: then K again as loaded, for the next S^T; its rows are found again from the params, not
  // kept across the loop: the kept GlobalRows spilled 36-40 B at d128, ptxas sm_90a).
  RF_DEVICE static void dq_step(const FmhaBwdParams& p, const SeqInfo& seq, const MaskRule& rule, char* lds, int batch,
                                int head_k, int head, int m0, int n0, bool k_nonfinite, int ds_off, int tid, bool reload_k) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;  // (a local: the static member is not usable in device code)
    if constexpr (kDiag == 2) return;
    if (k_nonfinite) P::guard_k(p, seq, rule, lds, rf_thread_index_here(), batch, head, m0, n0);
    // tid re-read (rf_vendor.h): add_dq's lane addresses computed here, not kept across the loop
    P::template add_dq<kDiag, true>(p, seq, lds, rf_thread_index_here(), batch, head, m0, ds_off);
    if (k_nonfinite && reload_k) {
      __syncthreads();
      const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
      const auto k_at = [&](int r, int d) { return T.write(T.k_offset(), r, d); };
      Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row(), decltype(k_at)>(lds, k, n0, k_at, rf_thread_index_here());
      mma::cp_async_commit();
      mma::cp_async_wait<0>();
      __syncthreads();
    }
  }

  RF_DEVICE static void run(const FmhaBwdParams& p, char* lds, int n_block, int head_k, int batch) {
    constexpr MmaBwdDkdvShape T = Tile::kShape;  // (a local: the static member is not usable in device code)
    const int tid = threadIdx.x;
    const SeqInfo seq = SeqInfo::make(p, batch);
    const int n0 = n_block * T.block_n;
    if (n0 >= seq.seqlen_k) return;  // uniform
    const int n_end = min(n0 + T.block_n, seq.seqlen_k);
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, seq, batch, head_k);
    const auto k_at = [&](int r, int d) { return T.write(T.k_offset(), r, d); };
    const auto v_at = [&](int r, int d) { return T.write(T.v_offset(), r, d); };

    float dk[TK][TD], dv[TK][TD];
#pragma unroll
    for (int i = 0; i < TK; ++i)
#pragma unroll
      for (int x = 0; x < TD; ++x) dk[i][x] = dv[i][x] = 0.f;

    int tile_begin, tile_end;
    query_tile_range(rule, n0, n_end, T.block_m, &tile_begin, &tile_end);
    const int group = p.nheads / p.nheads_k;
    const int tiles = tile_end - tile_begin;
    const int total = tiles * group;  // (query head of the group, query tile), tile fastest
    if (total > 0) {                  // uniform
      Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row(), decltype(k_at)>(lds, k, n0, k_at, rf_thread_index_here());
      Ops::template copy_rows<T.block_n, T.threads, T.chunks_per_row(), decltype(v_at)>(lds, v, n0, v_at, tid);
      issue_tile(p, seq, lds, batch, head_k * group, tile_begin * T.block_m, 0, tid);  // one group with K, V
      // no ALiBi and no softcap here (the launcher's condition): one transform for every head of the group
      const ScoreTransform score = ScoreTransform::make(p.softmax_scale, 0.f, 0.f, seq.seqlen_k - seq.seqlen_q, seq.seqlen_k);
      bool k_nonfinite = false;  // K holds a non-finite element (uniform; set once K is visible)
      // this step's query head and first row (counters, not it / tiles and it % tiles)
      const int m_first = tile_begin * T.block_m, m_last = (tile_end - 1) * T.block_m;
      int head = head_k * group, m0 = m_first;
      for (int it = 0; it < total; ++it) {
        const int buf = it & 1;
        const bool wrap = m0 == m_last;
        const int next_m0 = wrap ? m_first : m0 + T.block_m, next_head = wrap ? head + 1 : head;
        mma::cp_async_wait<0>();  // this thread's copies of tile it (and K, V)
        __syncthreads();          // visible to every warp; every warp is done with buffer buf ^ 1 and with the dS^T
                                  // buffer this tile writes (kDefer: tile it - 2's, read before this barrier)
        // (tid re-read, rf_vendor.h: the copies' lane addresses computed here, not kept across the loop)
        if (it + 1 < total) issue_tile(p, seq, lds, batch, next_head, next_m0, buf ^ 1, rf_thread_index_here());
        if (it == 0) {
          constexpr int CPR = T.chunks_per_row();
          bool found = false;
#pragma unroll 1
          for (int id = tid; id < T.block_n * CPR; id += T.threads)
            found |= mma::has_nonfinite<E>(*reinterpret_cast<const uint4*>(lds + T.write(T.k_offset(), id / CPR, id % CPR)));
          k_nonfinite = __syncthreads_or(found);
        }
        if constexpr (kDefer) {
          if (it > 0) {  // tile it - 1's dS^T, published by the barrier above (its (head, m0): one step back)
            const bool first = m0 == m_first;
            dq_step(p, seq, rule, lds, batch, head_k, first ? head - 1 : head, first ? m_last : m0 - T.block_m, n0,
                    k_nonfinite, (buf ^ 1) * kDsBytes, tid, true);
          }
        }
        float s[TK][TN], dp[TK][TN];
#pragma unroll
        for (int i = 0; i < TK; ++i)
#pragma unroll
          for (int c = 0; c < TN; ++c) s[i][c] = dp[i][c] = 0.f;
        {  // (tid re-read, rf_vendor.h: these lane addresses computed per tile, not kept across the loop)
          const int t = rf_thread_index_here();
          Ops::template gemm_rows_by_rows2<T.block_m, KD, MT>(lds, T, t, T.key_warp(t) * T.rows_per_warp(), T.k_offset(),
                                                              T.q_offset(buf), s, T.v_offset(), T.do_offset(buf), dp);
        }
        const int m_end = min(m0 + T.block_m, seq.seqlen_q);
        if (tile_needs_mask(rule, m0, m_end, n0, T.block_n))  // uniform per block
          P::template probs_and_grads<true, TK, true>(lds, buf, score, rule, m0, n0, tid, 0, s, dp);
        else
          P::template probs_and_grads<false, TK, true>(lds, buf, score, rule, m0, n0, tid, 0, s, dp);
        P::store_ds(lds, tid, dp, kDefer ? buf * kDsBytes : 0);
        // dV += P^T.dO, dK += dS^T.Q (the accumulators are the A fragments)
        Ops::template gemm_frag_by_rows<TN, KD, MT>(lds, T, tid, s, T.do_offset(buf), dv);
        Ops::template gemm_frag_by_rows<TN, KD, MT>(lds, T, tid, dp, T.q_offset(buf), dk);
        if constexpr (!kDefer) {
          __syncthreads();  // dS^T visible to every warp
          dq_step(p, seq, rule, lds, batch, head_k, head, m0, n0, k_nonfinite, 0, tid, true);
        }
        head = next_head;
        m0 = next_m0;
      }
      if constexpr (kDefer) {
        __syncthreads();  // the last tile's dS^T
        // (the loop left (head, m0) one step past the last tile: head + 1, m_first)
        dq_step(p, seq, rule, lds, batch, head_k, head - 1, m_last, n0, k_nonfinite, ((total - 1) & 1) * kDsBytes, tid, false);
      }
    }

    // epilogue: dK = softmax_scale * sum dS^T.Q, dV = sum P^T.dO, written once (zeros for keys no row sees)
    const auto key_of = [&](int i) { return n0 + T.key(tid, i); };
    const auto col_of = [&](int g) { return T.dkv_col0(tid) + T.o_col(tid, g, 0); };
    const auto dk_rows = k_side_rows<E>(p, p.dk, p.dk_batch_stride, p.dk_row_stride, p.dk_head_stride, seq, batch, head_k);
    const auto dv_rows = k_side_rows<E>(p, p.dv, p.dv_batch_stride, p.dv_row_stride, p.dv_head_stride, seq, batch, head_k);
    store_acc_rows<E, kAligned, TK, TD, 2>(const_cast<char*>(dk_rows.base), dk_rows.row_stride_bytes, seq.seqlen_k, p.headdim, dk, [&](int) { return p.softmax_scale; }, key_of, col_of);
    store_acc_rows<E, kAligned, TK, TD, 2>(const_cast<char*>(dv_rows.base), dv_rows.row_stride_bytes, seq.seqlen_k, p.headdim, dv, [&](int) { return 1.f; }, key_of, col_of);
  }
};

// One key block per thread block, no grid-stride loop (the launcher takes this kernel only when the grid holds
// every block: kMaxGridBlocks): the walk's 64-bit block index and count were the values ptxas spilled beside the
// tile loop (16-24 B per block at d64 / d128, sm_90a).
template <class Run>
RF_DEVICE void bwd_grid_once(int num_blocks, int nheads, int batch, Run run) {
  const int bid = int(blockIdx.x);
  if (bid >= num_blocks * nheads * batch) return;
  const int bh = bid / num_blocks;
  run(bid % num_blocks, bh % nheads, bh / nheads);
}

// The lean atomic-dQ kernels (ROCFLASH_BWD_LEAN: the default atomic-dQ kernel since tcbwd8; every CUDA arch, mma.sync).
template <class E, class Tile, bool kAligned, int kLean>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, Tile::kWavesPerSimd) fmha_bwd_dkdvq_lean_kernel(const FmhaBwdParams p) {
  extern __shared__ uint4 rf_lds[];
  bwd_grid_once((p.seqlen_k + Tile::kShape.block_n - 1) / Tile::kShape.block_n, p.nheads_k, p.batch, [&](int n_block, int head_k, int batch) {
    MmaBwdDkdvLean<E, Tile, kAligned, kLean>::run(p, reinterpret_cast<char*>(rf_lds), n_block, head_k, batch);
  });
}

// The atomic tile on twice the keys over twice the warps (the lean variant 3).
template <class Tile>
struct WideAtomicTile {
  static constexpr MmaBwdDkdvShape kShape = Tile::kAtomicShape.wide();
  static constexpr int kWavesPerSimd = Tile::kWavesPerSimd;  // 8 warps, 255 registers: one block per SM
};

// ROCFLASH_BWD_LEAN as the lean variant: unset, empty or "auto" -> kLeanAuto (the launcher takes 3 when its grid
// of wide blocks covers every SM, else 2: one block per SM of 8 warps would leave SMs idle that variant 2's twice as
// many blocks keep busy); "0" -> 0 (the pre-tcbwd8 kernel, fmha_bwd_dkdvq_mma_kernel); "2" / "3" exactly; in
// RF_TCBWD8_DIAG builds also "1", "8", "9" (the A/B's step and timing diagnostics; ordinary builds do not compile
// them: variant 1 kept 4-8 B of spills at d64), elsewhere those fall back to auto. Read at each launch (the
// same-process A/B, perf/tcbwd5_ab.py --switch ROCFLASH_BWD_LEAN); rocflash/envvars.py checks the value first.
inline constexpr int kLeanAuto = -1;
inline int bwd_lean_mode() {
  const char* env = std::getenv("ROCFLASH_BWD_LEAN");
  if (env == nullptr || env[0] == '\0' || env[1] != '\0') return kLeanAuto;  // ("auto": more than one character)
  if (env[0] == '0') return 0;
#if defined(RF_TCBWD8_DIAG)
  if (env[0] == '1' || env[0] == '8' || env[0] == '9') return env[0] - '0';
#endif
  return env[0] == '2' || env[0] == '3' ? env[0] - '0' : kLeanAuto;
}

// Device attribute kAttr of the current device (cached per device index and attribute); `fallback` when it cannot be
// read.
template <cudaDeviceAttr kAttr>
inline int cached_device_attribute(int fallback) {
  static int cached[64] = {};
  int device = 0, value = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0) return fallback;
  if (device < 64 && cached[device] > 0) return cached[device];
  if (cudaDeviceGetAttribute(&value, kAttr, device) != cudaSuccess) return fallback;
  if (device < 64) cached[device] = value;
  return value;
}

// SMs of the current device (0 when it cannot be read: the auto rule then takes 3).
inline int64_t multiprocessor_count() { return cached_device_attribute<cudaDevAttrMultiProcessorCount>(0); }

}  // namespace rf
