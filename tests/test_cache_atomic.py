"""Cached compiler outputs are never read partial (adv13): rocflash.emu's gfx906 assembly cache and rocflash.isa's
build directories. CPU only: the compiler is a stand-in that writes its output in two halves.

A partial file is what a reader sees when the output appears under its final name before it is complete: the
compiler writing a name the readers take for an output (rocflash.isa.audit_directory reads every ``*.s`` of a
build directory, so ``x.<key>.<pid>.tmp.s`` was read mid-compile, and a killed compile's leftover for good), or a
move from the system temp directory that crosses file systems (shutil.move then copies into place: the cached
``.s`` exists, partial, while the copy runs, and after a kill).
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest

FULL = "\t.text\n" + "\ts_nop 0\n" * 4000


def _two_half_compiler(seen: list, readers):
    """A subprocess.run stand-in: writes half of FULL to the -o path, lets ``readers`` look, writes the rest."""
    def run(cmd, **kw):
        out = Path(cmd[cmd.index("-o") + 1])
        out.write_text(FULL[: len(FULL) // 2])
        seen.append(readers())
        with out.open("a") as f:
            f.write(FULL[len(FULL) // 2:])
        return subprocess.CompletedProcess(cmd, 0, "", "")
    return run


def test_emu_asm_cache_never_holds_a_partial_file(tmp_path, monkeypatch):
    from rocflash.emu import build

    monkeypatch.setenv("ROCFLASH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "device_compile_flags", lambda *a: ("clang-standin", ["-O3"]))
    monkeypatch.setattr(build, "generated_dir", lambda: tmp_path / "gen")
    monkeypatch.setattr(build, "_headers_hash", lambda: "headers")
    asm_dir = tmp_path / "cache" / "emu" / build.ARCH
    seen: list = []
    monkeypatch.setattr(subprocess, "run", _two_half_compiler(
        seen, lambda: {f.name: f.read_text() for f in asm_dir.glob("*.s")}))
    # the system temp directory on another file system: a rename out of it fails with EXDEV, and the copy that
    # shutil.move falls back to is killed half way
    real_rename = os.rename

    def rename(src, dst, *a, **kw):
        if Path(src).resolve().parent != Path(dst).resolve().parent:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(src, dst, *a, **kw)

    def killed_copy(src, dst, *a, **kw):
        Path(dst).write_text(Path(src).read_text()[:100])
        raise OSError("killed mid-copy")

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(shutil, "copyfile", killed_copy)
    try:
        path = build.compile_asm("k_standin", "// source\n")
    except OSError:
        path = None
    for name, text in [*(kv for s in seen for kv in s.items()),
                       *((f.name, f.read_text()) for f in asm_dir.glob("*.s"))]:
        assert text == FULL, f"{name}: a partial assembly file under a name the cache reads"
    assert path is not None and path.read_text() == FULL
    assert [f.name for f in asm_dir.iterdir()] == [path.name], "a temporary was left behind"


@pytest.mark.parametrize("which", ["isa", "ck"])
def test_isa_build_dir_never_shows_a_partial_output(tmp_path, monkeypatch, which):
    """audit_directory, run while a compile writes into the same build directory, reads no partial file."""
    from rocflash.isa import audit, ck, compile as isa_compile

    src = tmp_path / "inst.hip"
    src.write_text("// instance\n")
    build_dir = tmp_path / "build"
    seen: list = []
    readers = lambda: [f.name for f in build_dir.rglob("*")  # noqa: E731
                       if f.is_file() and f.read_text() != FULL and _audited(audit, f)]
    monkeypatch.setattr(subprocess, "run", _two_half_compiler(seen, readers))
    if which == "isa":
        monkeypatch.setattr(isa_compile, "compile_command",
                            lambda arch, source, out, inc: (["clang-standin", str(source), "-o", str(out)], {}))
        isa_compile.compile_for_audit("gfx906", src, build_dir)
    else:
        tc = ck.CkToolchain("clang-standin", tmp_path, tmp_path, tmp_path)
        monkeypatch.setattr(ck.CkToolchain, "flags", lambda self, arch: ["-O3"])
        monkeypatch.setattr("rocflash.ck.source.AITER_SHA256", "0" * 64, raising=False)
        ck.compile_ck(tc, "gfx942", src, build_dir)
    assert seen == [[]], f"files audit_directory would read while the compile wrote them: {seen}"


def _audited(audit, f: Path) -> bool:
    """Whether audit_directory would read f (its own file filter, through the public function)."""
    calls = []
    orig = audit.audit_compiled_file
    audit.audit_compiled_file = lambda p, *a, **kw: calls.append(Path(p)) or []
    try:
        audit.audit_directory(f.parent)
    finally:
        audit.audit_compiled_file = orig
    return f in calls
