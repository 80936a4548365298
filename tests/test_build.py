"""The build: arch lists (C13), generated instances, and the compiled modules on a machine without GPU.

CI installs rocflash with ROCFLASH_BUILD=hip,cuda (Debian hipcc for gfx906;gfx90a, nvcc for sm_80;sm_90)
and sets ROCFLASH_REQUIRE_BUILDS=hip,cuda: then a missing module fails these tests instead of skipping.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rocflash import build, codegen
from rocflash.backends.compiled import load_module, module_error
from rocflash import configs as rocflash_configs
from rocflash.configs import KINDS, load_configs
from conftest import require_builds


def test_amd_arch_list():  # C13
    assert build.parse_amd_archs("gfx906;gfx90a") == ["gfx906", "gfx90a"]
    assert build.parse_amd_archs("gfx90a:xnack-, gfx942") == ["gfx90a:xnack-", "gfx942"]
    assert build.parse_amd_archs(None) == ["gfx906", "gfx908", "gfx90a", "gfx942"]
    with pytest.raises(ValueError, match=r"GPU_ARCHS: unknown AMD arch 'gfx1100'; accepted: gfx906, gfx908, gfx90a, gfx942, gfx950"):
        build.parse_amd_archs("gfx906;gfx1100")
    with pytest.raises(ValueError, match=r"unknown AMD arch 'gfx906:turbo\+'"):
        build.parse_amd_archs("gfx906:turbo+")


def test_cuda_arch_list():
    assert build.parse_cuda_archs("8.0;9.0+PTX") == [("8.0", False), ("9.0", True)]
    # the module's compiled list names the PTX too: the selector lets it run on later devices (driver JIT)
    assert build.arch_names("cuda", [("8.0", True), ("9.0a", False)]) == ["sm_80", "compute_80", "sm_90a"]
    assert build.cuda_gencode_flags([("9.0", True)]) == ["-gencode=arch=compute_90,code=sm_90",
                                                          "-gencode=arch=compute_90,code=compute_90"]
    with pytest.raises(ValueError, match=r"TORCH_CUDA_ARCH_LIST: unknown compute capability '6.1'; accepted: 7.0"):
        build.parse_cuda_archs("6.1")
    # the wgmma kernels (RF_CUDA_SM90A) only where an sm_90 device can load nothing but the sm_90a cubin
    assert build.cuda_feature_defines(build.parse_cuda_archs("8.0;9.0a")) == ["-DRF_CUDA_SM90A=1"]
    assert build.cuda_feature_defines(build.parse_cuda_archs("9.0;9.0a")) == []
    assert build.cuda_feature_defines(build.parse_cuda_archs("8.0;9.0")) == []


def test_platform_choice():
    assert build.parse_platforms(None, torch_hip=True, torch_cuda=False) == ["hip"]
    assert build.parse_platforms("auto", torch_hip=False, torch_cuda=True) == ["cuda"]
    assert build.parse_platforms("auto", torch_hip=False, torch_cuda=False) == []
    assert build.parse_platforms("hip,cuda", False, False) == ["hip", "cuda"]
    with pytest.raises(ValueError, match=r"ROCFLASH_BUILD: unknown platform 'rocm'"):
        build.parse_platforms("rocm", False, False)


def test_codegen_self_describing_instances(tmp_path):
    sources = codegen.generate("gfx9", tmp_path)
    per_kind = {kind: [c for c in load_configs(kind) if c.target == "gfx9"] for kind in KINDS}
    paths = lambda c: 1 if c.impl == "sbcast" else 2  # noqa: E731 -- the scalar-broadcast forward: aligned only
    assert len(sources) == sum(paths(c) for cs in per_kind.values() for c in cs)
    names = {p.stem for p in sources}
    assert "rocflash_fmha_fwd_gfx9_fp16_d128_b128x32_t256x8_p16_vec" in names
    assert "rocflash_fmha_fwd_gfx9_fp16_d128_b128x32_t256x8_p16_narrow" in names
    assert "rocflash_fmha_bwd_dkdv_gfx9_fp16_d128_b32x64_t256x16_p16_vec" in names
    assert "rocflash_fmha_bwd_dq_gfx9_fp16_d128_b64x32_t256x16_p16_narrow" in names
    header = (tmp_path / "fmha_fwd_instances.h").read_text()
    assert "struct Tile_gfx9_fp16_d128_b128x32_t256x8_p16" in header and "/*block_m=*/128" in header
    assert "struct Tile_bwd_dkdv_gfx9_fp16_d128_b32x64_t256x16_p16" in (tmp_path / "fmha_bwd_dkdv_instances.h").read_text()
    for kind in KINDS:
        launches = (tmp_path / f"fmha_{kind}_table.inc").read_text().count(f"&launch_fmha_{kind}<")
        assert launches == sum(paths(c) for c in per_kind[kind]), kind
    mtimes = {p: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    codegen.generate("gfx9", tmp_path)  # unchanged content is not rewritten (incremental builds)
    assert mtimes == {p: p.stat().st_mtime_ns for p in tmp_path.iterdir()}


def test_generated_dir_keyed_by_generator_inputs(tmp_path, monkeypatch):
    """rocflash.isa generates into codegen.keyed_dir(<build dir>/gen, target): two trees whose configs differ get
    different directories under one shared build dir (concurrent audits never rewrite each other's headers
    mid-compile), the same tree always the same one (its compile cache stays warm); writes leave no temporary
    file behind and replace changed content."""
    import shutil

    from rocflash.configs import config_dir

    first = codegen.keyed_dir(tmp_path / "gen", "gfx9")
    assert first == codegen.keyed_dir(tmp_path / "gen", "gfx9") and first.name == "gfx9"
    configs = tmp_path / "configs"
    shutil.copytree(config_dir(), configs)
    (configs / "fmha_fwd.toml").write_text((configs / "fmha_fwd.toml").read_text() + "\n# another tree\n")
    monkeypatch.setenv("ROCFLASH_CK_CONFIGS", str(configs))
    second = codegen.keyed_dir(tmp_path / "gen", "gfx9")
    assert second != first and second.parent.parent == first.parent.parent == tmp_path / "gen"
    f = tmp_path / "x.h"
    codegen._write(f, "a")
    codegen._write(f, "b")
    assert f.read_text() == "b" and sorted(p.name for p in tmp_path.iterdir()) == ["configs", "x.h"]


@pytest.mark.parametrize("platform,arch_prefix,no_device", [("hip", "gfx", "hipErrorNoDevice"), ("cuda", "sm_", None)])
def test_compiled_module_imports_without_device(platform, arch_prefix, no_device):
    mod = load_module(platform)
    if mod is None:
        if platform in require_builds():
            pytest.fail(f"ROCFLASH_REQUIRE_BUILDS has {platform}, but {module_error(platform)}")
        pytest.skip(f"{platform} module not built: {module_error(platform)}")
    assert mod.platform() == platform
    archs = mod.compiled_archs()
    assert archs and all(a.startswith(arch_prefix) for a in archs)
    target = build.CONFIG_TARGET[platform]
    expected = [c.kernel_name(aligned) for kind in KINDS for c, aligned in codegen.instances(target, kind=kind)]
    assert [i["name"] for i in mod.instances()] == expected
    # dynamic LDS / shared memory per instance, as the launcher requests it, within every compiled arch's
    # per-block limit (NVIDIA: the opt-in maximum, 1 KiB below the per-SM size; AMD: the LDS per CU)
    from rocflash.targets import arch_info
    limit = min(arch_info(a).lds_per_cu - (1024 if arch_info(a).vendor == "nvidia" else 0) for a in archs)
    # Every instance but the scalar-broadcast forward (K/V through s_load, fmha_fwd_sbcast.h) stages tiles in LDS;
    # that one requests none, and the table says so (fwd_launch_lds_bytes, the value its launcher passes).
    for inst in mod.instances():
        assert 0 <= inst["lds_bytes"] <= limit, (inst, limit)
        assert (inst["lds_bytes"] == 0) == (inst.get("impl") == "sbcast"), inst
    # the dispatch picks the smallest headdim bucket that fits
    for kind in KINDS:
        i = mod.select_instance(kind, mod.DType.fp16, 40, True)
        assert mod.instances()[i]["kind"] == kind and mod.instances()[i]["headdim"] == 64 and mod.instances()[i]["aligned"]
        assert mod.select_instance(kind, mod.DType.fp16, 300, True) == -1
    n, err = mod.device_count()
    if n <= 0 and no_device:
        assert no_device in err


def test_info_reports_builds():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-m", "rocflash", "info"], capture_output=True, text=True, env=env, check=True).stdout
    assert "backends:" in out and "selected for" in out
    for platform in ("hip", "cuda"):
        mod = load_module(platform)
        if mod is not None:
            assert f"{platform:5s} built for {', '.join(mod.compiled_archs())}" in out
        elif platform in require_builds():
            pytest.fail(f"{platform} module missing")
    if load_module("hip") is not None:
        assert "no device present (hipErrorNoDevice)" in out or "device(s)" in out


def test_arch_lists_reject_empty_and_conflicts_and_drop_duplicates():
    with pytest.raises(ValueError, match=r"GPU_ARCHS must name at least one arch"):
        build.parse_amd_archs(";;")
    with pytest.raises(ValueError, match=r"unknown AMD arch 'gfx906:xnack-:xnack\+'"):
        build.parse_amd_archs("gfx906:xnack-:xnack+")
    assert build.parse_amd_archs("gfx906;gfx906") == ["gfx906"]
    with pytest.raises(ValueError, match=r"TORCH_CUDA_ARCH_LIST must name at least one"):
        build.parse_cuda_archs(";")
    assert build.parse_cuda_archs("8.0;8.0") == [("8.0", False)]
    assert build.parse_platforms("hip;hip", False, False) == ["hip"]


@pytest.mark.parametrize("field,value,pattern", [
    ("headdim", "64.0", r"headdim must be an int, got 64.0"),
    ("waves_per_simd", '"x"', r"waves_per_simd must be an int, got 'x'"),
    ("waves_per_simd", "-3", r"waves_per_simd must be >= 0"),
    ("block_m", "true", r"block_m must be an int, got True"),
])
def test_config_field_types(tmp_path, field, value, pattern):
    src = (rocflash_configs.config_dir() / "fmha_fwd.toml").read_text()
    head, sep, rest = src.partition("[[fwd]]")
    lines = rest.splitlines()
    lines = [f"{field} = {value}" if ln.startswith(f"{field} =") else ln for ln in lines]
    path = tmp_path / "fmha_fwd.toml"
    path.write_text(head + sep + "\n".join(lines))
    with pytest.raises(ValueError, match=pattern):
        load_configs("fwd", path)


def test_config_tables_must_be_tables(tmp_path):
    path = tmp_path / "fmha_fwd.toml"
    path.write_text("fwd = 3\n")
    with pytest.raises(ValueError, match=r"fwd must be an array of tables"):
        load_configs("fwd", path)
    with pytest.raises(ValueError, match=r"target must be one of \('gfx9', 'cuda'\), got 'gfx1100'"):
        rocflash_configs.select_config("fwd", "gfx1100", "fp16", 64)


def test_codegen_tensor_core_instances(tmp_path):
    """The CUDA build generates the mma instances beside the vector ones, named by their tile math."""
    codegen.generate("cuda", tmp_path)
    header = (tmp_path / "fmha_fwd_instances.h").read_text()
    assert "static constexpr MmaFwdTileShape kShape" in header and "TileMath::kMma" in header
    table = (tmp_path / "fmha_fwd_table.inc").read_text()
    assert '"rocflash_fmha_fwd_cuda_mma_bf16_d128_' in table and "TileMath::kMma}" in table
    assert '"rocflash_fmha_fwd_cuda_fp16_d128_b128x32_t256x8_p16_vec"' in table  # the vector ones stay built
    gfx9 = codegen.generate("gfx9", tmp_path / "gfx9")
    assert not any("mma" in p.name for p in gfx9)  # the HIP build never compiles the tensor-core tile math


@pytest.mark.parametrize("change,pattern", [
    ({"threads_n": 16}, r"threads_n must be 4 for impl 'mma'"),
    ({"block_m": 96}, r"block_m must be a multiple of 16 rows per warp \(128\)"),
    ({"dtype": "fp32"}, r"impl 'mma' is a CUDA forward/backward tile math for fp16/bf16"),
    ({"target": "gfx9"}, r"impl 'mma' is a CUDA forward/backward tile math"),
    ({"impl": "wmma"}, r"impl must be one of \('vector', 'mma', 'sbcast'\), got 'wmma'"),
])
def test_mma_config_rules(change, pattern):
    good = rocflash_configs.TileConfig(target="cuda", impl="mma", dtype="bf16", headdim=128, block_m=128,
                                       block_n=64, threads=256, threads_n=4, lds_pad_bytes=16, waves_per_simd=2)
    good.validate()
    import dataclasses
    with pytest.raises(ValueError, match=pattern):
        dataclasses.replace(good, **change).validate()


@pytest.mark.parametrize("kind,change,pattern", [
    ("bwd_dkdv", {"block_n": 192}, r"block_n must be 16 or 32 per warp \(64 or 128\) for impl 'mma' bwd_dkdv, got 192"),
    ("bwd_dq", {"block_m": 32}, r"block_m must be 16 or 32 per warp \(64 or 128\) for impl 'mma' bwd_dq, got 32"),
    ("bwd_dkdv", {"block_m": 40}, r"block_m and headdim must be multiples of 16"),
    ("bwd_dq", {"threads_n": 16}, r"threads_n must be 4 for impl 'mma'"),
    ("bwd_dq", {"target": "gfx9"}, r"impl 'mma' is a CUDA forward/backward tile math"),
    # FlashAttention-2's warp grid and the atomic-dQ kernel's own tile (tcbwd4)
    ("bwd_dkdv", {"s_query_warps": 3}, r"s_query_warps must be 1 or 2 and divide the 4 warps, got 3"),
    ("bwd_dkdv", {"q_buffers": 1}, r"q_buffers must be 2, or 1 with s_query_warps 2, got 1"),
    ("bwd_dkdv", {"s_query_warps": 2, "block_m": 48}, r"block_m and headdim must be multiples of 16 \* s_query_warps"),
    ("bwd_dkdv", {"s_query_warps": 2, "block_n": 96}, r"block_n must be 16 or 32 per warp \(32 or 64\)"),
    ("bwd_dkdv", {"atomic_block_m": 40}, r"atomic_block_m / atomic_s_query_warps / atomic_q_buffers: block_m and headdim"),
    ("bwd_dq", {"s_query_warps": 2}, r"s_query_warps, q_buffers and atomic_\* are fields of the tensor-core dK/dV kernel"),
])
def test_mma_backward_config_rules(kind, change, pattern):
    import dataclasses
    good = rocflash_configs.TileConfig(target="cuda", impl="mma", dtype="bf16", headdim=128, block_m=64, block_n=64,
                                       threads=128, threads_n=4, lds_pad_bytes=16, waves_per_simd=1, kind=kind)
    good.validate()
    with pytest.raises(ValueError, match=pattern):
        dataclasses.replace(good, **change).validate()


def test_dkdv_grid_config_names_and_atomic_tile():
    import dataclasses
    cfg = rocflash_configs.TileConfig(target="cuda", impl="mma", dtype="bf16", headdim=128, block_m=64, block_n=64,
                                      threads=128, threads_n=4, lds_pad_bytes=16, waves_per_simd=2, kind="bwd_dkdv",
                                      s_query_warps=2, q_buffers=1, atomic_block_m=32, atomic_s_query_warps=1,
                                      atomic_q_buffers=2)
    cfg.validate()
    assert cfg.tile_name == "cuda_mma_bf16_d128_b64x64_t128x4_p16_g2q1_a32g1q2"
    atomic = cfg.atomic_config()
    assert (atomic.block_m, atomic.s_query_warps, atomic.q_buffers) == (32, 1, 2)
    assert atomic.tile_name == "cuda_mma_bf16_d128_b32x64_t128x4_p16"
    plain = dataclasses.replace(cfg, atomic_block_m=0, atomic_s_query_warps=0, atomic_q_buffers=0)
    assert plain.atomic_config() is plain and plain.tile_name.endswith("_g2q1")
    # shared memory of each kernel's own tile (MmaBwdDkdvShape::lds_bytes / lds_bytes_atomic_dq)
    from rocflash import mma_audit
    row, st = 128 * 2 + 16, 64 * (64 * 2 + 16)
    assert mma_audit.lds_bytes(cfg) == (2 * 64 + 2 * 64) * row + 12 * 64 + 2 * st
    assert mma_audit.lds_bytes(cfg, "bwd_dkdvq") == (2 * 64 + 4 * 32) * row + 24 * 32 + 64 * (32 * 2 + 16)


def test_backward_mma_instances_generated(tmp_path):
    codegen.generate("cuda", tmp_path)
    for kind, shape in (("bwd_dkdv", "MmaBwdDkdvShape"), ("bwd_dq", "MmaBwdDqShape")):
        assert f"static constexpr {shape} kShape" in (tmp_path / f"fmha_{kind}_instances.h").read_text()
        table = (tmp_path / f"fmha_{kind}_table.inc").read_text()
        assert f'"rocflash_fmha_{kind}_cuda_mma_bf16_d128_' in table and "TileMath::kMma}" in table
    assert "static constexpr MmaBwdDkdvShape kAtomicShape" in (tmp_path / "fmha_bwd_dkdv_instances.h").read_text()


def test_kernel_switch_is_checked(monkeypatch):
    from rocflash.backends import compiled
    for value, expect in (("", "auto"), ("vector", "vector"), (" MMA ", "mma")):
        monkeypatch.setenv(compiled.KERNEL_ENV, value)
        assert compiled.kernel_choice() == expect
    monkeypatch.setenv(compiled.KERNEL_ENV, "tensor")
    with pytest.raises(ValueError, match=r"ROCFLASH_KERNEL must be one of auto, vector, mma, sbcast, got 'tensor'"):
        compiled.kernel_choice()
    import torch
    assert "fp16 or bf16" in compiled.mma_unavailable("cuda", torch.device("cpu"), torch.float32)
    assert "NVIDIA only" in compiled.mma_unavailable("hip", torch.device("cpu"), torch.float16)


def test_splitkv_switches_are_checked(monkeypatch):
    """ROCFLASH_SPLITKV_INFLIGHT (1/2, unset 1) and ROCFLASH_SPLITKV_FUSED_COMBINE (0/1, unset 0)."""
    from rocflash.backends import compiled
    for value, expect in (("", 1), ("1", 1), ("2", 2), (" 2 ", 2)):
        monkeypatch.setenv(compiled.SPLITKV_INFLIGHT_ENV, value)
        assert compiled.splitkv_inflight() == expect
    for bad in ("3", "0", "two", "yes"):
        monkeypatch.setenv(compiled.SPLITKV_INFLIGHT_ENV, bad)
        with pytest.raises(ValueError, match=rf"ROCFLASH_SPLITKV_INFLIGHT must be one of 1, 2, got '{bad}'"):
            compiled.splitkv_inflight()
    for value, expect in (("", False), ("0", False), ("1", True)):
        monkeypatch.setenv(compiled.SPLITKV_FUSED_COMBINE_ENV, value)
        assert compiled.splitkv_fused_combine() is expect
    monkeypatch.setenv(compiled.SPLITKV_FUSED_COMBINE_ENV, "on")
    with pytest.raises(ValueError, match=r"ROCFLASH_SPLITKV_FUSED_COMBINE must be one of 0, 1, got 'on'"):
        compiled.splitkv_fused_combine()


def test_splitkv_pdl_switch(monkeypatch):
    """ROCFLASH_SPLITKV_PDL (0/1, unset 1 since dec9): programmatic dependent launches only on an NVIDIA sm_90+
    device."""
    import torch

    from rocflash.backends import compiled, splitkv_env
    cuda = torch.device("cuda", 0)
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    built = ("sm_80", "sm_90", "compute_90")
    monkeypatch.setattr(splitkv_env, "_compiled_cuda_archs", lambda: built)
    for cap, value, expect in (((9, 0), "", True), ((9, 0), "1", True), ((9, 0), "0", False), ((10, 0), "1", True),
                               ((8, 0), "1", False), ((8, 9), "1", False)):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None, cap=cap: cap)
        monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, value)
        assert compiled.splitkv_pdl(cuda) is expect, (cap, value)
        assert compiled.splitkv_pdl(torch.device("cpu")) is False
    # PDL follows the code the driver runs, not the device: an 8.0+PTX build's compute_80 code on an sm_90 device
    # has its griddepcontrol.wait compiled out (a dependent launch would race), so no PDL there
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (9, 0))
    monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, "1")
    for archs, expect in ((("sm_80", "compute_80"), False), (("sm_80", "compute_80", "sm_90a"), True),
                          (("compute_90",), True), ((), False)):
        monkeypatch.setattr(splitkv_env, "_compiled_cuda_archs", lambda archs=archs: archs)
        assert compiled.splitkv_pdl(cuda) is expect, archs
    monkeypatch.setattr(splitkv_env, "_compiled_cuda_archs", lambda: built)
    monkeypatch.setattr(torch.version, "cuda", None)  # a ROCm torch names its GPUs "cuda" too: no PDL there
    monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, "1")
    assert compiled.splitkv_pdl(cuda) is False
    monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, "yes")
    with pytest.raises(ValueError, match=r"ROCFLASH_SPLITKV_PDL must be one of 0, 1, got 'yes'"):
        compiled.splitkv_pdl(cuda)
