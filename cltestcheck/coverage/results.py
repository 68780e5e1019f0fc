"""Coverage results: the site table plus what each test covered; every report reads this."""
from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Callable

from instrument.errors import UserError
from instrument.report_paths import ReportPaths, find_root

from ..judge import Verdict
from .sites import LOOP_CASES, LOOP_LABELS, Arm, SiteTable


@dataclass
class TestCoverage:
    name: str
    verdict: Verdict
    wall_s: float
    collected: bool                      # False: the run left no coverage log (killed)
    flags: set[int] = field(default_factory=set)
    counts: dict[int, int] = field(default_factory=dict)   # flag -> threads that passed it (counting builds)
    barrier_counts: dict[int, int] = field(default_factory=dict)   # barrier -> threads that arrived (the same)
    barrier_flags: set[int] = field(default_factory=set)
    divergences: list[dict] = field(default_factory=list)
    divergence_total: int = 0


@dataclass
class Item:
    """One thing that can be covered."""
    category: str        # branch | loop | barrier | function
    function: str
    file: str
    line: int
    label: str
    covered: bool
    tests: list[str]     # tests that covered it
    case: str = ""       # loops: zero/one/many/boundary
    suppressed: bool = False   # its line is marked `cltc: ignore`: listed, never counted
    executions: int | None = None   # threads that passed it, over all tests (--count-executions)


@dataclass
class Tally:
    branches: list[int] = field(default_factory=lambda: [0, 0])      # covered, total
    loops: dict[str, list[int]] = field(default_factory=lambda: {c: [0, 0] for c in LOOP_CASES})
    barriers: list[int] = field(default_factory=lambda: [0, 0])
    divergent: int = 0

    def add(self, it: Item) -> None:
        if it.suppressed:
            return
        slot = self.branches if it.category == "branch" else self.barriers if it.category == "barrier" \
            else self.loops[it.case] if it.category == "loop" else None
        if slot is None:
            return
        slot[1] += 1
        slot[0] += it.covered

    @property
    def loop_total(self) -> list[int]:
        return [sum(v[0] for v in self.loops.values()), sum(v[1] for v in self.loops.values())]

    @property
    def items(self) -> list[int]:
        """The headline total: every branch arm, loop case and barrier (covered, total); functions
        entered are listed, not counted (--fail-under's total)."""
        lt = self.loop_total
        return [self.branches[0] + lt[0] + self.barriers[0], self.branches[1] + lt[1] + self.barriers[1]]


def pct(pair: list[int]) -> float | None:
    return None if pair[1] == 0 else 100.0 * pair[0] / pair[1]


@dataclass
class CoverageResult:
    suite: str
    backend: str
    table: SiteTable
    tests: list[TestCoverage]
    warnings: list[str] = field(default_factory=list)
    suppressed: Callable[[str, int], bool] = lambda file, line: False   # (file, line) marked `cltc: ignore`
    executions: bool = False   # the run counted the threads passing each item (TestCoverage.counts)
    command: str = ""          # `cltc coverage -- COMMAND`: the command; its tests are its processes
    combined: list[str] = field(default_factory=list)   # `cltc coverage combine`: the JSON files merged
    paths: ReportPaths | None = None   # how the reports name files (--root); None: the suite's default root

    def report_paths(self) -> ReportPaths:
        return self.paths or ReportPaths(find_root(self.suite))

    def show(self, path: str) -> str:
        """A file as the reports name it: relative to the root where it lies there, else absolute."""
        return self.report_paths().show(path)

    def select(self, include: list[str] | None, omit: list[str] | None) -> "CoverageResult":
        """The result of the files --include and --omit keep (globs against the root-relative path, as
        coverage.py's); an error when they keep none of the measured files."""
        if not include and not omit:
            return self
        paths = self.report_paths()
        files = sorted({f.file for f in self.table.functions} | {b.file for b in self.table.branches})
        kept = {f for f in files if paths.selected(f, include, omit)}
        if files and not kept:
            given = " ".join([*(f"--include {g}" for g in include or []), *(f"--omit {g}" for g in omit or [])])
            raise UserError(f"{given}: no measured file is kept (measured: "
                            f"{', '.join(paths.show(f) for f in files[:5])}{', ...' if len(files) > 5 else ''})",
                            hint="globs match the path relative to the root (--root), or the absolute path; "
                                 "'*' matches across directories: --include 'src/*'")
        table, tests = merge_runs([(self.table, t) for t in self.tests], keep=lambda f: f in kept)
        return replace(self, table=table, tests=tests)

    def executed(self, flag: int) -> int:
        """Threads that passed flag's item, summed over the tests (counting runs)."""
        return sum(t.counts.get(flag, 0) for t in self.tests)

    def _who(self, attr: str, flag: int) -> list[str]:
        return [t.name for t in self.tests if flag in getattr(t, attr)]

    def items(self) -> list[Item]:
        out: list[Item] = []

        def runs(flag: int) -> int | None:
            return self.executed(flag) if self.executions else None

        for f in self.table.functions:
            who = self._who("flags", f.flag)
            out.append(Item("function", f.name, f.file, f.line, f"{f.kind} function {f.name} entered", bool(who), who,
                            executions=runs(f.flag)))
        for b in self.table.branches:
            for arm in b.arms:
                who = self._who("flags", arm.flag)
                what = f"operand `{b.text}`" if b.kind == "condition" else f"{b.kind} ({b.text})"
                out.append(Item("branch", b.function, b.file, arm.line if b.kind != "condition" else b.line,
                                f"{what}: {arm.label}", bool(who), who, executions=runs(arm.flag)))
        for lp in self.table.loops:
            for case in lp.cases:
                who = self._who("flags", lp.flag(case))
                out.append(Item("loop", lp.function, lp.file, lp.line, f"{lp.text}: {LOOP_LABELS[case]}",
                                bool(who), who, case, executions=runs(lp.flag(case))))
        for bar in self.table.barriers:
            who = self._who("barrier_flags", 2 * bar.index + 1)
            out.append(Item("barrier", bar.function, bar.file, bar.line,
                            f"{bar.name}() reached by every thread of a block", bool(who), who))
        for it in out:
            it.suppressed = self.suppressed(it.file, it.line)

        out.sort(key=lambda i: (i.file, i.line))
        return out

    def divergences(self) -> list[dict]:
        """Barriers reached by part of a block: one entry per barrier, shown by the instance of fewest
        arrivals in its first block (blocks ordered z, y, x): the same on every backend, whichever
        order the GPU's blocks recorded theirs in."""
        by_barrier: dict[int, dict] = OrderedDict()
        seen: set[tuple] = set()
        for t in self.tests:
            for d in t.divergences:
                e = by_barrier.setdefault(d["barrier"], {**d, "tests": [], "blocks": 0})
                if (d["block"][::-1], d["arrived"]) < (e["block"][::-1], e["arrived"]):
                    e.update(block=d["block"], arrived=d["arrived"], threads=d["threads"])
                if t.name not in e["tests"]:
                    e["tests"].append(t.name)
                key = (d["barrier"], tuple(d["block"]))
                if key not in seen:     # the GPU may record a block once per warp; tests share blocks
                    seen.add(key)
                    e["blocks"] += 1
        out = []
        for idx, e in sorted(by_barrier.items()):   # in the barriers' order, however the records came
            bar = self.table.barriers[idx]
            out.append({"barrier": bar.name, "file": bar.file, "line": bar.line, "function": bar.function,
                        "block": e["block"], "arrived": e["arrived"], "threads": e["threads"],
                        "tests": e["tests"], "blocks_seen": e["blocks"]})
        return out

    def tally_by(self, key: str) -> "OrderedDict[str, Tally]":
        """Totals per 'function' or 'file'."""
        groups: OrderedDict[str, Tally] = OrderedDict()
        kinds = {f.name: f for f in self.table.functions}
        names = [f.name for f in self.table.functions] if key == "function" else \
            sorted({f.file for f in self.table.functions})
        for n in names:
            groups[n] = Tally()
        for it in self.items():
            k = it.function if key == "function" else it.file
            if key == "function" and k not in kinds:
                continue
            groups.setdefault(k, Tally()).add(it)
        div = self.divergences()
        for d in div:
            k = d["function"] if key == "function" else d["file"]
            if k in groups:
                groups[k].divergent += 1
        return groups

    def total(self) -> Tally:
        t = Tally()
        for it in self.items():
            t.add(it)
        t.divergent = len(self.divergences())
        return t

    def contributions(self) -> list[dict]:
        """Per test: items it covered, and items no other test covered."""
        items = [i for i in self.items() if i.category != "function" and not i.suppressed]
        out = []
        for t in self.tests:
            mine = [i for i in items if t.name in i.tests]
            only = [i for i in mine if i.tests == [t.name]]
            out.append({"test": t.name, "passed": t.verdict.passed, "reason": t.verdict.reason,
                        "collected": t.collected, "covered": len(mine), "unique": len(only),
                        "wall_s": round(t.wall_s, 4)})
        return out


def _file(path: str) -> str:
    return os.path.normpath(path)


def merge_runs(runs: list[tuple[SiteTable, TestCoverage]], keep: Callable[[str], bool] | None = None
               ) -> tuple[SiteTable, list[TestCoverage]]:
    """One table of every run's items, each item once (by file, line, column and kind, as coverage.py's
    combine), and each run's coverage in the merged table's ids; `keep`: the files whose items stay
    (--include/--omit: the others' items, flags and divergences are dropped)."""
    table = SiteTable()
    keys: dict = {}      # item key -> its flag (barrier: its index) in the merge

    def flags(n: int) -> int:
        base = table.flags
        table.flags += n
        return base

    tests = []
    for run_table, d in runs:
        flag_of: dict[int, int] = {}
        barrier_of: dict[int, int] = {}
        for f in run_table.functions:
            if keep and not keep(f.file):
                continue
            key = ("function", _file(f.file), f.line, f.name, f.kind)
            if key not in keys:
                keys[key] = flags(1)
                table.functions.append(replace(f, file=_file(f.file), flag=keys[key]))
            flag_of[f.flag] = keys[key]
        for b in run_table.branches:
            if keep and not keep(b.file):
                continue
            key = ("branch", b.kind, _file(b.file), b.line, b.col, tuple(a.label for a in b.arms))
            if key not in keys:
                base = keys[key] = flags(len(b.arms))
                table.branches.append(replace(b, file=_file(b.file), arms=[
                    Arm(a.label, base + i, a.line, list(a.body)) for i, a in enumerate(b.arms)]))
            for i, a in enumerate(b.arms):
                flag_of[a.flag] = keys[key] + i
        for lp in run_table.loops:
            if keep and not keep(lp.file):
                continue
            key = ("loop", lp.kind, _file(lp.file), lp.line, lp.col, tuple(lp.cases))
            if key not in keys:
                keys[key] = flags(len(LOOP_CASES))
                table.loops.append(replace(lp, file=_file(lp.file), base=keys[key]))
            for i in range(len(LOOP_CASES)):
                flag_of[lp.base + i] = keys[key] + i
        for bar in run_table.barriers:
            if keep and not keep(bar.file):
                continue
            key = ("barrier", bar.name, _file(bar.file), bar.line, bar.col)
            if key not in keys:
                keys[key] = len(table.barriers)
                table.barriers.append(replace(bar, file=_file(bar.file), index=keys[key]))
            barrier_of[bar.index] = keys[key]
        counts: dict[int, int] = {}
        for f, n in d.counts.items():
            if f in flag_of:
                counts[flag_of[f]] = counts.get(flag_of[f], 0) + n
        bcounts: dict[int, int] = {}
        for b, n in d.barrier_counts.items():
            if b in barrier_of:
                bcounts[barrier_of[b]] = bcounts.get(barrier_of[b], 0) + n
        tests.append(replace(
            d, flags={flag_of[f] for f in d.flags if f in flag_of}, counts=counts, barrier_counts=bcounts,
            barrier_flags={2 * barrier_of[i // 2] + i % 2 for i in d.barrier_flags if i // 2 in barrier_of},
            divergences=[{**x, "barrier": barrier_of[x["barrier"]]} for x in d.divergences
                         if x["barrier"] in barrier_of]))
    return table, tests


def line_hits(res: CoverageResult) -> dict[tuple[str, int], int]:
    """For each measured line, how many tests reached it (any arm, loop case or barrier arrival; the
    lines of code inside an if/else arm count the tests that took that arm); in a counting run, how
    many threads executed it instead (a branch's evaluations, an arm's passes, a loop's entries, a
    function's entries, a barrier's arrivals)."""
    tests: dict[tuple[str, int], set[str]] = {}
    runs: dict[tuple[str, int], int] = {}

    def add(file, line, flags_attr, flags, executed=None):
        s = tests.setdefault((file, line), set())
        for t in res.tests:
            if any(f in getattr(t, flags_attr) for f in flags):
                s.add(t.name)
        if res.executions:   # one line of several items: the most executed
            n = sum(res.executed(f) for f in (flags if executed is None else executed))
            runs[(file, line)] = max(runs.get((file, line), 0), n)

    for f in res.table.functions:
        add(f.file, f.line, "flags", [f.flag])
    # an arm's own lines ran in the tests that took it (untaken, they are missed); a line inside
    # nested arms counts with the innermost one: the outer arm running says nothing of the inner
    innermost: dict[tuple[str, int], tuple[int, int]] = {}
    for b in res.table.branches:
        add(b.file, b.line, "flags", [a.flag for a in b.arms])
        for a in b.arms:
            for line in a.body:
                key = (b.file, line)
                if line != b.line and (key not in innermost or len(a.body) < innermost[key][0]):
                    innermost[key] = (len(a.body), a.flag)
    for (file, line), (_, flag) in innermost.items():
        add(file, line, "flags", [flag])
    for lp in res.table.loops:   # entries: each ends in exactly one of zero, one, many iterations
        add(lp.file, lp.line, "flags", [lp.base + i for i in range(4)], [lp.base + i for i in range(3)])
    for bar in res.table.barriers:
        add(bar.file, bar.line, "barrier_flags", [2 * bar.index], [])
        if res.executions:
            n = sum(t.barrier_counts.get(bar.index, 0) for t in res.tests)
            runs[(bar.file, bar.line)] = max(runs[(bar.file, bar.line)], n)
    hits = runs if res.executions else {k: len(v) for k, v in tests.items()}
    return {k: v for k, v in sorted(hits.items()) if not res.suppressed(*k)}   # lcov's EXCL: no record


def branch_points(res: CoverageResult) -> list[tuple[str, int, list[tuple[str, int]]]]:
    """(file, line, [(label, tests that took it)]) for every branch, loop and barrier, in order:
    the branch data of lcov and Cobertura (a counting run: threads that took an arm or loop case)."""
    def count(attr, flag):
        if res.executions and attr == "flags":
            return res.executed(flag)
        return sum(flag in getattr(t, attr) for t in res.tests)

    out = []
    for b in res.table.branches:
        out.append((b.file, b.line, [(f"{b.kind} {a.label}", count("flags", a.flag)) for a in b.arms]))
    for lp in res.table.loops:
        out.append((lp.file, lp.line, [(f"loop {LOOP_LABELS[c]}", count("flags", lp.flag(c))) for c in lp.cases]))
    for bar in res.table.barriers:
        out.append((bar.file, bar.line, [(f"{bar.name} whole block", count("barrier_flags", 2 * bar.index + 1))]))
    out = [x for x in out if not res.suppressed(x[0], x[1])]
    out.sort(key=lambda x: (x[0], x[1]))
    return out


def _frac_text(pair: list[int]) -> str:
    return "-" if pair[1] == 0 else f"{pair[0]}/{pair[1]} ({pct(pair):.1f}%)"
