"""Structure-aware changes of an Indigo input graph (an ECLgraph file: instrument/eclgraph/): every change
gives a well-formed graph (no byte of it is flipped blindly), so the program reads it as its graphs are
read and the search explores the graph's shape, not the reader's checks:

  more nodes     nodes added, each joined to a few of the others
  isolated       nodes added with no edge at all
  skew           one node made a hub: edges between it and many others (degree skew)
  cycle          a directed cycle through some nodes (back edges: a DAG becomes cyclic)
  symmetric      every edge's reverse added
  fewer edges    some edges removed
  generated      a graph of indigo-bench's generators (instrument/eclgraph/generators.py: dag, counterdag,
                 powerlaw, rmat, grid) a few times larger, drawn with a seed of the search's

Graphs stay small (MAX_NODES, MAX_EDGES), so that a run on the cpu backend stays cheap. No change
makes a self loop or a repeated edge, as indigo-bench's generators do not."""
from __future__ import annotations

import numpy as np

from instrument.eclgraph import format as egr, generators
from instrument.errors import UserError

MAX_NODES = 1024
MAX_EDGES = 8192


def parse(data: bytes) -> egr.Graph | None:
    """The graph of an ECLgraph file's bytes, or None when they are not one."""
    try:
        return egr.parse(data)
    except UserError:
        return None


def _edges(g: egr.Graph) -> tuple[np.ndarray, np.ndarray]:
    src = np.repeat(np.arange(g.nodes, dtype=np.int64), g.degrees())
    return src, g.nlist.astype(np.int64)


def _graph(nodes: int, src, dst) -> egr.Graph:
    """The CSR graph of these edges, self loops and repeats left out, cut to MAX_EDGES."""
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    keep = src != dst
    keys = np.unique(src[keep] * nodes + dst[keep])[:MAX_EDGES]
    return egr.from_edges(nodes, keys // nodes, keys % nodes)


def _more_nodes(rng, g, isolated: bool):
    k = int(rng.integers(1, max(2, g.nodes) + 1))
    k = min(k, MAX_NODES - g.nodes)
    if k <= 0:
        return None, ""
    n = g.nodes + k
    src, dst = _edges(g)
    if isolated:
        return _graph(n, src, dst), f"{k} isolated nodes added"
    new = np.arange(g.nodes, n, dtype=np.int64)
    deg = rng.integers(1, 4, size=k)
    a = np.repeat(new, deg)
    b = rng.integers(0, n, size=len(a))
    flip = rng.random(len(a)) < 0.5
    return _graph(n, np.concatenate([src, np.where(flip, b, a)]), np.concatenate([dst, np.where(flip, a, b)])), \
        f"{k} nodes added"


def _skew(rng, g):
    hub = int(rng.integers(g.nodes))
    others = np.array([v for v in range(g.nodes) if v != hub], dtype=np.int64)
    if not len(others):
        return None, ""
    m = int(rng.integers(max(1, len(others) // 2), len(others) + 1))
    pick = rng.choice(others, size=m, replace=False)
    src, dst = _edges(g)
    way = int(rng.integers(3))   # out, in, both
    a = np.full(m, hub, dtype=np.int64)
    ns, nd = [src], [dst]
    if way in (0, 2):
        ns.append(a)
        nd.append(pick)
    if way in (1, 2):
        ns.append(pick)
        nd.append(a)
    return _graph(g.nodes, np.concatenate(ns), np.concatenate(nd)), \
        f"node {hub} made a hub of {m} {['out', 'in', 'both ways'][way]}-edges"


def _cycle(rng, g):
    if g.nodes < 2:
        return None, ""
    k = int(rng.integers(2, min(g.nodes, 8) + 1))
    ring = rng.choice(g.nodes, size=k, replace=False).astype(np.int64)
    src, dst = _edges(g)
    return _graph(g.nodes, np.concatenate([src, ring]), np.concatenate([dst, np.roll(ring, -1)])), \
        f"a cycle through {k} nodes"


def _symmetric(rng, g):
    src, dst = _edges(g)
    return _graph(g.nodes, np.concatenate([src, dst]), np.concatenate([dst, src])), "every edge's reverse added"


def _fewer_edges(rng, g):
    if g.edges == 0:
        return None, ""
    src, dst = _edges(g)
    keep = rng.random(g.edges) >= rng.uniform(0.1, 0.6)
    if keep.all():
        return None, ""
    return _graph(g.nodes, src[keep], dst[keep]), f"{g.edges - int(keep.sum())} edges removed"


def _generated(rng, g):
    kind = generators.KINDS[int(rng.integers(len(generators.KINDS)))]
    n = int(min(MAX_NODES, max(4, g.nodes * int(rng.integers(2, 5)))))
    e = int(min(MAX_EDGES, n * int(rng.integers(1, 5))))
    if kind == "powerlaw":
        e -= e % 2
    seed = int(rng.integers(2**31))
    try:
        out = generators.generate(generators.Spec(kind, n, None if kind == "grid" else e, seed))
    except UserError:
        return None, ""
    return out, f"a generated {kind} graph of {out.nodes} nodes and {out.edges} edges (seed {seed})"


CHANGES = (("more nodes", lambda rng, g: _more_nodes(rng, g, False)),
           ("isolated", lambda rng, g: _more_nodes(rng, g, True)),
           ("skew", _skew), ("cycle", _cycle), ("symmetric", _symmetric), ("fewer edges", _fewer_edges),
           ("generated", _generated))


def mutate_graph(rng: np.random.Generator, data: bytes) -> tuple[bytes, str]:
    """One structural change of the graph these bytes hold (the bytes unchanged when none applies)."""
    g = egr.parse(data)
    order = rng.permutation(len(CHANGES))
    for i in order:
        out, what = CHANGES[int(i)][1](rng, g)
        if out is not None and egr.check(out) is None:
            return egr.to_bytes(out), what
    return data, "graph unchanged"


def describe(data: bytes) -> str:
    g = parse(data)
    if g is None:
        return f"{len(data)} bytes"
    return f"graph of {g.nodes} nodes and {g.edges} edges (max degree {int(g.degrees().max()) if g.nodes else 0})"
