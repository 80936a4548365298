// fmha_mma_bwd_pre.h - the backward preprocess (D) for the tensor-core backward kernels (fmha_mma_bwd.h):
// D = rowsum(dO o O) as hi + lo, like fmha_bwd_preprocess_kernel (fmha_bwd_kernel.h), with hi in the tensor-core
// dP arithmetic: per k-step of 16 columns one m16n8k16 mma from k-step 0 up, as the dK/dV and dQ kernels sum
// dP = dO.V^T (MmaBwdOps::gemm_rows_by_rows over the headdim bucket; k-steps past headdim are zero in both).
//   hi = diagonal of dO . O^T over 16 rows at a time: A = the 16 dO rows, B = O rows 0-7, then 8-15 (the stored O)
//   lo = dO . (O_fp32 - O) when the forward kept its float32 O (p.o_fp32): fp32 products, any order
// A row that sees one key (or whose softmax is exactly one-hot) has O_fp32 = O = that key's V row: lo = 0 and D
// is the key's dP bit for bit (an mma output element depends only on its A row, B column and accumulator, not
// on its position in the tile nor on which operand is A), so dS = P o (dP - D) is exactly 0, as autograd's
// softmax gives. The main loops are untouched. Only the CUDA build includes this file (sm_80+).
#pragma once

#include "fmha_bwd_kernel.h"
#include "fmha_mma.h"

namespace rf {

// 16 flat (batch, head, row) rows per warp, grid-stride; lane = 4 * g + t holds rows g and g + 8 of the group.
template <class E, int kWarps>
__global__ void __launch_bounds__(kWarps * 32) fmha_bwd_preprocess_mma_kernel(const FmhaBwdParams p, int k_steps) {
  static_assert(E::kBytes == 2, "the tensor-core tile math takes fp16 or bf16");
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t rows = int64_t(p.batch) * p.nheads * p.seqlen_q;
  for (int64_t first = (int64_t(blockIdx.x) * kWarps + threadIdx.x / 32) * 16; first < rows;
       first += int64_t(gridDim.x) * kWarps * 16) {
    const uint16_t* d_row[2] = {nullptr, nullptr};
    const uint16_t* o_row[2] = {nullptr, nullptr};
    const float* o32_row[2] = {nullptr, nullptr};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t r = first + g + 8 * h;
      if (r >= rows) continue;
      const int row = int(r % p.seqlen_q);
      const int64_t bh = r / p.seqlen_q;
      const int64_t head = bh % p.nheads, batch = bh / p.nheads;
      const int64_t offset = batch * p.o_batch_stride + head * p.o_head_stride + row * p.o_row_stride;
      o_row[h] = reinterpret_cast<const uint16_t*>(p.o) + offset;
      d_row[h] = reinterpret_cast<const uint16_t*>(p.dout) + batch * p.do_batch_stride + head * p.do_head_stride +
                 row * p.do_row_stride;
      if (p.o_fp32) o32_row[h] = p.o_fp32 + offset;
    }
    const auto pair = [&](const uint16_t* x, int c) {  // elements c, c + 1 of a row as one word, 0 outside
      if (x == nullptr) return 0u;
      return (c < p.headdim ? uint32_t(x[c]) : 0u) | (c + 1 < p.headdim ? uint32_t(x[c + 1]) << 16 : 0u);
    };
    float acc[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};  // [O rows 0-7 | 8-15][C fragment]
    float lo[2] = {0.f, 0.f};
    for (int kk = 0; kk < k_steps; ++kk) {
      const int c0 = 16 * kk + 2 * t;
      // A fragment: (row g, cols c0..c0+1), (row g+8, c0..), (row g, c0+8..), (row g+8, c0+8..)
      const uint32_t a[4] = {pair(d_row[0], c0), pair(d_row[1], c0), pair(d_row[0], c0 + 8), pair(d_row[1], c0 + 8)};
#pragma unroll
      for (int h = 0; h < 2; ++h) {  // B fragment: O row g + 8h, k = c0..c0+1 and c0+8..c0+9
        mma::mma_16816<E>(acc[h][0], acc[h][1], acc[h][2], acc[h][3], a, pair(o_row[h], c0), pair(o_row[h], c0 + 8));
        if (o32_row[h] == nullptr) continue;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int c = c0 + (e & 1) + 8 * (e >> 1);
          if (c < p.headdim)
            lo[h] = rf_fma(from_bits<E>(d_row[h][c]), o32_row[h][c] - from_bits<E>(o_row[h][c]), lo[h]);
        }
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) lo[h] = group_sum<4>(lo[h]);  // the quad of lanes 4g .. 4g + 3
    // diagonal: row g is C element (g, g) of the first product (lane t = g / 2, c[g % 2]); row g + 8 is element
    // (g + 8, g) of the second (same lane, c[2 + g % 2])
    if (t == g / 2) {
      if (first + g < rows) p.delta[first + g] = acc[0][g % 2] + lo[0];
      if (first + g + 8 < rows) p.delta[first + g + 8] = acc[1][2 + g % 2] + lo[1];
    }
  }
}

// k_steps: the dK/dV instance's headdim bucket / 16 (its dP sums over the bucket).
template <class E>
rfError_t launch_fmha_bwd_preprocess_mma(const FmhaBwdParams& p, int headdim_bucket, rfStream_t stream) {
  constexpr int kWarps = 4;
  const int64_t rows = int64_t(p.batch) * p.nheads * p.seqlen_q;
  const int64_t blocks = (rows + kWarps * 16 - 1) / (kWarps * 16);
  fmha_bwd_preprocess_mma_kernel<E, kWarps><<<dim3(unsigned(blocks < kMaxGridBlocks ? blocks : kMaxGridBlocks)),
                                              dim3(kWarps * 32), 0, stream>>>(p, (headdim_bucket + 15) / 16);
  return rfGetLastError();
}

}  // namespace rf
