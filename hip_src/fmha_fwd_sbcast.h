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
// Scalar loads and their s_waitcnt are one asm statement each (see sload64); the probabilities of the next key pair
// are computed inside the V loads' statements, under their latency (sload64_exp).
//
// Scope (rocflash/emu/driver_sbcast.py checks it; nothing dispatches this kernel yet): gfx906 (HIP) only, fp16,
// headdim == 128 (K rows are read whole by the scalar loads: no zero padding), rows on 16-byte boundaries, dense
// layout, plain scores (no softcap, no ALiBi, softmax_scale > 0), no causal/window mask: the only masked keys are
// those past seqlen_k, whose K/V copies are zero (P = +0 times V = 0). A causal/window mask would put masked
// in-range keys into P.V as +0 * V, exact only for finite V; their exact treatment (per-key selects on boundary
// tiles) did not fit the registers in a first attempt.
#pragma once

#include "fmha_common.h"
#include "fmha_fwd_launch.h"
#include "fmha_mask.h"
#include "fmha_seq.h"

#if defined(RF_PLATFORM_HIP)

namespace rf {

typedef uint32_t SWords16 __attribute__((ext_vector_type(16)));

// s_load_dwordx16 (Vega ISA 12.6, SMEM): 16 dwords at addr + kOff into SGPRs. Issued through inline asm so that
// the load is scalar whatever the compiler's uniformity analysis concludes (addr must be wave-uniform: it is
// passed in SGPRs, "s"); sload_wait makes the consumers wait for every outstanding scalar load (lgkmcnt(0):
// scalar loads may return out of order, Vega ISA 4.4).
template <int kOff>
RF_DEVICE SWords16 sload16(const char* addr) {
  SWords16 r;
  asm volatile("s_load_dwordx16 %0, %1, %2" : "=s"(r) : "s"(addr), "i"(kOff));
  return r;
}
// The pointer as a new value the optimiser cannot see through: per-key row addresses are then one 64-bit add
// each, not 16 loop invariants held in SGPRs across the loop.
// (v_readfirstlane of a value already in SGPRs folds to a copy.)
RF_DEVICE const char* opaque_sgpr(const char* x) {
  const uint64_t u = reinterpret_cast<uint64_t>(x);
  const uint64_t lo = __builtin_amdgcn_readfirstlane(uint32_t(u)), hi = __builtin_amdgcn_readfirstlane(uint32_t(u >> 32));
  return reinterpret_cast<const char*>(lo | (hi << 32));
}
// Four scalar loads of 16 dwords (64 SGPRs) at addr + kOff + 64 * i and the wait for them, in ONE asm statement:
// the data are in the output registers when the statement ends. (Loads in one statement and the wait in a later
// one were tried for software prefetch: the compiler then copied the destination registers between the two, i.e.
// read them while the loads were in flight. The emulator cannot show that, since its loads complete at once;
// scalar_load_hazards in rocflash.emu.cycles_sbcast checks the assembly for it.) lgkmcnt(0): scalar loads may
// return out of order (Vega ISA 4.4).
template <int kOff>
RF_DEVICE void sload64(SWords16 (&r)[4], const char* addr) {
  asm volatile(
      "s_load_dwordx16 %0, %4, %5\n\ts_load_dwordx16 %1, %4, %6\n\ts_load_dwordx16 %2, %4, %7\n\t"
      "s_load_dwordx16 %3, %4, %8\n\ts_waitcnt lgkmcnt(0)"
      : "=&s"(r[0]), "=&s"(r[1]), "=&s"(r[2]), "=&s"(r[3])
      : "s"(addr), "i"(kOff), "i"(kOff + 64), "i"(kOff + 128), "i"(kOff + 192));
}
// sload64 that also turns one raw score x into its probability exp2(fma(x, scale, nbase)) while the loads are in
// flight (the same two instructions, v_fma_f32 and v_exp_f32, as rf_exp2(rf_fma(...)): the same bits): the wave
// has independent work to issue under the scalar-load latency.
template <int kOff>
RF_DEVICE void sload64_exp(SWords16 (&r)[4], const char* addr, float& x, float scale, float nbase) {
  asm volatile(
      "s_load_dwordx16 %0, %5, %6\n\ts_load_dwordx16 %1, %5, %7\n\ts_load_dwordx16 %2, %5, %8\n\t"
      "s_load_dwordx16 %3, %5, %9\n\tv_fma_f32 %4, %4, %10, %11\n\tv_exp_f32 %4, %4\n\ts_waitcnt lgkmcnt(0)"
      : "=&s"(r[0]), "=&s"(r[1]), "=&s"(r[2]), "=&s"(r[3]), "+v"(x)
      : "s"(addr), "i"(kOff), "i"(kOff + 64), "i"(kOff + 128), "i"(kOff + 192), "v"(scale), "v"(nbase));
}
RF_DEVICE uint32_t wave_uniform(uint32_t x) { return __builtin_amdgcn_readfirstlane(x); }
RF_DEVICE float dot2_words(uint32_t a, uint32_t b, float acc) {
  return __builtin_amdgcn_fdot2(__builtin_bit_cast(rf_half2_t, a), __builtin_bit_cast(rf_half2_t, b), acc, false);
}

// Shape of a scalar-broadcast instance: threads / wave rows per block, Bc keys per softmax tile.
struct SbcastShape {
  int headdim, block_m, block_n, threads;
  RF_HDC int words() const { return headdim / 2; }  // packed fp16 pairs per Q/K row
  RF_HDC bool valid() const {
    return headdim == 128 && block_m == threads && block_n % 2 == 0 && block_n >= 2;
  }
};

template <class Tile>
struct FmhaFwdSbcast {
  static constexpr SbcastShape T{Tile::kShape.headdim, Tile::kShape.block_m, Tile::kShape.block_n, Tile::kShape.threads};
  static constexpr int W = T.words();         // 64 words of Q / K per row
  static constexpr int D = T.headdim;         // 128 O columns per lane
  static constexpr int BC = T.block_n;        // keys per softmax tile
  static_assert(T.valid(), "scalar-broadcast tile: headdim 128, one row per thread, even Bc");

  // S of this lane's query row and key C of the tile whose K rows start at ktile: 64 dot2 with K's 64 words
  // (one sload64) as the SGPR operand. Every address is the tile's base plus an immediate offset: no address
  // arithmetic per key.
  static_assert(W == 64, "one sload64 per K row");
  template <int C>
  RF_DEVICE static void score_tile(const uint32_t (&q)[W], const char* ktile, float (&s)[BC]) {
    float acc = 0.f;
    SWords16 k[4];
    sload64<C * 2 * D>(k, ktile);
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int w = 0; w < 16; ++w) acc = dot2_words(q[c * 16 + w], k[c][w], acc);
    s[C] = acc;
    if constexpr (C + 1 < BC) score_tile<C + 1>(q, ktile, s);
  }

  // O += P.V over key pair C / 2 of the tile whose Vp rows start at vtile (one Vp row: 2 * headdim halves = 128
  // words, 512 bytes, two sload64). On entry s[C], s[C + 1] are probabilities and s[C + 2 ...] raw scores: the two
  // loads of this pair turn s[C + 2] and s[C + 3] into probabilities under their latency (sload64_exp); row_sum
  // gathers them.
  template <int C>
  RF_DEVICE static void pv_tile(float (&o)[D], float (&s)[BC], const char* vtile, float scale, float nbase,
                                float& row_sum) {
    const uint32_t pk = float_to_fp16(s[C]) | (float_to_fp16(s[C + 1]) << 16);  // (P_j, P_j+1), round to nearest
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      SWords16 v[4];
      if constexpr (C + 2 < BC) {
        if (half == 0) sload64_exp<C / 2 * 4 * D>(v, vtile, s[C + 2], scale, nbase);
        else sload64_exp<C / 2 * 4 * D + 256>(v, vtile, s[C + 3], scale, nbase);
      } else {
        if (half == 0) sload64<C / 2 * 4 * D>(v, vtile);
        else sload64<C / 2 * 4 * D + 256>(v, vtile);
      }
#pragma unroll
      for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int w = 0; w < 16; ++w) o[half * 64 + c * 16 + w] = dot2_words(pk, v[c][w], o[half * 64 + c * 16 + w]);
    }
    if constexpr (C + 2 < BC) {
      row_sum += s[C + 2];
      row_sum += s[C + 3];
      pv_tile<C + 2>(o, s, vtile, scale, nbase, row_sum);
    }
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
      const char* qrow = q.base + int64_t(r) * q.row_stride_bytes;  // headdim == 128: whole rows, no padding
#pragma unroll
      for (int d = 0; d < W / 4; ++d) {
        const uint4 x = reinterpret_cast<const uint4*>(qrow)[d];
        qw[4 * d] = x.x; qw[4 * d + 1] = x.y; qw[4 * d + 2] = x.z; qw[4 * d + 3] = x.w;
      }
    }
    float o[D], m = neg_inf(), l = 0.f;
#pragma unroll
    for (int x = 0; x < D; ++x) o[x] = 0.f;

    int tile_begin, tile_end;
    key_tile_range(rule, m0, m_end, BC, &tile_begin, &tile_end);
    for (int t = tile_begin; t < tile_end; ++t) {
      const int n0 = t * BC;
      float s[BC];
      score_tile<0>(qw, opaque_sgpr(kp + int64_t(n0) * (2 * D)), s);  // keys past seqlen_k: zero rows (masked below)
      if (n0 + BC > seq.seqlen_k) {  // the last tile only (uniform): keys past seqlen_k (the one mask here)
#pragma unroll
        for (int c = 0; c < BC; ++c)
          if (n0 + c >= seq.seqlen_k) s[c] = neg_inf();
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
      // keys past seqlen_k: P = +0, Vp rows zero
      pv_tile<0>(o, s, opaque_sgpr(vp + int64_t(n0 / 2) * (4 * D)), scale, -base, row_sum);
      l = l * alpha + row_sum;
    }

    if (row >= seq.seqlen_q) return;
    const float inv_l = l == 0.f ? 0.f : rf_rcp(l);  // l == 0: no visible key, O = 0 and LSE = -inf
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
    p.lse[idx] = l == 0.f ? neg_inf() : (m + rf_log2(l)) * kLn2;
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
template <int kBlockN>
__global__ void __launch_bounds__(256) fmha_fwd_vpairs_kernel(const FmhaFwdParams p) {
  constexpr int D = 128, kVecs = D / 8;
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
  const int64_t pairs = (int64_t(p.seqlen_k) + T.block_n - 1) / T.block_n * T.block_n / 2;
  const int64_t prep_blocks = (int64_t(p.batch) * p.nheads_k * pairs * (T.headdim / 8) + 255) / 256;
  rfError_t err = launch_grid_stride(fmha_fwd_vpairs_kernel<T.block_n>, p, prep_blocks, 256, 0, stream);
  if (err != rfSuccess) return err;
  const int64_t num_m_blocks = (int64_t(p.seqlen_q) + T.block_m - 1) / T.block_m;
  return launch_grid_stride(fmha_fwd_sbcast_kernel<Tile>, p, num_m_blocks * p.nheads * p.batch, T.threads, 0, stream);
}

}  // namespace rf

#endif  // RF_PLATFORM_HIP
