"""ptxas resource reports (``nvcc --cubin -Xptxas -v``): registers, spill bytes, stack frame, shared memory."""

from __future__ import annotations

import re

_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers(.*)")


def parse_ptxas(text: str) -> dict[str, dict]:
    """``ptxas -v`` report -> {symbol: {arch, registers, stack_frame, spill_stores, spill_loads, smem}}."""
    out: dict[str, dict] = {}
    current = None
    for ln in text.splitlines():
        if m := _PTXAS_ENTRY.search(ln):
            current = out.setdefault(m.group(1), {"arch": m.group(2), "smem": 0})
        elif current is not None and (m := _PTXAS_FRAME.search(ln)):
            current.update(stack_frame=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        elif current is not None and (m := _PTXAS_USED.search(ln)):
            current["registers"] = int(m.group(1))
            smem = re.search(r"(\d+) bytes smem", m.group(2))
            current["smem"] = int(smem.group(1)) if smem else 0
    return out


