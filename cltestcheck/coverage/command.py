"""`cltc coverage`: argument handling only."""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from instrument.cli_support import positive_float, positive_int, show_progress
from instrument.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UserError

from .. import config, gates
from ..report_files import write_junit_failure
from instrument.files import Output, check_outputs

_STARTED = time.monotonic()   # (the JUnit file's time: the command's, from its start)


def setup(p: argparse.ArgumentParser) -> None:
    config.add_suite_options(p)
    p.add_argument("--test", action="append", metavar="NAME", help="run only this test (repeatable)")
    p.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N",
                   help="tests run at once (default %(default)s)")
    _report_options(p)
    p.add_argument("--count-executions", action="store_true",
                   help="count how many threads pass each item (hit counts of executions in lcov/Cobertura "
                        "and JSON) instead of setting a flag; costs an atomic add per pass (with a command: a "
                        "project built with CLTC_COUNT_EXECUTIONS=1)")
    p.add_argument("--timeout", type=positive_float, default=300.0, metavar="S",
                   help="with -- COMMAND: seconds before the command is killed (default %(default)g)")
    config.add_output_options(p)
    p.epilog = ("cltc coverage [options] -- COMMAND ARGS...: run a project's own test command (ctest, make test, a "
                "script) over programs built through cltc-cc, and merge the coverage of every process it starts; "
                "cltc coverage combine [options] IN.json...: merge the JSON reports of several runs")
    sub = p.add_subparsers(dest="coverage_action", metavar="combine", title="merging runs")
    c = sub.add_parser("combine", help="merge the coverage JSON reports of several runs, item by item, and write "
                                       "the merged result in every format (text, --json, --lcov, --cobertura, "
                                       "--html, --junit; --fail-under as for a run)",
                       description="Merge the coverage JSON reports (--json) of several runs, item by item "
                                   "(file, line, column, kind), as coverage.py's combine: an item is covered when "
                                   "some run covered it. Relative file names are the root's (--root).")
    c.add_argument("inputs", nargs="+", type=Path, metavar="IN.json", help="coverage JSON reports (cltc coverage --json)")
    # (no default here: an option given after `combine` wins over the same option before it, or a file's)
    _report_options(c, argparse.SUPPRESS)
    c.add_argument("--root", type=Path, metavar="DIR", default=argparse.SUPPRESS,
                   help="relative file names of the reports are the root's, and the merged reports name files "
                        "relative to it (default: the git work tree holding the current directory, else it)")
    c.add_argument("--github", action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                   help="under GitHub Actions, a step summary and a warning where --fail-under fails (default: on)")
    c.add_argument("--config", type=Path, metavar="FILE", default=argparse.SUPPRESS,
                   help="read options from this cltc.toml or pyproject.toml instead of the one found upward")
    c.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="as for a run (cltc coverage -h)")
    c.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="as for a run")


def _report_options(p: argparse.ArgumentParser, default=None) -> None:
    """The options of what a run (or combine) writes, and of what it counts."""
    d = {} if default is None else {"default": default}
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON report", **d)
    p.add_argument("--lcov", type=Path, metavar="FILE", help="also write an lcov tracefile (.info)", **d)
    p.add_argument("--cobertura", type=Path, metavar="FILE", help="also write Cobertura XML", **d)
    p.add_argument("--html", type=Path, metavar="DIR", help="also write annotated HTML pages", **d)
    p.add_argument("--junit", type=Path, metavar="FILE",
                   help="also write JUnit XML: a test case per test (per process with a command), a failure "
                        "where it failed; --fail-under a case of its own", **d)
    p.add_argument("--fail-under", action="append", metavar="[MEASURE=]PCT",
                   help="exit 1 when coverage is under PCT: the total, or one measure (branches, loops, "
                        "barriers); repeatable", **d)
    p.add_argument("--include", action=config.Replaced, metavar="GLOB",
                   help="report and count only the files this glob matches (relative to the root, or absolute; "
                        "'*' matches across directories: 'src/*'); repeatable", **d)
    p.add_argument("--omit", action=config.Replaced, metavar="GLOB",
                   help="leave out of the reports and counts the files this glob matches; repeatable", **d)


def _outputs(a: argparse.Namespace) -> list[Output]:
    return [Output("--json", a.json), Output("--lcov", a.lcov), Output("--cobertura", a.cobertura),
            Output("--html", a.html, "dir"), Output("--junit", a.junit)]


@contextlib.contextmanager
def _junit_on_error(a: argparse.Namespace):
    """A run that fails before its reports (a build, a timeout): --junit says so, then the error line."""
    try:
        yield
    except UserError as exc:
        write_junit_failure(a.junit, "cltc coverage", str(exc), time.monotonic() - _STARTED)
        raise


def _covered(res) -> dict[str, tuple[int, int]]:
    t = res.total()
    return {"branches": tuple(t.branches), "loops": tuple(t.loop_total), "barriers": tuple(t.barriers),
            "total": tuple(t.items)}


def _report(a: argparse.Namespace, res, paths, thresholds: dict[str, float], test_name: str,
            failures: list[str] = (), command_status: int | None = None) -> int:
    """Everything a finished run (or combine) writes: the files (--include/--omit applied, every path
    named from the root), the text report, the gate's lines and the failures on stderr, GitHub Actions'
    output; its exit status."""
    from ..report_files import write_reports
    from . import report_cobertura, report_html, report_json, report_junit, report_lcov, report_text
    res.paths = paths
    res = res.select(a.include, a.omit)
    short = gates.coverage_shortfalls(_covered(res), thresholds)
    status = EXIT_ERROR if failures else EXIT_FINDINGS if short else EXIT_OK

    def junit():
        from instrument.junit import to_xml
        return to_xml([report_junit.suite(res, thresholds, short, time.monotonic() - _STARTED, test_name,
                                             command_status)])
    write_reports([(a.json, lambda: report_json.render(res)),
                   (a.lcov, lambda: report_lcov.render(res, test_name=test_name)),
                   (a.cobertura, lambda: report_cobertura.render(res)),
                   (a.junit, junit)],
                  a.html, lambda: report_html.render(res))
    sys.stdout.write(report_text.render(res, quiet=getattr(a, "quiet", False), verbose=getattr(a, "verbose", False)))
    for line in short:
        print(f"cltc coverage: {line}", file=sys.stderr)
    for line in failures:
        print(f"cltc coverage: {line}", file=sys.stderr)
    if config.github(a):
        from .. import report_github
        report_github.coverage(res, short, status)
    return status


def run_command(a: argparse.Namespace, command: list[str]) -> int:
    """cltc coverage -- COMMAND: the command as it is, the coverage of every instrumented process it
    starts merged (coverage/processes.py)."""
    from .. import project_run
    from . import processes
    config.refuse_suite_options(a, "coverage")
    thresholds = gates.coverage_thresholds(a.fail_under)
    paths = config.report_paths(a, Path.cwd())
    cfg = a.config or config.discover(Path.cwd())
    check_outputs(_outputs(a), inputs=[cfg] if cfg else [])
    with _junit_on_error(a):
        run = processes.run_command(command, a.timeout, a.count_executions)
    res = run.result
    if res is None:
        why = project_run.nothing_ran('coverage', run.run, run.foreign)
        write_junit_failure(a.junit, "cltc coverage", why, time.monotonic() - _STARTED)
        print(f"cltc coverage: error: {why}", file=sys.stderr)
        return EXIT_ERROR
    if run.lost:
        res.warnings.append(f"{run.lost} process(es) began a coverage log and never finished it (killed or crashed "
                            f"while exiting): what they covered is not in this report")
    if run.foreign:
        res.warnings.append(f"{run.foreign} process(es) wrote coverage without its item table (built by cltc "
                            f"itself, not cltc-cc): not in this report")
    # the reports never overwrite a source they measured
    check_outputs(_outputs(a), inputs=sorted({f.file for f in res.table.functions}))
    failed = [f"error: the command exited with status {run.exit_status} (the reports show what its processes "
              f"covered, but a failing test command is no pass)"] if run.exit_status != 0 else []
    return _report(a, res, paths, thresholds, Path.cwd().name, failed, run.exit_status)


def run_combine(a: argparse.Namespace, extra) -> int:
    """cltc coverage combine IN.json...: the runs' JSON reports merged (coverage/combine.py), written as a
    run's reports are."""
    from . import combine
    if extra:
        raise UserError("cltc coverage combine merges JSON reports and runs no command: drop '-- "
                        f"{' '.join(extra)}'")
    for given, option in ((a.test, "--test"), (a.build_db, "-p")):
        if given:   # (a file's suite, kernels, backend or jobs mean nothing here either: they are not asked)
            raise UserError(f"{option}: cltc coverage combine merges the reports of runs and builds and runs "
                            f"nothing", hint=f"give {option} to the runs it merges; drop it here")
    thresholds = gates.coverage_thresholds(a.fail_under)
    paths = config.report_paths(a, Path.cwd())
    res = combine.combine(a.inputs, paths)
    if a.count_executions and not res.executions:
        raise UserError("--count-executions: the reports combined hold flags, not counts of executions",
                        hint="drop --count-executions, or combine reports of runs with --count-executions")
    cfg = a.config or config.discover(Path.cwd())
    # never over a report it merges, a source it names or the file of options
    check_outputs(_outputs(a), inputs=[*a.inputs, *([cfg] if cfg else []),
                                       *sorted({f.file for f in res.table.functions})])
    return _report(a, res, paths, thresholds, "combined")


def run(a: argparse.Namespace, extra) -> int:
    if getattr(a, "coverage_action", None) == "combine":
        return run_combine(a, extra)
    if extra:
        return run_command(a, extra)
    from . import engine

    thresholds = gates.coverage_thresholds(a.fail_under)
    s = config.load_suite(a, "coverage")
    paths = config.report_paths(a, s.root)
    check_outputs(_outputs(a), inputs=[*s.input_files(), s.root, *config.database_files(a)])
    with _junit_on_error(a):
        res = engine.run(s, a.backend, a.jobs, progress=show_progress(a), show_warnings=not a.quiet,
                         count_executions=a.count_executions)
    # a test that failed, or whose run left no coverage, is a failed run, whatever the numbers say
    # (the reports show what the other tests and its own run reached)
    broken = [f"test '{t.name}' failed: {t.verdict.reason if not t.verdict.passed else 'its run left no coverage log'}"
              for t in res.tests if not t.verdict.passed or not t.collected]
    return _report(a, res, paths, thresholds, s.root.name, broken)
