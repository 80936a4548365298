"""Host-side check of the tensor-core split-KV kernel's swizzled K/V tiles (hip_src/fmha_splitkv_tile.h,
MmaSplitKvShape; plain C++17 outside nvcc), compiled with the host C++ compiler: no GPU, no nvcc.

Since dec12 (perf/RESULTS.md "dec12") the K/V rows in shared memory are unpadded and logical 16-byte chunk c of
row r sits at chunk c ^ (r % 8) (chunk_offset), so that a cp.async of one 128-byte global line fills one aligned
128-byte span of shared memory (padded rows split it into several L2 requests) while ldmatrix stays free of bank
conflicts. For the four `impl = "mma"` configs of ck_configs/fmha_splitkv.toml this checks, on the header's own
numbers: (a) chunk_offset is a bijection onto the tile's 16-byte chunks; (b) every aligned 8-chunk line of a row
lands in one aligned 128-byte span; (c) the 8 row addresses of every ldmatrix 8x8 matrix (k_read, v_read) hit 8
distinct bank groups, and fetch the same logical (row, chunk) as the forward kernel's ldmatrix addresses
(MmaFwdTileShape::k_read / v_read, fmha_mma_tile.h: padded, unswizzled, the same mma fragments); the XOR form of the
addresses (at_step, fmha_splitkv_mma.h kXorAddresses) equals k_read / v_read on tiles at kLdsAlign (and not on a
misaligned one); plain_copy's offsets (plain_chunks, fmha_splitkv_mma_plain.h, replicated below) and clean_v's element
reads (swizzle_bits) agree with chunk_offset. (d) The old padded layout (lds_pad_bytes 16) is unswizzled and
violates (b): the check can fail.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess

import pytest

from rocflash import build
from rocflash.configs import hip_src_dir, load_configs

_SOURCE = r"""
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include "fmha_mma_tile.h"
#include "fmha_splitkv_tile.h"
using rf::MmaSplitKvShape;

// at_step's form of every k_read / v_read on the tiles of a block whose shared memory starts at lds0: mismatches
static int step_mismatches(const MmaSplitKvShape& T, uint32_t lds0) {
  int bad = 0;
  for (int w = 0; w < T.warps(); ++w)
    for (int s = 0; s < MmaSplitKvShape::kStages; ++s)
      for (int lane = 0; lane < 32; ++lane) {
        const uint32_t tk = lds0 + T.k_tile(w, s), tv = lds0 + T.v_tile(w, s);
        for (int kk = 0; kk < T.headdim / 16; ++kk)
          for (int np = 0; np < T.warp_keys() / 16; ++np)
            bad += T.at_step(tk + T.k_lane(lane), kk) + np * 16 * T.row_bytes() != tk + T.k_read(lane, np, kk);
        for (int kk = 0; kk < T.warp_keys() / 16; ++kk)
          for (int dp = 0; dp < T.headdim / 16; ++dp)
            bad += T.at_step(tv + kk * 16 * T.row_bytes() + T.v_lane(lane), dp) != tv + T.v_read(lane, kk, dp);
      }
  return bad;
}

int main(int argc, char** argv) {
  if (argc != 8) return 2;
  int f[7];
  for (int i = 0; i < 7; ++i) f[i] = std::atoi(argv[i + 1]);
  const MmaSplitKvShape T{f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
  const int rows = T.warp_keys(), cpr = T.chunks_per_row();
  // the forward kernel's padded K / V tiles of the same keys: its ldmatrix addresses are the reference fragments
  const rf::MmaFwdTileShape F{T.headdim, 16, rows, 32, 4, 16, 2};
  std::printf("{\"valid\": %d, \"swizzled\": %d, \"row_bytes\": %d, \"tile_bytes\": %d, \"rows\": %d, \"cpr\": %d",
              T.valid(), T.swizzled(), T.row_bytes(), T.tile_bytes(), rows, cpr);
  std::printf(", \"step_bad\": %d, \"step_bad_misaligned\": %d", step_mismatches(T, 5 * MmaSplitKvShape::kLdsAlign),
              step_mismatches(T, 32));
  std::printf(", \"swz\": [");
  for (int r = 0; r < rows; ++r) std::printf("%s%d", r ? ", " : "", T.swizzle_bits(r));
  std::printf("], \"chunk\": [");
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cpr; ++c) std::printf("%s%d", r || c ? ", " : "", T.chunk_offset(r, c));
  std::printf("], \"fwd_row_bytes\": %d, \"k\": [", F.row_bytes());  // [np][kk][lane]: [this, forward kernel's]
  for (int np = 0, n = 0; np < rows / 16; ++np)
    for (int kk = 0; kk < T.headdim / 16; ++kk)
      for (int lane = 0; lane < 32; ++lane)
        std::printf("%s[%d, %d]", n++ ? ", " : "", T.k_read(lane, np, kk), F.k_read(lane, np, kk) - F.k_offset());
  std::printf("], \"v\": [");  // [kk][dp][lane]
  for (int kk = 0, n = 0; kk < rows / 16; ++kk)
    for (int dp = 0; dp < T.headdim / 16; ++dp)
      for (int lane = 0; lane < 32; ++lane)
        std::printf("%s[%d, %d]", n++ ? ", " : "", T.v_read(lane, kk, dp), F.v_read(lane, kk, dp) - F.v_offset());
  std::printf("]}\n");
  return 0;
}
"""

FIELDS = ("headdim", "block_m", "block_n", "threads", "threads_n", "lds_pad_bytes", "elem_bytes")
MMA_CONFIGS = [c for c in load_configs("fwd_splitkv") if c.impl == "mma"]


def test_mma_configs_are_the_four_swizzled_tiles():
    assert sorted((c.dtype, c.headdim) for c in MMA_CONFIGS) == [("bf16", 64), ("bf16", 128), ("fp16", 64),
                                                                   ("fp16", 128)]
    assert all(c.lds_pad_bytes == 0 for c in MMA_CONFIGS)


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    try:
        cxx = build.find_cxx()
    except build.BuildError as e:
        pytest.skip(f"no host C++ compiler ({e})")
    d = tmp_path_factory.mktemp("swizzle")
    (d / "swizzle.cpp").write_text(_SOURCE)
    exe = d / "swizzle"
    proc = subprocess.run([cxx, "-std=c++17", "-O1", "-Wall", f"-I{hip_src_dir()}", str(d / "swizzle.cpp"), "-o",
                           str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]

    def run(cfg, **overrides):
        shape = {name: getattr(cfg, name) for name in FIELDS} | overrides
        out = json.loads(subprocess.run([str(exe), *map(str, (shape[n] for n in FIELDS))], capture_output=True,
                                        text=True, check=True).stdout)
        out["chunk"] = [out["chunk"][r * out["cpr"]:(r + 1) * out["cpr"]] for r in range(out["rows"])]
        out["fwd_k"], out["fwd_v"] = [[a[1] for a in out[x]] for x in ("k", "v")]
        out["k"], out["v"] = [[a[0] for a in out[x]] for x in ("k", "v")]
        return out

    return run


def lines_fill_aligned_spans(t) -> bool:
    """(b): each row's logical chunks 8g .. 8g + 7 (one global 128-byte line) fill one aligned 128-byte span."""
    return all(sorted(row[g:g + 8]) == list(range(row[g] // 128 * 128, row[g] // 128 * 128 + 128, 16))
               for row in t["chunk"] for g in range(0, t["cpr"], 8))


def ldmatrix_matrices(t):
    """The 8 lane addresses of each 8x8 matrix (lanes 8m .. 8m + 7) of every k_read and v_read instruction."""
    for reads in (t["k"], t["v"]):
        for i in range(0, len(reads), 32):
            yield from (reads[i + 8 * m:i + 8 * m + 8] for m in range(4))


def plain_copy_offsets(t):
    """plain_chunks / plain_copy (fmha_splitkv_mma_plain.h) in Python: ((row, chunk), tile offset) of every copy."""
    cpr, rows, rb = t["cpr"], t["rows"], t["row_bytes"]
    row_lanes = min(cpr, 8)
    per_round = 32 // row_lanes
    period = 8 // per_round if 8 % per_round == 0 else 1
    for lane in range(32):
        row0, sub = lane // row_lanes, lane % row_lanes
        at = [t["chunk"][row0 + q * per_round][sub] - (row0 + q * per_round) * rb for q in range(period)]
        for rr in range(rows // per_round):
            for it in range(cpr // row_lanes):
                s_off = row0 * rb + rr * per_round * rb + at[rr % period] + it * row_lanes * 16
                yield (row0 + rr * per_round, sub + it * row_lanes), s_off


@pytest.mark.parametrize("cfg", MMA_CONFIGS, ids=lambda c: f"{c.dtype}_d{c.headdim}")
def test_swizzled_tile(layout, cfg):
    t = layout(cfg)
    assert t["valid"] and t["swizzled"] and t["row_bytes"] == cfg.headdim * 2
    flat = [o for row in t["chunk"] for o in row]
    assert sorted(flat) == list(range(0, t["tile_bytes"], 16))  # (a)
    assert lines_fill_aligned_spans(t)  # (b)
    for addrs in ldmatrix_matrices(t):  # (c)
        assert len({a // 16 % 8 for a in addrs}) == 8, addrs
    fwd_rb = t["fwd_row_bytes"]  # same logical (row, chunk) as the forward kernel's (padded, unswizzled) ldmatrix reads
    for a, ref in zip(t["k"] + t["v"], t["fwd_k"] + t["fwd_v"]):
        assert a == t["chunk"][ref // fwd_rb][ref % fwd_rb // 16]
    assert t["step_bad"] == 0 and t["step_bad_misaligned"] > 0
    copies = dict(plain_copy_offsets(t))
    assert len(copies) == t["rows"] * t["cpr"]
    assert all(off == t["chunk"][r][c] for (r, c), off in copies.items())
    for j in range(t["rows"]):  # clean_v: column col of key j at (col * 2) ^ swizzle_bits(j) in the row
        for col in range(cfg.headdim):
            assert j * t["row_bytes"] + ((col * 2) ^ t["swz"][j]) == t["chunk"][j][col * 2 // 16] + col * 2 % 16


@pytest.mark.parametrize("cfg", MMA_CONFIGS, ids=lambda c: f"{c.dtype}_d{c.headdim}")
def test_padded_layout_splits_lines(layout, cfg):
    """(d): padded rows are unswizzled, still conflict-free for ldmatrix, but put lines across 128-byte spans."""
    t = layout(cfg, lds_pad_bytes=16)
    assert t["valid"] and not t["swizzled"] and t["row_bytes"] == cfg.headdim * 2 + 16
    assert t["chunk"] == [[r * t["row_bytes"] + c * 16 for c in range(t["cpr"])] for r in range(t["rows"])]
    assert all(len({a // 16 % 8 for a in addrs}) == 8 for addrs in ldmatrix_matrices(t))
    assert not lines_fill_aligned_spans(t)
    assert t["step_bad"] == 0 and all(off == t["chunk"][r][c] for (r, c), off in plain_copy_offsets(t))


@pytest.mark.parametrize("headdim", [32, 96, 192, 256])
def test_config_rule_mirrors_valid(headdim):
    """TileConfig.validate refuses what MmaSplitKvShape::valid refuses for swizzled rows (whole 128-byte lines,
    1024-byte warp tiles, headdim <= 128: the XOR steps of at_step), naming the rule; padded rows stay allowed."""
    cfg = MMA_CONFIGS[0]
    with pytest.raises(ValueError, match="swizzled K/V rows"):
        dataclasses.replace(cfg, headdim=headdim).validate()
    dataclasses.replace(cfg, headdim=headdim, lds_pad_bytes=16).validate()
