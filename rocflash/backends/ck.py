"""The ``ck`` backend: Composable Kernel ck_tile FMHA instances (ck_configs/ck_fmha.toml) on the MFMA-capable
CDNA GPUs (gfx90a, gfx942, gfx950), module ``rocflash._C_ck`` (built by setup.py from a ROCm install).

Forward: the instance of (dtype, headdim bucket, variant) through CK's ``fmha_fwd_args`` (rocflash.ck.args).
Backward: rocflash's own backward kernels (the ``hip`` module) from CK's output and LSE; CK backward
instances are not built yet. Every argument the instances cannot honour raises NotImplementedError naming it
when ``ck`` was asked for; when the selector chose ``ck`` by probe, such a call runs on the ``hip`` kernel.

Known gap (by reading CK, not by running it): CK's mask zeroes P, so a NaN or inf in a V row that a query row
cannot see (causal / window) still reaches it through 0 * NaN in P.V; rocflash's own kernels exclude such rows.
Keys past seqlen_k are not affected (CK's padded loads return 0 there).

Status: compiled and ISA-audited in CI (python -m rocflash.isa --ck), never executed (no AMD GPU reachable).
"""

from __future__ import annotations

import functools
import importlib

import torch

from ..ck import args as ck_args
from ..ck.codegen import ARCH_FAMILY
from ..ck.configs import find_instance
from . import FwdArgs

MODULE = "rocflash._C_ck"
_DTYPES = {torch.float16: "fp16", torch.bfloat16: "bf16"}


@functools.cache
def _import():
    try:
        return importlib.import_module(MODULE), None
    except ImportError as e:
        return None, f"{MODULE} not importable: {e}"


def load_module():
    return _import()[0]


def module_error() -> str | None:
    return _import()[1]


def variant(args: FwdArgs) -> str:
    return "softcap" if args.softcap > 0 else "batch"


def unsupported(q: torch.Tensor, k: torch.Tensor, args: FwdArgs, arch: str, *, dropout_p: float = 0.0,
                return_attn_probs: bool = False) -> NotImplementedError | None:
    """The NotImplementedError the ck backend raises for this call (naming the argument), or None."""
    try:
        ck_args.check_supported(dropout_p=dropout_p, alibi_slopes=args.alibi_slopes)
    except NotImplementedError as e:
        return e
    if q.dtype not in _DTYPES:
        return ck_args.unsupported("q.dtype", str(q.dtype), "the CK instances are fp16 / bf16")
    headdim = max(q.shape[-1], k.shape[-1])
    if find_instance(_DTYPES[q.dtype], headdim, variant(args), arch) is None:
        return ck_args.unsupported("headdim" if headdim > 256 else "softcap" if args.softcap > 0 else "headdim",
                                   headdim, f"no CK instance of ck_configs/ck_fmha.toml serves "
                                            f"({_DTYPES[q.dtype]}, headdim {headdim}, {variant(args)}) on {arch}")
    return None


def _tensor(t: torch.Tensor) -> ck_args.Tensor:
    return ck_args.tensor_of(t.shape, t.stride(), t.data_ptr(), _DTYPES.get(t.dtype, str(t.dtype)))


def forward(q, k, v, args: FwdArgs, arch: str):
    """Launch the CK forward instance: (out like q, lse float32 (batch, nheads, seqlen_q))."""
    mod = load_module()
    inst = find_instance(_DTYPES[q.dtype], max(q.shape[-1], k.shape[-1]), variant(args), arch)
    batch, seqlen_q, nheads, _ = q.shape
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    lse = torch.empty(batch, nheads, seqlen_q, dtype=torch.float32, device=q.device)
    a = ck_args.fwd_args(_tensor(q), _tensor(k), _tensor(v), _tensor(out), _tensor(lse),
                         softmax_scale=args.softmax_scale, window_left=args.window_left,
                         window_right=args.window_right, softcap=args.softcap)
    with torch.cuda.device(q.device):
        ms = mod.fwd(inst.name, ARCH_FAMILY[arch], vars(a), torch.cuda.current_stream(q.device).cuda_stream)
    if ms < 0:
        raise RuntimeError(f"backend 'ck': instance {inst.name} is not in this build of {MODULE} "
                           f"(compiled: {', '.join(mod.compiled_archs())})")
    return out, lse


def resolve(sel, q, k, args: FwdArgs, *, dropout_p: float = 0.0):
    """(selection, arch) for a call the selector sent to ``ck``: CK when its instances cover the call; else
    NotImplementedError naming the argument (ck asked for by argument or environment) or the ``hip`` kernel
    (ck chosen by the probe), with the reason in the selection."""
    from ..selector import Selection, check_compiled_backend, probe_device

    arch = probe_device(q.device).arch
    err = unsupported(q, k, args, arch, dropout_p=dropout_p)
    if err is None:
        return sel, arch
    if not sel.probed:
        raise err
    check_compiled_backend("hip", q.device)
    return Selection("hip", f"{sel.reason}; this call on rocflash's kernel: {err}", True), None
