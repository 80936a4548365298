"""rocflash.perf: the benchmark of ``python -m rocflash.perf`` (issues 2 and 4).

Modules: ``models`` (FLOP and byte models, roofline bound), ``arch`` (peak table, device detection),
``cases`` (cases, presets, YAML), ``methods`` (rocflash backends, SDPA backends, naive attention),
``timing`` (device-event timing, input rotation, peak memory), ``errors`` (fp64 reference on slices),
``rocprof`` (rocprofv3 / rocprof CSV parsers, torch.profiler), ``results`` (records, JSON, CSV, table),
``plot`` (roofline PNG), ``compare`` (regressions between two JSON files), ``runner`` (the CLI).
Options, models and the JSON schema: perf/README.md.
"""

from .models import attention_bytes, attention_flops, visible_keys, visible_pairs

__all__ = ["attention_bytes", "attention_flops", "visible_keys", "visible_pairs"]
