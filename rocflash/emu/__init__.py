"""A wave64 functional emulator of the gfx906 (Vega 20, gfx9) compute ISA, for rocflash's own kernels.

    from rocflash.emu.driver import run_forward, run_backward
    out, lse, info = run_forward(q, k, v, window_right=0)       # the real gfx906 machine code, emulated
    python -m rocflash.emu coverage                              # mnemonic coverage over every gfx906 kernel

Layers (each module's docstring cites the Vega ISA manual sections it implements):
  asm      parse LLVM AMDGPU assembly: instructions, labels, ``.amdhsa_*`` directives, metadata
  state    wave registers (VGPR [n, 64] uint32, SGPR file, SCC, EXEC mask), global memory, LDS
  operands source/destination access, inline constants, neg/abs
  valu / valu_ops, salu, mem    instruction semantics (decoded once into closures, vectorised over lanes)
  machine  decode + run loop, AMDHSA launch state, workgroup scheduling at s_barrier
  build    gfx906 assembly of our instances (hipcc, cached), params-struct layout from the headers
  driver   host side: params struct, grid, dynamic LDS, tensors in emulated memory
  cycles   a cycle MODEL (not a measurement) on traced workgroups: issue rates, LDS bank clocks, HBM bytes

What emulation shows: functional semantics as we read the manual. No timing, no silicon.
Needs numpy (and torch for the driver), PyYAML; hipcc and clang++ for building kernels.
"""
