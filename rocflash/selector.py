"""Backend selection: ``backend=`` argument > ``ROCFLASH_BACKEND`` > capability probe.

The probe looks at where the tensors live and what the runtime reports: CPU tensors -> ``torch``;
a CDNA GPU with matrix cores (gfx90a / gfx942 / gfx950) whose build includes the CK instances -> ``ck``
(rocflash's dot2 kernel, ``hip``, runs the calls they do not cover); another GPU under a ROCm build of torch -> ``hip``; under a CUDA build -> ``cuda``. A compiled backend is only
usable when its module is built and the device's arch is in the module's compiled list; otherwise the
first call raises :class:`UnsupportedDeviceError` naming the detected arch and the compiled list.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import torch

from . import envvars
from .backends import NAMES
from .backends.compiled import load_module, module_error
from .build import load_build_info, rebuild_command, source_tree_note
from .targets import CK_ARCHS

ENV_VAR = "ROCFLASH_BACKEND"


class UnsupportedDeviceError(RuntimeError):
    """The selected compiled backend cannot run on this device (arch not compiled, module missing, ...)."""


@dataclass(frozen=True)
class DeviceProbe:
    """What the selector knows about a device (tests build fake ones)."""

    device_type: str  # "cpu" | "cuda" (torch names ROCm GPUs "cuda" too)
    platform: str | None  # "hip" | "cuda" | None (CPU)
    arch: str | None  # "gfx906" (gcnArchName without features) | "sm_90" | None
    name: str = ""
    wave_size: int | None = None
    lds_per_block: int | None = None


@dataclass(frozen=True)
class Selection:
    backend: str
    reason: str
    probed: bool = False  # chosen by the device probe (not by argument or environment): may fall back
    arch: str | None = None  # ck: the device's arch as the selection probed it (ck.resolve's instances are per arch)


def probe_device(device: torch.device | str) -> DeviceProbe:
    """Read the device's platform and arch from torch (no launch). Raises UnsupportedDeviceError for a GPU
    device under a torch that has no GPU support."""
    device = torch.device(device)
    if device.type != "cuda":
        return DeviceProbe(device.type, None, None, name=device.type)
    if not torch.cuda.is_available():
        raise UnsupportedDeviceError(f"device {device} needs a ROCm or CUDA build of torch that sees a GPU; "
                                     f"this torch is {torch.__version__} and sees none")
    props = torch.cuda.get_device_properties(device)
    if torch.version.hip:
        arch = getattr(props, "gcnArchName", "") or ""
        return DeviceProbe("cuda", "hip", arch.split(":")[0], props.name, getattr(props, "warp_size", 64),
                           getattr(props, "shared_memory_per_block", None))
    return DeviceProbe("cuda", "cuda", f"sm_{props.major}{props.minor}", props.name,
                       getattr(props, "warp_size", 32), getattr(props, "shared_memory_per_block_optin", None))


def cuda_cc(arch: str) -> tuple[int, int, bool]:
    """``sm_86`` / ``compute_86`` / ``sm_90a`` -> (major, minor, arch-specific)."""
    num = arch.split("_", 1)[1]
    specific = num.endswith("a")
    num = num.removesuffix("a")
    return int(num[:-1]), int(num[-1]), specific


def running_code(platform: str, device_arch: str, compiled: list[str]) -> str | None:
    """The entry of a module's compiled list whose code the driver runs on ``device_arch``, or None (none runs).

    AMD: the exact gfx name. NVIDIA (CUDA C++ Programming Guide, "Binary Compatibility" and "Application
    Compatibility"): machine code ``sm_XY`` runs on devices of major X and minor >= Y (the highest such cubin is
    taken), arch-specific ``sm_XYa`` only on ``sm_XY``; without a matching cubin the driver JIT-compiles PTX
    ``compute_XY`` (builds with ``TORCH_CUDA_ARCH_LIST=X.Y+PTX``) for any device of compute capability >= X.Y
    (the highest such PTX), ``compute_XYa`` only for ``sm_XY``. The kernels' ``__CUDA_ARCH__`` is the returned
    entry's, not the device's: sm_90-only features (PDL's griddepcontrol) are compiled out of ``compute_80`` code
    running on an sm_90 device, so launch options must follow the code, not the device."""
    if platform == "hip":
        return device_arch if device_arch in compiled else None
    try:
        dev = cuda_cc(device_arch)[:2]
    except (IndexError, ValueError):
        return None
    cubins, ptx = [], []
    for arch in compiled:
        try:
            major, minor, specific = cuda_cc(arch)
        except (IndexError, ValueError):
            continue
        ok = (major, minor) == dev if specific else (major == dev[0] and minor <= dev[1] if arch.startswith("sm_")
                                                     else (major, minor) <= dev)
        if ok:
            (cubins if arch.startswith("sm_") else ptx).append(((major, minor, specific), arch))
    for found in (cubins, ptx):
        if found:
            return max(found)[1]
    return None


def arch_compatible(platform: str, device_arch: str, compiled: list[str]) -> bool:
    """Whether some compiled code runs on ``device_arch`` (:func:`running_code`): AMD, the exact gfx name; NVIDIA,
    machine code for sm_XY runs on sm_XZ with Z >= Y (same major), arch-specific sm_90a code only on sm_90, PTX
    compute_XY (``+PTX`` builds) on any later device through the driver's JIT."""
    return running_code(platform, device_arch, compiled) is not None


def compiled_archs(platform: str) -> list[str] | None:
    mod = load_module(platform)
    return None if mod is None else list(mod.compiled_archs())


def select_backend(device: torch.device, backend: str | None = None, probe: DeviceProbe | None = None) -> Selection:
    """Choose the backend for tensors on ``device`` and check it can run there.

    Raises ValueError for an unknown backend name (argument or environment), UnsupportedDeviceError when
    the chosen backend cannot run on the device.
    """
    device = torch.device(device)
    # a bad ROCFLASH_KERNEL, ... raises on every backend, not only where it is acted on (checked once per set of
    # values: the cache that the compiled backend's switch reads, envvars.switch, share)
    envvars.check_switches()
    if backend is not None:
        if backend not in NAMES:
            raise ValueError(f"backend must be one of {NAMES} or None, got {backend!r}")
        sel = Selection(backend, "backend= argument")
    elif env := envvars.backend_name(os.environ.get(ENV_VAR), NAMES):
        sel = Selection(env, f"{ENV_VAR}={env}")
    else:
        probe = probe or probe_device(device)
        if probe.platform is None:
            sel = Selection("torch", f"tensors on {probe.device_type}: no GPU kernel applies, reference backend")
        else:
            sel = Selection(probe.platform, f"{probe.name or 'GPU'} ({probe.arch}) under a "
                                            f"{'ROCm' if probe.platform == 'hip' else 'CUDA'} build of torch", True)
            if probe.platform == "hip" and probe.arch in CK_ARCHS:
                why_not = ck_unavailable(probe)
                sel = Selection("ck", sel.reason + ": MFMA arch with the CK instances built (rocflash's dot2 kernel "
                                "runs what they do not cover)", True) if why_not is None else \
                    Selection("hip", sel.reason + f"; CK not used: {why_not}", True)
    try:
        if sel.backend in ("hip", "cuda"):
            check_compiled_backend(sel.backend, device, probe)
        elif sel.backend == "ck":
            probe = probe or probe_device(device)
            why_not = None if sel.probed else ck_unavailable(probe)  # the probe chose ck only where it is available
            if why_not:
                raise UnsupportedDeviceError(f"backend 'ck': {why_not}")
            sel = replace(sel, arch=probe.arch)
    except UnsupportedDeviceError as e:
        if sel.reason.startswith(ENV_VAR):  # name where the choice came from: the caller passed no backend=
            raise UnsupportedDeviceError(f"{e} [the backend was chosen by {sel.reason}: unset it, or pass "
                                         f"backend=]") from None
        raise
    return sel


def ck_unavailable(probe: DeviceProbe) -> str | None:
    """Why the ck backend cannot run on the probed device (None: it can)."""
    from .backends import ck

    if probe.platform != "hip":
        return f"it runs on AMD GPUs under a ROCm build of torch; the device is {probe.name or probe.device_type}"
    if probe.arch not in CK_ARCHS:
        return f"the device is {probe.arch}; CK instances exist for {', '.join(CK_ARCHS)} (MFMA)"
    mod = ck.load_module()
    if mod is None:
        return (f"not built ({ck.module_error()}); pip install with a ROCm torch and GPU_ARCHS including "
                f"{probe.arch} builds it")
    if probe.arch not in list(mod.compiled_archs()):
        return f"built for {', '.join(mod.compiled_archs())}, not {probe.arch}; rebuild with GPU_ARCHS including it"
    return None


def check_compiled_backend(platform: str, device: torch.device, probe: DeviceProbe | None = None) -> None:
    """Raise UnsupportedDeviceError unless the ``platform`` module is built for the device's arch."""
    probe = probe or probe_device(device)
    if probe.platform is None:
        raise UnsupportedDeviceError(
            f"backend '{platform}' runs on GPU tensors; the tensors are on {probe.device_type} "
            f"(use backend='torch' or 'sim' on the CPU)")
    if probe.platform != platform:
        raise UnsupportedDeviceError(
            f"backend '{platform}' cannot run on {probe.name} ({probe.arch}), a device of the "
            f"{probe.platform} platform; use backend='{probe.platform}'")
    archs = compiled_archs(platform)
    if archs is None:
        raise UnsupportedDeviceError(f"backend '{platform}': {not_built_message(platform)}")
    if not arch_compatible(platform, probe.arch or "", archs):
        var = "GPU_ARCHS" if platform == "hip" else "TORCH_CUDA_ARCH_LIST"
        raise UnsupportedDeviceError(
            f"backend '{platform}': device {probe.name} is {probe.arch}, which this build did not compile "
            f"(compiled: {', '.join(archs)}); rebuild with {var} including it")


def not_built_message(platform: str) -> str:
    """Why backend ``platform`` has no compiled module (from the install's build record), and how to rebuild."""
    record = load_build_info()
    if record is not None and not record.get("platforms"):
        why = f"rocflash was built without GPU kernels ({record.get('why_none')})"
    elif record is not None and platform not in record["platforms"]:
        why = f"rocflash was built without {platform} kernels (built: {', '.join(record['platforms'])})"
    elif record is None and (shadowed := source_tree_note()):
        return f"the {platform} module is not importable: {shadowed}"
    else:
        why = f"the {platform} module is not built or not loadable ({module_error(platform)})"
    return f"{why}; only backend='torch' and 'sim' work. Rebuild: {rebuild_command(platform)}"


class MissingKernelWarning(UserWarning):
    """``import rocflash`` on a machine whose GPU has no compiled rocflash kernel (see ``rocflash info``)."""


def missing_kernel_reason() -> str | None:
    """Why the GPU torch sees (device 0) has no compiled rocflash kernel, or None (kernel present, or no GPU).

    Reads the arch through the compiled module's own runtime call, not torch, so that importing rocflash does
    not initialise torch's CUDA/HIP state (that breaks fork-based workers)."""
    if not torch.cuda.is_available():
        return None
    platform = "hip" if torch.version.hip else "cuda"
    mod = load_module(platform)
    if mod is None:
        return f"torch sees a GPU, but {not_built_message(platform)}"
    n, _ = mod.device_count()
    if n <= 0:
        return None
    dev = mod.device_info(0)
    arch = str(dev.get("arch", "")).split(":")[0]
    archs = list(mod.compiled_archs())
    if arch and not arch_compatible(platform, arch, archs):
        var = "GPU_ARCHS" if platform == "hip" else "TORCH_CUDA_ARCH_LIST"
        return (f"GPU 0 ({dev.get('name', '?')}) is {arch}, which this rocflash build did not compile (compiled: "
                f"{', '.join(archs)}); only backend='torch' and 'sim' work there. Rebuild with {var} including it: "
                f"{rebuild_command(platform)}")
    return None


_warned = False


def warn_if_missing_kernels() -> None:
    """Warn once per process (MissingKernelWarning) when :func:`missing_kernel_reason` finds a gap. Never
    raises: a failing check must not break ``import rocflash``."""
    global _warned
    if _warned:
        return
    _warned = True
    try:
        reason = missing_kernel_reason()
    except Exception as e:  # noqa: BLE001 - the check is advisory
        reason = None
        if os.environ.get("ROCFLASH_DEBUG"):
            raise e
    if reason:
        import warnings

        warnings.warn(f"rocflash: {reason}", MissingKernelWarning, stacklevel=3)


warn_if_missing_kernels()  # at the first use of rocflash's torch API: a GPU without a kernel for it, said now
