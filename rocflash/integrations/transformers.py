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

Padded batches (an attention_mask with padding, in the forward pass and in ``generate()`` with a KV cache)
run unpad -> :func:`rocflash.flash_attn_varlen_func` -> pad: each sequence keeps the query rows and keys its
mask lets it see, and the mask must then be the kernel's own (causal / sliding window, bottom-right aligned)
pattern on them; padded query rows come back as 0. Additive biases, masks of any other shape, packed
sequences (cu_seq_lens), dropout and returned attention probabilities raise ``NotImplementedError`` naming
the feature instead of being ignored.
"""

from __future__ import annotations

import torch

from ..backends import NAMES
from ..interface import flash_attn_func
from ..masks import MaskRule
from ..varlen import flash_attn_varlen_func

DEFAULT_NAME = "roc_fmha"  # no "flash" in it: see register()
MIN_TRANSFORMERS = "5.0"
MASK_MESSAGE = "attention_mask pattern not implemented by rocflash"

# kwargs that transformers' attention layers may pass and that change the result: refused when set.
_UNSUPPORTED_KWARGS = {
    "position_bias": "an additive position bias (T5-style relative attention)",
    "s_aux": "attention sinks (s_aux)",
    "head_mask": "a head mask",
    "cu_seq_lens_q": "packed sequences (cu_seq_lens_q); pass a padded batch with its attention_mask instead",
    "cu_seq_lens_k": "packed sequences (cu_seq_lens_k); pass a padded batch with its attention_mask instead",
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
            (batch, seqlen_k) padding mask (nonzero = attend; with padding only for seqlen_q == seqlen_k, the
            query rows padded like the keys). See :func:`mask_layout` for which masks run and how.
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
        NotImplementedError: masks that are not padding plus the kernel's own pattern, additive biases,
            dropout > 0, output_attentions, the unsupported kwargs above.
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
    layout = mask_layout(attention_mask, query.shape[0], seqlen_q, seqlen_k, window[0], window[1])
    q, k, v = query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)
    options = dict(dropout_p=dropout, softmax_scale=scaling, causal=is_causal, window_size=window,
                   softcap=float(softcap), backend=backend)
    if layout is None:
        return flash_attn_func(q, k, v, **options), None
    rows_q, rows_k = layout  # bool (batch, seqlen_q) / (batch, seqlen_k): what each sequence keeps
    lens_q, lens_k = rows_q.sum(1, dtype=torch.int32), rows_k.sum(1, dtype=torch.int32)
    cu_q, cu_k = (torch.nn.functional.pad(n.cumsum(0, dtype=torch.int32), (1, 0)) for n in (lens_q, lens_k))
    out = flash_attn_varlen_func(q[rows_q], k[rows_k], v[rows_k], cu_q, cu_k, int(lens_q.max()), int(lens_k.max()),
                                 **options)
    padded = out.new_zeros(q.shape[:2] + out.shape[1:]).index_put((rows_q,), out)  # padded query rows: 0
    return padded, None


def visible_pattern(seqlen_q: int, seqlen_k: int, window_left: int, window_right: int,
                    device: torch.device | str = "cpu") -> torch.Tensor:
    """bool (seqlen_q, seqlen_k): True where the kernel attends (rocflash.masks convention, bottom-right aligned;
    a negative window bound is unbounded, causal is window_right = 0)."""
    rule = MaskRule(seqlen_q, seqlen_k, window_left, window_right)
    return rule.visible_grid(torch.arange(seqlen_q, device=device), torch.arange(seqlen_k, device=device))


def mask_layout(mask, batch: int, seqlen_q: int, seqlen_k: int, window_left: int,
                window_right: int) -> tuple[torch.Tensor, torch.Tensor] | None:
    """How a model's ``mask`` runs: None = the dense call (the mask keeps exactly the keys the kernel keeps, see
    :func:`visible_pattern`), or the varlen layout ``(rows_q, rows_k)``, bool (batch, seqlen_q) and
    (batch, seqlen_k): sequence b keeps the query rows and keys its mask lets take part (padding removed), and
    on those the mask must be the kernel's pattern for that sequence's lengths (bottom-right aligned). That
    covers left and right padding, in prefill and in KV-cache decode steps, with causal and sliding windows.

    mask: None; bool (True = attend) or float additive (0 = attend, <= dtype min / 2 or -inf = masked) of shape
    (batch or 1, heads or 1, seqlen_q, seqlen_k), the same for every head; or 2D (batch, seqlen_k) padding
    (nonzero = attend), whose padding needs seqlen_q == seqlen_k (the query rows padded like the keys).
    Raises NotImplementedError (another pattern, additive biases), TypeError (not a tensor: e.g. flex
    attention's BlockMask), ValueError (shape).
    """
    if mask is None:
        return None
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
        if bool(visible.all()):  # 2D = padding only (causal / window come from the kernel's flags)
            return None
        if seqlen_q != seqlen_k:
            raise NotImplementedError(
                f"{MASK_MESSAGE}: a 2D padding attention_mask with seqlen_q={seqlen_q} != seqlen_k={seqlen_k} does "
                f"not say which query rows are padding; pass the model's 4D mask")
        return visible, visible
    if visible.dim() != 4 or visible.shape[-2:] != (seqlen_q, seqlen_k) or visible.shape[0] not in (1, batch):
        raise ValueError(f"attention_mask must have shape (batch or 1, heads or 1, seqlen_q={seqlen_q}, "
                         f"seqlen_k={seqlen_k}) or (batch, seqlen_k), got {tuple(mask.shape)}")
    if visible.shape[1] > 1 and not bool((visible == visible[:, :1]).all()):
        raise NotImplementedError(f"{MASK_MESSAGE}: attention_mask {tuple(mask.shape)} differs between heads")
    visible = visible[:, 0].expand(batch, seqlen_q, seqlen_k)
    expected = visible_pattern(seqlen_q, seqlen_k, window_left, window_right, device=visible.device)
    if bool((visible == expected).all()):
        return None
    rows_q, rows_k = visible.any(dim=2), visible.any(dim=1)
    # Which query rows are padding: first, only those that see no key (then every other row keeps its output,
    # as in eager); if that does not give the kernel's pattern (a padded row of a causal model that sees the
    # real keys before it), also those whose own token is padding: in self-attention the queries are the last
    # seqlen_q key positions (the KV-cache convention). Their output is 0, as in flash-attn's padded path.
    mismatch = _first_mismatch(visible, rows_q, rows_k, window_left, window_right)
    if mismatch is not None and seqlen_q <= seqlen_k:
        own_token = rows_q & rows_k[:, seqlen_k - seqlen_q:]
        if _first_mismatch(visible, own_token, rows_k, window_left, window_right) is None:
            return own_token, rows_k
    if mismatch is not None:
        b, kept, hidden, extra = mismatch
        raise NotImplementedError(
            f"{MASK_MESSAGE}: attention_mask {tuple(mask.shape)}, sequence {b} without its padding "
            f"({kept[0]} query rows, {kept[1]} keys) differs from the kernel's own mask "
            f"(window_left={window_left}, window_right={window_right}, -1 = unbounded) in {hidden} masked and "
            f"{extra} extra visible (query, key) pairs; use attn_implementation='eager' for arbitrary masks")
    return rows_q, rows_k


def _first_mismatch(visible, rows_q, rows_k, window_left, window_right):
    """None if every sequence's mask, restricted to its kept rows and keys, is the kernel's pattern; else
    (sequence, (rows, keys), pairs the mask hides and the kernel shows, pairs the mask shows and the kernel hides).
    (Dropped keys are visible to no row; dropped rows output 0.)"""
    for b in range(visible.shape[0]):
        kept = visible[b][rows_q[b]][:, rows_k[b]]
        own = visible_pattern(kept.shape[0], kept.shape[1], window_left, window_right, device=visible.device)
        if not bool((kept == own).all()):
            return b, tuple(kept.shape), int((own & ~kept).sum()), int((kept & ~own).sum())
    return None
