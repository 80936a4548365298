// fmha_bwd_params.h - the plain struct the backward launchers receive (by value). Layouts as in
// fmha_fwd_params.h: (batch, seqlen, heads, headdim) with strides in elements, headdim contiguous.
#pragma once

#include <stdint.h>

#include "fmha_fwd_params.h"

namespace rf {

struct FmhaBwdParams {
  const void* q;     // (batch, seqlen_q, nheads,   headdim)
  const void* k;     // (batch, seqlen_k, nheads_k, headdim)
  const void* v;     // (batch, seqlen_k, nheads_k, headdim)
  const void* o;     // (batch, seqlen_q, nheads,   headdim)  the forward's output
  const void* dout;  // (batch, seqlen_q, nheads,   headdim)  any strides (expanded: stride 0)
  const float* lse;  // natural log, from the forward (not read: softmax_stats)
  const float* softmax_stats;  // (..., 2) in the LSE's layout (SeqLayout): the forward's (m, 1/l) per row
  const float* o_fp32;  // nullptr, or the forward's float32 O (FmhaFwdParams::o_fp32), O's strides: D reads it
  float* delta;      // like lse: rowsum(dO * O), scratch written by the preprocess
  // nullptr, or (fp32 inputs, every key of each row in this launch) scratch like softmax_stats: the dQ kernel,
  // launched first, recomputes each row's statistics and D = rowsum(P * dP) / rowsum(P) from its own S and dP
  // (the forward's recurrence on x = score - m, m the forward's row max from softmax_stats) and writes (shift,
  // 1/l) here (shift: its own max of x) and D to delta; the dK/dV kernel reads them with softmax_stats' m (no
  // preprocess). D then cancels dP bit for bit where the softmax is one-hot (fmha_bwd_kernel.h).
  float* bwd_stats;
  void* dq;          // (batch, seqlen_q, nheads,   headdim)  written once
  void* dk;          // (batch, seqlen_k, nheads_k, headdim)  written once, summed over each GQA group
  void* dv;          // (batch, seqlen_k, nheads_k, headdim)  written once, summed over each GQA group

  int64_t q_batch_stride, q_row_stride, q_head_stride;
  int64_t k_batch_stride, k_row_stride, k_head_stride;
  int64_t v_batch_stride, v_row_stride, v_head_stride;
  int64_t o_batch_stride, o_row_stride, o_head_stride;
  int64_t do_batch_stride, do_row_stride, do_head_stride;
  int64_t dq_batch_stride, dq_row_stride, dq_head_stride;
  int64_t dk_batch_stride, dk_row_stride, dk_head_stride;
  int64_t dv_batch_stride, dv_row_stride, dv_head_stride;

  int32_t batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim;
  DType dtype;
  float softmax_scale, softcap;
  const float* alibi_slopes;
  int64_t alibi_batch_stride;
  int32_t window_left, window_right;
  bool aligned;  // every row of every tensor 16-byte aligned and headdim whole vectors: 128-bit loads

  SeqLayout seq;  // varlen layout (fmha_fwd_params.h); K/V are never paged or cached in the backward

  // nullptr: dQ by the dQ kernel (deterministic). Else a zeroed float32 buffer with dq's shape and element strides:
  // the tensor-core dK/dV kernel adds sum dS.K to it atomically (deterministic=False) and the dQ kernel does not
  // run; dq = softmax_scale * dq_accum is then the caller's (rocflash.backends.compiled). Tensor-core tile math only.
  float* dq_accum;
};

}  // namespace rf
