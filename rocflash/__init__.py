"""rocflash: exact, fused FlashAttention for AMD GPUs, with the MI50/MI60 (gfx906) as a first-class target.

    import rocflash
    out = rocflash.flash_attn_func(q, k, v, causal=True)   # flash-attn compatible
    rocflash.info()                                         # device, arch, compiled backends, selection
"""

from .info import info
from .interface import flash_attn_func
from .selector import MissingKernelWarning, UnsupportedDeviceError, warn_if_missing_kernels

__version__ = "0.1.0"
__all__ = ["flash_attn_func", "info", "UnsupportedDeviceError", "MissingKernelWarning", "__version__"]

warn_if_missing_kernels()  # a GPU without a compiled kernel for it: say so now, not at the first call
