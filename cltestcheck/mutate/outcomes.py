"""What a mutation campaign found: each mutant's outcome, the reference runs, the whole result."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..observed import Observed
from ..suite import TestCase
from .planner import Mutant


@dataclass
class MutantOutcome:
    mutant: Mutant
    status: str                    # killed | timeout | undecided | survived | no-coverage | failed
    reason: str = ""
    killed_by: list[str] = field(default_factory=list)
    covered_by: list[str] = field(default_factory=list)
    kills: dict[str, list[int]] = field(default_factory=dict)   # test -> [runs that killed, runs]


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
