"""The gfx906 scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h, issue 10 item 5) executed on the emulator.

Both of its launches (K/V preparation into NaN-poisoned workspaces, then the forward) run on the emulator
and O / LSE are checked against the fp64 reference with FlashAttention's tolerance rule: headdim 64 and 128,
causal (bottom-right) and sliding-window masks, partial query workgroups, partial last key tiles, seqlen_q !=
seqlen_k both ways, GQA, and NaN / inf in masked K and V rows (they must not reach the rows that cannot see them).
A mutation of the masked tile path (V halves of masked keys not ANDed to 0) fails the garbage test; one of the
mask bounds (c < lo -> c <= lo) fails the fp64 comparison (perf/RESULTS.md records both runs).
Functional semantics as the emulator reads the Vega ISA manual: no timing, not silicon.
"""

from __future__ import annotations

import math

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference

from conftest import garbage_in_key_rows, require_hip_toolchain

pytestmark = pytest.mark.toolchain


@pytest.fixture(scope="module", autouse=True)
def _toolchain():
    require_hip_toolchain()


def _inputs(b, sq, sk, h, hk, seed, d=128):
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g).half()  # noqa: E731
    return mk(b, sq, h, d), mk(b, sk, hk, d), mk(b, sk, hk, d)


def _check(q, k, v, window, block_n, what=""):
    """Run the emulated forward and compare with the fp64 reference (FlashAttention's rule); non-finite exactly
    where the reference's NaN semantics put NaN (a row that sees a non-finite K / V element)."""
    from rocflash.emu.driver_sbcast import run_forward_sbcast

    args = FwdArgs(1 / math.sqrt(q.shape[-1]), window[0], window[1], 0.0, None)
    out, lse, info = run_forward_sbcast(q, k, v, softmax_scale=args.softmax_scale, window_left=window[0],
                                        window_right=window[1], block_n=block_n)
    ref, ref_lse = attention_reference(q, k, v, args, compute_dtype=torch.float64)
    low, _ = attention_reference(q, k, v, args, compute_dtype=torch.float16)
    name = f"{info['kernel']} {what}"
    fin = torch.isfinite(ref)  # the reference writes NaN where IEEE arithmetic in the kernel may give inf
    assert torch.equal(torch.isfinite(out), fin), f"{name}: {int((torch.isfinite(out) != fin).sum())} elements " \
        "non-finite where the reference is finite (or the reverse)"
    err = (out.double() - ref.double())[fin].abs().max().item()
    tol = 2 * (low.double() - ref.double())[fin].abs().max().item() + 1e-3
    assert err <= tol, f"{name}: max error {err:.3g} > tolerance {tol:.3g}"
    lfin = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), lfin), f"{name}: LSE finiteness differs from the reference"
    assert (lse.double() - ref_lse.double())[lfin].abs().max().item() < 1e-3
    return out, ref


# (batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, Bc, (window_left, window_right)); causal = (-1, 0).
# Shapes cover: a partial query workgroup (rows past seqlen_q), a partial last key tile (keys past seqlen_k),
# seqlen_q > and < seqlen_k with the bottom-right causal diagonal, left/right windows whose boundary tiles are
# masked for some rows of a wave and visible to others, rows that see no key at all (window past the keys),
# GQA, batch 2, and both dispatched instances (d128 Bc 16, d64 Bc 32).
CASES = [
    pytest.param(1, 70, 37, 2, 1, 128, 16, (-1, -1), id="d128-gqa-sq>sk-partial-key-tile"),
    pytest.param(2, 40, 64, 1, 1, 128, 16, (-1, -1), id="d128-sq<sk-full-key-tiles-batch2"),
    pytest.param(1, 40, 100, 2, 1, 128, 16, (-1, 0), id="d128-causal-sq<sk"),
    pytest.param(1, 100, 40, 1, 1, 128, 16, (-1, 0), id="d128-causal-sq>sk-empty-rows"),
    pytest.param(1, 90, 90, 2, 2, 128, 16, (20, 3), id="d128-window-left-right"),
    pytest.param(1, 70, 150, 4, 2, 64, 32, (-1, -1), id="d64-gqa-partial-key-tile"),
    pytest.param(1, 100, 130, 1, 1, 64, 32, (-1, 0), id="d64-causal-sq<sk"),
    pytest.param(1, 80, 80, 2, 1, 64, 32, (8, -1), id="d64-window-left-only"),
    # adv13: one key (a tile of Bc - 1 padding keys), Bc - 1 keys under the diagonal-only window (0, 0)
    pytest.param(1, 5, 1, 1, 1, 128, 16, (-1, -1), id="d128-one-key"),
    pytest.param(1, 20, 31, 1, 1, 64, 32, (0, 0), id="d64-window-0-0-bc-minus-1"),
]


@pytest.mark.parametrize("b,sq,sk,h,hk,d,block_n,window", CASES)
def test_sbcast_forward_matches_fp64(b, sq, sk, h, hk, d, block_n, window):
    q, k, v = _inputs(b, sq, sk, h, hk, seed=sq * 131 + sk + d, d=d)
    _check(q, k, v, window, block_n)


# Non-finite K / V rows at keys that a boundary tile shows to some rows of a wave and masks for others: the rows
# that cannot see them must come out exactly as without them (finite, within tolerance of the clean reference);
# the rows that see them get the reference's NaN. Fails if the masked tile path multiplied P = 0 into the
# masked keys' V (0 * NaN) or added K's NaN into S before the mask's select.
GARBAGE = [
    pytest.param(100, 100, 128, 16, (-1, 0), [90, 99], id="d128-causal"),
    pytest.param(60, 90, 128, 16, (4, 4), [10, 47, 89], id="d128-window"),
    pytest.param(120, 120, 64, 32, (-1, 0), [70, 100], id="d64-causal"),
]


@pytest.mark.parametrize("what", ["k", "v"])
@pytest.mark.parametrize("sq,sk,d,block_n,window,keys", GARBAGE)
def test_sbcast_masked_garbage_never_reaches_output(sq, sk, d, block_n, window, keys, what):
    from rocflash.masks import MaskRule

    q, k, v = _inputs(1, sq, sk, 1, 1, seed=sk + len(keys), d=d)
    kg, vg = garbage_in_key_rows(k, v, keys, what)
    out, ref = _check(q, kg, vg, window, block_n, what=f"NaN/inf in {what}")
    rule = MaskRule(sq, sk, window[0], window[1])
    blind = ~rule.visible_grid(torch.arange(sq), torch.arange(sk))[:, keys].any(dim=1)
    assert blind.any() and (~blind).any()
    assert torch.isfinite(out[:, blind]).all(), "garbage of a masked key reached a row that cannot see it"


@pytest.mark.parametrize("d,block_n", [(128, 16), (64, 32)])
def test_sbcast_strided_views_and_garbage_past_seqlen_k(d, block_n):
    """adv13: Q / K / V as views the dispatcher accepts (a packed QKV tensor's slices: head and row strides of
    3 * nheads * headdim; K / V cut from longer sequences, so batch 0's storage continues past seqlen_k) with
    NaN / inf in that storage past seqlen_k: the keys past seqlen_k (the zero-padded last tile) never read it."""
    g = torch.Generator().manual_seed(d)
    qkv = torch.randn(2, 21, 3, 2, d, generator=g).half()
    seqlen_k = block_n + 1
    long_kv = torch.randn(2, 2 * block_n, 2, 2, d, generator=g).half()
    long_kv[:, seqlen_k:, 0] = float("nan")
    long_kv[:, seqlen_k:, 1] = float("inf")
    k, v = long_kv[:, :seqlen_k, 0], long_kv[:, :seqlen_k, 1]
    for window in ((-1, -1), (-1, 0)):
        out, _ = _check(qkv[:, :, 0], k, v, window, block_n, what=f"strided views {window}")
        assert torch.isfinite(out).all()


def test_sbcast_scope_errors():
    from rocflash.emu.driver_sbcast import run_forward_sbcast

    q, k, v = _inputs(1, 8, 8, 1, 1, seed=1)
    with pytest.raises(ValueError, match="softmax_scale > 0"):
        run_forward_sbcast(q, k, v, softmax_scale=-0.1)
    with pytest.raises(ValueError, match="headdim in"):
        run_forward_sbcast(q[..., :96], k[..., :96], v[..., :96])
    with pytest.raises(ValueError, match="fp16 only"):
        run_forward_sbcast(q.bfloat16(), k.bfloat16(), v.bfloat16())


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
    from rocflash.emu.driver_sbcast import DISPATCH_BLOCK_N, images

    for headdim, block_n in DISPATCH_BLOCK_N.items():
        prep, fwd = images(block_n, headdim)
        assert scalar_load_hazards(fwd.program.kernel) == []
        assert fwd.program.kernel.amdhsa.get("private_segment_fixed_size", 0) == 0, "spills to scratch"


def test_wait_latency_rule():
    """Per-wait rule: loads issued together share one latency; instructions issued between a load and its wait
    hide it (4 clocks each); vector loads retire in order (vmcnt(N) waits for all but the N newest)."""
    from types import SimpleNamespace

    from rocflash.emu.cycles import GLOBAL_LATENCY, LATENCIES, LDS_LATENCY, SCALAR_LATENCY
    from rocflash.emu.cycles_sbcast import wait_latency

    def lat(lines, latencies=None):
        k = _kernel(lines)
        return wait_latency(SimpleNamespace(kernel=k), SimpleNamespace(trace=list(range(len(lines)))), latencies)

    assert all(lat_.sources and lat_.clocks > 0 for lat_ in LATENCIES.values())  # every figure has its sources

    two = ["s_load_dwordx16 s[32:47], s[4:5], 0", "s_load_dwordx16 s[48:63], s[4:5], 0x40", "s_waitcnt lgkmcnt(0)"]
    assert lat(two) == SCALAR_LATENCY + 4 - 8  # the second load's latency, less the two issue slots
    hidden = two[:2] + ["v_add_f32_e32 v0, v0, v0"] * 30 + two[2:]
    assert lat(hidden) == 0
    vm = ["global_load_dword v1, v[2:3], off", "global_load_dword v4, v[2:3], off", "s_waitcnt vmcnt(1)"]
    assert lat(vm) == GLOBAL_LATENCY - 8  # only the older load
    assert lat(two, {"scalar": 20}) == 20 + 4 - 8  # the sensitivity override
    lds = ["ds_read_b128 v[0:3], v4", "ds_read_b128 v[5:8], v4", "s_waitcnt lgkmcnt(1)"]
    assert lat(lds) == LDS_LATENCY - 8  # LDS reads return in order: lgkmcnt(1) waits for the older one
    mixed = [two[0], lds[0], "s_waitcnt lgkmcnt(1)"]
    assert lat(mixed) == max(SCALAR_LATENCY, 4 + LDS_LATENCY) - 8  # a scalar load outstanding: lgkmcnt(N) waits for all
