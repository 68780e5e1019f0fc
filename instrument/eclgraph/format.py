"""ECLgraph files (`.egr`, the Indigo suite's graph format): int32 nodes, int32 edges, int32
nindex[nodes+1], int32 nlist[edges] in CSR form, little-endian. Parsing validates everything; a bad file
is an error naming it. Shared by indigo-bench (the graphs a sweep runs codes on: indigo_bench/egr.py reads
and writes the files) and cltc search (structure-aware inputs: cltestcheck/search/graphs.py)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError

INT32_MAX = 2**31 - 1


@dataclass
class Graph:
    nindex: np.ndarray   # int32, nodes + 1 entries, nondecreasing, nindex[0] == 0, nindex[-1] == edges
    nlist: np.ndarray    # int32, edges entries, each in [0, nodes)

    @property
    def nodes(self) -> int:
        return len(self.nindex) - 1

    @property
    def edges(self) -> int:
        return len(self.nlist)

    def degrees(self) -> np.ndarray:
        return np.diff(self.nindex)


def from_edges(nodes: int, src: np.ndarray, dst: np.ndarray) -> Graph:
    """CSR from edge endpoint arrays (neighbour lists sorted)."""
    keys = np.asarray(src, dtype=np.int64) * nodes + np.asarray(dst, dtype=np.int64)
    keys.sort()
    counts = np.bincount(keys // nodes, minlength=nodes)
    nindex = np.zeros(nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=nindex[1:])
    return Graph(nindex.astype(np.int32), (keys % nodes).astype(np.int32))


def parse(raw: bytes, p: str | Path = "the graph") -> Graph:
    """The graph these bytes of an ECLgraph file hold, validated (errors name `p`)."""
    hint = "an .egr file holds int32 nodes, edges, nindex[nodes+1], nlist[edges]; make one with `indigo-bench graphs`"
    if len(raw) < 8:
        raise UserError(f"{p}: not an ECLgraph file: {len(raw)} bytes, too short for the header", hint=hint)
    nodes, edges = (int(x) for x in np.frombuffer(raw[:8], dtype="<i4"))
    if nodes < 1 or edges < 0:
        raise UserError(f"{p}: not an ECLgraph file: header says {nodes} nodes and {edges} edges", hint=hint)
    want = 8 + 4 * (nodes + 1) + 4 * edges
    if len(raw) != want:
        raise UserError(f"{p}: not an ECLgraph file: {nodes} nodes and {edges} edges need {want} bytes, "
                        f"the file has {len(raw)}", hint=hint)
    nindex = np.frombuffer(raw, dtype="<i4", count=nodes + 1, offset=8).astype(np.int32)
    nlist = np.frombuffer(raw, dtype="<i4", count=edges, offset=8 + 4 * (nodes + 1)).astype(np.int32)
    g = Graph(nindex, nlist)
    problem = check(g)
    if problem:
        raise UserError(f"{p}: malformed ECLgraph: {problem}", hint=hint)
    return g


def check(g: Graph) -> str | None:
    """What is wrong with a graph's CSR arrays, or None."""
    if g.nindex[0] != 0:
        return f"nindex[0] is {int(g.nindex[0])}, not 0"
    if g.nindex[-1] != g.edges:
        return f"nindex[{g.nodes}] is {int(g.nindex[-1])}, not the edge count {g.edges}"
    drops = np.nonzero(np.diff(g.nindex) < 0)[0]
    if len(drops):
        v = int(drops[0])
        return f"nindex decreases at node {v} ({int(g.nindex[v])} then {int(g.nindex[v + 1])})"
    bad = np.nonzero((g.nlist < 0) | (g.nlist >= g.nodes))[0]
    if len(bad):
        j = int(bad[0])
        return f"nlist[{j}] is {int(g.nlist[j])}, not a node (0..{g.nodes - 1})"
    return None


def to_bytes(g: Graph, path: str | Path = "the graph") -> bytes:
    """The ECLgraph file of a well-formed graph (errors name `path`)."""
    problem = check(g)
    if problem:
        raise ValueError(f"refusing to write a malformed graph: {problem}")
    if g.edges > INT32_MAX or g.nodes + 1 > INT32_MAX:
        raise UserError(f"{path}: {g.nodes} nodes and {g.edges} edges do not fit ECLgraph's int32 counts")
    header = np.array([g.nodes, g.edges], dtype="<i4").tobytes()
    return header + g.nindex.astype("<i4").tobytes() + g.nlist.astype("<i4").tobytes()
