// fmha_fwd_sbcast.h - gfx906 forward with scalar-broadcast K/V (issue 10 item 5): no LDS in the main loop.
//
// One lane owns one query row: Q (headdim/2 packed fp16 pairs) and the O accumulator (headdim fp32) live in
// VGPRs. All 64 lanes of a wave walk the SAME key at the same time, so K[j] and V[j] are wave-uniform: they
// come from the scalar data cache into SGPRs (s_load_dwordx16) and feed v_dot2_f32_f16 as its SGPR operand:
//   S:   s_j  = sum_w dot2(Q[row][w], K[j][w])                     headdim/2 dot2 per key
//   P.V: O[d] = dot2((P_j, P_j+1), (V[j][d], V[j+1][d])) + O[d]    headdim/2 dot2 per key
// The P.V operand needs V in key pairs: Vp[jp][d] = (V[2jp][d], V[2jp+1][d]), written once per call by
// fmha_fwd_vpairs_kernel (below) into p.v_pairs, (batch, nheads_k, ceil(seqlen_k / Bc) * Bc / 2, headdim, 2), with a
// K copy in p.k_padded; both zero past seqlen_k, so the last tile reads no row out of bounds.
// Online softmax (FlashAttention-2, Dao 2023, Algorithm 1) per tile of Bc keys, all in the lane: no cross-lane
// reduction at all. Waves are independent (own rows, own key-tile range, no barrier, no LDS).
// K/V move in groups of 32 dwords (fmha_sbcast_data.h): each step computes 32 dot2 on one group while the next is
// loading (loads, dot2 and the wait in one asm statement), so only a tile's first K group waits with nothing to do.
//
// Scope (rocflash/emu/driver_sbcast.py and the backends' selector check it): gfx9 (the design target; the CUDA
// build runs the same logic with plain loads, fmha_sbcast_data.h), fp16,
// headdim 64 or 128 exactly (K rows are read whole by the scalar loads: no zero padding of the head dimension),
// rows on 16-byte boundaries, dense layout (no varlen, no paged K/V), plain scores (no softcap, no ALiBi,
// softmax_scale > 0), no dropout. Masks: causal (bottom-right) and sliding windows (MaskRule, fmha_mask.h) and
// the seqlen_k boundary. Tiles that no valid row of a wave masks run without predicates; the others (uniform
// test per wave: unmasked_tile_range) set masked scores to -inf by a select and AND the masked keys' halves of
// the V pair to +0 before v_dot2, so a masked key contributes exactly 0 whatever its K or V holds. Keys past
// seqlen_k read the zero-padded copies and are masked the same way. bf16/fp32 are not served (gfx906 has
// v_dot2_f32_f16 only), nor headdims other than 64 and 128.
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_launch.h"
#include "fmha_mask.h"
#include "fmha_sbcast_data.h"
#include "fmha_seq.h"

namespace rf {

// The K/V data path (scalar loads on gfx9, plain loads in the CUDA build): fmha_sbcast_data.h.

// Shape of a scalar-broadcast instance: threads = rows per block (one row per lane), Bc keys per softmax tile.
struct SbcastShape {
  int headdim, block_m, block_n, threads;
  RF_HDC int words() const { return headdim / 2; }  // packed fp16 pairs per Q/K row
  RF_HDC bool valid() const {
    return (headdim == 64 || headdim == 128) && block_m == threads && block_n % 2 == 0 && block_n >= 2;
  }
};

// One key pair's (key C, key C + 1) visibility for this lane's row as an AND mask on a packed fp16 pair:
// low half kept iff key C is visible, high half iff key C + 1 is (tile columns lo..hi are visible).
RF_DEVICE uint32_t pair_keep_mask(int c, int lo, int hi) {
  return (c >= lo && c <= hi ? 0x0000ffffu : 0u) | (c + 1 >= lo && c + 1 <= hi ? 0xffff0000u : 0u);
}

template <class Tile>
struct FmhaFwdSbcast {
  static constexpr SbcastShape T{Tile::kShape.headdim, Tile::kShape.block_m, Tile::kShape.block_n, Tile::kShape.threads};
  static constexpr int W = T.words();         // 32 / 64 words of Q / K per row
  static constexpr int D = T.headdim;         // 64 / 128 O columns per lane
  // Keys per softmax tile. Both key loops unroll the whole tile (Bc * headdim / 2 v_dot2 for S and as many for P.V),
  // so their code grows with Bc * headdim: at 2048 (d128 Bc 16, d64 Bc 32) the unmasked loop is ~19 KB and the masked
  // one ~24 KB of gfx906 code, within the 32 KB instruction cache that a cluster of CUs shares (GCN architecture
  // whitepaper); at 4096 they are ~37 / ~48 KB, which the waves would stream from L2 on every tile. (The cycle model
  // has no instruction cache: it ranks Bc 32 / 64 about 2 % ahead.)
  static constexpr int BC = T.block_n;
  static constexpr int kGroupsPerKey = D / 64;   // 32-word groups per K row (2 * D bytes): 2 (d128) or 1 (d64)
  static constexpr int kGroupsPerPair = D / 32;  // per Vp pair row (4 * D bytes): 4 (d128) or 2 (d64)
  static_assert(T.valid(), "scalar-broadcast tile: headdim 64 or 128, one row per thread, even Bc");

  // Group G of a tile of BC keys (fmha_sbcast_data.h): K groups 0 .. KG - 1 (kGroupsPerKey per K row), then the Vp
  // groups (kGroupsPerPair per key pair), each 128 * index bytes from its tile base; group 0 is loaded by the
  // caller, and every step below computes on the current group (cur) with the next one in flight.

  // S: raw scores of this lane's query row and the BC keys of the tile, W dot2 per key on the K rows as the SGPR
  // operand. The last K step loads the tile's first Vp group.
  template <int G>
  RF_DEVICE static void score_groups(const uint32_t (&q)[W], const char* ktile, const char* vtile, float (&s)[BC],
                                     SWords16 (&cur)[2], float acc) {
    constexpr int KG = BC * kGroupsPerKey, key = G / kGroupsPerKey, g = G % kGroupsPerKey;
    const char* next = G + 1 < KG ? ktile : vtile;
    constexpr int kNextOff = G + 1 < KG ? 128 * (G + 1) : 0;
    SWords16 nxt[2];
    if constexpr (g == 0) qk_step_first<kNextOff>(nxt, next, cur, q, acc);
    else qk_step<kNextOff>(nxt, next, cur, q + 32 * g, acc);
    cur[0] = nxt[0];
    cur[1] = nxt[1];
    if constexpr (g + 1 == kGroupsPerKey) s[key] = acc;
    if constexpr (G + 1 < KG) score_groups<G + 1>(q, ktile, vtile, s, cur, acc);
  }

  // O += P.V over Vp group G of the tile: key pair C = 2 * (G / kGroupsPerPair), O columns 32 * (G % kGroupsPerPair)
  // .. + 31. On entry to a pair s[C], s[C + 1] are probabilities and s[C + 2 ...] raw scores; the pair's first
  // group turns s[C + 2], s[C + 3] into probabilities (row_sum gathers them). kMasked (tiles where some (row, key)
  // pair is masked): V's halves of the keys this lane's row does not see are ANDed to +0 first, so a masked key
  // contributes +0 * +0 = exactly 0 whatever its V holds (NaN, inf); P is already +0 there (exp2(-inf)). Visible
  // keys' V passes unchanged. The tile's last group loads nothing (the next tile's K may lie past the workspace).
  template <int G, bool kMasked>
  RF_DEVICE static void pv_groups(float (&o)[D], float (&s)[BC], const char* vtile, SWords16 (&cur)[2], float scale,
                                  float nbase, float& row_sum, uint32_t pk, uint32_t keep, int lo, int hi) {
    constexpr int VG = BC / 2 * kGroupsPerPair, C = 2 * (G / kGroupsPerPair), h = G % kGroupsPerPair;
    if constexpr (h == 0) {
      pk = float_to_fp16(s[C]) | (float_to_fp16(s[C + 1]) << 16);  // (P_j, P_j+1), round to nearest
      keep = kMasked ? pair_keep_mask(C, lo, hi) : 0xffffffffu;
    }
    float* oc = o + 32 * h;
    if constexpr (G + 1 < VG) {
      SWords16 nxt[2];
      if constexpr (kMasked) pv_step_masked<128 * (G + 1)>(nxt, vtile, cur, pk, keep, oc);
      else pv_step<128 * (G + 1)>(nxt, vtile, cur, pk, oc);
      cur[0] = nxt[0];
      cur[1] = nxt[1];
    } else {
#pragma unroll
      for (int i = 0; i < 32; ++i)
        oc[i] = kMasked ? dot2_masked(pk, cur[i / 16][i % 16], keep, oc[i]) : dot2_words(pk, cur[i / 16][i % 16], oc[i]);
    }
    if constexpr (h == 0 && C + 2 < BC) {
      s[C + 2] = rf_exp2(rf_fma(s[C + 2], scale, nbase));
      s[C + 3] = rf_exp2(rf_fma(s[C + 3], scale, nbase));
      row_sum += s[C + 2];
      row_sum += s[C + 3];
    }
    if constexpr (G + 1 < VG) pv_groups<G + 1, kMasked>(o, s, vtile, cur, scale, nbase, row_sum, pk, keep, lo, hi);
  }

  // One K/V tile (keys n0 .. n0 + BC - 1) of the online softmax. kMasked: scores of keys outside this lane's
  // visible columns [lo, hi] of the tile become -inf (a select: NaN/inf in a masked K row never reaches P), and
  // pv_tile drops their V (above). Keys past seqlen_k are always outside [lo, hi] (their K/V copies are zero).
  template <bool kMasked>
  RF_DEVICE static void tile(const uint32_t (&qw)[W], float (&o)[D], float& m, float& l, const char* kp,
                             const char* vp, int n0, float scale, int lo, int hi) {
    float s[BC];
    const char* ktile = opaque_sgpr(kp + int64_t(n0) * (2 * D));
    const char* vtile = opaque_sgpr(vp + int64_t(n0 / 2) * (4 * D));
    SWords16 cur[2];
    sload_group<0>(cur, ktile);
    score_groups<0>(qw, ktile, vtile, s, cur, 0.f);  // (acc: set by each key's first step)
    if constexpr (kMasked) {
#pragma unroll
      for (int c = 0; c < BC; ++c)
        if (c < lo || c > hi) s[c] = neg_inf();
    }
    float mx = neg_inf();
#pragma unroll
    for (int c = 0; c < BC; ++c) mx = rf_max(mx, s[c]);
    const float m_new = rf_max(m, mx * scale);  // -inf stays -inf: scale > 0
    const float base = m_new == neg_inf() ? 0.f : m_new;  // a row with no visible key yet keeps exp2 at 0
    const float alpha = rf_exp2(m - base);
    m = m_new;
    s[0] = rf_exp2(rf_fma(s[0], scale, -base));  // the first pair's probabilities; the others inside pv_tile
    s[1] = rf_exp2(rf_fma(s[1], scale, -base));
    float row_sum = s[0];
    row_sum += s[1];
#pragma unroll
    for (int x = 0; x < D; ++x) o[x] *= alpha;
    pv_groups<0, kMasked>(o, s, vtile, cur, scale, -base, row_sum, 0u, 0u, lo, hi);
    l = l * alpha + row_sum;
  }

  RF_DEVICE static void run(const FmhaFwdParams& p, int m_block, int head, int batch) {
    const int wave = int(wave_uniform(threadIdx.x)) / kWaveSize;
    const int lane = rf_thread_index(T.threads) % kWaveSize;  // opaque per block: lane addresses not hoisted
    const SeqInfo seq{p.seqlen_q, p.seqlen_k, 0, 0, batch};  // dense layout only (the launcher's rule)
    const int m0 = m_block * T.block_m + wave * kWaveSize;  // this wave's rows [m0, m0 + 64)
    if (m0 >= seq.seqlen_q) return;  // uniform per wave; no barrier follows
    const int m_end = min(m0 + kWaveSize, seq.seqlen_q);
    const int row = m0 + lane;
    // (integer division runs on the VALU: readfirstlane puts head_k, and the K/V pointers built from it, in SGPRs)
    const int head_k = int(wave_uniform(uint32_t(head / (p.nheads / p.nheads_k))));
    const auto q = q_side_rows<Fp16>(p.q, p.q_batch_stride, p.q_row_stride, p.q_head_stride, seq, batch, head, p.headdim);
    const int64_t keys = (int64_t(p.seqlen_k) + BC - 1) / BC * BC;  // padded keys per (batch, head_k)
    const int64_t kv_off = (int64_t(batch) * p.nheads_k + head_k) * keys * (2 * D);  // bytes, same for K and Vp
    const char* kp = opaque_sgpr(reinterpret_cast<const char*>(p.k_padded) + kv_off);
    const char* vp = opaque_sgpr(reinterpret_cast<const char*>(p.v_pairs) + kv_off);
    const MaskRule rule{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
    const float scale = p.softmax_scale * kLog2e;

    uint32_t qw[W];
    {
      const int r = min(row, seq.seqlen_q - 1);  // rows past seqlen_q compute a copy of the last row, never stored
      const char* qrow = q.base + int64_t(r) * q.row_stride_bytes;  // headdim == D: whole rows, no padding
#pragma unroll
      for (int d = 0; d < W / 4; ++d) {
        const uint4 x = reinterpret_cast<const uint4*>(qrow)[d];
        qw[4 * d] = x.x; qw[4 * d + 1] = x.y; qw[4 * d + 2] = x.z; qw[4 * d + 3] = x.w;
      }
    }
    float o[D], m = neg_inf(), l = 0.f;
#pragma unroll
    for (int x = 0; x < D; ++x) o[x] = 0.f;

    int tile_begin, tile_end, full_begin, full_end;
    key_tile_range(rule, m0, m_end, BC, &tile_begin, &tile_end);
    unmasked_tile_range(rule, m0, m_end, BC, &full_begin, &full_end);  // tiles no valid row of the wave masks
    // Two loops, each with one tile body (one branch per tile between the two bodies made the register allocator
    // spill): first the tiles no valid row of the wave masks, then the masked ones (those before and after them).
    // The online softmax is exact in any tile order.
    const int fb = min(max(full_begin, tile_begin), tile_end), fe = max(fb, min(full_end, tile_end));
    for (int t = fb; t < fe; ++t) tile<false>(qw, o, m, l, kp, vp, t * BC, scale, 0, BC - 1);
    const RowSpan span = RowSpan::make(rule, m0);  // this lane's row is m0 + lane
    const int before = fb - tile_begin, masked = before + (tile_end - fe);
    for (int i = 0; i < masked; ++i) {
      const int n0 = (i < before ? tile_begin + i : fe + (i - before)) * BC;
      const RowSpan::Tile cols = span.tile(n0);
      tile<true>(qw, o, m, l, kp, vp, n0, scale, cols.lo(lane), cols.hi(lane));
    }

    if (row >= seq.seqlen_q) return;
    // l == 0: no visible key, O = 0 and LSE = -inf; or every visible score overflowed to -inf: NaN (fmha_common.h)
    const bool sees_key = rule.sees_any_key(row);
    const float inv_l = l == 0.f ? empty_row_inv_l(sees_key) : rf_rcp(l);
    const auto out = q_side_rows<Fp16>(p.o, p.o_batch_stride, p.o_row_stride, p.o_head_stride, seq, batch, head, p.headdim);
    char* orow = const_cast<char*>(out.base) + int64_t(row) * out.row_stride_bytes;
#pragma unroll
    for (int d = 0; d < D / 8; ++d) {
      uint4 x;
      x.x = float_to_fp16(o[8 * d] * inv_l) | (float_to_fp16(o[8 * d + 1] * inv_l) << 16);
      x.y = float_to_fp16(o[8 * d + 2] * inv_l) | (float_to_fp16(o[8 * d + 3] * inv_l) << 16);
      x.z = float_to_fp16(o[8 * d + 4] * inv_l) | (float_to_fp16(o[8 * d + 5] * inv_l) << 16);
      x.w = float_to_fp16(o[8 * d + 6] * inv_l) | (float_to_fp16(o[8 * d + 7] * inv_l) << 16);
      *reinterpret_cast<uint4*>(orow + 16 * d) = x;
    }
    if (p.o_fp32) {  // O's strides in elements: byte offsets twice O's
      char* o32 = reinterpret_cast<char*>(p.o_fp32) + 2 * (orow - reinterpret_cast<const char*>(p.o));
#pragma unroll
      for (int d = 0; d < D / 4; ++d)
        *reinterpret_cast<float4*>(o32 + 16 * d) =
            make_float4(o[4 * d] * inv_l, o[4 * d + 1] * inv_l, o[4 * d + 2] * inv_l, o[4 * d + 3] * inv_l);
    }
    const int64_t idx = lse_index(p.seq, seq, batch, head, row);
    p.lse[idx] = l == 0.f ? empty_row_lse(sees_key) : (m + rf_log2(l)) * kLn2;
    if (p.softmax_stats) {
      p.softmax_stats[2 * idx] = m;
      p.softmax_stats[2 * idx + 1] = inv_l;
    }
  }
};

template <class Tile>
__global__ void RF_LAUNCH_BOUNDS(Tile::kShape.threads, 1) fmha_fwd_sbcast_kernel(const FmhaFwdParams p) {
  const int num_m_blocks = (p.seqlen_q + Tile::kShape.block_m - 1) / Tile::kShape.block_m;
  const int64_t total = int64_t(num_m_blocks) * p.nheads * p.batch;
  for (int64_t bid = blockIdx.x; bid < total; bid += gridDim.x) {
    const int m_block = num_m_blocks - 1 - int(bid % num_m_blocks);
    const int64_t bh = bid / num_m_blocks;
    FmhaFwdSbcast<Tile>::run(p, m_block, int(bh % p.nheads), int(bh / p.nheads));
  }
}

// Vp[b][hk][jp][d] = (V[2jp][d], V[2jp+1][d]) and the K copy (rows 2jp, 2jp + 1) for jp < ceil(seqlen_k / Bc) * Bc / 2,
// zero past seqlen_k: one thread per (b, hk, jp, 128-bit vector of a row), 256 threads per block, grid-stride. Dense
// layout, as the forward (rows_of: no varlen offsets, no block table).
template <int kHeaddim, int kBlockN>
__global__ void __launch_bounds__(256) fmha_fwd_vpairs_kernel(const FmhaFwdParams p) {
  constexpr int D = kHeaddim, kVecs = D / 8;
  const int64_t pairs = (int64_t(p.seqlen_k) + kBlockN - 1) / kBlockN * kBlockN / 2;
  const int64_t total = int64_t(p.batch) * p.nheads_k * pairs * kVecs;
  for (int64_t id = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; id < total; id += int64_t(gridDim.x) * blockDim.x) {
    const int d = int(id % kVecs);
    const int64_t jp = id / kVecs % pairs;
    const int64_t bh = id / kVecs / pairs;
    const int head_k = int(bh % p.nheads_k), b = int(bh / p.nheads_k);
    const auto v = rows_of<Fp16>(p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride, b, head_k, p.seqlen_k, D);
    const auto k = rows_of<Fp16>(p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride, b, head_k, p.seqlen_k, D);
    const uint4 k0 = k.template load_vec<true>(int(2 * jp), d), k1 = k.template load_vec<true>(int(2 * jp + 1), d);
    const Words<8> w = interleave_words<Fp16, 4>(to_words(v.template load_vec<true>(int(2 * jp), d)),
                                                 to_words(v.template load_vec<true>(int(2 * jp + 1), d)));
    const int64_t off = ((bh * pairs + jp) * D + 8 * d) * 4;  // bytes: Vp pair row jp, K rows 2jp and 2jp + 1
    char* dst = reinterpret_cast<char*>(p.v_pairs) + off;
    *reinterpret_cast<uint4*>(dst) = make_uint4(w.w[0], w.w[1], w.w[2], w.w[3]);
    *reinterpret_cast<uint4*>(dst + 16) = make_uint4(w.w[4], w.w[5], w.w[6], w.w[7]);
    char* kdst = reinterpret_cast<char*>(p.k_padded) + ((bh * pairs + jp) * 2 * D + 8 * d) * 2;
    *reinterpret_cast<uint4*>(kdst) = k0;
    *reinterpret_cast<uint4*>(kdst + 2 * D) = k1;
  }
}

// The two launches of one call: V into key pairs (p.v_pairs, sized by the caller: sbcast_v_pairs_bytes), then the
// forward. Both grid-stride.
template <class Tile>
RF_HOST_DEVICE int64_t sbcast_v_pairs_bytes(int batch, int nheads_k, int seqlen_k) {
  constexpr int BC = Tile::kShape.block_n;
  return int64_t(batch) * nheads_k * ((int64_t(seqlen_k) + BC - 1) / BC * BC) * Tile::kShape.headdim * 2;
}

template <class Tile>
rfError_t launch_fmha_fwd_sbcast(const FmhaFwdParams& p, rfStream_t stream) {
  constexpr auto T = Tile::kShape;
  // The variant's scope (the Python selector checks it first, with a message): anything else is refused here,
  // never run as something it is not.
  if (p.dtype != DType::kFp16 || p.headdim != T.headdim || !p.aligned || p.softcap != 0.f ||
      p.alibi_slopes != nullptr || !(p.softmax_scale > 0.f) || p.seq.cu_seqlens_q != nullptr ||
      p.seq.cu_seqlens_k != nullptr || p.seq.seqused_k != nullptr || p.seq.cache_batch_idx != nullptr ||
      p.seq.block_table != nullptr || p.k_padded == nullptr || p.v_pairs == nullptr)
    return kSbcastOutOfScope;
  const int64_t pairs = (int64_t(p.seqlen_k) + T.block_n - 1) / T.block_n * T.block_n / 2;
  const int64_t prep_blocks = (int64_t(p.batch) * p.nheads_k * pairs * (T.headdim / 8) + 255) / 256;
  rfError_t err = launch_grid_stride(fmha_fwd_vpairs_kernel<T.headdim, T.block_n>, p, prep_blocks, 256, 0, stream);
  if (err != rfSuccess) return err;
  const int64_t num_m_blocks = (int64_t(p.seqlen_q) + T.block_m - 1) / T.block_m;
  return launch_grid_stride(fmha_fwd_sbcast_kernel<Tile>, p, num_m_blocks * p.nheads * p.batch, T.threads,
                            kSbcastLdsBytes, stream);
}

}  // namespace rf

