"""The coverage site table: what was instrumented, and which flag says each item was covered."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from instrument.protocol import LoopCase

# a loop's cases, in the order of their flags after its base flag (the runtime's LoopCase)
LOOP_CASES = tuple(c.name.lower() for c in sorted(LoopCase))
LOOP_LABELS = {"zero": "body 0 times", "one": "body once", "many": "body more than once",
               "boundary": "ended by its condition"}


@dataclass
class Arm:
    label: str            # then / else / true / false / case 3 / default / no case matched
    flag: int
    line: int
    body: list[int] = field(default_factory=list)   # lines of code the arm holds (if/else): they ran
                                                    # exactly when the arm was taken


@dataclass
class BranchSite:
    kind: str             # if | switch | conditional | condition (an operand of && or ||)
    file: str
    line: int
    col: int
    function: str
    text: str
    arms: list[Arm]


@dataclass
class LoopSite:
    kind: str             # for | while | do | range-for
    file: str
    line: int
    col: int
    function: str
    text: str
    base: int             # flags base+0..3 = zero, one, many, boundary
    cases: list[str]      # the cases that can happen (do: no zero; no condition: no boundary)

    def flag(self, case: str) -> int:
        return self.base + LOOP_CASES.index(case)


@dataclass
class BarrierSite:
    index: int            # barrier flags 2*index (reached), 2*index+1 (whole block)
    name: str
    file: str
    line: int
    col: int
    function: str


@dataclass
class FunctionSite:
    name: str
    kind: str             # global | device | host_device
    file: str
    line: int
    flag: int             # set when any thread entered it


@dataclass
class SiteTable:
    flags: int = 0
    functions: list[FunctionSite] = field(default_factory=list)
    branches: list[BranchSite] = field(default_factory=list)
    loops: list[LoopSite] = field(default_factory=list)
    barriers: list[BarrierSite] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    def with_files(self, name: Callable[[str], str]) -> "SiteTable":
        """The table with every item's file renamed by `name` (ids unchanged)."""
        return SiteTable(self.flags, [replace(f, file=name(f.file)) for f in self.functions],
                         [replace(b, file=name(b.file)) for b in self.branches],
                         [replace(lp, file=name(lp.file)) for lp in self.loops],
                         [replace(b, file=name(b.file)) for b in self.barriers])

    @classmethod
    def from_json(cls, d: dict) -> "SiteTable":
        return cls(d["flags"], [FunctionSite(**f) for f in d["functions"]],
                   [BranchSite(**{**b, "arms": [Arm(**a) for a in b["arms"]]}) for b in d["branches"]],
                   [LoopSite(**lp) for lp in d["loops"]], [BarrierSite(**b) for b in d["barriers"]])

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json()))
