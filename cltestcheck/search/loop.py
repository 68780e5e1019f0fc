"""The search loop: the suite's tests run first (the seeds: what they reach is reached already); then,
until the budget is spent or every coverage item is reached, batches of new inputs, each made from an
input of the corpus (the seeds and every input kept) by havoc.py, and, when BATCH * STALL_BATCHES runs in
a row have reached nothing new, a distance-guided episode (climb.py) toward the unreached branch arm that
a run came closest to. An input is kept when its run reaches a coverage key no earlier input reached
(goals.py), or prints NaN or Inf where its seed test did not (a finding); a kept input is written as a
test at once (suite_out.py), joins the corpus, and with --check races runs under hirace (races.py).

Reproducible: run i's changes are drawn from numpy's generator seeded with (seed, i), and a batch's
inputs are all made before any of them runs, from the corpus as it was, so `-j` changes nothing but the
time. Every run is journaled (journal.py): a rerun over the same folder replays the search and goes on."""
from __future__ import annotations

import shlex
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from instrument.backends import get_backend
from instrument.errors import UserError
from instrument.execution import Campaign, Task, open_executor
from instrument.execution.journal import campaign_lock
from instrument.progress import Progress, Warnings
from instrument.reaper import temp_dir
from instrument.report_paths import ReportPaths, find_root

from ..suite import Suite, TestCase
from . import climb as climbing
from . import goals as goal_mod
from . import havoc
from .inputs import Input, pytest_seed, seed_input
from .journal import JOURNAL, Journal, check_out, fingerprint
from .races import race_key
from .runs import CoverageRunner, Outcome
from .suite_out import CommandWriter, Kept, PytestWriter, SuiteWriter

BATCH = 4               # inputs made at once (from the same corpus), whatever -j is
STALL_BATCHES = 2       # batches without anything new before a distance-guided episode
EPISODES_PER_ARM = 2
RETRIES = 8             # tries to make an input not made before
DEFAULT_RUNS = 200


@dataclass
class Entry:
    """An input of the corpus: a seed test's, or one the search kept."""
    name: str
    test: TestCase
    inp: Input


@dataclass
class SearchResult:
    suite: str
    backend: str
    seed: int
    out: Path
    budget: str
    goals: list[goal_mod.Goal]
    seed_reached: set[str]                  # keys the suite's tests reached
    reached_by: dict[str, str]              # goal key -> the first input (test or kept name) that reached it
    kept: list[Kept]
    closest: dict[str, tuple[int, str]]     # unreached arm's key -> (least distance, where)
    specials: list[dict] = field(default_factory=list)   # NaN / Inf findings
    races: list[dict] = field(default_factory=list)      # each with its input
    race_checks: dict[str, str | None] = field(default_factory=dict)   # input -> why its check told nothing
    failures: list[dict] = field(default_factory=list)
    runs: int = 0                           # generated inputs run (or replayed)
    replayed: int = 0
    wall_s: float = 0.0
    stopped: str = ""
    comparisons: int = 0                    # branch comparisons measured for distances
    loops: int = 0                          # loop conditions measured for distances
    episodes: int = 0
    warnings: list[str] = field(default_factory=list)
    checked_races: bool = False
    command: str = ""                       # cltc search -- COMMAND: the command (else "")
    kind: str = "program"                   # the suite's: program | pytest | command
    # unreached arm's key -> the input that came closest: {test, from, how, args} (a run not kept is
    # written nowhere: this is how to make it again); other unreached goals -> why no distance
    closest_inputs: dict[str, dict] = field(default_factory=dict)
    no_distance: dict[str, str] = field(default_factory=dict)

    def unreached(self) -> list[goal_mod.Goal]:
        return [g for g in self.goals if g.key not in self.reached_by and not g.suppressed]

    @property
    def findings(self) -> int:
        return len(self.specials) + len(self.races)


def _run_task(_build, runner, test, inp, timeout, generated):
    return runner.run(test, inp, timeout, generated)


class Search:
    def __init__(self, suite: Suite, runner: CoverageRunner, journal: Journal, writer: SuiteWriter, seed: int,
                 campaign: Campaign, races=None, progress: Progress | None = None):
        self.suite, self.runner, self.journal, self.writer, self.seed = suite, runner, journal, writer, seed
        self.campaign, self.races, self.bar = campaign, races, progress
        self.goals = goal_mod.goals(runner.table, runner.suppressed)
        self.goal_keys = {g.key for g in self.goals if not g.suppressed}
        self.arms = goal_mod.targets(runner.table)   # (branch arms and loop cases)
        self.reached: set[str] = set()
        self.reached_by: dict[str, str] = {}
        self.corpus: list[Entry] = []
        self.seen: set[str] = set()
        self.kept: list[Kept] = []
        # unreached arm -> the runs that came closest to it, closest first (distance, where, input, test)
        self.closest: dict[str, list[tuple[int, str, Input, TestCase]]] = {}
        self.specials: list[dict] = []
        self.seed_specials: dict[str, set[str]] = {}
        self.failures: list[dict] = []
        self.found_races: dict[str, dict] = {}
        self.race_checks: dict[str, str | None] = {}
        self.timeouts: dict[str, float] = {}
        self.kinds: dict[str, dict[str, str]] = {}
        self.replayed = 0       # generated inputs the journal had
        self.runs = 0           # generated inputs run (the budget's count)
        self.draws = 0          # inputs drawn (run i's generator is seeded with (seed, i))
        self.stall = 0
        self.episodes: dict[str, int] = {}

    # -- running inputs, through the journal ---------------------------------------------------
    def evaluate(self, jobs: list[tuple[str, TestCase, Input, float, bool]]) -> list[Outcome]:
        out: list[Outcome | None] = [None] * len(jobs)
        todo = []
        for k, (key, test, inp, timeout, generated) in enumerate(jobs):
            v = self.journal.get(key, inp.digest)
            if v is None:
                todo.append(Task(str(k), _run_task, (self.runner, test, inp, timeout, generated)))
            else:
                out[k] = Outcome.from_json(v)
                self.replayed += generated
        for d in self.campaign.run(todo):
            if not d.ok:
                raise UserError(d.error)
            k = int(d.key)
            out[k] = d.value
            self.journal.add(jobs[k][0], jobs[k][2].digest, d.value.to_json())
        if self.bar is not None:
            self.bar.step(sum(1 for j in jobs if j[4]))
        return out

    # -- what a run showed --------------------------------------------------------------------
    def _describe(self, keys: set[str]) -> list[str]:
        goals = [g for g in self.goals if g.key in keys]
        extra = sorted(k for k in keys if k not in {g.key for g in self.goals})
        return ([f"{g.file}:{g.line}: [{g.function}] {g.label}" for g in goals]
                + [goal_mod.describe_extra(k, self.runner.table) for k in extra])

    def absorb(self, where: str, test: TestCase, inp: Input, o: Outcome, ordinal: int = 0) -> None:
        """Decide on one generated input's run (in the order the inputs were made; `ordinal`: which
        generated run it was, from 1, as the budget counts them)."""
        self.seen.add(inp.digest)
        why = o.failed
        if why:
            self.failures.append({"run": where, "why": why, "seed": inp.seed, "args": list(inp.args),
                                  "how": list(inp.how)})
            self.stall += 1
            return
        new = set(o.keys) - self.reached
        special = [s for s in o.special if s not in self.seed_specials.get(inp.seed, set())
                   and not any(f["kind"] == s and f["seed"] == inp.seed for f in self.specials)]
        name = f"search-{len(self.kept) + 1:03d}" if new or special else None
        self._closer(o, name or where, inp, test)
        if name is None:
            self.stall += 1
            return
        self.stall = 0
        for s in special:
            self.specials.append({"kind": s, "input": name, "seed": inp.seed, "where": o.where.get(s, "its output"),
                                  "stdout": o.stdout})
        self._reach(new, name)
        why = "coverage" if new else special[0]
        kept = Kept(name, test, inp, o.exit_code, self._describe(new), why, o.where.get(why, ""), ordinal)
        self.kept.append(kept)
        self.writer.add(kept)
        self.corpus.append(Entry(name, test, inp))
        self._check_races(name, test, inp)

    def _closer(self, o: Outcome, where: str, inp: Input, test: TestCase) -> None:
        """Note the run where it came among the closest to an unreached branch arm (the EPISODES_PER_ARM
        closest inputs: each episode starts from the next)."""
        seen = [(f"f{flag}", d) for flag, d in o.loop_distances.items()]
        for flag, (to_true, to_false) in o.distances.items():
            seen += [(f"f{flag}", to_true), (f"f{int(flag) + 1}", to_false)]
        for key, d in seen:
            if key in self.reached or key not in self.arms:
                continue
            best = self.closest.setdefault(key, [])
            if len(best) < EPISODES_PER_ARM or d < best[-1][0]:
                best.append((d, where, inp, test))
                best.sort(key=lambda e: e[0])   # (stable: the earlier run first among equals)
                del best[EPISODES_PER_ARM:]

    def _reach(self, keys: set[str], name: str) -> None:
        self.reached |= keys
        for k in keys:
            self.reached_by.setdefault(k, name)
            self.closest.pop(k, None)

    def _check_races(self, name: str, test: TestCase, inp: Input) -> None:
        if self.races is None:
            return
        key = f"races:{name}"
        value = self.journal.get(key, inp.digest)
        if value is None:
            found, why = self.races.check(test, inp, self.timeouts[test.name])
            value = {"races": found, "problem": why}
            self.journal.add(key, inp.digest, value)
        self.race_checks[name] = value["problem"]
        for r in value["races"]:
            self.found_races.setdefault(race_key(r), {**r, "input": name, "seed": inp.seed})

    # -- the seeds ------------------------------------------------------------------------------
    def seeds(self) -> set[str]:
        made = getattr(self.runner, "seed_input", None)
        inputs = [made(t) if made else seed_input(self.suite, t) for t in self.suite.tests]
        outs = self.evaluate([(f"seed:{t.name}", t, i, t.timeout, False) for t, i in zip(self.suite.tests, inputs)])
        for t, inp, o in zip(self.suite.tests, inputs, outs):
            self.seen.add(inp.digest)
            if t.pytest:   # (its input is what its launches were given: known once it ran)
                inp = pytest_seed(t, o.launches)
                self.seen.add(inp.digest)
            self.timeouts[t.name] = min(t.timeout, max(5.0, 20 * o.wall_s))
            self.kinds[t.name] = havoc.formats(inp)
            if o.failed:
                self.failures.append({"run": f"test '{t.name}'", "why": o.failed, "seed": t.name,
                                      "args": list(inp.args), "how": []})
                continue
            self.seed_specials[t.name] = set(o.special)
            self._reach(set(o.keys), f"test '{t.name}'")
            self.corpus.append(Entry(f"test '{t.name}'", t, inp))
            self._check_races(f"test '{t.name}'", t, inp)
            self._closer(o, f"test '{t.name}'", inp, t)
        if not self.corpus:
            raise UserError("no test of the suite ran to its end with coverage: the search has nothing to start from",
                            hint="run `cltc coverage --suite` on it to see why")
        return set(self.reached)

    # -- the loop -------------------------------------------------------------------------------
    def _havoc_batch(self, n: int) -> list[tuple[str, TestCase, Input, float, bool]]:
        jobs, made = [], set()
        weights = np.array([1.0 if e.name.startswith("test '") else 3.0 for e in self.corpus])
        weights /= weights.sum()
        for _ in range(n):
            i = self.draws
            self.draws += 1
            rng = np.random.default_rng([self.seed, i])
            child, entry = None, None
            for _ in range(RETRIES):
                entry = self.corpus[int(rng.choice(len(self.corpus), p=weights))]
                child = havoc.mutate(rng, entry.inp, entry.name, self.kinds[entry.test.name])
                if child is not None and child.digest not in self.seen and child.digest not in made:
                    break
                child = None
            if child is None:
                continue
            made.add(child.digest)
            jobs.append((f"run:{i}", entry.test, child, self.timeouts[entry.test.name], True))
        return jobs

    def _run_batch(self, jobs) -> list[Outcome]:
        outs = self.evaluate(jobs)
        for k, ((key, test, inp, _, _), o) in enumerate(zip(jobs, outs)):
            self.absorb(key.replace(":", " "), test, inp, o, self.runs + k + 1)
        self.runs += len(jobs)
        return outs

    def _target(self) -> str | None:
        cands = [(n, best[n][0], key) for key, best in self.closest.items()
                 if key not in self.reached and (n := self.episodes.get(key, 0)) < len(best)]
        return min(cands)[2] if cands else None

    def _episode(self, key: str, runs_left) -> None:
        n = self.episodes.get(key, 0)
        self.episodes[key] = n + 1
        d, where, inp, test = self.closest[key][n]
        binary = {rel: kind == "binary" for rel, kind in self.kinds[test.name].items() if kind != "graph"}

        def evaluate(cands: list[Input]) -> list[Outcome]:
            jobs = [(f"run:{self.draws + k}", test, c, self.timeouts[test.name], True) for k, c in enumerate(cands)]
            self.draws += len(jobs)
            return self._run_batch(jobs)
        start = inp if where.startswith("run ") else inp.derived(where, [])   # (an input not kept: its own changes too)
        climbing.climb(start, d, self.arms[key], binary, evaluate, runs_left, n)

    def loop(self, budget_runs: int | None, deadline: float | None) -> str:
        def runs_left() -> int:
            if deadline is not None and time.monotonic() >= deadline:
                return 0
            return budget_runs - self.runs if budget_runs is not None else BATCH
        tried_empty = 0
        while True:
            if self.goal_keys <= self.reached:
                return "every coverage item reached"
            left = runs_left()
            if left <= 0:
                return "budget spent"
            target = self._target() if self.stall >= BATCH * STALL_BATCHES else None
            if target is not None:
                self._episode(target, runs_left)
                self.stall = 0
                continue
            jobs = self._havoc_batch(min(BATCH, left))
            if not jobs:
                tried_empty += 1
                if tried_empty > 64:
                    return "no new input to make"
                continue
            tried_empty = 0
            self._run_batch(jobs)


def run(suite: Suite | None, out: Path, backend_name: str = "auto", seed: int = 0, budget_runs: int | None = None,
        budget_seconds: float | None = None, check_races: bool = False, jobs: int = 1, progress: bool = True,
        show_warnings: bool = False, cache: bool = False, paths=None, command: list[str] | None = None,
        timeout: float = 300.0) -> SearchResult:
    """Search from the suite's tests (a cltc.toml or a pytest suite), or with `command` from a program
    of a project built through cltc-cc and its arguments (command_runs.py: `suite` None, `timeout` its
    runs'); write what it keeps under `out` (journal.check_out first)."""
    t0 = time.monotonic()
    if budget_runs is None and budget_seconds is None:
        budget_runs = DEFAULT_RUNS
    if seed < 0:
        raise UserError(f"the search's seed must be 0 or more, not {seed}")
    if command is not None and check_races:
        raise UserError("--check races runs the suite's program under hirace, built by hirace-cc; with -- COMMAND "
                        "the program is the project's own build (through cltc-cc)",
                        hint="drop --check races, and run the commands the search writes (OUT/commands.sh) under "
                             "`hirace run --` on a build through hirace-cc (docs/projects.md)")
    if check_races and suite is not None and suite.kind.name == "pytest":
        raise UserError(f"{suite.root}: --check races builds the suite's program with hirace-cc and runs it under "
                        f"hirace run; a pytest suite's kernels are launched from Python",
                        hint="drop --check races, or write the kernel's tests as a cltc.toml suite of a program")
    backend = get_backend(backend_name) if command is None else None
    warnings = Warnings("cltc", show_warnings)
    out = Path(out)
    check_out(out)
    if command is not None:
        from . import command_runs
        suite = command_runs.command_suite(command, timeout)
        campaign_id = command_runs.fingerprint(suite, seed)
    else:
        campaign_id = fingerprint(suite, seed, backend.name)
    made = [p for p in (out, *out.parents) if not p.exists()]   # (deepest first: taken back if it fails)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with campaign_lock(out / JOURNAL, "cltc search"), temp_dir(prefix="cltc-search-") as tmp:
            journal = Journal(out, campaign_id, seed)   # (another campaign's: refused now)
            try:
                s, runner, seed_reached, stopped = _search(suite, out, tmp, journal, backend, seed, budget_runs,
                                                           budget_seconds, check_races, jobs, progress, warnings,
                                                           cache, paths, command)
            except BaseException:
                journal.close()
                journal.discard_if_bare()   # (a search that failed before a run of its own leaves nothing)
                raise
    except BaseException:
        for d in made:
            try:
                d.rmdir()
            except OSError:
                break
        raise
    budget = f"{budget_runs} runs" if budget_runs is not None else f"{budget_seconds:g} s"
    if budget_runs is not None and budget_seconds is not None:
        budget = f"{budget_runs} runs or {budget_seconds:g} s"
    name = backend.name if backend is not None else runner.backend
    return SearchResult(str(suite.root), name, seed, out, budget, s.goals, seed_reached,
                        {k: v for k, v in s.reached_by.items()}, s.kept,
                        {k: best[0][:2] for k, best in s.closest.items() if best}, s.specials,
                        list(s.found_races.values()), s.race_checks, s.failures, s.runs, s.replayed,
                        time.monotonic() - t0, stopped, len(runner.distance.measured), len(runner.distance.loops),
                        sum(s.episodes.values()),
                        list(warnings), check_races, command=shlex.join(command) if command is not None else "",
                        kind="command" if command is not None else suite.kind.name,
                        closest_inputs=_closest_inputs(s), no_distance=_no_distance(s, command is not None))


def _search(suite, out: Path, tmp: str, journal: Journal, backend, seed: int, budget_runs, budget_seconds,
            check_races: bool, jobs: int, progress: bool, warnings: Warnings, cache: bool, paths, command):
    """The builds, the seeds and the loop, with the journal open: (the search, its runner, what the
    tests reached, why it stopped)."""
    executor = None
    bar = Progress(budget_runs or 0, "cltc search", enabled=progress and budget_runs is not None, unit="runs")
    show = (paths or ReportPaths(find_root(str(suite.root)))).show
    try:
        if command is not None:
            from . import command_runs
            runner = command_runs.CommandRunner(suite, Path(tmp) / "command")
            races = None
            writer = CommandWriter(out, suite, seed, show)
        else:
            with ThreadPoolExecutor(max_workers=2) as pool:   # the two builds at once (two compilers)
                cov = pool.submit(CoverageRunner, suite, backend, Path(tmp) / "coverage", cache)
                rac = None
                if check_races:
                    from .races import RaceChecker
                    rac = pool.submit(RaceChecker, suite, backend, Path(tmp) / "hirace")
                runner = cov.result()
                races = rac.result() if rac is not None else None
            writer = (PytestWriter(out, suite, seed, show, runner.dump) if suite.kind.name == "pytest"
                      else SuiteWriter(out, suite, seed, show))
        warnings.add(*runner.warnings)
        executor = open_executor(None, jobs, backend.name if backend is not None else "cpu")
        with Campaign(executor, "search") as campaign:
            s = Search(suite, runner, journal, writer, seed, campaign, races, bar)
            seed_reached = s.seeds()
            deadline = None if budget_seconds is None else time.monotonic() + budget_seconds
            stopped = s.loop(budget_runs, deadline)
    finally:
        bar.close()
        if executor is not None:
            executor.close()
        journal.close()
    return s, runner, seed_reached, stopped


def _closest_inputs(s: Search) -> dict[str, dict]:
    """Each unreached arm's closest input, as its test, the input it was made from, its changes and
    arguments (what makes it again: inputs.py)."""
    out = {}
    for key, best in s.closest.items():
        if best and key not in s.reached:
            d, where, inp, test = best[0]
            out[key] = {"test": test.name, "from": inp.parent, "how": list(inp.how), "args": list(inp.args)}
    return out


def _no_distance(s: Search, command: bool) -> dict[str, str]:
    """Why an unreached goal has no distance: nothing to measure, or no run that measured it."""
    measured = set(s.runner.distance.measured)
    loops = goal_mod.loop_cases(s.runner.table)
    out = {}
    for g in s.goals:
        if g.key in s.reached or g.suppressed or g.key in s.closest:
            continue
        if command:
            why = "no distances with -- COMMAND (cltc-cc builds no distance helpers)"
        elif g.category == "loop" and g.key in loops and loops[g.key][0] in s.runner.distance.loops:
            why = "no run reached that test of its loop condition (an entry's first: 0 times; its second: once, more)"
        elif g.category == "loop" and g.key in loops:
            why = "a loop whose condition is not one comparison of numbers"
        elif g.category == "loop":
            why = "a loop case no condition's distance measures (ended by its condition)"
        elif g.category == "barrier":
            why = "a barrier (no comparison decides it)"
        elif g.category == "function":
            why = "a function never entered (no comparison decides it)"
        elif g.key in s.arms and s.arms[g.key][0] in measured:
            why = "its comparison never ran: no input reached the branch"
        else:
            why = "its condition is not one comparison of numbers (or a switch)"
        out[g.key] = why
    return out
