"""Decode scalar instructions: SALU (SOP1/SOP2/SOPC/SOPK), program control (SOPP) and scalar loads (SMEM).

Vega ISA chapter 5 "Scalar ALU Operations" (5.3 SCC, 5.4 integer arithmetic: SCC = carry/overflow,
5.5 conditional, 5.6 comparison, 5.7 bit-wise: SCC = result != 0), chapter 4 "Program Flow Control"
(4.2 branching, 4.3 s_barrier, 4.4 s_waitcnt), chapter 7 "Scalar Memory Operations" and section 12.1-12.6
(instruction definitions). Values are Python ints; 32-bit results are masked to 32 bits.

Memory operations complete immediately in the emulator, so ``s_waitcnt`` and ``s_nop`` do nothing here
(they matter to the cycle model, not to functional results). Returned control codes: a label's instruction
index for a taken branch, :data:`BARRIER` and :data:`END`.
"""

from __future__ import annotations

import numpy as np

from .asm import Instruction
from .operands import M32, M64, sget, swriter
from .state import Trap, Unimplemented

BARRIER, END = -1, -2


def _s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def _s64(x: int) -> int:
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def _cnt(x: int) -> int:
    return bin(x).count("1")


# SOP2 (Vega 12.1): name -> (width, fn(a, b, scc) -> (result, scc or None to leave SCC unchanged))
SOP2 = {
    "s_add_u32": (32, lambda a, b, c: ((a + b) & M32, int(a + b > M32))),
    "s_sub_u32": (32, lambda a, b, c: ((a - b) & M32, int(b > a))),
    "s_addc_u32": (32, lambda a, b, c: ((a + b + c) & M32, int(a + b + c > M32))),
    "s_subb_u32": (32, lambda a, b, c: ((a - b - c) & M32, int(b + c > a))),
    "s_add_i32": (32, lambda a, b, c: ((a + b) & M32, int(not (-(1 << 31) <= _s32(a) + _s32(b) < (1 << 31))))),
    "s_sub_i32": (32, lambda a, b, c: ((a - b) & M32, int(not (-(1 << 31) <= _s32(a) - _s32(b) < (1 << 31))))),
    "s_min_i32": (32, lambda a, b, c: (a if _s32(a) < _s32(b) else b, int(_s32(a) < _s32(b)))),
    "s_min_u32": (32, lambda a, b, c: (min(a, b), int(a < b))),
    "s_max_i32": (32, lambda a, b, c: (a if _s32(a) > _s32(b) else b, int(_s32(a) > _s32(b)))),
    "s_max_u32": (32, lambda a, b, c: (max(a, b), int(a > b))),
    "s_cselect_b32": (32, lambda a, b, c: (a if c else b, None)),
    "s_cselect_b64": (64, lambda a, b, c: (a if c else b, None)),
    "s_and_b32": (32, lambda a, b, c: (a & b, int(a & b != 0))),
    "s_and_b64": (64, lambda a, b, c: (a & b, int(a & b != 0))),
    "s_or_b32": (32, lambda a, b, c: (a | b, int(a | b != 0))),
    "s_or_b64": (64, lambda a, b, c: (a | b, int(a | b != 0))),
    "s_xor_b32": (32, lambda a, b, c: (a ^ b, int(a ^ b != 0))),
    "s_xor_b64": (64, lambda a, b, c: (a ^ b, int(a ^ b != 0))),
    "s_andn2_b32": (32, lambda a, b, c: (a & ~b & M32, int(a & ~b & M32 != 0))),
    "s_andn2_b64": (64, lambda a, b, c: (a & ~b & M64, int(a & ~b & M64 != 0))),
    "s_orn2_b32": (32, lambda a, b, c: ((a | ~b) & M32, int((a | ~b) & M32 != 0))),
    "s_orn2_b64": (64, lambda a, b, c: ((a | ~b) & M64, int((a | ~b) & M64 != 0))),
    "s_nand_b64": (64, lambda a, b, c: (~(a & b) & M64, int(~(a & b) & M64 != 0))),
    "s_nor_b64": (64, lambda a, b, c: (~(a | b) & M64, int(~(a | b) & M64 != 0))),
    "s_xnor_b64": (64, lambda a, b, c: (~(a ^ b) & M64, int(~(a ^ b) & M64 != 0))),
    "s_lshl_b32": (32, lambda a, b, c: ((a << (b & 31)) & M32, int((a << (b & 31)) & M32 != 0))),
    "s_lshr_b32": (32, lambda a, b, c: (a >> (b & 31), int(a >> (b & 31) != 0))),
    "s_ashr_i32": (32, lambda a, b, c: ((_s32(a) >> (b & 31)) & M32, int(_s32(a) >> (b & 31) != 0))),
    "s_mul_i32": (32, lambda a, b, c: ((_s32(a) * _s32(b)) & M32, None)),
    "s_mul_hi_u32": (32, lambda a, b, c: ((a * b) >> 32, None)),
    "s_mul_hi_i32": (32, lambda a, b, c: (((_s32(a) * _s32(b)) >> 32) & M32, None)),
    "s_bfm_b32": (32, lambda a, b, c: ((((1 << (a & 31)) - 1) << (b & 31)) & M32, None)),
    "s_lshl1_add_u32": (32, lambda a, b, c: (((a << 1) + b) & M32, int((a << 1) + b > M32))),
    "s_lshl2_add_u32": (32, lambda a, b, c: (((a << 2) + b) & M32, int((a << 2) + b > M32))),
    "s_lshl3_add_u32": (32, lambda a, b, c: (((a << 3) + b) & M32, int((a << 3) + b > M32))),
    "s_lshl4_add_u32": (32, lambda a, b, c: (((a << 4) + b) & M32, int((a << 4) + b > M32))),
    "s_bfe_u32": (32, lambda a, b, c: ((a >> (b & 31)) & ((1 << ((b >> 16) & 127)) - 1),
                                       int((a >> (b & 31)) & ((1 << ((b >> 16) & 127)) - 1) != 0))),
    "s_pack_ll_b32_b16": (32, lambda a, b, c: ((a & 0xFFFF) | ((b & 0xFFFF) << 16), None)),
}
# 64-bit shifts: the shift amount is a 32-bit operand.
SOP2_SHIFT64 = {
    "s_lshl_b64": lambda a, b: (a << (b & 63)) & M64,
    "s_lshr_b64": lambda a, b: a >> (b & 63),
    "s_ashr_i64": lambda a, b: (_s64(a) >> (b & 63)) & M64,
}

# SOP1 (Vega 12.3): name -> (width, fn(a) -> (result, scc or None))
SOP1 = {
    "s_mov_b32": (32, lambda a: (a, None)),
    "s_mov_b64": (64, lambda a: (a, None)),
    "s_not_b32": (32, lambda a: (~a & M32, int(~a & M32 != 0))),
    "s_not_b64": (64, lambda a: (~a & M64, int(~a & M64 != 0))),
    "s_brev_b32": (32, lambda a: (int(f"{a:032b}"[::-1], 2), None)),
    "s_bcnt1_i32_b32": (32, lambda a: (_cnt(a), int(_cnt(a) != 0))),
    "s_bcnt1_i32_b64": (64, lambda a: (_cnt(a), int(_cnt(a) != 0))),
    "s_ff1_i32_b32": (32, lambda a: (((a & -a).bit_length() - 1) & M32 if a else M32, None)),
    "s_ff1_i32_b64": (64, lambda a: (((a & -a).bit_length() - 1) & M32 if a else M32, None)),
    "s_flbit_i32_b32": (32, lambda a: (32 - a.bit_length() if a else M32, None)),
    "s_sext_i32_i16": (32, lambda a: (_s32(((a & 0xFFFF) ^ 0x8000) - 0x8000) & M32, None)),
    "s_abs_i32": (32, lambda a: (abs(_s32(a)) & M32, int(abs(_s32(a)) & M32 != 0))),
}
# S_*_SAVEEXEC_B64 (Vega 12.3): D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0
SAVEEXEC = {
    "s_and_saveexec_b64": lambda s, e: s & e,
    "s_or_saveexec_b64": lambda s, e: s | e,
    "s_xor_saveexec_b64": lambda s, e: s ^ e,
    "s_andn2_saveexec_b64": lambda s, e: s & ~e & M64,
    "s_orn2_saveexec_b64": lambda s, e: (s | ~e) & M64,
    "s_nand_saveexec_b64": lambda s, e: ~(s & e) & M64,
}
# SOPC (Vega 12.4): name -> (width, signed, predicate)
_PRED = {"eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "gt": lambda a, b: a > b,
         "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b}


def _sopc(base: str):
    parts = base.split("_")  # s, cmp|cmpk, op, type
    if len(parts) != 4 or parts[2] not in _PRED or parts[3] not in ("i32", "u32", "u64"):
        return None
    return (64 if parts[3] == "u64" else 32), parts[3] == "i32", _PRED[parts[2]]


def build(ins: Instruction, labels: dict[str, int]):
    """Closure for a scalar instruction, or None when the mnemonic is not a scalar op."""
    m = ins.mnemonic
    ops = ins.operands
    if m in SOP2:
        width, fn = SOP2[m]
        put = swriter(ops[0], width, ins)
        a, b = sget(ops[1], width, ins), sget(ops[2], width, ins)

        def sop2(w):
            r, c = fn(a(w), b(w), w.scc)
            put(w, r)
            if c is not None:
                w.scc = c
        return sop2
    if m in SOP2_SHIFT64:
        fn = SOP2_SHIFT64[m]
        put = swriter(ops[0], 64, ins)
        a, b = sget(ops[1], 64, ins), sget(ops[2], 32, ins)

        def shift64(w):
            r = fn(a(w), b(w))
            put(w, r)
            w.scc = int(r != 0)
        return shift64
    if m in SOP1:
        width, fn = SOP1[m]
        put = swriter(ops[0], 32 if m.startswith("s_bcnt1") or m.startswith("s_ff1") else width, ins)
        a = sget(ops[1], width, ins)

        def sop1(w):
            r, c = fn(a(w))
            put(w, r)
            if c is not None:
                w.scc = c
        return sop1
    if m in SAVEEXEC:
        fn = SAVEEXEC[m]
        put = swriter(ops[0], 64, ins)
        a = sget(ops[1], 64, ins)

        def saveexec(w):
            old = w.exec
            src = a(w)
            new = fn(src, old)
            put(w, old)
            w.set_exec(new)
            w.scc = int(new != 0)
        return saveexec
    if m in _BITCMP:
        # SOPC S_BITCMP0/1_B32/B64 (Vega ISA manual, "SOPC instructions"): SCC = (S0[S1[4:0]] == 0 / 1), B64 with
        # S1[5:0]
        width, want = _BITCMP[m]
        a, b = sget(ops[0], width, ins), sget(ops[1], 32, ins)

        def bitcmp(w):
            w.scc = int((a(w) >> (b(w) & (width - 1))) & 1 == want)
        return bitcmp
    if m.startswith("s_cmp_"):
        spec = _sopc(m)
        if spec is None:
            return None
        width, signed, pred = spec
        a, b = sget(ops[0], width, ins), sget(ops[1], width, ins)
        if signed:
            def cmp_s(w):
                w.scc = int(pred(_s32(a(w)), _s32(b(w))))
            return cmp_s

        def cmp_u(w):
            w.scc = int(pred(a(w), b(w)))
        return cmp_u
    if m.startswith("s_cmpk_"):
        spec = _sopc(m.replace("cmpk", "cmp"))
        if spec is None:
            return None
        _, signed, pred = spec
        a = sget(ops[0], 32, ins)
        k = int(ops[1].value) & 0xFFFF
        k = (k ^ 0x8000) - 0x8000 if signed else k  # SIMM16 sign-extended for i32, zero-extended for u32

        def cmpk(w):
            x = a(w)
            w.scc = int(pred(_s32(x) if signed else x, k))
        return cmpk
    if m in ("s_movk_i32", "s_addk_i32", "s_mulk_i32", "s_cmovk_i32"):
        put = swriter(ops[0], 32, ins)
        d = sget(ops[0], 32, ins)
        k = ((int(ops[1].value) & 0xFFFF) ^ 0x8000) - 0x8000
        if m == "s_movk_i32":
            return lambda w: put(w, k & M32)
        if m == "s_cmovk_i32":
            def cmovk(w):
                if w.scc:
                    put(w, k & M32)
            return cmovk
        if m == "s_mulk_i32":
            return lambda w: put(w, (_s32(d(w)) * k) & M32)

        def addk(w):
            x = _s32(d(w))
            r = x + k
            put(w, r & M32)
            w.scc = int(not (-(1 << 31) <= r < (1 << 31)))
        return addk
    if m in ("s_waitcnt", "s_nop", "s_setprio", "s_sleep", "s_dcache_wb", "s_icache_inv"):
        return lambda w: None
    if m == "s_barrier":
        return lambda w: BARRIER
    if m == "s_endpgm":
        return lambda w: END
    if m == "s_trap":  # SOPP S_TRAP (Vega ISA manual 4.6 "Trap and Exception Registers"): enter the trap handler
        where = ins.where()

        def trap(w):
            raise Trap(f"s_trap {ins.operands[0].text if ins.operands else ''} ({where}): the kernel trapped "
                       f"(a device-side assert; the queue fails on a GPU)")
        return trap
    if m.startswith("s_cbranch_") or m == "s_branch":
        target = labels.get(ops[0].text)
        if target is None:
            raise Unimplemented(f"branch to unknown label {ops[0].text} ({ins.where()})")
        cond = m[len("s_cbranch_"):] if m != "s_branch" else "always"
        tests = {
            "always": lambda w: True,
            "scc0": lambda w: w.scc == 0, "scc1": lambda w: w.scc == 1,
            "vccz": lambda w: (w.S[106] | w.S[107]) == 0, "vccnz": lambda w: (w.S[106] | w.S[107]) != 0,
            "execz": lambda w: (w.S[126] | w.S[127]) == 0, "execnz": lambda w: (w.S[126] | w.S[127]) != 0,
        }
        if cond not in tests:
            return None
        test = tests[cond]
        return lambda w: target if test(w) else None
    if m.startswith("s_load_dword") or m.startswith("s_buffer_load"):
        return build_smem(ins)
    return None


def build_smem(ins: Instruction):
    """S_LOAD_DWORD{,X2,X4,X8,X16} sdst, sbase, offset (Vega 12.6): dwords from sbase + offset."""
    m = ins.mnemonic
    if not m.startswith("s_load_dword"):
        raise Unimplemented(f"{m} ({ins.where()})")
    for k in ins.modifiers:
        if k not in ("glc",):
            raise Unimplemented(f"modifier {k} of {m} ({ins.where()})")
    n = int(m[len("s_load_dwordx"):]) if "x" in m[len("s_load_dword"):] else 1
    d = ins.operands[0].reg
    base = sget(ins.operands[1], 64, ins)
    off_op = ins.operands[2]
    off = sget(off_op, 32, ins)

    def load(w):
        addr = (base(w) & ~3) + off(w)
        vals = w.wg.mem.read(addr, 4 * n).view(np.uint32)
        for i in range(n):
            w.S[d + i] = int(vals[i])
    return load


_BITCMP = {"s_bitcmp0_b32": (32, 0), "s_bitcmp1_b32": (32, 1), "s_bitcmp0_b64": (64, 0), "s_bitcmp1_b64": (64, 1)}


def known(mnemonic: str) -> bool:
    m = mnemonic
    if m in SOP2 or m in SOP2_SHIFT64 or m in SOP1 or m in SAVEEXEC or m in _BITCMP:
        return True
    if m.startswith("s_cmp_"):
        return _sopc(m) is not None
    if m.startswith("s_cmpk_"):
        return _sopc(m.replace("cmpk", "cmp")) is not None
    if m in ("s_movk_i32", "s_addk_i32", "s_mulk_i32", "s_cmovk_i32", "s_waitcnt", "s_nop", "s_setprio",
             "s_sleep", "s_dcache_wb", "s_icache_inv", "s_barrier", "s_endpgm", "s_branch", "s_trap"):
        return True
    if m.startswith("s_cbranch_"):
        return m[len("s_cbranch_"):] in ("scc0", "scc1", "vccz", "vccnz", "execz", "execnz")
    return m.startswith("s_load_dword")
