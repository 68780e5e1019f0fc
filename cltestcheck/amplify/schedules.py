"""Schedule families: which block orders a test runs under, and how each backend applies one."""
from __future__ import annotations

import random

from instrument.errors import UserError

FAMILIES = {
    "first": "block W runs first, for one W drawn from each 10 consecutive block ids (N/10 schedules)",
    "serial": "blocks one at a time: ascending, descending and 3 random permutations",
    "free": "blocks as the hardware dispatches them, renamed by dispatch order",
    "all": "first + serial + free",
}


def _explicit(spec: str) -> bool:
    """A single schedule named directly: first:W, asc, desc, random:S (free is also a family)."""
    head, _, num = spec.partition(":")
    return spec in ("asc", "desc") or (head in ("first", "random") and num.isdigit())


def make(family: str, blocks: int, seed: int, permutations: int = 3) -> list[str]:
    """Schedule specs ('first:W', 'asc', 'desc', 'random:S', 'free') for a grid of `blocks` blocks.
    `family` lists families and/or single schedules (to reproduce one): 'first,free' or 'first:17,desc'."""
    names = family.split(",")
    explicit = [n for n in names if _explicit(n)]
    names = [n for n in names if not _explicit(n)]
    for n in names:
        if n not in FAMILIES:
            raise UserError(f"unknown schedule family '{n}'",
                            hint="choose from: " + "; ".join(f"{k} ({v})" for k, v in FAMILIES.items()))
    if "all" in names:
        names = ["first", "serial", "free"]
    rng = random.Random(seed)
    out: list[str] = []
    if "first" in names:
        for g in range(0, max(1, blocks), 10):
            out.append(f"first:{rng.randrange(g, min(g + 10, max(1, blocks)))}")
    if "serial" in names:
        out += ["asc", "desc"] + [f"random:{rng.randrange(1, 1 << 30)}" for _ in range(permutations)]
    if "free" in names:
        out.append("free")
    return out + [e for e in explicit if e not in out]


def order_env(backend, spec: str) -> dict:
    """The environment that gives a schedule on a backend that orders blocks itself (the cpu
    backend runs blocks one after another); {} elsewhere (the schedule gate imposes it)."""
    if spec.startswith("first:"):
        return backend.block_order_env(spec[6:])
    if spec.startswith("random:"):
        return backend.block_order_env("random", int(spec[7:]))
    return backend.block_order_env(spec if spec in ("asc", "desc") else "asc")
