"""What the search tries to reach: the coverage items of the program (cltc coverage's: function entries,
branch arms, loop cases, barriers reached by a whole block), each by a key of the run's coverage log,
and what a run reached, as keys. Besides the items, a run's keys hold what else its log tells apart
(a barrier some thread reached, a barrier a block reached in part: divergence): an input that shows one
first is kept too, though only the items are goals (a divergent barrier is a finding of coverage, not a
place to reach)."""
from __future__ import annotations

from dataclasses import dataclass

from ..coverage.results import TestCoverage
from ..coverage.sites import LOOP_LABELS, SiteTable


@dataclass(frozen=True)
class Goal:
    key: str             # f<flag> or b<barrier flag>
    category: str        # function | branch | loop | barrier
    function: str
    file: str
    line: int
    label: str
    suppressed: bool = False


def goals(table: SiteTable, suppressed=lambda file, line: False) -> list[Goal]:
    """The table's items, labelled as cltc coverage labels them, in file and line order."""
    out = []
    for f in table.functions:
        out.append(Goal(f"f{f.flag}", "function", f.name, f.file, f.line, f"{f.kind} function {f.name} entered"))
    for b in table.branches:
        what = f"operand `{b.text}`" if b.kind == "condition" else f"{b.kind} ({b.text})"
        for arm in b.arms:
            out.append(Goal(f"f{arm.flag}", "branch", b.function, b.file, arm.line if b.kind != "condition" else b.line,
                            f"{what}: {arm.label}"))
    for lp in table.loops:
        for case in lp.cases:
            out.append(Goal(f"f{lp.flag(case)}", "loop", lp.function, lp.file, lp.line,
                            f"{lp.text}: {LOOP_LABELS[case]}"))
    for bar in table.barriers:
        out.append(Goal(f"b{2 * bar.index + 1}", "barrier", bar.function, bar.file, bar.line,
                        f"{bar.name}() reached by every thread of a block"))
    out = [Goal(g.key, g.category, g.function, g.file, g.line, g.label, bool(suppressed(g.file, g.line)))
           for g in out]
    out.sort(key=lambda g: (g.file, g.line))
    return out


def keys_of(tc: TestCoverage) -> set[str]:
    """What a run reached: its flags, barrier flags and divergent barriers, as keys."""
    return ({f"f{f}" for f in tc.flags} | {f"b{b}" for b in tc.barrier_flags}
            | {f"d{d['barrier']}" for d in tc.divergences})


def describe_extra(key: str, table: SiteTable) -> str:
    """A key that is no goal, in words (a barrier reached by part of a block; with a command, an item of
    a unit its own run did not start: `u` and its place, command_runs.py)."""
    if key[0] == "u":
        return f"{key[1:]} (a unit the command's own input never ran)"
    idx = int(key[1:]) // 2 if key[0] == "b" else int(key[1:])
    bar = table.barriers[idx] if 0 <= idx < len(table.barriers) else None
    where = f"{bar.name}() in {bar.function} at {bar.file}:{bar.line}" if bar else f"barrier {idx}"
    return f"{where} reached by some thread" if key[0] == "b" else f"{where} reached by part of a block (divergence)"


def arms(table: SiteTable) -> dict[str, tuple[int, bool]]:
    """Each two-way branch arm's key -> (the flag of the branch's true arm, whether it is that arm): the
    distance of the comparison deciding it (search.h) says how close a run came to it."""
    out = {}
    for b in table.branches:
        if b.kind in ("if", "conditional", "condition") and len(b.arms) == 2:
            t = b.arms[0].flag
            out[f"f{t}"] = (t, True)
            out[f"f{b.arms[1].flag}"] = (t, False)
    return out


MEASURED_LOOP_CASES = ("zero", "one", "many")   # (search.h: a loop's first and second tests of an entry)


def loop_cases(table: SiteTable) -> dict[str, tuple[int, str]]:
    """Each loop case a loop condition's distance can measure: its key -> (the loop's base flag, the case)."""
    return {f"f{lp.flag(case)}": (lp.base, case) for lp in table.loops for case in lp.cases
            if case in MEASURED_LOOP_CASES}


def targets(table: SiteTable) -> dict[str, tuple[int, bool | None]]:
    """What a distance may lead to: each branch arm (`arms`) and each loop case (`loop_cases`: its flag,
    None), by key."""
    return {**arms(table), **{k: (int(k[1:]), None) for k in loop_cases(table)}}


def shown(text: str, show) -> str:
    """A line of what an input adds (FILE:LINE: ...) with its file named by `show` (ReportPaths.show)."""
    head, sep, rest = text.partition(": ")
    if sep and ":" in head:
        file, line = head.rsplit(":", 1)
        if line.isdigit():
            return f"{show(file)}:{line}: {rest}"
    return text
