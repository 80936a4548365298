"""The backend switch of the adversarial GPU files (tests/test_gpu_adv19*.py, test_gpu_adv20_narrow.py): with the
file's variable unset, the compiled GPU backend (marker gpu); "torch" or "sim", the same cases on CPU tensors, which
checks a file's logic without a GPU."""

from __future__ import annotations

import os

import pytest
import torch

from conftest import gpu_platform


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
