"""The gfx906 scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h, issue 10 item 5) executed on the emulator.

Both of its launches (K/V preparation into NaN-poisoned workspaces, then the forward) run on the emulator
and O / LSE are checked against the fp64 reference with FlashAttention's tolerance rule. Shapes with a
partial query workgroup (rows past seqlen_q), a partial last key tile (keys past seqlen_k), seqlen_q != seqlen_k
both ways and GQA. The variant is not dispatched (not in ck_configs/); its scope errors are checked too.
Functional semantics as the emulator reads the Vega ISA manual: no timing, not silicon.
"""

from __future__ import annotations

import math

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference

from conftest import require_hip_toolchain

pytestmark = pytest.mark.toolchain


@pytest.fixture(scope="module", autouse=True)
def _toolchain():
    require_hip_toolchain()


def _inputs(b, sq, sk, h, hk, seed):
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g).half()  # noqa: E731
    return mk(b, sq, h, 128), mk(b, sk, hk, 128), mk(b, sk, hk, 128)


@pytest.mark.parametrize("b,sq,sk,h,hk,block_n", [
    pytest.param(1, 70, 37, 2, 1, 16, id="gqa-sq>sk-partial-key-tile-bc16"),
    pytest.param(2, 40, 64, 1, 1, 16, id="sq<sk-full-key-tiles-batch2-bc16"),
    pytest.param(1, 33, 80, 4, 2, 32, id="gqa-sq<sk-partial-key-tile-bc32"),
])
def test_sbcast_forward_matches_fp64(b, sq, sk, h, hk, block_n):
    from rocflash.emu.driver_sbcast import run_forward_sbcast

    q, k, v = _inputs(b, sq, sk, h, hk, seed=sq * 131 + sk)
    args = FwdArgs(1 / math.sqrt(128), -1, -1, 0.0, None)
    out, lse, info = run_forward_sbcast(q, k, v, softmax_scale=args.softmax_scale, block_n=block_n)
    ref, ref_lse = attention_reference(q, k, v, args, compute_dtype=torch.float64)
    low, _ = attention_reference(q, k, v, args, compute_dtype=torch.float16)
    assert not out.isnan().any(), f"{info['kernel']}: NaN (unwritten or wrong) elements"
    err = (out.double() - ref.double()).abs().max().item()
    tol = 2 * (low.double() - ref.double()).abs().max().item() + 1e-3
    assert err <= tol, f"{info['kernel']}: max error {err:.3g} > tolerance {tol:.3g}"
    assert (lse.double() - ref_lse.double()).abs().max().item() < 1e-3


@pytest.mark.parametrize("kw,match", [
    ({"window_right": 0}, "no causal/window mask"),
    ({"window_left": 8}, "no causal/window mask"),
])
def test_sbcast_scope_errors(kw, match):
    from rocflash.emu.driver_sbcast import run_forward_sbcast

    q, k, v = _inputs(1, 8, 8, 1, 1, seed=1)
    with pytest.raises(ValueError, match=match):
        run_forward_sbcast(q, k, v, **kw)
    with pytest.raises(ValueError, match="softmax_scale > 0"):
        run_forward_sbcast(q, k, v, softmax_scale=-0.1)
    with pytest.raises(ValueError, match="headdim == 128"):
        run_forward_sbcast(q[..., :64], k[..., :64], v[..., :64])


def _kernel(lines, labels=None):
    from rocflash.emu.asm import Kernel, parse_instruction

    return Kernel("k", [parse_instruction(t, i + 1) for i, t in enumerate(lines)], labels or {}, {})


def test_scalar_load_hazards_finds_reads_before_the_wait():
    """The static check the emulator needs for in-flight scalar loads (its loads complete at once): a copy of
    a destination SGPR before s_waitcnt lgkmcnt(0) is flagged, the same copy after it is not, and a branch target
    inside the window is flagged."""
    from rocflash.emu.cycles_sbcast import scalar_load_hazards

    load = "s_load_dwordx16 s[32:47], s[4:5], 0x40"
    bad = _kernel([load, "s_mov_b64 s[16:17], s[36:37]", "s_waitcnt lgkmcnt(0)"])
    good = _kernel([load, "v_dot2_f32_f16 v0, v1, s12, v0", "s_waitcnt lgkmcnt(0)", "s_mov_b64 s[16:17], s[36:37]"])
    assert len(scalar_load_hazards(bad)) == 1 and "s[32:47]" in scalar_load_hazards(bad)[0]
    assert scalar_load_hazards(good) == []
    assert scalar_load_hazards(_kernel([load, "s_nop 0", "s_waitcnt lgkmcnt(0)"], {".L1": 1}))
    assert scalar_load_hazards(_kernel(["s_waitcnt vmcnt(0) lgkmcnt(1)", load, "s_waitcnt lgkmcnt(1)",
                                        "s_add_u32 s40, s40, 1", "s_waitcnt lgkmcnt(0)"]))


def test_sbcast_assembly_has_no_scalar_load_hazard():
    from rocflash.emu.cycles_sbcast import scalar_load_hazards
    from rocflash.emu.driver_sbcast import images

    for block_n in (16, 32):
        prep, fwd = images(block_n)
        assert scalar_load_hazards(fwd.program.kernel) == []
        assert fwd.program.kernel.amdhsa.get("private_segment_fixed_size", 0) == 0, "spills to scratch"


def test_wait_latency_rule():
    """Per-wait rule: loads issued together share one latency; instructions issued between a load and its wait
    hide it (4 clocks each); vector loads retire in order (vmcnt(N) waits for all but the N newest)."""
    from types import SimpleNamespace

    from rocflash.emu.cycles import GLOBAL_LATENCY, SCALAR_LATENCY
    from rocflash.emu.cycles_sbcast import wait_latency

    def lat(lines):
        k = _kernel(lines)
        return wait_latency(SimpleNamespace(kernel=k), SimpleNamespace(trace=list(range(len(lines)))))

    two = ["s_load_dwordx16 s[32:47], s[4:5], 0", "s_load_dwordx16 s[48:63], s[4:5], 0x40", "s_waitcnt lgkmcnt(0)"]
    assert lat(two) == SCALAR_LATENCY + 4 - 8  # the second load's latency, less the two issue slots
    hidden = two[:2] + ["v_add_f32_e32 v0, v0, v0"] * 30 + two[2:]
    assert lat(hidden) == 0
    vm = ["global_load_dword v1, v[2:3], off", "global_load_dword v4, v[2:3], off", "s_waitcnt vmcnt(1)"]
    assert lat(vm) == GLOBAL_LATENCY - 8  # only the older load
