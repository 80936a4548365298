"""rocflash: exact, fused FlashAttention for AMD GPUs, with the MI50/MI60 (gfx906) as a first-class target.

    import rocflash
    out = rocflash.flash_attn_func(q, k, v, causal=True)   # flash-attn compatible
    rocflash.info()                                         # device, arch, compiled backends, selection
"""

import importlib as _importlib
import sys as _sys
import types as _types

__version__ = "0.1.0"
__all__ = ["flash_attn_func", "flash_attn_varlen_func", "flash_attn_with_kvcache", "flash_attn_qkvpacked_func",
           "flash_attn_kvpacked_func", "flash_attn_varlen_qkvpacked_func", "flash_attn_varlen_kvpacked_func", "info",
           "UnsupportedDeviceError", "MissingKernelWarning", "__version__"]

# The API imports torch on first use, so that the tools (python -m rocflash.isa, the build) run without it.
# The first of them imports rocflash.selector, which warns once (MissingKernelWarning) when torch sees a GPU
# that this build has no kernel for.
_LAZY = {"flash_attn_func": ".interface", "info": ".info", "UnsupportedDeviceError": ".selector",
         "MissingKernelWarning": ".selector", "flash_attn_varlen_func": ".varlen", "flash_attn_with_kvcache": ".kvcache",
         **dict.fromkeys(("flash_attn_qkvpacked_func", "flash_attn_kvpacked_func", "flash_attn_varlen_qkvpacked_func",
                          "flash_attn_varlen_kvpacked_func"), ".packed")}


class _Package(_types.ModuleType):
    """The package module: resolves the API names on first access; ``rocflash.info`` stays the function even
    after the submodule of the same name is imported (the import system would set the attribute to it)."""

    def __getattr__(self, name):
        if name in _LAZY:
            value = getattr(_importlib.import_module(_LAZY[name], __name__), name)
            super().__setattr__(name, value)
            return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in _LAZY and isinstance(value, _types.ModuleType):
            return  # the submodule stays reachable as sys.modules["rocflash.info"]
        super().__setattr__(name, value)

    def __dir__(self):
        return sorted({*super().__dir__(), *_LAZY})


_sys.modules[__name__].__class__ = _Package
