"""ECLgraph files (`.egr`): int32 nodes, int32 edges, int32 nindex[nodes+1], int32 nlist[edges]
in CSR form, little-endian. Reading validates everything; a bad file is an error naming it. The format
itself (the graph, its checks, its bytes) is the engine's, shared with cltc search:
instrument/eclgraph/format.py; here, the files indigo-bench reads and writes."""
from __future__ import annotations

from pathlib import Path

from instrument.eclgraph.format import INT32_MAX, Graph, check, from_edges, parse, to_bytes  # noqa: F401
from instrument.output import atomic_write_bytes

from .inputs import read_regular


def read(path: str | Path) -> Graph:
    p = Path(path)
    return parse(read_regular(p, "graph"), p)


def write(path: str | Path, g: Graph) -> None:
    """Write atomically: readers never see half a graph."""
    atomic_write_bytes(path, to_bytes(g, path))
