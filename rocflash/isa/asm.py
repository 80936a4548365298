"""The AMDGPU assembly parser: code-object metadata, the instruction stream of one kernel as decoded
:class:`Instruction` records, the instruction classes the audit counts, and LLVM's own loop annotations.

What is read from the AMDGPU assembly (per kernel; LLVM AMDGPU backend, docs "AMDGPUUsage", code object
metadata)
    ``.amdgpu_metadata`` (YAML, parsed with PyYAML): ``.wavefront_size``, ``.vgpr_count`` (on gfx90a+ the
    unified VGPR+AGPR count that sets occupancy), ``.sgpr_count``, ``.agpr_count``,
    ``.group_segment_fixed_size`` (static LDS bytes), ``.private_segment_fixed_size`` (scratch bytes per
    lane), ``.vgpr_spill_count``, ``.sgpr_spill_count`` (SGPRs spilled into VGPR lanes),
    ``.uses_dynamic_stack``; the ``; Occupancy:`` comment (LLVM's own waves/SIMD, static LDS only).
    The dynamic LDS is what the launcher requests for the config, ``lds_bytes()`` of the kind's shape type
    (hip_src/fmha_fwd_launch.h, fmha_bwd_launch.h), evaluated by the host-side probe (:mod:`rocflash._probe`).

Imports neither torch nor numpy; the metadata needs PyYAML (``pip install pyyaml networkx``, or
``pip install --no-build-isolation ".[audit]"`` from the checkout).
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

if TYPE_CHECKING:
    from .loops import Loop


class Instruction(NamedTuple):
    """One decoded instruction of the assembly: ``v_dot2_f32_f16 v1, v2, v3, v1 ; comment``.

    A NamedTuple, so ``mnemonic, operands, comment = instr`` works. ``operands`` is the operand text as
    written; :attr:`args` splits it into operands (``v[0:3]``, ``s[4:5]``, ``off``, ``offset:16`` ...).
    """

    mnemonic: str  # as written, encoding suffix included: v_add_f32_e32
    operands: str = ""
    comment: str = ""

    @property
    def base(self) -> str:
        """Mnemonic without its encoding suffix (``_e32``, ``_e64``, ``_sdwa``, ``_dpp``, ``_vop3``)."""
        return _base(self.mnemonic)

    @property
    def encoding(self) -> str | None:
        """The encoding suffix (``e32``, ``e64``, ``sdwa``, ``dpp``, ``vop3``), None when the mnemonic has none."""
        m = _ENCODING.search(self.mnemonic)
        return m.group(1) if m else None

    @property
    def args(self) -> tuple[str, ...]:
        """Operands split at the commas outside brackets: ``v[0:3], v4, off`` -> ``("v[0:3]", "v4", "off")``;
        modifiers written after the last comma (``offset:16 glc``) stay one trailing item."""
        out, depth, cur = [], 0, []
        for ch in self.operands:
            depth += (ch in "[(") - (ch in "])")
            if ch == "," and depth == 0:
                out.append("".join(cur).strip())
                cur = []
            else:
                cur.append(ch)
        if "".join(cur).strip():
            out.append("".join(cur).strip())
        return tuple(out)

    @property
    def is_branch(self) -> bool:
        return is_branch(self.mnemonic)

    @property
    def branch_target(self) -> str | None:
        """The label a branch jumps to (``s_branch .LBB0_3`` -> ``.LBB0_3``), None for other instructions."""
        return self.args[0] if self.is_branch and self.operands else None

    @property
    def is_terminator(self) -> bool:
        return self.mnemonic in TERMINATORS


_ENCODING = re.compile(r"_(e32|e64|sdwa|dpp|vop3)$")
TERMINATORS = ("s_endpgm", "s_setpc_b64", "s_endpgm_saved")


def is_branch(mnemonic: str) -> bool:
    return mnemonic == "s_branch" or mnemonic.startswith("s_cbranch_")


def _base(mnemonic: str) -> str:
    """Mnemonic without its encoding suffix: v_dot2c_f32_f16_e32 -> v_dot2c_f32_f16."""
    return _ENCODING.sub("", mnemonic)


_FMA = {"v_fma_f32", "v_fmac_f32", "v_mac_f32", "v_mad_f32", "v_fma_mix_f32", "v_mad_mix_f32", "v_pk_fma_f32"}
_GLOBAL_LOAD = re.compile(r"^(global|flat)_load_")
_B128_LOAD = {"global_load_dwordx4", "flat_load_dwordx4"}
_DS64 = ("ds_read_b64", "ds_load_b64", "ds_read2_b64", "ds_read2st64_b64", "ds_load_2addr_b64")

# name -> predicate on the base mnemonic. Counted in the main loop and in the whole kernel.
COUNTERS: dict[str, Callable[[str], bool]] = {
    "global_load_b128": lambda m: m in _B128_LOAD,
    "global_load_narrow": lambda m: bool(_GLOBAL_LOAD.match(m)) and m not in _B128_LOAD,
    "ds_read_b128": lambda m: m in ("ds_read_b128", "ds_load_b128"),
    # ds_read2_b64 is one instruction doing two 64-bit reads (the compiler pairs ds_read_b64 into it)
    "ds_read_b64": lambda m: m in _DS64,
    "ds_read_other": lambda m: (m.startswith("ds_read") or m.startswith("ds_load"))
    and m not in ("ds_read_b128", "ds_load_b128", *_DS64),
    "dot2": lambda m: m in ("v_dot2_f32_f16", "v_dot2c_f32_f16"),
    "s_load_b512": lambda m: m == "s_load_dwordx16",  # the scalar-broadcast forward's K/V rows
    "mfma": lambda m: m.startswith("v_mfma_"),
    "fma": lambda m: m in _FMA,
    "fma64": lambda m: m in ("v_fma_f64", "v_fmac_f64"),  # fp32 kernels' score / dP sums (tile_rowdot_fp64)
    "exp": lambda m: m == "v_exp_f32",
    "waitcnt": lambda m: m.startswith("s_waitcnt"),
    "barrier": lambda m: m == "s_barrier",
    "lane_moves": lambda m: m in ("v_readlane_b32", "v_writelane_b32"),  # SGPR spills live in VGPR lanes
    "accvgpr_moves": lambda m: m.startswith("v_accvgpr_"),  # gfx90a+: AGPRs used as extra VGPR storage
    "scratch_ops": lambda m: m.startswith("scratch_"),
    "calls": lambda m: m in ("s_swappc_b64", "s_call_b64"),
}




# ------------------------------------------------------------------------------------------ parsing

_LABEL = re.compile(r"^([.$A-Za-z_][\w.$]*):")
_METADATA = re.compile(r"^\s*\.amdgpu_metadata\s*$(.*?)^\s*\.end_amdgpu_metadata", re.M | re.S)
_TARGET = re.compile(r'\.amdgcn_target\s+"amdgcn-amd-amdhsa--(gfx[0-9a-f]+)')


def parse_amdgpu_metadata(text: str) -> dict:
    """The ``.amdgpu_metadata`` YAML block of an assembly file as a dict (``amdhsa.kernels`` etc.)."""
    import yaml  # PyYAML: the code object metadata is YAML (LLVM AMDGPUUsage, "Code Object V3+ Metadata")

    m = _METADATA.search(text)
    if not m:
        raise ValueError("text must contain an .amdgpu_metadata block (AMDGPU assembly from clang -S), found none")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it: about 10x faster
    return yaml.load(m.group(1), Loader=loader) or {}


def kernel_instructions(text: str, symbol: str) -> tuple[list[Instruction], dict[str, int]]:
    """Instructions of one kernel (its code label to ``.Lfunc_end``) and its labels -> instruction index."""
    lines = text.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.startswith(symbol + ":"))
    except StopIteration:
        raise ValueError(f"kernel must have a code label in the assembly, found none for {symbol!r}") from None
    instrs: list[Instruction] = []
    labels: dict[str, int] = {}
    for ln in lines[start + 1:]:
        if re.match(r"^\.Lfunc_end\d+:", ln) or ln.startswith(".end_amdhsa_kernel") or ln.startswith("\t.size"):
            break
        lab = _LABEL.match(ln)
        if lab:
            labels[lab.group(1)] = len(instrs)
            continue
        code, _, comment = ln.partition(";")
        code = code.split("//")[0].strip()
        if not code or code.startswith("."):
            continue
        mnemonic, *operands = code.split(None, 1)
        instrs.append(Instruction(mnemonic, operands[0].strip() if operands else "", comment))
    return instrs, labels




_SPILL_COMMENT = re.compile(r"\b(Spill|Reload)\b")


@functools.lru_cache(maxsize=None)
def _categories(mnemonic: str) -> tuple[str, ...]:
    """The COUNTERS names a mnemonic belongs to."""
    m = _base(mnemonic)
    return tuple(name for name, pred in COUNTERS.items() if pred(m))


def count_instructions(instrs: Sequence[Instruction], loop: "Loop | None" = None) -> dict[str, int]:
    """COUNTERS over the instructions (of ``loop`` when given), plus ``spill_ops`` and ``instructions``."""
    chosen = instrs if loop is None else [instrs[i] for i in loop.instructions]
    counts = {name: 0 for name in COUNTERS}
    counts["spill_ops"] = 0
    for mnemonic, _, comment in chosen:
        for name in _categories(mnemonic):
            counts[name] += 1
        # LLVM annotates stack-slot accesses ("4-byte Folded Spill" / "Reload"); scratch_* only address scratch
        if "scratch_ops" in _categories(mnemonic) or _SPILL_COMMENT.search(comment):
            counts["spill_ops"] += 1
    counts["instructions"] = len(chosen)
    return counts


def llvm_loop_headers(text: str) -> dict[str, int]:
    """Loop headers as LLVM's verbose assembly annotates them (``.LBB0_42: ... => This Loop Header: Depth=2``):
    {label: depth}. An independent cross-check of :func:`find_loops` (tests/test_isa.py)."""
    out = {}
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        lab = _LABEL.match(ln)
        if not lab:
            continue
        for follow in [ln, *lines[i + 1:i + 4]]:
            m = re.search(r"=>\s*This (?:Inner )?Loop Header: Depth=(\d+)", follow)
            if m:
                out[lab.group(1)] = int(m.group(1))
                break
            if follow is not ln and not follow.lstrip().startswith(";"):
                break
    return out




def demangle(symbol: str) -> str:
    """Readable C++ name through ``c++filt`` (binutils) or ``llvm-cxxfilt``; the symbol itself if neither exists."""
    for tool in ("c++filt", "llvm-cxxfilt", "llvm-cxxfilt-19"):
        if shutil.which(tool):
            out = subprocess.run([tool, symbol], capture_output=True, text=True)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
    return symbol


