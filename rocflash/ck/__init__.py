"""Composable Kernel (ck_tile FMHA) instances for the MFMA-capable CDNA GPUs (gfx90a, gfx942, gfx950).

    rocflash.ck.configs   the instance list, from ck_configs/ck_fmha.toml (self-describing names)
    rocflash.ck.codegen   instance sources and the dispatcher (python -m rocflash.ck.codegen)
    rocflash.ck.args      flash_attn_func's arguments -> CK's fmha_fwd_args, NotImplementedError for the rest
    rocflash.ck.source    the pinned CK source: download, checksum, CK_DIR, compile flags

Nothing in this package imports torch. The backend that launches the instances is rocflash.backends.ck.
"""
