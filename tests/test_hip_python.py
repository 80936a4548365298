"""The hip-python path of `rocflash info`'s device probe (issue 8 item 11): the real hip-python (CI pins the
release that loads Debian's HIP 5.2 libamdhip64, ci/requirements-test.txt) with no GPU reports "no device";
fakes of hip-python cover a device, a HIP 5 runtime without hipGetDevicePropertiesR0600, a missing runtime
library and a broken install: reported, never raised."""

from __future__ import annotations

import enum
import importlib
import os
import subprocess
import sys
import types

import pytest
import torch

from conftest import require_builds

info_mod = importlib.import_module("rocflash.info")  # rocflash.info is also the function


def _real_hip_python():
    try:
        from hip import hip  # noqa: F401
    except ImportError as e:
        if "hip" in require_builds():  # CI installs it with the HIP toolchain
            pytest.fail(f"ROCFLASH_REQUIRE_BUILDS has hip, but hip-python is not importable: {e}")
        pytest.skip(f"hip-python not installed: {e}")


def test_real_hip_python_without_gpu_reports_no_device():
    _real_hip_python()
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    report = info_mod.hip_python_probe()
    assert report["installed"] and report["version"]
    assert report["devices"] == []
    if report["runtime_version"] is None:  # no libamdhip64 on this machine: said, not raised
        assert report["says"].startswith("HIP runtime unusable"), report
    else:
        assert report["says"] == "no device (hipErrorNoDevice)", report


def test_real_info_cli_shows_hip_python():
    _real_hip_python()
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: info reads devices through torch")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "-m", "rocflash", "info"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("hip-python: "))
    assert line.endswith("no device (hipErrorNoDevice)") or "HIP runtime unusable" in line, line


# ------------------------------------------------------------------------------------------------ fakes
class Err(enum.IntEnum):
    hipSuccess = 0
    hipErrorInvalidDevice = 101
    hipErrorNoDevice = 100


class Attr(enum.IntEnum):
    hipDeviceAttributeMultiprocessorCount = 63
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74
    hipDeviceAttributeWarpSize = 87
    hipDeviceAttributeMaxSharedMemoryPerMultiprocessor = 10002


def fake_hip(n_devices=0, hip6_props=True, runtime_missing=False):
    """A stand-in for hip-python's ``hip.hip`` module (the calls rocflash.info makes)."""
    ok = Err.hipSuccess
    hip = types.SimpleNamespace(hipError_t=Err, hipDeviceAttribute_t=Attr)

    def runtime(fn):
        def call(*a):
            if runtime_missing:  # what hip-python raises when it cannot dlopen libamdhip64.so
                raise RuntimeError("failed to dlopen b'libamdhip64.so'")
            return fn(*a)
        return call

    hip.hipRuntimeGetVersion = runtime(lambda: (ok, 50221153))
    hip.hipGetDeviceCount = runtime(lambda: (ok, n_devices) if n_devices else (Err.hipErrorNoDevice, 0))

    class Props:
        name, gcnArchName = b"AMD Instinct MI50", b"gfx906:sramecc+:xnack-"
        warpSize, sharedMemPerBlock, maxSharedMemoryPerMultiProcessor = 64, 65536, 65536
        multiProcessorCount, totalGlobalMem = 60, 32 << 30

    hip.hipDeviceProp_t = Props

    def get_props(props, i):
        if not hip6_props:
            raise RuntimeError("failed to dlsym 'b'hipGetDevicePropertiesR0600'': undefined symbol")
        return (ok if i < n_devices else Err.hipErrorInvalidDevice,)

    hip.hipGetDeviceProperties = get_props
    hip.hipDeviceGetName = lambda length, i: (ok, b"AMD Instinct MI50\0\0")
    attrs = {Attr.hipDeviceAttributeWarpSize: 64, Attr.hipDeviceAttributeMaxSharedMemoryPerBlock: 65536,
             Attr.hipDeviceAttributeMaxSharedMemoryPerMultiprocessor: 65536,
             Attr.hipDeviceAttributeMultiprocessorCount: 60}
    hip.hipDeviceGetAttribute = lambda attr, i: (ok, attrs[attr])
    return hip


@pytest.fixture
def install(monkeypatch):
    def put(hip=None, import_error=None):
        pkg = types.ModuleType("hip")
        if import_error is not None:
            def getattr_(name):
                raise import_error
            pkg.__getattr__ = getattr_
        else:
            pkg.hip = hip
        monkeypatch.setitem(sys.modules, "hip", pkg)
        monkeypatch.delitem(sys.modules, "hip.hip", raising=False)
    return put


def test_fake_no_device(install):
    install(fake_hip(0))
    r = info_mod.hip_python_probe()
    assert r["installed"] and r["devices"] == [] and r["says"] == "no device (hipErrorNoDevice)"
    assert r["runtime_version"] == "5.2.21153"


def test_fake_device_hip6(install):
    install(fake_hip(1))
    r = info_mod.hip_python_probe()
    assert r["says"] is None and len(r["devices"]) == 1
    d = r["devices"][0]
    assert (d["name"], d["arch"], d["wave_size"], d["multiprocessors"]) == ("AMD Instinct MI50",
                                                                          "gfx906:sramecc+:xnack-", 64, 60)
    assert d["source"] == "hip-python"


def test_fake_device_hip5_runtime_falls_back_to_attributes(install):
    install(fake_hip(1, hip6_props=False))
    d = info_mod.hip_python_probe()["devices"][0]
    assert d["source"] == "hip-python (attributes)" and d["name"] == "AMD Instinct MI50" and d["arch"] is None
    assert (d["wave_size"], d["lds_per_block"], d["multiprocessors"]) == (64, 65536, 60)
    assert "hipGetDevicePropertiesR0600" in d["note"]


def test_fake_runtime_library_missing(install):
    install(fake_hip(runtime_missing=True))
    r = info_mod.hip_python_probe()
    assert r["installed"] and r["devices"] == [] and r["says"].startswith("HIP runtime unusable: RuntimeError")


def test_broken_install_and_absent(install):
    install(import_error=OSError("libamdhip64.so: cannot open shared object file"))
    r = info_mod.hip_python_probe()
    assert r["installed"] and r["says"].startswith("import failed: OSError")
    install(import_error=ImportError("No module named 'hip.hip'"))
    r = info_mod.hip_python_probe()
    assert not r["installed"] and r["says"].startswith("not installed")


def test_info_prints_hip_python_line(install, monkeypatch, capsys):
    """`rocflash info` with no GPU anywhere: the hip-python line says "no device" and the report is complete."""
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: info reads devices through torch")
    install(fake_hip(0))
    monkeypatch.setattr(info_mod, "_module_devices", lambda platform: ([], "no device"))
    report = info_mod.info()
    out = capsys.readouterr().out
    assert "HIP runtime 5.2.21153: no device (hipErrorNoDevice)" in out
    assert report["devices"] == [] and report["hip_python"]["says"] == "no device (hipErrorNoDevice)"
