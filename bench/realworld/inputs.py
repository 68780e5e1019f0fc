"""Inputs the programs of bench/realworld read, generated (seeded) instead of downloaded.

Each spec is a table: `kind` and its parameters, and `file`, the name written in the run
directory. Kinds: `floats` (one number a line), `bfs` (Rodinia's graph text format),
`points` (Rodinia kmeans: "id f1 ... fN" a line).
"""
from __future__ import annotations

import random
from pathlib import Path


def make(spec: dict, run_dir: Path) -> Path:
    kind = spec["kind"]
    rng = random.Random(spec.get("seed", 1))
    path = run_dir / spec["file"]
    if kind == "floats":
        lo, hi = spec.get("lo", 0.0), spec.get("hi", 1.0)
        path.write_text("".join(f"{rng.uniform(lo, hi):.6f}\n" for _ in range(spec["count"])))
    elif kind == "bfs":
        n, deg = spec["nodes"], spec.get("degree", 4)
        adj = [[rng.randrange(n) for _ in range(rng.randint(1, 2 * deg - 1))] for _ in range(n)]
        lines, start = [f"{n}"], 0
        for a in adj:
            lines.append(f"{start} {len(a)}")
            start += len(a)
        lines += ["", "0", "", f"{start}"]
        lines += [f"{d} {rng.randint(1, 10)}" for a in adj for d in a]
        path.write_text("\n".join(lines) + "\n")
    elif kind == "points":
        n, f = spec["n"], spec["features"]
        path.write_text("".join(f"{i} " + " ".join(f"{rng.uniform(0, 1):.4f}" for _ in range(f)) + "\n"
                                for i in range(n)))
    else:
        raise ValueError(f"unknown input kind {kind!r}")
    return path
