"""Schedule families: which block orders a test runs under, and how each backend applies one.

A schedule spec ('first:W', 'asc', 'desc', 'random:S', 'free') is declared, with its one parser, in
instrument/protocol.py (SCHEDULE_FORMS, parse_schedule), which the runtime's gate reads too
(cltc/schedule.h, through the generated protocol.h). A family list (`--schedules`, the `schedules`
key of cltc.toml) is read here, by `families`, wherever it is given."""
from __future__ import annotations

import random

from instrument.errors import UserError
from instrument.protocol import ScheduleMode, SerialOrder, parse_schedule, schedule_spec

FAMILIES = {
    "first": "block W runs first, for one W drawn from each 10 consecutive block ids (N/10 schedules)",
    "serial": "blocks one at a time: ascending, descending and 3 random permutations",
    "free": "blocks as the hardware dispatches them, renamed by dispatch order",
    "all": "first + serial + free",
}


def _explicit(spec: str) -> bool:
    """A single schedule named directly: first:W, asc, desc, random:S (free is also a family)."""
    s = parse_schedule(spec, strict=True)
    return s is not None and s.mode != ScheduleMode.NONE and spec not in FAMILIES


def families(value: str | list[str]) -> list[str]:
    """A list of families and/or single schedules (to reproduce one): 'first,free', 'first:17, desc'
    or ["first", "desc"]; an unknown name is an error naming the choices."""
    names = value if isinstance(value, list) else value.split(",")
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise UserError("no schedule family given", hint="choose from: " + ", ".join(FAMILIES))
    for n in names:
        if n not in FAMILIES and not _explicit(n):
            raise UserError(f"unknown schedule family '{n}'",
                            hint="choose from: " + "; ".join(f"{k} ({v})" for k, v in FAMILIES.items())
                                 + "; or one schedule: first:W, asc, desc, random:SEED")
    return names


def make(family: str, blocks: int, seed: int, permutations: int = 3) -> list[str]:
    """Schedule specs ('first:W', 'asc', 'desc', 'random:S', 'free') for a grid of `blocks` blocks.
    `family` lists families and/or single schedules (to reproduce one): 'first,free' or 'first:17,desc'."""
    names = families(family)
    explicit = [n for n in names if _explicit(n)]
    names = [n for n in names if not _explicit(n)]
    if "all" in names:
        names = ["first", "serial", "free"]
    rng = random.Random(seed)
    out: list[str] = []
    if "first" in names:
        for g in range(0, max(1, blocks), 10):
            out.append(schedule_spec("first", rng.randrange(g, min(g + 10, max(1, blocks)))))
    if "serial" in names:
        out += ["asc", "desc"] + [schedule_spec("random", rng.randrange(1, 1 << 30)) for _ in range(permutations)]
    if "free" in names:
        out.append("free")
    return out + [e for e in explicit if e not in out]


def order_env(backend, spec: str) -> dict:
    """The environment that gives a schedule on a backend that orders blocks itself (the cpu
    backend runs blocks one after another); {} elsewhere (the schedule gate imposes it)."""
    s = parse_schedule(spec)
    if s.mode == ScheduleMode.FIRST:
        return backend.block_order_env(str(s.first))
    if s.mode == ScheduleMode.SERIAL and s.first == SerialOrder.RANDOM:
        return backend.block_order_env("random", s.seed)
    return backend.block_order_env("desc" if s.mode == ScheduleMode.SERIAL and s.first == SerialOrder.DESC else "asc")
