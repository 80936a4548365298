"""Decode a kernel into closures and run workgroups of waves: the emulator's core loop and launch ABI.

Launch state (LLVM "AMDGPUUsage", section "Initial Kernel Execution State", for code object v3+/gfx9; the
``.amdhsa_*`` directives of the kernel descriptor say which registers are present):
  user SGPRs, in this order when enabled: private segment buffer (4), dispatch ptr (2), queue ptr (2),
  kernarg segment ptr (2), dispatch id (2), flat scratch init (2), private segment size (1);
  then system SGPRs: workgroup id x, y, z (1 each), workgroup info (1), private segment wave offset (1);
  VGPRs: v0 = work-item id x, v1 = y, v2 = z (``.amdhsa_system_vgpr_workitem_id`` 0, 1, 2).
The private segment (register spills) is per-lane byte arrays of ``.amdhsa_private_segment_fixed_size``
bytes; its buffer descriptor carries a marker base address and the wave offset SGPR is 0 (see mem.py).
The dispatch packet (``hsa_kernel_dispatch_packet_t``: workgroup_size_x/y/z at byte 4/6/8, grid_size_x/y/z
at 12/16/20, group_segment_size at 28, kernarg_address at 40) lives in emulated global memory, because HIP
reads blockDim/gridDim from it.

Scheduling: the waves of a workgroup run one after another, each until it reaches ``s_barrier`` or
``s_endpgm``; when every live wave waits at the barrier, all continue (Vega ISA 4.3: a barrier waits for
all waves of the workgroup that have not ended). ``order="reverse"`` runs the waves in the opposite order,
which changes which wave reaches a barrier first, and ``order="interleave:N:SEED"`` switches to a random
wave after a random 1..N instructions (a check that results do not depend on the interleaving between
barriers: a missing barrier or a read of LDS another wave is still writing shows up as a difference).
Memory operations take effect immediately, in program order. Workgroups run one after another.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Sequence

import numpy as np

from . import mem, salu, valu
from .asm import Instruction, Kernel
from .state import PRIVATE_BASE, WAVE, EmuError, GlobalMemory, Unimplemented, Wave, Workgroup

BARRIER, END = salu.BARRIER, salu.END


def _unimplemented(ins: Instruction, reason: str):
    def stop(w):
        raise Unimplemented(reason)
    return stop


def decode(ins: Instruction, labels: dict[str, int]) -> tuple[Callable, str | None]:
    """(closure, None) for an implemented instruction; (a closure that stops the run, reason) otherwise."""
    m = ins.mnemonic
    try:
        if m.startswith("v_"):
            f = valu.build(ins)
        elif m.startswith("s_"):
            f = salu.build(ins, labels)
        elif m.startswith(("ds_", "global_", "buffer_", "flat_")):
            f = mem.build(ins)
        else:
            f = None
    except Unimplemented as e:
        return _unimplemented(ins, str(e)), str(e)
    if f is None:
        reason = f"unimplemented instruction {m} ({ins.where()})"
        return _unimplemented(ins, reason), reason
    return f, None


def implemented(mnemonic: str) -> bool:
    """Whether the emulator implements ``mnemonic`` (all its modifiers are checked only when decoded)."""
    return valu.known(mnemonic) or salu.known(mnemonic) or mem.known(mnemonic)


@dataclasses.dataclass
class Program:
    """A decoded kernel: one closure per instruction."""

    kernel: Kernel
    code: list[Callable]
    unimplemented: dict[int, str]

    @classmethod
    def from_kernel(cls, kernel: Kernel) -> "Program":
        code, missing = [], {}
        for ins in kernel.instructions:
            f, reason = decode(ins, kernel.labels)
            code.append(f)
            if reason:
                missing[ins.index] = reason
        return cls(kernel, code, missing)


@dataclasses.dataclass
class LaunchStats:
    workgroups: int = 0
    waves: int = 0
    instructions: int = 0
    seconds: float = 0.0


_USER_SGPRS = (("private_segment_buffer", 4), ("dispatch_ptr", 2), ("queue_ptr", 2), ("kernarg_segment_ptr", 2),
               ("dispatch_id", 2), ("flat_scratch_init", 2), ("private_segment_size", 1))


class Launcher:
    """Runs a decoded kernel over a grid: ``Launcher(program, memory).launch(grid, block, kernarg, lds)``."""

    def __init__(self, program: Program, memory: GlobalMemory, max_instructions: int = 50_000_000):
        self.program = program
        self.mem = memory
        self.max_instructions = max_instructions
        self.trace: list | None = None

    def _initial_sgprs(self, w: Wave, dispatch: int, kernarg: int, group: tuple[int, int, int]) -> None:
        hsa = self.program.kernel.amdhsa
        values = {"private_segment_buffer": [PRIVATE_BASE & 0xFFFFFFFF, PRIVATE_BASE >> 32, 0xFFFFFFFF, 0],
                  "dispatch_ptr": [dispatch & 0xFFFFFFFF, dispatch >> 32],
                  "queue_ptr": [0, 0], "kernarg_segment_ptr": [kernarg & 0xFFFFFFFF, kernarg >> 32],
                  "dispatch_id": [0, 0], "flat_scratch_init": [0, 0], "private_segment_size": [0]}
        s = 0
        for name, n in _USER_SGPRS:
            if hsa.get(f"user_sgpr_{name}", 0):
                if name in ("queue_ptr", "flat_scratch_init", "dispatch_id"):
                    raise Unimplemented(f"kernel descriptor enables user SGPR {name}")
                w.S[s: s + n] = values[name]
                s += n
        if s != hsa.get("user_sgpr_count", s):
            raise EmuError(f"user SGPRs counted {s}, descriptor says {hsa.get('user_sgpr_count')}")
        for axis, gid in zip("xyz", group):
            if hsa.get(f"system_sgpr_workgroup_id_{axis}", 0):
                w.S[s] = gid
                s += 1
        if hsa.get("system_sgpr_workgroup_info", 0):
            raise Unimplemented("workgroup info SGPR")
        if hsa.get("system_sgpr_private_segment_wavefront_offset", 0):
            w.S[s] = 0  # each wave has its own per-lane private arrays: its offset is 0
            s += 1
        if self.program.kernel.private_segment_fixed_size:
            w.private = np.zeros((WAVE, self.program.kernel.private_segment_fixed_size), dtype=np.uint8)

    def _dispatch_packet(self, grid: tuple[int, int, int], block: tuple[int, int, int], lds: int, kernarg: int) -> int:
        pkt = np.zeros(64, dtype=np.uint8)
        pkt[4:10] = np.array(block, dtype=np.uint16).view(np.uint8)
        pkt[12:24] = np.array([g * b for g, b in zip(grid, block)], dtype=np.uint32).view(np.uint8)
        pkt[28:32] = np.array([lds], dtype=np.uint32).view(np.uint8)
        pkt[40:48] = np.array([kernarg], dtype=np.uint64).view(np.uint8)
        return self.mem.put(pkt, 64)

    def launch(self, grid: Sequence[int], block: Sequence[int], kernarg: bytes, dynamic_lds: int = 0,
               groups: Sequence[tuple[int, int, int]] | None = None, order: str = "forward") -> LaunchStats:
        """Run the workgroups ``groups`` (default: all of ``grid``) of a launch; returns counts and time.

        kernarg: the kernel argument bytes (copied into global memory). Raises EmuError / Unimplemented /
        MemoryFault naming the instruction and its line.
        """
        k = self.program.kernel
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        if k.kernarg_size and len(kernarg) < k.kernarg_size:
            raise EmuError(f"kernarg must have at least {k.kernarg_size} bytes, got {len(kernarg)}")
        karg = self.mem.put(np.frombuffer(bytes(kernarg), dtype=np.uint8), 64)
        lds = k.group_segment_fixed_size + dynamic_lds
        if lds > 65536:
            raise EmuError(f"LDS per workgroup must be <= 65536 bytes on gfx906, got {lds}")
        dispatch = self._dispatch_packet(grid, block, lds, karg)
        stats = LaunchStats()
        t0 = time.time()
        if groups is None:
            groups = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
        bad = [g for g in groups if len(g) != 3 or not all(0 <= int(i) < n for i, n in zip(g, grid))]
        if bad:  # a workgroup id outside the grid: its blocks would read and write outside the launch's tensors
            raise EmuError(f"groups must be workgroup ids (x, y, z) inside the grid {grid}, got {bad[:4]}")
        for g in groups:
            stats.instructions += self._run_group(g, block, lds, dispatch, karg, order)
            stats.workgroups += 1
        stats.waves = stats.workgroups * -(-int(np.prod(block)) // WAVE)
        stats.seconds = time.time() - t0
        return stats

    def _run_group(self, group, block, lds: int, dispatch: int, karg: int, order: str) -> int:
        k = self.program.kernel
        wg = Workgroup(lds, self.mem, group)
        threads = int(np.prod(block))
        nwaves = -(-threads // WAVE)
        nv = max(int(k.amdhsa.get("next_free_vgpr", 256)), 3)
        waves = []
        tid = np.arange(threads)
        ids = (tid % block[0], (tid // block[0]) % block[1], tid // (block[0] * block[1]))
        vgpr_ids = int(k.amdhsa.get("system_vgpr_workitem_id", 0))
        for i in range(nwaves):
            w = Wave(nv, wg, i)
            lanes = slice(i * WAVE, min((i + 1) * WAVE, threads))
            n = lanes.stop - lanes.start
            for axis in range(vgpr_ids + 1):
                w.V[axis, :n] = ids[axis][lanes]
            w.set_exec((1 << n) - 1)
            self._initial_sgprs(w, dispatch, karg, group)
            if self.trace is not None:
                w.trace = []
                w.events = {}
                self.trace.append((group, i, w))
            waves.append(w)
        budget, rng = None, None
        if order.startswith("interleave"):
            _, n, seed = (order.split(":") + ["64", "0"])[:3]
            budget, rng = int(n), np.random.default_rng(int(seed))
        elif order not in ("forward", "reverse"):
            raise ValueError(f"order must be forward, reverse or interleave:N:SEED, got {order!r}")
        sched = waves if order != "reverse" else waves[::-1]
        total = 0
        while True:
            if budget is not None:  # random wave, at most N instructions per turn, until all wait or end
                while True:
                    ready = [w for w in waves if not w.done and not w.at_barrier]
                    if not ready:
                        break
                    w = ready[int(rng.integers(len(ready)))]
                    total += self._run_wave(w, int(rng.integers(1, budget + 1)))
            for w in sched:
                if not w.done and not w.at_barrier:
                    total += self._run_wave(w)
            live = [w for w in waves if not w.done]
            if not live:
                return total
            if all(w.at_barrier for w in live):
                for w in live:
                    w.at_barrier = False
            else:
                raise EmuError("scheduler stalled: waves neither done nor at a barrier")

    def _run_wave(self, w: Wave, budget: int | None = None) -> int:
        """Run ``w`` until a barrier, its end or ``budget`` instructions; returns instructions run."""
        code = self.program.code
        instrs = self.program.kernel.instructions
        pc = w.pc
        n = 0
        limit = self.max_instructions - w.count
        trace = w.trace
        try:
            with np.errstate(all="ignore"):
                while True:
                    if trace is not None:
                        trace.append(pc)
                    r = code[pc](w)
                    n += 1
                    if r is None:
                        pc += 1
                        if n == budget:
                            break
                    elif r >= 0:
                        pc = r
                        if n > limit:
                            raise EmuError(f"wave ran more than {self.max_instructions} instructions")
                        if n == budget:
                            break
                    elif r == BARRIER:
                        w.at_barrier = True
                        pc += 1
                        break
                    else:
                        w.done = True
                        break
        except EmuError as e:
            if instrs[pc].where() not in str(e):
                e.args = (f"{e.args[0] if e.args else e} [wave {w.wave_id} of workgroup {w.wg.group_id}, "
                          f"{instrs[pc].where()}]",)
            raise
        except (IndexError, ValueError, TypeError, OverflowError) as e:
            raise EmuError(f"{type(e).__name__}: {e} [wave {w.wave_id} of workgroup {w.wg.group_id}, "
                           f"{instrs[pc].where()}]") from e
        w.pc = pc
        w.count += n
        return n


def run_snippet(lines: Sequence[str], wave: Wave | None = None, lds_bytes: int = 0,
                memory: GlobalMemory | None = None, num_vgprs: int = 64) -> Wave:
    """Execute assembly ``lines`` (one instruction each, labels allowed, ``s_endpgm`` appended) on one wave.

    For unit tests of single instructions: pass a wave prepared with :func:`new_wave` (registers set), or
    get a fresh one. Returns the wave after the run.
    """
    from .asm import Kernel, parse_instruction

    instrs, labels = [], {}
    for ln in [*lines, "s_endpgm"]:
        ln = ln.strip()
        if ln.endswith(":"):
            labels[ln[:-1]] = len(instrs)
            continue
        ins = parse_instruction(ln, len(instrs) + 1)
        ins.index = len(instrs)
        instrs.append(ins)
    kernel = Kernel("snippet", instrs, labels, {})
    prog = Program.from_kernel(kernel)
    w = wave or new_wave(num_vgprs, lds_bytes, memory)
    w.pc, w.done, w.at_barrier = 0, False, False
    launcher = Launcher(prog, w.wg.mem)
    while not w.done:
        launcher._run_wave(w)
        w.at_barrier = False
    return w


def new_wave(num_vgprs: int = 64, lds_bytes: int = 0, memory: GlobalMemory | None = None) -> Wave:
    """A fresh wave (all lanes active, registers zero) in its own workgroup."""
    wg = Workgroup(lds_bytes, memory or GlobalMemory(), (0, 0, 0))
    return Wave(num_vgprs, wg, 0)
