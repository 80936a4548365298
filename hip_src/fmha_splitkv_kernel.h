// fmha_splitkv_kernel.h - split-KV decode (flash-decoding: Dao, Haziza, Massa, Sizov 2023) and the combine
// kernel that merges the splits by their LSEs. Thread mapping and LDS: fmha_splitkv_tile.h.
//
// Decode is memory-bound: the kernel's job is to stream K and V once per GQA group at full bandwidth. One
// block owns (row chunk, split, kv-head, batch) and
//   1. keeps its block_m query rows (query heads of the group x query positions) in registers, each lane the
//      same 128-bit column vectors it will read from K and V;
//   2. per iteration, every key group issues the 128-bit loads of the next iteration's keys_per_group K rows
//      and V rows (software pipelined: in flight while this iteration computes), reduces Q.K over its lanes, and updates its own online softmax (log2 domain, as the
//      forward kernel: m' = max(m, s), O = O*exp2(m - m') + exp2(s - m')*V, l likewise);
//   3. merges the key groups' (m, l, O) through LDS (a tree), then writes O/l and LSE: straight to the output
//      when there is one split, else to the fp32 partial buffers that the combine kernel reads.
// Combine (per query row and head), from each split's max score m_s and row sum l_s (fmha_common.h kSplitStats):
// M = max_s m_s, L = sum_s exp2(m_s - M) l_s, LSE = (M + log2 L) ln 2 + the row's ALiBi shift,
// O = sum_s (exp2(m_s - M) l_s / L) O_s. A split that saw no key has m_s = -inf, l_s = 0, O_s = 0 and weighs nothing. The order of every sum is fixed, so
// results are bitwise identical across calls with the same num_splits.
//
// Split s covers keys [s*kps, (s+1)*kps) of every sequence, kps = roundup(ceil(max_seqlen_k / num_splits),
// block_n) (split_bounds in rocflash/splitkv.py, which the sim backend follows).
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_params.h"
#include "fmha_kvstep.h"
#include "fmha_mask.h"
#include "fmha_seq.h"
#include "fmha_splitkv_tile.h"

namespace rf {

// Elements e of a 128-bit vector as fp32.
template <class E>
RF_DEVICE float elem_to_float(const uint4& v, int e) {
  const uint32_t bits = get_elem<E>(v, e);
  if constexpr (E::kDType == DType::kFp16) return fp16_to_float(bits);
  else if constexpr (E::kDType == DType::kBf16) return bf16_to_float(bits);
  else return __uint_as_float(bits);
}

// The first key of split `split` and the keys per split (both multiples of block_n).
RF_HDC int split_keys(int max_seqlen_k, int num_splits, int block_n) {
  const int per = (max_seqlen_k + num_splits - 1) / num_splits;
  return (per + block_n - 1) / block_n * block_n;
}

// A split's row that ends with l == 0 although it sees a key (MaskRule::sees_any_key): every score it met here was
// -inf (fmha_common.h empty_row_inv_l). One split writes the output: O and LSE NaN. Several write the partial O_s 0
// and the statistics m_s = overflow_split_m(), l_s = 0, which the combine turns into NaN only when no split of the row
// has a finite score (splitkv_combined_lse). A split that holds none of the row's keys writes the marker too: it weighs 0 beside a
// finite split, and when no split is finite every key the row sees overflowed. Rows that see no key: 0 and -inf.
//
// Where the vector kernel decides it is the one register-dependent choice (measured with hipcc -S / ptxas -v,
// perf/RESULTS.md "eco11"): on AMD (gfx906 at 256 VGPRs) one bit per row in the store loop and a pass after the
// stores rewrite the rows (kPassAfterStores); on CUDA (168 registers under the 3-blocks-per-SM bound) that pass cost
// 4 B of spill in the fp32 kernels, so there the row max carries it: rows that see no key start from -FLT_MAX
// (initial_m) and stay there, a row that sees a key and met only -inf scores ends with m = -inf, and the store loop
// selects on that. Same values written either way.
struct SplitRowEnd {
#if defined(RF_PLATFORM_HIP)
  static constexpr bool kPassAfterStores = true;
#else
  static constexpr bool kPassAfterStores = false;
#endif
  RF_DEVICE static float initial_m(const MaskRule& rule, int row) {
    return kPassAfterStores || rule.sees_any_key(row) ? neg_inf() : -__uint_as_float(0x7f7fffffu);
  }
  RF_DEVICE static bool overflow(const SeqInfo& seq, const MaskRule& rule, int row, float l) {
    return !seq.bad && l == 0.f && rule.sees_any_key(row);
  }
  RF_DEVICE static float o_value(const FmhaFwdParams& p) { return p.num_splits == 1 ? quiet_nan() : 0.f; }
  // one split: the output's LSE (NaN); several: the partial's m_s (overflow_split_m, with l_s = 0)
  RF_DEVICE static float lse_value(const FmhaFwdParams& p) {
    return p.num_splits == 1 ? quiet_nan() : overflow_split_m();
  }
};

// The partial statistics of one (split, head, row) `part` (fmha_common.h kSplitStats): m_s, l_s and the row's ALiBi
// constant, kSplitStats consecutive floats (interleaved, not planes: a plane's 64-bit offset was one more uniform
// value, and the gfx906 bf16 d256 split kernel, at 256 VGPRs with its SGPRs spilling into VGPR lanes, spilled 12 B).
RF_DEVICE void store_split_stats(const FmhaFwdParams& p, int64_t part, float m, float l, float shift) {
  float* dst = p.lse_accum + part * kSplitStats;
  dst[0] = m;
  dst[1] = l;
  dst[2] = shift;
}

template <class E, class Tile, bool kAligned>
struct FmhaFwdSplitKvPipeline {
  static constexpr SplitKvShape T = Tile::kShape;
  static constexpr int R = T.block_m;
  static constexpr int VL = T.vecs_per_lane();
  // Keys per lane per iteration: the config's on the 128-bit path; half of it on the narrow path of the 4-row
  // tiles, whose element-wise loads need more registers (gfx906 spilled there at the aligned path's count; ISA
  // audit, 2026-11-30).
  static constexpr int U =
      kAligned || T.keys_per_group() == 1 || T.block_m < 4 ? T.keys_per_group() : T.keys_per_group() / 2;
  static constexpr int kKeysPerIter = U * T.key_groups();  // divides block_n, so splits stay aligned
  static constexpr int CE = T.vec_elems();
  static_assert(T.valid(), "invalid split-KV tile config (see SplitKvShape::valid)");
  static_assert(T.elem_bytes == E::kBytes, "tile config built for another element size");
  static_assert(T.threads % kWaveSize == 0, "a block must hold whole waves");
  static_assert(T.threads_n <= kWaveSize, "a key group must not straddle waves");

  // The 128-bit loads of one iteration: K and V rows of keys n0 + u*key_groups + key_group (u < U). Keys past
  // k_end (>= 1) re-read key k_end - 1, so nothing past the split or the sequence is touched and the loads need
  // no branch; the softmax gives those keys probability 0.
  RF_DEVICE static void load_keys(const GlobalRows<E>& k, const GlobalRows<E>& v, uint4 (&kv)[U][VL], uint4 (&vv)[U][VL],
                                  int n0, int k_end, int tid) {
    constexpr SplitKvShape T = Tile::kShape;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int j = min(T.key_of(tid, n0, u), k_end - 1);
      int64_t ko, vo;
      if (k.pages == nullptr) {
        ko = int64_t(j) * k.row_stride_bytes;
        vo = int64_t(j) * v.row_stride_bytes;
      } else {  // one block-table lookup serves K and V
        const int page = j / k.page_size;
        const int64_t block = k.pages[page];
        const int in_page = j - page * k.page_size;
        ko = block * k.page_stride_bytes + int64_t(in_page) * k.row_stride_bytes;
        vo = block * v.page_stride_bytes + int64_t(in_page) * v.row_stride_bytes;
      }
#pragma unroll
      for (int x = 0; x < VL; ++x) {
        kv[u][x] = k.template load_vec_at<kAligned>(k.base + ko, T.vec_of(tid, x));
        vv[u][x] = v.template load_vec_at<kAligned>(v.base + vo, T.vec_of(tid, x));
      }
    }
  }

  // One iteration's math on loaded K/V rows: scores, online softmax, O update.
  template <bool kMask>
  RF_DEVICE static void step(const uint4 (&kv)[U][VL], const uint4 (&vv)[U][VL], const uint4 (&q)[R][VL], float (&m)[R],
                             float (&l)[R], float (&o)[R][VL * CE], const ScoreTransform& score,
                             const float (&slope)[R], const int (&qi)[R], const MaskRule& rule, int n0, int k_end,
                             int tid) {
    constexpr SplitKvShape T = Tile::kShape;
    // ---- S = Q.K^T for the U keys: partial dot products, then a reduction over the key group's lanes
    float s[U][R];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if constexpr (E::kDType == DType::kFp32) {
          // float32 (eco14): each lane sums its exact products in fp64, scales its sum in fp64 and rounds it once
          // (ScoreTransform::fp64_multiplier), then the group's lanes add the scaled partials in float32
          // (from_fp64_sum takes the score on): a q.k past FLT_MAX keeps its finite score at a small softmax_scale,
          // as the dense forward (before: fp32 FMAs, -inf past FLT_MAX); with softcap the sum is the cap's
          // argument t, each partial times cap_scale (eco16). The tree stays float32: an fp64 tree
          // (two shuffles per step) took the gfx906 fp32 d128 vector kernel from 215 VGPRs to 256 + 36 B of scratch.
          double acc = 0.0;
#pragma unroll
          for (int x = 0; x < VL; ++x) {
            Words<4> a = to_words(q[r][x]);
            const Words<4> b = to_words(kv[u][x]);
#pragma unroll
            for (int w = 0; w < 4; ++w) {
#if defined(RF_PLATFORM_CUDA)
              // Q widened per use: hoisted out of the main loop, the R x VL x 4 fp64 copies of Q took the CUDA
              // fp32 d64 / d128 kernels to 40 B of spill at their 168-register cap (gfx906: no spill without it)
              asm volatile("" : "+r"(a.w[w]));
#endif
              acc = rf_fma_f64(double(__uint_as_float(a.w[w])), double(__uint_as_float(b.w[w])), acc);
            }
          }
          s[u][r] = group_sum<T.threads_n>(float(rf_mul_rn_f64(acc, score.fp64_multiplier())));
        } else {
          float acc = 0.f;
#pragma unroll
          for (int x = 0; x < VL; ++x) {
            const Words<4> a = to_words(q[r][x]), b = to_words(kv[u][x]);
#pragma unroll
            for (int w = 0; w < 4; ++w) acc = dot_word<E>(a.w[w], b.w[w], acc);
          }
          s[u][r] = group_sum<T.threads_n>(acc);
        }
      }
    // ---- online softmax (log2 domain) and O += P.V. A masked (row, key) contributes exactly nothing: its P is 0
    // and its V operand is selected to 0 (0 * NaN would be NaN: masked keys inside a sequence may hold garbage).
    bool visible[U][R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float row_max = neg_inf();
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int j = T.key_of(tid, n0, u);
        float x = E::kDType == DType::kFp32 ? score.from_fp64_sum(s[u][r], qi[r], j) : score(s[u][r], qi[r], j);
        // ALiBi from the row's anchor, as the dense kernels (ScoreTransform); the row constant goes to the LSE or the
        // partial statistics' shift (eco14: the full distance overflowed float32 on rows far from every key)
        if (slope[r] != 0.f) x -= slope[r] * kLog2e * rf_abs(float(score.query_anchor32(qi[r]) - j));
        visible[u][r] = !kMask || (j < k_end && rule.visible(qi[r], j));
        if (!visible[u][r]) x = neg_inf();
        s[u][r] = x;
        row_max = rf_max(row_max, x);
      }
      const float m_new = rf_max(m[r], row_max);
      const float base = m_new == neg_inf() ? 0.f : m_new;  // no visible key yet: exp2 stays 0, not NaN
      const float alpha = rf_exp2(m[r] - base);
      m[r] = m_new;
      float sum = 0.f;
#pragma unroll
      for (int c = 0; c < VL * CE; ++c) o[r][c] *= alpha;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const float pr = rf_exp2(s[u][r] - base);
        sum += pr;
#pragma unroll
        for (int x = 0; x < VL; ++x)
#pragma unroll
          for (int e = 0; e < CE; ++e) {
            const float ve = elem_to_float<E>(vv[u][x], e);
            o[r][x * CE + e] = rf_fma(pr, visible[u][r] ? ve : 0.f, o[r][x * CE + e]);
          }
      }
      l[r] = l[r] * alpha + sum;
    }
  }

  // folded_keys: the folded KV-cache step's answer for this block (p.step.fold; fmha_kvstep.h), else unused.
  RF_DEVICE static void run(const FmhaFwdParams& p, char* lds, int chunk, int split, int head_k, int batch,
                            int32_t folded_keys) {
    constexpr SplitKvShape T = Tile::kShape;
    const int tid = threadIdx.x;
    const int tx = T.lane_tx(tid), kg = T.key_group(tid);
    SeqInfo seq = SeqInfo::make(p, batch);
    if constexpr (vector_split_folds_step(T.headdim)) {
      if (p.step.fold) {
        seq.bad = folded_keys < 0;
        seq.seqlen_k = folded_keys < 0 ? 0 : folded_keys;
      }
    }
    const int group = p.nheads / p.nheads_k;
    const int rows_total = seq.seqlen_q * group;  // row rr: query position rr / group, head head_k*group + rr % group
    const int r0 = chunk * R;
    if (r0 >= rows_total) return;  // uniform
    const int r_end = min(r0 + R, rows_total);

    // ---- this block's rows: Q in registers, query position, ALiBi slope
    uint4 q[R][VL];
    int qi[R];
    float slope[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int rr = r0 + r < r_end ? r0 + r : r_end - 1;  // padding rows repeat the last row (never stored)
      const int head = head_k * group + rr % group;
      qi[r] = rr / group;
      slope[r] = p.alibi_slopes ? p.alibi_slopes[int64_t(batch) * p.alibi_batch_stride + head] : 0.f;
      const auto qrows = q_side_rows<E>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
#pragma unroll
      for (int x = 0; x < VL; ++x) q[r][x] = qrows.template load_vec<kAligned>(qi[r], T.vec_of(tid, x));
    }

    // ---- this split's keys, narrowed to what the block's query positions can see
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const int kps = split_keys(p.seqlen_k, p.num_splits, T.block_n);
    int64_t k_begin = int64_t(split) * kps, k_end = min(int64_t(k_begin) + kps, int64_t(seq.seqlen_k));
    const int i_first = r0 / group, i_last = (r_end - 1) / group;
    k_begin = k_begin > rule.first_key(i_first) ? k_begin : rule.first_key(i_first);
    k_end = k_end < rule.last_key(i_last) + 1 ? k_end : rule.last_key(i_last) + 1;
    k_begin = k_begin / T.block_n * T.block_n;  // iterations start on block_n boundaries

    const auto k = k_side_rows<E>(p, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, seq, batch, head_k);
    const auto v = k_side_rows<E>(p, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, seq, batch, head_k);
    // ALiBi is applied per row in step(); the shared transform carries scale, softcap and the diagonal.
    const ScoreTransform score = ScoreTransform::make(p.softmax_scale, p.softcap, 0.f, seq.seqlen_k - seq.seqlen_q, seq.seqlen_k);

    float m[R], l[R], o[R][VL * CE];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      m[r] = SplitRowEnd::initial_m(rule, qi[r]);  // -inf (CUDA: -FLT_MAX for a row that sees no key)
      l[r] = 0.f;
#pragma unroll
      for (int c = 0; c < VL * CE; ++c) o[r][c] = 0.f;
    }
    // Software pipeline: the next iteration's K/V loads are in flight while this iteration computes.
    if (k_begin < k_end) {  // uniform; k_end >= 1 inside
      uint4 kv[U][VL], vv[U][VL], kn[U][VL], vn[U][VL];
      load_keys(k, v, kv, vv, int(k_begin), int(k_end), tid);
      for (int n0 = int(k_begin); n0 < k_end; n0 += kKeysPerIter) {
        load_keys(k, v, kn, vn, n0 + kKeysPerIter, int(k_end), tid);  // the last one re-reads key k_end - 1
        // every key of the iteration inside the split and visible from every row: no per-key predicate
        if (n0 + kKeysPerIter <= k_end && !tile_needs_mask(rule, i_first, i_last + 1, n0, kKeysPerIter))
          step<false>(kv, vv, q, m, l, o, score, slope, qi, rule, n0, int(k_end), tid);
        else
          step<true>(kv, vv, q, m, l, o, score, slope, qi, rule, n0, int(k_end), tid);
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int x = 0; x < VL; ++x) {
            kv[u][x] = kn[u][x];
            vv[u][x] = vn[u][x];
          }
      }
    }

    // ---- merge the key groups' states (tree through LDS); key group 0 ends with the block's state
    for (int half = T.key_groups() / 2; half >= 1; half /= 2) {
      if (kg >= half && kg < 2 * half) {
        const int slot = kg - half;
#pragma unroll
        for (int r = 0; r < R; ++r) {
#pragma unroll
          for (int x = 0; x < VL; ++x)
#pragma unroll
            for (int e = 0; e < CE; ++e)
              *reinterpret_cast<float*>(lds + T.o_write(slot, r, T.vec_of(tid, x) * CE + e)) = o[r][x * CE + e];
          if (tx == 0) {
            *reinterpret_cast<float*>(lds + T.m_write(slot, r)) = m[r];
            *reinterpret_cast<float*>(lds + T.l_write(slot, r)) = l[r];
          }
        }
      }
      __syncthreads();
      if (kg < half) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const float m2 = *reinterpret_cast<const float*>(lds + T.m_write(kg, r));
          const float l2 = *reinterpret_cast<const float*>(lds + T.l_write(kg, r));
          const float m_new = rf_max(m[r], m2);
          const float base = m_new == neg_inf() ? 0.f : m_new;
          const float a1 = rf_exp2(m[r] - base), a2 = rf_exp2(m2 - base);
#pragma unroll
          for (int x = 0; x < VL; ++x)
#pragma unroll
            for (int e = 0; e < CE; ++e)
              o[r][x * CE + e] = o[r][x * CE + e] * a1 +
                                 *reinterpret_cast<const float*>(lds + T.o_write(kg, r, T.vec_of(tid, x) * CE + e)) * a2;
          l[r] = l[r] * a1 + l2 * a2;
          m[r] = m_new;
        }
      }
      __syncthreads();
    }
    if (kg != 0) return;

    // ---- epilogue: O / l and LSE, to the output (one split) or to the partial buffers
    static_assert(R <= 32, "overflow_rows: one bit per row");
    uint32_t overflow_rows = 0;  // bit r: SplitRowEnd::overflow of row r (rewritten by the pass after the stores)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (r0 + r >= r_end) continue;
      const int head = head_k * group + (r0 + r) % group;
      // l == 0: no visible key, O = 0 and LSE = -inf; a row that sees keys (SplitRowEnd): the pass below on AMD, here
      // on CUDA (m still -inf); a NaN l (NaN inputs) propagates; a bad index: NaN.
      const bool ovf = !SplitRowEnd::kPassAfterStores && !seq.bad && m[r] == neg_inf();
      if constexpr (SplitRowEnd::kPassAfterStores) overflow_rows |= uint32_t(SplitRowEnd::overflow(seq, rule, qi[r], l[r])) << r;
      const float inv_l = seq.bad ? quiet_nan() : ovf ? SplitRowEnd::o_value(p) : l[r] == 0.f ? 0.f : rf_rcp(l[r]);
      const float shift = score.query_row_shift(slope[r], qi[r]);  // ALiBi's row constant (0 without)
      if (p.num_splits == 1) {
        const float lse = seq.bad ? quiet_nan() : ovf ? SplitRowEnd::lse_value(p) : l[r] == 0.f ? neg_inf() : (m[r] + rf_log2(l[r])) * kLn2 + shift;
        const auto out = q_side_rows<E>(p.o, p.o_batch_stride, p.o_row_stride, p.o_head_stride, seq, batch, head, p.headdim);
        char* row = const_cast<char*>(out.base) + int64_t(qi[r]) * out.row_stride_bytes;
#pragma unroll
        for (int x = 0; x < VL; ++x)
#pragma unroll
          for (int e = 0; e < CE; ++e) {
            const int col = T.vec_of(tid, x) * CE + e;
            if (col < p.headdim) store_elem<E>(row + int64_t(col) * E::kBytes, o[r][x * CE + e] * inv_l);
          }
        if (tx == 0) p.lse[lse_index(p.seq, seq, batch, head, qi[r])] = lse;
      } else {
        const int64_t flat = (p.seq.cu_seqlens_q ? seq.q_row0 : int64_t(batch) * p.seqlen_q) + qi[r];
        const int64_t part = (int64_t(split) * p.nheads + head) * p.seq.total_q + flat;
        float* dst = p.o_accum + part * T.headdim;
#pragma unroll
        for (int x = 0; x < VL; ++x)
#pragma unroll
          for (int e = 0; e < CE; ++e) dst[T.vec_of(tid, x) * CE + e] = o[r][x * CE + e] * inv_l;
        // (m_s, l_s): -inf and 0 for a row without keys here (CUDA: its m may be initial_m's -FLT_MAX), the overflow
        // marker (overflow_split_m, 0) on CUDA here, on AMD by the pass below
        if (tx == 0)
          store_split_stats(p, part, seq.bad ? quiet_nan() : ovf ? SplitRowEnd::lse_value(p) : l[r] == 0.f ? neg_inf() : m[r],
                            seq.bad ? quiet_nan() : ovf ? 0.f : l[r], shift);
      }
    }
    // Rows that see a key but met only -inf scores (SplitRowEnd), rewritten after the stores above, when O's
    // registers are free: deciding it inside that loop (or carrying a per-row flag across the main loop) spilled
    // 12-60 B of the gfx906 kernels at 256 VGPRs. Uniform per row; taken only by such rows.
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (!((overflow_rows >> r) & 1u)) continue;
      const int head = head_k * group + (r0 + r) % group;
      if (p.num_splits == 1) {
        const auto out = q_side_rows<E>(p.o, p.o_batch_stride, p.o_row_stride, p.o_head_stride, seq, batch, head, p.headdim);
        char* row = const_cast<char*>(out.base) + int64_t(qi[r]) * out.row_stride_bytes;
#pragma unroll
        for (int x = 0; x < VL; ++x)
#pragma unroll
          for (int e = 0; e < CE; ++e) {
            const int col = T.vec_of(tid, x) * CE + e;
            if (col < p.headdim) store_elem<E>(row + int64_t(col) * E::kBytes, SplitRowEnd::o_value(p));
          }
        if (tx == 0) p.lse[lse_index(p.seq, seq, batch, head, qi[r])] = SplitRowEnd::lse_value(p);
      } else if (tx == 0) {  // O_s is 0 already, and l_s (m_s only: overflow_split_m)
        const int64_t flat = (p.seq.cu_seqlens_q ? seq.q_row0 : int64_t(batch) * p.seqlen_q) + qi[r];
        p.lse_accum[((int64_t(split) * p.nheads + head) * p.seq.total_q + flat) * kSplitStats] = SplitRowEnd::lse_value(p);
      }
    }
  }
};

// Resident blocks per SM asked of the CUDA build: decode streams K/V, so warps in flight matter more than
// registers (3 x 128 threads fit the bf16 d128 tile without spills on sm_90; ptxas -v, 2026-11-30).
inline constexpr int kSplitKvCudaBlocksPerSm = 3;
// float32 (eco14): 2, whose 255-register cap holds the fp64 lane sums of Q.K; under 3 blocks (168 registers) the fp32
// d64 / d128 vector kernels spilled 24-40 B (ptxas -v, sm_90; perf/RESULTS.md "eco14"). fp32 decode only.
template <class E>
inline constexpr int kSplitKvCudaBlocksPerSmOf = E::kDType == DType::kFp32 ? 2 : kSplitKvCudaBlocksPerSm;

// Blocks: row chunk fastest, then split, kv-head, batch (the chunks and splits of one kv-head run together);
// a grid-stride loop covers grids larger than the launch grid.
template <class E, class Tile, bool kAligned>
__global__ void RF_LAUNCH_BOUNDS_MIN_BLOCKS(Tile::kShape.threads, Tile::kWavesPerSimd, kSplitKvCudaBlocksPerSmOf<E>)
    fmha_fwd_splitkv_kernel(const FmhaFwdParams p) {
  extern __shared__ uint4 rf_lds[];
  const int group = p.nheads / p.nheads_k;
  const int chunks = (p.seqlen_q * group + Tile::kShape.block_m - 1) / Tile::kShape.block_m;
  const int64_t total = int64_t(chunks) * p.num_splits * p.nheads_k * p.batch;
  for (int64_t bid = blockIdx.x; bid < total; bid += gridDim.x) {
    const int chunk = int(bid % chunks);
    int64_t rest = bid / chunks;
    const int split = int(rest % p.num_splits);
    rest /= p.num_splits;
    const int head_k = int(rest % p.nheads_k), batch = int(rest / p.nheads_k);
    int32_t folded_keys = 0;
    // the KV-cache step of this block's split range, before run() (register budget: fmha_kvstep.h); the host asks
    // for it only where vector_split_folds_step says this instance does it (fmha_kvcache_step), and elsewhere the
    // code is not even compiled (the CUDA build's vector kernels keep their registers)
    if constexpr (vector_split_folds_step(Tile::kShape.headdim)) {
      if (p.step.fold) {  // uniform
        const int kps = split_keys(p.seqlen_k, p.num_splits, Tile::kShape.block_n);
        const int32_t row = p.seq.cache_batch_idx ? p.seq.cache_batch_idx[batch] : batch;
        folded_keys = kvstep_uniform(folded_kv_step<Tile::kShape.threads, E::kBytes>(
            p, batch, row, head_k, int64_t(split) * kps, int64_t(split + 1) * kps, *reinterpret_cast<int*>(rf_lds)));
      }
    }
    FmhaFwdSplitKvPipeline<E, Tile, kAligned>::run(p, reinterpret_cast<char*>(rf_lds), chunk, split, head_k, batch,
                                                   folded_keys);
    __syncthreads();  // the next block of the loop reuses LDS
  }
}

// Combine: one block per (query row, head) reads the num_splits partials in parallel: kLanes lanes per
// partial row (a 128-bit fp32 vector each), kThreads / kLanes partials at a time, then a fixed-order sum of the
// groups through LDS (bitwise repeatable). Batch-1 decode has few (row, head) pairs and many splits: reading
// the splits one after the other in one lane group made the combine latency-bound (run I2).
template <class E, int kThreads, int kHeaddim>
__global__ void __launch_bounds__(kThreads) fmha_fwd_splitkv_combine_kernel(const FmhaFwdParams p) {
  constexpr int kGroup = kWaveSize < 32 ? kWaveSize : 32;                 // lanes of one shuffle reduction
  constexpr int kLanes = kHeaddim / 4 < kGroup ? kHeaddim / 4 : kGroup;  // lanes per partial row
  constexpr int kVecs = kHeaddim / (4 * kLanes);                         // fp32 x4 vectors per lane
  constexpr int kPar = kThreads / kLanes;                                // partials read at a time
  constexpr int kGroups = kThreads / kGroup;
  constexpr int kPrefetch = 4;  // rounds of kPar partial rows loaded before the reductions (32 splits at d128)
  static_assert(kHeaddim % (4 * kLanes) == 0 && kThreads % kGroup == 0, "combine block shape");
  __shared__ float red[2][kGroups];
  __shared__ float4 sums[kPar][kHeaddim / 4];
  const int tid = threadIdx.x, lane = tid % kLanes, par = tid / kLanes;
  const int64_t total_q = p.seq.total_q;
  const int64_t pairs = total_q * p.nheads, split_stride = int64_t(p.nheads) * total_q;
  const bool varlen = p.seq.cu_seqlens_q != nullptr;
  rf_wait_prior_grid();  // launched as a dependent of the split kernel (p.pdl): its partials are complete past here
  for (int64_t id = blockIdx.x; id < pairs; id += gridDim.x) {  // (head, flat row), flat row fastest
    const int64_t flat = id % total_q;
    const int head = int(id / total_q);
    // the splits' statistics (kSplitStats floats each): m_s, l_s, the row shift; split s kSplitStats * split_stride on
    const int64_t stat_stride = kSplitStats * split_stride;
    const float* m_s = p.lse_accum + (int64_t(head) * total_q + flat) * kSplitStats;
    const float* l_s = m_s + 1;
    // The first kPrefetch rounds of the weighted sum below load their partial rows and statistics now, before the two
    // block reductions: one memory latency for the block instead of three in a row (the weights need the reductions,
    // the loads do not); the same sums in the same order (dec11).
    float4 pre[kPrefetch][kVecs];
    float m_pre[kPrefetch], l_pre[kPrefetch];
#pragma unroll
    for (int r = 0; r < kPrefetch; ++r) {
      const int s = par + r * kPar;
      const int64_t part = int64_t(s < p.num_splits ? s : 0) * split_stride + int64_t(head) * total_q + flat;
      const float4* src = reinterpret_cast<const float4*>(p.o_accum + part * kHeaddim);
#pragma unroll
      for (int c = 0; c < kVecs; ++c) pre[r][c] = s < p.num_splits ? src[c * kLanes + lane] : make_float4(0.f, 0.f, 0.f, 0.f);
      m_pre[r] = s < p.num_splits ? p.lse_accum[part * kSplitStats] : 0.f;
      l_pre[r] = s < p.num_splits ? p.lse_accum[part * kSplitStats + 1] : 0.f;
    }
    float mx = neg_inf();
    for (int s = tid; s < p.num_splits; s += kThreads) mx = rf_max(mx, m_s[s * stat_stride]);
    mx = group_max<kGroup>(mx);
    if (tid % kGroup == 0) red[0][tid / kGroup] = mx;
    __syncthreads();
    mx = red[0][0];
#pragma unroll
    for (int w = 1; w < kGroups; ++w) mx = rf_max(mx, red[0][w]);
    const float base = mx == neg_inf() ? 0.f : mx;
    float sum = 0.f;
    for (int s = tid; s < p.num_splits; s += kThreads) sum += rf_exp2(m_s[s * stat_stride] - base) * l_s[s * stat_stride];
    sum = group_sum<kGroup>(sum);
    if (tid % kGroup == 0) red[1][tid / kGroup] = sum;
    __syncthreads();
    sum = red[1][0];
#pragma unroll
    for (int w = 1; w < kGroups; ++w) sum += red[1][w];
    // sum == 0: every split empty (no visible key): O = 0, LSE = -inf; NaN when only splits whose visible scores all
    // overflowed remain (splitkv_combined_lse / _inv: then every weight, and O, is NaN)
    const float lse = splitkv_combined_lse(mx, base, sum, m_s[2]);
    const float inv = splitkv_combined_inv(mx, sum);
    float4 acc[kVecs];
#pragma unroll
    for (int c = 0; c < kVecs; ++c) acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int r = 0; r < kPrefetch; ++r) {
      if (par + r * kPar >= p.num_splits) break;
      const float w = rf_exp2(m_pre[r] - base) * l_pre[r] * inv;
#pragma unroll
      for (int c = 0; c < kVecs; ++c)
        acc[c] = make_float4(rf_fma(w, pre[r][c].x, acc[c].x), rf_fma(w, pre[r][c].y, acc[c].y),
                             rf_fma(w, pre[r][c].z, acc[c].z), rf_fma(w, pre[r][c].w, acc[c].w));
    }
#pragma unroll 4
    for (int s = par + kPrefetch * kPar; s < p.num_splits; s += kPar) {
      const int64_t part = int64_t(s) * split_stride + int64_t(head) * total_q + flat;
      const float w = rf_exp2(p.lse_accum[part * kSplitStats] - base) * p.lse_accum[part * kSplitStats + 1] * inv;
      const float4* src = reinterpret_cast<const float4*>(p.o_accum + part * kHeaddim);
#pragma unroll
      for (int c = 0; c < kVecs; ++c) {
        const float4 x = src[c * kLanes + lane];
        acc[c] = make_float4(rf_fma(w, x.x, acc[c].x), rf_fma(w, x.y, acc[c].y), rf_fma(w, x.z, acc[c].z),
                             rf_fma(w, x.w, acc[c].w));
      }
    }
#pragma unroll
    for (int c = 0; c < kVecs; ++c) sums[par][c * kLanes + lane] = acc[c];
    __syncthreads();
    const int64_t b = varlen ? 0 : flat / p.seqlen_q, i = varlen ? flat : flat % p.seqlen_q;
    char* row = reinterpret_cast<char*>(p.o) + (b * p.o_batch_stride + i * p.o_row_stride + int64_t(head) * p.o_head_stride) * E::kBytes;
    for (int c = tid; c < kHeaddim / 4; c += kThreads) {
      float4 r = sums[0][c];
#pragma unroll
      for (int q = 1; q < kPar; ++q) r = make_float4(r.x + sums[q][c].x, r.y + sums[q][c].y, r.z + sums[q][c].z, r.w + sums[q][c].w);
      const float e4[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (4 * c + e < p.headdim) store_elem<E>(row + int64_t(4 * c + e) * E::kBytes, e4[e]);
    }
    if (tid == 0) p.lse[b * p.seq.lse_batch_stride + int64_t(head) * p.seq.lse_head_stride + i] = lse;
    __syncthreads();  // red and sums are reused by the next pair
  }
}

}  // namespace rf
