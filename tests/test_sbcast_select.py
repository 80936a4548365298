"""The gfx9 scalar-broadcast forward (ck_configs impl "sbcast") in the build and the HIP backend's selector.

CPU only: the configs' rules, the generated instances (aligned path only, TileMath::kSbcast, HIP target only) and
the selector's decisions against a stand-in for the compiled module (no GPU, no compiled module needed). The
kernel's results are checked on the gfx906 emulator (test_emu_sbcast.py).
"""

from __future__ import annotations

import types

import pytest
import torch

from rocflash import codegen
from rocflash.backends import FwdArgs
from rocflash.backends import compiled
from rocflash.configs import TileConfig, load_configs

SBCAST = dict(target="gfx9", impl="sbcast", dtype="fp16", headdim=128, block_m=256, block_n=16, threads=256,
              threads_n=1, lds_pad_bytes=0, waves_per_simd=1)


def test_sbcast_configs_are_fp16_d64_d128():
    got = {(c.headdim, c.block_n) for c in load_configs("fwd") if c.impl == "sbcast"}
    assert got == {(64, 32), (64, 64), (128, 16)}
    from rocflash.emu.driver_sbcast import DISPATCH_BLOCK_N, kernel_name  # the emulator runs the same instances
    assert DISPATCH_BLOCK_N == {64: 32, 128: 16}
    assert {kernel_name(n, d) for d, n in DISPATCH_BLOCK_N.items()} == \
        {c.kernel_name(True) for c in load_configs("fwd") if c.impl == "sbcast" and c.target == "gfx9"}
    cuda = {(c.headdim, c.block_n) for c in load_configs("fwd") if c.impl == "sbcast" and c.target == "cuda"}
    assert cuda == {(64, 64)}  # the CUDA build runs the d64 tile's logic (d128 spills on sm_90)
    TileConfig(**SBCAST).validate()
    TileConfig(**{**SBCAST, "target": "cuda"}).validate()
    for bad, match in [({"dtype": "bf16"}, "an fp16 forward"), ({"kind": "bwd_dq"}, "an fp16 forward"),
                       ({"headdim": 96}, "headdim must be 64 or 128"), ({"block_m": 128}, "one query row per thread"),
                       ({"threads_n": 8}, "one query row per thread"), ({"block_n": 15}, "even block_n"),
                       ({"lds_pad_bytes": 16}, "lds_pad_bytes 0")]:
        with pytest.raises(ValueError, match=match):
            TileConfig(**{**SBCAST, **bad}).validate()


def test_codegen_sbcast_instances(tmp_path):
    """One aligned instance per sbcast config and target, tagged TileMath::kSbcast, launched through
    launch_fmha_fwd (which hands it to launch_fmha_fwd_sbcast)."""
    gfx9 = [p.name for p in codegen.generate("gfx9", tmp_path / "gfx9", kinds=("fwd",))]
    names = [n for n in gfx9 if "sbcast" in n]
    assert names == ["rocflash_fmha_fwd_gfx9_sbcast_fp16_d64_b256x32_t256x1_p0_vec.hip",
                     "rocflash_fmha_fwd_gfx9_sbcast_fp16_d128_b256x16_t256x1_p0_vec.hip"]
    table = (tmp_path / "gfx9" / "fmha_fwd_table.inc").read_text()
    assert table.count("TileMath::kSbcast}") == 2
    header = (tmp_path / "gfx9" / "fmha_fwd_instances.h").read_text()
    assert '#include "fmha_fwd_sbcast.h"' in header
    cuda = [p.name for p in codegen.generate("cuda", tmp_path / "cuda", kinds=("fwd",))]
    assert [n for n in cuda if "sbcast" in n] == ["rocflash_fmha_fwd_cuda_sbcast_fp16_d64_b256x64_t256x1_p0_vec.hip"]


class _Mod:
    """Stand-in for the compiled HIP module: its instance table as the gfx9 build generates it."""

    DType = types.SimpleNamespace(fp16=0, bf16=1, fp32=2)
    TileMath = types.SimpleNamespace(vector=0, mma=1, sbcast=2)

    def __init__(self):
        self.table = [{"impl": c.impl, "dtype": c.dtype, "headdim": c.headdim, "block_n": c.block_n}
                      for c, al in codegen.instances("gfx9") if al]

    def instances(self):
        return self.table

    def select_instance(self, kind, dtype, headdim, aligned, math):
        names = {0: "fp16", 1: "bf16", 2: "fp32"}
        impl = {0: "vector", 1: "mma", 2: "sbcast"}[math]
        fit = [i for i, c in enumerate(self.table) if c["impl"] == impl and c["dtype"] == names[dtype]
               and c["headdim"] >= headdim]
        return min(fit, key=lambda i: self.table[i]["headdim"]) if fit else -1


def _q(d=128, dtype=torch.float16, sq=512):
    return torch.zeros(1, sq, 2, d, dtype=dtype)


@pytest.mark.parametrize("platform,q,args,aligned,varlen,match", [
    ("hip", _q(dtype=torch.bfloat16), FwdArgs(0.1, -1, -1, 0.0, None), True, False, "takes fp16"),
    ("hip", _q(d=96), FwdArgs(0.1, -1, -1, 0.0, None), True, False, r"headdim in \(64, 128\) exactly"),
    ("hip", _q(d=32), FwdArgs(0.1, -1, -1, 0.0, None), True, False, r"headdim in \(64, 128\) exactly"),
    ("hip", _q(), FwdArgs(0.1, -1, -1, 0.0, None), True, True, "dense layout only"),
    ("hip", _q(), FwdArgs(0.1, -1, -1, 0.0, None), False, False, "16-byte aligned"),
    ("hip", _q(), FwdArgs(0.1, -1, -1, 30.0, None), True, False, "plain scores"),
    ("hip", _q(), FwdArgs(-0.1, -1, -1, 0.0, None), True, False, "plain scores"),
    ("hip", _q(), FwdArgs(float("nan"), -1, -1, 0.0, None), True, False, "plain scores"),  # adv13
    ("hip", _q(), FwdArgs(0.1, -1, -1, 0.0, torch.ones(2)), True, False, "plain scores"),  # ALiBi
    ("hip", _q(dtype=torch.float32), FwdArgs(0.1, -1, -1, 0.0, None), True, False, "takes fp16"),
])
def test_sbcast_unavailable_names_the_rule(platform, q, args, aligned, varlen, match):
    why = compiled.sbcast_unavailable(platform, _Mod(), q, q, args, aligned, varlen)
    assert why is not None and __import__("re").search(match, why), why


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("window", [(-1, -1), (-1, 0), (16, 4)])
def test_sbcast_available_with_masks(d, window):
    q = _q(d=d)
    for platform in ("hip", "cuda"):
        assert compiled.sbcast_unavailable(platform, _Mod(), q, q, FwdArgs(0.1, *window, 0.0, None), True) is None


def test_sbcast_choice_by_env_and_arch(monkeypatch):
    """ROCFLASH_KERNEL=sbcast forces it or raises naming why; auto takes it on gfx906 for >= 256 rows and keys only;
    vector / mma never."""
    mod, args = _Mod(), FwdArgs(0.1, -1, 0, 0.0, None)
    q = _q(sq=512)
    monkeypatch.setattr(torch.cuda, "get_device_properties",
                        lambda dev: types.SimpleNamespace(gcnArchName="gfx906:sramecc+:xnack-"))
    for env, want in [("sbcast", True), ("auto", True), ("vector", False), ("mma", False)]:
        monkeypatch.setenv(compiled.KERNEL_ENV, env)
        assert compiled._sbcast_choice("hip", mod, q, q, args, True) is want, env
    monkeypatch.setenv(compiled.KERNEL_ENV, "auto")
    short = _q(sq=100)
    assert not compiled._sbcast_choice("hip", mod, short, q, args, True)  # fewer rows than one workgroup
    assert not compiled._sbcast_choice("hip", mod, q, q, args, False)  # unaligned: vector kernel, no error
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda dev: types.SimpleNamespace(gcnArchName="gfx90a"))
    assert not compiled._sbcast_choice("hip", mod, q, q, args, True)  # the model is of gfx906 only
    monkeypatch.setenv(compiled.KERNEL_ENV, "sbcast")
    assert compiled._sbcast_choice("hip", mod, q, q, args, True)  # forced: any gfx9
    with pytest.raises(ValueError, match="ROCFLASH_KERNEL=sbcast: .*16-byte aligned"):
        compiled._sbcast_choice("hip", mod, q, q, args, False)
    with pytest.raises(ValueError, match="ROCFLASH_KERNEL=sbcast: .*dense layout only"):
        compiled.forward_tile_math("hip", mod, q, True, "fwd_splitkv")
    assert compiled.forward_tile_math("hip", mod, q, True, compiled.BWD_KINDS) == "vector"


def test_sbcast_workspace_bytes():
    p = types.SimpleNamespace(batch=2, nheads_k=3, seqlen_k=37, headdim=128)
    assert compiled.sbcast_workspace_bytes(p, 16) == 2 * 3 * 48 * 128 * 2


def test_sbcast_unavailable_when_a_gradient_is_needed():
    """Forwards that keep the backward's statistics (with_stats) never take the scalar-broadcast kernel: its
    exp2(fma(...)) probabilities leave one-key rows' gradients outside the rule (issue 8)."""
    q = _q()
    args = FwdArgs(0.1, -1, -1, 0.0, None)
    assert compiled.sbcast_unavailable("hip", _Mod(), q, q, args, True) is None
    why = compiled.sbcast_unavailable("hip", _Mod(), q, q, args, True, with_stats=True)
    assert why is not None and "inference calls only" in why
