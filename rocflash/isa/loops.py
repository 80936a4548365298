"""Control-flow graph, loop nesting forest and main-loop detection of one kernel's instruction stream.

Main-loop detection
    The kernel's instructions (its label to ``.Lfunc_end``) are split into basic blocks at labels and after
    branches; ``s_branch L`` / ``s_cbranch_* L`` (plus the fall-through of conditional branches) give the
    control-flow graph (a networkx DiGraph). A loop is a cycle of that graph: a branch back to an earlier
    label closes it. Loops and their nesting come from the loop nesting forest (Steensgaard): each strongly
    connected component with a cycle is a loop, its entries are its blocks with a predecessor outside it;
    dropping the edges from inside the loop to its entries and repeating inside gives the nested loops.
    Unlike natural loops (a header that dominates the body) this keeps the blocks that late exec-mask skip
    branches (``s_cbranch_execz`` around a masked region) leave reachable from outside the loop: on gfx9 the
    compiler places the first masked V-tile loads of the K/V loop before its header and jumps back to them,
    and a natural-loop analysis (like LLVM's own ``Loop Header`` annotations) would count them outside the
    loop. The loops found this way match the loops LLVM annotates in verbose assembly
    (``=> This Loop Header: Depth=N``): same number per depth, each LLVM header is an entry of a loop at
    its depth (tests/test_isa.py checks this).
    The *tile-product instructions* are ``v_dot2_f32_f16`` / ``v_dot2c_f32_f16`` and ``v_mfma_*`` when the
    kernel has any, else the fp32 FMA family (bf16 / fp32 kernels; a few FMAs of integer-division sequences
    sit outside the loops). The main loop is the innermost loop that holds more than half of the
    tile-product instructions and contains an ``s_barrier``: the tile loop whose iteration is fenced by
    ``__syncthreads`` because it refills LDS. Per kind (``MAIN_LOOP_DEPTH``):
      fwd        the K/V tile loop (depth 2), inside the grid-stride loop (depth 1); the product loops
                 S = Q.K^T and O += P.V (depth 3) have no barrier.
      bwd_dkdv   the query-tile loop (depth 3), nested in the GQA head loop (depth 2) inside the grid-stride
                 loop; it reloads Q and dO (copy_rows_to_lds) and holds the S, dP, dV and dK products (depth 4,
                 no barrier). The head loop holds the same products but is outer.
      bwd_dq     the K/V tile loop (depth 2), inside the grid-stride loop; it reloads K and V and holds the
                 S, dP and dQ products.
    For kernels without barriers (small fixtures) it is the innermost loop holding more than half of the
    products. Versioned main loops: a kernel that picks one of several copies of its tile loop at run time
    (the float32 dQ and dK/dV kernels since eco12: the shifted score with the statistics pass, or the plain one;
    hip_src/fmha_bwd_kernel.h kShifted) spreads the products over sibling loops, none holding half. When the
    loop found above has two or more copies nested directly in it (each with a barrier when synced, each
    holding more than ``MAIN_LOOP_VARIANT_SHARE``, together more than half), the main loop is found by the same rule inside the
    copy holding the most products, against that copy's products (the dK/dV kernel's copies are head loops
    holding the query-tile loop); its checks (dot2, 128-bit loads, exp) then speak for that copy. Counts are static instruction counts over the loop's blocks, inner loops included, reported
    next to the whole-kernel counts (``main loop/whole kernel``).

Needs networkx (a torch dependency; ``pip install pyyaml networkx``, or
``pip install --no-build-isolation ".[audit]"`` from the checkout).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from .asm import COUNTERS, Instruction, _base

MAIN_LOOP_SHARE = 0.5  # the main loop holds more than this share of the tile-product instructions
MAIN_LOOP_VARIANT_SHARE = 0.25  # each run-time copy of a versioned main loop holds more than this share


@dataclasses.dataclass
class Loop:
    """One loop (cycle) of the kernel's control-flow graph (see "Main-loop detection")."""

    header: str  # label of the entry block; "A|B" for a loop with several entries (irreducible control flow)
    depth: int  # 1 = outermost (the grid-stride loop of the forward kernel)
    blocks: tuple[int, ...]  # basic-block indices of the loop body, inner loops included
    instructions: tuple[int, ...]  # instruction indices of the loop body, ascending

    def summary(self) -> dict:
        return {"header": self.header, "depth": self.depth, "blocks": len(self.blocks),
                "instructions": len(self.instructions)}



def control_flow_graph(instrs: Sequence[Instruction], labels: dict[str, int]):
    """(graph, block starts, label -> block): basic blocks of the instruction stream as a networkx DiGraph.

    A block starts at instruction 0, at every label and after every branch / terminator. Edges:
    ``s_branch L`` -> L; ``s_cbranch_* L`` -> L and the next block; ``s_endpgm`` -> none; others fall through.
    """
    import networkx as nx  # well-kept graph library (a torch dependency)

    starts = sorted({0, *(i for i in labels.values() if i < len(instrs)),
                     *(i + 1 for i, ins in enumerate(instrs)
                       if (ins.is_branch or ins.is_terminator) and i + 1 < len(instrs))})
    block_of_start = {s: b for b, s in enumerate(starts)}
    label_block = {lab: block_of_start[i] for lab, i in labels.items() if i in block_of_start}
    g = nx.DiGraph()
    g.add_nodes_from(range(len(starts)))
    for b, s in enumerate(starts):
        last = (starts[b + 1] if b + 1 < len(starts) else len(instrs)) - 1
        ins = instrs[last]
        if ins.is_branch and ins.branch_target in label_block:
            g.add_edge(b, label_block[ins.branch_target])
        if ins.mnemonic != "s_branch" and not ins.is_terminator and b + 1 < len(starts):
            g.add_edge(b, b + 1)
    return g, starts, label_block


def find_loops(instrs: Sequence[Instruction], labels: dict[str, int]) -> list[Loop]:
    """The loop nesting forest of the kernel's control-flow graph (Steensgaard's construction, which also
    covers irreducible cycles): every strongly connected component with a cycle is a loop; its entries are
    the blocks with a predecessor outside it; removing the edges from inside the loop to its entries and
    repeating on the loop's blocks gives the loops nested in it. Outermost first."""
    import networkx as nx

    if not instrs:
        return []
    g, starts, label_block = control_flow_graph(instrs, labels)
    block_label = {b: lab for lab, b in label_block.items()}
    loops: list[Loop] = []

    def nest(sub, depth: int) -> None:
        for scc in nx.strongly_connected_components(sub):
            if len(scc) == 1 and not sub.has_edge(next(iter(scc)), next(iter(scc))):
                continue  # a block that is not on a cycle
            entries = sorted(n for n in scc if any(p not in scc for p in g.predecessors(n))) or [min(scc)]
            ranges = [range(starts[b], starts[b + 1] if b + 1 < len(starts) else len(instrs)) for b in sorted(scc)]
            loops.append(Loop("|".join(block_label.get(e, f"block{e}") for e in entries), depth,
                              tuple(sorted(scc)), tuple(i for r in ranges for i in r)))
            inner = sub.subgraph(scc).copy()
            inner.remove_edges_from([(u, e) for e in entries for u in list(inner.predecessors(e))])
            nest(inner, depth + 1)

    nest(g, 1)
    return sorted(loops, key=lambda lp: (lp.depth, lp.instructions[0]))


def product_positions(instrs: Sequence[Instruction]) -> list[int]:
    """Indices of the tile-product instructions: dot2 / MFMA when present, else the fp32 FMA family."""
    bases = [_base(ins.mnemonic) for ins in instrs]
    packed = [i for i, m in enumerate(bases) if COUNTERS["dot2"](m) or COUNTERS["mfma"](m)]
    return packed or [i for i, m in enumerate(bases) if COUNTERS["fma"](m)]


def _innermost_holding(instrs: Sequence[Instruction], loops: Sequence[Loop], products: Sequence[int],
                       synced: bool) -> Loop | None:
    """The innermost of ``loops`` holding more than MAIN_LOOP_SHARE of ``products`` (with an ``s_barrier`` when
    ``synced`` and such a loop exists; ties: the smaller loop)."""
    holding = []
    for lp in loops:
        inside = set(lp.instructions)
        if sum(i in inside for i in products) > MAIN_LOOP_SHARE * len(products):
            barrier = any(instrs[i].mnemonic == "s_barrier" for i in lp.instructions)
            holding.append((barrier, lp))
    fenced = [lp for barrier, lp in holding if barrier] if synced else []
    candidates = fenced or [lp for _, lp in holding]
    return max(candidates, key=lambda lp: (lp.depth, -len(lp.instructions))) if candidates else None


def find_main_loop(instrs: Sequence[Instruction], labels: dict[str, int], synced: bool = True) -> Loop | None:
    """The innermost loop that holds more than MAIN_LOOP_SHARE of the tile-product instructions and contains
    an ``s_barrier``; without such a loop (kernels that never synchronise), or with ``synced=False`` (kinds in
    kinds.UNSYNCED_MAIN_LOOP), the innermost loop holding more than MAIN_LOOP_SHARE of them. A versioned main
    loop (run-time copies, each holding more than MAIN_LOOP_VARIANT_SHARE) is looked for inside its largest
    copy, against that copy's products. See "Main-loop detection" in the module docstring."""
    products = product_positions(instrs)
    if not products:
        return None
    loops = find_loops(instrs, labels)
    main = _innermost_holding(instrs, loops, products, synced)
    if main is None:
        return None

    def inside(outer: Loop, lp: Loop) -> bool:
        return lp is not outer and set(outer.instructions).issuperset(lp.instructions)

    def count(lp: Loop) -> int:
        body = set(lp.instructions)
        return sum(i in body for i in products)

    def fenced(lp: Loop) -> bool:  # a copy of the tile loop refills LDS (the product loops inside it do not)
        return not synced or any(instrs[i].mnemonic == "s_barrier" for i in lp.instructions)

    copies = [lp for lp in loops if lp.depth == main.depth + 1 and inside(main, lp) and fenced(lp)
              and count(lp) > MAIN_LOOP_VARIANT_SHARE * len(products)]
    if len(copies) < 2 or sum(map(count, copies)) <= MAIN_LOOP_SHARE * len(products):
        return main
    copy = max(copies, key=count)
    body = set(copy.instructions)
    return _innermost_holding(instrs, [copy] + [lp for lp in loops if inside(copy, lp)],
                              [i for i in products if i in body], synced) or copy


