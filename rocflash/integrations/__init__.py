"""Integrations of rocflash with model libraries.

- :mod:`rocflash.integrations.transformers`: a ``"rocflash"`` attention implementation for Hugging Face
  transformers (>= 5.0), selected with ``attn_implementation="rocflash"``.

Each integration imports its library lazily (inside ``register()``), so importing this package never needs
the library.
"""
