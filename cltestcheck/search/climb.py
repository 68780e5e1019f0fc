"""The distance-guided step: for a branch arm no input reached, whose deciding comparison the search
measured (distance_planner.py, search.h), start from the input that came closest and move its numbers
(the alternating variable method of search-based test generation, with its exploratory and pattern
moves):

- explore: each number one up and one down (one batch); the numbers that change the distance are
  those the comparison depends on;
- move: for each of them, the step the change suggests (the distance divided by how much one unit
  changed it: for `x == 1337` fed by an argument 5, +1332 at once), that step one either way, and
  larger steps in the direction that helped (x2, x4, x16: a comparison that is not linear in the
  number); the input that comes closest becomes the start of the next round.

An episode ends when the arm is reached (distance 0), when no round brings it closer, or after EPISODE
runs. Each input tried is run as any other (the search keeps it when it reaches something new).

The numbers are those values.slots finds (numeric arguments, the numbers of text files and of the
standard input, the first words of binary files), at most MAX_SLOTS of them an episode (`choose`: the
arguments first; a second episode toward the same arm takes the next ones); a graph's structure is not
one (graphs.py changes it)."""
from __future__ import annotations

import math
from typing import Callable

from .inputs import Input
from .runs import Outcome
from .values import Slot, slots, with_slot

EPISODE = 40          # runs one episode may take
MAX_SLOTS = 8


def distance(o: Outcome, target: tuple[int, bool | None]) -> int | None:
    """How close a run came to the goal (goals.py `targets`: a branch arm as the flag of the true arm and
    whether it is that arm; a loop case as its flag and None); None: not measured."""
    if target[1] is None:
        return o.loop_distances.get(str(target[0]))
    d = o.distances.get(str(target[0]))
    return None if d is None else d[0 if target[1] else 1]


def _shown(slot: Slot, value: float) -> str:
    return str(int(round(value))) if slot.integral and math.isfinite(value) else f"{value:g}"


def _moves(slot: Slot, d: int, unit_gain: float, sign: int) -> list[float]:
    """Steps for a number that one unit (in direction `sign`) brought `unit_gain` closer."""
    if unit_gain > 0:
        guess = d / unit_gain
        base = [math.ceil(guess), math.floor(guess), math.ceil(guess) + 1, max(1, math.floor(guess) - 1)]
    else:
        base = []
    grow = [2, 4, 16, 256] if slot.integral else [0.5, 2, 4, 16]
    scale = max(abs(slot.value), 1.0) if not slot.integral else 1
    out = []
    for s in [*base, *(g * scale for g in grow)]:
        if s and sign * s not in out:
            out.append(sign * s)
    return out


def choose(found: list[Slot], episode: int) -> list[Slot]:
    """The numbers an episode moves, at most MAX_SLOTS of them: the numeric arguments first (a size, a
    key, a parameter: what decides a branch more often than one value of a file), then the numbers of
    the standard input and of the files in turn (the first of each, then the second of each, ...). The
    `episode`-th toward an arm (from 0) starts MAX_SLOTS * episode further along that order, so that a
    second episode moves the numbers the first did not (scale(n, k, x, y)'s pytest input: n, k and x's
    and y's first three values, then their next four)."""
    if len(found) <= MAX_SLOTS:
        return found
    groups: dict[tuple[str, str], list[Slot]] = {}
    for s in found:
        groups.setdefault((s.kind, s.where) if s.kind != "arg" else ("arg", ""), []).append(s)
    order = groups.pop(("arg", ""), [])
    rest = list(groups.values())
    for i in range(max(len(g) for g in rest) if rest else 0):
        order += [g[i] for g in rest if i < len(g)]
    k = (episode * MAX_SLOTS) % len(order)
    return (order[k:] + order[:k])[:MAX_SLOTS]


def climb(start: Input, start_d: int, target: tuple[int, bool], binary: dict[str, bool],
          evaluate: Callable[[list[Input]], list[Outcome]], runs_left: Callable[[], int],
          episode: int = 0) -> int:
    """One episode (the `episode`-th toward this arm, from 0) from `start` toward `target`; `evaluate`
    runs inputs (journaled, kept as the search keeps any), `runs_left` says how many the budget still
    allows. Each input tried names start's parent and adds its own step to start's changes. Returns the
    distance reached."""
    cur, cur_d = start, start_d
    places = [(s.kind, s.where, s.index) for s in choose(slots(start, binary), episode)]
    used = 0

    def run(moves: list[tuple[Slot, float]]) -> list[tuple[int | None, Input, Slot, float]]:
        nonlocal used
        seen, cands, made = {cur.digest}, [], []
        for slot, step in moves:
            c = with_slot(cur, slot, slot.value + step)
            if c.digest not in seen:
                seen.add(c.digest)
                cands.append(c.derived(cur.parent, [*cur.how, f"{slot.describe()}: {_shown(slot, slot.value)} -> "
                                                              f"{_shown(slot, slot.value + step)} (distance {cur_d})"]))
                made.append((slot, step))
        room = max(0, min(runs_left(), EPISODE - used))
        cands, made = cands[:room], made[:room]
        if not cands:
            return []
        outs = evaluate(cands)
        used += len(cands)
        return [(None if o.failed else distance(o, target), c, s, st) for o, c, (s, st) in zip(outs, cands, made)]

    while cur_d > 0 and used < EPISODE and runs_left() > 0:
        now = {(s.kind, s.where, s.index): s for s in slots(cur, binary)}
        current = [now[p] for p in places if p in now]
        probes = run([(s, step) for s in current for step in (1, -1)])
        if not probes:
            break
        best = min(((d, k) for k, (d, *_r) in enumerate(probes) if d is not None), default=None)
        if best is not None and best[0] == 0:
            return 0
        moves = []
        for s in current:
            gains = {st: cur_d - d for d, _, sl, st in probes if sl == s and d is not None}
            if not gains or all(g == 0 for g in gains.values()):
                continue   # the comparison does not depend on this number
            sign = 1 if gains.get(1, -math.inf) >= gains.get(-1, -math.inf) else -1
            moves += [(s, st) for st in _moves(s, cur_d, gains.get(sign, 0), sign)]
        tried = probes + run(moves)
        best = min(((d, k) for k, (d, *_r) in enumerate(tried) if d is not None), default=None)
        if best is None or best[0] >= cur_d:
            break
        cur_d, cur = best[0], tried[best[1]][1]
    return cur_d
