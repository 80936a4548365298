"""The backend switch of the adversarial GPU files (tests/test_gpu_adv19*.py, test_gpu_adv20_narrow.py): with the
file's variable unset, the compiled GPU backend (marker gpu); "torch" or "sim", the same cases on CPU tensors, which
checks a file's logic without a GPU."""

from __future__ import annotations

import os

import pytest
import torch

from conftest import assert_close_to_reference, gpu_platform


class AdvBackend:
    """The backend named by environment variable ``env`` (default "cuda"), where its tensors live and its marks."""

    def __init__(self, env: str):
        self.backend = os.environ.get(env, "cuda")
        self.on_gpu = self.backend in ("cuda", "hip")
        self.dev = "cuda" if self.on_gpu else "cpu"
        self.marks = [pytest.mark.gpu] if self.on_gpu else []

    def name(self) -> str | None:
        """The ``backend=`` argument of the API calls."""
        return gpu_platform() if self.on_gpu else self.backend

    def sync(self) -> None:
        if self.on_gpu:
            torch.cuda.synchronize()

    def randn(self, shape, dtype, g, scale=1.0):
        """Standard normal values from CPU generator ``g``, times ``scale``, on the backend's device as ``dtype``."""
        return (torch.randn(shape, generator=g) * scale).to(self.dev, dtype)


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def check_per_sequence(out, lse, q, keys, values, args, what):
    """A KV-cache call's out (batch, seqlen_q, nheads, headdim) and LSE per sequence b against keys[b] / values[b]
    (its visible cache rows): no key -> O 0 and LSE -inf (flash-attn); else FlashAttention's rule against fp64."""
    assert out.shape == q.shape and lse.shape == (q.shape[0], q.shape[2], q.shape[1]) and lse.dtype == torch.float32
    for b in range(q.shape[0]):
        if keys[b].shape[0] == 0:
            assert torch.equal(out[b], torch.zeros_like(out[b])) and torch.isneginf(lse[b]).all(), f"{what} seq {b}"
            continue
        assert_close_to_reference(out[b:b + 1], lse[b:b + 1], q[b:b + 1], keys[b][None], values[b][None], args,
                                  f"{what} seq {b}")
