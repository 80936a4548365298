"""Host-side check of the tensor-core dK/dV kernel's shared-memory layouts (hip_src/fmha_mma_bwd_tile.h, plain
C++17 outside nvcc), compiled with the host C++ compiler: no GPU, no nvcc.

The padded layout of the default kernels keeps the addresses it had before the core-matrix layout existed (branch
tcws6 added that layout for an opt-in wgmma kernel, removed in branch tc80).

The compact grid tile (MmaBwdDkdvShape::compact, branch tc80: the deterministic dK/dV kernel's FlashAttention-2 warp
grid below sm_90, every buffer incl. P^T / dS^T in core matrices) must give every K, V, Q, dO, P^T and dS^T element
its own bytes in 82688 B at bf16 d128 (2 blocks per sm_80 SM), and every ldmatrix phase and every warp's 32-bit
P^T / dS^T store must be free of bank conflicts.
"""

from __future__ import annotations

import subprocess

import pytest

from rocflash import build
from rocflash.configs import hip_src_dir

_SOURCE = r"""
#include <cstdio>
#include <initializer_list>
#include "fmha_mma_bwd_tile.h"
using namespace rf;

static int failures = 0;
#define CHECK(cond, ...) do { if (!(cond)) { if (failures++ < 20) { std::printf(__VA_ARGS__); std::printf("\n"); } } } while (0)

static MmaBwdDkdvShape shape(int headdim, int block_m) {
  MmaBwdDkdvShape s{};
  s.headdim = headdim; s.block_m = block_m; s.block_n = 64; s.threads = 128; s.threads_n = 4;
  s.lds_pad_bytes = 16; s.elem_bytes = 2;
  return s;
}

// the address rule of one ldmatrix phase: 8 lanes, 8 rows of 16 bytes in 8 different bank groups
static void check_phases(const MmaBwdDkdvShape& T, const int (&addr)[32], const char* what) {
  for (int phase = 0; phase < 4; ++phase) {
    int groups = 0;
    for (int l = 8 * phase; l < 8 * phase + 8; ++l) {
      CHECK(addr[l] % 16 == 0, "%s: lane %d address %d not 16-byte aligned", what, l, addr[l]);
      groups |= 1 << ((addr[l] / 16) % 8);
    }
    CHECK(groups == 0xff, "%s: phase %d bank groups 0x%x (hd %d bm %d core %d)", what, phase, groups, T.headdim, T.block_m, T.core_rows);
  }
}

static void check_reads(const MmaBwdDkdvShape& T) {
  const int kd = T.headdim / 16;
  for (int kk = 0; kk < kd; ++kk) {
    for (int row0 = 0; row0 < T.block_n; row0 += 16) {  // A: K / V rows
      int a[32];
      for (int l = 0; l < 32; ++l) {
        a[l] = T.a_read(T.k_offset(), l, row0, kk);
        CHECK(a[l] == T.elem(T.k_offset(), row0 + l % 16, kk * 16 + (l / 16) * 8), "a_read lane %d", l);
      }
      check_phases(T, a, "a_read");
    }
    for (int np = 0; np < T.block_m / 16; ++np) {  // B: Q / dO rows
      int b[32];
      for (int l = 0; l < 32; ++l) {
        b[l] = T.b_read(T.q_offset(1), l, np, kk);
        CHECK(b[l] == T.elem(T.q_offset(1), np * 16 + l % 8 + 8 * (l / 16), kk * 16 + ((l / 8) % 2) * 8), "b_read lane %d", l);
      }
      check_phases(T, b, "b_read");
    }
  }
  for (int kk = 0; kk < T.block_m / 16; ++kk)  // B through ldmatrix.trans: dO / Q rows (dV, dK), K rows (dQ)
    for (int dp = 0; dp < kd; ++dp) {
      int b[32];
      for (int l = 0; l < 32; ++l) {
        b[l] = T.bt_read(T.do_offset(0), l, kk, dp);
        CHECK(b[l] == T.elem(T.do_offset(0), kk * 16 + l % 8 + 8 * ((l / 8) % 2), dp * 16 + (l / 16) * 8), "bt_read lane %d", l);
      }
      check_phases(T, b, "bt_read");
    }
}

static void check_padded(MmaBwdDkdvShape T) {  // the default kernels: the formulas as they were
  const int rb = T.headdim * 2 + T.lds_pad_bytes;
  for (int l = 0; l < 32; ++l)
    for (int kk = 0; kk < T.headdim / 16; ++kk) {
      CHECK(T.a_read(0, l, 16, kk) == (16 + l % 16) * rb + (kk * 2 + l / 16) * 16, "padded a_read");
      CHECK(T.b_read(64, l, 1, kk) == 64 + (16 + l % 8 + 8 * (l / 16)) * rb + (kk * 2 + (l / 8) % 2) * 16, "padded b_read");
      CHECK(T.bt_read(32, l, 1, kk / 2) == 32 + (16 + l % 8 + 8 * ((l / 8) % 2)) * rb + ((kk / 2) * 2 + l / 16) * 16, "padded bt_read");
    }
  CHECK(T.q_offset(1) == 2 * T.block_n * rb + 2 * T.block_m * rb && T.elem(0, 3, 9) == 3 * rb + 18 &&
        T.lds_bytes_atomic_dq() == (2 * T.block_n + 4 * T.block_m) * rb + 24 * T.block_m + T.block_n * (T.block_m * 2 + 16),
        "padded offsets");
  check_reads(T);
}

// the 32 lanes' 4-byte words of one store: 32 different banks
static void check_store_banks(const int (&addr)[32], const char* what) {
  unsigned long long banks = 0;
  for (int l = 0; l < 32; ++l) banks |= 1ull << ((addr[l] / 4) % 32);
  CHECK(banks == 0xffffffffull, "%s: banks 0x%llx", what, banks);
}

static void check_compact(MmaBwdDkdvShape P, int expect_bytes) {
  P.s_query_warps = 2; P.q_buffers = 1;
  const MmaBwdDkdvShape T = P.compact();
  CHECK(P.valid() && T.valid() && T.st_core() && !P.st_core() && T.core_rows == 64 && T.lds_pad_bytes == 0,
        "compact shape hd %d invalid", P.headdim);
  CHECK(T.lds_bytes() == expect_bytes && P.lds_bytes() > expect_bytes, "compact bytes %d (padded %d), want %d",
        T.lds_bytes(), P.lds_bytes(), expect_bytes);
  const int bytes = T.lds_bytes();
  static unsigned char owner[1 << 20];
  for (int i = 0; i < bytes; ++i) owner[i] = 0;
  struct Buf { int base, rows; } bufs[4] = {{T.k_offset(), T.block_n}, {T.v_offset(), T.block_n}, {T.q_offset(0), T.block_m},
                                           {T.do_offset(0), T.block_m}};
  for (int b = 0; b < 4; ++b)
    for (int r = 0; r < bufs[b].rows; ++r)
      for (int c = 0; c < T.headdim; ++c) {
        const int at = T.elem(bufs[b].base, r, c);
        CHECK(at >= 0 && at + 1 < T.stats_offset(0), "buffer %d (%d, %d) at %d outside [0, %d)", b, r, c, at, T.stats_offset(0));
        if (at < 0 || at + 1 >= bytes) continue;
        CHECK(owner[at] == 0 && owner[at + 1] == 0, "buffer %d (%d, %d) at %d overlaps buffer %d", b, r, c, at, owner[at] - 1);
        owner[at] = owner[at + 1] = (unsigned char)(b + 1);
      }
  CHECK(T.delta_offset(0) + 4 * T.block_m <= T.ds_offset() && T.pt_offset() == T.ds_offset() + T.st_bytes() &&
        T.pt_offset() + T.st_bytes() == bytes, "statistics / P^T / dS^T regions");
  for (int base : {T.ds_offset(), T.pt_offset()})
    for (int r = 0; r < T.block_n; ++r)
      for (int q = 0; q < T.block_m; ++q) {
        const int at = base + T.st_elem(r, q);
        CHECK(at >= base && at + 1 < base + T.st_bytes(), "P^T / dS^T (%d, %d) at %d outside its buffer", r, q, at);
        if (at < 0 || at + 1 >= bytes) continue;
        CHECK(owner[at] == 0 && owner[at + 1] == 0, "P^T / dS^T (%d, %d) at %d overlaps buffer %d", r, q, at, owner[at] - 1);
        owner[at] = owner[at + 1] = 9;
      }
  // the P^T / dS^T stores (store_pt_ds: a 32-bit pair per lane) and their ldmatrix reads (gemm_lds_by_rows, kStCore)
  const int tn = T.s_cols_per_thread();
  for (int w = 0; w < T.warps(); ++w) {
    for (int i = 0; i < 2 * T.m_tiles(); ++i)
      for (int c = 0; c < tn; c += 2) {
        int a[32];
        for (int l = 0; l < 32; ++l) {
          const int tid = 32 * w + l;
          a[l] = T.st_index(tid, i, c);
          CHECK(a[l] == T.st_elem(T.key(tid, i), T.query(tid, c)), "st_index warp %d lane %d", w, l);
        }
        check_store_banks(a, "P^T / dS^T store");
      }
    const int row0 = T.key_warp(32 * w) * T.rows_per_warp();
    for (int mt = 0; mt < T.m_tiles(); ++mt)
      for (int kk = 0; kk < T.block_m / 16; ++kk) {
        int a[32];
        for (int l = 0; l < 32; ++l) a[l] = T.ds_offset() + T.st_elem(row0 + mt * 16 + l % 16, (kk * 2 + l / 16) * T.vec_elems());
        check_phases(T, a, "P^T / dS^T ldmatrix");
      }
  }
  // the S^T product's Q / dO rows from the warp's first query (qoff = write(0, s_query0, 0))
  for (int l = 0; l < 32; ++l)
    for (int kk = 0; kk < T.headdim / 16; ++kk) {
      const int q0 = T.s_query0(64 + l);
      CHECK(q0 == T.block_m / 2 && T.write(0, q0, 0) + T.b_read(T.q_offset(0), l, 1, kk) ==
            T.elem(T.q_offset(0), q0 + 16 + l % 8 + 8 * (l / 16), kk * 16 + ((l / 8) % 2) * 8), "grid b_read lane %d", l);
    }
  check_reads(T);
}

int main() {
  check_compact(shape(128, 64), 82688);  // bf16 d128's deterministic tile: 2 * (82688 + 1024) <= 164 KB
  check_compact(shape(64, 64), 4 * 64 * 128 + 768 + 2 * 64 * 128);
  const int tiles[][2] = {{128, 32}, {64, 64}, {32, 64}, {128, 64}};
  for (auto& t : tiles) check_padded(shape(t[0], t[1]));
  std::printf("%d failures\n", failures);
  return failures != 0;
}
"""


def test_core_matrix_layout(tmp_path):
    try:
        cxx = build.find_cxx()
    except build.BuildError as e:
        pytest.skip(f"no host C++ compiler ({e})")
    src = tmp_path / "layout.cpp"
    src.write_text(_SOURCE)
    exe = tmp_path / "layout"
    proc = subprocess.run([cxx, "-std=c++17", "-O1", "-Wall", f"-I{hip_src_dir()}", str(src), "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip().endswith("0 failures"), run.stdout[-4000:]
