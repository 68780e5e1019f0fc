"""`cltc coverage -- COMMAND`: coverage of a project built through cltc-cc, measured by its own test
command (ctest, make test, a script). Every instrumented process the command starts writes a log of
its own into a private CLTC_COV_LOG_DIR (runtime/include/cltc/coverage.h: its flags, by the process's
own ids, and the item table of each of its units); the logs are merged as coverage.py's parallel
mode combines its data files: an item is its file, line, column and kind, so two processes of one
program, two programs sharing a unit (a static library) and two units including one header count
one item. Each process is one "test" of the result (its reports say which processes reached what).
"""
from __future__ import annotations

import functools
import json
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from instrument import logs
from instrument.errors import UserError
from instrument.protocol import COVERAGE_LOG, Env
from instrument.reaper import temp_dir
from instrument.frontend.suppressions import CLTC_IGNORE, Suppressed

from .. import project_run
from ..judge import Verdict
from .results import CoverageResult, TestCoverage, merge_runs
from .sites import SiteTable


@dataclass
class ProcessLog:
    """One process's log: its units' items (by the process's own ids) and what it set; `counts`: every
    unit was built to count executions (CLTC_COUNT_EXECUTIONS=1)."""
    name: str
    backend: str
    table: SiteTable
    units: int
    data: TestCoverage
    launches: int
    counts: bool = False


@dataclass
class CommandRun:
    """What `cltc coverage -- COMMAND` saw: the merged result, how many processes wrote a log, how
    many began one and never finished it, those whose log has no item table, the command's status,
    and the run itself (project_run.py)."""
    result: CoverageResult | None
    processes: int
    lost: int
    foreign: int
    exit_status: int
    run: project_run.CommandRun | None = None


def _shifted(table: SiteTable, flag_base: int, barrier_base: int) -> SiteTable:
    """A unit's table with its ids moved to where the process put them."""
    return SiteTable(
        table.flags,
        [replace(f, flag=f.flag + flag_base) for f in table.functions],
        [replace(b, arms=[replace(a, flag=a.flag + flag_base) for a in b.arms]) for b in table.branches],
        [replace(lp, base=lp.base + flag_base) for lp in table.loops],
        [replace(b, index=b.index + barrier_base) for b in table.barriers])


@functools.lru_cache(maxsize=4096)
def _unit_table(text: str) -> SiteTable:
    """A unit's table as its object holds it (every process of a program carries the same text: read
    once; callers copy, never change it)."""
    return SiteTable.from_json(json.loads(text))


def _program(command: str, cwd: Path) -> str:
    """A process's command line with its program named relative to cwd where it lies under it."""
    words = command.split(" ", 1)
    try:
        p = Path(words[0])
        if p.is_absolute() and p.is_relative_to(cwd):
            words[0] = str(p.relative_to(cwd))
    except ValueError:
        pass
    return " ".join(words)


def read_log(path: Path, cwd: Path) -> ProcessLog | None:
    """A process's log; None when it holds no item table (a program cltc built whole, not cltc-cc)."""
    data = logs.read_complete(path, COVERAGE_LOG, f"the coverage log {path.name}")
    if not data["unit"]:
        return None
    table = SiteTable()
    for u in data["unit"]:
        try:
            unit = _unit_table(u.table)
        except (ValueError, KeyError, TypeError):
            raise logs.LogError(f"the coverage log {path.name} is damaged: a unit's item table does not read",
                                hint=logs.DAMAGE_HINT) from None
        unit = _shifted(unit, u.flag_base, u.barrier_base)
        table.functions += unit.functions
        table.branches += unit.branches
        table.loops += unit.loops
        table.barriers += unit.barriers
        table.flags = max(table.flags, u.flag_base + u.flags)
    proc = data["process"][0] if data["process"] else None
    name = f"{_program(proc.command, cwd)} (pid {proc.pid})" if proc else path.stem
    tc = TestCoverage(name, Verdict(True), 0.0, True,
                      flags={r.id for r in data["flag"]}, counts={r.id: r.n for r in data["count"]},
                      barrier_counts={r.barrier: r.n for r in data["barrier_count"]},
                      barrier_flags={r.id for r in data["barrier_flag"]},
                      divergences=[{"barrier": d.barrier, "block": list(d.block), "arrived": d.arrived,
                                    "threads": d.threads} for d in data["divergence"]],
                      divergence_total=data["end"][0].divergence_total)
    return ProcessLog(name, proc.backend if proc else "", table, len(data["unit"]), tc, data["end"][0].launches,
                      all(u.counts for u in data["unit"]))


def merge(processes: list[ProcessLog]) -> tuple[SiteTable, list[TestCoverage]]:
    """One table of every process's items, each item once (by file, line, column and kind), and each
    process's coverage in the merged table's ids (results.merge_runs)."""
    return merge_runs([(p.table, p.data) for p in processes])


def run_command(command: list[str], timeout: float, count_executions: bool = False) -> CommandRun:
    """Run any command (ctest, make test, a script, a program built through cltc-cc) with its output as
    it is; every instrumented process it starts writes its counters into a private directory, and
    they are merged. count_executions: every process must have counted executions (a build with
    CLTC_COUNT_EXECUTIONS=1), and the result reports the counts."""
    cwd = Path.cwd().resolve()
    with temp_dir(prefix="cltc-cov-logs-") as tmp:
        # (exited threads count as arrived, as on a GPU: a barrier part of a block skips is measured as
        # divergent instead of stopping the cpu backend's run)
        run = project_run.run(command, "coverage", Path(tmp), timeout, env={Env.CUDAEMU_EXITED_ARRIVE: "1"},
                              passthrough=True, probe=True)
        proc = run.result
        if proc.timed_out:
            raise UserError(f"the command timed out after {timeout:g}s under cltc coverage",
                            hint="raise --timeout, or check the command for a hang")
        read = [read_log(p, cwd) for p in run.logs]
    processes = sorted((p for p in read if p is not None), key=lambda p: p.name)
    foreign = len(read) - len(processes)
    if not processes:
        return CommandRun(None, 0, run.lost, foreign, proc.returncode, run)
    flags_only = [p.name for p in processes if not p.counts]
    if count_executions and flags_only:
        raise UserError(f"--count-executions: {len(flags_only)} of the command's {len(processes)} instrumented "
                        f"processes recorded flags, not counts ({flags_only[0]}): rebuild the project with "
                        f"CLTC_COUNT_EXECUTIONS=1 in the build's environment, from clean or in a build directory of "
                        f"its own (cltc-cc counts executions then), or drop --count-executions")
    table, tests = merge(processes)   # (files by their absolute names: the reports name them, --root)
    suppressed = Suppressed(CLTC_IGNORE)
    for f in {f.file for f in table.functions}:
        suppressed.of(f)   # a region left open is an error now, before any report is written
    backends = sorted({p.backend for p in processes if p.backend})
    res = CoverageResult(str(cwd), "+".join(backends) or "unknown", table, tests, [], suppressed,
                         executions=count_executions, command=shlex.join(command))
    return CommandRun(res, len(processes), run.lost, foreign, proc.returncode, run)
