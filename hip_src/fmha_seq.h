// fmha_seq.h - where a block's sequence lives: per-sequence lengths and offsets (varlen, KV cache, paged
// cache) and the row views and LSE index built from them, in one place for every kernel (the role of
// flash-attn's block_info.h). The kernels never compute a base pointer or an LSE index by hand.
//
// Params: FmhaFwdParams or FmhaBwdParams (both carry `seq` (SeqLayout, fmha_fwd_params.h), the strides and
// the dense shapes). Dense calls have every SeqLayout pointer null: then seqlen_q/k are the params' own.
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_params.h"

namespace rf {

struct SeqInfo {
  int32_t seqlen_q;  // query rows of this sequence
  int32_t seqlen_k;  // keys of this sequence (keys >= seqlen_k are never read)
  int64_t q_row0;    // first row of the sequence in Q / O / dO / dQ / LSE (varlen), else 0
  int64_t k_row0;    // first row of the sequence in K / V / dK / dV (varlen K/V), else 0
  int32_t kv_batch;  // batch row of K / V: cache_batch_idx[b] (dense cache), else b (unused when paged)
  bool bad;          // a negative key count (seqused_k[b] = -1 from the KV-cache step's index check, fmha_kvstep.h):
                     // seqlen_k is then 0 (no key is read) and the split-KV kernels write NaN to O and LSE

  template <class Params>
  RF_DEVICE static SeqInfo make(const Params& p, int b) {
    const SeqLayout& s = p.seq;
    SeqInfo r;
    r.q_row0 = s.cu_seqlens_q ? s.cu_seqlens_q[b] : 0;
    r.seqlen_q = s.cu_seqlens_q ? s.cu_seqlens_q[b + 1] - s.cu_seqlens_q[b] : p.seqlen_q;
    r.k_row0 = s.cu_seqlens_k ? s.cu_seqlens_k[b] : 0;
    r.seqlen_k = s.cu_seqlens_k ? s.cu_seqlens_k[b + 1] - s.cu_seqlens_k[b]
                                : s.seqused_k ? s.seqused_k[b] : p.seqlen_k;
    r.bad = r.seqlen_k < 0;
    if (r.bad) r.seqlen_k = 0;
    r.kv_batch = s.cache_batch_idx ? s.cache_batch_idx[b] : b;
    return r;
  }
};

// Rows of a query-side tensor (Q, O, dO, dQ: (batch, seqlen_q, nheads, headdim) or varlen (total_q, ...)) of
// sequence `b`, head `head`; row 0 is the sequence's first row.
template <class E, class Ptr>
RF_DEVICE GlobalRows<E> q_side_rows(Ptr base, int64_t batch_stride, int64_t row_stride, int64_t head_stride,
                                    const SeqInfo& s, int b, int head, int cols) {
  const int64_t off = int64_t(b) * batch_stride + s.q_row0 * row_stride + int64_t(head) * head_stride;
  return GlobalRows<E>{reinterpret_cast<const char*>(base) + off * E::kBytes, row_stride * E::kBytes, s.seqlen_q, cols};
}

// Rows of a key-side tensor (K, V, dK, dV) of sequence `b`, head `head_k`: varlen, dense cache row
// kv_batch, or the sequence's pages of a paged cache (batch_stride is then the stride between blocks).
template <class E, class Params, class Ptr>
RF_DEVICE GlobalRows<E> k_side_rows(const Params& p, Ptr base, int64_t batch_stride, int64_t row_stride,
                                    int64_t head_stride, const SeqInfo& s, int b, int head_k) {
  const SeqLayout& l = p.seq;
  const char* c = reinterpret_cast<const char*>(base);
  if (l.block_table != nullptr) {
    GlobalRows<E> r{c + int64_t(head_k) * head_stride * E::kBytes, row_stride * E::kBytes, s.seqlen_k, p.headdim};
    r.pages = l.block_table + int64_t(b) * l.block_table_batch_stride;
    r.page_size = l.page_block_size;
    r.page_stride_bytes = batch_stride * E::kBytes;
    return r;
  }
  const int64_t off = int64_t(s.kv_batch) * batch_stride + s.k_row0 * row_stride + int64_t(head_k) * head_stride;
  return GlobalRows<E>{c + off * E::kBytes, row_stride * E::kBytes, s.seqlen_k, p.headdim};
}

// Index of (sequence b, head, row i of the sequence) in LSE (and in the backward's delta).
RF_DEVICE int64_t lse_index(const SeqLayout& l, const SeqInfo& s, int b, int head, int i) {
  return int64_t(b) * l.lse_batch_stride + int64_t(head) * l.lse_head_stride + s.q_row0 + i;
}

// Whether one of a sequence's used block-table entries, table[0, pages), indexes outside [0, num_blocks): the
// paged-cache rule of the KV-cache step kernel (fmha_kvstep.h) and the varlen check kernel (fmha_varlen_check.h).
// Every thread of the block calls it with the same arguments (three barriers) and gets the same answer; the
// threads share the entries, `flag` is a __shared__ int of the caller. Entries past `pages` are never read (vLLM
// pads tables with anything); pages <= 0 reads none and answers false.
template <int kThreads>
RF_DEVICE bool used_pages_out_of_range(const int32_t* table, int pages, int32_t num_blocks, int& flag) {
  const int tid = threadIdx.x;
  if (tid == 0) flag = 0;
  __syncthreads();
  for (int j = tid; j < pages; j += kThreads)
    if (table[j] < 0 || table[j] >= num_blocks) flag = 1;  // same value from every writer
  __syncthreads();
  const bool bad = flag != 0;
  __syncthreads();  // every thread has read the flag before the block's next call resets it
  return bad;
}

}  // namespace rf
