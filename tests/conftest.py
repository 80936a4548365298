"""Shared test helpers: random inputs, the fp64 reference and FlashAttention's tolerance rule.

Tolerance (FlashAttention's tests): max|out - ref| <= 2 * max|eager_lowprec - ref| + 1e-3, where ref is
the attention in float64 and eager_lowprec the same unfused attention computed in the input dtype.
"""

from __future__ import annotations

import os

import pytest
import torch

from rocflash.backends import FwdArgs
from rocflash.backends.compiled import load_module
from rocflash.backends.reference import attention_reference

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def gpu_platform() -> str | None:
    """'hip' or 'cuda' when torch sees a GPU and rocflash's module for it is built, else None."""
    if not torch.cuda.is_available():
        return None
    platform = "hip" if torch.version.hip else "cuda"
    return platform if load_module(platform) is not None else None


def pytest_collection_modifyitems(config, items):
    if gpu_platform() is None:
        skip = pytest.mark.skip(reason="needs a GPU and the compiled rocflash backend for it")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _poison_outputs(monkeypatch):
    """Compiled backends allocate O and LSE filled with NaN during tests: unwritten elements fail."""
    monkeypatch.setenv("ROCFLASH_POISON_OUTPUTS", "1")


def rand_qkv(batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, dtype, device="cpu", generator=None):
    """Fresh standard-normal Q, K, V (never zeros)."""
    g = generator
    shape_q, shape_k = (batch, seqlen_q, nheads, headdim), (batch, seqlen_k, nheads_k, headdim)
    q = torch.randn(shape_q, generator=g, dtype=torch.float32).to(device=device, dtype=dtype)
    k = torch.randn(shape_k, generator=g, dtype=torch.float32).to(device=device, dtype=dtype)
    v = torch.randn(shape_k, generator=g, dtype=torch.float32).to(device=device, dtype=dtype)
    return q, k, v


def fwd_args(headdim, causal=False, window=(-1, -1), softcap=0.0, alibi_slopes=None, softmax_scale=None):
    left, right = window
    return FwdArgs(softmax_scale if softmax_scale is not None else headdim ** -0.5, left, 0 if causal else right,
                   softcap, alibi_slopes)


def assert_close_to_reference(out, lse, q, k, v, args: FwdArgs, what: str = ""):
    """FlashAttention's rule on O, plus LSE against the fp64 LSE (same -inf pattern, 1e-3 absolute)."""
    ref, ref_lse = attention_reference(q.double(), k.double(), v.double(), args, torch.float64)
    low, _ = attention_reference(q, k, v, args, q.dtype)
    assert out.shape == q.shape and out.dtype == q.dtype, what
    assert not torch.isnan(out).any(), f"{what}: NaN in output"
    err = (out.double() - ref).abs().max().item() if out.numel() else 0.0
    base = (low.double() - ref).abs().max().item() if out.numel() else 0.0
    assert err <= 2 * base + 1e-3, f"{what}: max|out-ref| = {err:.3g} > 2 * {base:.3g} + 1e-3"
    if lse is not None:
        assert lse.shape == ref_lse.shape and lse.dtype == torch.float32, what
        assert not torch.isnan(lse).any(), f"{what}: NaN in LSE"
        assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse)), f"{what}: -inf pattern of LSE differs"
        finite = torch.isfinite(ref_lse)
        lse_err = (lse.double() - ref_lse)[finite].abs().max().item() if finite.any() else 0.0
        assert lse_err <= 1e-3 * max(1.0, ref_lse[finite].abs().max().item() if finite.any() else 1.0), \
            f"{what}: LSE error {lse_err:.3g}"
    return err, base


def require_builds() -> set[str]:
    """Platforms whose compiled module CI requires (ROCFLASH_REQUIRE_BUILDS=hip,cuda): a missing one fails."""
    return {p for p in os.environ.get("ROCFLASH_REQUIRE_BUILDS", "").replace(";", ",").split(",") if p}


def reference_grads(q, k, v, dout, args: FwdArgs, compute_dtype):
    """(dq, dk, dv) of the unfused attention computed in compute_dtype (autograd through torch ops)."""
    a, b, c = (t.detach().to(compute_dtype).requires_grad_() for t in (q, k, v))
    out, _ = attention_reference(a, b, c, args, compute_dtype)
    out.backward(dout.to(compute_dtype))
    return a.grad, b.grad, c.grad


def assert_grads_close(grads, q, k, v, dout, args: FwdArgs, what: str = ""):
    """FlashAttention's backward rule per gradient: max|dX - ref| <= 3 * max|dX_lowprec - ref| + 1e-3."""
    ref = reference_grads(q, k, v, dout, args, torch.float64)
    low = reference_grads(q, k, v, dout, args, q.dtype)
    for name, g, r, lo, x in zip(("dq", "dk", "dv"), grads, ref, low, (q, k, v)):
        assert g.shape == x.shape and g.dtype == x.dtype, f"{what}: {name} shape/dtype"
        assert not torch.isnan(g).any(), f"{what}: NaN in {name}"
        if g.numel() == 0:
            continue
        err = (g.double() - r).abs().max().item()
        base = (lo.double() - r).abs().max().item()
        assert err <= 3 * base + 1e-3, f"{what}: {name} max|d-ref| = {err:.3g} > 3 * {base:.3g} + 1e-3"


def require_hip_toolchain() -> None:
    """Skip (fail under CI=true) when hipcc or clang++ (the gfx906 compile of the emulator tests) is missing."""
    from rocflash import build
    try:
        build.find_hipcc()
        build.find_tool("ROCFLASH_CLANG", ["clang++-19", "clang++-18", "clang++-17", "clang++"], [])
    except build.BuildError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the toolchain is missing ({e})")
        pytest.skip(f"toolchain missing: {e}")


def garbage_in_key_rows(k, v, keys, what: str):
    """Copies of k and v with garbage in the key rows ``keys`` (dim 1): NaN in every third element of K when
    ``what`` is "k", else NaN and inf alternating in V (the masked-garbage tests of the scalar-broadcast forward)."""
    kg, vg = k.clone(), v.clone()
    for j in keys:
        if what == "k":
            kg[:, j, :, 1::3] = float("nan")
        else:
            vg[:, j, :, ::2] = float("nan")
            vg[:, j, :, 1::2] = float("inf")
    return kg, vg
