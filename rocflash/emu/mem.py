"""Decode vector memory instructions: LDS (DS) and global (FLAT-family GLOBAL).

Vega ISA chapter 10 "Data Share Operations" (10.3.3 indexed access: address = ADDR + OFFSET per lane,
in bytes; DS_READ2/WRITE2 offsets in units of the element size, ST64 forms in units of 64 elements),
12.13 "LDS & GDS Instructions" (DS_SWIZZLE_B32, DS_BPERMUTE_B32 definitions), chapter 9 "Flat Memory
Instructions" and 12.18 "FLAT, Scratch and Global Instructions" (GLOBAL: address = VADDR.u64 + OFFSET, or
SADDR.u64 + VADDR.u32 + OFFSET when SADDR is not ``off``; 13-bit signed OFFSET).

Only the lanes in EXEC access memory. Loads write their VGPRs immediately (no latency: ``s_waitcnt`` is a
no-op functionally). An LDS address outside the workgroup's allocation stops the run (silicon returns 0 /
drops the write: a kernel that relied on that would be wrong anyway). D16 loads of 16 bits zero-extend
(``_ushort``) or sign-extend (``_sshort``) into the 32-bit VGPR.
"""

from __future__ import annotations

import re

import numpy as np

from .asm import Instruction, Operand
from .operands import sget, vget
from .state import PRIVATE_BASE, WAVE, MemoryFault, Unimplemented

U8, U16, U32, U64 = np.uint8, np.uint16, np.uint32, np.uint64
LANE = np.arange(WAVE)

_DS_READ = {"ds_read_b32": 4, "ds_read_b64": 8, "ds_read_b96": 12, "ds_read_b128": 16,
            "ds_read_u8": 1, "ds_read_i8": -1, "ds_read_u16": 2, "ds_read_i16": -2}
_DS_WRITE = {"ds_write_b8": 1, "ds_write_b16": 2, "ds_write_b32": 4, "ds_write_b64": 8, "ds_write_b96": 12,
             "ds_write_b128": 16}
_DS_READ2 = {"ds_read2_b32": (4, 1), "ds_read2_b64": (8, 1), "ds_read2st64_b32": (4, 64), "ds_read2st64_b64": (8, 64)}
_DS_WRITE2 = {"ds_write2_b32": (4, 1), "ds_write2_b64": (8, 1), "ds_write2st64_b32": (4, 64),
              "ds_write2st64_b64": (8, 64)}
_G_LOAD = {"global_load_dword": 4, "global_load_dwordx2": 8, "global_load_dwordx3": 12, "global_load_dwordx4": 16,
           "global_load_ubyte": 1, "global_load_sbyte": -1, "global_load_ushort": 2, "global_load_sshort": -2}
_G_STORE = {"global_store_byte": 1, "global_store_short": 2, "global_store_dword": 4, "global_store_dwordx2": 8,
            "global_store_dwordx3": 12, "global_store_dwordx4": 16}


def _check(ins: Instruction, allowed: set[str]) -> None:
    for k in ins.modifiers:
        if k not in allowed:
            raise Unimplemented(f"modifier {k} of {ins.mnemonic} ({ins.where()})")


def _lds_index(w, addr: np.ndarray, nbytes: int, ins: Instruction) -> np.ndarray:
    idx = addr.astype(np.int64)[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
    if idx.size and (idx.min() < 0 or idx.max() >= w.wg.lds_size):
        bad = int(addr[np.argmax((idx < 0).any(1) | (idx >= w.wg.lds_size).any(1))])
        raise MemoryFault(f"LDS access of {nbytes} bytes at {bad} outside the {w.wg.lds_size} bytes of the "
                          f"workgroup ({ins.where()})")
    return idx


def _to_dwords(raw: np.ndarray, nbytes: int) -> np.ndarray:
    """[lanes, nbytes] bytes -> [dwords, lanes] uint32 (zero/sign-extended for 1 and 2 byte reads)."""
    size = abs(nbytes)
    if size >= 4:
        return raw.view(U32).T
    v = raw.view(U8 if size == 1 else U16)[:, 0]
    if nbytes < 0:
        v = v.view(np.int8 if size == 1 else np.int16).astype(np.int32).view(U32)
    return v.astype(U32)[None, :]


def _from_dwords(w, reg: int, nbytes: int) -> np.ndarray:
    """VGPRs reg.. of the active lanes -> [lanes, nbytes] bytes."""
    size = abs(nbytes)
    nd = max(1, size // 4)
    data = w.V[reg: reg + nd][:, w.exec_mask].T.copy()  # [lanes, nd]
    return data.view(U8)[:, :size] if size < 4 else data.view(U8).reshape(-1, size)


def lds_clocks(addr: np.ndarray, nbytes: int, banks: int = 32, bank_bytes: int = 4, per_clock: int = 128) -> int:
    """LDS clocks of one access (Vega ISA ch. 10: 32 banks of 4 bytes, 128 bytes per clock): lanes are
    served in groups of per_clock / nbytes; a group takes as many clocks as the most distinct dwords that
    fall into one bank (the same dword read by several lanes is a broadcast)."""
    lanes = max(1, per_clock // max(nbytes, 1))
    total = 0
    for g in range(0, addr.size, lanes):
        a = addr[g: g + lanes].astype(np.int64)
        dwords = np.unique((a[:, None] + np.arange(0, max(nbytes, 4), 4)[None, :]).reshape(-1) // bank_bytes)
        total += int(np.bincount(dwords % banks, minlength=banks).max()) if dwords.size else 0
    return max(total, 1)


def _record(w, ins: Instruction, lds: int = 0, nbytes: int = 0) -> None:
    ev = w.events.setdefault(ins.index, [0, 0])
    ev[0] += lds
    ev[1] += nbytes


def _offset(ins: Instruction, key: str = "offset") -> int:
    return int(ins.modifiers.get(key, "0"), 0)


def build_ds(ins: Instruction):
    m = ins.mnemonic
    ops = ins.operands
    if m in _DS_READ:
        _check(ins, {"offset", "gds"})
        nbytes = _DS_READ[m]
        d, a = ops[0].reg, ops[1].reg
        off = _offset(ins)

        def ds_read(w):
            act = w.exec_mask
            addr = w.V[a][act].astype(np.int64) + off
            vals = _to_dwords(w.wg.lds[_lds_index(w, addr, abs(nbytes), ins)], nbytes)
            if w.events is not None:
                _record(w, ins, lds_clocks(addr, abs(nbytes)))
            for k in range(vals.shape[0]):
                w.V[d + k][act] = vals[k]
        return ds_read
    if m in _DS_WRITE:
        _check(ins, {"offset", "gds"})
        nbytes = _DS_WRITE[m]
        a, s = ops[0].reg, ops[1].reg
        off = _offset(ins)

        def ds_write(w):
            act = w.exec_mask
            addr = w.V[a][act].astype(np.int64) + off
            idx = _lds_index(w, addr, nbytes, ins)
            w.wg.lds[idx] = _from_dwords(w, s, nbytes)
            if w.events is not None:
                _record(w, ins, lds_clocks(addr, nbytes))
        return ds_write
    if m in _DS_READ2:
        _check(ins, {"offset0", "offset1", "gds"})
        size, stride = _DS_READ2[m]
        d, a = ops[0].reg, ops[1].reg
        o0, o1 = _offset(ins, "offset0") * size * stride, _offset(ins, "offset1") * size * stride
        nd = size // 4

        def ds_read2(w):
            act = w.exec_mask
            base = w.V[a][act].astype(np.int64)
            if w.events is not None:
                _record(w, ins, lds_clocks(base + o0, size) + lds_clocks(base + o1, size))
            for k, o in enumerate((o0, o1)):
                vals = _to_dwords(w.wg.lds[_lds_index(w, base + o, size, ins)], size)
                for j in range(nd):
                    w.V[d + k * nd + j][act] = vals[j]
        return ds_read2
    if m in _DS_WRITE2:
        _check(ins, {"offset0", "offset1", "gds"})
        size, stride = _DS_WRITE2[m]
        a, s0, s1 = ops[0].reg, ops[1].reg, ops[2].reg
        o0, o1 = _offset(ins, "offset0") * size * stride, _offset(ins, "offset1") * size * stride

        def ds_write2(w):
            act = w.exec_mask
            base = w.V[a][act].astype(np.int64)
            if w.events is not None:
                _record(w, ins, lds_clocks(base + o0, size) + lds_clocks(base + o1, size))
            for src, o in ((s0, o0), (s1, o1)):
                w.wg.lds[_lds_index(w, base + o, size, ins)] = _from_dwords(w, src, size)
        return ds_write2
    if m == "ds_swizzle_b32":
        _check(ins, {"offset", "gds"})
        return _build_swizzle(ins)
    if m in ("ds_bpermute_b32", "ds_permute_b32"):
        _check(ins, {"offset", "gds"})
        d, a, s = ops[0].reg, ops[1].reg, ops[2].reg
        off = _offset(ins)
        if m == "ds_bpermute_b32":
            def bpermute(w):
                src = ((w.V[a].astype(np.int64) + off) // 4) % WAVE  # DS_BPERMUTE_B32 (Vega 12.13)
                val = np.where(w.exec_mask[src], w.V[s][src], U32(0))
                w.V[d][w.exec_mask] = val[w.exec_mask]
            return bpermute

        def permute(w):
            dst = ((w.V[a].astype(np.int64) + off) // 4) % WAVE
            tmp = np.zeros(WAVE, U32)
            for lane in np.nonzero(w.exec_mask)[0]:  # the highest source lane wins
                tmp[dst[lane]] = w.V[s][lane]
            w.V[d][w.exec_mask] = tmp[w.exec_mask]
        return permute
    return None


def swizzle_offset(text: str) -> int:
    """The 16-bit DS_SWIZZLE_B32 offset of ``offset:`` text: a number or LLVM's ``swizzle(...)`` macros."""
    m = re.fullmatch(r"swizzle\((\w+)(?:,(.*))?\)", text)
    if not m:
        return int(text, 0)
    mode, args = m.group(1), [a.strip() for a in (m.group(2) or "").split(",") if a.strip()]
    if mode == "QUAD_PERM":
        lanes = [int(x) for x in args]
        return 0x8000 | lanes[0] | lanes[1] << 2 | lanes[2] << 4 | lanes[3] << 6
    if mode == "SWAP":
        return 0x1F | int(args[0]) << 10
    if mode == "REVERSE":
        return 0x1F | (int(args[0]) - 1) << 10
    if mode == "BROADCAST":
        size, lane = int(args[0]), int(args[1])
        return (~(size - 1) & 0x1F) | lane << 5
    if mode == "BITMASK_PERM":
        spec = args[0].strip('"')
        and_m = or_m = xor_m = 0
        for i, ch in enumerate(spec):
            bit = 1 << (4 - i)
            if ch == "1":
                or_m |= bit
            elif ch == "p":
                and_m |= bit
            elif ch == "i":
                and_m |= bit
                xor_m |= bit
        return and_m | or_m << 5 | xor_m << 10
    raise ValueError(f"unknown swizzle mode {mode}")


def swizzle_lanes(offset: int) -> np.ndarray:
    """Source lane of each lane for DS_SWIZZLE_B32 (Vega 12.13): quad-permute mode when offset[15] is 1,
    else bit-mask mode within 32-lane halves: j = ((i & and_mask) | or_mask) ^ xor_mask."""
    if offset & 0x8000:
        sel = [(offset >> (2 * k)) & 3 for k in range(4)]
        return (LANE & ~3) | np.array(sel)[LANE & 3]
    and_m, or_m, xor_m = offset & 0x1F, (offset >> 5) & 0x1F, (offset >> 10) & 0x1F
    return ((((LANE & 0x1F) & and_m) | or_m) ^ xor_m) | (LANE & 0x20)


def _build_swizzle(ins: Instruction):
    d, s = ins.operands[0].reg, ins.operands[1].reg
    try:
        offset = swizzle_offset(ins.modifiers.get("offset", "0"))
    except (ValueError, IndexError):
        raise Unimplemented(f"ds_swizzle offset {ins.modifiers.get('offset')} ({ins.where()})") from None
    src = swizzle_lanes(offset)

    def swizzle(w):
        # thread_out[i] = thread_valid[j] ? thread_in[j] : 0 (AMD pseudocode of DS_SWIZZLE_B32)
        val = np.where(w.exec_mask[src], w.V[s][src], U32(0))
        w.V[d][w.exec_mask] = val[w.exec_mask]
    return swizzle


def _global_addr(ins: Instruction, vaddr_op, saddr_op):
    off = _offset(ins)
    if not -4096 <= off < 4096:
        raise Unimplemented(f"global offset {off} outside 13-bit signed ({ins.where()})")
    if saddr_op.kind == "off":
        a = vaddr_op.reg
        return lambda w, act: ((w.V[a + 1][act].astype(U64) << U64(32)) | w.V[a][act].astype(U64)) + U64(off & 0xFFFFFFFFFFFFFFFF) \
            if off >= 0 else ((w.V[a + 1][act].astype(U64) << U64(32)) | w.V[a][act].astype(U64)) - U64(-off)
    sbase = sget(saddr_op, 64, ins)
    a = vaddr_op.reg
    return lambda w, act: (U64(sbase(w)) + w.V[a][act].astype(U64) + U64(off)) if off >= 0 else \
        (U64(sbase(w)) + w.V[a][act].astype(U64) - U64(-off))


def build_global(ins: Instruction):
    m = ins.mnemonic
    ops = ins.operands
    if m in _G_LOAD:
        _check(ins, {"offset", "glc", "slc"})
        nbytes = _G_LOAD[m]
        d = ops[0].reg
        addr = _global_addr(ins, ops[1], ops[2])

        def gload(w):
            act = w.exec_mask
            if not act.any():
                return
            raw = w.wg.mem.gather(addr(w, act), abs(nbytes))
            if w.events is not None:
                _record(w, ins, 0, raw.size)
            vals = _to_dwords(raw, nbytes)
            for k in range(vals.shape[0]):
                w.V[d + k][act] = vals[k]
        return gload
    if m in _G_STORE:
        _check(ins, {"offset", "glc", "slc"})
        nbytes = _G_STORE[m]
        s = ops[1].reg
        addr = _global_addr(ins, ops[0], ops[2])

        def gstore(w):
            act = w.exec_mask
            if not act.any():
                return
            data = _from_dwords(w, s, nbytes)
            w.wg.mem.scatter(addr(w, act), data)
            if w.events is not None:
                _record(w, ins, 0, data.size)
        return gstore
    if m in ("global_store_short_d16_hi", "global_store_byte_d16_hi"):
        _check(ins, {"offset", "glc", "slc"})
        nbytes = 2 if "short" in m else 1
        s = ops[1].reg
        addr = _global_addr(ins, ops[0], ops[2])

        def gstore_hi(w):
            act = w.exec_mask
            if act.any():
                hi = (w.V[s][act] >> U32(16)).astype(U32)
                w.wg.mem.scatter(addr(w, act), hi[:, None].view(U8)[:, :nbytes])
        return gstore_hi
    return None


_BUF = {"buffer_load_dword": 4, "buffer_load_dwordx2": 8, "buffer_load_dwordx3": 12, "buffer_load_dwordx4": 16,
        "buffer_store_dword": 4, "buffer_store_dwordx2": 8, "buffer_store_dwordx3": 12, "buffer_store_dwordx4": 16}


def build_scratch(ins: Instruction):
    """BUFFER_LOAD/STORE_DWORD* through the private-segment descriptor: the compiler's register spills
    (Vega ISA 8 "Vector Memory Operations", MUBUF; 3.x "scratch": each lane has its own private memory,
    address = descriptor base + SOFFSET + OFFSET (+ VGPR offset with ``offen``), swizzled per lane by the
    hardware). Modelled as per-lane byte arrays; any other buffer use is not implemented."""
    m = ins.mnemonic
    _check(ins, {"offset", "offen", "glc", "slc"})
    nbytes = _BUF[m]
    ops = ins.operands
    data, vaddr, rsrc, soff = ops[0], ops[1], ops[2], ops[3]
    base_get = sget(rsrc, 64, ins)
    soff_get = sget(soff, 32, ins)
    off = _offset(ins)
    offen = "offen" in ins.modifiers
    if offen and vaddr.kind != "v":
        raise Unimplemented(f"offen without a VGPR address ({ins.where()})")
    store = m.startswith("buffer_store")
    nd = nbytes // 4

    def scratch(w):
        base = base_get(w) & 0xFFFF_FFFF_FFFF
        if base < PRIVATE_BASE or w.private is None:
            raise Unimplemented(f"buffer access through a descriptor other than the private segment ({ins.where()})")
        act = w.exec_mask
        lanes = np.nonzero(act)[0]
        start = np.full(lanes.size, base - PRIVATE_BASE + soff_get(w) + off, dtype=np.int64)
        if offen:
            start = start + w.V[vaddr.reg][act].astype(np.int64)
        if lanes.size and (start.min() < 0 or start.max() + nbytes > w.private.shape[1]):
            raise MemoryFault(f"scratch access at {int(start.max())} outside the {w.private.shape[1]} private bytes "
                              f"per lane ({ins.where()})")
        idx = start[:, None] + np.arange(nbytes)[None, :]
        if store:
            w.private[lanes[:, None], idx] = _from_dwords(w, data.reg, nbytes)
        else:
            vals = w.private[lanes[:, None], idx].view(U32).T
            for k in range(nd):
                w.V[data.reg + k][act] = vals[k]
    return scratch


def build(ins: Instruction):
    if ins.mnemonic.startswith(("flat_load_", "flat_store_")):
        # FLAT (Vega ISA ch. 9): the emulator maps no LDS/scratch aperture, so a flat address is a global one:
        # executed as the GLOBAL form with no SADDR (12-bit unsigned offset on gfx9).
        m = "global_" + ins.mnemonic[len("flat_"):]
        if m not in _G_LOAD and m not in _G_STORE:
            return None
        ops = list(ins.operands)
        ops.insert(2, Operand("off", "off"))
        return build_global(Instruction(m, ops, ins.modifiers, ins.line, ins.text, ins.index))
    if ins.mnemonic in _BUF:
        return build_scratch(ins)
    if ins.mnemonic.startswith("ds_"):
        return build_ds(ins)
    if ins.mnemonic.startswith("global_"):
        return build_global(ins)
    return None


def known(mnemonic: str) -> bool:
    if mnemonic.startswith(("flat_load_", "flat_store_")):
        mnemonic = "global_" + mnemonic[len("flat_"):]
    return (mnemonic in _BUF or mnemonic in _DS_READ or mnemonic in _DS_WRITE or mnemonic in _DS_READ2 or mnemonic in _DS_WRITE2
            or mnemonic in ("ds_swizzle_b32", "ds_bpermute_b32", "ds_permute_b32") or mnemonic in _G_LOAD
            or mnemonic in _G_STORE or mnemonic in ("global_store_short_d16_hi", "global_store_byte_d16_hi"))
