"""Operand access for the decoder: closures that read a source or write a destination of one wave.

Vega ISA 6.2 "Operands" (VALU) and 5.2 "Scalar ALU Operands": a source is a VGPR, an SGPR (incl. VCC,
EXEC, M0), an inline constant (integers -16..64 and the floats 0.5, 1.0, 2.0, 4.0, their negatives and
1/(2*pi)) or a 32-bit literal. Inline float constants take the bit pattern of the operand's type (f32,
f16 or f64); integer constants are sign-extended to 64 bits for 64-bit operands.

Vector getters return numpy ``uint32`` (``uint64`` for 64-bit operands): a [64] array for VGPRs, a 0-d
value for scalars and constants (numpy broadcasts it). Scalar getters return Python ints.
"""

from __future__ import annotations

import struct

import numpy as np

from .asm import EXEC, Instruction, Operand
from .state import EmuError, Unimplemented

U32, U64 = np.uint32, np.uint64
M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF


def float_bits(value: float, width: int) -> int:
    """Bit pattern of an inline float constant for an operand of ``width`` bits (16, 32 or 64)."""
    if width == 16:
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    if width == 64:
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    return struct.unpack("<I", struct.pack("<f", value))[0]


def const_value(op: Operand, width: int, float_type: bool, ins: Instruction) -> int:
    """The raw bits a constant operand supplies to an operand of ``width`` bits."""
    if op.kind == "float":
        if width == 64 and not float_type:
            raise Unimplemented(f"float constant {op.text} for a 64-bit integer operand ({ins.where()})")
        return float_bits(float(op.value), 16 if width == 16 else width)
    v = int(op.value)
    if width == 64:
        return v & M64
    if width == 16 and float_type and -16 <= v <= 64:
        return v & 0xFFFF  # inline integers are raw bits for 16-bit operands
    if v > M32 or v < -(1 << 31):
        raise EmuError(f"constant {op.text} does not fit 32 bits ({ins.where()})")
    return v & M32


# ------------------------------------------------------------------------------------------ vector reads

def vget(op: Operand, width: int, float_type: bool, ins: Instruction):
    """Getter of a VALU source as raw bits: uint32 (width <= 32) or uint64 (width 64)."""
    if op.kind == "v":
        r = op.reg
        if width == 64:
            return lambda w: w.V[r].astype(U64) | (w.V[r + 1].astype(U64) << U64(32))
        return lambda w: w.V[r]
    if op.kind == "s":
        r = op.reg
        if width == 64:
            return lambda w: U64(w.S[r] | (w.S[r + 1] << 32))
        return lambda w: U32(w.S[r])
    if op.kind in ("int", "float"):
        c = np.array(const_value(op, width, float_type, ins), dtype=U64 if width == 64 else U32)
        return lambda w: c
    raise Unimplemented(f"operand {op.text!r} as a vector source ({ins.where()})")


def sign_bits(width: int) -> int:
    return 1 << (width - 1)


def with_modifiers(get, op: Operand, width: int, ins: Instruction, half: int | None = None):
    """Apply the float input modifiers abs/neg (Vega ISA 6.2.3 / VOP3 ABS, NEG fields) on the sign bit.

    ``half``: for 16-bit operands, which half (0 low, 1 high) the sign bit is in.
    """
    if not (op.neg or op.abs):
        return get
    if width == 64:
        sb = U64(1 << 63)
    elif width == 16:
        sb = U32(0x8000 << (16 * (half or 0)))
    else:
        sb = U32(0x80000000)
    if op.abs and op.neg:
        return lambda w: get(w) | sb
    if op.abs:
        nsb = ~sb
        return lambda w: get(w) & nsb
    return lambda w: get(w) ^ sb


# ------------------------------------------------------------------------------------------ vector writes

def vput32(w, d: int, value) -> None:
    """Write a 32-bit VGPR for the active lanes (EXEC; Vega ISA 3.3: inactive lanes keep their value)."""
    if w.exec_all:
        w.V[d] = value
    else:
        np.copyto(w.V[d], value, where=w.exec_mask, casting="unsafe")


def vwriter(op: Operand, width: int, ins: Instruction):
    """Writer(w, raw) of a VALU destination: raw is uint32 bits, or uint64 for 64-bit results."""
    if op.kind != "v":
        raise Unimplemented(f"destination {op.text!r} of a vector instruction ({ins.where()})")
    d = op.reg
    if width == 64:
        def put64(w, raw):
            raw = np.asarray(raw, dtype=U64)
            vput32(w, d, (raw & U64(M32)).astype(U32))
            vput32(w, d + 1, (raw >> U64(32)).astype(U32))
        return put64
    return lambda w, raw: vput32(w, d, raw)


# ------------------------------------------------------------------------------------------ scalar access

def sget(op: Operand, width: int, ins: Instruction):
    """Getter of a scalar source as a Python int (width 32 or 64)."""
    if op.kind == "s":
        r = op.reg
        if width == 64:
            return lambda w: w.S[r] | (w.S[r + 1] << 32)
        return lambda w: w.S[r]
    if op.kind in ("int", "float"):
        c = const_value(op, width, False, ins) if op.kind == "int" else float_bits(float(op.value), width)
        return lambda w: c
    if op.kind == "scc":
        return lambda w: w.scc
    raise Unimplemented(f"operand {op.text!r} as a scalar source ({ins.where()})")


def swriter(op: Operand, width: int, ins: Instruction):
    """Writer(w, int) of a scalar destination; writing EXEC refreshes the cached lane mask."""
    if op.kind != "s":
        raise Unimplemented(f"destination {op.text!r} of a scalar instruction ({ins.where()})")
    r = op.reg
    n = 2 if width == 64 else 1
    touches_exec = r <= EXEC + 1 and r + n > EXEC
    if width == 64:
        if touches_exec:
            def put_exec64(w, v):
                w.S[r] = v & M32
                w.S[r + 1] = (v >> 32) & M32
                w.refresh_exec()
            return put_exec64

        def put64(w, v):
            w.S[r] = v & M32
            w.S[r + 1] = (v >> 32) & M32
        return put64
    if touches_exec:
        def put_exec(w, v):
            w.S[r] = v & M32
            w.refresh_exec()
        return put_exec

    def put(w, v):
        w.S[r] = v & M32
    return put
