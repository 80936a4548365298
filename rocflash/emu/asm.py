"""Parse AMDGPU assembly (LLVM ``clang -S`` output for gfx906) into kernels the emulator executes.

What is read, per kernel (LLVM docs "AMDGPUUsage", "Syntax of gfx9 instructions" / AMDGPUAsmGFX9):
  * the instructions from the kernel's label to ``.Lfunc_end``: mnemonic, operands, modifiers, source line;
  * local labels (``.LBB0_7:``) as instruction indices, for branches;
  * the ``.amdhsa_kernel`` block (``.amdhsa_*`` directives: user/system SGPRs, work-item id VGPRs, LDS);
  * the ``.amdgpu_metadata`` YAML (``.args`` with offsets and sizes, ``.group_segment_fixed_size``, ...).

Operand syntax handled (AMDGPUAsmGFX9 "operands"): ``v5``, ``v[2:3]``, ``s8``, ``s[0:1]``, ``vcc``,
``vcc_lo/hi``, ``exec``, ``exec_lo/hi``, ``m0``, ``flat_scratch``, ``xnack_mask``, ``scc``, ``off``, integer
literals (decimal, hex, negative), inline float constants (``1.0``, ``-0.5``, ``0.15915494``), labels,
the float input modifiers ``-x``, ``|x|``, ``-|x|``, ``neg(x)``, ``abs(x)`` and SDWA ``sext(x)``.
Modifiers (``offset:16``, ``offset0:2``, ``glc``, ``clamp``, ``mul:2``, ``op_sel:[0,1]``, ``dst_sel:WORD_1``,
``quad_perm:[...]``, ``row_shr:1``, ``offset:swizzle(SWAP,4)``, ...) are kept as a dict, parsed per key by
the instruction that uses them. Nothing here knows instruction semantics.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# SGPR-file indices of the named scalar registers (Vega ISA, section 13 "Microcode Formats", SSRC/SDST
# field values; the emulator keeps them in one scalar register file indexed by these numbers).
SPECIAL_SREGS = {
    "flat_scratch_lo": (102, 1), "flat_scratch_hi": (103, 1), "flat_scratch": (102, 2),
    "xnack_mask_lo": (104, 1), "xnack_mask_hi": (105, 1), "xnack_mask": (104, 2),
    "vcc_lo": (106, 1), "vcc_hi": (107, 1), "vcc": (106, 2),
    "m0": (124, 1),
    "exec_lo": (126, 1), "exec_hi": (127, 1), "exec": (126, 2),
}
M0, VCC, EXEC = 124, 106, 126
NUM_SREG_FILE = 128


class AsmError(ValueError):
    """The assembly text is not what this parser understands (names the line)."""


@dataclass(frozen=True)
class Operand:
    """One instruction operand.

    kind: "v" (VGPRs), "s" (scalar register file, incl. vcc/exec/m0), "int" (integer literal or inline
    constant), "float" (inline float constant), "off" (no address register), "scc", "label", "special"
    (anything else, e.g. ``vmcnt(0)``: kept as text).
    reg/count: first register and number of registers (``v[2:5]`` -> reg 2, count 4).
    value: the integer or float value; text: the operand as written.
    neg/abs/sext: input modifiers (VOP3 / SDWA).
    """

    kind: str
    text: str
    reg: int = 0
    count: int = 1
    value: float | int = 0
    neg: bool = False
    abs: bool = False
    sext: bool = False


@dataclass
class Instruction:
    """One decoded assembly line. ``index``: position in its kernel; ``line``: 1-based line in the file."""

    mnemonic: str
    operands: list[Operand]
    modifiers: dict[str, str]
    line: int
    text: str
    index: int = 0

    def where(self) -> str:
        return f"line {self.line}: {self.text.strip()}"


@dataclass
class Kernel:
    """A kernel of an assembly file: instructions, labels and its launch description."""

    name: str
    instructions: list[Instruction]
    labels: dict[str, int]
    amdhsa: dict[str, int]
    metadata: dict = field(default_factory=dict)
    source: str = ""

    @property
    def group_segment_fixed_size(self) -> int:
        return int(self.amdhsa.get("group_segment_fixed_size", 0))

    @property
    def private_segment_fixed_size(self) -> int:
        return int(self.amdhsa.get("private_segment_fixed_size", 0))

    @property
    def kernarg_size(self) -> int:
        return int(self.amdhsa.get("kernarg_size", self.metadata.get(".kernarg_segment_size", 0)))

    def mnemonics(self) -> set[str]:
        return {i.mnemonic for i in self.instructions}


_REG_RANGE = re.compile(r"^([vs])\[(\d+):(\d+)\]$")
_REG_ONE = re.compile(r"^([vs])(\d+)$")
_INT = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")
_FLOAT = re.compile(r"^-?\d+\.\d*(e[-+]?\d+)?$")


@functools.lru_cache(maxsize=1 << 16)
def parse_operand(text: str) -> Operand:
    """``-|v[2:3]|`` -> Operand(kind="v", reg=2, count=2, neg=True, abs=True); see the module docstring."""
    t = text.strip()
    neg = abs_ = sext = False
    if t.startswith("sext(") and t.endswith(")"):
        sext, t = True, t[5:-1]
    if t.startswith("neg(") and t.endswith(")"):
        neg, t = True, t[4:-1]
    if t.startswith("abs(") and t.endswith(")"):
        abs_, t = True, t[4:-1]
    if t.startswith("-") and (t[1:2] in ("|", "v", "s") or t[1:] in SPECIAL_SREGS):
        neg, t = True, t[1:]
    if len(t) > 2 and t.startswith("|") and t.endswith("|"):
        abs_, t = True, t[1:-1]
    mods = dict(neg=neg, abs=abs_, sext=sext)
    if m := _REG_RANGE.match(t):
        lo, hi = int(m.group(2)), int(m.group(3))
        return Operand(m.group(1), text, lo, hi - lo + 1, **mods)
    if m := _REG_ONE.match(t):
        return Operand(m.group(1), text, int(m.group(2)), 1, **mods)
    if t in SPECIAL_SREGS:
        reg, n = SPECIAL_SREGS[t]
        return Operand("s", text, reg, n, **mods)
    if t == "off":
        return Operand("off", text)
    if t == "scc":
        return Operand("scc", text)
    if _INT.match(t):
        return Operand("int", text, value=int(t, 0), **mods)
    if _FLOAT.match(t):
        return Operand("float", text, value=float(t), **mods)
    if re.match(r"^[.A-Za-z_$][\w.$]*$", t):
        return Operand("label", text)
    return Operand("special", text)


def _split_top(s: str, sep: str) -> list[str]:
    """Split at ``sep`` outside (), [], "" ."""
    if not any(ch in s for ch in '([")]'):
        return s.split(sep)
    out, depth, cur, quote = [], 0, [], False
    for ch in s:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "([":
            depth += 1
        elif not quote and ch in ")]":
            depth -= 1
        if ch == sep and depth == 0 and not quote:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _split_ws(s: str) -> list[str]:
    return [p for p in _split_top(s.replace("\t", " "), " ") if p]


def parse_instruction(text: str, line: int = 0) -> Instruction:
    """One instruction line (comment already removed) -> Instruction."""
    body = text.strip()
    parts = body.split(None, 1)
    mnemonic = parts[0]
    rest = parts[1] if len(parts) > 1 else ""
    operands: list[Operand] = []
    modifiers: dict[str, str] = {}
    if mnemonic == "s_waitcnt":  # vmcnt(0) lgkmcnt(0): counters, kept as modifiers
        for tok in _split_ws(rest.replace("&", " ")):
            m = re.match(r"^(\w+)\((\d+)\)$", tok)
            if m:
                modifiers[m.group(1)] = m.group(2)
            else:
                operands.append(parse_operand(tok))
        return Instruction(mnemonic, operands, modifiers, line, text)
    if rest:
        segs = _split_top(rest, ",")
        for k, seg in enumerate(segs):
            toks = _split_ws(seg)
            if not toks:
                raise AsmError(f"line {line}: empty operand in {body!r}")
            operands.append(parse_operand(toks[0]))
            extra = toks[1:]
            if extra and k != len(segs) - 1:
                raise AsmError(f"line {line}: modifier {extra[0]!r} before the last operand in {body!r}")
            for tok in extra:
                key, _, val = tok.partition(":")
                modifiers[key] = val
        # an instruction whose only "operand" is a modifier (e.g. s_nop never; ds_* always have operands)
    return Instruction(mnemonic, operands, modifiers, line, text)


_LABEL = re.compile(r"^([.\w$]+):")


def _strip_comment(line: str) -> str:
    out, quote = [], False
    for ch in line:
        if ch == '"':
            quote = not quote
        if ch == ";" and not quote:
            break
        out.append(ch)
    return "".join(out)


def parse_file(text: str, source: str = "") -> dict[str, Kernel]:
    """All kernels of an assembly file, by symbol name.

    Raises AsmError when a kernel has no ``.amdhsa_kernel`` block or an instruction line cannot be split.
    """
    lines = text.splitlines()
    meta = _metadata(text)
    amdhsa = _amdhsa_blocks(lines)
    kernels: dict[str, Kernel] = {}
    for name in amdhsa:
        try:
            start = next(i for i, ln in enumerate(lines) if ln.startswith(name + ":"))
        except StopIteration:
            raise AsmError(f"{source}: kernel {name} has a .amdhsa_kernel block but no label") from None
        instrs: list[Instruction] = []
        labels: dict[str, int] = {}
        for i in range(start + 1, len(lines)):
            raw = lines[i]
            code = _strip_comment(raw).strip()
            if not code:
                continue
            if code.startswith(".Lfunc_end"):
                break
            if m := _LABEL.match(code):
                labels[m.group(1)] = len(instrs)
                code = code[m.end():].strip()
                if not code:
                    continue
            if code.startswith("."):  # directives inside the function (.p2align, .loc, ...)
                continue
            ins = parse_instruction(code, i + 1)
            ins.index = len(instrs)
            instrs.append(ins)
        kernels[name] = Kernel(name, instrs, labels, amdhsa[name], meta.get(name, {}), source)
    return kernels


def _amdhsa_blocks(lines: list[str]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    cur = None
    for ln in lines:
        s = ln.strip()
        if s.startswith(".amdhsa_kernel "):
            cur = s.split(None, 1)[1]
            out[cur] = {}
        elif s.startswith(".end_amdhsa_kernel"):
            cur = None
        elif cur is not None and s.startswith(".amdhsa_"):
            key, _, val = s[len(".amdhsa_"):].partition(" ")
            out[cur][key] = int(val.strip(), 0)
    return out


def _metadata(text: str) -> dict[str, dict]:
    m = re.search(r"\.amdgpu_metadata\n(.*?)\n\s*\.end_amdgpu_metadata", text, re.S)
    if not m:
        return {}
    doc = yaml.safe_load(m.group(1)) or {}
    return {k[".name"]: k for k in doc.get("amdhsa.kernels", [])}


def load(path: str | Path) -> dict[str, Kernel]:
    """Parse an assembly file (see :func:`parse_file`)."""
    p = Path(path)
    return parse_file(p.read_text(), str(p))
