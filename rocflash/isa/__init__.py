"""ISA audit of the kernels: resource use, instruction selection and LDS layout, read from compiler output (no
GPU needed). ``python -m rocflash.isa --help`` for the command line.

The parts (one module each; this package re-exports their public names, so ``rocflash.isa.X`` works):

    rocflash.targets       the arch table (ArchInfo per gfx9 / NVIDIA target), shared with the build
    rocflash.isa.kinds     what is audited: kernel kinds, default archs, load-path selection
    rocflash.isa.compile   the compile step: compilers per arch, flags, the content-addressed cache
    rocflash.isa.asm       the assembly parser: metadata, decoded ``Instruction`` records, instruction classes
    rocflash.isa.loops     control-flow graph, loop nesting forest, main-loop detection
    rocflash.isa.ptxas     ptxas -v reports (NVIDIA)
    rocflash.isa.audit     one kernel's audit (``KernelAudit``): resources, occupancy, tile, LDS bank conflicts
    rocflash.isa.checks    the invariants (each returns its violations)
    rocflash.isa.run       the full run: generate, compile in parallel, audit (``run_audit``)
    rocflash.isa.report    text / markdown tables, findings, the markdown report
    rocflash.isa.cli       ``python -m rocflash.isa``

What this cannot show: timing (latency, issue rate, achieved bandwidth) and correctness on silicon.

Imports neither torch nor numpy (``import rocflash`` does not import torch either until an API function is
used). Besides the compilers it needs PyYAML (metadata) and networkx (control-flow graph),
``pip install pyyaml networkx``, or ``pip install --no-build-isolation ".[audit]"`` from the checkout, plus
the host C++ compiler for the probe.
"""

from ..targets import ARCHS, GFX9_WAVE_SIZE, NVIDIA_WARP_SIZE, ArchInfo, arch_info
from .asm import (COUNTERS, Instruction, count_instructions, demangle, kernel_instructions, llvm_loop_headers,
                  parse_amdgpu_metadata)
from .audit import (KernelAudit, audit_asm, audit_compiled_file, audit_directory, audit_file, audit_ptxas,
                    lds_conflict_degree, occupancy_amd, parse_preprocess_symbol, parse_tile_symbol,
                    tile_bank_conflicts)
from .checks import (all_checks, check_bank_conflicts, check_lds_limit, check_narrow_path, check_no_spills,
                     check_occupancy, check_sbcast, check_score_precision, check_vector_path, check_wave_size,
                     config_source,
                     configs_by_key)
from .cli import main
from .compile import (DEVICE_LIBS, HIPCC_ARCHS, ISA_VERSION_BITCODE, CompiledFile, compile_command,
                      compile_for_audit, compiler_versions, default_build_dir, find_clang_for, find_device_libs,
                      hip_include_dir, require_python_deps)
from .kinds import (AMD_AUDIT_ARCHS, API_SOURCE, AUDIT_KINDS, CONFLICT_FREE_READS, DEFAULT_ARCHS, MAIN_LOOP_DEPTH,
                    KIND_KERNEL, NARROW_ARCHS, NVIDIA_AUDIT_ARCHS, PATH_CHOICES, PREPROCESS_KIND, TILED_KINDS,
                    UNSYNCED_MAIN_LOOP, audits_path)
from .loops import MAIN_LOOP_SHARE, Loop, control_flow_graph, find_loops, find_main_loop, product_positions
from .ptxas import parse_ptxas
from .report import findings, format_markdown, format_markdown_tables, format_text, table_rows
from .run import AuditRun, CompileJob, run_audit
