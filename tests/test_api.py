"""flash_attn_func on the CPU: argument checks (every error message), shapes, dtypes, empty inputs, views."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

import rocflash
from conftest import assert_close_to_reference, fwd_args, rand_qkv


def qkv(sq=17, sk=17, h=2, hk=2, d=16, dtype=torch.float16, batch=2, seed=0):
    return rand_qkv(batch, sq, sk, h, hk, d, dtype, "cpu", torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------- argument errors: argument, rule, value
@pytest.mark.parametrize("kwargs,exc,pattern", [
    (dict(dropout_p=1.5), ValueError, r"dropout_p must be a float in \[0, 1\), got 1.5"),
    (dict(dropout_p=-0.1), ValueError, r"dropout_p must be a float in \[0, 1\), got -0.1"),
    (dict(softmax_scale=float("nan")), ValueError, r"softmax_scale must be a finite float \(within float32 range\) or None, got nan"),
    (dict(softmax_scale="1"), ValueError, r"softmax_scale must be a finite float .* got '1'"),
    (dict(softmax_scale=True), ValueError, r"softmax_scale must be a finite float .* got True"),
    (dict(softmax_scale=1e39), ValueError, r"softmax_scale must be a finite float \(within float32 range\) or None, got 1e\+39"),
    (dict(softmax_scale=10 ** 400), ValueError, r"softmax_scale must be a finite float"),
    (dict(softcap=1e39), ValueError, r"softcap must be a finite float >= 0 \(0 = off, within float32 range\), got 1e\+39"),
    (dict(softcap=1e-40), ValueError, r"softcap must be >= \|softmax_scale\| / 3.4e38 .*got softcap=1e-40"),
    (dict(dropout_p=True), ValueError, r"dropout_p must be a float in \[0, 1\), got True"),
    (dict(causal=1), TypeError, r"causal must be a bool, got 1"),
    (dict(deterministic=None), TypeError, r"deterministic must be a bool, got None"),
    (dict(return_attn_probs="yes"), TypeError, r"return_attn_probs must be a bool, got 'yes'"),
    (dict(window_size=(-2, 0)), ValueError, r"window_size must be a pair of ints >= -1 \(-1 = unbounded\), got \(-2, 0\)"),
    (dict(window_size=(1, 2, 3)), ValueError, r"window_size must be a pair of ints >= -1"),
    (dict(window_size=(1.5, 0)), ValueError, r"window_size must be a pair of ints >= -1"),
    (dict(causal=True, window_size=(4, 3)), ValueError, r"window_size\[1\] must be -1 or 0 when causal=True .*got 3"),
    (dict(softcap=-1.0), ValueError, r"softcap must be a finite float >= 0 \(0 = off, within float32 range\), got -1.0"),
    (dict(softcap=float("inf")), ValueError, r"softcap must be a finite float >= 0"),
    (dict(alibi_slopes=[0.5, 0.5]), TypeError, r"alibi_slopes must be a torch.Tensor or None, got list"),
    (dict(alibi_slopes=torch.ones(2, dtype=torch.float16)), TypeError, r"alibi_slopes.dtype must be float32, got torch.float16"),
    (dict(alibi_slopes=torch.ones(3)), ValueError, r"alibi_slopes must have shape \(nheads,\)=\(2,\) or \(batch, nheads\)=\(2, 2\), got \(3,\)"),
    (dict(backend="triton"), ValueError, r"backend must be one of \('hip', 'cuda', 'torch', 'sim', 'ck'\) or None, got 'triton'"),
])
def test_argument_errors(kwargs, exc, pattern):
    q, k, v = qkv()
    with pytest.raises(exc, match=pattern):
        rocflash.flash_attn_func(q, k, v, **kwargs)


def test_tensor_errors():
    q, k, v = qkv()
    with pytest.raises(TypeError, match=r"q must be a torch.Tensor, got ndarray"):
        rocflash.flash_attn_func(q.numpy(), k, v)
    with pytest.raises(ValueError, match=r"k must have 4 dimensions \(batch, seqlen, heads, headdim\), got shape \(2, 17, 32\)"):
        rocflash.flash_attn_func(q, k.flatten(2), v)
    with pytest.raises(TypeError, match=r"v.dtype must be float16, bfloat16 or float32 \(float64 also on the torch and sim backends\), got torch.int32"):
        rocflash.flash_attn_func(q, k, v.int())
    with pytest.raises(TypeError, match=r"q, k, v must have the same dtype, got torch.float16, torch.float16, torch.bfloat16"):
        rocflash.flash_attn_func(q, k, v.bfloat16())
    with pytest.raises(ValueError, match=r"k and v must have the same shape .* got \(2, 17, 2, 16\) and \(2, 16, 2, 16\)"):
        rocflash.flash_attn_func(q, k, v[:, :16])
    with pytest.raises(ValueError, match=r"k must have q's batch size 2, got 1"):
        rocflash.flash_attn_func(q, k[:1], v[:1])
    with pytest.raises(ValueError, match=r"k and v must have q's headdim 16, got 8"):
        rocflash.flash_attn_func(q, k[..., :8], v[..., :8])


def test_headdim_limit():  # C11: a clear error before any launch, naming the limit
    q, k, v = qkv(d=512)
    with pytest.raises(ValueError, match=r"headdim must be <= 256, got 512"):
        rocflash.flash_attn_func(q, k, v)
    q, k, v = qkv(d=0)
    with pytest.raises(ValueError, match=r"headdim must be >= 1, got 0"):
        rocflash.flash_attn_func(q, k, v)


def test_gqa_divisibility():  # C9
    q, k, v = qkv(h=6, hk=4)
    with pytest.raises(ValueError, match=r"nheads must be divisible by nheads_k \(GQA/MQA\), got nheads=6, nheads_k=4"):
        rocflash.flash_attn_func(q, k, v)


@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_dropout_not_implemented(backend):
    q, k, v = qkv()
    with pytest.raises(NotImplementedError, match=rf"dropout_p > 0 is not implemented \(backend '{backend}'\), got 0.1: .*set the model's attention dropout to 0.0"):
        rocflash.flash_attn_func(q, k, v, dropout_p=0.1, backend=backend)


def test_compiled_backend_on_cpu_tensors_names_the_problem():
    q, k, v = qkv()
    for backend in ("hip", "cuda"):
        with pytest.raises(rocflash.UnsupportedDeviceError, match=rf"backend '{backend}' runs on GPU tensors; the tensors are on cpu"):
            rocflash.flash_attn_func(q, k, v, backend=backend)


def test_env_backend_name_checked(monkeypatch):
    monkeypatch.setenv("ROCFLASH_BACKEND", "fast")
    q, k, v = qkv()
    with pytest.raises(ValueError, match=r"ROCFLASH_BACKEND must be one of .*, got 'fast'"):
        rocflash.flash_attn_func(q, k, v)


# ---------------------------------------------------------------- outputs
@pytest.mark.parametrize("backend", ["torch", "sim"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_output_shapes_and_dtypes(backend, dtype):
    q, k, v = qkv(sq=9, sk=33, h=4, hk=2, d=24, dtype=dtype)
    out = rocflash.flash_attn_func(q, k, v, backend=backend)
    assert out.shape == q.shape and out.dtype == dtype and out.is_contiguous()
    out2, lse, probs = rocflash.flash_attn_func(q, k, v, backend=backend, return_attn_probs=True)
    assert torch.equal(out, out2) and probs is None
    assert lse.shape == (2, 4, 9) and lse.dtype == torch.float32
    assert_close_to_reference(out, lse, q, k, v, fwd_args(24), backend)


@pytest.mark.parametrize("backend", ["torch", "sim"])
@pytest.mark.parametrize("q_shape,k_shape", [
    ((0, 5, 2, 16), (0, 7, 2, 16)),  # batch 0
    ((2, 0, 2, 16), (2, 7, 2, 16)),  # seqlen_q 0
    ((2, 5, 0, 16), (2, 7, 1, 16)),  # nheads 0
])
def test_empty_inputs_no_launch(backend, q_shape, k_shape, monkeypatch):
    q, k, v = torch.randn(q_shape), torch.randn(k_shape), torch.randn(k_shape)
    monkeypatch.setattr("rocflash.backends.sim.forward", lambda *a, **kw: pytest.fail("launched"))
    monkeypatch.setattr("rocflash.backends.reference.forward", lambda *a, **kw: pytest.fail("launched"))
    out, lse, _ = rocflash.flash_attn_func(q, k, v, backend=backend, return_attn_probs=True)
    assert out.shape == q.shape and lse.shape == (q_shape[0], q_shape[2], q_shape[1])


def test_no_keys_gives_zero_and_neg_inf():
    q = torch.randn(2, 5, 2, 16)
    k = v = torch.randn(2, 0, 2, 16)
    out, lse, _ = rocflash.flash_attn_func(q, k, v, backend="sim", return_attn_probs=True)
    assert torch.equal(out, torch.zeros_like(out)) and torch.isneginf(lse).all()


@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_deterministic_flag_accepted(backend):
    q, k, v = qkv()
    a = rocflash.flash_attn_func(q, k, v, deterministic=True, backend=backend)
    b = rocflash.flash_attn_func(q, k, v, deterministic=False, backend=backend)
    assert torch.equal(a, b)


def test_compiled_backend_strings():
    """flash_attn_func passes "cuda:atomic_dq" to the ops for backend "cuda" with deterministic=False: the ops
    split it back into the platform and the backward's dQ mode (rocflash.backends.compiled)."""
    from rocflash import ops
    assert ops.compiled_platform("cuda" + ops.ATOMIC_DQ) == ("cuda", False)
    assert ops.compiled_platform("cuda") == ("cuda", True) and ops.compiled_platform("hip") == ("hip", True)


def test_numpy_scalars_accepted():
    q, k, v = qkv(dtype=torch.float32)
    a = rocflash.flash_attn_func(q, k, v, softmax_scale=np.float32(0.25), softcap=np.float64(2.0), backend="torch")
    b = rocflash.flash_attn_func(q, k, v, softmax_scale=0.25, softcap=2.0, backend="torch")
    assert torch.equal(a, b)


@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_window_beyond_the_sequence_is_unbounded(backend):
    # bounds past every key used to overflow int64 index arithmetic and mask everything
    q, k, v = qkv(sq=9, sk=13)
    plain = rocflash.flash_attn_func(q, k, v, backend=backend)
    for window in [(-1, sys.maxsize), (2 ** 63 + 5, -1), (2 ** 70, 2 ** 70), (13, 9)]:
        assert torch.equal(rocflash.flash_attn_func(q, k, v, window_size=window, backend=backend), plain), window
    causal = rocflash.flash_attn_func(q, k, v, causal=True, backend=backend)
    assert torch.equal(rocflash.flash_attn_func(q, k, v, causal=True, window_size=(2 ** 63 + 5, -1), backend=backend), causal)


@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_nan_input_gives_nan_not_a_masked_row(backend):
    q, k, v = qkv(sq=3, sk=5, h=1, hk=1, dtype=torch.float32)
    q[0, 1, 0, 0] = float("nan")
    out, lse, _ = rocflash.flash_attn_func(q, k, v, backend=backend, return_attn_probs=True)
    assert torch.isnan(lse[0, 0, 1]) and torch.isnan(out[0, 1]).all()
    assert torch.isfinite(lse[0, 0, [0, 2]]).all() and torch.isfinite(out[0, [0, 2]]).all()


@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_no_keys_backward_gives_zero_gradients(backend):
    q = torch.randn(1, 4, 2, 8, requires_grad=True)
    k, v = (torch.randn(1, 0, 2, 8, requires_grad=True) for _ in range(2))
    rocflash.flash_attn_func(q, k, v, backend=backend).sum().backward()
    assert torch.equal(q.grad, torch.zeros_like(q)) and k.grad.shape == k.shape


@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_lse_is_float32_and_not_differentiable(backend):
    q, k, v = (t.double().requires_grad_() for t in qkv(dtype=torch.float32))
    out, lse, _ = rocflash.flash_attn_func(q, k, v, backend=backend, return_attn_probs=True)
    assert lse.dtype == torch.float32 and not lse.requires_grad and out.requires_grad


def test_second_derivative_of_fused_backend_raises():
    q, k, v = (t.double().requires_grad_() for t in qkv(sq=4, sk=4, h=1, hk=1, d=8, dtype=torch.float32))
    with pytest.raises(RuntimeError, match="does not support second derivatives"):  # at the first backward
        torch.autograd.grad(rocflash.flash_attn_func(q, k, v, backend="sim").sum(), q, create_graph=True)


def test_public_names_are_the_api():
    """dir(rocflash)'s public names, besides its own submodules, are __all__'s (the stdlib modules the package
    imports, sys, types and importlib, do not leak out)."""
    public = {n for n in dir(rocflash) if not n.startswith("_")
              and not getattr(getattr(rocflash, n), "__name__", "").startswith("rocflash.")}
    assert public == set(rocflash.__all__) - {"__version__"}
    assert all(callable(getattr(rocflash, n)) for n in public)
