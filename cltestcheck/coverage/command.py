"""`cltc coverage`: argument handling only."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instrument.cli_support import positive_float, positive_int, add_progress_options, show_progress
from instrument.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UserError

from .. import config, gates
from instrument.files import Output, check_outputs


def setup(p: argparse.ArgumentParser) -> None:
    config.add_suite_options(p)
    p.add_argument("--test", action="append", metavar="NAME", help="run only this test (repeatable)")
    p.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N",
                   help="tests run at once (default %(default)s)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON report")
    p.add_argument("--lcov", type=Path, metavar="FILE", help="also write an lcov tracefile (.info)")
    p.add_argument("--cobertura", type=Path, metavar="FILE", help="also write Cobertura XML")
    p.add_argument("--html", type=Path, metavar="DIR", help="also write annotated HTML pages")
    p.add_argument("--count-executions", action="store_true",
                   help="count how many threads pass each item (hit counts of executions in lcov/Cobertura "
                        "and JSON) instead of setting a flag; costs an atomic add per pass (with a command: a "
                        "project built with CLTC_COUNT_EXECUTIONS=1)")
    p.add_argument("--fail-under", action="append", metavar="[MEASURE=]PCT",
                   help="exit 1 when coverage is under PCT: the total, or one measure (branches, loops, "
                        "barriers); repeatable")
    p.add_argument("--timeout", type=positive_float, default=300.0, metavar="S",
                   help="with -- COMMAND: seconds before the command is killed (default %(default)g)")
    add_progress_options(p)
    p.epilog = ("cltc coverage [options] -- COMMAND ARGS...: run a project's own test command (ctest, make test, a "
                "script) over programs built through cltc-cc, and merge the coverage of every process it starts")


def _outputs(a: argparse.Namespace) -> list[Output]:
    return [Output("--json", a.json), Output("--lcov", a.lcov), Output("--cobertura", a.cobertura),
            Output("--html", a.html, "dir")]


def _write(a: argparse.Namespace, res, test_name: str) -> None:
    from ..report_files import write_reports
    from . import report_cobertura, report_html, report_json, report_lcov, report_text
    write_reports([(a.json, lambda: report_json.render(res)),
                   (a.lcov, lambda: report_lcov.render(res, test_name=test_name)),
                   (a.cobertura, lambda: report_cobertura.render(res))],
                  a.html, lambda: report_html.render(res))
    sys.stdout.write(report_text.render(res))


def _gates(res, thresholds) -> list[str]:
    t = res.total()
    covered = {"branches": tuple(t.branches), "loops": tuple(t.loop_total), "barriers": tuple(t.barriers),
               "total": (t.branches[0] + t.loop_total[0] + t.barriers[0], t.branches[1] + t.loop_total[1] + t.barriers[1])}
    short = gates.coverage_shortfalls(covered, thresholds)
    for line in short:
        print(f"cltc coverage: {line}", file=sys.stderr)
    return short


def run_command(a: argparse.Namespace, command: list[str]) -> int:
    """cltc coverage -- COMMAND: the command as it is, the coverage of every instrumented process it
    starts merged (coverage/processes.py)."""
    from .. import project_run
    from . import processes
    config.refuse_suite_options(a, "coverage")
    thresholds = gates.coverage_thresholds(a.fail_under)
    cfg = a.config or config.discover(Path.cwd())
    check_outputs(_outputs(a), inputs=[cfg] if cfg else [])
    run = processes.run_command(command, a.timeout, a.count_executions)
    res = run.result
    if res is None:
        print(f"cltc coverage: error: {project_run.nothing_ran('coverage', run.run, run.foreign)}", file=sys.stderr)
        return EXIT_ERROR
    if run.lost:
        res.warnings.append(f"{run.lost} process(es) began a coverage log and never finished it (killed or crashed "
                            f"while exiting): what they covered is not in this report")
    if run.foreign:
        res.warnings.append(f"{run.foreign} process(es) wrote coverage without its item table (built by cltc "
                            f"itself, not cltc-cc): not in this report")
    # the reports never overwrite a source they measured
    check_outputs(_outputs(a), inputs=sorted({f.file for f in res.table.functions}))
    _write(a, res, Path.cwd().name)
    short = _gates(res, thresholds)
    if run.exit_status != 0:
        print(f"cltc coverage: error: the command exited with status {run.exit_status} (the reports show what "
              f"its processes covered, but a failing test command is no pass)", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_FINDINGS if short else EXIT_OK


def run(a: argparse.Namespace, extra) -> int:
    if extra:
        return run_command(a, extra)
    from . import engine

    thresholds = gates.coverage_thresholds(a.fail_under)
    s = config.load_suite(a, "coverage")
    check_outputs(_outputs(a), inputs=[*s.input_files(), s.root, *config.database_files(a)])
    res = engine.run(s, a.backend, a.jobs, progress=show_progress(a), show_warnings=True,
                     count_executions=a.count_executions)
    _write(a, res, s.root.name)
    short = _gates(res, thresholds)
    # a test that failed, or whose run left no coverage, is a failed run, whatever the numbers say
    # (the reports above show what the other tests and its own run reached)
    broken = [(t.name, t.verdict.reason if not t.verdict.passed else "its run left no coverage log")
              for t in res.tests if not t.verdict.passed or not t.collected]
    for name, why in broken:
        print(f"cltc coverage: test '{name}' failed: {why}", file=sys.stderr)
    if broken:
        return EXIT_ERROR
    return EXIT_FINDINGS if short else EXIT_OK
