// fmha_fwd_params.h - the one plain struct the forward launcher receives (by value) and passes to the
// kernel. Plain C++ (no HIP/CUDA types): the pybind11 bindings fill it on the host side.
//
// Layout follows flash-attn: every tensor is (batch, seqlen, heads, headdim) with arbitrary strides in
// elements except along headdim (stride 1). Strides are int64: an element offset can pass 2^31.
#pragma once

#include <stdint.h>

namespace rf {

enum class DType : int32_t { kFp16 = 0, kBf16 = 1, kFp32 = 2 };

struct FmhaFwdParams {
  const void* q;  // (batch, seqlen_q, nheads,   headdim)  dtype
  const void* k;  // (batch, seqlen_k, nheads_k, headdim)  dtype
  const void* v;  // (batch, seqlen_k, nheads_k, headdim)  dtype
  void* o;        // (batch, seqlen_q, nheads,   headdim)  dtype, written once
  float* lse;     // (batch, nheads, seqlen_q) contiguous float32, natural log, written once
  // nullptr, or (batch, nheads, seqlen_q, 2) contiguous float32 written once: per row the final row max m of
  // the log2-domain scores and 1/l, so that the backward rebuilds P = exp2(S2 - m) * (1/l) exactly as the
  // forward weighted V (P <= 1 for any softmax_scale; an LSE rounded to float32 cannot give that).
  float* softmax_stats;

  // Strides in elements.
  int64_t q_batch_stride, q_row_stride, q_head_stride;
  int64_t k_batch_stride, k_row_stride, k_head_stride;
  int64_t v_batch_stride, v_row_stride, v_head_stride;
  int64_t o_batch_stride, o_row_stride, o_head_stride;

  int32_t batch, seqlen_q, seqlen_k, nheads, nheads_k;
  int32_t headdim;  // the caller's headdim (<= the instance's bucket; the rest is zero-padded on load)

  DType dtype;
  float softmax_scale;  // multiplies Q.K^T (natural-log units)
  float softcap;        // 0 = off; else S = softcap * tanh(S * softmax_scale / softcap)

  // ALiBi: bias = -slope * |i + seqlen_k - seqlen_q - j| added to the scaled scores (flash-attn
  // convention). alibi_slopes is float32 (nheads,) or (batch, nheads); nullptr = off.
  const float* alibi_slopes;
  int64_t alibi_batch_stride;  // 0 for (nheads,)

  // Key j is visible from query row i iff (bottom-right aligned, flash-attn >= 2.1)
  //   i + seqlen_k - seqlen_q - window_left <= j <= i + seqlen_k - seqlen_q + window_right,
  // a negative bound meaning unbounded on that side; causal is window_right = 0.
  int32_t window_left, window_right;

  // True when every row of Q, K, V, O starts on a 16-byte boundary and headdim fills whole 16-byte
  // vectors: the 128-bit load path. Otherwise the narrow (element-wise) path, same results.
  bool aligned;
};

}  // namespace rf
