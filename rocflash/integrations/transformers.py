"""rocflash as an attention implementation of Hugging Face transformers (>= 5.0).

Usage::

    import rocflash.integrations.transformers as rf_tf
    from transformers import AutoModel

    name = rf_tf.register()               # "roc_fmha"; or register(backend="sim" | "torch" | "cuda" | "hip")
    model = AutoModel.from_pretrained(path, attn_implementation=name)
    # an already loaded model: model.set_attn_implementation(name)

The name is "roc_fmha", not "rocflash": transformers (5.x) treats every attn_implementation whose name contains
"flash" as a flash-attn kernel request (``is_flash_attention_requested``: ``"flash" in name``) and tries to import
such a kernel at model construction, which fails for a name it does not know.

How it plugs in: transformers >= 5.0 routes every attention layer of its refactored models (BERT included:
``BertSelfAttention.forward`` looks up ``ALL_ATTENTION_FUNCTIONS.get_interface(config._attn_implementation)``)
through ``transformers.AttentionInterface``. :func:`register` adds :func:`attention_forward` there under
``name``, and registers transformers' SDPA mask builder for the same name in ``AttentionMaskInterface`` so that
the model builds its masks for us: ``None`` when nothing is masked beyond the plain causal/bidirectional
pattern, else a boolean (batch, 1, seqlen_q, seqlen_k) mask. Without that second registration transformers
would drop every mask (padding included) for an unknown implementation name, silently.

transformers 4.x is refused (``ImportError``): there (checked in 4.56 and 4.57) BERT-style models do not call
``AttentionInterface`` at all, so a registered function would never run for them.

What the attention function supports is what :func:`rocflash.flash_attn_func` supports: no padding / varlen,
no additive biases, no dropout, no returned attention probabilities; each of those raises
``NotImplementedError`` naming the feature instead of being ignored.
"""

from __future__ import annotations

import torch

from ..backends import NAMES
from ..interface import flash_attn_func
from ..masks import MaskRule

DEFAULT_NAME = "roc_fmha"  # no "flash" in it: see register()
MIN_TRANSFORMERS = "5.0"
VARLEN_MESSAGE = "padded batches / attention_mask: varlen is not implemented by rocflash yet"

# kwargs that transformers' attention layers may pass and that change the result: refused when set.
_UNSUPPORTED_KWARGS = {
    "position_bias": "an additive position bias (T5-style relative attention)",
    "s_aux": "attention sinks (s_aux)",
    "head_mask": "a head mask",
    "cu_seq_lens_q": VARLEN_MESSAGE + " (cu_seq_lens_q: packed sequences)",
    "cu_seq_lens_k": VARLEN_MESSAGE + " (cu_seq_lens_k: packed sequences)",
}


def register(backend: str | None = None, name: str = DEFAULT_NAME) -> str:
    """Register rocflash with transformers' ``AttentionInterface`` (and its mask builder) under ``name``.

    Args:
        backend: "hip" | "cuda" | "torch" | "sim" | None. None defers the choice to every call of
            :func:`rocflash.flash_attn_func` (``ROCFLASH_BACKEND``, then the device probe). Calling register
            again with another backend replaces the registration (it is global to the process).
        name: the ``attn_implementation`` name models are loaded with; must not contain "flash".

    Returns:
        ``name``.

    Raises:
        ValueError: unknown backend, or an empty name or one containing "flash".
        ImportError: transformers missing, or older than 5.0 (see the module docstring).
    """
    if backend is not None and backend not in NAMES:
        raise ValueError(f"backend must be one of {NAMES} or None (ROCFLASH_BACKEND / device probe), got {backend!r}")
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty str, got {name!r}")
    if "flash" in name:
        raise ValueError(f"name must not contain 'flash' (transformers then loads it as a flash-attn kernel), got {name!r}")
    try:
        import transformers
        from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
    except ImportError as e:
        raise ImportError(f"rocflash.integrations.transformers needs transformers >= {MIN_TRANSFORMERS}: {e}") from e
    from packaging.version import Version  # a dependency of transformers

    if Version(transformers.__version__) < Version(MIN_TRANSFORMERS):
        raise ImportError(
            f"rocflash.integrations.transformers needs transformers >= {MIN_TRANSFORMERS} (models routed through "
            f"AttentionInterface), got {transformers.__version__}")

    def rocflash_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        return attention_forward(module, query, key, value, attention_mask, scaling=scaling, dropout=dropout,
                                 backend=backend, **kwargs)

    rocflash_attention.__doc__ = f"rocflash attention (backend={backend!r}); see attention_forward."
    rocflash_attention.backend = backend
    transformers.AttentionInterface.register(name, rocflash_attention)
    AttentionMaskInterface.register(name, sdpa_mask)
    return name


def attention_forward(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    *,
    backend: str | None = None,
    is_causal: bool | None = None,
    sliding_window: int | None = None,
    softcap: float | None = None,
    **kwargs,
) -> tuple[torch.Tensor, None]:
    """One attention call of a transformers model, through :func:`rocflash.flash_attn_func`.

    Args:
        module: the calling attention layer; its ``is_causal`` attribute is used when ``is_causal`` is None.
        query: (batch, nheads, seqlen_q, headdim); key, value: (batch, nheads_k, seqlen_k, headdim);
            float16 / bfloat16 / float32 (transformers' layout; transposed here to flash-attn's).
        attention_mask: None, or a mask from the model: boolean (True = attend) or additive float (0 = attend,
            -inf / the dtype's minimum = masked), shaped (batch or 1, 1 or nheads, seqlen_q, seqlen_k), or a 2D
            (batch, seqlen_k) padding mask (nonzero = attend). A 4D mask is accepted only when it keeps exactly
            the keys that the kernel's own (causal, sliding window) rule keeps, a 2D one only when it masks
            nothing: e.g. the all-visible mask of an unpadded batch.
        scaling: softmax scale (the module's ``scaling``); None = 1 / sqrt(headdim).
        dropout: attention dropout probability; transformers passes 0.0 in eval mode. > 0 raises
            NotImplementedError (from flash_attn_func).
        backend: passed to flash_attn_func (None = ROCFLASH_BACKEND, then the device probe).
        is_causal: overrides ``module.is_causal``. Causal is bottom-right aligned, as transformers' KV-cache
            convention (the queries are the last seqlen_q positions).
        sliding_window: W > 0 keeps keys within W - 1 positions of the query (window (W - 1, W - 1), right
            side cut to 0 when causal), as transformers' flash-attention path does.
        softcap: > 0 caps the scores with ``softcap * tanh(s / softcap)`` (Gemma 2); None or 0 = off.
        **kwargs: other transformers kwargs; those changing the result (``position_bias``, ``s_aux``,
            ``head_mask``, ``cu_seq_lens_q/k``, ``output_attentions=True``) raise NotImplementedError, the
            rest (position ids, cache bookkeeping, ...) are ignored because they do not change attention.

    Returns:
        (attn_output (batch, seqlen_q, nheads, headdim) in query's dtype, None): attention probabilities are
        never materialised.

    Raises:
        NotImplementedError: padding / varlen masks, additive biases, dropout > 0, output_attentions, the
            unsupported kwargs above.
        ValueError / TypeError: from flash_attn_func, or a mask of the wrong shape or dtype.
    """
    for arg, feature in _UNSUPPORTED_KWARGS.items():
        if kwargs.get(arg) is not None:
            raise NotImplementedError(f"{arg}: {feature} is not implemented by rocflash; use attn_implementation='eager'")
    if kwargs.get("output_attentions"):
        raise NotImplementedError(
            "output_attentions=True: rocflash never materialises the attention probabilities; "
            "use attn_implementation='eager' to get them")
    if is_causal is None:
        if not hasattr(module, "is_causal"):
            raise ValueError(f"is_causal was not passed and module {type(module).__name__} has no is_causal attribute")
        is_causal = bool(module.is_causal)
    if softcap is None:
        softcap = 0.0
    if sliding_window is not None:
        if not isinstance(sliding_window, int) or isinstance(sliding_window, bool) or sliding_window < 1:
            raise ValueError(f"sliding_window must be a positive int or None, got {sliding_window!r}")
        window = (sliding_window - 1, 0 if is_causal else sliding_window - 1)
    else:
        window = (-1, 0 if is_causal else -1)
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, torch.Tensor) or t.dim() != 4:
            raise ValueError(f"{name} must be a 4D tensor (batch, heads, seqlen, headdim), got "
                             f"{tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")
    seqlen_q, seqlen_k = query.shape[2], key.shape[2]
    check_mask(attention_mask, query.shape[0], seqlen_q, seqlen_k, window[0], window[1])

    out = flash_attn_func(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2), dropout_p=dropout,
                          softmax_scale=scaling, causal=is_causal, window_size=window, softcap=float(softcap),
                          backend=backend)
    return out, None


def visible_pattern(seqlen_q: int, seqlen_k: int, window_left: int, window_right: int,
                    device: torch.device | str = "cpu") -> torch.Tensor:
    """bool (seqlen_q, seqlen_k): True where the kernel attends (rocflash.masks convention, bottom-right aligned;
    a negative window bound is unbounded, causal is window_right = 0)."""
    rule = MaskRule(seqlen_q, seqlen_k, window_left, window_right)
    return rule.visible_grid(torch.arange(seqlen_q, device=device), torch.arange(seqlen_k, device=device))


def check_mask(mask, batch: int, seqlen_q: int, seqlen_k: int, window_left: int, window_right: int) -> None:
    """Accept ``mask`` only if it keeps exactly the keys the kernel keeps (see :func:`visible_pattern`).

    mask: None; bool (True = attend) or float additive (0 = attend, <= dtype min / 2 or -inf = masked) of shape
    (batch or 1, heads or 1, seqlen_q, seqlen_k); or 2D (batch, seqlen_k) padding (nonzero = attend), accepted
    only when it masks nothing (causal and windows come from the kernel's flags). Raises NotImplementedError (padding / any other masking pattern, additive biases), TypeError (not a
    tensor: e.g. flex attention's BlockMask), ValueError (shape).
    """
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"attention_mask must be a torch.Tensor or None, got {type(mask).__name__}")
    if mask.dtype == torch.bool:
        visible = mask
    elif mask.is_floating_point():
        zero = mask == 0
        masked = mask <= torch.finfo(mask.dtype).min / 2
        if not bool((zero | masked).all()):
            raise NotImplementedError(
                "attention_mask with values other than 0 and -inf / the dtype's minimum (an additive attention bias) "
                "is not implemented by rocflash")
        visible = zero
    else:
        visible = mask != 0
    if visible.dim() == 2:
        if tuple(visible.shape) != (batch, seqlen_k):
            raise ValueError(f"2D attention_mask must have shape (batch, seqlen_k)=({batch}, {seqlen_k}), "
                             f"got {tuple(visible.shape)}")
        if not bool(visible.all()):  # 2D = padding only (causal / window come from the kernel's flags)
            raise NotImplementedError(
                f"{VARLEN_MESSAGE}: the 2D attention_mask masks {int((~visible).sum())} key positions (padding); "
                f"run unpadded batches (equal lengths or batch size 1) or use attn_implementation='eager'")
        return
    if visible.dim() != 4 or visible.shape[-2:] != (seqlen_q, seqlen_k) or visible.shape[0] not in (1, batch):
        raise ValueError(f"attention_mask must have shape (batch or 1, heads or 1, seqlen_q={seqlen_q}, "
                         f"seqlen_k={seqlen_k}) or (batch, seqlen_k), got {tuple(mask.shape)}")
    expected = visible_pattern(seqlen_q, seqlen_k, window_left, window_right, device=visible.device)
    if not bool((visible == expected).all()):
        hidden = int((expected & ~visible).sum())
        extra = int((visible & ~expected).sum())
        raise NotImplementedError(
            f"{VARLEN_MESSAGE}: attention_mask {tuple(mask.shape)} differs from the kernel's own mask "
            f"(window_left={window_left}, window_right={window_right}, -1 = unbounded) in {hidden} masked and {extra} "
            f"extra visible (query, key) pairs; run unpadded batches (equal lengths or batch size 1) or use "
            f"attn_implementation='eager'")
