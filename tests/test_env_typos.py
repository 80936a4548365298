"""A mistyped ``ROCFLASH_*`` variable is reported, not ignored (newuser10): ``ROCFLASH_BACKEN=sim`` or
``ROCFLASH_KERNELS=vector`` ran on the default backend / tile math with no notice. rocflash.envvars warns once per
name and process, with the closest known name, when the switches are first checked for an environment; and every
``ROCFLASH_*`` name the package, its build, tools, tests and CI scripts read is known to it, so the warning never
fires for a real variable. Fast (CPU, torch backend, tiny shapes)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
import torch

import rocflash
from rocflash import envvars

ROOT = Path(__file__).resolve().parent.parent
# how the tree reads a variable: Python (os.environ / getenv / monkeypatch / find_tool), C++ (std::getenv), shell
_PY = re.compile(r"""(?:environ(?:\.get)?\(|environ\[|getenv\(|setenv\(|delenv\(|environ\.setdefault\(|"""
                 r"""environ\.pop\(|find_tool\()\s*f?["'](ROCFLASH_\w+)""")
_SH = re.compile(r"\$\{?(ROCFLASH_\w+)|(?:^|\s)(ROCFLASH_\w+)=")


def _names_read_by_the_tree() -> dict[str, str]:
    found: dict[str, str] = {}
    for sub in ("rocflash", "tests", "ci", ".ci", "perf", "hip_src"):
        for f in (ROOT / sub).rglob("*"):
            if not f.is_file() or f.suffix not in (".py", ".sh", ".h", ".hip", ".cpp", "") or f.name == Path(__file__).name:
                continue
            text = f.read_text(errors="replace")
            for m in _PY.finditer(text):
                found.setdefault(m.group(1), str(f.relative_to(ROOT)))
            if f.suffix in (".sh", ""):
                for m in _SH.finditer(text):
                    found.setdefault(m.group(1) or m.group(2), str(f.relative_to(ROOT)))
    for m in _PY.finditer((ROOT / "setup.py").read_text()):
        found.setdefault(m.group(1), "setup.py")
    return found


def test_every_variable_the_tree_reads_is_known():
    found = _names_read_by_the_tree()
    assert {"ROCFLASH_KERNEL", "ROCFLASH_BUILD", "ROCFLASH_CLANG", "ROCFLASH_BWD_LEAN", "ROCFLASH_FUZZ_EXAMPLES"} <= set(found)
    unknown = {n: f for n, f in found.items() if n in envvars.unknown_names({n: ""})}
    assert not unknown, f"add these to rocflash.envvars (SWITCHES or OTHER_NAMES): {unknown}"


def _call():
    q = torch.randn(1, 4, 1, 8)
    return rocflash.flash_attn_func(q, q, q, backend="torch")


@pytest.mark.parametrize("typo,suggestion", [("ROCFLASH_BACKEN", "ROCFLASH_BACKEND"),
                                             ("ROCFLASH_KERNELS", "ROCFLASH_KERNEL"),
                                             ("ROCFLASH_INDEX_CHECK", "ROCFLASH_INDEX_CHECKS"),
                                             ("ROCFLASH_SPLITKV_INFLIGT", "ROCFLASH_SPLITKV_INFLIGHT")])
def test_typo_warns_once_with_the_closest_name(monkeypatch, typo, suggestion):
    monkeypatch.setattr(envvars, "_WARNED", set())
    monkeypatch.setattr(envvars, "_CHECKED", {})
    monkeypatch.setenv(typo, "1")
    with pytest.warns(UserWarning, match=rf"^{typo} is set, but rocflash reads no variable of that name \(it has no "
                                         rf"effect\): did you mean {suggestion}\?"):
        _call()
    envvars._CHECKED.clear()  # a new environment check: still one warning per name and process
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _call()


def test_unknown_name_without_a_close_match_lists_the_switches(monkeypatch):
    monkeypatch.setattr(envvars, "_WARNED", set())
    monkeypatch.setattr(envvars, "_CHECKED", {})
    monkeypatch.setenv("ROCFLASH_ZZZ", "1")
    with pytest.warns(UserWarning, match=r"^ROCFLASH_ZZZ is set, .*: the run-time switches are ROCFLASH_BACKEND, "
                                         r"ROCFLASH_KERNEL, "):
        _call()


def test_known_and_removed_names_do_not_warn(monkeypatch):
    monkeypatch.setattr(envvars, "_WARNED", set())
    monkeypatch.setattr(envvars, "_CHECKED", {})
    for name in sorted(envvars.OTHER_NAMES - {"ROCFLASH_BACKEND", "ROCFLASH_JOBS", "ROCFLASH_BUILD"}):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("ROCFLASH_KERNEL", "vector")
    monkeypatch.setenv("ROCFLASH_SPLITKV_BULK", "")  # removed: raises when set to a value, never warns
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _call()
    assert envvars.unknown_names({"ROCFLASH_KERNEL": "", "PATH": "", "ROCFLASH_KERNAL": ""}) == ["ROCFLASH_KERNAL"]
