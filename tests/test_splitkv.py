"""CPU checks of the split-KV decode path: the split rule and heuristic (rocflash.splitkv), its tile configs
(ck_configs/fmha_splitkv.toml) against the kernel's own validity rule and LDS size (through the host probe of
hip_src/fmha_splitkv_tile.h), and the generated instances."""

from __future__ import annotations

import types

import pytest

from rocflash import codegen, splitkv
from rocflash._probe import Probe, TileShape
from rocflash.configs import TileConfig, load_configs


@pytest.mark.parametrize("seqlen_k,max_k,n,block_n", [(1, 1, 1, 16), (100, 4096, 7, 16), (4096, 4096, 16, 32),
                                                      (131072, 131072, 66, 16), (0, 50, 3, 8), (999, 1000, 128, 64)])
def test_split_bounds_partition_the_keys(seqlen_k, max_k, n, block_n):
    bounds = splitkv.split_bounds(seqlen_k, max_k, n, block_n)
    assert len(bounds) == n and bounds[0][0] == 0 and bounds[-1][1] == seqlen_k
    for (a, b), (c, _) in zip(bounds, bounds[1:]):
        assert a <= b == c  # contiguous, empty splits allowed
    kps = splitkv.split_keys(max_k, n, block_n)
    assert kps % block_n == 0 and kps * n >= max_k


def test_heuristic_choices():
    """Whole waves of resident blocks (H200: 132 SMs x 3; MI50: 60 CUs x 2), no split under 256 keys."""
    h200, mi50 = 132, 60
    assert splitkv.num_splits_heuristic(8, 8, 1, 16384, h200) == 6  # 384 of 396 slots (the sweep's best)
    assert splitkv.num_splits_heuristic(32, 8, 1, 131072, h200) == 3  # 768 blocks: 2 waves
    assert splitkv.num_splits_heuristic(1, 8, 1, 131072, h200) == 45
    assert splitkv.num_splits_heuristic(1, 8, 1, 4096, h200) == 15  # at most 4096 // 256 = 16
    assert splitkv.num_splits_heuristic(1, 8, 1, 16384, mi50, "hip") == 14  # 112 of 120 slots
    assert splitkv.num_splits_heuristic(1, 8, 1, 100, mi50, "hip") == 1  # too few keys to split
    assert splitkv.num_splits_heuristic(64, 32, 4, 131072, mi50, "hip") == 1  # 8192 blocks fill waves already
    assert 0.9 * splitkv.MAX_SPLITS <= splitkv.num_splits_heuristic(1, 1, 1, 10 ** 7, 10 ** 4) <= splitkv.MAX_SPLITS
    for args in [(0, 8, 1, 10, 60), (1, 8, 1, 0, 60), (1, 8, 1, 10, 0)]:
        assert splitkv.num_splits_heuristic(*args) == 1
    # tensor-core kernel (H200: 132 SMs x 2 resident blocks): one all-but-full wave at batch 1, as before at 8 and 32
    mma = dict(platform="cuda-mma", blocks_per_cu=2)
    assert splitkv.num_splits_heuristic(1, 8, 1, 16384, h200, **mma) == 32  # 256 of 264 slots (was 30: 240)
    assert splitkv.num_splits_heuristic(1, 8, 1, 131072, h200, **mma) == 32
    assert splitkv.num_splits_heuristic(1, 8, 1, 4096, h200, **mma) == 16  # at most 4096 // 256
    assert splitkv.num_splits_heuristic(8, 8, 1, 16384, h200, **mma) == 4  # 256 of 264
    assert splitkv.num_splits_heuristic(32, 8, 1, 131072, h200, **mma) == 1
    assert splitkv.wave_efficiency(384, 396) == pytest.approx(384 / 396)
    assert splitkv.wave_efficiency(512, 396) == pytest.approx(512 / 792)


def test_fill_rule_choices():
    """ROCFLASH_SPLITKV_SPLITS=fill (branch dec7): the tensor-core kernel's floor of 128 keys per split and no empty
    splits after split_keys' rounding; every other key, and shapes the 256 floor did not cap, as "wave"."""
    h200, mi50 = 132, 60
    mma = dict(platform="cuda-mma", blocks_per_cu=2, block_n=64)
    pick = lambda b, k, rule: splitkv.num_splits_heuristic(b, 8, 1, k, h200, rule=rule, **mma)  # noqa: E731
    assert (pick(1, 4096, "wave"), pick(1, 4096, "fill")) == (16, 32)  # 128 -> 256 of 264 slots
    assert (pick(1, 2048, "wave"), pick(1, 2048, "fill")) == (8, 16)
    assert (pick(1, 8192, "wave"), pick(1, 8192, "fill")) == (31, 32)  # wave's 31 leave 5 splits without keys
    for b, k, n in [(1, 16384, 32), (1, 131072, 32), (8, 4096, 4), (8, 16384, 4), (32, 16384, 1), (32, 131072, 1)]:
        assert pick(b, k, "wave") == pick(b, k, "fill") == n, (b, k)
    for b, k in [(1, 4096), (1, 5000), (1, 8192), (3, 7777), (2, 2048), (1, 300), (1, 129)]:
        n = pick(b, k, "fill")
        kps = splitkv.split_keys(k, n, 64)
        assert kps >= min(k, 128) and -(-k // kps) == n, (b, k, n)  # every split holds keys
    # not the tensor-core kernel: the same picks under both rules (AMD, the CUDA vector kernel)
    for b, k in [(1, 4096), (1, 8192), (8, 16384), (1, 2048)]:
        for key, cus in (("hip", mi50), ("cuda", h200)):
            assert splitkv.num_splits_heuristic(b, 8, 1, k, cus, key, rule="fill", block_n=64) == \
                splitkv.num_splits_heuristic(b, 8, 1, k, cus, key), (b, k, key)
    with pytest.raises(ValueError, match=r"rule must be one of wave, fill, got 'fast'"):
        splitkv.num_splits_heuristic(1, 8, 1, 4096, h200, rule="fast")


def test_split_rule_switch_reaches_the_plan(monkeypatch):
    """The compiled backend's split plan reads ROCFLASH_SPLITKV_SPLITS at every planning, and every kept plan's key
    holds it (a changed value re-plans; a bad one raises naming the variable), without a GPU: the module's
    instance and the device's SM count stubbed as an H200's tensor-core d128 instance."""
    torch = pytest.importorskip("torch")
    from rocflash import envvars, kvcache_fast
    from rocflash.backends import compiled

    inst = {"block_m": 16, "block_n": 64, "lds_bytes": 104448, "headdim": 128, "impl": "mma"}
    monkeypatch.setattr(compiled, "forward_tile_math", lambda *a, **k: "mma")
    monkeypatch.setattr(compiled, "load_module", lambda platform: None)
    monkeypatch.setattr(compiled, "_instance", lambda *a, **k: inst)
    monkeypatch.setattr(compiled, "_num_cus", lambda index: 132)
    monkeypatch.setattr(compiled, "_resident_blocks", lambda index, i: 2)
    q = torch.empty(1, 1, 32, 128, dtype=torch.bfloat16)
    plan = lambda: compiled.split_plan("cuda", q, 8, 1, 1, 4096, 0, True)[1]  # noqa: E731
    monkeypatch.delenv(compiled.SPLITKV_SPLITS_ENV, raising=False)
    assert compiled.splitkv_split_rule() == "wave" and plan() == 16
    monkeypatch.setenv(compiled.SPLITKV_SPLITS_ENV, "fill")
    assert compiled.splitkv_split_rule() == "fill" and plan() == 32
    assert compiled.split_plan("cuda", q, 8, 1, 1, 4096, 5, True)[1] == 5  # an explicit count is never changed
    monkeypatch.setenv(compiled.SPLITKV_SPLITS_ENV, "FILL ")
    assert plan() == 32
    monkeypatch.setenv(compiled.SPLITKV_SPLITS_ENV, "waves")
    with pytest.raises(ValueError, match=r"^ROCFLASH_SPLITKV_SPLITS must be one of wave, fill, got 'waves'"):
        plan()
    assert envvars.SWITCHES[compiled.SPLITKV_SPLITS_ENV] == (splitkv.SPLIT_RULES, "wave")
    # the KV-cache fast path's plans and flash_attn_func's kept launches are keyed on the raw value
    assert compiled.SPLITKV_SPLITS_ENV in kvcache_fast._ENV_NAMES
    monkeypatch.setenv(compiled.SPLITKV_SPLITS_ENV, "fill")
    fill_state = kvcache_fast._env_state()
    monkeypatch.setenv(compiled.SPLITKV_SPLITS_ENV, "wave")
    assert kvcache_fast._env_state() != fill_state


def test_inflight_and_pdl_defaults(monkeypatch):
    """dec9's defaults: ROCFLASH_SPLITKV_INFLIGHT (1 | 2, unset 1) -> FmhaFwdParams::kv_k_first 3 (one K/V tile in
    flight per warp) or 0 (two), on every device, with ROCFLASH_SPLITKV_PLAIN=0; 6 or 7 with dec11's plain loop (the
    default); ROCFLASH_SPLITKV_PDL (0 | 1, unset 1) -> programmatic dependent
    launches on an NVIDIA sm_90+ device only. Both are part of the KV-cache plans' key and of flash_attn_func's kept
    launches (PLAN_ENV_NAMES); every launch site sets both through set_split_switches; a bad value raises naming the
    variable; the removed switches (L2 prefetch, K-first, bulk, lockstep) are no longer accepted names."""
    torch = pytest.importorskip("torch")
    import inspect

    from rocflash import envvars, kvcache_fast
    from rocflash.backends import compiled, splitkv_env

    assert envvars.SWITCHES[compiled.SPLITKV_INFLIGHT_ENV] == (("1", "2"), "1")
    assert envvars.SWITCHES[compiled.SPLITKV_PDL_ENV] == (("0", "1"), "1")
    for gone in ("L2_PREFETCH", "K_FIRST", "BULK", "LOCKSTEP"):
        assert f"ROCFLASH_SPLITKV_{gone}" not in envvars.SWITCHES
    cuda = torch.device("cuda", 0)
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setattr(splitkv_env, "_compiled_cuda_archs", lambda: ("sm_80", "sm_90", "sm_100"))
    monkeypatch.setenv(compiled.SPLITKV_PLAIN_ENV, "0")  # (the plain loop's values: below)
    for cap, inflight, pdl, want in (((9, 0), None, None, (3, 1)), ((9, 0), "2", None, (0, 1)),
                                     ((9, 0), " 1 ", "0", (3, 0)), ((8, 0), None, None, (3, 0)),
                                     ((8, 0), "2", "1", (0, 0)), ((10, 0), "", "", (3, 1))):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None, cap=cap: cap)
        for name, value in ((compiled.SPLITKV_INFLIGHT_ENV, inflight), (compiled.SPLITKV_PDL_ENV, pdl)):
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        p = types.SimpleNamespace()
        compiled.set_split_switches(p, "mma", cuda)
        assert (p.kv_k_first, p.pdl) == want, (cap, inflight, pdl)
        compiled.set_split_switches(p, "vector", cuda)
        assert (p.kv_k_first, p.pdl) == (0, 0)
        assert not compiled.splitkv_pdl(torch.device("cpu"))
    monkeypatch.setattr(torch.version, "cuda", None)  # a ROCm torch: never PDL
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None: (9, 0))
    monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, "1")
    assert not compiled.splitkv_pdl(cuda)
    monkeypatch.setenv(compiled.SPLITKV_INFLIGHT_ENV, "3")
    with pytest.raises(ValueError, match=r"^ROCFLASH_SPLITKV_INFLIGHT must be one of 1, 2, got '3'"):
        compiled.splitkv_copy_mode(cuda)
    monkeypatch.setenv(compiled.SPLITKV_INFLIGHT_ENV, "1")
    # the opt-in lazy O rescale (kv_k_first 5) needs one tile in flight; a bad value raises
    assert envvars.SWITCHES[compiled.SPLITKV_LAZY_RESCALE_ENV] == (("0", "1"), "0")
    monkeypatch.setenv(compiled.SPLITKV_LAZY_RESCALE_ENV, "1")
    assert compiled.splitkv_copy_mode(cuda) == compiled.SPLITKV_COPY_NEAR_LAZY == 5
    monkeypatch.setenv(compiled.SPLITKV_INFLIGHT_ENV, "2")
    with pytest.raises(ValueError, match=r"^ROCFLASH_SPLITKV_LAZY_RESCALE=1 needs ROCFLASH_SPLITKV_INFLIGHT=1 .*got "
                                         r"ROCFLASH_SPLITKV_INFLIGHT=2"):
        compiled.splitkv_copy_mode(cuda)
    monkeypatch.setenv(compiled.SPLITKV_LAZY_RESCALE_ENV, "on")
    with pytest.raises(ValueError, match=r"^ROCFLASH_SPLITKV_LAZY_RESCALE must be one of 0, 1, got 'on'"):
        compiled.splitkv_lazy_rescale()
    monkeypatch.setenv(compiled.SPLITKV_LAZY_RESCALE_ENV, "0")
    # the plain-decode loop (kv_k_first 6 / 7 with one / two tiles in flight; the default since dec11); the opt-in
    # lazy rescale turns the default off, an explicit PLAIN=1 with it raises
    assert envvars.SWITCHES[compiled.SPLITKV_PLAIN_ENV] == (("0", "1"), "1")
    monkeypatch.setenv(compiled.SPLITKV_PLAIN_ENV, "1")
    assert compiled.splitkv_copy_mode(cuda) == compiled.SPLITKV_COPY_PLAIN_TWO == 7
    monkeypatch.setenv(compiled.SPLITKV_INFLIGHT_ENV, "1")
    assert compiled.splitkv_copy_mode(cuda) == compiled.SPLITKV_COPY_PLAIN == 6
    monkeypatch.delenv(compiled.SPLITKV_PLAIN_ENV)
    assert compiled.splitkv_copy_mode(cuda) == compiled.SPLITKV_COPY_PLAIN
    p = types.SimpleNamespace()
    compiled.set_split_switches(p, "mma", cuda)
    assert p.kv_k_first == compiled.SPLITKV_COPY_PLAIN
    monkeypatch.setenv(compiled.SPLITKV_LAZY_RESCALE_ENV, "1")
    assert compiled.splitkv_copy_mode(cuda) == compiled.SPLITKV_COPY_NEAR_LAZY  # (PLAIN unset: lazy asked by name)
    monkeypatch.setenv(compiled.SPLITKV_PLAIN_ENV, "1")
    with pytest.raises(ValueError, match=r"^ROCFLASH_SPLITKV_PLAIN=1 and ROCFLASH_SPLITKV_LAZY_RESCALE=1 name two "):
        compiled.splitkv_copy_mode(cuda)
    monkeypatch.setenv(compiled.SPLITKV_LAZY_RESCALE_ENV, "0")
    monkeypatch.setenv(compiled.SPLITKV_PLAIN_ENV, "yes")
    with pytest.raises(ValueError, match=r"^ROCFLASH_SPLITKV_PLAIN must be one of 0, 1, got 'yes'"):
        compiled.splitkv_plain()
    monkeypatch.setenv(compiled.SPLITKV_PLAIN_ENV, "0")
    assert compiled.splitkv_copy_mode(cuda) == compiled.SPLITKV_COPY_NEAR
    monkeypatch.setenv(compiled.SPLITKV_INFLIGHT_ENV, "1")
    monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, "yes")
    with pytest.raises(ValueError, match=r"^ROCFLASH_SPLITKV_PDL must be one of 0, 1, got 'yes'"):
        compiled.splitkv_pdl(cuda)
    for name in (compiled.SPLITKV_INFLIGHT_ENV, compiled.SPLITKV_PDL_ENV, compiled.SPLITKV_FUSED_COMBINE_ENV,
                 compiled.SPLITKV_SPLITS_ENV, compiled.SPLITKV_LAZY_RESCALE_ENV, compiled.SPLITKV_PLAIN_ENV):
        assert name in splitkv_env.PLAN_ENV_NAMES and name in kvcache_fast._ENV_NAMES
    assert "PLAN_ENV_NAMES" in inspect.getsource(compiled.forward_planned)
    for fn in (compiled._launch_fwd, compiled._plan_launch, kvcache_fast._make_launch):
        src = inspect.getsource(fn)
        assert "set_split_switches(" in src and "kv_k_first = " not in src, fn.__name__


def test_split_kernel_rule():
    assert splitkv.use_split_kernel(1, 4, 1) and splitkv.use_split_kernel(4, 4, 0)
    assert not splitkv.use_split_kernel(8, 4, 1) and splitkv.use_split_kernel(8, 4, 2)
    assert splitkv.row_chunks(1, 4, 4) == 1 and splitkv.row_chunks(8, 4, 4) == 8


def test_configs_match_the_kernel_rule_and_fit_lds():
    probe = Probe.load()
    configs = load_configs("fwd_splitkv")
    for target in ("gfx9", "cuda"):
        for dtype in ("fp16", "bf16", "fp32"):
            assert sorted(c.headdim for c in configs
                          if c.target == target and c.dtype == dtype and c.impl == "vector") == [64, 128, 256]
    for c in configs:
        shape = TileShape.from_config(c)
        assert probe.valid(shape), c.tile_name
        if c.impl == "vector":
            assert 0 < probe.lds_bytes(shape) <= 64 * 1024, c.tile_name
        else:  # tensor cores: per-warp K/V rings, 2 blocks per sm_90 SM (228 KiB, 1 KiB reserved per block)
            row = c.headdim * c.elem_bytes + c.lds_pad_bytes
            assert probe.lds_bytes(shape) == (c.threads // 32) * 3 * 2 * (c.block_n // (c.threads // 32)) * row
            assert 2 * (probe.lds_bytes(shape) + 1024) <= 228 * 1024, c.tile_name
        assert c.waves_per_simd == (1 if c.target == "gfx9" else 0)


@pytest.mark.parametrize("field,value,match", [("threads_n", 3, "power of 2"), ("block_n", 12, "key groups"),
                                               ("headdim", 24, "16-byte vectors")])
def test_invalid_configs_are_named(field, value, match):
    base = dict(target="gfx9", dtype="fp16", headdim=128, block_m=4, block_n=16, threads=128, threads_n=16,
                lds_pad_bytes=16, waves_per_simd=1, kind="fwd_splitkv")
    base[field] = value
    with pytest.raises(ValueError, match=match):
        TileConfig(**base).validate()
    if field != "threads_n":
        assert not Probe.load().valid(TileShape.from_config(TileConfig(**base)))


def test_generated_instances(tmp_path):
    sources = codegen.generate("gfx9", tmp_path, kinds=("fwd_splitkv",))
    names = {p.name for p in sources}
    assert "rocflash_fmha_fwd_splitkv_gfx9_bf16_d128_b4x8_t128x16_p16_vec.hip" in names
    assert len(sources) == 2 * len([c for c in load_configs("fwd_splitkv") if c.target == "gfx9"])
    table = (tmp_path / "fmha_fwd_splitkv_table.inc").read_text()
    assert '"fwd_splitkv"' in table and "launch_fmha_fwd_splitkv<Bf16" in table


def test_fp32_vector_split_slots():
    """The CUDA vector split kernel's fp32 instances run 2 blocks per SM since eco14 (their fp64 Q.K lane sums:
    hip_src/fmha_splitkv_kernel.h kSplitKvCudaBlocksPerSmOf): the heuristic counts 132 x 2 slots there, the 16-bit
    ones and AMD keep theirs; the sim's plan (target "cuda") follows the compiled launcher's."""
    import torch

    from rocflash.backends import sim
    assert splitkv.vector_blocks_per_cu("cuda", "fp32") == 2
    assert splitkv.vector_blocks_per_cu("cuda", "bf16") is None and splitkv.vector_blocks_per_cu("hip", "fp32") is None
    two = splitkv.num_splits_heuristic(8, 8, 1, 16384, 132, "cuda", 2)
    assert two != splitkv.num_splits_heuristic(8, 8, 1, 16384, 132, "cuda")  # 6 splits for 396 slots
    assert sim.split_plan("cuda", torch.float32, 128, 32, 8, 8, 1, 16384, 0)[1] == two
    assert sim.split_plan("cuda", torch.float16, 128, 32, 8, 8, 1, 16384, 0)[1] == 6
