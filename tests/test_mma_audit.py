"""ptxas audit of the tensor-core forward instances (rocflash.mma_audit): every mma instance on sm_80 and sm_90
has its products in the main loop, no spills, and registers / shared memory within its designed occupancy.

Marked ``toolchain`` (needs nvcc; under CI=true a missing nvcc is a failure, elsewhere the test skips). The
rule checks are also run on hand-made audits that break each rule, so a check that cannot fail shows up.
"""

from __future__ import annotations

import os

import pytest

from rocflash import build, mma_audit


def _need_nvcc() -> None:
    try:
        build.find_nvcc()
    except build.BuildError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but nvcc is missing ({e}); CI installs it with ci/install_toolchain.sh")
        pytest.skip(f"nvcc is missing ({e})")


@pytest.fixture(scope="module")
def audits():
    _need_nvcc()
    return mma_audit.run_audit()


@pytest.mark.toolchain
def test_every_mma_kernel_passes(audits):
    expected = {(c.kernel_name(al), arch) for c, al in mma_audit.mma_instances() for arch in mma_audit.ARCHS}
    # plus, on sm_90a, the atomic-dQ kernel with its dQ product on wgmma, for the configs it serves
    wg = {(c.kernel_name(al), mma_audit.WGMMA_ARCH[0]) for c, al in mma_audit.mma_instances(kinds=("bwd_dkdv",))
          if mma_audit.wgmma_dq(c)}
    assert wg and all("_d64_" in n or "_d128_" in n for n, _ in wg)
    # ... and the atomic-dQ kernel with the dQ warp tile of 32 query rows (mma.sync; ROCFLASH_BWD_DQ_TILE=1)
    dq2 = {(c.kernel_name(al), mma_audit.WGMMA_ARCH[0]) for c, al in mma_audit.mma_instances(kinds=("bwd_dkdv",))
           if mma_audit.dq_tile2(c)}
    assert dq2 and any("_d128_" in n for n, _ in dq2) and any("_d64_" in n for n, _ in dq2)
    # ... and the atomic-dQ kernel's lean variants 2 and 3 (ROCFLASH_BWD_LEAN), from every layout-1 atomic tile
    lean = {(c.kernel_name(al), arch) for c, al in mma_audit.mma_instances(kinds=("bwd_dkdv",)) if mma_audit.lean(c)
            for arch in mma_audit.ARCHS}
    assert lean and any("_d128_" in n for n, _ in lean) and any("_d64_" in n for n, _ in lean)
    expected |= wg | dq2
    assert {(a.instance, a.arch) for a in audits} == expected
    fwd = {(c.kernel_name(al), arch) for c, al in mma_audit.mma_instances(kinds=("fwd",)) for arch in mma_audit.ARCHS}
    assert sorted(a.general for a in audits if a.kind == "fwd") == [False] * len(fwd) + [True] * len(fwd)
    # the backward's tensor-core kernels are audited too: one per dQ instance, two per dK/dV instance (the
    # deterministic one and the atomic-dQ one of deterministic=False, five products per tile)
    bwd = [a for a in audits if a.kind != "fwd"]
    dkdv = {(c.kernel_name(al), arch) for c, al in mma_audit.mma_instances(kinds=("bwd_dkdv",)) for arch in mma_audit.ARCHS}
    assert {a.kind for a in bwd} == {"bwd_dkdv", "bwd_dkdvq", "bwd_dq", "bwd_dkdvq_wg", "bwd_dkdvq_dq2", "bwd_dkdvq_lean2",
                                     "bwd_dkdvq_lean3"}
    assert len(bwd) == (len(expected - fwd - wg - dq2) + len(dkdv) + mma_audit.WGMMA_VARIANTS * len(wg)
                        + len(dq2) + mma_audit.LEAN_VARIANTS * len(lean))
    assert {(a.instance, a.arch) for a in bwd if a.kind == "bwd_dkdvq_wg"} == wg
    assert {(a.instance, a.arch) for a in bwd if a.kind == "bwd_dkdvq_dq2"} == dq2
    assert {(a.instance, a.arch) for a in bwd if a.kind == "bwd_dkdvq_lean2"} == lean
    assert {(a.instance, a.arch) for a in bwd if a.kind == "bwd_dkdvq_lean3"} == lean
    assert all(a.blocks == 1 for a in bwd if a.kind == "bwd_dkdvq_lean3")
    assert all(a.wgmma_in_loop >= a.wgmma_per_tile > 0 for a in bwd if a.kind == "bwd_dkdvq_wg")
    assert {(a.instance, a.arch) for a in bwd if a.kind == "bwd_dkdvq"} == dkdv
    # per key x query pair of a warp's tile (the atomic-dQ kernel may have its own tile: the atomic_* fields)
    cfgs = {c.kernel_name(al): c for c, al in mma_audit.mma_instances(kinds=("bwd_dkdv",))}

    def pairs(a):
        t = cfgs[a.instance].atomic_config() if a.kind == "bwd_dkdvq" else cfgs[a.instance]
        return a.rows_per_warp * t.block_m // t.s_query_warps

    assert all(a.mma_per_tile * 4 * pairs(b) == 5 * b.mma_per_tile * pairs(a)
               for a in bwd if a.kind == "bwd_dkdvq"
               for b in bwd if b.kind == "bwd_dkdv" and (b.instance, b.arch) == (a.instance, a.arch))
    # Kernels with a known violation (open defects), listed so that any other violation fails and a fixed one
    # fails until it is removed from here. None open: the d256 sm_90 spills of 2026-11-30 are gone since branch
    # tcfwd, the d128 32-rows-per-warp plain kernels' 8 B sm_90 spill (since the fp32 O store, branch acc) since
    # branch tcbwd2 (tid re-read per block in the plain-score kernels).
    # Open since stop 10 (found by the clean-clone CI check of the merged tree, not fixed in that stop): the d256
    # general-score (softcap/ALiBi) forward spills 16 B on sm_90 after the stop's forward changes (tcfwd3's P
    # packing / eco8's rf_mul_rn), and the d128 dK/dV kernels spill 48 B on sm_80 after tcbwd3's loop; the H200
    # (sm_90) runs of the backward are unaffected, sm_80 was never executed.
    # The d256 general-score sm_90 spill is gone on branch integ20 (251 registers, 0 B; the forward epilogue's
    # overflow-row pass after the O stores on CUDA, kFwdOverflowAfterStores); removed from the list.
    # Since branch tcbwd4 the bf16 d128 deterministic dK/dV kernel runs FlashAttention-2's warp grid (no spill on
    # either arch: its 48 B sm_80 spill is gone; fp16 d128 keeps the old tile and its spill) with 88832 B of shared
    # memory: 2 blocks per SM on sm_90 (228 KB) as designed, but only 1 on sm_80 (164 KB): the sm_80 occupancy rule
    # fails there (open; sm_80 was never executed).
    # Both sm_80 entries are gone since branch tc80: the fp16 d128 deterministic dK/dV kernel re-reads tid for its
    # K/V copies on sm_80 (255 registers, 0 B; the 48 B spill was the grid walk's index and those copies' lane
    # addresses), and below sm_90 the bf16 d128 grid tile runs in the core-matrix layout (MmaBwdDkdvShape::compact,
    # 82688 B: 2 blocks per sm_80 SM; sm_90 keeps the padded 88832 B tile). sm_90a SASS of every dK/dV instance unchanged.
    # Branch tcws6's opt-in sm_90a kernel with S^T / dP^T on wgmma (ROCFLASH_BWD_SDP_WGMMA; 12 B stores + 36 B loads
    # of spill at d128, 7-9 % slower than the default in integ20) was removed in branch tc80: no entry is open. Entries
    # name (instance, arch, kind), kind None = any kernel of the instance on that arch.
    known: set[tuple[str, str, str | None]] = set()

    def listed(a):
        return next((e for e in ((a.instance, a.arch, a.kind), (a.instance, a.arch, None)) if e in known), None)

    violations = [v for a in audits if listed(a) is None for v in mma_audit.check(a)]
    assert not violations, "\n".join(violations)
    still = {listed(a) for a in audits if listed(a) is not None and mma_audit.check(a)}
    assert still == known, f"no longer violating (remove from the known list): {known - still}"
    assert all(a.mma_in_loop > 0 for a in audits)


@pytest.fixture(scope="module")
def narrow_audits():
    _need_nvcc()
    return mma_audit.run_audit(paths="both", only="_narrow", wgmma=False)


@pytest.mark.toolchain
def test_narrow_path_kernels(narrow_audits):
    """The narrow (unaligned-row, register-staged) load path of every mma instance on sm_80 and sm_90: the same rules
    as the 128-bit path. The H200 runs the sm_90 kernels whenever rows are not 16-byte aligned or headdim does not
    fill whole 16-byte vectors. Found 2026-12-02 with 6 spilling d128 kernels (8-676 B: the fully unrolled
    element-wise copies held every pass's vector and addresses at once); since stop 24 the backward's narrow copies
    unroll two passes (fmha_mma_bwd.h ``MmaBwdOps::copy_rows``), the forward's two below sm_90 and all on sm_90
    (fmha_mma.h ``kNarrowUnrollAll``: no spill there and faster), and none spills."""
    expected = {(c.kernel_name(al), arch) for c, al in mma_audit.mma_instances("both") if not al
                for arch in mma_audit.ARCHS}
    assert expected and {(a.instance, a.arch) for a in narrow_audits} == expected
    violations = [v for a in narrow_audits for v in mma_audit.check(a)]
    assert not violations, "\n".join(violations)
    assert all(a.mma_in_loop > 0 for a in narrow_audits)


def _good(**kw):
    a = mma_audit.MmaKernelAudit(instance="x", symbol="x", arch="sm_90", general=False, rows_per_warp=32,
                                 registers=200, spill_bytes=0, mma_in_loop=128, mma_per_tile=128,
                                 register_limit=255, lds_bytes=36864, blocks=2)
    for k, v in kw.items():
        setattr(a, k, v)
    return a


@pytest.mark.parametrize("change,pattern", [
    ({"mma_in_loop": 0}, "main loop must hold >= 128"),
    ({"mma_in_loop": 64}, "main loop must hold >= 128"),
    ({"mma_in_loop": 160}, "in whole products of 64"),
    ({"spill_bytes": 8}, "must not spill"),
    ({"registers": 255, "register_limit": 128}, "registers must be <= 128"),
    ({"lds_bytes": 120 * 1024}, "shared memory must fit"),
])
def test_rules_flag_bad_kernels(change, pattern):
    assert mma_audit.check(_good()) == [] and mma_audit.check(_good(mma_in_loop=192)) == []
    assert any(pattern in v for v in mma_audit.check(_good(**change)))


def test_wgmma_rule_flags_missing_products():
    a = _good(kind="bwd_dkdvq_wg", mma_per_tile=128, mma_in_loop=128, wgmma_per_tile=8, wgmma_in_loop=8)
    assert mma_audit.check(a) == []
    for n in (0, 4, 12):
        a.wgmma_in_loop = n
        assert any("wgmma.mma_async" in v for v in mma_audit.check(a)), n


def test_main_loop_detection_on_ptx():
    ptx = """
.visible .entry k(
)
{
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1}, {%r1}, {%r2}, {%f1};
$L__BB0_1:
	ld.shared.u32 %r1, [%r2];
$L__BB0_2:
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1}, {%r1}, {%r2}, {%f1};
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1}, {%r1}, {%r2}, {%f1};
	@%p1 bra $L__BB0_2;
	@%p2 bra.uni $L__BB0_1;
	ret;
}
"""
    body = mma_audit.ptx_entries(ptx)["k"]
    assert mma_audit.main_loop_mma_count(body) == 2  # the inner loop, not the outer one nor the prologue
    assert mma_audit.main_loop_mma_count([ln for ln in body if "bra" not in ln]) == 0
    assert mma_audit.main_loop_mma_count(body, "wgmma.mma_async") == 0


def test_occupancy_arithmetic():
    from rocflash.configs import TileConfig
    cfg = TileConfig(target="cuda", impl="mma", dtype="bf16", headdim=128, block_m=64, block_n=64, threads=128,
                     threads_n=4, lds_pad_bytes=16, waves_per_simd=2)
    assert mma_audit.designed_blocks(cfg) == 2 and mma_audit.register_limit(cfg) == 255
    assert mma_audit.lds_bytes(cfg) == (64 + 128) * 272
    cfg4 = TileConfig(**{**cfg.__dict__, "waves_per_simd": 4})
    assert mma_audit.designed_blocks(cfg4) == 4 and mma_audit.register_limit(cfg4) == 128


def test_ldmatrix_reads_are_conflict_free():
    """The padded shared layout of every mma config serves each ldmatrix phase without bank conflicts (host
    probe of MmaFwdTileShape's addresses, the ISA audit's bank model); the unpadded one would conflict."""
    from rocflash.build import BuildError
    try:
        cfgs = list(dict.fromkeys(c for c, _ in mma_audit.mma_instances()))
        for cfg in cfgs:
            assert mma_audit.check_bank_conflicts(cfg) == [], cfg.tile_name
            assert max(mma_audit.bank_conflicts(cfg, lds_pad_bytes=0).values()) > 1, cfg.tile_name
    except BuildError as e:
        pytest.skip(f"the host C++ compiler is missing ({e})")


def test_backward_counts_and_lds():
    """The backward kernels' per-iteration product counts and shared memory (fmha_mma_bwd_tile.h's layouts)."""
    from rocflash.configs import TileConfig
    kw = dict(target="cuda", impl="mma", dtype="bf16", headdim=128, threads=128, threads_n=4, lds_pad_bytes=16,
              waves_per_simd=1)
    dkdv = TileConfig(**kw, block_m=32, block_n=64, kind="bwd_dkdv")
    dq = TileConfig(**kw, block_m=64, block_n=64, kind="bwd_dq")
    assert mma_audit.mma_per_tile(dkdv, 16) == 4 * 2 * 16 and mma_audit.mma_per_tile(dq, 16) == 3 * 4 * 16
    assert mma_audit.lds_bytes(dkdv) == (128 + 128) * 272 + 24 * 32 and mma_audit.lds_bytes(dq) == (128 + 256) * 272
    # the grid tile (bf16 d128's deterministic one): padded on sm_90, compact (core-matrix layout) on sm_80, where
    # 2 blocks must fit 164 KB: 2 * (82688 + 1024) <= 167936
    grid = TileConfig(**{**kw, "waves_per_simd": 2}, block_m=64, block_n=64, kind="bwd_dkdv", s_query_warps=2, q_buffers=1)
    assert mma_audit.lds_bytes(grid, arch="sm_90") == 88832 == (128 + 128) * 272 + 12 * 64 + 2 * 64 * 144
    assert mma_audit.lds_bytes(grid, arch="sm_80") == 82688 == 4 * 64 * 256 + 12 * 64 + 2 * 64 * 128
    assert 2 * (82688 + mma_audit.SMEM_RESERVED_PER_BLOCK) <= mma_audit.SMEM_PER_SM["sm_80"] < 2 * (88832 + 1024)
    assert mma_audit.lds_bytes(dkdv, arch="sm_80") == mma_audit.lds_bytes(dkdv)  # layout 1: padded everywhere
    a = _good(kind="bwd_dq", mma_per_tile=192, mma_in_loop=192)
    assert mma_audit.check(a) == [] and any("whole products of 64" in v for v in mma_audit.check(_good(
        kind="bwd_dq", mma_per_tile=192, mma_in_loop=224)))
    proxy = mma_audit.bank_proxy(dkdv)
    assert proxy.kind == "fwd" and proxy.block_m == 64 and proxy.block_n == 64 and proxy.headdim == 128
