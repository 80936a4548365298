"""What a new user following the README sees on a CPU-only machine: the emulator's coverage report over a
directory with a rejected operand, `rocflash info` run from the source tree, the cache directory of every
part of the package. Fast (no compiler, no GPU)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import rocflash
from rocflash import build, selector

info_mod = importlib.import_module("rocflash.info")  # rocflash.info is also the function

# Two kernels: k_ok adds with plain operands; k_bad calls a function through a relocation, as a device-side
# assert does (`s_getpc_b64; s_add_u32 s4, s4, __assert_fail@rel32@lo+4; ...`).
_ASM = """\
\t.text
\t.globl\tk_ok
k_ok:
\ts_add_u32 s0, s0, 4
\ts_addc_u32 s1, s1, 0
\ts_endpgm
.Lfunc_end0:
\t.globl\tk_bad
k_bad:
\ts_add_u32 s4, s4, __assert_fail@rel32@lo+4
\ts_addc_u32 s5, s5, __assert_fail@rel32@hi+12
\ts_endpgm
.Lfunc_end1:
\t.amdhsa_kernel k_ok
\t.end_amdhsa_kernel
\t.amdhsa_kernel k_bad
\t.end_amdhsa_kernel
"""


def _coverage(tmp_path: Path, text: str, capsys) -> tuple[int, str, str]:
    from rocflash.emu.__main__ import main

    (tmp_path / "kernels.s").write_text(text)
    rc = main(["coverage", "--from-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    return rc, out, err


def _row(out: str, mnemonic: str) -> str:
    return next(ln for ln in out.splitlines() if ln.split()[:1] == [mnemonic])


def test_emu_coverage_names_the_kernel_of_a_rejected_operand(tmp_path, capsys):
    """One kernel's relocation operand does not make s_add_u32 'not implemented' for every kernel: the report
    counts the rejection under that kernel, names the operand, and exits 1 for it (naming the kernel)."""
    rc, out, err = _coverage(tmp_path, _ASM, capsys)
    assert rc == 1
    assert _row(out, "s_add_u32").endswith("yes") and _row(out, "s_addc_u32").endswith("yes")
    assert "3/3 distinct mnemonics implemented over 2 kernels" in out
    assert "2 instruction(s) in 1 kernel(s)" in out
    assert "k_bad (kernels.s):" in out and "'__assert_fail@rel32@lo+4'" in out
    assert "kernel k_bad" in err and "__assert_fail@rel32@hi+12" in err and "k_ok" not in err


def test_emu_coverage_exit_status(tmp_path, capsys):
    """0 when every kernel decodes; 1 naming the mnemonic and its kernel when one is not implemented."""
    ok = _ASM.split(".Lfunc_end0:")[0] + ".Lfunc_end0:\n\t.amdhsa_kernel k_ok\n\t.end_amdhsa_kernel\n"
    rc, out, err = _coverage(tmp_path, ok, capsys)
    assert (rc, err) == (0, "") and "3/3 distinct mnemonics implemented over 1 kernels" in out
    rc, out, err = _coverage(tmp_path, ok.replace("s_addc_u32 s1, s1, 0", "s_getpc_b64 s[4:5]"), capsys)
    assert rc == 1 and _row(out, "s_getpc_b64").endswith("NO")
    assert "s_getpc_b64 is not implemented (used by 1 kernel(s): k_ok)" in err


# ------------------------------------------------------------------- rocflash info from the source tree
def _tree(root: Path, setup: bool = True) -> Path:
    pkg = root / "rocflash"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    if setup:
        (root / "setup.py").write_text("")
    return pkg


def test_source_tree_note_names_the_installed_copy(tmp_path):
    """A checkout (setup.py, no build record) imported while an installed copy exists: 'run from outside'."""
    src = _tree(tmp_path / "src")
    (tmp_path / "src" / "rocflash.egg-info").mkdir()  # what an in-tree pip build leaves: points back to src
    (tmp_path / "src" / "rocflash.egg-info" / "PKG-INFO").write_text("Name: rocflash\nVersion: 0.1.0\n")
    site = _tree(tmp_path / "site", setup=False)
    dist = tmp_path / "site" / "rocflash-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: rocflash\nVersion: 0.1.0\n")
    (site / "_C_hip.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")  # an installed copy with kernels
    note = build.source_tree_note(src, [str(tmp_path / "src"), str(tmp_path / "site")])
    assert note is not None and "run from outside the source tree" in note and str(site.resolve()) in note
    # no installed copy: install first; an installed package (build record, no setup.py) or a directory
    # without setup.py: nothing to say
    assert "no installed copy was found" in build.source_tree_note(src, [str(tmp_path / "src")])
    (site / build.BUILD_INFO_FILE).write_text("{}")
    assert build.source_tree_note(site, [str(tmp_path / "site")]) is None
    assert build.source_tree_note(_tree(tmp_path / "bare", setup=False), [str(tmp_path)]) is None


def test_installed_package_is_not_a_source_tree():
    """The tests import the installed package (tests/conftest.py): no false 'source tree' note."""
    assert build.source_tree_note() is None


def test_info_from_source_tree_says_run_elsewhere_not_rebuild(monkeypatch, capsys):
    monkeypatch.setattr(info_mod, "load_module", lambda platform: None)
    monkeypatch.setattr(info_mod, "load_build_info", lambda: None)
    monkeypatch.setattr(info_mod, "source_tree_note", lambda: "imported from its source tree X: run from outside")
    report = rocflash.info()
    out = capsys.readouterr().out
    assert "run from outside" in report["no_kernels"] and "Rebuild" not in report["no_kernels"]
    assert "run from outside" in out
    # the first GPU call's error says the same (selector.not_built_message)
    monkeypatch.setattr(selector, "load_build_info", lambda: None)
    monkeypatch.setattr(selector, "source_tree_note", lambda: "imported from its source tree X: run from outside")
    assert "run from outside" in selector.not_built_message("hip")


# ------------------------------------------------------------------- one cache directory
@pytest.mark.parametrize("env, expect", [
    ({"ROCFLASH_CACHE_DIR": "own"}, "own"),
    ({"XDG_CACHE_HOME": "xdg"}, "xdg/rocflash"),
    ({}, "home/.cache/rocflash"),
])
def test_every_cache_dir_follows_one_rule(tmp_path, monkeypatch, env, expect):
    """The emulator's, the ISA audit's and the probe's caches honour ROCFLASH_CACHE_DIR, then XDG_CACHE_HOME."""
    from rocflash._probe import cache_dir
    from rocflash.emu.build import cache_dir as emu_cache_dir
    from rocflash.isa.compile import default_build_dir

    for var in ("ROCFLASH_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    for var, val in env.items():
        monkeypatch.setenv(var, str(tmp_path / val))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / expect
    assert cache_dir() == root
    assert emu_cache_dir() == root / "emu" and (root / "emu").is_dir()
    assert default_build_dir() == root / "isa"


# ------------------------------------------------------------------- python -m rocflash.ck.build, wrong compiler
def _fake_compiler(tmp_path: Path, rc: int) -> str:
    script = tmp_path / "hipcc"
    script.write_text("#!/bin/sh\necho \"clang: error: unknown argument: '-fno-offload-uniform-block'\" >&2\n"
                      "echo \"clang: error: invalid target ID 'gfx942'; format is a processor name\" >&2\n"
                      f"exit {rc}\n" if rc else "#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    return str(script)


def test_ck_build_stops_on_a_compiler_that_cannot_build_ck(tmp_path, monkeypatch, capsys):
    """Debian's hipcc: one clear error naming the compiler and what to use, before CK is fetched or compiled."""
    from rocflash.ck import build as ck_build

    monkeypatch.setenv("HIPCC", _fake_compiler(tmp_path, 1))
    monkeypatch.setattr(ck_build, "fetch", lambda: pytest.fail("must not fetch CK with a failing compiler"))
    assert ck_build.main(["--arch", "gfx942", "--out", str(tmp_path / "m.so")]) == 1
    err = capsys.readouterr().err
    assert f"the compiler {tmp_path / 'hipcc'} cannot build CK for gfx942" in err
    assert "unknown argument: '-fno-offload-uniform-block'" in err and "ROCm's hipcc" in err
    assert "HIPCC=ci/ck_hipcc_standin.sh" in err and err.count("\n") == 1  # one line, no per-source clang dump


def test_ck_build_probe_passes_a_working_compiler(tmp_path, monkeypatch):
    """A compiler that accepts the flags gets past the probe (to the CK source, stubbed here)."""
    from rocflash.ck import build as ck_build
    from rocflash.ck.source import CkSourceError

    monkeypatch.setenv("HIPCC", _fake_compiler(tmp_path, 0))
    monkeypatch.setattr(ck_build, "fetch", lambda: (_ for _ in ()).throw(CkSourceError("stub: reached fetch")))
    with pytest.raises(build.BuildError, match="stub: reached fetch"):
        ck_build.build_ck_module(["gfx942"], tmp_path / "m.so", tmp_path)
    with pytest.raises(build.BuildError, match="none of .* has CK instances"):
        ck_build.build_ck_module(["gfx906"], tmp_path / "m.so", tmp_path)


# ------------------------------------------------------------------- new-user trial 6 (issue 8, items 12-19)
def test_source_tree_note_only_when_the_installed_copy_has_kernels(tmp_path):
    """12: leaving the source tree helps only when the installed copy it shadows has a compiled module; a
    CPU-only install (no _C_* file) gets None, so info says 'built without GPU kernels' and how to rebuild."""
    src = _tree(tmp_path / "src")
    site = _tree(tmp_path / "site", setup=False)
    dist = tmp_path / "site" / "rocflash-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: rocflash\nVersion: 0.1.0\n")
    path = [str(tmp_path / "src"), str(tmp_path / "site")]
    assert build.source_tree_note(src, path) is None
    (site / "_C_cuda.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    note = build.source_tree_note(src, path)
    assert note is not None and "shadows the installed copy" in note and "run from outside" in note
    # a CPU-only copy earlier on the path (a venv over the system's site-packages) is the one found outside
    # the tree: leaving would not help, whatever copy with kernels comes later
    venv = _tree(tmp_path / "venv", setup=False)
    (tmp_path / "venv" / "rocflash-0.1.0.dist-info").mkdir()
    (tmp_path / "venv" / "rocflash-0.1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: rocflash\nVersion: 0.1.0\n")
    assert venv.is_dir() and build.source_tree_note(src, [str(tmp_path / "src"), str(tmp_path / "venv"),
                                                          str(tmp_path / "site")]) is None


def test_info_from_source_tree_with_cpu_only_install_says_rebuild(monkeypatch, capsys):
    monkeypatch.setattr(info_mod, "load_module", lambda platform: None)
    monkeypatch.setattr(info_mod, "load_build_info", lambda: None)
    monkeypatch.setattr(info_mod, "source_tree_note", lambda: None)  # what the CPU-only installed copy gives
    report = rocflash.info()
    assert report["no_kernels"].startswith("built without GPU kernels") and "Rebuild: " in report["no_kernels"]
    assert "shadows" not in capsys.readouterr().out


@pytest.mark.parametrize("platform,raw,text", [("hip", 50221153, "5.2.21153"), ("hip", 60342134, "6.3.42134"),
                                               ("cuda", 12080, "12.8"), ("cuda", 13000, "13.0")])
def test_runtime_version_is_printed_as_a_version(platform, raw, text):
    """19: the compiled module's runtime version as hip-python's line prints it, not a raw integer."""
    assert info_mod.runtime_version_text(platform, raw) == text


def _bert_like_dropout_call(call):
    import torch

    q = torch.randn(1, 8, 2, 16)
    if call == "flash_attn_func":
        return rocflash.flash_attn_func(q, q, q, dropout_p=0.1, backend="torch")
    if call == "varlen":
        cu = torch.tensor([0, 8], dtype=torch.int32)
        return rocflash.flash_attn_varlen_func(q[0], q[0], q[0], cu, cu, 8, 8, dropout_p=0.1, backend="sim")
    if call == "transformers":
        from rocflash.integrations import transformers as rf_tf

        class Attn(torch.nn.Module):
            is_causal = False
        qt = q.transpose(1, 2)
        return rf_tf.attention_forward(Attn(), qt, qt, qt, None, dropout=0.1, backend="torch")
    from rocflash.ck import args as ck_args
    return ck_args.check_supported(dropout_p=0.1)


@pytest.mark.parametrize("call", ["flash_attn_func", "varlen", "transformers", "ck"])
def test_dropout_error_says_what_to_do(call):
    """13: every place dropout_p > 0 is rejected says the same, with the way out (a BERT in train mode)."""
    with pytest.raises(NotImplementedError) as e:
        _bert_like_dropout_call(call)
    msg = str(e.value)
    assert msg.startswith("dropout_p > 0 is not implemented") and "got 0.1" in msg, msg
    assert "attention_probs_dropout_prob" in msg and "attention_dropout" in msg and "model.eval()" in msg, msg


@pytest.mark.parametrize("name", ["ROCFLASH_KERNEL", "ROCFLASH_INDEX_CHECKS", "ROCFLASH_POISON_OUTPUTS",
                                  "ROCFLASH_SPLITKV_FUSED_COMBINE", "ROCFLASH_SPLITKV_PDL",
                                  "ROCFLASH_SPLITKV_SPLITS", "ROCFLASH_SPLITKV_INFLIGHT",
                                  "ROCFLASH_SPLITKV_LAZY_RESCALE", "ROCFLASH_BWD_DQ_WGMMA",
                                  "ROCFLASH_BWD_DQ_TILE", "ROCFLASH_BWD_LEAN"])
@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_bad_env_switch_raises_on_cpu_backends(monkeypatch, name, backend):
    """14: a typo in any run-time switch raises (variable, accepted values, value) on the CPU backends too,
    not only where a compiled kernel acts on it."""
    import torch

    from rocflash import envvars

    accepted, _ = envvars.SWITCHES[name]
    monkeypatch.setenv(name, "bogus")
    q = torch.randn(1, 4, 1, 8)
    with pytest.raises(ValueError, match=rf"^{name} must be one of {', '.join(accepted)}, got 'bogus'"):
        rocflash.flash_attn_func(q, q, q, backend=backend)
    # every value valid on some platform is accepted silently where it means nothing (no compiled kernel)
    for value in accepted:
        monkeypatch.setenv(name, value.upper())
        assert torch.isfinite(rocflash.flash_attn_func(q, q, q, backend=backend)).all()


@pytest.mark.parametrize("name", ["ROCFLASH_SPLITKV_L2_PREFETCH", "ROCFLASH_SPLITKV_K_FIRST", "ROCFLASH_SPLITKV_BULK",
                                  "ROCFLASH_SPLITKV_LOCKSTEP", "ROCFLASH_BWD_SDP_WGMMA"])
def test_removed_switch_raises_instead_of_being_ignored(monkeypatch, name):
    """newuser9: dec9 removed these split-KV switches with their kernels (tc80 ROCFLASH_BWD_SDP_WGMMA); a script still setting one got no notice
    (the variable was ignored). Set to a value, each raises ValueError saying it was removed, on every backend,
    before any work (selector.select_backend); unset or empty is fine."""
    import torch

    from rocflash import envvars

    q = torch.randn(1, 4, 1, 8)
    assert name in envvars.REMOVED_SWITCHES and name not in envvars.SWITCHES
    for value in ("", "  "):
        monkeypatch.setenv(name, value)
        assert torch.isfinite(rocflash.flash_attn_func(q, q, q, backend="torch")).all()
    monkeypatch.setenv(name, "1")
    for backend in ("torch", "sim", None):
        with pytest.raises(ValueError, match=rf"^{name} was removed \((dec9|tc80): .*\) and has no effect: unset it, got '1'"):
            rocflash.flash_attn_func(q, q, q, backend=backend)
    kc = torch.randn(1, 16, 1, 8)
    with pytest.raises(ValueError, match=rf"^{name} was removed"):
        rocflash.flash_attn_with_kvcache(q[:, :1], kc, kc, cache_seqlens=4)
    with pytest.raises(ValueError, match=rf"^{name} was removed"):
        envvars.check_switches()
    monkeypatch.delenv(name)
    envvars.check_switches()


def test_kernel_switch_reads_are_checked_switches():
    """Every switch the compiled kernels' launchers read themselves (std::getenv in hip_src/, e.g. the tensor-core
    backward's ROCFLASH_BWD_DQ_WGMMA / _DQ_TILE) is a checked run-time switch (envvars.SWITCHES), and the
    values the launcher acts on ('1', '2': the characters it compares) are among the accepted ones: a typo raises
    ValueError before any launch instead of silently running the default kernel."""
    import re
    from pathlib import Path

    from rocflash import envvars
    from rocflash.configs import hip_src_dir

    reads = {}
    for path in Path(hip_src_dir()).glob("*.h"):
        text = path.read_text()
        for m in re.finditer(r'std::getenv\("(ROCFLASH_\w+)"\)', text):
            body = text[m.end():text.find("\n}", m.end())]  # the reading function's rest
            reads[m.group(1)] = set(re.findall(r"env\[0\] [!=]= '(\w)'", body))
    assert {"ROCFLASH_BWD_DQ_WGMMA", "ROCFLASH_BWD_DQ_TILE", "ROCFLASH_BWD_LEAN"} <= set(reads), sorted(reads)
    for name, values in reads.items():
        assert name in envvars.SWITCHES, f"{name} is read by a launcher but not checked (rocflash/envvars.py)"
        accepted = set(envvars.SWITCHES[name][0])
        assert values and values <= accepted and "0" in accepted, (name, values, accepted)


def test_switch_snapshot_follows_the_environment(monkeypatch):
    """The run-time switches are checked once per set of values (envvars.snapshot, shared by the selector and the
    compiled backend's switch reads): a variable changed between calls takes effect at the next call, a bad value
    raises at every call (it is never remembered as checked), and unset / empty give the default."""
    from rocflash import envvars, selector
    from rocflash.backends import compiled

    for name in envvars.SWITCHES:
        monkeypatch.delenv(name, raising=False)
    defaults = {name: default for name, (_, default) in envvars.SWITCHES.items()}
    assert envvars.snapshot() == defaults and envvars.check_switches() is None
    assert compiled.kernel_choice() == "auto" and compiled.splitkv_inflight() == 1
    for value in ("mma", "VECTOR", " sbcast ", "", "auto"):
        monkeypatch.setenv("ROCFLASH_KERNEL", value)
        want = value.strip().lower() or "auto"
        assert compiled.kernel_choice() == want and envvars.choice("ROCFLASH_KERNEL") == want
        assert envvars.snapshot() == {**defaults, "ROCFLASH_KERNEL": want}
    monkeypatch.setenv("ROCFLASH_SPLITKV_INFLIGHT", "2")
    assert compiled.splitkv_inflight() == 2
    monkeypatch.setenv("ROCFLASH_SPLITKV_FUSED_COMBINE", "1")
    assert compiled.splitkv_fused_combine() is True
    for _ in range(2):  # the second call finds no cached pass for the bad value
        monkeypatch.setenv("ROCFLASH_POISON_OUTPUTS", "yes")
        for read in (envvars.snapshot, envvars.check_switches, lambda: selector.select_backend("cpu", "torch"),
                     lambda: envvars.choice("ROCFLASH_POISON_OUTPUTS")):
            with pytest.raises(ValueError, match=r"^ROCFLASH_POISON_OUTPUTS must be one of 0, 1, got 'yes'"):
                read()
        assert compiled.kernel_choice() == "auto"  # each switch's own read raises for its own value only
        monkeypatch.setenv("ROCFLASH_POISON_OUTPUTS", "1")
        assert envvars.snapshot()["ROCFLASH_POISON_OUTPUTS"] == "1"
        assert selector.select_backend("cpu", "torch").backend == "torch"


def test_bad_backend_and_jobs_env_name_the_variable(monkeypatch):
    import torch

    from rocflash import envvars

    monkeypatch.setenv("ROCFLASH_BACKEND", "gpu")
    q = torch.randn(1, 4, 1, 8)
    with pytest.raises(ValueError, match=r"ROCFLASH_BACKEND must be one of \('hip', .*\), got 'gpu'"):
        rocflash.flash_attn_func(q, q, q)
    for raw, jobs in (("", None), ("0", None), ("3", 3), (" 2 ", 2)):
        monkeypatch.setenv("ROCFLASH_JOBS", raw)
        assert envvars.jobs() == (jobs or __import__("os").cpu_count() or 1)
    monkeypatch.setenv("ROCFLASH_JOBS", "four")
    with pytest.raises(ValueError, match=r"ROCFLASH_JOBS must be a positive integer, got 'four'"):
        envvars.jobs()
    monkeypatch.setenv("ROCFLASH_CK", "yes")
    with pytest.raises(ValueError, match=r"ROCFLASH_CK must be one of auto, 0, 1, got 'yes'"):
        envvars.choice("ROCFLASH_CK")


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_dtype_message_states_the_enforced_rule(dtype):
    """15: the message's rule is the one enforced: float64 runs on torch and sim, int32 nowhere."""
    import torch

    q = torch.randn(1, 4, 1, 8).to(getattr(torch, dtype))
    for backend in ("torch", "sim"):
        if dtype == "float64":
            assert rocflash.flash_attn_func(q, q, q, backend=backend).dtype == torch.float64
        else:
            with pytest.raises(TypeError, match=r"q.dtype must be float16, bfloat16 or float32 \(float64 also on "
                                                r"the torch and sim backends\), got torch.int32"):
                rocflash.flash_attn_func(q, q, q, backend=backend)


def test_cp_summary_says_torch_cp_is_not_available_on_cpu(tmp_path):
    """16: on CPU the torch context_parallel baseline is 'not available', not 'failed'."""
    import importlib.util
    import json

    path = Path(__file__).resolve().parents[1] / "perf" / "cp_gpu.py"
    spec = importlib.util.spec_from_file_location("cp_gpu", path)
    cp_gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cp_gpu)
    row = {"seqlen": 256, "world": 2, "ring_s": 0.5, "ring_tflops": 0.01, "torch_cp_unavailable": cp_gpu.TORCH_CP_NOT_ON_CPU}
    (tmp_path / "cp.json").write_text(json.dumps({"speed": [row]}))
    out = cp_gpu.summarize([str(tmp_path / "cp.json")])
    assert "not available on CPU (torch context_parallel needs CUDA)" in out and "failed" not in out
    script = (path.parent / "cp_final_run.sh").read_text()  # per-run scratch, never a fixed shared path
    assert "mktemp -d" in script and "rm -rf \"$WORK\"; mkdir" not in script


@pytest.mark.parametrize("name", ["ROCFLASH_BWD_LEAN", "ROCFLASH_BWD_DQ_WGMMA", "ROCFLASH_BWD_DQ_TILE"])
def test_switch_read_by_the_launcher_rejects_padding(monkeypatch, name):
    """newuser9's note: the CUDA launchers read these switches verbatim (std::getenv, exact characters), so " 2"
    passed the stripped Python check and then ran as auto there: an ignored value. Padded values now raise before
    any work, naming the rule; the unpadded value and unset stay accepted."""
    import torch

    from rocflash import envvars

    assert name in envvars.VERBATIM_SWITCHES
    q = torch.randn(1, 4, 1, 8)
    good = "2" if name == "ROCFLASH_BWD_LEAN" else "1"
    for value in (good, ""):
        monkeypatch.setenv(name, value)
        envvars.check_switches()
        assert torch.isfinite(rocflash.flash_attn_func(q, q, q, backend="torch")).all()
    for value in (f" {good}", f"{good} ", f"\t{good}"):
        monkeypatch.setenv(name, value)
        with pytest.raises(ValueError, match="^" + re.escape(f"{name} is read verbatim by the CUDA launcher: no "
                                                             f"surrounding whitespace, got {value!r}")):
            rocflash.flash_attn_func(q, q, q, backend="torch")
    monkeypatch.delenv(name)
    envvars.check_switches()
