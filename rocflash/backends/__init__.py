"""rocflash backends. Each exposes ``forward(q, k, v, args) -> (out, lse)`` on validated inputs.

- ``torch``: unfused reference through PyTorch ops (any device, autograd-capable)
- ``sim``:   the kernel's exact tiling simulated with torch on the CPU (the golden model)
- ``hip``:   the HIP build of hip_src/ (AMD GPUs)
- ``cuda``:  the CUDA build of the same source (NVIDIA GPUs)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

NAMES = ("hip", "cuda", "torch", "sim")


@dataclass(frozen=True)
class FwdArgs:
    """Validated, resolved forward arguments (see rocflash.flash_attn_func)."""

    softmax_scale: float
    window_left: int  # -1: unbounded
    window_right: int  # -1: unbounded; causal is 0
    softcap: float  # 0: off
    alibi_slopes: torch.Tensor | None  # float32 (nheads,) or (batch, nheads)
