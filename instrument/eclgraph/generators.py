"""Seeded generators of ECLgraph inputs, from a handful of nodes to millions (indigo-bench's graphs, and
the graphs cltc search draws: the engine's, shared by both).

Kinds (edges counts the CSR entries, i.e. directed edges; the symmetric kinds store each
undirected edge in both directions, so their count is even):
  dag         random directed acyclic graph: edges go from lower to higher node ids
  counterdag  the same, edges go from higher to lower ids
  powerlaw    symmetric, Chung-Lu: expected degrees follow a power law (exponent 3)
  rmat        directed R-MAT (Graph500 probabilities 0.57/0.19/0.19/0.05)
  grid        symmetric 2-D grid, 4 neighbours; its edge count follows from the node count
No kind makes self loops or repeated edges. A seed reproduces a graph exactly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import UserError

from .format import Graph, from_edges

KINDS = ("dag", "counterdag", "powerlaw", "rmat", "grid")


@dataclass(frozen=True)
class Spec:
    kind: str
    nodes: int
    edges: int | None
    seed: int = 1
    name: str = ""

    def file_name(self) -> str:
        return f"{self.name or f'{self.kind}_{self.nodes}n_{self.edges}e_s{self.seed}'}.egr"


def generate(spec: Spec) -> Graph:
    if spec.kind not in KINDS:
        raise UserError(f"unknown graph kind '{spec.kind}' (choose from {', '.join(KINDS)})")
    if spec.nodes < 1:
        raise UserError(f"a graph needs at least 1 node, not {spec.nodes}")
    rng = np.random.default_rng(spec.seed)
    n = spec.nodes
    if spec.kind == "grid":
        return _grid(n, spec.edges)
    if spec.edges is None:
        raise UserError(f"--edges is needed for a {spec.kind} graph")
    e = spec.edges
    if e < 0:
        raise UserError(f"the edge count must be at least 0, not {e}")
    if spec.kind in ("dag", "counterdag"):
        most = n * (n - 1) // 2
        _check_room(spec, e, most)
        u, v = _distinct_pairs(rng, n, e, lambda k: rng.integers(0, n, size=(2, k)))
        return from_edges(n, u, v) if spec.kind == "dag" else from_edges(n, v, u)
    if spec.kind == "powerlaw":
        if e % 2:
            raise UserError(f"a powerlaw graph is symmetric: its edge count must be even, not {e}")
        most = n * (n - 1)
        _check_room(spec, e, most)
        weights = (np.arange(1, n + 1, dtype=np.float64)) ** -0.5
        cdf = np.cumsum(weights / weights.sum())
        perm = rng.permutation(n)  # hubs land anywhere, not at the low ids

        def draw(k):
            ends = np.searchsorted(cdf, rng.random(size=(2, k)), side="right")
            return perm[np.minimum(ends, n - 1)]
        u, v = _distinct_pairs(rng, n, e // 2, draw)
        return from_edges(n, np.concatenate([u, v]), np.concatenate([v, u]))
    # rmat: directed, ordered pairs
    most = n * (n - 1)
    _check_room(spec, e, most)
    scale = max(1, math.ceil(math.log2(n)))

    def draw_rmat(k):
        src = np.zeros(k, dtype=np.int64)
        dst = np.zeros(k, dtype=np.int64)
        for _ in range(scale):
            r = rng.random(k)
            down = r >= 0.57 + 0.19          # quadrants c, d: source bit set
            right = ((r >= 0.57) & (r < 0.76)) | (r >= 0.95)   # quadrants b, d: target bit set
            src = src * 2 + down
            dst = dst * 2 + right
        return np.stack([src, dst])
    src, dst = _distinct_pairs(rng, n, e, draw_rmat, ordered=True)
    return from_edges(n, src, dst)


def _check_room(spec: Spec, e: int, most: int) -> None:
    if e > most:
        raise UserError(f"a {spec.kind} graph of {spec.nodes} nodes has at most {most} edges without "
                        f"self loops or repeats; {e} were asked for")


def _distinct_pairs(rng, n: int, count: int, draw, ordered: bool = False):
    """`count` distinct pairs of distinct nodes in [0, n) drawn with `draw(k)` -> (2, k) array.
    Unordered pairs come back as (low, high). The pairs are chosen uniformly among those drawn."""
    if count == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    total = n * (n - 1) // (1 if ordered else 2)
    if count > total // 2 and total <= 50_000_000:
        # dense: enumerate every pair once and choose
        a, b = np.triu_indices(n, k=1) if not ordered else np.nonzero(~np.eye(n, dtype=bool))
        pick = rng.choice(len(a), size=count, replace=False)
        return a[pick].astype(np.int64), b[pick].astype(np.int64)
    keys = np.zeros(0, dtype=np.int64)
    stalled = 0
    while len(keys) < count:
        need = count - len(keys)
        a, b = draw(int(need * 1.2) + 16)
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        keep = (a != b) & (a < n) & (b < n)
        a, b = a[keep], b[keep]
        if not ordered:
            a, b = np.minimum(a, b), np.maximum(a, b)
        before = len(keys)
        keys = _sorted_unique(np.concatenate([keys, a * n + b]))
        stalled = stalled + 1 if len(keys) == before else 0
        if stalled > 50:
            raise UserError(f"could not place {count} distinct edges among {n} nodes with this "
                            f"degree distribution", hint="ask for fewer edges or more nodes")
    keys = rng.permutation(keys)[:count]
    return keys // n, keys % n


def _sorted_unique(x: np.ndarray) -> np.ndarray:
    x.sort()
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if len(x) else x


def _grid(n: int, edges: int | None) -> Graph:
    width = max(1, math.isqrt(n))
    ids = np.arange(n, dtype=np.int64)
    right = ids[(ids % width != width - 1) & (ids + 1 < n)]
    down = ids[ids + width < n]
    a = np.concatenate([right, down])
    b = np.concatenate([right + 1, down + width])
    g = from_edges(n, np.concatenate([a, b]), np.concatenate([b, a]))
    if edges is not None and edges != g.edges:
        raise UserError(f"a grid of {n} nodes (width {width}) has {g.edges} edges, not {edges}",
                        hint="leave out --edges for a grid")
    return g
