// fmha_fwd_params.h - the one plain struct the forward launcher receives (by value) and passes to the
// kernel. Plain C++ (no HIP/CUDA types): the pybind11 bindings fill it on the host side.
//
// Layout follows flash-attn: every tensor is (batch, seqlen, heads, headdim) with arbitrary strides in
// elements except along headdim (stride 1). Strides are int64: an element offset can pass 2^31.
// Varlen and KV-cache calls use the same struct with the SeqLayout fields set (flash-attn's Flash_fwd_params
// does the same with cu_seqlens_q/k, seqused_k, cache_batch_idx, block_table).
#pragma once

#include <stdint.h>

namespace rf {

enum class DType : int32_t { kFp16 = 0, kBf16 = 1, kFp32 = 2 };

// Per-sequence layout shared by the forward and backward params (hip_src/fmha_seq.h reads it). Every pointer
// nullptr (and page_block_size 0) is the dense layout; batch, seqlen_q and seqlen_k of the params are then the
// tensor shapes. Otherwise seqlen_q / seqlen_k are the maxima over the sequences (they size the grid).
//   varlen Q:     cu_seqlens_q (batch + 1) int32; Q/O/dO/dQ rows of sequence b are [cu[b], cu[b+1]) of a
//                 (total_q, heads, headdim) tensor, whose *_batch_stride the host sets to 0
//   varlen K/V:   cu_seqlens_k likewise for K, V, dK, dV
//   dense cache:  seqused_k (batch): keys of sequence b; cache_batch_idx (batch): its K/V batch row (nullptr: b)
//   paged cache:  block_table (batch, max_blocks_per_seq) int32, page_block_size > 0: key j of sequence b is
//                 row j % page_block_size of block block_table[b][j / page_block_size]; k/v_batch_stride are
//                 the strides between blocks. Keys >= seqlen_k of a sequence are never read.
//   LSE (and the backward's delta): element (b, head, i) at b*lse_batch_stride + head*lse_head_stride + q_row0 + i
//                 with q_row0 = cu_seqlens_q[b] (varlen) or 0: (batch, nheads, seqlen_q) dense, (nheads, total_q)
//                 varlen, flash-attn's two layouts.
struct SeqLayout {
  const int32_t* cu_seqlens_q;
  const int32_t* cu_seqlens_k;
  const int32_t* seqused_k;
  const int32_t* cache_batch_idx;
  const int32_t* block_table;
  int64_t block_table_batch_stride;
  int32_t page_block_size;  // 0: not paged
  int32_t total_q;          // rows of Q over all sequences (batch * seqlen_q when dense)
  int64_t lse_batch_stride, lse_head_stride;
};

// The first kernel of a KV-cache decode step (hip_src/fmha_kvstep.h): the index checks on the device and the
// append of the new keys / values. The attention params of the same step give the cache (k, v and their strides,
// cache_batch_idx, block_table, page_block_size, batch, nheads_k, headdim, dtype).
struct KvStepParams {
  const int32_t* cache_seqlens;     // (batch,) keys already in the cache per sequence, or nullptr: seqlen_cache each
  int32_t seqlen_cache;             // every sequence's keys when cache_seqlens is nullptr
  int32_t seqlen_new;               // new keys per sequence, appended at position cache_seqlens[b] (0: none)
  int32_t capacity;                 // keys a sequence can hold: seqlen_cache of the cache, or pages * page size
  int32_t num_rows;                 // k_cache.shape[0]: batch rows of a dense cache, blocks of a paged one
  int32_t* seqused_k;               // (batch,) written: keys of sequence b after the append; -1 = bad index
  int32_t* error_flag;              // nullptr or one int32 set to 1 when a sequence is bad (never reset here)
  int32_t assert_on_error;          // 1: device-side assert on a bad sequence (ROCFLASH_INDEX_CHECKS=device)
  const void* k_new;                // (batch, seqlen_new, nheads_k, headdim) of the params' dtype, or nullptr
  const void* v_new;
  int64_t kn_batch_stride, kn_row_stride, kn_head_stride;  // strides of k_new, v_new in elements
  int64_t vn_batch_stride, vn_row_stride, vn_head_stride;
  // 1 (the host's request, rocflash/kvcache_fast.py FOLD_STEP): the split-KV kernel does this step itself where
  // its instance can (fmha_kvcache_step: the tensor-core kernel, AMD's vector kernel up to headdim 128): no step
  // kernel, seqused_k not written (see FmhaFwdParams::step). 0, or another instance: the step kernel runs first.
  int32_t fold;
};

struct FmhaFwdParams {
  const void* q;  // (batch, seqlen_q, nheads,   headdim)  dtype
  const void* k;  // (batch, seqlen_k, nheads_k, headdim)  dtype
  const void* v;  // (batch, seqlen_k, nheads_k, headdim)  dtype
  void* o;        // (batch, seqlen_q, nheads,   headdim)  dtype, written once
  float* lse;     // float32, natural log, written once: (batch, nheads, seqlen_q), varlen (nheads, total_q)
  // nullptr, or float32 (..., 2) in the LSE's layout (SeqLayout) written once: per row the final row max m of
  // the log2-domain scores (the tensor-core plain-score kernels: the running max of their conditional rescaling,
  // at most 8 below the row max) and 1/l, so that the backward rebuilds P = exp2(S2 - m) * (1/l) exactly as the
  // forward weighted V (P <= 1 for any softmax_scale; an LSE rounded to float32 cannot give that). The split-KV
  // kernel does not write it (compiled.forward runs the forward kernel when the stats are asked for).
  float* softmax_stats;
  // nullptr, or float32 with O's logical shape and O's strides (in elements), written once for 16-bit inputs
  // when a gradient will be asked for: O before its rounding to fp16 / bf16. The backward's preprocess
  // computes D = rowsum(dO * O) from it (from the rounded O, dQ and dK would carry |softmax_scale| * eps(O)
  // * |dO| |V| |K|). Never set for fp32 inputs (O is the fp32 copy itself), nor for the split-KV kernel.
  float* o_fp32;

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

  SeqLayout seq;  // varlen / KV-cache layout (all zero: dense)

  // Split-KV (flash-decoding, hip_src/fmha_splitkv_kernel.h). num_splits 1: the split kernel writes O and LSE
  // itself; > 1: split s writes its normalised partial O and its statistics to o_accum / lse_accum, then the
  // combine kernel merges them into O and LSE.
  int32_t num_splits;
  float* o_accum;    // (num_splits, nheads, total_q, headdim bucket) fp32
  // (num_splits, nheads, total_q, kSplitStats = 3) fp32: m_s (the split's max score, log2 units; -inf: the split
  // saw no key), l_s (its row sum) and the row's ALiBi constant (fmha_common.h; eco14, was one LSE_s per split)
  float* lse_accum;
  // Unused since dec9 (the tensor-core split kernel's L2 prefetch hint is its constant kL2Prefetch = 128 bytes;
  // ROCFLASH_SPLITKV_L2_PREFETCH was removed); kept so the struct's layout (the gfx906 kernarg) does not move.
  int32_t kv_prefetch_l2;
  // Fused combine of the tensor-core split kernel (fmha_splitkv_mma.h): nullptr = the combine kernel merges the
  // partials; else int32 (batch, nheads_k, row chunks) arrival counters, all 0 at launch and 0 again after it
  // (the last block of each slot merges and resets); the launcher then skips the combine kernel.
  int32_t* split_counters;
  // 1: programmatic dependent launch (rf_vendor.h rfLaunch; CUDA sm_90+ only, set from ROCFLASH_SPLITKV_PDL, on by
  // default since dec9, by rocflash/backends/splitkv_env.py): the tensor-core split kernel is launched as a dependent
  // of the kernel before it (the KV-cache step kernel, or the caller's) and the combine kernel as a dependent of the
  // split kernel; both wait for their predecessor (rf_wait_prior_grid, their first statement before any memory
  // access) so results are identical. 0: plain launches.
  int32_t pdl;
  // K/V tiles each warp of the tensor-core split kernel keeps in flight while it computes one (fmha_splitkv_mma.h
  // kSplitKvCopy*; set by rocflash/backends/splitkv_env.py splitkv_copy_mode, results identical for every value;
  // other kernels ignore it): 3 one (the default since dec9), 0 two (ROCFLASH_SPLITKV_INFLIGHT=2), 5 one with the lazy
  // O rescale (ROCFLASH_SPLITKV_LAZY_RESCALE=1), 6 / 7 one / two with the plain-decode loop (ROCFLASH_SPLITKV_PLAIN=1;
  // aligned path only, else 3 / 0). (1, 2 and 4, dec7 and dec8's K-first, bulk-copy and lockstep kernels, were removed.)
  int32_t kv_k_first;
  // The KV-cache step folded into the split-KV kernels (step.fold = 1; fmha_kvstep.h folded_kv_step):
  // every block of sequence b checks b's cache_seqlens / cache_batch_idx and the block-table entries of its own
  // split's pages, and appends the new keys / values of its split's key range and kv-head before it reads them.
  // All zero: no step (every other kernel ignores it).
  KvStepParams step;

  // Scalar-broadcast forward (gfx906, hip_src/fmha_fwd_sbcast.h), written by fmha_fwd_vpairs_kernel before the
  // forward reads them: K (batch, nheads_k, ceil(seqlen_k / Bc) * Bc, headdim) and V in key pairs (batch, nheads_k,
  // ceil(seqlen_k / Bc) * Bc / 2, headdim, 2), fp16, contiguous, zero past seqlen_k.
  void* k_padded;
  void* v_pairs;
};


// The index checks of flash_attn_varlen_func on the compiled backends (hip_src/fmha_varlen_check.h): one launch
// before the attention kernels instead of the host's reads of cu_seqlens (a sync each) or a chain of small torch
// ops (rocflash/varlen.py). Read-only but for error_flag.
struct VarlenCheckParams {
  const int32_t* cu_seqlens_q;      // (batch + 1,)
  const int32_t* cu_seqlens_k;      // (batch + 1,)
  int32_t batch;
  int32_t total_q;                  // cu_seqlens_q[batch] must equal it
  int32_t total_k;                  // cu_seqlens_k[batch] must equal it; -1: anywhere (paged K/V)
  int32_t max_seqlen_q;             // each sequence has at most this many query rows (the grid covers them)
  int32_t max_seqlen_k;             // ... keys (with block_table: also at most max_blocks_per_seq * page_block_size)
  const int32_t* block_table;       // (batch, max_blocks_per_seq) or nullptr
  int64_t block_table_batch_stride;
  int32_t max_blocks_per_seq;
  int32_t page_block_size;
  int32_t num_blocks;               // entries of the pages holding a sequence's keys index blocks in [0, num_blocks)
  int32_t* error_flag;              // nullptr or one int32 set to 1 on a violation (never reset here)
  int32_t assert_on_error;          // 1: device-side assert on a violation (stops the stream)
};

}  // namespace rf
