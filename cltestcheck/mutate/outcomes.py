"""What a mutation campaign found: each mutant's outcome, the reference runs, the whole result."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Callable

from ..observed import Observed
from ..suite import TestCase
from .planner import Mutant


class Status(StrEnum):
    """A mutant's outcome (the value is what reports and result files say)."""
    KILLED = "killed"              # every run of some test noticed it
    TIMEOUT = "timeout"            # every run hung: detected too
    UNDECIDED = "undecided"        # some runs noticed it, others not (schedule-dependent)
    SURVIVED = "survived"          # no test noticed it
    NO_COVERAGE = "no-coverage"    # no test reaches it
    FAILED = "failed"              # could not be judged (a tool or build failure)
    IGNORED = "ignored"            # its line is marked `cltc: ignore`: not judged


DETECTED = (Status.KILLED, Status.TIMEOUT)


@dataclass
class MutantOutcome:
    mutant: Mutant
    status: Status
    reason: str = ""
    killed_by: list[str] = field(default_factory=list)
    covered_by: list[str] = field(default_factory=list)
    kills: dict[str, list[int]] = field(default_factory=dict)   # test -> [runs that killed, runs]


@dataclass
class Tally:
    """A mutant's runs against one test (or one command): how many killed it, of how many run."""
    killed: int
    runs: int
    timeouts: int        # of the runs that killed it, those that timed out
    reason: str          # why the first run that killed it did

    def status(self, runs: int) -> Status | None:
        """Killed (every one of `runs` runs killed it; timeout when each timed out), or None: undecided
        when some killed it (`killed`), survived when none did."""
        if self.killed == self.runs == runs:
            return Status.TIMEOUT if self.timeouts == runs else Status.KILLED
        return None


def repeat(run_once: Callable[[int], tuple[bool, bool, str]], runs: int) -> Tally:
    """Run a mutant `runs` times (run_once(k) -> killed, timed out, why), stopping as soon as some runs
    killed it and others did not (undecided: schedule-dependent behaviour)."""
    killed, timeouts, reason = 0, 0, ""
    for r in range(runs):
        k, timed_out, why = run_once(r)
        if k:
            killed += 1
            timeouts += timed_out
            reason = reason or why
        if killed and killed <= r:      # killed in some runs, not in others: undecided here
            break
    return Tally(killed, r + 1, timeouts, reason)


@dataclass
class Reference:
    test: TestCase                 # as judged (expectations dropped when the original fails them)
    obs: Observed
    reached: set[int]
    note: str = ""


@dataclass
class MutationResult:
    suite: str
    backend: str
    runs: int
    operators: list[str]
    outcomes: list[MutantOutcome]
    references: list[Reference]
    not_compilable: list[Mutant] = field(default_factory=list)
    separate_builds: int = 0
    build_s: float = 0.0
    judge_s: float = 0.0
    warnings: list[str] = field(default_factory=list)
    execution: object = None       # instrument.execution.Stats of the campaign
    command: str = ""              # `cltc mutate -- COMMAND`: the command, judged by its exit status
    out_of_scope: int = 0          # mutants the scope (--mutate, --kernel, --since: scope.py) left out
    scope: str = ""                # the scope's options, as given ("": every mutant)
