"""``rocflash.info()``: device, arch, wave size, LDS, compiled arches, available backends, selection.

Devices are read through torch when it sees a GPU; otherwise through the compiled HIP module's own
runtime calls, or hip-python (``pip install rocflash[hip]``) on a ROCm machine whose torch is a CPU or
CUDA build.
"""

from __future__ import annotations

import sys

import torch

from .backends import NAMES
from .backends.compiled import KERNEL_ENV, kernel_choice, load_module, mma_unavailable, module_error
from .build import load_build_info, rebuild_command, source_tree_note
from .configs import load_configs
from .selector import UnsupportedDeviceError, select_backend


def _torch_devices() -> list[dict]:
    if not torch.cuda.is_available():
        return []
    out = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        hip = bool(torch.version.hip)
        out.append({
            "index": i, "source": "torch", "name": p.name,
            "arch": (getattr(p, "gcnArchName", "") or "") if hip else f"sm_{p.major}{p.minor}",
            "wave_size": getattr(p, "warp_size", None),
            "lds_per_block": getattr(p, "shared_memory_per_block" if hip else "shared_memory_per_block_optin", None),
            "lds_per_multiprocessor": getattr(p, "shared_memory_per_multiprocessor", None),
            "multiprocessors": p.multi_processor_count, "total_memory": p.total_memory,
        })
    return out


def _module_devices(platform: str) -> tuple[list[dict], str | None]:
    mod = load_module(platform)
    if mod is None:
        return [], None
    n, err = mod.device_count()
    if n <= 0:
        return [], err or "no device"
    return [{"index": i, "source": f"rocflash._C_{platform}", **mod.device_info(i)} for i in range(n)], None


HIP_PYTHON_ATTRS = {  # hipDeviceAttribute_t members: the same values in HIP 5.2's header and hip-python 6.2+
    "wave_size": "hipDeviceAttributeWarpSize", "lds_per_block": "hipDeviceAttributeMaxSharedMemoryPerBlock",
    "lds_per_multiprocessor": "hipDeviceAttributeMaxSharedMemoryPerMultiprocessor",
    "multiprocessors": "hipDeviceAttributeMultiprocessorCount",
}


def _text(x) -> str:
    """A C string from hip-python (bytes, CStr or str) as str."""
    if isinstance(x, str):
        return x
    try:
        return bytes(x).split(b"\0")[0].decode(errors="replace")
    except (TypeError, ValueError):
        return str(x)


def _hip_version(v: int) -> str:
    """HIP_VERSION encoding (major * 10^7 + minor * 10^5 + patch) -> "5.2.21153"."""
    return f"{v // 10_000_000}.{v // 100_000 % 100}.{v % 100_000}"


def runtime_version_text(platform: str, v: int) -> str:
    """A compiled module's runtime_version() (hipRuntimeGetVersion: HIP_VERSION; cudaRuntimeGetVersion:
    major * 1000 + minor * 10) as "5.2.21153" / "12.8", the way the hip-python line prints it."""
    if not isinstance(v, int) or v <= 0:
        return str(v)
    return _hip_version(v) if platform == "hip" else f"{v // 1000}.{v % 1000 // 10}"


def _hip_python_device(hip, i: int) -> dict:
    """Device ``i`` through hip-python: hipGetDeviceProperties, else (HIP 5 runtime: hip-python 6.2+ binds the
    HIP 6 symbol hipGetDevicePropertiesR0600, which HIP 5 lacks) hipDeviceGetName and hipDeviceGetAttribute."""
    ok = hip.hipError_t.hipSuccess
    try:
        props = hip.hipDeviceProp_t()
        err = hip.hipGetDeviceProperties(props, i)[0]
        if err != ok:
            raise RuntimeError(f"hipGetDeviceProperties: {err.name}")
        return {"index": i, "source": "hip-python", "name": _text(props.name), "arch": _text(props.gcnArchName),
                "wave_size": props.warpSize, "lds_per_block": props.sharedMemPerBlock,
                "lds_per_multiprocessor": props.maxSharedMemoryPerMultiProcessor,
                "multiprocessors": props.multiProcessorCount, "total_memory": props.totalGlobalMem}
    except Exception as e:  # noqa: BLE001 - a missing symbol (RuntimeError) or an unexpected binding
        dev = {"index": i, "source": "hip-python (attributes)", "name": "?", "arch": None,
               "note": f"device properties unreadable: {str(e)[:160]}"}
    try:
        err, name = hip.hipDeviceGetName(256, i)
        if err == ok:
            dev["name"] = _text(name)
        for key, attr in HIP_PYTHON_ATTRS.items():
            err, value = hip.hipDeviceGetAttribute(getattr(hip.hipDeviceAttribute_t, attr), i)
            if err == ok:
                dev[key] = value
    except Exception:  # noqa: BLE001 - keep what was read
        pass
    return dev


def hip_python_probe() -> dict:
    """The devices hip-python (``pip install rocflash[hip]``) sees. Never raises: no hip-python, no HIP
    runtime library or no device are reported in ``says``.

    Returns {"installed": bool, "version": str | None, "runtime_version": str | None, "devices": [dict],
    "says": str | None}; with no GPU, says is "no device (hipErrorNoDevice)"."""
    report = {"installed": False, "version": None, "runtime_version": None, "devices": [], "says": None}
    try:
        from hip import hip
    except ImportError as e:
        report["says"] = f"not installed ({e})"
        return report
    except Exception as e:  # noqa: BLE001 - a broken install must not break `rocflash info`
        report.update(installed=True, says=f"import failed: {type(e).__name__}: {str(e)[:160]}")
        return report
    report["installed"] = True
    try:
        import importlib.metadata

        report["version"] = importlib.metadata.version("hip-python")
    except Exception:  # noqa: BLE001 - e.g. a source build without metadata
        pass
    try:
        ok = hip.hipError_t.hipSuccess
        err, version = hip.hipRuntimeGetVersion()
        if err == ok:
            report["runtime_version"] = _hip_version(int(version))
        err, n = hip.hipGetDeviceCount()
        if err == hip.hipError_t.hipErrorNoDevice or (err == ok and n == 0):
            report["says"] = "no device (hipErrorNoDevice)"
        elif err != ok:
            report["says"] = f"hipGetDeviceCount failed: {getattr(err, 'name', err)}"
        else:
            report["devices"] = [_hip_python_device(hip, i) for i in range(n)]
    except Exception as e:  # noqa: BLE001 - e.g. libamdhip64.so not found: hip-python loads it at the first call
        report["says"] = f"HIP runtime unusable: {type(e).__name__}: {str(e)[:200]}"
    return report


def collect() -> dict:
    from . import __version__

    report: dict = {
        "rocflash": __version__,
        "torch": torch.__version__,
        "torch_runtime": f"ROCm/HIP {torch.version.hip}" if torch.version.hip else
                         f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU only",
        "backends": {},
    }
    notes = []
    for platform in ("hip", "cuda"):
        mod = load_module(platform)
        entry = {"built": mod is not None}
        if mod is None:
            entry["why_not"] = module_error(platform)
        else:
            n, err = mod.device_count()
            entry.update(compiled_archs=list(mod.compiled_archs()), instances=len(mod.instances()),
                         runtime_version=runtime_version_text(platform, mod.runtime_version()),
                         devices_seen=max(n, 0))
            if n <= 0:
                entry["runtime_says"] = err
        report["backends"][platform] = entry
    from .backends import ck

    ck_mod = ck.load_module()
    report["backends"]["ck"] = ({"built": True, "compiled_archs": list(ck_mod.compiled_archs()),
                                 "instances": len(ck_mod.instances())} if ck_mod is not None else
                                {"built": False, "why_not": ck.module_error()})
    report["backends"]["ck"]["covers"] = ck.COVERS
    report["backends"]["torch"] = {"built": True, "note": "reference through PyTorch ops, any device"}
    report["backends"]["sim"] = {"built": True, "note": "the kernel's tiling simulated with torch"}

    devices = _torch_devices()
    if not devices:
        for platform in ("hip", "cuda"):
            found, err = _module_devices(platform)
            devices += found
        if not devices:
            hp = hip_python_probe()
            report["hip_python"] = hp
            devices = hp["devices"]
        if devices and not torch.cuda.is_available():
            notes.append("torch sees no GPU: tensors stay on the CPU, so the compiled backends cannot be "
                         "called from torch here (install a ROCm/CUDA build of torch)")
    report["devices"] = devices
    record = load_build_info()
    report["build"] = record if record is not None else {"note": "no build record (not an installed copy)"}
    if not any(report["backends"][p]["built"] for p in ("hip", "cuda")):
        why = (record or {}).get("why_none") or "no compiled module is importable"
        shadowed = source_tree_note() if record is None else None
        report["no_kernels"] = (f"no GPU kernels importable: {shadowed}" if shadowed else
                                f"built without GPU kernels ({why}); only the torch and sim backends work. "
                                f"Rebuild: {rebuild_command()}")

    device = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
    try:
        sel = select_backend(device)
        report["selected"] = {"device": str(device), "backend": sel.backend, "reason": sel.reason}
    except (UnsupportedDeviceError, ValueError) as e:
        report["selected"] = {"device": str(device), "backend": None, "reason": str(e)}
    report["tile_math"] = _tile_math(report, device)
    report["notes"] = notes
    return report


def _tile_math(report: dict, device: torch.device) -> str:
    """Which tile math the compiled forward, split-KV decode and backward run on ``device`` for fp16/bf16 (fp32
    always runs the vector one; the decode and backward tensor-core kernels cover the headdim buckets of their mma
    tables in ck_configs/, larger headdims run the vector kernels)."""
    try:
        choice = kernel_choice()
    except ValueError as e:
        return str(e)
    backend = report["selected"]["backend"]
    if backend not in ("hip", "cuda"):
        return f"n/a (selected backend {backend})"
    why = mma_unavailable(backend, device, torch.float16)
    if backend == "hip" and choice in ("auto", "sbcast"):
        arch = getattr(torch.cuda.get_device_properties(device), "gcnArchName", "").split(":")[0] \
            if device.type == "cuda" else ""
        if choice == "sbcast" or arch == "gfx906":
            when = "every dense" if choice == "sbcast" else "dense (>= 256 query rows and keys)"
            return (f"sbcast (scalar-broadcast forward, emulated only) for {when} fp16 headdim 64/128 forward calls; "
                    f"vector otherwise and for the backward; {KERNEL_ENV}={choice}")
    if choice == "vector":
        return f"vector (dot2/FMA, the gfx906 kernel logic; {KERNEL_ENV}=vector)"
    if why is None:
        bwd = max((c.headdim for c in load_configs("bwd_dkdv") if c.impl == "mma"), default=0)
        dec = max((c.headdim for c in load_configs("fwd_splitkv") if c.impl == "mma"), default=0)
        return (f"mma (tensor cores, mma.sync m16n8k16) for fp16/bf16: forward, split-KV decode up to headdim {dec} "
                f"and backward up to headdim {bwd} (vector beyond); vector for fp32; {KERNEL_ENV}={choice}")
    return f"vector ({why}; {KERNEL_ENV}={choice})"


def info(print_report: bool = True, file=None) -> dict:
    """Print (unless print_report=False) and return the report as a dict."""
    report = collect()
    if print_report:
        _print(report, file or sys.stdout)
    return report


def _print(r: dict, f) -> None:
    w = lambda s="": print(s, file=f)  # noqa: E731
    w(f"rocflash {r['rocflash']}  (torch {r['torch']}, {r['torch_runtime']})")
    w()
    w("devices:")
    if not r["devices"]:
        w("  none found")
    for d in r["devices"]:
        lds = d.get("lds_per_block")
        w(f"  [{d['index']}] {d['name']}  arch {d['arch']}  wave size {d.get('wave_size')}  "
          f"LDS/shared per block {lds if lds is not None else '?'} B  "
          f"per CU/SM {d.get('lds_per_multiprocessor', '?')} B  CUs/SMs {d.get('multiprocessors')}  (via {d['source']})")
    w()
    w("backends:")
    for name in NAMES:
        b = r["backends"][name]
        if name in ("hip", "cuda"):
            if b["built"]:
                seen = b["devices_seen"]
                w(f"  {name:5s} built for {', '.join(b['compiled_archs'])}; {b['instances']} kernel instances; "
                  f"runtime {b['runtime_version']}; "
                  + (f"{seen} device(s)" if seen else f"no device present ({b.get('runtime_says')})"))
            else:
                w(f"  {name:5s} not built ({b['why_not']})")
        elif name == "ck":
            w(f"  ck    built for {', '.join(b['compiled_archs'])}; {b['instances']} CK instances (CDNA MFMA)"
              if b["built"] else f"  ck    not built ({b['why_not']}); CK instances are built by pip install with a "
                                 f"ROCm torch for gfx90a/gfx942/gfx950 in GPU_ARCHS")
            if b.get("covers"):
                w(f"        covers: {b['covers']}")
        else:
            w(f"  {name:5s} available: {b['note']}")
    if r.get("no_kernels"):
        w(f"  {r['no_kernels']}")
    hp = r.get("hip_python")
    if hp is not None:
        w()
        found = hp["says"] or f"{len(hp['devices'])} device(s)"
        w("hip-python: " + (f"{hp['version'] or '?'}, HIP runtime {hp['runtime_version'] or '?'}: {found}"
                            if hp["installed"] else hp["says"]))
    w()
    s = r["selected"]
    w(f"selected for {s['device']}: {s['backend'] or 'none'}  ({s['reason']})")
    w(f"tile math: {r['tile_math']}")
    for n in r["notes"]:
        w(f"note: {n}")
