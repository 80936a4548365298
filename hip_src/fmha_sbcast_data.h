// fmha_sbcast_data.h - the K/V data path of the scalar-broadcast forward (fmha_fwd_sbcast.h), per vendor.
//
// gfx9 (HIP): K/V rows through the scalar data cache into SGPRs (s_load_dwordx16, Vega ISA 12.6 SMEM), the SGPR
// operand of v_dot2_f32_f16. NVIDIA (the CUDA build runs the same kernel logic at warp 32, as for the vector
// kernels): plain loads of the same warp-uniform addresses where they are used and the portable fp16 pair product
// (dot_word<Fp16>); no scalar unit, so none of the asm below applies there.
//
// Unit of the data path: a GROUP of 32 dwords (128 bytes: 32 words of a K row, or 32 words of a Vp pair row), two
// s_load_dwordx16. The kernel walks a tile's groups in order (its K rows, then its Vp pair rows) and every step
// computes on one group while the next one is loading (qk_step, pv_step): software pipelining with two groups of
// SGPRs (64, as many as one K row at headdim 128).
#pragma once

#include "fmha_common.h"

namespace rf {

RF_DEVICE float dot2_words(uint32_t a, uint32_t b, float acc) { return dot_word<Fp16>(a, b, acc); }

#if defined(RF_PLATFORM_HIP)
typedef uint32_t SWords16 __attribute__((ext_vector_type(16)));

// The pointer as a new value the optimiser cannot see through: per-key row addresses are then one 64-bit add
// each, not 16 loop invariants held in SGPRs across the loop.
// (v_readfirstlane of a value already in SGPRs folds to a copy.)
RF_DEVICE const char* opaque_sgpr(const char* x) {
  const uint64_t u = reinterpret_cast<uint64_t>(x);
  const uint64_t lo = __builtin_amdgcn_readfirstlane(uint32_t(u)), hi = __builtin_amdgcn_readfirstlane(uint32_t(u >> 32));
  return reinterpret_cast<const char*>(lo | (hi << 32));
}

// Through inline asm so that the loads are scalar whatever the compiler's uniformity analysis concludes (addr must
// be wave-uniform: it is passed in SGPRs, "s"). lgkmcnt(0): scalar loads may return out of order (Vega ISA 4.4), so
// only a zero count says a given load is done. Loads and their wait stay in ONE statement: with the wait in a later
// statement the compiler copied the destination registers in between, i.e. read them while the loads were in flight
// (wrong on hardware, invisible to the emulator, whose loads complete at once; scalar_load_hazards in
// rocflash.emu.cycles_sbcast checks the assembly for it).
// One group = 32 dwords of a K row or a Vp pair row (128 bytes, two s_load_dwordx16). Each step below is ONE asm
// statement: the next group's two loads, the 32 v_dot2 of the current group (already in SGPRs), then the wait.
// The 32 dot2 (128 issue clocks) run under the loads' latency, and the data are in the output registers when the
// statement ends, so the compiler cannot read them in flight (the hazard that a load/wait split in two statements
// had). The loads write nxt, the dot2 read cur: early-clobber outputs, so they never share registers.
#define RF_SB_CUR(c) \
    "s"(c[0][0]), "s"(c[0][1]), "s"(c[0][2]), "s"(c[0][3]), "s"(c[0][4]), "s"(c[0][5]), "s"(c[0][6]), "s"(c[0][7]), \
    "s"(c[0][8]), "s"(c[0][9]), "s"(c[0][10]), "s"(c[0][11]), "s"(c[0][12]), "s"(c[0][13]), "s"(c[0][14]), \
    "s"(c[0][15]), "s"(c[1][0]), "s"(c[1][1]), "s"(c[1][2]), "s"(c[1][3]), "s"(c[1][4]), "s"(c[1][5]), "s"(c[1][6]), \
    "s"(c[1][7]), "s"(c[1][8]), "s"(c[1][9]), "s"(c[1][10]), "s"(c[1][11]), "s"(c[1][12]), "s"(c[1][13]), \
    "s"(c[1][14]), "s"(c[1][15])
#define RF_SB_Q(q) \
    "v"(q[0]), "v"(q[1]), "v"(q[2]), "v"(q[3]), "v"(q[4]), "v"(q[5]), "v"(q[6]), "v"(q[7]), "v"(q[8]), "v"(q[9]), \
    "v"(q[10]), "v"(q[11]), "v"(q[12]), "v"(q[13]), "v"(q[14]), "v"(q[15]), "v"(q[16]), "v"(q[17]), "v"(q[18]), \
    "v"(q[19]), "v"(q[20]), "v"(q[21]), "v"(q[22]), "v"(q[23]), "v"(q[24]), "v"(q[25]), "v"(q[26]), "v"(q[27]), \
    "v"(q[28]), "v"(q[29]), "v"(q[30]), "v"(q[31])
#define RF_SB_O(o) \
    "+v"(o[0]), "+v"(o[1]), "+v"(o[2]), "+v"(o[3]), "+v"(o[4]), "+v"(o[5]), "+v"(o[6]), "+v"(o[7]), "+v"(o[8]), \
    "+v"(o[9]), "+v"(o[10]), "+v"(o[11]), "+v"(o[12]), "+v"(o[13]), "+v"(o[14]), "+v"(o[15]), "+v"(o[16]), \
    "+v"(o[17]), "+v"(o[18]), "+v"(o[19]), "+v"(o[20]), "+v"(o[21]), "+v"(o[22]), "+v"(o[23]), "+v"(o[24]), \
    "+v"(o[25]), "+v"(o[26]), "+v"(o[27]), "+v"(o[28]), "+v"(o[29]), "+v"(o[30]), "+v"(o[31])
// The group's two loads at addr + kOff, addr + kOff + 64, and the wait (the first group of a tile: nothing to
// overlap it with).
template <int kOff>
RF_DEVICE void sload_group(SWords16 (&r)[2], const char* addr) {
  asm volatile("s_load_dwordx16 %0, %2, %3\n\ts_load_dwordx16 %1, %2, %4\n\ts_waitcnt lgkmcnt(0)"
               : "=&s"(r[0]), "=&s"(r[1])
               : "s"(addr), "i"(kOff), "i"(kOff + 64));
}
// The dot2 of K words 1 .. 31 of a group (qk_step and qk_step_first differ in the first one only).
#define RF_SB_QK_WORDS_1_31 \
    "v_dot2_f32_f16 %2, %7, %39, %2\n\t" \
    "v_dot2_f32_f16 %2, %8, %40, %2\n\t" \
    "v_dot2_f32_f16 %2, %9, %41, %2\n\t" \
    "v_dot2_f32_f16 %2, %10, %42, %2\n\t" \
    "v_dot2_f32_f16 %2, %11, %43, %2\n\t" \
    "v_dot2_f32_f16 %2, %12, %44, %2\n\t" \
    "v_dot2_f32_f16 %2, %13, %45, %2\n\t" \
    "v_dot2_f32_f16 %2, %14, %46, %2\n\t" \
    "v_dot2_f32_f16 %2, %15, %47, %2\n\t" \
    "v_dot2_f32_f16 %2, %16, %48, %2\n\t" \
    "v_dot2_f32_f16 %2, %17, %49, %2\n\t" \
    "v_dot2_f32_f16 %2, %18, %50, %2\n\t" \
    "v_dot2_f32_f16 %2, %19, %51, %2\n\t" \
    "v_dot2_f32_f16 %2, %20, %52, %2\n\t" \
    "v_dot2_f32_f16 %2, %21, %53, %2\n\t" \
    "v_dot2_f32_f16 %2, %22, %54, %2\n\t" \
    "v_dot2_f32_f16 %2, %23, %55, %2\n\t" \
    "v_dot2_f32_f16 %2, %24, %56, %2\n\t" \
    "v_dot2_f32_f16 %2, %25, %57, %2\n\t" \
    "v_dot2_f32_f16 %2, %26, %58, %2\n\t" \
    "v_dot2_f32_f16 %2, %27, %59, %2\n\t" \
    "v_dot2_f32_f16 %2, %28, %60, %2\n\t" \
    "v_dot2_f32_f16 %2, %29, %61, %2\n\t" \
    "v_dot2_f32_f16 %2, %30, %62, %2\n\t" \
    "v_dot2_f32_f16 %2, %31, %63, %2\n\t" \
    "v_dot2_f32_f16 %2, %32, %64, %2\n\t" \
    "v_dot2_f32_f16 %2, %33, %65, %2\n\t" \
    "v_dot2_f32_f16 %2, %34, %66, %2\n\t" \
    "v_dot2_f32_f16 %2, %35, %67, %2\n\t" \
    "v_dot2_f32_f16 %2, %36, %68, %2\n\t" \
    "v_dot2_f32_f16 %2, %37, %69, %2\n\t"
// acc += sum_i dot2(q[i], K word i of group c) with the next group (addr + kOff) in flight.
template <int kOff>
RF_DEVICE void qk_step(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], const uint32_t* q, float& acc) {
  asm volatile(
      "s_load_dwordx16 %0, %3, %4\n\ts_load_dwordx16 %1, %3, %5\n\tv_dot2_f32_f16 %2, %6, %38, %2\n\t"
      RF_SB_QK_WORDS_1_31 "s_waitcnt lgkmcnt(0)"
      : "=&s"(nxt[0]), "=&s"(nxt[1]), "+v"(acc)
      : "s"(addr), "i"(kOff), "i"(kOff + 64), RF_SB_Q(q), RF_SB_CUR(c));
}
// qk_step for the first group of a key: acc = sum_i dot2(q[i], K word i) (the first dot2 adds to the constant 0, so
// no register is zeroed per key).
template <int kOff>
RF_DEVICE void qk_step_first(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], const uint32_t* q,
                             float& acc) {
  asm volatile(
      "s_load_dwordx16 %0, %3, %4\n\ts_load_dwordx16 %1, %3, %5\n\tv_dot2_f32_f16 %2, %6, %38, 0\n\t"
      RF_SB_QK_WORDS_1_31 "s_waitcnt lgkmcnt(0)"
      : "=&s"(nxt[0]), "=&s"(nxt[1]), "=&v"(acc)
      : "s"(addr), "i"(kOff), "i"(kOff + 64), RF_SB_Q(q), RF_SB_CUR(c));
}
// o[i] += dot2(pk, Vp word i of group c), i < 32, with the next group (addr + kOff) in flight.
template <int kOff>
RF_DEVICE void pv_step(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], uint32_t pk, float* o) {
  asm volatile(
      "s_load_dwordx16 %0, %34, %35\n\ts_load_dwordx16 %1, %34, %36\n\t"
      "v_dot2_f32_f16 %2, %37, %38, %2\n\t"
      "v_dot2_f32_f16 %3, %37, %39, %3\n\t"
      "v_dot2_f32_f16 %4, %37, %40, %4\n\t"
      "v_dot2_f32_f16 %5, %37, %41, %5\n\t"
      "v_dot2_f32_f16 %6, %37, %42, %6\n\t"
      "v_dot2_f32_f16 %7, %37, %43, %7\n\t"
      "v_dot2_f32_f16 %8, %37, %44, %8\n\t"
      "v_dot2_f32_f16 %9, %37, %45, %9\n\t"
      "v_dot2_f32_f16 %10, %37, %46, %10\n\t"
      "v_dot2_f32_f16 %11, %37, %47, %11\n\t"
      "v_dot2_f32_f16 %12, %37, %48, %12\n\t"
      "v_dot2_f32_f16 %13, %37, %49, %13\n\t"
      "v_dot2_f32_f16 %14, %37, %50, %14\n\t"
      "v_dot2_f32_f16 %15, %37, %51, %15\n\t"
      "v_dot2_f32_f16 %16, %37, %52, %16\n\t"
      "v_dot2_f32_f16 %17, %37, %53, %17\n\t"
      "v_dot2_f32_f16 %18, %37, %54, %18\n\t"
      "v_dot2_f32_f16 %19, %37, %55, %19\n\t"
      "v_dot2_f32_f16 %20, %37, %56, %20\n\t"
      "v_dot2_f32_f16 %21, %37, %57, %21\n\t"
      "v_dot2_f32_f16 %22, %37, %58, %22\n\t"
      "v_dot2_f32_f16 %23, %37, %59, %23\n\t"
      "v_dot2_f32_f16 %24, %37, %60, %24\n\t"
      "v_dot2_f32_f16 %25, %37, %61, %25\n\t"
      "v_dot2_f32_f16 %26, %37, %62, %26\n\t"
      "v_dot2_f32_f16 %27, %37, %63, %27\n\t"
      "v_dot2_f32_f16 %28, %37, %64, %28\n\t"
      "v_dot2_f32_f16 %29, %37, %65, %29\n\t"
      "v_dot2_f32_f16 %30, %37, %66, %30\n\t"
      "v_dot2_f32_f16 %31, %37, %67, %31\n\t"
      "v_dot2_f32_f16 %32, %37, %68, %32\n\t"
      "v_dot2_f32_f16 %33, %37, %69, %33\n\t"
      "s_waitcnt lgkmcnt(0)"
      : "=&s"(nxt[0]), "=&s"(nxt[1]), RF_SB_O(o)
      : "s"(addr), "i"(kOff), "i"(kOff + 64), "v"(pk), RF_SB_CUR(c));
}
// pv_step of a masked tile: each V word ANDed with keep (the masked keys' halves to +0) before its dot2, through
// one temporary VGPR.
template <int kOff>
RF_DEVICE void pv_step_masked(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], uint32_t pk, uint32_t keep,
                              float* o) {
  uint32_t tmp;
  asm volatile(
      "s_load_dwordx16 %0, %35, %36\n\ts_load_dwordx16 %1, %35, %37\n\t"
      "v_and_b32 %34, %40, %39\n\tv_dot2_f32_f16 %2, %38, %34, %2\n\t"
      "v_and_b32 %34, %41, %39\n\tv_dot2_f32_f16 %3, %38, %34, %3\n\t"
      "v_and_b32 %34, %42, %39\n\tv_dot2_f32_f16 %4, %38, %34, %4\n\t"
      "v_and_b32 %34, %43, %39\n\tv_dot2_f32_f16 %5, %38, %34, %5\n\t"
      "v_and_b32 %34, %44, %39\n\tv_dot2_f32_f16 %6, %38, %34, %6\n\t"
      "v_and_b32 %34, %45, %39\n\tv_dot2_f32_f16 %7, %38, %34, %7\n\t"
      "v_and_b32 %34, %46, %39\n\tv_dot2_f32_f16 %8, %38, %34, %8\n\t"
      "v_and_b32 %34, %47, %39\n\tv_dot2_f32_f16 %9, %38, %34, %9\n\t"
      "v_and_b32 %34, %48, %39\n\tv_dot2_f32_f16 %10, %38, %34, %10\n\t"
      "v_and_b32 %34, %49, %39\n\tv_dot2_f32_f16 %11, %38, %34, %11\n\t"
      "v_and_b32 %34, %50, %39\n\tv_dot2_f32_f16 %12, %38, %34, %12\n\t"
      "v_and_b32 %34, %51, %39\n\tv_dot2_f32_f16 %13, %38, %34, %13\n\t"
      "v_and_b32 %34, %52, %39\n\tv_dot2_f32_f16 %14, %38, %34, %14\n\t"
      "v_and_b32 %34, %53, %39\n\tv_dot2_f32_f16 %15, %38, %34, %15\n\t"
      "v_and_b32 %34, %54, %39\n\tv_dot2_f32_f16 %16, %38, %34, %16\n\t"
      "v_and_b32 %34, %55, %39\n\tv_dot2_f32_f16 %17, %38, %34, %17\n\t"
      "v_and_b32 %34, %56, %39\n\tv_dot2_f32_f16 %18, %38, %34, %18\n\t"
      "v_and_b32 %34, %57, %39\n\tv_dot2_f32_f16 %19, %38, %34, %19\n\t"
      "v_and_b32 %34, %58, %39\n\tv_dot2_f32_f16 %20, %38, %34, %20\n\t"
      "v_and_b32 %34, %59, %39\n\tv_dot2_f32_f16 %21, %38, %34, %21\n\t"
      "v_and_b32 %34, %60, %39\n\tv_dot2_f32_f16 %22, %38, %34, %22\n\t"
      "v_and_b32 %34, %61, %39\n\tv_dot2_f32_f16 %23, %38, %34, %23\n\t"
      "v_and_b32 %34, %62, %39\n\tv_dot2_f32_f16 %24, %38, %34, %24\n\t"
      "v_and_b32 %34, %63, %39\n\tv_dot2_f32_f16 %25, %38, %34, %25\n\t"
      "v_and_b32 %34, %64, %39\n\tv_dot2_f32_f16 %26, %38, %34, %26\n\t"
      "v_and_b32 %34, %65, %39\n\tv_dot2_f32_f16 %27, %38, %34, %27\n\t"
      "v_and_b32 %34, %66, %39\n\tv_dot2_f32_f16 %28, %38, %34, %28\n\t"
      "v_and_b32 %34, %67, %39\n\tv_dot2_f32_f16 %29, %38, %34, %29\n\t"
      "v_and_b32 %34, %68, %39\n\tv_dot2_f32_f16 %30, %38, %34, %30\n\t"
      "v_and_b32 %34, %69, %39\n\tv_dot2_f32_f16 %31, %38, %34, %31\n\t"
      "v_and_b32 %34, %70, %39\n\tv_dot2_f32_f16 %32, %38, %34, %32\n\t"
      "v_and_b32 %34, %71, %39\n\tv_dot2_f32_f16 %33, %38, %34, %33\n\t"
      "s_waitcnt lgkmcnt(0)"
      : "=&s"(nxt[0]), "=&s"(nxt[1]), RF_SB_O(o), "=&v"(tmp)
      : "s"(addr), "i"(kOff), "i"(kOff + 64), "v"(pk), "v"(keep), RF_SB_CUR(c));
}
#undef RF_SB_CUR
#undef RF_SB_QK_WORDS_1_31
#undef RF_SB_Q
#undef RF_SB_O

// acc + dot2(pk, v & keep) for a V pair word v in an SGPR (the last group of a masked tile, nothing left to load):
// the AND and the dot2 in one statement, one temporary VGPR per dot2 (the scheduler hoisting all ANDs spilled).
RF_DEVICE float dot2_masked(uint32_t pk, uint32_t v, uint32_t keep, float acc) {
  uint32_t tmp;
  asm volatile("v_and_b32 %1, %2, %3\n\tv_dot2_f32_f16 %0, %4, %1, %0"
               : "+v"(acc), "=&v"(tmp)
               : "s"(v), "v"(keep), "v"(pk));
  return acc;
}
RF_DEVICE uint32_t wave_uniform(uint32_t x) { return __builtin_amdgcn_readfirstlane(x); }
inline constexpr rfError_t kSbcastOutOfScope = hipErrorInvalidValue;
#else
// 16 words of a K or V row, read where they are used: a thread has no scalar registers to hold a whole row
// group beside its Q row and O accumulator (64 words in registers spilled 2 KB per thread on sm_90).
struct SWords16 {
  const uint32_t* p;
  RF_DEVICE uint32_t operator[](int i) const { return __ldg(p + i); }  // warp-uniform address: one broadcast
};
RF_DEVICE const char* opaque_sgpr(const char* x) { return x; }
RF_DEVICE float dot2_masked(uint32_t pk, uint32_t v, uint32_t keep, float acc) {
  return dot_word<Fp16>(pk, v & keep, acc);
}
template <int kOff>
RF_DEVICE void sload_group(SWords16 (&r)[2], const char* addr) {
  r[0].p = reinterpret_cast<const uint32_t*>(addr + kOff);
  r[1].p = r[0].p + 16;
}
template <int kOff>
RF_DEVICE void qk_step(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], const uint32_t* q, float& acc) {
#pragma unroll
  for (int i = 0; i < 32; ++i) acc = dot2_words(q[i], c[i / 16][i % 16], acc);
  sload_group<kOff>(nxt, addr);
}
template <int kOff>
RF_DEVICE void qk_step_first(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], const uint32_t* q,
                             float& acc) {
  acc = 0.f;
  qk_step<kOff>(nxt, addr, c, q, acc);
}
template <int kOff>
RF_DEVICE void pv_step(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], uint32_t pk, float* o) {
#pragma unroll
  for (int i = 0; i < 32; ++i) o[i] = dot2_words(pk, c[i / 16][i % 16], o[i]);
  sload_group<kOff>(nxt, addr);
}
template <int kOff>
RF_DEVICE void pv_step_masked(SWords16 (&nxt)[2], const char* addr, const SWords16 (&c)[2], uint32_t pk, uint32_t keep,
                              float* o) {
#pragma unroll
  for (int i = 0; i < 32; ++i) o[i] = dot2_masked(pk, c[i / 16][i % 16], keep, o[i]);
  sload_group<kOff>(nxt, addr);
}
RF_DEVICE uint32_t wave_uniform(uint32_t x) { return x; }
inline constexpr rfError_t kSbcastOutOfScope = cudaErrorInvalidValue;
#endif

}  // namespace rf
