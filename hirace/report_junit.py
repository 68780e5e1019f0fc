"""A hirace run as JUnit XML (`--junit FILE`): one test case per kernel launched (its races and
out-of-bounds sites are its failures, each carrying its text report), one for the races between
operations the host does not order (streams), and a case for the program
where no launch is known or the program failed (its error: the failure's message). Known benign
races are not failures: their case lists them as output."""
from __future__ import annotations

from instrument.junit import Case, Problem, Suite
from instrument.report_paths import ReportPaths

from .report_sarif import OOB_RULE, RULE, STREAM_RULE
from .report_text import paths_or_default, render_memory_error, render_race, render_stream_race
from .results import RaceReport

SUITE = "hirace"


def _body(text: str) -> str:
    return text.removeprefix("==================\n")


def _kernel_case(kernel: str, res: RaceReport, classname: str, paths: ReportPaths) -> Case:
    case = Case(kernel, classname)
    launches = [x for x in res.kernel_launches if x.kernel == kernel]
    for r in res.races:
        if r.kernel == kernel:
            case.failures.append(Problem(f"data race ({r.kind}) in {r.memory} memory on {r.variable} at "
                                         f"{paths.show(r.site.file)}:{r.site.line}:{r.site.column}", RULE,
                                         _body(render_race(r, res.prior_sites, paths))))
    for m in res.memory_errors:
        if m.kernel == kernel:
            case.failures.append(Problem(f"out-of-bounds {m.access} in {m.memory} memory at "
                                         f"{paths.show(m.site.file)}:{m.site.line}:{m.site.column}", OOB_RULE,
                                         _body(render_memory_error(m, paths))))
    if launches and not case.failures:
        if not any(x.selected for x in launches):
            case.skipped = f"{kernel} was not selected (kernels, kernels_exclude), so it ran unchecked"
        elif all(x.failed for x in launches):
            case.skipped = f"every launch of {kernel} failed ({len(launches)}), so nothing was checked"
    suppressed = [f"{paths.show(r.site.file)}:{r.site.line}: {r.kind} on {r.variable}: suppressed by {r.suppressed}"
                  for r in res.suppressed if r.kernel == kernel]
    checked = sum(x.selected and not x.failed for x in launches)
    case.output = "\n".join([f"{checked} launch(es) checked" + (f" on the {res.backend} backend" if res.backend else ""),
                             *suppressed])
    return case


def suite(res: RaceReport, program: str, time: float, error: str | None = None,
          paths: ReportPaths | None = None) -> Suite:
    """The run's suite; `program`: what ran (the first source's name, or the command); `error`: why the
    program failed (the case for the program then carries it); `paths`: how files are named (--root)."""
    classname = f"{SUITE}.{program}"
    paths = paths_or_default(paths)
    cases = [_kernel_case(k, res, classname, paths) for k in res.kernels()]
    if res.stream_races:   # (between operations, not within a kernel: a case of their own)
        case = Case("operations the host orders", classname)
        for x in res.stream_races:
            case.failures.append(Problem(f"data race ({x.kind}) between {x.first.name()} at {paths.show(x.first.file)}:"
                                         f"{x.first.line} and {x.second.name()} at {paths.show(x.second.file)}:"
                                         f"{x.second.line}", STREAM_RULE, _body(render_stream_race(x, paths))))
        cases.append(case)
    if error is not None or not cases:
        case = Case(program, classname)
        if error is not None:
            case.errors.append(Problem(error.splitlines()[0], "hirace/program-failure", error))
        else:
            case.skipped = "the program launched no kernel, so nothing was checked"
        cases.append(case)
    return Suite(SUITE, cases, time)


def failure_suite(message: str, program: str, time: float) -> Suite:
    """The suite of a run that produced no result (the tool, the build or the program failed)."""
    return suite(RaceReport(), program, time, error=message)
