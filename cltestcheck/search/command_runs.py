"""`cltc search -- PROGRAM ARGS...`: the search over a program of a project built through cltc-cc
(CLTC_MODE=coverage, as for `cltc coverage -- COMMAND`), from the command line given: its input is
the command's arguments and the files they name (a regular file, by a path relative to the current
directory or absolute, of at most MAX_FILE bytes); the program, `PROGRAM`, stays.

Each input runs as `cltc coverage -- COMMAND` runs its command (project_run.py: a private log
directory, every instrumented process it starts writing its counters with its units' item tables),
its logs read and merged by place (coverage/processes.py `read_log`, `merge`): the command's own
run gives the table of what there is to reach (`table`), and each run's items are named by their
places in it (an item of a unit the command's own run never started is a key of its own, kept but no
goal). A changed file is written into the run's scratch directory and the argument that named it
names the copy: no file of the project is written. The program runs in the current directory with
its output captured (NaN and Inf are looked for in it).

cltc-cc builds no distance helpers: the distance-guided step has nothing to measure here (the
havoc's changes and the graph generators still run)."""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

from instrument.errors import UserError
from instrument.files import not_regular
from instrument.protocol import Env
from instrument.reaper import temp_dir

from .. import project_run
from ..captured import Captured
from ..coverage import processes
from ..coverage.engine import suppressions
from ..coverage.results import TestCoverage, merge_runs
from ..coverage.sites import SiteTable
from ..judge import Verdict
from ..suite import TestCase
from .goals import keys_of
from .inputs import Input
from .runs import DEVICE_MB, Outcome, run_specials

MAX_FILE = 1 << 20
TEST = "command"


@dataclass
class CommandSuite:
    """The command as the search's one test: what loop.py asks of a suite (its root, its tests)."""
    root: Path
    command: list[str]
    tests: list[TestCase] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)


def _named_file(arg: str) -> bool:
    if not arg or arg.startswith("-") or len(arg) > 4096:
        return False
    try:
        return not_regular(Path(arg)) is None and Path(arg).stat().st_size <= MAX_FILE
    except OSError:
        return False


def command_suite(command: list[str], timeout: float) -> CommandSuite:
    from . import values
    if not command:
        raise UserError("cltc search --: no command after --",
                        hint="give the program and its input: cltc search -- ./build/bfs data/g.egr 32")
    args = list(command[1:])
    files = list(dict.fromkeys(a for a in args if _named_file(a)))
    if not files and not any(values.is_number(a) for a in args):
        raise UserError(f"cltc search -- {shlex.join(command)}: its arguments hold no number and name no file, so "
                        f"there is no input to change",
                        hint="give a program of the project (built through cltc-cc) with its input: cltc search -- "
                             "./build/bfs data/g.egr 32; a test driver such as ctest has none")
    return CommandSuite(Path.cwd().resolve(), list(command), [TestCase(TEST, args, None, files, timeout)])


def fingerprint(suite: CommandSuite, seed: int) -> str:
    """The campaign of a command: the seed, the command, the bytes of its program and of the files it
    names (a rebuilt program is another campaign)."""
    h = hashlib.sha256(json.dumps({"format": 1, "seed": seed, "command": suite.command,
                                   "cwd": str(suite.root)}).encode())
    program = shutil.which(suite.command[0]) or suite.command[0]
    for p in [program, *suite.tests[0].files]:
        if not_regular(Path(p)) is None:
            h.update(str(p).encode() + b"\0" + Path(p).read_bytes())
    return h.hexdigest()[:16]


def _places(table: SiteTable) -> dict[int, str]:
    """Each flag of a merged table -> its item's place in words (how two runs' tables name one item)."""
    from ..coverage.sites import LOOP_CASES, LOOP_LABELS
    out = {}
    for f in table.functions:
        out[f.flag] = f"{f.file}:{f.line}: [{f.name}] {f.kind} function {f.name} entered"
    for b in table.branches:
        for a in b.arms:
            out[a.flag] = f"{b.file}:{b.line}: [{b.function}] {b.kind} ({b.text}): {a.label} (column {b.col})"
    for lp in table.loops:
        for i, case in enumerate(LOOP_CASES):
            out[lp.base + i] = f"{lp.file}:{lp.line}: [{lp.function}] {lp.text}: {LOOP_LABELS[case]} (column {lp.col})"
    return out


class CommandRunner:
    """Runs the command on an input; its first run (the command as given) gives the table."""

    def __init__(self, suite: CommandSuite, work: Path):
        self.suite, self.work = suite, Path(work)
        self.warnings: list[str] = []
        self.distance = type("NoDistances", (), {"measured": {}, "loops": {}})()
        self.table: SiteTable | None = None
        self.backend = "unknown"
        test = suite.tests[0]
        table, tcs, run, _ = self._run(test.args, self.seed_input(test), test.timeout)
        if table is None:
            raise UserError(f"cltc search -- {shlex.join(suite.command)}: "
                            + project_run.nothing_ran("coverage", run),
                            hint="cltc search runs a program of a project built through cltc-cc "
                                 "(CLTC_MODE=coverage), with the input it varies: docs/cltc.md, 'Searching for inputs'")
        self.table = table
        self.suppressed = suppressions(table)

    @staticmethod
    def seed_input(test: TestCase) -> Input:
        """The command's own input: its arguments and the bytes of the files they name."""
        files = tuple((rel, Path(rel).read_bytes()) for rel in test.files)
        return Input(tuple(test.args), files, None, test.name, test.name)

    def _run(self, args, inp: Input, timeout: float, env: dict | None = None):
        """(merged table, its processes' coverage, the run) of one run of the program with `args`."""
        with temp_dir(prefix="cltc-search-cmd-") as tmp:
            tmp = Path(tmp)
            named = {}
            for k, (rel, data) in enumerate(inp.files):
                if data != _original(rel):   # (a file as the project holds it is named as the command names it)
                    copy = tmp / "in" / str(k) / Path(rel).name
                    copy.parent.mkdir(parents=True)
                    copy.write_bytes(data)
                    named[os.path.normpath(rel)] = str(copy)
            argv = [self.suite.command[0], *(named.get(os.path.normpath(a), a) for a in args)]
            (tmp / "run").mkdir()
            run = project_run.run(argv, "coverage", tmp / "run", timeout,
                                  env={Env.CUDAEMU_EXITED_ARRIVE: "1", **(env or {})}, probe=self.table is None)
            read = [processes.read_log(p, self.suite.root) for p in run.logs]
            procs = [p for p in read if p is not None]
            out = tmp / "run" / "output" / "stdout"
            stdout = Captured.of_file(out, keep=True) if out.is_file() else Captured.of_text("")
            if not procs:
                return None, [], run, stdout
            if procs[0].backend:
                self.backend = procs[0].backend
            table, tcs = processes.merge(procs)
            return table, tcs, run, stdout

    def run(self, test: TestCase, inp: Input, timeout: float, generated: bool = True) -> Outcome:
        env = {Env.CUDAEMU_DEVICE_MB: str(DEVICE_MB)} if generated else {}
        table, tcs, run, stdout = self._run(inp.args, inp, timeout, env)
        res = run.result
        keys: set[str] = set()
        divergences: list[dict] = []
        if table is not None:
            union = TestCoverage(TEST, Verdict(True), 0.0, True)
            for tc in tcs:
                union.flags |= tc.flags
                union.barrier_flags |= tc.barrier_flags
                union.divergences += tc.divergences
            merged, (_, mine) = merge_runs([(self.table, TestCoverage("", Verdict(True), 0.0, True)),
                                            (table, union)])
            places = _places(merged)   # (the command's own table keeps its ids in the merge: it comes first)
            others = {"u" + places[f] for f in mine.flags if f >= self.table.flags and f in places}
            mine = replace(mine, flags={f for f in mine.flags if f < self.table.flags},
                           barrier_flags={b for b in mine.barrier_flags if b < 2 * len(self.table.barriers)},
                           divergences=[d for d in mine.divergences if d["barrier"] < len(self.table.barriers)])
            keys = keys_of(mine) | others
            divergences = mine.divergences
        where = run_specials(_Printed(stdout))
        return Outcome(sorted(keys), res.returncode, round(res.wall_s, 3), table is not None, res.timed_out, None,
                       sorted(where), {}, divergences, stdout.excerpt(160), where)


@dataclass
class _Printed:
    """What run_specials reads of a run: its output (a command's files are its own business)."""
    stdout: Captured
    files: dict = field(default_factory=dict)


def _original(rel: str) -> bytes | None:
    try:
        return Path(rel).read_bytes()
    except OSError:
        return None
