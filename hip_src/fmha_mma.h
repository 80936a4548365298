// fmha_mma.h - the tensor-core tile math of the forward kernel (NVIDIA sm_80+, fp16 and bf16 inputs, fp32
// accumulation), a drop-in policy for the pipeline of fmha_fwd_kernel.h beside VectorTileMath.
//
// Instructions (PTX ISA 7.0+, "Warp-level matrix multiply-accumulate instructions", "Data movement"):
//   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}   one 16x8x16 product per warp
//   ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16   four 8x8 operand matrices per warp from shared memory
//   cp.async.cg.shared.global 16 (zero-fill form)        global -> shared without registers, in groups
// Layouts and addresses are fmha_mma_tile.h's (MmaFwdTileShape), which the host-side probe evaluates too.
//
// Only the CUDA build includes this file (fmha_fwd_kernel.h, under RF_PLATFORM_CUDA): the HIP build for AMD
// never compiles it. The dispatcher runs these instances on sm_80 and later only; for older targets the
// bodies compile to a trap.
#pragma once

#include "fmha_common.h"
#include "fmha_mma_tile.h"

#if !defined(RF_PLATFORM_CUDA)
#error "fmha_mma.h is the NVIDIA tensor-core tile math: only the CUDA build compiles it"
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define RF_MMA_UNSUPPORTED 1  // device pass for an arch without m16n8k16 / cp.async: bodies trap
#endif

namespace rf {
namespace mma {

RF_DEVICE uint32_t smem_address(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

RF_DEVICE void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
#if defined(RF_MMA_UNSUPPORTED)
  __trap();
#else
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#endif
}

RF_DEVICE void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
#if defined(RF_MMA_UNSUPPORTED)
  __trap();
#else
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#endif
}

// d += a.b for one m16n8k16 tile: a = A fragment (4 words), b0/b1 = B fragment, d = C/D fragment.
template <class E>
RF_DEVICE void mma_16816(float& d0, float& d1, float& d2, float& d3, const uint32_t (&a)[4], uint32_t b0,
                         uint32_t b1) {
#if defined(RF_MMA_UNSUPPORTED)
  __trap();
#else
  if constexpr (E::kDType == DType::kFp16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    static_assert(E::kDType == DType::kBf16, "the tensor-core tile math takes fp16 or bf16");
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
#endif
}

// Two fp32 values rounded to nearest even into one word of E (lo in the low half: the lower k index).
template <class E>
RF_DEVICE uint32_t pack2(float lo, float hi) {
  uint32_t r = 0;
#if defined(RF_MMA_UNSUPPORTED)
  __trap();
#else
  if constexpr (E::kDType == DType::kFp16) asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  else asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

// 16 bytes global -> shared; src_bytes = 0 writes zeros and reads nothing (rows past the end, headdim padding).
RF_DEVICE void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
#if defined(RF_MMA_UNSUPPORTED)
  __trap();
#else
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#endif
}

// cp_async_16 with the L2 prefetch-size hint (PTX ISA "cp.async": .level::prefetch_size, sm_80+): a miss may
// bring kPrefetchBytes (64, 128 or 256) around the address into L2 at once. A hint only: data and zero-fill as
// cp_async_16 (kPrefetchBytes 0 is cp_async_16 itself).
// kEvictFirst (with the 128-byte hint only): the copy also carries an L2 cache policy of evict_first for every line
// it brings in (PTX ISA "createpolicy" .fractional.L2::evict_first with fraction 1.0, and cp.async's
// .level::cache_hint operand): lines read once (streamed K/V) leave the L2 before other lines, such as the block
// tables, cache_seqlens and Q of the next calls or the split partials that the combine kernel reads back. Also a
// hint: the data is the same.
template <int kPrefetchBytes, bool kEvictFirst = false>
RF_DEVICE void cp_async_16_l2(uint32_t dst, const void* src, int src_bytes) {
  static_assert(kPrefetchBytes == 0 || kPrefetchBytes == 64 || kPrefetchBytes == 128 || kPrefetchBytes == 256,
                "L2 prefetch size: 0, 64, 128 or 256 bytes");
  static_assert(!kEvictFirst || kPrefetchBytes == 128,
                "the evict_first policy comes with the 128-byte prefetch hint (the form measured: perf/RESULTS.md "
                "\"dec14\"; with 256 bytes it lost 2-5 % at batch 8 / 32 on the H200)");
#if defined(RF_MMA_UNSUPPORTED)
  __trap();
#else
  if constexpr (kEvictFirst) {
    uint64_t policy;  // (not volatile: one createpolicy serves every copy of the loop)
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::128B [%0], [%1], 16, %2, %3;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes), "l"(policy));
  } else if constexpr (kPrefetchBytes == 64)
    asm volatile("cp.async.cg.shared.global.L2::64B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  else if constexpr (kPrefetchBytes == 128)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  else if constexpr (kPrefetchBytes == 256)
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  else
    cp_async_16(dst, src, src_bytes);
#endif
}

RF_DEVICE void cp_async_commit() {
#if !defined(RF_MMA_UNSUPPORTED)
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Wait until at most kPending committed groups of this thread are still in flight.
template <int kPending>
RF_DEVICE void cp_async_wait() {
#if !defined(RF_MMA_UNSUPPORTED)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

template <class E>
RF_DEVICE float to_float(uint32_t bits) {
  return E::kDType == DType::kFp16 ? fp16_to_float(bits) : bf16_to_float(bits);
}

// Non-finite 16-bit elements (exponent all ones: inf or NaN) of fp16 / bf16.
template <class E>
RF_DEVICE bool nonfinite16(uint32_t bits) {
  constexpr uint32_t kExp = E::kDType == DType::kFp16 ? 0x7c00u : 0x7f80u;
  return (bits & kExp) == kExp;
}
template <class E>
RF_DEVICE bool has_nonfinite(const uint4& v) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  bool any = false;
#pragma unroll
  for (int k = 0; k < 4; ++k) any |= nonfinite16<E>(w[k] & 0xffffu) | nonfinite16<E>(w[k] >> 16);
  return any;
}
template <class E>
RF_DEVICE uint4 zero_nonfinite(uint4 v) {
  uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (nonfinite16<E>(w[k] & 0xffffu)) w[k] &= 0xffff0000u;
    if (nonfinite16<E>(w[k] >> 16)) w[k] &= 0x0000ffffu;
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

}  // namespace mma

// How many Q fragments (m-tiles x k-steps) a tile may keep in registers: Tile::kQFragsInRegisters when it names it
// (a perf/mma_tiles.cu variant may set it; run tc4-2 measured 8 at d64), else 4.
template <class Tile, class = void>
struct QFragsInRegistersOf {
  static constexpr int value = 4;
};
template <class Tile>
struct QFragsInRegistersOf<Tile, decltype(void(Tile::kQFragsInRegisters))> {
  static constexpr int value = Tile::kQFragsInRegisters;
};

// The forward pipeline's policy on tensor cores. Accumulators are plain float[TM][TN] / [TM][TD] arrays in
// the mma fragment order of fmha_mma_tile.h: fragment (m-tile mt, 8-column tile nt) is
//   {acc[2mt][2nt], acc[2mt][2nt+1], acc[2mt+1][2nt], acc[2mt+1][2nt+1]},
// so the pipeline's softmax, masking and epilogue index them through row()/s_col()/o_col() alone.
template <class E, class Tile, bool kAligned>
struct MmaTileMath {
  static constexpr MmaFwdTileShape T = Tile::kShape;
  static constexpr int TM = T.rows_per_thread();
  static constexpr int TN = T.s_cols_per_thread();
  static constexpr int TD = T.o_cols_per_thread();
  static constexpr int CW = 2;                    // output columns per store (one fragment pair)
  static constexpr int kRowLanes = MmaFwdTileShape::kRowLanes;
  static constexpr bool kPlainScorePath = true;  // softmax without per-element score-form tests (FmhaFwdPipeline)
  static constexpr int MT = T.m_tiles();
  static constexpr int KQ = T.headdim / MmaFwdTileShape::kMmaK;  // k-steps of S = Q.K^T
  static constexpr int KP = T.block_n / MmaFwdTileShape::kMmaK;  // k-steps of O += P.V
  // Q's A fragments stay in registers when they are few (4 words per m-tile and k-step); else ldmatrix each tile.
  // At most 4 fragments (16 registers): d64 at 32 rows per warp holds 8 and spilled (ptxas, sm_80 and sm_90).
  static constexpr bool kQInRegisters = MT * KQ <= QFragsInRegistersOf<Tile>::value;
  // The narrow path's register-staged copies unroll every pass on sm_90 (no spill there; 18-20 % faster than two
  // passes, perf/narrow_bench.py on the H200) and two passes below it: unrolled fully, the d128 plain kernel spilled
  // 8 B on sm_80 (ptxas, nvcc 13.0; tests/test_mma_audit.py::test_narrow_path_kernels).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  static constexpr bool kNarrowUnrollAll = false;
#else
  static constexpr bool kNarrowUnrollAll = true;
#endif

  static_assert(T.valid(), "invalid tensor-core tile config (see MmaFwdTileShape::valid)");
  static_assert(T.elem_bytes == E::kBytes && E::kBytes == 2, "the tensor-core tile math takes fp16 or bf16");
  static_assert(kWaveSize == MmaFwdTileShape::kWarpLanes, "mma.sync fragments are laid out over 32 lanes");

  uint32_t q_frag[kQInRegisters ? MT : 1][kQInRegisters ? KQ : 1][4];
  // P rounded to E as the A fragments of O += P.V (m-tile, k-step): written by exchange, read by pv. Packing P
  // before the K copy is issued frees the fp32 S registers early: half the registers of S across the copy and
  // the O rescale, which is what lets d128 run Br 128 x Bc 64 without spills (ptxas, sm_80 and sm_90).
  uint32_t p_frag[MT][KP][4];

  // ---- accumulator layout (what the pipeline's softmax and epilogue see)
  RF_DEVICE static int row(int tid, int i) { constexpr MmaFwdTileShape T = Tile::kShape; return T.row(tid, i); }
  RF_DEVICE static int s_col(int tid, int c) { constexpr MmaFwdTileShape T = Tile::kShape; return T.s_col(tid, c); }
  RF_DEVICE static int o_col(int tid, int g, int e) { constexpr MmaFwdTileShape T = Tile::kShape; return T.o_col(tid, g, e); }
  RF_DEVICE static bool row_leader(int tid) { constexpr MmaFwdTileShape T = Tile::kShape; return T.row_leader(tid); }

  // ---- global -> shared: cp.async on the 128-bit path (zero-filled outside the tensor), else through registers.
  // Pass `it` of the block copies vectors tid + it * threads of the kRows x CPR tile (CPR 16-byte vectors per row).
  // When CPR divides the block, thread tid always copies vector d = tid % CPR of rows tid / CPR + it * (threads /
  // CPR): on an unpaged tensor its source then moves by a fixed stride per pass, so a pass costs one add, one row
  // test and the copy; a paged cache's per-row page lookup (a division) stays on the paged path alone.
  template <int kRows, class Write>
  RF_DEVICE static void copy_rows(char* lds, const GlobalRows<E>& src, int first_row, Write write, int tid) {
    constexpr MmaFwdTileShape T = Tile::kShape;
    constexpr int CPR = T.chunks_per_row();
    constexpr bool kFixedColumn = T.threads % CPR == 0;
    constexpr int kRowsPerPass = T.threads / CPR;
    constexpr int kPasses = (kRows * CPR + T.threads - 1) / T.threads;
    if constexpr (kFixedColumn) {
      const int d = tid % CPR, r0 = tid / CPR;
      const bool col_inside = d * T.vec_elems() < src.cols;
      if (kAligned && src.pages == nullptr) {  // uniform per block
        const char* from = src.base + int64_t(first_row + r0) * src.row_stride_bytes + d * kVectorBytes;
        const int64_t step = int64_t(kRowsPerPass) * src.row_stride_bytes;
#pragma unroll
        for (int it = 0; it < kPasses; ++it, from += step) {
          const int r = r0 + it * kRowsPerPass;
          if (kRows % kRowsPerPass != 0 && r >= kRows) break;
          const bool inside = col_inside && first_row + r < src.rows;
          mma::cp_async_16(mma::smem_address(lds + write(r, d)), inside ? from : src.base, inside ? kVectorBytes : 0);
        }
        return;
      }
      if constexpr (!kAligned && !kNarrowUnrollAll) {  // two passes in flight per thread: few registers
#pragma unroll 2
        for (int it = 0; it < kPasses; ++it) {
          const int r = r0 + it * kRowsPerPass;
          if (kRows % kRowsPerPass != 0 && r >= kRows) break;
          copy_vector(lds + write(r, d), src, first_row + r, d, col_inside && first_row + r < src.rows);
        }
        return;
      }
#pragma unroll
      for (int it = 0; it < kPasses; ++it) {
        const int r = r0 + it * kRowsPerPass;
        if (kRows % kRowsPerPass != 0 && r >= kRows) break;
        copy_vector(lds + write(r, d), src, first_row + r, d, col_inside && first_row + r < src.rows);
      }
    } else {
#pragma unroll
      for (int it = 0; it < kPasses; ++it) {
        const int id = tid + it * T.threads;
        if ((kRows * CPR) % T.threads != 0 && id >= kRows * CPR) break;
        const int r = id / CPR, d = id % CPR;
        copy_vector(lds + write(r, d), src, first_row + r, d, first_row + r < src.rows && d * T.vec_elems() < src.cols);
      }
    }
  }

  // One 16-byte vector (row r, vector d) of src into dst: zeros when !inside.
  RF_DEVICE static void copy_vector(char* dst, const GlobalRows<E>& src, int r, int d, bool inside) {
    if constexpr (kAligned) {
      const char* from = inside ? src.base + src.row_offset(r) + d * kVectorBytes : src.base;
      mma::cp_async_16(mma::smem_address(dst), from, inside ? kVectorBytes : 0);
    } else {
      *reinterpret_cast<uint4*>(dst) = inside ? src.template load_vec<false>(r, d) : make_uint4(0u, 0u, 0u, 0u);
    }
  }

  // ---- the pipeline's stages
  // Q (once) and the first K tile into shared memory; Q's fragments into registers.
  RF_DEVICE void prologue(char* lds, const GlobalRows<E>& q, const GlobalRows<E>& k, int m0, int n0, int tid) {
    constexpr MmaFwdTileShape T = Tile::kShape;
    copy_rows<T.block_m>(lds, q, m0, [&](int r, int d) { return T.q_write(r, d); }, tid);
    copy_rows<T.block_n>(lds, k, n0, [&](int r, int d) { return T.k_write(r, d); }, tid);
    mma::cp_async_commit();
    mma::cp_async_wait<0>();
    __syncthreads();
    if constexpr (kQInRegisters) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int kk = 0; kk < KQ; ++kk) mma::ldmatrix_x4(q_frag[mt][kk], mma::smem_address(lds + T.q_read(tid, mt, kk)));
    }
  }

  // stage 0: V(n0) in flight while S is computed (its buffer is free: the previous tile ended with a barrier).
  RF_DEVICE void issue_v(char* lds, const GlobalRows<E>& v, int n0, int tid) {
    constexpr MmaFwdTileShape T = Tile::kShape;
    copy_rows<T.block_n>(lds, v, n0, [&](int r, int d) { return T.v_write(r, d); }, tid);
    mma::cp_async_commit();
  }

  // stage 1: s += Q.K^T
  RF_DEVICE void qk(const char* lds, int tid, float (&s)[TM][TN]) const {
    constexpr MmaFwdTileShape T = Tile::kShape;
#pragma unroll
    for (int kk = 0; kk < KQ; ++kk) {
      uint32_t a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        if constexpr (kQInRegisters) {
#pragma unroll
          for (int w = 0; w < 4; ++w) a[mt][w] = q_frag[mt][kk][w];
        } else {
          mma::ldmatrix_x4(a[mt], mma::smem_address(lds + T.q_read(tid, mt, kk)));
        }
      }
#pragma unroll
      for (int np = 0; np < T.block_n / 16; ++np) {
        uint32_t b[4];
        mma::ldmatrix_x4(b, mma::smem_address(lds + T.k_read(tid, np, kk)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {  // key tiles 2np + h
            const int c = 2 * (2 * np + h);
            mma::mma_16816<E>(s[2 * mt][c], s[2 * mt][c + 1], s[2 * mt + 1][c], s[2 * mt + 1][c + 1], a[mt],
                              b[2 * h], b[2 * h + 1]);
          }
        }
      }
    }
  }

  // stage 3a: P = s rounded to E, packed into its A fragments (p_frag; the S fragments of key tiles 2kk, 2kk+1 are
  // the A fragment of step kk); P stays in registers. V(n0) has landed (the only group in flight: K(n0) was waited
  // for at the end of the last tile) and, after the barrier, every warp is done reading K(n0): K(n0 + Bc) goes in
  // flight. One barrier here and one in finish_tile per K/V tile.
  RF_DEVICE void exchange(char* lds, const GlobalRows<E>& k, const float (&s)[TM][TN], int next_n0, bool has_next,
                          int tid) {
    constexpr MmaFwdTileShape T = Tile::kShape;
#pragma unroll
    for (int kk = 0; kk < KP; ++kk)
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        p_frag[mt][kk][0] = mma::pack2<E>(s[2 * mt][4 * kk], s[2 * mt][4 * kk + 1]);
        p_frag[mt][kk][1] = mma::pack2<E>(s[2 * mt + 1][4 * kk], s[2 * mt + 1][4 * kk + 1]);
        p_frag[mt][kk][2] = mma::pack2<E>(s[2 * mt][4 * kk + 2], s[2 * mt][4 * kk + 3]);
        p_frag[mt][kk][3] = mma::pack2<E>(s[2 * mt + 1][4 * kk + 2], s[2 * mt + 1][4 * kk + 3]);
      }
    mma::cp_async_wait<0>();
    __syncthreads();
    if (has_next) {
      copy_rows<T.block_n>(lds, k, next_n0, [&](int r, int d) { return T.k_write(r, d); }, tid);
      mma::cp_async_commit();
    }
  }

  // O *= alpha per row, for the plain-score kernels: their softmax keeps a row's max unless it rose by more than a
  // threshold (FmhaFwdPipeline::online_softmax), so alpha is exactly 1 for most rows of most tiles; the product is
  // skipped when it is 1 for every row of the warp (one vote; a NaN alpha counts as moved and propagates).
  RF_DEVICE static void rescale(float (&o)[TM][TD], const float (&alpha)[TM]) {
    bool moved = false;
#pragma unroll
    for (int i = 0; i < TM; ++i) moved |= alpha[i] != 1.f;
    if (__any_sync(0xffffffffu, moved)) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int x = 0; x < TD; ++x) o[i][x] *= alpha[i];
    }
  }

  // stage 3b: o += P.V with the P fragments that exchange packed (the pipeline's s is not read again)
  RF_DEVICE void pv(const char* lds, int tid, const float (&)[TM][TN], float (&o)[TM][TD]) const {
    constexpr MmaFwdTileShape T = Tile::kShape;
#pragma unroll
    for (int kk = 0; kk < KP; ++kk) {
#pragma unroll
      for (int dp = 0; dp < T.headdim / 16; ++dp) {
        uint32_t b[4];
        mma::ldmatrix_x4_trans(b, mma::smem_address(lds + T.v_read(tid, kk, dp)));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {  // output column tiles 2dp + h
            const int x = 2 * (2 * dp + h);
            mma::mma_16816<E>(o[2 * mt][x], o[2 * mt][x + 1], o[2 * mt + 1][x], o[2 * mt + 1][x + 1],
                              p_frag[mt][kk], b[2 * h], b[2 * h + 1]);
          }
        }
      }
    }
  }

  // stage 3b on a boundary tile. visible(i, j): row i sees key j of the tile.
  // A masked P is 0, but 0 * NaN = NaN, and an mma cannot drop B rows per A row: so when the V tile holds
  // non-finite values (a cheap block-wide test; never in ordinary inputs) each row first adds the non-finite V
  // elements of the keys it sees (what P * inf or P * NaN gives it: inf or NaN), then the tile's non-finite V
  // elements are replaced by 0 and the products run as usual. Rows that see no such key get exactly the
  // products of a clean V (0 * finite and 0 * 0 are both 0).
  template <class Visible>
  RF_DEVICE void pv_masked(char* lds, int tid, const float (&s)[TM][TN], float (&o)[TM][TD], Visible visible) {
    constexpr MmaFwdTileShape T = Tile::kShape;
    constexpr int CPR = T.chunks_per_row();
    bool found = false;
#pragma unroll 1
    for (int id = tid; id < T.block_n * CPR; id += T.threads)
      found |= mma::has_nonfinite<E>(*reinterpret_cast<const uint4*>(lds + T.v_write(id / CPR, id % CPR)));
    if (__syncthreads_or(found)) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int x = 0; x < TD; ++x) {
          const int col = T.o_col(tid, x / 2, x % 2);
#pragma unroll 1
          for (int j = 0; j < T.block_n; ++j) {  // rolled: a rare path, kept small
            const uint32_t bits = *reinterpret_cast<const uint16_t*>(lds + T.v_write(j, 0) + col * E::kBytes);
            if (mma::nonfinite16<E>(bits) && visible(i, j)) o[i][x] += mma::to_float<E>(bits);
          }
        }
      __syncthreads();
#pragma unroll 1
      for (int id = tid; id < T.block_n * CPR; id += T.threads) {
        uint4* v = reinterpret_cast<uint4*>(lds + T.v_write(id / CPR, id % CPR));
        *v = mma::zero_nonfinite<E>(*v);
      }
      __syncthreads();
    }
    pv(lds, tid, s, o);
  }

  // end of a tile: K(n0 + Bc) has landed and every warp is done reading V(n0).
  RF_DEVICE void finish_tile(char*, bool, int) {
    mma::cp_async_wait<0>();
    __syncthreads();
  }
};

// The tile the general-score kernel of an mma config runs (softcap, ALiBi or softmax_scale <= 0): the same
// warps, headdim and padding with one m16 row tile per warp (Br = 16 * warps), and the same Bc except at headdim
// 256, where it takes at most 16 keys per tile (O alone is 128 registers per thread there: next to the score
// transform's registers, Bc 32 spilled 40 B on sm_90).
template <class Tile>
struct GeneralScoreTile {
  static constexpr int kBlockN =
      Tile::kShape.headdim >= 256 && Tile::kShape.block_n > 16 ? 16 : Tile::kShape.block_n;
  static constexpr MmaFwdTileShape kShape = MmaFwdTileShape{
      Tile::kShape.headdim, MmaFwdTileShape::kMmaM * Tile::kShape.warps(), kBlockN, Tile::kShape.threads,
      Tile::kShape.threads_n, Tile::kShape.lds_pad_bytes, Tile::kShape.elem_bytes};
  static constexpr TileMath kMath = TileMath::kMma;
  static constexpr int kWavesPerSimd = Tile::kWavesPerSimd;
};

}  // namespace rf
