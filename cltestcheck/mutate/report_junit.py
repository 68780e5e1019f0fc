"""A mutation campaign as JUnit XML (`cltc mutate --junit FILE`, through instrument/junit.py): a test
case per mutant the campaign judged, named by its stable id (FILE:LINE:COLUMN:OPERATOR:REPLACEMENT, the
file as the reports name it, so a CI's test history follows a mutant from run to run), in a class per
kernel or device function. A mutant the tests noticed (killed, timeout) passes; one they did not is a
failure (survived; undecided: killed in some runs only, Stryker's Survived too); one that could not be
judged is an error (failed); one that never ran is skipped (not reached: it still lowers the score;
suppressed by `cltc: ignore`). Mutants the scope left out, and those whose lines would not compile,
have no case."""
from __future__ import annotations

import os
from typing import Callable

from instrument.junit import Case, Problem, Suite

from .outcomes import MutationResult, Status
from .planner import Mutant
from .results import diff_line

SUITE = "cltc mutate"


def _name(m: Mutant, show: Callable[[str], str]) -> str:
    return f"{show(m.file)}:{m.line}:{m.col}:{m.operator}:{' '.join(m.replacement.split())}"


def _relative_to(root: str) -> Callable[[str], str]:
    def show(path: str) -> str:
        r = os.path.relpath(path, root)
        return path if r.startswith("..") else r
    return show


def suite(res: MutationResult, show: Callable[[str], str] | None = None) -> Suite:
    """The campaign's suite; `show`: a file as the reports name it (default: relative to the suite's
    directory, or the command's)."""
    show = show or _relative_to(res.suite)
    cases = []
    for o in res.outcomes:
        m = o.mutant
        case = Case(_name(m, show), f"cltc.mutate.{m.function}")
        where = f"{show(m.file)}:{m.line}:{m.col}"
        before, after = diff_line(o)
        diff = f"- {before}\n+ {after}"
        if o.status in (Status.SURVIVED, Status.UNDECIDED):
            runs = "; ".join(f"{t}: killed {k}/{n}" for t, (k, n) in o.kills.items())
            why = f"{o.status.value}: {m.description} at {where}" + (f" ({o.reason})" if o.reason else "")
            text = [diff, runs and f"runs: {runs}", o.covered_by and "reached by: " + ", ".join(o.covered_by)]
            case.failures.append(Problem(why, f"cltc/{o.status.value}", "\n".join(filter(None, text))))
        elif o.status == Status.FAILED:
            case.errors.append(Problem(f"could not be judged: {o.reason.splitlines()[0] if o.reason else 'no reason'}",
                                       "cltc/failed", f"{diff}\n{o.reason}"))
        elif o.status == Status.NO_COVERAGE:
            case.skipped = f"not reached: {o.reason or 'no test reaches it'} (it lowers the mutation score)"
        elif o.status == Status.IGNORED:
            case.skipped = f"suppressed: {o.reason}"
        else:
            case.output = f"{o.status.value}: {o.reason}\n{diff}"
        cases.append(case)
    out = Suite(SUITE, cases, res.build_s + res.judge_s)
    if not cases:   # nothing judged (a scope that holds no mutant): one skipped case says so
        what = f" ({res.scope}: {res.out_of_scope} left out)" if res.scope else ""
        out.cases.append(Case(res.command or os.path.basename(res.suite) or "mutants", "cltc.mutate",
                              skipped=f"no mutant was judged{what}"))
    return out
