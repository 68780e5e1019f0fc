"""A coverage run as JUnit XML (`--junit FILE`, through the shared writer instrument/junit.py): one
test case per test (with a command, per instrumented process, and one for the command's own exit
status), a failure where the test failed or its run left no coverage; the `--fail-under` gate is a
case of its own, failing with one failure per measure that fell short."""
from __future__ import annotations

from instrument.junit import Case, Problem, Suite

from .report_text import total_line
from .results import CoverageResult

SUITE = "cltc coverage"


def suite(res: CoverageResult, thresholds: dict[str, float], shortfalls: list[str], time: float, name: str,
          command_status: int | None = None) -> Suite:
    """`name`: what ran (the suite directory's name, the current directory's with a command), the cases'
    class `cltc.coverage.NAME`."""
    classname = f"cltc.coverage.{name}"
    cases = []
    for c, t in zip(res.contributions(), res.tests):
        case = Case(t.name, classname, time=t.wall_s or None,
                    output=f"covered {c['covered']} items, {c['unique']} covered by no other test")
        if not t.verdict.passed:
            case.failures.append(Problem(t.verdict.reason.splitlines()[0] if t.verdict.reason else "failed",
                                         "cltc/test-failed", t.verdict.reason))
        elif not t.collected:
            case.failures.append(Problem("its run left no coverage log (killed, or its flags unreadable)",
                                         "cltc/no-coverage"))
        cases.append(case)
    if command_status is not None:
        case = Case(res.command, classname)
        if command_status != 0:
            case.failures.append(Problem(f"the command exited with status {command_status}", "cltc/command-failed"))
        cases.append(case)
    if thresholds:
        gate = Case("fail-under", classname, output=total_line(res.total()))
        gate.failures = [Problem(line, "cltc/fail-under") for line in shortfalls]
        cases.append(gate)
    return Suite(SUITE, cases, time)
