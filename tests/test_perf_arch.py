"""rocflash.perf.arch: the peak table against shared/reference/facts.md, device matching, which peak applies."""

from __future__ import annotations

import pytest

from rocflash.perf import arch

REQUIRED = ["MI50", "MI60", "MI100", "MI210", "MI250X", "MI300X", "MI355X", "A100-80GB", "H100", "H200"]


def test_table_has_required_rows_with_sources():
    for key in REQUIRED:
        a = arch.ARCHS[key]
        assert a.fp32 > 0 and a.packed_fp16 > 0 and a.hbm_tbps > 0 and a.units > 0, key
        assert a.source.strip(), key
        assert a.matrix_fp16 is None or a.matrix_fp16 > a.packed_fp16, key


@pytest.mark.parametrize("key,arch_name,units,fp32,packed,matrix,hbm", [
    # shared/reference/facts.md section 6 (datasheet), vector rates derived from CUs x clock
    ("MI50", "gfx906", 60, 13.3, 26.5, None, 1.02),
    ("MI60", "gfx906", 64, 14.7, 29.5, None, 1.02),
    ("MI100", "gfx908", 120, 23.1, 46.1, 184.6, 1.23),
    ("MI210", "gfx90a", 104, 22.6, 45.3, 181, 1.6),
    ("MI250X", "gfx90a", 220, 47.9, 95.7, 383, 3.2),
    ("MI300X", "gfx942", 304, 81.7, 163.4, 1307, 5.3),
    ("MI355X", "gfx950", 256, 78.6, 157.3, 2500, 8.0),
])
def test_amd_rows_match_facts(key, arch_name, units, fp32, packed, matrix, hbm):
    a = arch.ARCHS[key]
    assert (a.arch, a.units) == (arch_name, units)
    assert a.fp32 == pytest.approx(fp32, rel=0.01)
    assert a.packed_fp16 == pytest.approx(packed, rel=0.01)
    assert a.packed_fp16 == pytest.approx(2 * a.fp32, rel=1e-3)  # dot2 / packed: two FMAs per lane per clock
    assert (a.matrix_fp16 is None) == (matrix is None)
    if matrix is not None:
        assert a.matrix_fp16 == pytest.approx(matrix, rel=0.01)
    assert a.hbm_tbps == pytest.approx(hbm, rel=0.03)


def test_h200_measured_anchors():
    h = arch.ARCHS["H200"]
    assert h.matrix_fp16 == 754.0 and h.hbm_tbps == 4.3  # facts.md section 7, measured
    assert set(h.measured) == {"matrix_fp16", "hbm_tbps"}
    assert h.datasheet == {"matrix_fp16": 989.4, "hbm_tbps": 4.8}
    assert "measured" in h.source and "datasheet" in h.source
    assert h.to_dict()["measured"] == ["matrix_fp16", "hbm_tbps"]
    assert all(not a.measured for k, a in arch.ARCHS.items() if k != "H200")


@pytest.mark.parametrize("platform,arch_name,name,units,key", [
    ("hip", "gfx906", "Vega 20 [Radeon Pro VII/Radeon Instinct MI50 32GB]", 60, "MI50"),
    ("hip", "gfx906", "AMD Instinct MI50/MI60", 64, "MI60"),
    ("hip", "gfx906", "AMD Instinct MI50/MI60", 60, "MI50"),
    ("hip", "gfx906", "Vega 20", 64, "MI60"),  # no name token: the CU count decides
    ("hip", "gfx906", "Vega 20", 60, "MI50"),
    ("hip", "gfx908", "AMD Instinct MI100", 120, "MI100"),
    ("hip", "gfx90a", "AMD Instinct MI210", 104, "MI210"),
    ("hip", "gfx942", "AMD Instinct MI300X", 304, "MI300X"),
    ("hip", "gfx950", "AMD Instinct MI355X", 256, "MI355X"),
    ("cuda", "sm_90", "NVIDIA H200", 132, "H200"),
    ("cuda", "sm_90", "NVIDIA H100 80GB HBM3", 132, "H100"),
    ("cuda", "sm_90", "NVIDIA H100 PCIe", 114, "H100-PCIe"),
    ("cuda", "sm_80", "NVIDIA A100-SXM4-80GB", 108, "A100-80GB"),
    ("cuda", "sm_80", "NVIDIA A100-SXM4-40GB", 108, "A100-40GB"),
])
def test_match(platform, arch_name, name, units, key):
    spec, how = arch.match_arch(platform, arch_name, name, units)
    assert spec is not None and spec.key == key, how


def test_mi250x_gcd_is_half():
    spec, how = arch.match_arch("hip", "gfx90a", "AMD Instinct MI250X", 110)
    full = arch.ARCHS["MI250X"]
    assert spec.key == "MI250X-GCD" and "GCD" in how
    assert spec.matrix_fp16 == pytest.approx(full.matrix_fp16 / 2)
    assert spec.hbm_tbps == pytest.approx(full.hbm_tbps / 2)
    assert spec.fp32 == pytest.approx(full.fp32 / 2)
    # by CU count alone, too
    assert arch.match_arch("hip", "gfx90a", "", 110)[0].key == "MI250X-GCD"


@pytest.mark.parametrize("platform,arch_name,name,units", [
    ("hip", "gfx1100", "Radeon RX 7900 XTX", 96),
    ("hip", "gfx942", "AMD Instinct MI300A", 228),
    ("cuda", "sm_70", "Tesla V100-SXM2-16GB", 80),
    (None, None, "cpu", None),
])
def test_no_match(platform, arch_name, name, units):
    spec, how = arch.match_arch(platform, arch_name, name, units)
    assert spec is None
    if platform is not None:
        assert "--arch" in how and name in how


def test_lookup():
    assert arch.lookup("mi50").key == "MI50"
    with pytest.raises(ValueError, match=r"--arch must be one of MI50, .*H200, got 'MI8'"):
        arch.lookup("MI8")


@pytest.mark.parametrize("method,dtype,key,kind", [
    ("rocflash-hip", "fp16", "MI50", "packed_fp16"),  # v_dot2_f32_f16
    ("rocflash-hip", "bf16", "MI50", "fp32"),
    ("rocflash-hip", "fp32", "MI300X", "fp32"),
    ("rocflash-cuda", "fp16", "H200", "matrix_fp16"),  # CUDA build: tensor cores (mma.sync) by default
    ("rocflash-cuda", "fp32", "H200", "fp32"),
    ("rocflash-cuda-vector", "fp16", "H200", "fp32"),  # vector tile math: two fp32 FMAs per fp16 pair
    ("rocflash-torch", "fp16", "H200", "fp32"),
    ("sdpa-flash", "fp16", "H200", "matrix_fp16"),
    ("sdpa-cudnn", "bf16", "H100", "matrix_fp16"),
    ("naive", "fp16", "MI300X", "matrix_fp16"),
    ("sdpa-math", "fp16", "MI50", "packed_fp16"),  # no matrix cores on gfx906
    ("naive", "fp32", "H200", "fp32"),
    ("rocflash-sim", "fp16", "H200", None),
])
def test_peak_kind(method, dtype, key, kind):
    assert arch.peak_kind(method, dtype, arch.ARCHS[key]) == kind


def test_peak_kind_without_arch_and_bad_kind():
    assert arch.peak_kind("sdpa-flash", "fp16", None) is None
    with pytest.raises(ValueError, match=r"peak kind must be one of matrix_fp16, packed_fp16, fp32, got 'tensor'"):
        arch.ARCHS["H200"].peak("tensor")
    assert arch.ARCHS["MI50"].peak("matrix_fp16") is None
