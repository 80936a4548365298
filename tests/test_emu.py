"""Unit tests of the gfx906 emulator (rocflash.emu), one or a few instructions at a time.

Expected values come from the instruction definitions of the Vega ISA (AMD, "Vega" Instruction Set
Architecture Reference Guide; sections cited in rocflash/emu/*.py) computed independently here, or are
fixed points of the definitions (exp2(-inf) = 0, fp16 denormals, carries). No compiler is needed.
"""

from __future__ import annotations

import numpy as np
import pytest

from rocflash.emu.asm import parse_instruction, parse_operand
from rocflash.emu.machine import implemented, new_wave, run_snippet
from rocflash.emu.mem import swizzle_lanes, swizzle_offset
from rocflash.emu.state import FULL, MemoryFault, Unimplemented

LANES = np.arange(64)
rng = np.random.default_rng(1234)


def f32(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def as_f32(u):
    return np.asarray(u, dtype=np.uint32).view(np.float32)


def h2(lo, hi):
    """Two fp16 values packed in a dword (lo in bits 15:0)."""
    lo = np.asarray(lo, np.float16).view(np.uint16).astype(np.uint32)
    hi = np.asarray(hi, np.float16).view(np.uint16).astype(np.uint32)
    return lo | (hi << 16)


# ------------------------------------------------------------------------------------------ parser

def test_parse_operands_and_modifiers():
    ins = parse_instruction("v_or_b32_sdwa v1, v2, sext(v3) dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD")
    assert [o.kind for o in ins.operands] == ["v", "v", "v"] and ins.operands[2].sext
    assert ins.modifiers["dst_sel"] == "WORD_1"
    op = parse_operand("-|v[4:5]|")
    assert (op.kind, op.reg, op.count, op.neg, op.abs) == ("v", 4, 2, True, True)
    assert parse_operand("exec_hi").reg == 127 and parse_operand("vcc").count == 2
    assert parse_operand("0x4f7ffffe").value == 0x4F7FFFFE and parse_operand("-1").value == -1
    assert parse_operand("0.5").kind == "float"
    ins = parse_instruction('ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,"01pip")')
    assert ins.modifiers["offset"] == 'swizzle(BITMASK_PERM,"01pip")'
    assert parse_instruction("s_waitcnt vmcnt(0) lgkmcnt(0)").modifiers == {"vmcnt": "0", "lgkmcnt": "0"}


def test_unimplemented_instruction_stops_with_name_and_line():
    with pytest.raises(Unimplemented, match=r"v_sin_f32.*line 1"):
        run_snippet(["v_sin_f32_e32 v1, v2"])
    assert not implemented("v_sin_f32_e32") and implemented("v_dot2_f32_f16")


def test_unimplemented_modifier_stops():
    with pytest.raises(Unimplemented, match="modifier"):
        run_snippet(["v_add_u32_e64 v1, v2, v3 foo:1"])


# ------------------------------------------------------------------------------------------ VALU

def test_exec_masked_lanes_untouched():
    w = new_wave()
    w.V[1] = 7
    w.V[2] = np.arange(64)
    w.set_exec(0x00000000FFFF0000)
    run_snippet(["v_mov_b32_e32 v1, v2", "v_cvt_f32_u32_e32 v3, v2"], w)
    active = (LANES >= 16) & (LANES < 32)
    assert (w.V[1][active] == LANES[active]).all() and (w.V[1][~active] == 7).all()
    assert (w.V[3][~active] == 0).all()


def test_vopc_inactive_lanes_zero_and_cndmask():
    w = new_wave()
    w.V[1] = np.arange(64)
    w.set_exec(0xFFFF)
    run_snippet(["v_cmp_gt_u32_e32 vcc, 100, v1", "s_mov_b64 exec, -1", "v_cndmask_b32_e64 v2, 1, 2, vcc"], w)
    assert w.S[106] == 0xFFFF and w.S[107] == 0
    assert (w.V[2] == np.where(LANES < 16, 2, 1)).all()


def test_64bit_address_carry():
    """v_add_co_u32 / v_addc_co_u32: the low-word carry reaches the high word (global addresses)."""
    w = new_wave()
    low = (0xFFFFFFE8 + LANES) % 2 ** 32  # low words; lanes >= 8 carry into the high word
    w.V[2] = low
    w.V[3] = 5
    run_snippet(["v_add_co_u32_e32 v4, vcc, 16, v2", "v_addc_co_u32_e32 v5, vcc, 0, v3, vcc"], w)
    full = (w.V[5].astype(np.uint64) << 32) | w.V[4]
    assert (full == (np.uint64(5) << np.uint64(32)) + low.astype(np.uint64) + np.uint64(16)).all()
    assert (w.V[5] == np.where(low + 16 >= 2 ** 32, 6, 5)).all() and (w.V[5] == 6).any() and (w.V[5] == 5).any()


def test_sub_borrow_chain_and_lshl64():
    w = new_wave()
    w.V[2], w.V[3] = 0, 1  # 2^32
    w.V[4], w.V[5] = 1, 0
    run_snippet(["v_sub_co_u32_e32 v6, vcc, v2, v4", "v_subb_co_u32_e32 v7, vcc, v3, v5, vcc",
                 "v_lshlrev_b64 v[8:9], 4, v[6:7]"], w)
    assert (w.V[6] == 0xFFFFFFFF).all() and (w.V[7] == 0).all() and w.S[106] == 0
    assert (w.V[8] == 0xFFFFFFF0).all() and (w.V[9] == 0xF).all()


def test_mad_u64_u32_carry_out():
    w = new_wave()
    w.V[1] = 0xFFFFFFFF
    w.V[2] = 0xFFFFFFFF
    w.V[3], w.V[4] = 0xFFFFFFFF, 0xFFFFFFFF
    run_snippet(["v_mad_u64_u32 v[5:6], s[0:1], v1, v2, v[3:4]"], w)
    expect = (0xFFFFFFFF * 0xFFFFFFFF + 0xFFFFFFFFFFFFFFFF) & ((1 << 64) - 1)
    assert int(w.V[5][0]) | int(w.V[6][0]) << 32 == expect and w.S[0] == 0xFFFFFFFF and w.S[1] == 0xFFFFFFFF


def test_dot2_fp16_denormals_kept():
    """V_DOT2_F32_F16 with fp16 denormal inputs (denorm mode 3): products of denormals are exact."""
    w = new_wave()
    tiny = np.float16(2.0 ** -24)  # smallest fp16 denormal
    w.V[1] = h2(tiny, np.float16(3.0))
    w.V[2] = h2(np.float16(1024.0), np.float16(-0.5))
    w.V[3] = f32(0.25)
    run_snippet(["v_dot2_f32_f16 v4, v1, v2, v3"], w)
    assert (as_f32(w.V[4]) == np.float32(2.0 ** -24 * 1024 - 1.5 + 0.25)).all()


def test_dot2_random_against_float64():
    w = new_wave()
    a = rng.standard_normal((2, 64)).astype(np.float16)
    b = rng.standard_normal((2, 64)).astype(np.float16)
    c = rng.standard_normal(64).astype(np.float32)
    w.V[1], w.V[2], w.V[3] = h2(a[0], a[1]), h2(b[0], b[1]), f32(c)
    run_snippet(["v_dot2_f32_f16 v4, v1, v2, v3", "v_dot2_f32_f16 v5, v1, v2, v3 op_sel_hi:[0,1,1]"], w)
    exp = (a[0].astype(np.float64) * b[0] + a[1].astype(np.float64) * b[1] + c).astype(np.float32)
    assert (as_f32(w.V[4]) == exp).all()
    exp_lo = (a[0].astype(np.float64) * b[0] + a[0].astype(np.float64) * b[1] + c).astype(np.float32)
    assert (as_f32(w.V[5]) == exp_lo).all()


def test_exp_f32_special_values():
    w = new_wave()
    vals = np.array([-np.inf, -0.0, np.inf, 1.0, -150.0, 3.5] + [0.0] * 58, dtype=np.float32)
    w.V[1] = f32(vals)
    run_snippet(["v_exp_f32_e32 v2, v1", "v_log_f32_e32 v3, v1"], w)
    r = as_f32(w.V[2])
    assert r[0] == 0 and r[1] == 1 and np.isinf(r[2]) and r[3] == 2 and r[4] == 0  # 2^-150: denormal, flushed
    assert r[5] == np.float32(2.0 ** 3.5)
    lg = as_f32(w.V[3])
    assert np.isnan(lg[0]) and lg[1] == -np.inf and lg[2] == np.inf and lg[3] == 0


def test_fma_single_rounding_vs_mac_double_rounding():
    w = new_wave()
    a, b = np.float32(1 + 2 ** -12), np.float32(1 - 2 ** -12)  # a*b = 1 - 2^-24: not representable once rounded
    w.V[1], w.V[2], w.V[3] = f32(a), f32(b), f32(-1.0)
    w.V[4] = f32(-1.0)
    run_snippet(["v_fma_f32 v5, v1, v2, v3", "v_mac_f32_e32 v4, v1, v2"], w)
    assert (as_f32(w.V[5]) == np.float32(-(2.0 ** -24))).all()
    assert (as_f32(w.V[4]) == np.float32(np.float32(a * b) - 1)).all()


def test_neg_abs_clamp_omod():
    w = new_wave()
    w.V[1] = f32(np.linspace(-2, 2, 64))
    run_snippet(["v_add_f32_e64 v2, -|v1|, 0.5 clamp", "v_mul_f32_e64 v3, v1, 1.0 mul:2", "v_max_f32_e64 v4, |v1|, |v1|"], w)
    x = np.linspace(-2, 2, 64).astype(np.float32)
    assert (as_f32(w.V[2]) == np.clip(-np.abs(x) + np.float32(0.5), 0, 1)).all()
    assert (as_f32(w.V[3]) == x * 2).all() and (as_f32(w.V[4]) == np.abs(x)).all()


def test_max_f32_ieee_nan_and_zero_signs():
    w = new_wave()
    w.V[1] = f32([np.nan, -0.0, 1.0] + [0.0] * 61)
    w.V[2] = f32([2.0, 0.0, np.nan] + [-0.0] * 61)
    run_snippet(["v_max_f32_e32 v3, v1, v2", "v_min_f32_e32 v4, v1, v2"], w)
    r = as_f32(w.V[3])
    assert r[0] == 2 and r[1] == 0 and not np.signbit(r[1]) and r[2] == 1
    assert np.signbit(as_f32(w.V[4])[1])


def test_sdwa_select_and_cvt_f16_to_hi_half():
    w = new_wave()
    w.V[1] = 0x12345678
    w.V[2] = 0xAAAA0000
    w.V[3] = f32(1.5)
    run_snippet(["v_or_b32_sdwa v4, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
                 "v_cvt_f16_f32_sdwa v5, v3 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD",
                 "v_mov_b32_e32 v6, 0x1111",
                 "v_cvt_f16_f32_sdwa v6, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD"], w)
    assert (w.V[4] == 0xAAAA1234).all()
    assert (w.V[5] == 0x3E000000).all() and (w.V[6] == 0x3E001111).all()


def test_dpp_row_shr_bound_ctrl():
    w = new_wave()
    w.V[1] = np.arange(64)
    w.V[2] = 99
    run_snippet(["v_mov_b32_dpp v2, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0",
                 "v_mov_b32_dpp v3, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf"], w)
    assert (w.V[2] == np.where(LANES % 16 == 0, 0, LANES - 1)).all()
    assert (w.V[3] == (LANES & ~3) + 3 - (LANES & 3)).all()


def test_integer_bit_ops():
    w = new_wave()
    x = rng.integers(0, 2 ** 32, 64, dtype=np.uint64).astype(np.uint32)
    x[0], x[1], x[2] = 0, 0xFFFFFFFF, 0x0FFFFFFF
    w.V[1] = x
    run_snippet(["v_ffbh_i32_e32 v2, v1", "v_bfe_u32 v3, v1, 16, 1", "v_alignbit_b32 v4, v1, v1, 8",
                 "v_bfrev_b32_e32 v5, v1", "v_mul_hi_u32 v6, v1, v1", "v_ashrrev_i32_e32 v7, 31, v1"], w)
    assert w.V[2][0] == 0xFFFFFFFF and w.V[2][1] == 0xFFFFFFFF and w.V[2][2] == 4
    assert (w.V[3] == (x >> 16) & 1).all()
    assert (w.V[4] == ((x >> 8) | (x << 24)).astype(np.uint32)).all()
    assert all(int(w.V[5][i]) == int(f"{int(x[i]):032b}"[::-1], 2) for i in range(64))
    assert (w.V[6] == ((x.astype(np.uint64) * x) >> np.uint64(32)).astype(np.uint32)).all()
    assert (w.V[7] == np.where(x >> 31, 0xFFFFFFFF, 0)).all()


# the compiler's fp32 division n / d (v1 / v2 -> v8): div_scale, rcp, fma refinement, div_fmas, div_fixup
_DIV_F32 = [
    "v_div_scale_f32 v3, s[0:1], v2, v2, v1", "v_div_scale_f32 v4, vcc, v1, v2, v1", "v_rcp_f32_e32 v5, v3",
    "v_fma_f32 v6, -v3, v5, 1.0", "v_fma_f32 v5, v6, v5, v5", "v_mul_f32_e32 v6, v4, v5",
    "v_fma_f32 v7, -v3, v6, v4", "v_fma_f32 v6, v7, v5, v6", "v_fma_f32 v3, -v3, v6, v4",
    "v_div_fmas_f32 v3, v3, v5, v6", "v_div_fixup_f32 v8, v3, v2, v1"]


def test_div_scale_fmas_fixup_sequence_divides():
    """The compiler's fp32 division (div_scale, rcp, fma refinement, div_fmas, div_fixup) gives n / d."""
    w = new_wave()
    n = rng.standard_normal(64).astype(np.float32) * 100
    d = rng.standard_normal(64).astype(np.float32)
    w.V[1], w.V[2] = f32(n), f32(d)
    run_snippet(_DIV_F32, w)
    assert (as_f32(w.V[8]) == n / d).all()


def test_div_sequence_subnormal_and_huge_quotients():
    """The same sequence where V_DIV_SCALE_F32 sets VCC: a subnormal quotient (numerator scaled up by 2^64; 1e-38 / 5,
    the cap_scale of softmax_scale 1e-38, softcap 5) and a quotient past 2^95 (denominator scaled up). V_DIV_FMAS
    must scale back by 2^-64 / 2^64; a fixed 2^32 gave the subnormal quotient 2^96 too large (eco16)."""
    w = new_wave()
    n = np.concatenate([np.float32([1e-38, 3e-39, -1e-38, 1e30, 3e38, 1.0]),
                        rng.standard_normal(58).astype(np.float32) * 1e-38]).astype(np.float32)
    d = np.concatenate([np.float32([5.0, 7.0, 3.0, 1e-5, 1e-3, 3.0]),
                        rng.uniform(1.0, 1e3, 58).astype(np.float32)]).astype(np.float32)
    w.V[1], w.V[2] = f32(n), f32(d)
    run_snippet(_DIV_F32, w)
    with np.errstate(all="ignore"):
        want = n / d
    got = as_f32(w.V[8])
    assert (got == want).all(), [(float(a), float(b), float(x), float(y))
                                 for a, b, x, y in zip(n, d, got, want) if x != y][:4]


def test_cvt_and_ldexp():
    w = new_wave()
    w.V[1] = f32([-1.5, 3e9, np.nan, 7.9] + [1.0] * 60)
    run_snippet(["v_cvt_u32_f32_e32 v2, v1", "v_cvt_i32_f32_e32 v3, v1", "v_ldexp_f32 v4, v1, -2",
                 "v_cvt_f16_f32_e32 v5, v1", "v_trunc_f32_e32 v6, v1"], w)
    assert list(w.V[2][:4]) == [0, 3000000000, 0, 7]
    assert list(w.V[3][:4].view(np.int32)) == [-1, 2147483647, 0, 7]
    assert as_f32(w.V[4])[3] == np.float32(7.9) / 4
    assert w.V[5][0] == np.float16(-1.5).view(np.uint16) and w.V[5][1] == 0x7C00  # overflow -> +inf
    assert as_f32(w.V[6])[3] == 7


def test_readlane_writelane_readfirstlane():
    w = new_wave()
    w.V[1] = np.arange(64) * 3
    w.set_exec(0xFF00)
    w.S[5] = 77
    run_snippet(["v_readfirstlane_b32 s0, v1", "v_readlane_b32 s1, v1, 40", "v_writelane_b32 v2, s5, 63"], w)
    assert w.S[0] == 24 and w.S[1] == 120 and w.V[2][63] == 77  # writelane ignores EXEC


# ------------------------------------------------------------------------------------------ SALU / control

def test_scalar_arith_scc_and_branches():
    w = new_wave()
    w.S[2], w.S[3] = 0xFFFFFFFF, 1
    run_snippet(["s_add_u32 s4, s2, s3", "s_addc_u32 s5, 0, 0", "s_cmp_lg_u32 s4, 0", "s_cbranch_scc1 .Lskip",
                 "s_mov_b32 s6, 1", ".Lskip:", "s_movk_i32 s7, 0x8000", "s_mul_hi_i32 s8, s7, s7",
                 "s_ashr_i32 s9, s7, 4", "s_cmpk_lg_i32 s7, 0x8000", "s_cselect_b32 s10, 11, 22"], w)
    assert w.S[4] == 0 and w.S[5] == 1 and w.S[6] == 1
    assert w.S[7] == 0xFFFF8000 and w.S[8] == 0 and w.S[9] == 0xFFFFF800 and w.S[10] == 22


def test_scalar_bitcmp():
    """S_BITCMP0/1_B32/B64 (Vega ISA manual, SOPC): SCC = bit S1[4:0] (B64: S1[5:0]) of S0 is 0 / 1; the varlen
    check kernel tests its assert flag with s_bitcmp1_b32."""
    w = new_wave()
    w.S[2], w.S[3], w.S[4], w.S[5] = 0b1010, 0, 1, 0x80000000
    run_snippet(["s_bitcmp1_b32 s2, 1", "s_cselect_b32 s10, 1, 0", "s_bitcmp1_b32 s2, 2", "s_cselect_b32 s11, 1, 0",
                 "s_bitcmp0_b32 s2, 33", "s_cselect_b32 s12, 1, 0", "s_bitcmp1_b64 s[4:5], 63",
                 "s_cselect_b32 s13, 1, 0", "s_bitcmp0_b64 s[4:5], 0", "s_cselect_b32 s14, 1, 0"], w)
    assert (w.S[10], w.S[11], w.S[12], w.S[13], w.S[14]) == (1, 0, 0, 1, 0)


def test_trap_stops_the_wave():
    """S_TRAP (SOPP): the wave enters the trap handler; the emulator stops with Trap (rocflash's device-side assert
    on AMD), after the instructions before it ran."""
    from rocflash.emu.state import Trap
    w = new_wave()
    with pytest.raises(Trap, match="s_trap 2"):
        run_snippet(["s_mov_b32 s4, 7", "s_trap 2", "s_mov_b32 s5, 9"], w)
    assert w.S[4] == 7 and w.S[5] != 9


def test_saveexec_and_execz_branch():
    w = new_wave()
    w.V[0] = np.arange(64)
    run_snippet(["v_cmp_gt_u32_e32 vcc, 8, v0", "s_and_saveexec_b64 s[2:3], vcc", "s_cbranch_execz .Lend",
                 "v_mov_b32_e32 v1, 5", ".Lend:", "s_or_b64 exec, exec, s[2:3]", "v_add_u32_e32 v2, 1, v1"], w)
    assert w.exec == FULL and w.S[2] == 0xFFFFFFFF and w.S[3] == 0xFFFFFFFF
    assert (w.V[2] == np.where(LANES < 8, 6, 1)).all()


# ------------------------------------------------------------------------------------------ memory

def test_ds_read_write_b128_read2_and_bounds():
    w = new_wave(lds_bytes=64 * 16 + 64)
    w.V[1] = LANES * 16
    for j in range(4):
        w.V[2 + j] = LANES * 4 + j
    run_snippet(["ds_write_b128 v1, v[2:5]", "ds_read_b128 v[6:9], v1", "ds_read2_b64 v[10:13], v1 offset1:1",
                 "v_mov_b32_e32 v14, 0", "ds_read2st64_b32 v[15:16], v14 offset1:1"], w)
    for j in range(4):
        assert (w.V[6 + j] == LANES * 4 + j).all()
    assert (w.V[12] == LANES * 4 + 2).all() and (w.V[13] == LANES * 4 + 3).all()  # offset1:1 = 8 bytes further
    assert (w.V[15] == 0).all() and (w.V[16] == 64).all()  # dword 64 = lane 16's first dword
    with pytest.raises(MemoryFault, match="LDS"):
        run_snippet(["ds_read_b32 v1, v14 offset:65532", ], w, )


def test_ds_swizzle_bitmask_and_bpermute():
    assert swizzle_offset("swizzle(SWAP,4)") == 0x101F and swizzle_offset("0x041f") == 0x041F
    assert (swizzle_lanes(0x041F) == LANES ^ 1).all()
    assert (swizzle_lanes(swizzle_offset('swizzle(BITMASK_PERM,"00p00")')) == (LANES & 0x24)).all()
    w = new_wave()
    w.V[1] = LANES * 10
    w.V[2] = ((LANES + 1) % 64) * 4
    w.set_exec(FULL & ~(1 << 5))
    run_snippet(["ds_swizzle_b32 v3, v1 offset:swizzle(SWAP,16)", "ds_bpermute_b32 v4, v2, v1"], w)
    act = LANES != 5
    assert (w.V[3][act] == np.where((LANES ^ 16) == 5, 0, (LANES ^ 16) * 10)[act]).all()  # inactive source -> 0
    assert (w.V[4][act] == np.where((LANES + 1) % 64 == 5, 0, ((LANES + 1) % 64) * 10)[act]).all()
    assert w.V[3][5] == 0 and w.V[4][5] == 0  # the inactive lane is not written


def test_global_load_store_saddr_and_fault():
    w = new_wave()
    mem = w.wg.mem
    base = mem.put(np.arange(260, dtype=np.uint32))
    w.S[0], w.S[1] = base & 0xFFFFFFFF, base >> 32
    w.V[1] = LANES * 16
    run_snippet(["global_load_dwordx4 v[2:5], v1, s[0:1] offset:16", "global_store_short v1, v2, s[0:1]"], w)
    for j in range(4):
        assert (w.V[2 + j] == LANES * 4 + 4 + j).all()
    assert (mem.read(base, 4).view(np.uint32)[0]) == 4  # low 16 bits of lane 0's v2 (4) stored
    w.V[6] = 0
    with pytest.raises(MemoryFault, match="outside"):
        run_snippet(["global_load_dword v7, v[6:7], off"], w)


def test_s_load_from_kernarg():
    w = new_wave()
    addr = w.wg.mem.put(np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.uint32))
    w.S[6], w.S[7] = addr & 0xFFFFFFFF, addr >> 32
    run_snippet(["s_load_dwordx4 s[8:11], s[6:7], 0x10", "s_load_dword s12, s[6:7], 0x4"], w)
    assert w.S[8:12] == [5, 6, 7, 8] and w.S[12] == 2


def _kernarg_kernel(lines: list[str]):
    """A Kernel of these instruction lines whose s[0:1] holds the kernarg segment pointer at entry."""
    from rocflash.emu.asm import Kernel

    instrs = []
    for i, ln in enumerate(lines):
        ins = parse_instruction(ln, i + 1)
        ins.index = i
        instrs.append(ins)
    return Kernel("t", instrs, {}, {"user_sgpr_count": 2, "user_sgpr_kernarg_segment_ptr": 1})


def test_barrier_interleaves_waves():
    """Two waves exchange data through LDS across s_barrier: each reads what the other wrote."""
    from rocflash.emu.asm import Kernel
    from rocflash.emu.machine import Launcher, Program
    from rocflash.emu.state import GlobalMemory

    kernel = _kernarg_kernel(["v_lshlrev_b32_e32 v1, 2, v0", "ds_write_b32 v1, v0", "s_barrier",
                              "v_sub_u32_e32 v2, 0x1fc, v1", "ds_read_b32 v3, v2", "v_mov_b32_e32 v4, s0",
                              "v_mov_b32_e32 v5, s1", "v_add_co_u32_e32 v4, vcc, v4, v1",
                              "v_addc_co_u32_e32 v5, vcc, 0, v5, vcc", "global_store_dword v[4:5], v3, off",
                              "s_endpgm"])
    mem = GlobalMemory()
    out = mem.put(np.zeros(128, np.uint32))
    kernarg = np.array([out], dtype=np.uint64).tobytes()
    kernel.instructions[5] = parse_instruction("s_load_dwordx2 s[0:1], s[0:1], 0x0", 6)
    kernel.instructions[5].index = 5
    kernel.instructions.insert(6, parse_instruction("v_mov_b32_e32 v4, s0", 6))
    for i, ins in enumerate(kernel.instructions):
        ins.index = i
    kernel.instructions[7] = parse_instruction("v_mov_b32_e32 v5, s1", 8)
    for order in ("forward", "reverse", "interleave:4:1"):
        mem.write(out, np.zeros(128, np.uint32))
        Launcher(Program.from_kernel(kernel), mem).launch((1,), (128,), kernarg, 512, order=order)
        assert (mem.read(out, 512).view(np.uint32) == 127 - np.arange(128)).all(), order
    # The same kernel without its s_barrier: each order exposes the race (a wave reads LDS not yet written).
    racy = Kernel("racy", [i for i in kernel.instructions if i.mnemonic != "s_barrier"], {}, kernel.amdhsa)
    for i, ins in enumerate(racy.instructions):
        ins.index = i
    for order in ("forward", "reverse"):
        mem.write(out, np.zeros(128, np.uint32))
        Launcher(Program.from_kernel(racy), mem).launch((1,), (128,), kernarg, 512, order=order)
        assert not (mem.read(out, 512).view(np.uint32) == 127 - np.arange(128)).all(), order


def test_launch_rejects_groups_outside_the_grid():
    """Launcher.launch(groups=...) runs chosen workgroups only (the drivers' ``groups=``): an id outside the grid
    (a negative one, x >= grid, or a y / z on a 1-D grid) raises EmuError naming the grid and the ids before any
    group runs; ids inside it run (the store lands)."""
    from rocflash.emu.machine import EmuError, Launcher, Program
    from rocflash.emu.state import GlobalMemory

    kernel = _kernarg_kernel(["s_load_dwordx2 s[0:1], s[0:1], 0x0", "s_waitcnt lgkmcnt(0)", "v_mov_b32_e32 v4, s0",
                              "v_mov_b32_e32 v5, s1", "v_mov_b32_e32 v3, 7", "global_store_dword v[4:5], v3, off",
                              "s_endpgm"])
    mem = GlobalMemory()
    out = mem.put(np.zeros(1, np.uint32))
    kernarg = np.array([out], dtype=np.uint64).tobytes()
    launcher = Launcher(Program.from_kernel(kernel), mem)
    for bad in ([(4, 0, 0)], [(-1, 0, 0)], [(0, 1, 0)], [(0, 0, 0), (9, 0, 0)]):
        with pytest.raises(EmuError, match=r"groups must be workgroup ids .* inside the grid \(4, 1, 1\)"):
            launcher.launch((4,), (64,), kernarg, 0, groups=bad)
        assert mem.read(out, 4).view(np.uint32)[0] == 0, bad  # nothing ran
    stats = launcher.launch((4,), (64,), kernarg, 0, groups=[(3, 0, 0)])
    assert stats.workgroups == 1 and mem.read(out, 4).view(np.uint32)[0] == 7


# ------------------------------------------------------------------------------------------ cycle model

def test_lds_clocks_bank_conflicts():
    from rocflash.emu.mem import lds_clocks

    rows = np.arange(64) * 16
    assert lds_clocks(rows, 16) == 8  # ds_read_b128, consecutive 16-byte rows: 8 groups of 8 lanes, no conflict
    assert lds_clocks(np.arange(64) * 128, 16) == 8 * 8  # rows 128 bytes apart: all 8 lanes of a group in banks 0-3
    assert lds_clocks(np.arange(64) * 144, 16) == 8  # padded by 16 bytes: conflict-free again
    assert lds_clocks(np.zeros(64, np.int64), 4) == 2  # broadcast of one dword


def test_cycle_classes():
    from rocflash.emu.cycles import PEAK_FP16_FLOPS, classify

    assert classify("v_dot2_f32_f16") == ("dot2", 4) and classify("v_exp_f32_e32") == ("valu_trans", 16)
    assert classify("v_mul_lo_u32")[1] == 16 and classify("s_waitcnt")[1] == 0 and classify("ds_read_b128")[0] == "lds"
    assert abs(PEAK_FP16_FLOPS / 1e12 - 26.5) < 0.05


def test_params_layout_from_record_dump():
    """Kernel-argument offsets come from clang's record-layout dump (no hard-coded struct layout)."""
    from rocflash.emu.build import parse_record_layouts

    dump = """
*** Dumping AST Record Layout
         0 | struct rf::FmhaFwdParams
         0 |   const void * q
         8 |   int64_t q_batch_stride
        16 |   int32_t batch
        20 |   DType dtype
        24 |   float softmax_scale
        28 |   _Bool aligned
           | [sizeof=32, dsize=32, align=8,
           |  nvsize=32, nvalign=8]
"""
    lay = parse_record_layouts(dump)["rf::FmhaFwdParams"]
    assert lay.size == 32 and lay.fields["softmax_scale"].offset == 24
    raw = lay.pack({"q": 0x1234, "batch": 3, "softmax_scale": 0.5, "aligned": True})
    assert raw[0:8] == (0x1234).to_bytes(8, "little") and raw[16] == 3 and raw[28] == 1
    assert np.frombuffer(raw[24:28], np.float32)[0] == 0.5 and raw[8:16] == bytes(8)
    with pytest.raises(KeyError, match="no field"):
        lay.pack({"cu_seqlens_q": 1})


def test_scratch_spill_and_reload_per_lane():
    """buffer_store/load_dword through the private-segment descriptor: each lane has its own scratch."""
    from rocflash.emu.state import PRIVATE_BASE

    w = new_wave()
    w.private = np.zeros((64, 64), np.uint8)
    w.S[0:4] = [PRIVATE_BASE & 0xFFFFFFFF, PRIVATE_BASE >> 32, 0xFFFFFFFF, 0]
    w.V[1] = LANES * 7
    w.V[2] = 8
    run_snippet(["buffer_store_dword v1, off, s[0:3], 0 offset:4", "v_mov_b32_e32 v1, 0",
                 "buffer_load_dword v3, off, s[0:3], 0 offset:4", "buffer_store_dword v3, v2, s[0:3], 0 offen offset:4",
                 "buffer_load_dword v4, v2, s[0:3], 0 offen offset:4"], w)
    assert (w.V[3] == LANES * 7).all() and (w.V[4] == LANES * 7).all()
    with pytest.raises(MemoryFault, match="scratch"):
        run_snippet(["buffer_load_dword v4, off, s[0:3], 0 offset:64"], w)


def test_fma_exact_midpoint_not_double_rounded():
    """a*b + c whose float64 sum lands exactly on a float32 midpoint: the true value decides the rounding."""
    w = new_wave()
    a = np.float32(1 + 2.0 ** -23)
    b = np.float32((1 - 2.0 ** -23) * 2.0 ** -24)  # a*b = 2^-24 - 2^-70
    c = np.float32(1 + 2.0 ** -23)  # odd mantissa: ties-to-even on the float64 sum would round up
    w.V[1], w.V[2], w.V[3] = f32(a), f32(b), f32(c)
    run_snippet(["v_fma_f32 v4, v1, v2, v3"], w)
    assert (as_f32(w.V[4]) == c).all()
    assert np.float32(np.float64(a) * np.float64(b) + np.float64(c)) != c  # the naive double rounding differs


def test_vopc_sdwa_and_and_sdwa_masked_operand_idiom():
    """The masked-operand idiom of the kernels: compare a 16-bit half with -0.0 (0x8000) through SDWA, and mask
    the other operand's half with v_and_b32_sdwa; s_brev_b32 reverses bits."""
    w = new_wave()
    w.V[1] = np.where(LANES % 2 == 0, 0x80001234, 0x12348000).astype(np.uint32)
    w.V[2] = 0xABCDEF01
    w.S[4] = 0x00000001
    run_snippet(["v_cmp_eq_u32_sdwa vcc, v1, 0x8000 src0_sel:WORD_1 src1_sel:DWORD",
                 "v_and_b32_sdwa v3, v2, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0",
                 "s_brev_b32 s5, s4"], w)
    assert w.S[106] == 0x5555555555555555 & 0xFFFFFFFF and w.S[107] == 0x55555555
    lo_w1 = np.where(LANES % 2 == 0, 0x1234, 0x8000)
    assert (w.V[3] == (0xABCD & lo_w1) << 16).all()  # low half preserved (v3 was 0)
    assert w.S[5] == 0x80000000


def test_fma_mix_and_flat_load():
    """V_FMA_MIX_F32 (f16 halves selected by op_sel/op_sel_hi, neg_lo) and FLAT loads of global addresses."""
    w = new_wave()
    w.V[1] = h2(np.float16(1.5), np.float16(-2.0))
    w.V[2] = f32(3.0)
    w.V[3] = f32(0.25)
    run_snippet(["v_fma_mix_f32 v4, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[1,0,0]",
                 "v_fma_mix_f32 v5, v1, v2, v3 op_sel_hi:[1,0,0] neg_lo:[0,0,1]"], w)
    assert (as_f32(w.V[4]) == np.float32(-2.0 * 3 + 0.25)).all() and (as_f32(w.V[5]) == np.float32(1.5 * 3 - 0.25)).all()
    base = w.wg.mem.put(np.arange(64, dtype=np.uint32))
    w.V[6] = (base + LANES * 4) & 0xFFFFFFFF
    w.V[7] = (base + LANES * 4) >> 32
    run_snippet(["flat_load_dword v8, v[6:7]"], w)
    assert (w.V[8] == LANES).all()


def test_generated_sources_keyed_by_tile_configs(tmp_path, monkeypatch):
    """Checkouts with different ck_configs/ sharing one emulator cache get different generated-source
    directories (one checkout regenerating must not change the headers another is compiling against)."""
    import shutil

    from rocflash.configs import config_dir
    from rocflash.emu import build

    monkeypatch.setenv("ROCFLASH_CACHE_DIR", str(tmp_path / "cache"))
    build.generated_dir.cache_clear()
    try:
        first = build.generated_dir()
        configs = tmp_path / "configs"
        shutil.copytree(config_dir(), configs)
        toml = configs / "fmha_splitkv.toml"
        toml.write_text(toml.read_text() + "\n# a different checkout\n")
        monkeypatch.setenv("ROCFLASH_CK_CONFIGS", str(configs))
        build.generated_dir.cache_clear()
        second = build.generated_dir()
        assert first != second and first.parent == second.parent == tmp_path / "cache" / "emu" / "gen"
        assert (first / "fmha_fwd_instances.h").is_file() and (second / "fmha_fwd_instances.h").is_file()
    finally:
        build.generated_dir.cache_clear()


def f64(x):
    """float64 values as (low dword, high dword) arrays: the register pair v[n:n+1] holds them."""
    u = np.asarray(x, dtype=np.float64).view(np.uint64)
    return (u & np.uint64(0xFFFFFFFF)).astype(np.uint32), (u >> np.uint64(32)).astype(np.uint32)


def as_f64(lo, hi):
    return ((np.asarray(hi, np.uint64) << np.uint64(32)) | np.asarray(lo, np.uint64)).view(np.float64)


def test_fp64_score_ops_widen_fma_narrow():
    """The fp32 kernels' score sum (hip_src tile_rowdot_fp64): v_cvt_f64_f32 widens exactly, v_fma_f64 rounds
    a * b + c once to float64 (Vega ISA 12.12), v_cvt_f32_f64 rounds to nearest even. The fma's inputs here are
    not widened float32 values (53-bit factors): the product is not exact in float64, so a separate multiply
    and add would round twice."""
    w = new_wave()
    a = np.float64(1 + 2.0 ** -30)
    b = np.float64(1 - 2.0 ** -30)  # a*b = 1 - 2^-60: below float64's resolution at 1
    w.V[0], w.V[1] = f64(np.full(64, a))
    w.V[2], w.V[3] = f64(np.full(64, b))
    w.V[4], w.V[5] = f64(np.full(64, -1.0))
    w.V[6] = f32(np.full(64, np.float32(1 + 2.0 ** -23)))
    w.V[7], w.V[8] = f64(np.where(LANES % 2 == 0, 1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24))  # ties -> even
    run_snippet(["v_fma_f64 v[10:11], v[0:1], v[2:3], v[4:5]", "v_cvt_f64_f32_e32 v[12:13], v6",
                 "v_cvt_f32_f64_e32 v14, v[7:8]", "v_fma_f64 v[16:17], -v[0:1], v[2:3], 1.0"], w)
    assert (as_f64(w.V[10], w.V[11]) == -(2.0 ** -60)).all()  # fused: the exact 1 - 2^-60 - 1
    assert a * b - 1 == 0.0  # unfused rounding loses it
    assert (as_f64(w.V[12], w.V[13]) == np.float64(np.float32(1 + 2.0 ** -23))).all()
    assert (as_f32(w.V[14]) == np.where(LANES % 2 == 0, np.float32(1), np.float32(1 + 2.0 ** -22))).all()
    assert (as_f64(w.V[16], w.V[17]) == 2.0 ** -60).all()  # neg modifier on a 64-bit operand, inline 1.0


def test_fma_f64_rounds_once_on_both_paths():
    """fma_f64 (v_fma_f64) against the exact rational a * b + c rounded once (Python's int division rounds
    correctly): widened float32 factors (the exact-product path tile_rowdot_fp64 takes) and full 53-bit ones
    (the rational path)."""
    from fractions import Fraction

    from rocflash.emu.fp import fma_f64

    def exact(a, b, c):
        r = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
        return r.numerator / r.denominator

    narrow = rng.standard_normal((3, 64)).astype(np.float32).astype(np.float64)
    wide = rng.standard_normal((3, 64)) * np.array([[1.0], [1.0], [1e-17]])
    for a, b, c in (narrow, wide):
        got = fma_f64(a, b, c)
        assert all(got[i] == exact(a[i], b[i], c[i]) for i in range(64))
    assert not all(fma_f64(*wide)[i] == wide[0][i] * wide[1][i] + wide[2][i] for i in range(64))


def test_driver_rejects_aligned_outside_its_rule(monkeypatch):
    """aligned=True forces the 128-bit load path: on a headdim whose rows are not whole 16-byte vectors (odd, or
    36 fp16 = 72 bytes), or a stride that is not, every driver entry point raises ValueError naming the tensor,
    the rule and the value before it compiles or launches anything (it used to fault inside the emulator, or could
    read a neighbour's bytes). A non-contiguous headdim is rejected on both load paths."""
    import torch

    from rocflash.backends import FwdArgs
    from rocflash.emu import driver, driver_varlen

    def no_launch(*a, **kw):
        raise AssertionError("the driver compiled / launched a kernel for an argument it must reject")

    monkeypatch.setattr(driver, "kernel_image", no_launch)
    monkeypatch.setattr(driver_varlen, "kernel_image", no_launch)
    args = FwdArgs(0.125, -1, -1, 0.0, None)

    def calls(q, k, v, aligned):
        o = torch.zeros_like(q)
        lse = torch.zeros(q.shape[0], q.shape[2], q.shape[1])
        yield lambda: driver.run_forward(q, k, v, aligned=aligned)
        yield lambda: driver.run_backward(q, k, v, o, lse, o, aligned=aligned)
        yield lambda: driver_varlen.run_forward_seq(q, k, v, args, aligned=aligned)
        flat = [t.flatten(0, 1) for t in (q, k, v, o)]
        yield lambda: driver_varlen.run_backward_seq(*flat[:4], lse, flat[3], args, None, aligned=aligned)

    for d, dtype in ((63, torch.float16), (36, torch.float16), (33, torch.bfloat16), (5, torch.float32)):
        q, k, v = (torch.randn(1, 8, 2, d).to(dtype) for _ in range(3))
        for call in calls(q, k, v, True):
            with pytest.raises(ValueError, match=rf"^aligned=True \(128-bit loads\) needs headdim \* element size a "
                                                 rf"multiple of 16 bytes, got q headdim {d} \({d * q.element_size()} "
                                                 rf"bytes of {dtype}\)"):
                call()
    # headdim 64 fp16 (128 bytes) but K is a slice of a wider row: head stride 68 elements = 136 bytes
    q = torch.randn(1, 8, 2, 64).half()
    k = torch.randn(1, 8, 2, 68).half()[..., :64]
    for call in list(calls(q, k, k, True))[:3]:
        with pytest.raises(ValueError, match=r"^aligned=True \(128-bit loads\) needs every stride of k a multiple of "
                                             r"16 bytes, got stride 68 \(136 bytes\) in dimension 2"):
            call()
    kt = torch.randn(1, 8, 64, 2).half().transpose(2, 3)  # headdim stride 2
    for aligned in (True, False, None):
        with pytest.raises(ValueError, match=r"^k must have a contiguous last dimension \(headdim\), got strides"):
            driver.run_forward(q, kt, kt, aligned=aligned)
