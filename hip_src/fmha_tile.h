// fmha_tile.h - tile shape, thread mapping and LDS layout of the forward kernel, as constexpr data.
//
// One definition serves three readers:
//   * the kernel (hip_src/fmha_fwd_kernel.h) computes every LDS address through these functions;
//   * the launcher sizes dynamic LDS with lds_bytes();
//   * the host-side probe (rocflash/_probe/probe.cpp, built with the host C++ compiler) evaluates the
//     same functions for every lane, so the ISA audit's bank-conflict check reads the kernel's own
//     address arithmetic instead of a second copy of the formula.
// Plain C++17, no HIP/CUDA types.
//
// Vocabulary (FlashAttention-2 paper, Dao 2023, Algorithm 1): a block owns Br = block_m query rows and
// walks the keys in tiles of Bc = block_n rows. Threads form row groups of `threads_n` consecutive lanes;
// row group ty owns query rows [ty*TM, ty*TM + TM) of the block, lane tx of the group owns
//   S columns  tx + c*threads_n              (c < TN = block_n / threads_n)
//   O columns  tx*CW + g*threads_n*CW + e    (g < TD/CW, e < CW; TD = headdim / threads_n)
// so the row max / row sum of the online softmax reduce across the threads_n lanes of one row group.
//
// LDS regions (byte offsets, every row 16-byte aligned):
//   Q   [block_m][headdim + pad]          loaded once per block
//   KV  one buffer, reused:   K  [block_n][headdim + pad]
//                             Vp [block_n/2][2*headdim + pad]   V in row pairs: Vp[j'][2c+r] = V[2j'+r][c],
//                                 so the P.V product consumes (V[2j'][c], V[2j'+1][c]) as one packed pair,
//                                 the operand layout of v_dot2_f32_f16
//   P   [block_m][block_n]                the tile's probabilities in the element type (never global)
#pragma once

#if defined(__HIPCC__) || defined(__CUDACC__)
#define RF_HDC __host__ __device__ constexpr
#else
#define RF_HDC constexpr
#endif

namespace rf {

inline constexpr int kVectorBytes = 16;  // one 128-bit global/LDS access

// Which tile math an instance runs (ck_configs `impl`): the vector ALU (every target; VectorTileMath,
// fmha_tile_math.h), tensor cores (NVIDIA sm_80+; MmaTileMath, fmha_mma.h) or the gfx9 scalar-broadcast forward
// (K/V rows through the scalar cache as v_dot2's SGPR operand, fmha_fwd_sbcast.h; the CUDA build runs its logic).
enum class TileMath : int { kVector = 0, kMma = 1, kSbcast = 2 };

struct FwdTileShape {
  int headdim;        // headdim bucket (inputs with a smaller headdim are zero-padded on load)
  int block_m;        // Br
  int block_n;        // Bc
  int threads;        // threads per block
  int threads_n;      // lanes per row group
  int lds_pad_bytes;  // padding after each Q/K row and each Vp row
  int elem_bytes;     // 2 (fp16, bf16) or 4 (fp32)

  // ---- thread mapping
  RF_HDC int row_groups() const { return threads / threads_n; }
  RF_HDC int rows_per_thread() const { return block_m / row_groups(); }  // TM
  RF_HDC int s_cols_per_thread() const { return block_n / threads_n; }   // TN
  RF_HDC int o_cols_per_thread() const { return headdim / threads_n; }   // TD
  RF_HDC int vec_elems() const { return kVectorBytes / elem_bytes; }     // elements per 128-bit vector
  RF_HDC int pair_bytes() const { return 2 * elem_bytes; }               // one (V[2j'][c], V[2j'+1][c]) pair
  RF_HDC int o_chunk_cols() const {                                      // CW: columns per Vp read
    return kVectorBytes / pair_bytes() < o_cols_per_thread() ? kVectorBytes / pair_bytes() : o_cols_per_thread();
  }
  RF_HDC int o_chunks_per_thread() const { return o_cols_per_thread() / o_chunk_cols(); }
  RF_HDC int v_read_bytes() const { return o_chunk_cols() * pair_bytes(); }
  RF_HDC int chunks_per_row() const { return headdim / vec_elems(); }  // 128-bit vectors per Q/K/V row
  RF_HDC int k_stage_vectors() const {  // 128-bit registers per thread staging one K tile
    return (block_n * chunks_per_row() + threads - 1) / threads;
  }
  RF_HDC int v_stage_pairs() const {  // (row 2j', row 2j'+1) vector pairs per thread staging one V tile
    return (block_n / 2 * chunks_per_row() + threads - 1) / threads;
  }
  RF_HDC int stage_vectors() const {
    return k_stage_vectors() > 2 * v_stage_pairs() ? k_stage_vectors() : 2 * v_stage_pairs();
  }

  RF_HDC int lane_tx(int tid) const { return tid % threads_n; }
  RF_HDC int lane_ty(int tid) const { return tid / threads_n; }
  RF_HDC int s_col(int tid, int c) const { return lane_tx(tid) + c * threads_n; }
  RF_HDC int o_col(int tid, int g, int e) const {
    return lane_tx(tid) * o_chunk_cols() + g * threads_n * o_chunk_cols() + e;
  }
  RF_HDC int row(int tid, int i) const { return lane_ty(tid) * rows_per_thread() + i; }

  // ---- LDS layout (bytes)
  RF_HDC int q_row_bytes() const { return headdim * elem_bytes + lds_pad_bytes; }
  RF_HDC int k_row_bytes() const { return headdim * elem_bytes + lds_pad_bytes; }
  RF_HDC int vp_row_bytes() const { return 2 * headdim * elem_bytes + lds_pad_bytes; }
  RF_HDC int p_row_bytes() const { return block_n * elem_bytes; }
  RF_HDC int q_offset() const { return 0; }
  RF_HDC int kv_offset() const { return block_m * q_row_bytes(); }
  RF_HDC int kv_bytes() const {
    return block_n * k_row_bytes() > block_n / 2 * vp_row_bytes() ? block_n * k_row_bytes()
                                                                  : block_n / 2 * vp_row_bytes();
  }
  RF_HDC int p_offset() const { return kv_offset() + kv_bytes(); }
  RF_HDC int lds_bytes() const { return p_offset() + block_m * p_row_bytes(); }

  // ---- LDS addresses of the main loop's reads (what the bank-conflict audit evaluates per lane)
  // Stage 1, S = Q.K^T: 128-bit reads of Q row `row(tid,i)` and K row `s_col(tid,c)` at vector `d`.
  RF_HDC int q_read(int tid, int i, int d) const {
    return q_offset() + row(tid, i) * q_row_bytes() + d * kVectorBytes;
  }
  RF_HDC int k_read(int tid, int c, int d) const {
    return kv_offset() + s_col(tid, c) * k_row_bytes() + d * kVectorBytes;
  }
  // Stage 3, O += P.V: 128-bit read of P row `row(tid,i)` at vector `j`; v_read_bytes() read of Vp row
  // pair `jp`, the thread's column chunk `g`.
  RF_HDC int p_read(int tid, int i, int j) const {
    return p_offset() + row(tid, i) * p_row_bytes() + j * kVectorBytes;
  }
  RF_HDC int v_read(int tid, int jp, int g) const {
    return kv_offset() + jp * vp_row_bytes() + o_col(tid, g, 0) * pair_bytes();
  }
  // ---- LDS writes (global -> LDS staging and the P tile)
  RF_HDC int q_write(int r, int d) const { return q_offset() + r * q_row_bytes() + d * kVectorBytes; }
  RF_HDC int k_write(int r, int d) const { return kv_offset() + r * k_row_bytes() + d * kVectorBytes; }
  RF_HDC int vp_write(int jp, int d) const {  // two 128-bit stores: vector d of rows 2jp and 2jp+1, interleaved
    return kv_offset() + jp * vp_row_bytes() + d * 2 * kVectorBytes;
  }
  RF_HDC int p_write(int r, int c) const { return p_offset() + r * p_row_bytes() + c * elem_bytes; }

  // ---- the rules a config must satisfy (checked by static_assert in the kernel and by the config loader)
  RF_HDC bool valid() const {
    return threads % threads_n == 0 && threads_n <= 32 && (threads_n & (threads_n - 1)) == 0 &&
           block_m % row_groups() == 0 && rows_per_thread() >= 1 && block_n % threads_n == 0 &&
           block_n % 2 == 0 && (block_n * elem_bytes) % kVectorBytes == 0 &&
           (headdim * elem_bytes) % kVectorBytes == 0 && headdim % threads_n == 0 &&
           o_cols_per_thread() % o_chunk_cols() == 0 && lds_pad_bytes % kVectorBytes == 0;
  }
};

}  // namespace rf
