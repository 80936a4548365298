"""Decode vector ALU instructions into closures ``f(wave)`` (semantics in :mod:`.valu_ops`).

Encodings and modifiers (Vega ISA chapter 13 "Microcode Formats", 6.2 "Operands"):
  _e32   VOP1 / VOP2 / VOPC (VCC implicit)        _e64 / none   VOP3A / VOP3B (explicit SGPR dst)
  _sdwa  13.3.6 SDWA: src0_sel/src1_sel (BYTE_0..3, WORD_0/1, DWORD) with sext(), dst_sel and dst_unused
         (UNUSED_PAD, UNUSED_SEXT, UNUSED_PRESERVE)
  _dpp   13.3.9 DPP: quad_perm, row_shl/shr/ror, wave_shl/rol/shr/ror, row_mirror, row_half_mirror,
         row_bcast:15/31, row_mask, bank_mask, bound_ctrl:0 (applied to src0)
  VOP3   neg/abs input modifiers (sign bit of the operand type), clamp (floats to [0, 1], NaN -> 0 with
         DX10_CLAMP), omod mul:2 / mul:4 / div:2 (floats), op_sel (16-bit sources and destination half)
  VOP3P  13.3.8: op_sel / op_sel_hi / neg_lo / neg_hi per 16-bit half (V_DOT2_F32_F16, V_PK_*)
Results are written for the lanes in EXEC only (3.3); VOPC and carry-out SGPR results are 0 for
inactive lanes. A modifier not listed here stops the run (Unimplemented) when the instruction executes.
"""

from __future__ import annotations

import numpy as np

from . import valu_ops as ops
from .asm import EXEC, VCC, Instruction, Operand
from .fp import F16, F32, F64, U16, U32, U64
from .operands import sget, swriter, vget, vput32, vwriter, with_modifiers
from .state import WAVE, Unimplemented, bools_to_mask, mask_to_bools

I32, I64 = np.int32, np.int64
LANE = np.arange(WAVE)

WIDTH = {"b32": 32, "u32": 32, "i32": 32, "f32": 32, "f16": 16, "u16": 16, "i16": 16,
         "b64": 64, "u64": 64, "i64": 64, "f64": 64}
FLOAT = {"f32", "f16", "f64"}


def to_typed(t: str):
    if t in ("b32", "u32", "b64", "u64"):
        return None
    if t == "i32":
        return lambda r: r.view(I32)
    if t == "f32":
        return lambda r: r.view(F32)
    if t == "i64":
        return lambda r: r.view(I64)
    if t == "f64":
        return lambda r: r.view(F64)
    if t == "f16":
        return lambda r: (r & U32(0xFFFF)).astype(U16).view(F16)
    if t in ("u16", "i16"):
        dt = U16 if t == "u16" else np.int16
        return lambda r: (r & U32(0xFFFF)).astype(U16).view(dt)
    raise ValueError(t)


def from_typed(t: str):
    if t in ("b32", "u32"):
        return lambda x: np.asarray(x).astype(U32, copy=False)
    if t in ("b64", "u64"):
        return lambda x: np.asarray(x).astype(U64, copy=False)
    if t == "i32":
        return lambda x: np.asarray(x).astype(I32, copy=False).view(U32)
    if t == "i64":
        return lambda x: np.asarray(x).astype(I64, copy=False).view(U64)
    if t == "f32":
        return lambda x: np.asarray(x, dtype=F32).view(U32)
    if t == "f64":
        return lambda x: np.asarray(x, dtype=F64).view(U64)
    if t == "f16":
        return lambda x: np.asarray(x, dtype=F16).view(U16).astype(U32)
    if t in ("u16", "i16"):
        return lambda x: np.asarray(x).astype(U16 if t == "u16" else np.int16).view(U16).astype(U32)
    raise ValueError(t)


def split_mnemonic(m: str) -> tuple[str, str]:
    for suf in ("_e32", "_e64", "_sdwa", "_dpp"):
        if m.endswith(suf):
            return m[: -len(suf)], suf[1:]
    return m, "vop3"


def _bits(text: str, n: int) -> list[int]:
    vals = [int(x) for x in text.strip("[]").split(",")]
    return vals + [0] * (n - len(vals))


_SEL = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8),
        "WORD_0": (0, 16), "WORD_1": (16, 16), "DWORD": (0, 32)}


def _sdwa_src(get, sel: str, sext: bool, ins: Instruction):
    if sel not in _SEL:
        raise Unimplemented(f"SDWA select {sel} ({ins.where()})")
    shift, width = _SEL[sel]
    if width == 32:
        return get
    mask = U32((1 << width) - 1)
    if not sext:
        return lambda w: (get(w) >> U32(shift)) & mask
    top = 1 << (width - 1)
    return lambda w: ((((get(w) >> U32(shift)) & mask).astype(I64) ^ top) - top).astype(I32).view(U32)


def _dpp_map(mods: dict, ins: Instruction) -> tuple[np.ndarray, np.ndarray]:
    """(source lane, valid) per lane for the DPP control in ``mods`` (Vega ISA 13.3.9)."""
    row, inrow = LANE // 16 * 16, LANE % 16
    if "quad_perm" in mods:
        sel = _bits(mods["quad_perm"], 4)
        src = (LANE & ~3) | np.array(sel)[LANE & 3]
        return src, np.ones(WAVE, bool)
    for key, fn in (("row_shl", lambda n: (LANE + n, inrow + n < 16)),
                    ("row_shr", lambda n: (LANE - n, inrow >= n)),
                    ("row_ror", lambda n: (row + (inrow - n) % 16, np.ones(WAVE, bool)))):
        if key in mods:
            return fn(int(mods[key], 0))
    if "wave_shl" in mods:
        return LANE + 1, LANE + 1 < WAVE
    if "wave_shr" in mods:
        return LANE - 1, LANE >= 1
    if "wave_rol" in mods:
        return (LANE + 1) % WAVE, np.ones(WAVE, bool)
    if "wave_ror" in mods:
        return (LANE - 1) % WAVE, np.ones(WAVE, bool)
    if "row_mirror" in mods:
        return row + 15 - inrow, np.ones(WAVE, bool)
    if "row_half_mirror" in mods:
        return LANE // 8 * 8 + 7 - LANE % 8, np.ones(WAVE, bool)
    if "row_bcast" in mods:
        n = int(mods["row_bcast"])
        if n == 15:
            return np.where(LANE >= 16, row - 1, LANE), LANE >= 16
        if n == 31:
            return np.where(LANE >= 32, 31, LANE), LANE >= 32
    raise Unimplemented(f"DPP control {sorted(mods)} ({ins.where()})")


_KNOWN_MODS = {"clamp", "mul", "div", "op_sel", "op_sel_hi", "neg_lo", "neg_hi", "dst_sel", "dst_unused",
               "src0_sel", "src1_sel", "quad_perm", "row_shl", "row_shr", "row_ror", "wave_shl", "wave_shr",
               "wave_rol", "wave_ror", "row_mirror", "row_half_mirror", "row_bcast", "row_mask", "bank_mask",
               "bound_ctrl"}


def _check_mods(ins: Instruction) -> None:
    for k in ins.modifiers:
        if k not in _KNOWN_MODS:
            raise Unimplemented(f"modifier {k} of {ins.mnemonic} ({ins.where()})")


def _source_getters(ins: Instruction, srcs: list[Operand], types: tuple[str, ...], enc: str):
    """Typed getters for the sources, with SDWA selects, op_sel halves and neg/abs applied."""
    mods = ins.modifiers
    op_sel = _bits(mods["op_sel"], len(srcs) + 1) if "op_sel" in mods else [0] * (len(srcs) + 1)
    getters = []
    for i, (op, t) in enumerate(zip(srcs, types)):
        width = WIDTH[t]
        raw = vget(op, 32 if width == 16 else width, t in FLOAT, ins)
        if enc == "sdwa" and i < 2:
            raw = _sdwa_src(raw, mods.get(f"src{i}_sel", "DWORD"), op.sext, ins)
        elif op.sext:
            raise Unimplemented(f"sext() outside SDWA ({ins.where()})")
        if op_sel[i]:
            if width != 16:
                raise Unimplemented(f"op_sel on a {t} operand ({ins.where()})")
            base = raw
            raw = lambda w, base=base: base(w) >> U32(16)
        if op.neg or op.abs:
            if t not in FLOAT:
                raise Unimplemented(f"neg/abs on integer operand {op.text} ({ins.where()})")
            raw = with_modifiers(raw, op, width, ins, 0)
        conv = to_typed(t)
        getters.append(raw if conv is None else (lambda w, raw=raw, conv=conv: conv(raw(w))))
    return getters, op_sel[len(srcs)]


def _output_stage(ins: Instruction, t: str):
    """clamp / omod on a typed result (Vega ISA 6.5 "ALU Clamp Bit Usage", VOP3 OMOD)."""
    mods = ins.modifiers
    scale = 2.0 if mods.get("mul") == "2" else 4.0 if mods.get("mul") == "4" else 0.5 if mods.get("div") == "2" else None
    if ("mul" in mods and scale is None) or ("div" in mods and scale is None):
        raise Unimplemented(f"output modifier {mods} ({ins.where()})")
    clamp = "clamp" in mods
    if (scale or clamp) and t not in FLOAT:
        raise Unimplemented(f"clamp/omod on an integer result ({ins.where()})")
    if not scale and not clamp:
        return None
    dt = {"f32": F32, "f16": F16, "f64": F64}[t]

    def post(x):
        x = np.asarray(x, dtype=dt)
        if scale:
            x = (x * dt(scale)).astype(dt)
        if clamp:
            x = np.where(np.isnan(x), dt(0), np.clip(x, dt(0), dt(1))).astype(dt)
        return x
    return post


def _writer(ins: Instruction, dst: Operand, t: str, enc: str, dst_hi: int):
    """Writer(w, raw) with SDWA dst_sel/dst_unused, op_sel destination half and DPP lane masks."""
    width = WIDTH[t]
    mods = ins.modifiers
    if enc == "sdwa":
        sel = mods.get("dst_sel", "DWORD")
        unused = mods.get("dst_unused", "UNUSED_PAD")
        if sel not in _SEL or unused not in ("UNUSED_PAD", "UNUSED_PRESERVE", "UNUSED_SEXT"):
            raise Unimplemented(f"SDWA destination {sel}/{unused} ({ins.where()})")
        shift, fw = _SEL[sel]
        d = dst.reg
        if fw == 32:
            return lambda w, raw: vput32(w, d, raw)
        field = U32(((1 << fw) - 1) << shift)
        fmask = U32((1 << fw) - 1)
        if unused == "UNUSED_PRESERVE":
            return lambda w, raw: vput32(w, d, (w.V[d] & ~field) | ((raw & fmask) << U32(shift)))
        if unused == "UNUSED_PAD":
            return lambda w, raw: vput32(w, d, (raw & fmask) << U32(shift))
        top = 1 << (fw - 1)
        return lambda w, raw: vput32(w, d, ((((raw & fmask).astype(I64) ^ top) - top) << shift).astype(I64)
                                     .astype(U32))
    if dst_hi:
        if width != 16:
            raise Unimplemented(f"op_sel destination half on a {t} result ({ins.where()})")
        d = dst.reg
        return lambda w, raw: vput32(w, d, (w.V[d] & U32(0xFFFF)) | ((raw & U32(0xFFFF)) << U32(16)))
    return vwriter(dst, width, ins)


def _dpp_wrap(ins: Instruction, getters, writer, srcs: list[Operand]):
    """DPP: permute src0 across lanes; lanes without a valid source are 0 (bound_ctrl:0) or not written."""
    mods = ins.modifiers
    src, valid = _dpp_map(mods, ins)
    if srcs[0].kind != "v":
        raise Unimplemented(f"DPP source must be a VGPR ({ins.where()})")
    row_mask = int(mods.get("row_mask", "0xf"), 0)
    bank_mask = int(mods.get("bank_mask", "0xf"), 0)
    bound_zero = "bound_ctrl" in mods
    enabled = ((row_mask >> (LANE // 16)) & 1).astype(bool) & ((bank_mask >> ((LANE % 16) // 4)) & 1).astype(bool)
    src_c = np.clip(src, 0, WAVE - 1)
    g0 = getters[0]

    def get0(w):
        full = g0(w)
        ok = valid & w.exec_mask[src_c]
        return np.where(ok, full[src_c], np.zeros_like(full[src_c])) if bound_zero else full[src_c]

    def write(w, raw):
        ok = valid & w.exec_mask[src_c]
        lanes = enabled & (ok | bound_zero)
        saved = w.exec_mask, w.exec_all
        w.exec_mask, w.exec_all = saved[0] & lanes, False
        try:
            writer(w, raw)
        finally:
            w.exec_mask, w.exec_all = saved
    return [get0, *getters[1:]], write


def build_vop(ins: Instruction, base: str, enc: str):
    """A VOP1/VOP2/VOP3 instruction of :data:`valu_ops.VOP` (or an accumulating form)."""
    _check_mods(ins)
    acc = base in ops.ACCUMULATE
    dst_t, src_ts, fn = ops.VOP[ops.ACCUMULATE.get(base, base)]
    dst = ins.operands[0]
    srcs = list(ins.operands[1:])
    if acc:
        srcs = srcs + [dst]
    if len(srcs) != len(src_ts):
        raise Unimplemented(f"{ins.mnemonic}: {len(srcs)} sources, expected {len(src_ts)} ({ins.where()})")
    getters, dst_hi = _source_getters(ins, srcs, src_ts, enc)
    post = _output_stage(ins, dst_t)
    conv = from_typed(dst_t)
    writer = _writer(ins, dst, dst_t, enc, dst_hi)
    if enc == "dpp":
        getters, writer = _dpp_wrap(ins, getters, writer, srcs)
    if post is not None:
        f0 = fn
        fn = lambda *a: post(f0(*a))
    n = len(getters)
    if n == 1:
        g0, = getters
        return lambda w: writer(w, conv(fn(g0(w))))
    if n == 2:
        g0, g1 = getters
        return lambda w: writer(w, conv(fn(g0(w), g1(w))))
    g0, g1, g2 = getters
    return lambda w: writer(w, conv(fn(g0(w), g1(w), g2(w))))


# ------------------------------------------------------------------------------- special VALU forms

def _lane_bits_writer(op: Operand, ins: Instruction):
    """Writer(w, bool[64]) of a per-lane SGPR-pair result (VCC or an SGPR pair); inactive lanes -> 0."""
    put = swriter(op, 64, ins)
    return lambda w, b: put(w, bools_to_mask(np.asarray(b) & w.exec_mask))


def _mask_getter(op: Operand, ins: Instruction):
    get = sget(op, 64, ins)
    return lambda w: mask_to_bools(get(w))


_VCC = Operand("s", "vcc", VCC, 2)


def build_cmp(ins: Instruction, base: str, enc: str):
    """V_CMP_* / V_CMPX_* (Vega 12.9): per-lane predicate -> VCC or an SGPR pair; CMPX also -> EXEC."""
    _check_mods(ins)
    parts = base.split("_")  # v, cmp|cmpx, op, type
    cmpx = parts[1] == "cmpx"
    op, t = parts[2], parts[3]
    if len(ins.operands) == 2:  # e32 with VCC implicit
        dst, srcs = _VCC, ins.operands[0:2]
    else:
        dst, srcs = ins.operands[0], ins.operands[1:3]
    if op == "class":
        if t != "f32":
            raise Unimplemented(f"{ins.mnemonic} ({ins.where()})")
        getters, _ = _source_getters(ins, list(srcs), ("f32", "u32"), enc)
        pred = ops.cmp_class_f32
    else:
        if t not in ops.CMP_TYPES:
            raise Unimplemented(f"{ins.mnemonic} ({ins.where()})")
        table = ops.CMP_FLOAT if t.startswith("f") else ops.CMP_INT
        if op not in table:
            raise Unimplemented(f"{ins.mnemonic} ({ins.where()})")
        getters, _ = _source_getters(ins, list(srcs), (t, t), enc)
        pred = table[op]
    put = _lane_bits_writer(dst, ins)
    g0, g1 = getters
    if not cmpx:
        def run(w):
            with np.errstate(invalid="ignore"):
                b = np.broadcast_to(pred(g0(w), g1(w)), (WAVE,))
            put(w, b)
        return run

    def run_x(w):
        with np.errstate(invalid="ignore"):
            b = np.broadcast_to(pred(g0(w), g1(w)), (WAVE,)) & w.exec_mask
        if dst.reg != EXEC:
            put(w, b)
        w.set_exec(bools_to_mask(b))
    return run_x


def build_cndmask(ins: Instruction, base: str, enc: str):
    """V_CNDMASK_B32 (Vega 12.7): D = mask[lane] ? S1 : S0, mask = VCC (e32) or an SGPR pair (e64)."""
    _check_mods(ins)
    dst, s0, s1 = ins.operands[0:3]
    mask_op = _VCC if enc in ("e32", "sdwa", "dpp") else ins.operands[3]
    getters, _ = _source_getters(ins, [s0, s1], ("f32" if (s0.neg or s0.abs or s1.neg or s1.abs) else "b32",) * 2, enc)
    typed = s0.neg or s0.abs or s1.neg or s1.abs
    g0, g1 = getters
    mget = _mask_getter(mask_op, ins)
    writer = _writer(ins, dst, "b32", enc, 0)
    if typed:
        return lambda w: writer(w, np.where(mget(w), g1(w), g0(w)).astype(F32).view(U32))
    return lambda w: writer(w, np.where(mget(w), g1(w), g0(w)).astype(U32))


def build_carry(ins: Instruction, base: str, enc: str):
    """V_ADD_CO_U32, V_SUB_CO_U32, V_SUBREV_CO_U32 (carry/borrow out) and V_ADDC_CO_U32, V_SUBB_CO_U32,
    V_SUBBREV_CO_U32 (carry/borrow in and out); Vega 12.7 / 12.12 VOP3B. Carry SGPR pair: VCC in _e32."""
    _check_mods(ins)
    if "clamp" in ins.modifiers:
        raise Unimplemented(f"clamp on {ins.mnemonic} ({ins.where()})")
    dst, cdst = ins.operands[0], ins.operands[1]
    srcs = ins.operands[2:4]
    with_in = base in ("v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32")
    cin = (ins.operands[4] if len(ins.operands) > 4 else _VCC) if with_in else None
    if enc == "sdwa":
        raise Unimplemented(f"SDWA {ins.mnemonic} ({ins.where()})")
    g0 = vget(srcs[0], 32, False, ins)
    g1 = vget(srcs[1], 32, False, ins)
    cget = _mask_getter(cin, ins) if cin is not None else None
    put_c = _lane_bits_writer(cdst, ins)
    d = dst.reg
    rev = base in ("v_subrev_co_u32", "v_subbrev_co_u32")
    add = base.startswith("v_add")

    def run(w):
        a = np.asarray(g0(w), I64)
        b = np.asarray(g1(w), I64)
        if rev:
            a, b = b, a
        c = cget(w).astype(I64) if cget is not None else 0
        if add:
            full = a + b + c
            carry = full > 0xFFFFFFFF
        else:
            full = a - b - c
            carry = full < 0
        vput32(w, d, (full & 0xFFFFFFFF).astype(U32))
        put_c(w, np.broadcast_to(carry, (WAVE,)))
    return run


def build_mad64(ins: Instruction, base: str, enc: str):
    """V_MAD_U64_U32 / V_MAD_I64_I32 (Vega 12.12 VOP3B): {carry, D.u64} = S0.u32 * S1.u32 + S2.u64."""
    _check_mods(ins)
    dst, cdst, s0, s1, s2 = ins.operands[0:5]
    g0, g1 = vget(s0, 32, False, ins), vget(s1, 32, False, ins)
    g2 = vget(s2, 64, False, ins)
    put = vwriter(dst, 64, ins)
    put_c = _lane_bits_writer(cdst, ins)
    signed = base == "v_mad_i64_i32"

    def run(w):
        if signed:
            a = np.asarray(g0(w), U32).view(I32).astype(object)
            b = np.asarray(g1(w), U32).view(I32).astype(object)
            c = np.asarray(g2(w), U64).view(I64).astype(object)
            full = np.broadcast_to(a * b + c, (WAVE,))
            low = np.array([int(x) & 0xFFFFFFFFFFFFFFFF for x in full], dtype=U64)
            carry = np.array([not (-(1 << 63) <= int(x) < (1 << 63)) for x in full])
        else:
            p = np.asarray(g0(w), U64) * np.asarray(g1(w), U64)  # < 2^64: exact
            low = np.broadcast_to(p + np.asarray(g2(w), U64), (WAVE,))  # wraps modulo 2^64
            carry = low < p
        put(w, low)
        put_c(w, carry)
    return run


def build_div_scale(ins: Instruction, base: str, enc: str):
    """V_DIV_SCALE_F32 (Vega 12.12 VOP3B): scaled operand and a VCC-style flag per lane."""
    _check_mods(ins)
    dst, cdst = ins.operands[0], ins.operands[1]
    getters, _ = _source_getters(ins, list(ins.operands[2:5]), ("f32", "f32", "f32"), "vop3")
    put = vwriter(dst, 32, ins)
    put_c = _lane_bits_writer(cdst, ins)
    g0, g1, g2 = getters

    def run(w):
        d, flag = ops._div_scale_f32(g0(w), g1(w), g2(w))
        put(w, d.view(U32))
        put_c(w, np.broadcast_to(flag, (WAVE,)))
    return run


def build_div_fmas(ins: Instruction, base: str, enc: str):
    """V_DIV_FMAS_F32 (Vega 12.12): fma, scaled by 2^32 in lanes whose VCC bit is set (AMD pseudocode)."""
    _check_mods(ins)
    getters, _ = _source_getters(ins, list(ins.operands[1:4]), ("f32", "f32", "f32"), "vop3")
    put = vwriter(ins.operands[0], 32, ins)
    vcc = _mask_getter(_VCC, ins)
    g0, g1, g2 = getters
    return lambda w: put(w, ops._div_fmas_f32(g0(w), g1(w), g2(w), vcc(w)).view(U32))


def build_lane(ins: Instruction, base: str, enc: str):
    """V_READLANE_B32, V_WRITELANE_B32, V_READFIRSTLANE_B32 (Vega 12.8 / 12.12): VGPR lane <-> SGPR."""
    _check_mods(ins)
    if base == "v_readfirstlane_b32":
        put = swriter(ins.operands[0], 32, ins)
        src = ins.operands[1]
        if src.kind != "v":
            g = sget(src, 32, ins)
            return lambda w: put(w, g(w))
        r = src.reg

        def first(w):
            m = w.exec
            lane = (m & -m).bit_length() - 1 if m else 0
            put(w, int(w.V[r, lane]))
        return first
    if base == "v_readlane_b32":
        put = swriter(ins.operands[0], 32, ins)
        r = ins.operands[1].reg
        lane_get = sget(ins.operands[2], 32, ins)
        return lambda w: put(w, int(w.V[r, lane_get(w) % WAVE]))
    d = ins.operands[0].reg  # v_writelane_b32 vdst, ssrc, lane: ignores EXEC
    val = sget(ins.operands[1], 32, ins)
    lane_get = sget(ins.operands[2], 32, ins)

    def write(w):
        w.V[d, lane_get(w) % WAVE] = val(w)
    return write


def build_mbcnt(ins: Instruction, base: str, enc: str):
    """V_MBCNT_LO/HI_U32_B32 (Vega 12.12): count of mask bits below the lane (low / high 32 lanes)."""
    _check_mods(ins)
    d = ins.operands[0]
    g0 = vget(ins.operands[1], 32, False, ins)
    g1 = vget(ins.operands[2], 32, False, ins)
    hi = base == "v_mbcnt_hi_u32_b32"
    lanes = LANE.astype(np.int64)
    below = np.where(lanes >= 32, lanes - 32, 0) if hi else np.minimum(lanes, 32)
    masks = ((np.uint64(1) << below.astype(np.uint64)) - np.uint64(1)) & np.uint64(0xFFFFFFFF)
    put = vwriter(d, 32, ins)

    def run(w):
        cnt = np.bitwise_count(np.asarray(g0(w), U64) & masks).astype(U64)
        put(w, ((cnt + np.asarray(g1(w), U64)) & U64(0xFFFFFFFF)).astype(U32))
    return run


def _halves(ins: Instruction, srcs, n_packed: int):
    """VOP3P sources: (lo getter, hi getter) of f16 per packed source (op_sel/op_sel_hi, neg_lo/neg_hi)."""
    mods = ins.modifiers
    n = len(srcs)
    op_sel = _bits(mods.get("op_sel", "[0]"), n)
    op_sel_hi = _bits(mods["op_sel_hi"], n) if "op_sel_hi" in mods else [1] * n
    neg_lo = _bits(mods.get("neg_lo", "[0]"), n)
    neg_hi = _bits(mods.get("neg_hi", "[0]"), n)
    out = []
    for i, op in enumerate(srcs[:n_packed]):
        if op.neg or op.abs:
            raise Unimplemented(f"neg/abs syntax on a packed operand ({ins.where()})")
        raw = vget(op, 32, True, ins)

        def half(sel, neg, raw=raw):
            sh = U32(16 * sel)
            nb = U32(0x8000 if neg else 0)
            return lambda w: ((raw(w) >> sh) & U32(0xFFFF) ^ nb).astype(U16).view(F16)
        out.append((half(op_sel[i], neg_lo[i]), half(op_sel_hi[i], neg_hi[i])))
    extra = (op_sel[n_packed:], op_sel_hi[n_packed:], neg_lo[n_packed:], neg_hi[n_packed:])
    return out, extra


def build_dot2(ins: Instruction, base: str, enc: str):
    """V_DOT2_F32_F16 (Vega 12.10 VOP3P): D.f32 = S0.f16[0]*S1.f16[0] + S0.f16[1]*S1.f16[1] + S2.f32."""
    for k in ins.modifiers:
        if k not in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi", "clamp"):
            raise Unimplemented(f"modifier {k} of {ins.mnemonic} ({ins.where()})")
    if "clamp" in ins.modifiers:
        raise Unimplemented(f"clamp on {ins.mnemonic} ({ins.where()})")
    srcs = list(ins.operands[1:4])
    (a, b), extra = _halves(ins, srcs, 2)
    op_sel, op_sel_hi, neg_lo, neg_hi = extra
    if op_sel[0] or neg_hi[0] or not op_sel_hi[0]:
        raise Unimplemented(f"op_sel/neg_hi/op_sel_hi on the f32 source of {ins.mnemonic} ({ins.where()})")
    c = with_modifiers(vget(srcs[2], 32, True, ins), srcs[2], 32, ins)
    cneg = U32(0x80000000 if neg_lo[0] else 0)
    put = vwriter(ins.operands[0], 32, ins)
    plain = not any(k in ins.modifiers for k in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi"))
    if plain and all(o.kind == "v" for o in srcs[:2]):
        ra, rb = srcs[0].reg, srcs[1].reg  # fast path: both halves in order, no modifiers

        def run_plain(w):
            p = w.V[ra].view(F16).astype(F64) * w.V[rb].view(F16).astype(F64)  # [lo0, hi0, lo1, ...]
            put(w, (p[0::2] + p[1::2] + c(w).view(F32).astype(F64)).astype(F32).view(U32))
        return run_plain
    (alo, ahi), (blo, bhi) = a, b

    def run(w):
        acc = (np.asarray(alo(w), F64) * np.asarray(blo(w), F64) + np.asarray(ahi(w), F64) * np.asarray(bhi(w), F64)
               + (c(w) ^ cneg).view(F32).astype(F64))
        put(w, acc.astype(F32).view(U32))
    return run


def build_fma_mix(ins: Instruction, base: str, enc: str):
    """V_FMA_MIX_F32 (Vega 12.10 VOP3P): D.f32 = fma(S0, S1, S2), each source f32, or an f16 half converted to
    f32 when its op_sel_hi bit is set (op_sel picks the high half); neg_lo negates and neg_hi takes |x|."""
    for k in ins.modifiers:
        if k not in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi"):
            raise Unimplemented(f"modifier {k} of {ins.mnemonic} ({ins.where()})")
    if base != "v_fma_mix_f32":
        raise Unimplemented(f"{ins.mnemonic} ({ins.where()})")
    srcs = list(ins.operands[1:4])
    n = 3
    op_sel = _bits(ins.modifiers.get("op_sel", "[0]"), n)
    op_sel_hi = _bits(ins.modifiers.get("op_sel_hi", "[0]"), n)
    neg = _bits(ins.modifiers.get("neg_lo", "[0]"), n)
    absb = _bits(ins.modifiers.get("neg_hi", "[0]"), n)
    getters = []
    for i, op in enumerate(srcs):
        if op.neg or op.abs:
            raise Unimplemented(f"neg/abs syntax on a mix operand ({ins.where()})")
        raw = vget(op, 32, True, ins)
        if op_sel_hi[i]:
            sh = U32(16 * op_sel[i])
            conv = lambda w, raw=raw, sh=sh: ((raw(w) >> sh) & U32(0xFFFF)).astype(U16).view(F16).astype(F32)
        else:
            conv = lambda w, raw=raw: np.asarray(raw(w), U32).view(F32)
        if absb[i]:
            conv = lambda w, c=conv: np.abs(c(w))
        if neg[i]:
            conv = lambda w, c=conv: -c(w)
        getters.append(conv)
    put = vwriter(ins.operands[0], 32, ins)
    g0, g1, g2 = getters
    return lambda w: put(w, ops.fma_f32(g0(w), g1(w), g2(w)).view(U32))


SPECIAL = {
    "v_cndmask_b32": build_cndmask,
    "v_add_co_u32": build_carry, "v_sub_co_u32": build_carry, "v_subrev_co_u32": build_carry,
    "v_addc_co_u32": build_carry, "v_subb_co_u32": build_carry, "v_subbrev_co_u32": build_carry,
    "v_mad_u64_u32": build_mad64, "v_mad_i64_i32": build_mad64,
    "v_div_scale_f32": build_div_scale, "v_div_fmas_f32": build_div_fmas,
    "v_readlane_b32": build_lane, "v_writelane_b32": build_lane, "v_readfirstlane_b32": build_lane,
    "v_mbcnt_lo_u32_b32": build_mbcnt, "v_mbcnt_hi_u32_b32": build_mbcnt,
    "v_dot2_f32_f16": build_dot2,
    "v_fma_mix_f32": build_fma_mix,
}


def build(ins: Instruction):
    """Closure for a vector ALU instruction, or None when the mnemonic is not a known VALU op."""
    base, enc = split_mnemonic(ins.mnemonic)
    if base in SPECIAL:
        return SPECIAL[base](ins, base, enc)
    if base.startswith("v_cmp_") or base.startswith("v_cmpx_"):
        return build_cmp(ins, base, enc)
    if base in ops.VOP or base in ops.ACCUMULATE:
        return build_vop(ins, base, enc)
    return None


def known(mnemonic: str) -> bool:
    base, _ = split_mnemonic(mnemonic)
    if base.startswith("v_cmp_") or base.startswith("v_cmpx_"):
        parts = base.split("_")
        if len(parts) != 4:
            return False
        table = ops.CMP_FLOAT if parts[3].startswith("f") else ops.CMP_INT
        return (parts[2] == "class" and parts[3] == "f32") or (parts[3] in ops.CMP_TYPES and parts[2] in table)
    return base in SPECIAL or base in ops.VOP or base in ops.ACCUMULATE
