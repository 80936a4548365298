"""rocflash: exact, fused FlashAttention for AMD GPUs, with the MI50/MI60 (gfx906) as a first-class target.

    import rocflash
    out = rocflash.flash_attn_func(q, k, v, causal=True)   # flash-attn compatible
    rocflash.info()                                         # device, arch, compiled backends, selection
"""

from .info import info
from .interface import flash_attn_func
from .kvcache import flash_attn_with_kvcache
from .selector import UnsupportedDeviceError
from .varlen import flash_attn_varlen_func

__version__ = "0.1.0"
__all__ = ["flash_attn_func", "flash_attn_varlen_func", "flash_attn_with_kvcache", "info", "UnsupportedDeviceError",
           "__version__"]
