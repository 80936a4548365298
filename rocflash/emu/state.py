"""Machine state of the gfx906 emulator: global memory, a workgroup's LDS, one wave's registers.

Vega ISA ("Vega" Instruction Set Architecture Reference Guide, AMD 2017), chapter 3 "Kernel State":
a wave holds 64 lanes; VGPRs are 32 bits per lane (3.6), SGPRs 32 bits per wave, with VCC (3.8), EXEC
(3.3), M0 and SCC (3.4, STATUS). Here VGPRs are a numpy ``uint32[num_vgprs, 64]`` array (the 64 lanes
vectorised), SGPRs a Python list of ints indexed by their operand encoding (s0..s101, flat_scratch 102,
xnack_mask 104, vcc 106, m0 124, exec 126; Vega ISA 13, "SSRC/SDST" field values), SCC an int. The
EXEC mask is also cached as a bool array; every instruction that writes EXEC refreshes it.

Global memory (chapter 9 "Flat Memory Instructions", global segment) is one byte array with a base
address; an address outside every allocation stops the run. LDS (chapter 10 "Data Share Operations")
is one byte array per workgroup, its size the kernel's static LDS plus the dynamic LDS of the launch.
"""

from __future__ import annotations

import numpy as np

from .asm import EXEC, NUM_SREG_FILE, Instruction

PRIVATE_BASE = 0x7F00_0000_0000  # base address the emulator puts in the private-segment buffer descriptor
WAVE = 64  # gfx9 is wave64 (Vega ISA 2.1 "Program organization"); the only place this number is written
LANES = np.arange(WAVE, dtype=np.uint64)
LANES32 = np.arange(WAVE, dtype=np.uint32)
_BITS = np.uint64(1) << LANES
FULL = (1 << WAVE) - 1


class EmuError(RuntimeError):
    """The emulated program did something the emulator stops on (names the instruction and line)."""


class Unimplemented(EmuError):
    """An instruction or modifier the emulator does not implement was reached."""


class Trap(EmuError):
    """The program executed s_trap (rocflash's device-side assert on AMD, hip_src/rf_vendor.h rf_assert_fail): on a
    GPU the wave stops and the queue fails, the error surfacing at the host's next synchronization."""


class MemoryFault(EmuError):
    """An address outside global memory or LDS."""


def mask_to_bools(m: int) -> np.ndarray:
    return (np.uint64(m) & _BITS) != 0


def bools_to_mask(b: np.ndarray) -> int:
    return int(np.packbits(b, bitorder="little").view(np.uint64)[0])


class GlobalMemory:
    """Flat byte-addressed memory: allocations from ``base`` upward, 256-byte aligned, with a guard gap.

    ``alloc(nbytes)`` -> address; ``write(addr, bytes)``, ``read(addr, n)``. Lanes read and write through
    :meth:`gather` / :meth:`scatter` with an address per lane; any byte outside every allocation raises
    MemoryFault naming the address.
    """

    GUARD = 4096

    def __init__(self, base: int = 0x1000_0000, capacity: int = 1 << 20):
        self.base = base
        self.data = np.zeros(capacity, dtype=np.uint8)
        self.top = 0
        self.valid = np.zeros(capacity, dtype=bool)

    def _grow(self, need: int) -> None:
        if need <= self.data.size:
            return
        n = max(need, 2 * self.data.size)
        data = np.zeros(n, dtype=np.uint8)
        data[: self.data.size] = self.data
        valid = np.zeros(n, dtype=bool)
        valid[: self.valid.size] = self.valid
        self.data, self.valid = data, valid

    def alloc(self, nbytes: int, align: int = 256) -> int:
        off = (self.top + align - 1) // align * align
        self._grow(off + nbytes + self.GUARD)
        self.valid[off: off + nbytes] = True
        self.top = off + nbytes + self.GUARD
        return self.base + off

    def put(self, array: np.ndarray, align: int = 256) -> int:
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        addr = self.alloc(max(raw.size, 1), align)
        self.write(addr, raw)
        return addr

    def write(self, addr: int, raw) -> None:
        raw = np.frombuffer(bytes(raw), dtype=np.uint8) if not isinstance(raw, np.ndarray) else raw.view(np.uint8).reshape(-1)
        off = addr - self.base
        self.data[off: off + raw.size] = raw

    def read(self, addr: int, n: int) -> np.ndarray:
        off = addr - self.base
        if off < 0 or off + n > self.data.size or not self.valid[off: off + n].all():
            raise MemoryFault(f"read of {n} bytes at 0x{addr:x} outside global memory")
        return self.data[off: off + n].copy()

    def _offsets(self, addrs: np.ndarray, nbytes: int, what: str) -> np.ndarray:
        off = addrs.astype(np.int64) - self.base
        idx = off[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
        bad = (idx < 0) | (idx >= self.data.size)
        if bad.any() or not self.valid[np.where(bad, 0, idx)].all():
            lane = int(np.argmax(bad.any(1) | ~self.valid[np.where(bad, 0, idx)].all(1)))
            raise MemoryFault(f"global {what} of {nbytes} bytes at 0x{int(addrs[lane]):x} (lane {lane}) "
                              f"outside every allocation")
        return idx

    def gather(self, addrs: np.ndarray, nbytes: int) -> np.ndarray:
        """bytes [lanes, nbytes] at ``addrs`` (uint64 per active lane)."""
        return self.data[self._offsets(addrs, nbytes, "load")]

    def scatter(self, addrs: np.ndarray, raw: np.ndarray) -> None:
        """Store ``raw`` [lanes, nbytes]; lanes are written in order (the highest lane wins a conflict)."""
        idx = self._offsets(addrs, raw.shape[1], "store")
        self.data[idx] = raw


class Wave:
    """One wave64: registers, program counter and scheduling flags."""

    __slots__ = ("V", "S", "scc", "exec_mask", "exec_all", "pc", "done", "at_barrier", "wg", "wave_id",
                 "count", "trace", "events", "private")

    def __init__(self, num_vgprs: int, wg, wave_id: int):
        self.V = np.zeros((num_vgprs, WAVE), dtype=np.uint32)
        self.S = [0] * NUM_SREG_FILE
        self.scc = 0
        self.wg = wg
        self.wave_id = wave_id
        self.pc = 0
        self.done = False
        self.at_barrier = False
        self.count = 0
        self.trace = None
        self.events = None  # with tracing: pc -> [LDS clocks, global bytes] (for the cycle model)
        self.private = None  # per-lane scratch bytes [64, n] when the kernel has a private segment
        self.set_exec(FULL)

    def set_exec(self, m: int) -> None:
        m &= FULL
        self.S[EXEC] = m & 0xFFFFFFFF
        self.S[EXEC + 1] = m >> 32
        self.refresh_exec()

    def refresh_exec(self) -> None:
        m = self.S[EXEC] | (self.S[EXEC + 1] << 32)
        self.exec_all = m == FULL
        self.exec_mask = mask_to_bools(m)

    @property
    def exec(self) -> int:
        return self.S[EXEC] | (self.S[EXEC + 1] << 32)


class Workgroup:
    """LDS and global memory shared by the waves of one workgroup."""

    def __init__(self, lds_bytes: int, memory: GlobalMemory, group_id: tuple[int, int, int]):
        self.lds = np.zeros(max(lds_bytes, 4), dtype=np.uint8)
        self.lds_size = lds_bytes
        self.mem = memory
        self.group_id = group_id


def where(ins: Instruction | None) -> str:
    return ins.where() if ins is not None else "?"
