"""hirace's site table: every instrumented access, by the id its check passes to the runtime.
The planner fills it; the build writes it beside the instrumented sources (hirace_sites.json);
the collector names race records by it."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Site:
    id: int
    file: str
    line: int
    column: int
    kind: str        # read, write, rmw, atomic
    text: str
    function: str
    variable: str
    space: str       # shared, global, pointer (decided at run time)
    bound: str = ""  # what bounds the access at run time: array, dynamic, pointer ('' the buffer it lands in)
    proof: str = ""       # the rule that reduced its check to a bounds test (hirace/proofs/proof.py Rule); '' whole
    condition: str = ""   # the launch condition that rule needs (C++ on the launch's shape), where it needs one
    why: str = ""         # checked whole: why no rule applied
    inside: str = ""      # its index lies inside its array where this holds (bounds.py; "(true)": always)


def write(sites: list[Site], path: Path) -> None:
    Path(path).write_text(json.dumps([asdict(s) for s in sites], indent=0))
