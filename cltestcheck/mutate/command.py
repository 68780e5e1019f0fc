"""`cltc mutate`: argument handling only."""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from instrument.cli_support import positive_float, positive_int, show_progress
from instrument.errors import EXIT_FINDINGS, EXIT_OK, UserError
from instrument.files import Output, check_outputs
from instrument.junit import to_xml
from instrument.execution import add_options
from instrument.execution.journal import campaign_lock

from .. import config, gates
from .operators import OPERATORS


def setup(p: argparse.ArgumentParser) -> None:
    config.add_suite_options(p)
    defaults = config.DEFAULTS["mutate"]
    p.add_argument("--runs", type=positive_int, default=defaults["runs"], metavar="N", action=config.Given,
                   help="runs per mutant and test (default %(default)s; with a command, 1 unless given here); on "
                        "the cpu backend each run after the first uses another schedule seed")
    add_options(p, "mutants judged at once on this machine (default 1)")
    p.add_argument("--results", type=Path, metavar="FILE.csv",
                   help="append one row per judged mutant to this file as it finishes; rerunning with the "
                        "same file resumes an interrupted campaign")
    p.add_argument("--operators", metavar="LIST", help="comma-separated operators (default: all)")
    p.add_argument("--test", action="append", metavar="NAME", help="use only this test (repeatable)")
    p.add_argument("--list-operators", action="store_true", help="list the mutation operators and exit")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write our JSON report")
    p.add_argument("--stryker", type=Path, metavar="FILE", help="also write the Stryker mutation-testing-report JSON")
    p.add_argument("--html", type=Path, metavar="DIR", help="also write annotated HTML pages")
    p.add_argument("--break", dest="break_at", metavar="PCT",
                   help="exit 1 when the mutation score is under PCT (Stryker's break threshold)")
    p.add_argument("--high", metavar="PCT", default=defaults["high"],
                   help="a score at or above PCT is good (Stryker's high; default %(default)g)")
    p.add_argument("--low", metavar="PCT", default=defaults["low"],
                   help="a score under PCT is poor (Stryker's low; default %(default)g)")
    p.add_argument("--timeout", type=positive_float, default=300.0, metavar="S",
                   help="with -- COMMAND: seconds before the reference run of the command is killed (default "
                        "%(default)g); a mutant's run is killed at 10 times the reference's time (at least 5 s)")
    p.add_argument("--junit", type=Path, metavar="FILE",
                   help="also write JUnit XML: a test case per mutant (survived, undecided: failures; failed: "
                        "errors; not reached, suppressed: skipped)")
    p.add_argument("--mutate", dest="mutate_patterns", action=config.Replaced, metavar="GLOB[:LINES]",
                   help="judge only the mutants in files matching GLOB (fnmatch: `*` crosses `/`; the path as the "
                        "reports name it, relative to the suite's directory or the current one, or absolute), "
                        "optionally only on LINES (10-40[,50-60]); !GLOB leaves files out; repeatable (Stryker's "
                        "--mutate)")
    p.add_argument("--kernel", dest="kernel_names", action=config.Replaced, metavar="NAME",
                   help="judge only the mutants in this kernel or device function (a name or a glob; repeatable)")
    p.add_argument("--since", metavar="REF",
                   help="judge only the mutants on lines changed since this git revision (git diff REF in the work "
                        "tree of the suite, or of the current directory with a command; files git does not track "
                        "count whole)")
    config.add_output_options(p)
    p.set_defaults(runs_given=False)
    p.epilog = ("cltc mutate [options] -- COMMAND ARGS...: mutation testing of a project built through cltc-cc with "
                "CLTC_MODE=mutate, judged by its own test command (ctest, make check, a script): the command runs "
                "once with no mutant active, then once per mutant its processes reached, with that mutant active; "
                "a mutant is killed when the command's exit status differs")


def _outputs(a: argparse.Namespace) -> list[Output]:
    return [Output("--results", a.results), Output("--json", a.json), Output("--stryker", a.stryker),
            Output("--junit", a.junit), Output("--html", a.html, "dir")]


def run(a: argparse.Namespace, extra) -> int:
    if a.list_operators:
        w = max(map(len, OPERATORS))
        for name, desc in OPERATORS.items():
            print(f"{name.ljust(w)}  {desc}")
        return EXIT_OK
    if a.runs < 1:
        raise UserError("--runs must be at least 1")
    from ..report_files import write_junit_failure, write_reports
    from . import engine, project, report_html, report_json, report_junit, report_stryker, report_text
    from .scope import Scope
    from .operators import parse_list
    from .results import counts

    break_at = None if a.break_at is None else gates.percent(a.break_at, "--break")
    thresholds = gates.mutation_thresholds(a.high, a.low, break_at)
    ops = parse_list(a.operators)
    if extra:   # a project's own test command over its build through cltc-cc (mutate/project.py)
        config.refuse_suite_options(a, "mutate")
        cfg = a.config or config.discover(Path.cwd())
        check_outputs(_outputs(a), inputs=[cfg] if cfg else [])
        where = Path.cwd()
    else:
        s = config.load_suite(a, "mutate")
        check_outputs(_outputs(a), inputs=[*s.input_files(), s.root, *config.database_files(a)])
        where = s.root
    paths = config.report_paths(a, where)   # how the reports name files (--root)
    t0 = time.monotonic()
    try:
        # which mutants are judged (--mutate, --kernel, --since: git is asked now, before anything is built)
        scope = Scope.of(where, a.mutate_patterns, a.kernel_names, a.since, shown=paths.show)
        with campaign_lock(a.results, "cltc mutate campaign") if a.results else contextlib.nullcontext():
            if extra:
                res = project.run(extra, a.timeout, ops, a.runs if a.runs_given else 1, a.jobs, a.results,
                                  progress=show_progress(a), show_warnings=not a.quiet, scope=scope)
            else:
                res = engine.run(s, a.backend, ops, a.runs, a.jobs, progress=show_progress(a), dask=a.dask,
                                 results=a.results, show_warnings=not a.quiet, scope=scope)
    except UserError as exc:   # --junit says so (a CI step never reads a stale file), then the error line
        write_junit_failure(a.junit, "cltc mutate", str(exc), time.monotonic() - t0)
        raise
    if (a.dask or a.jobs > 1) and not a.quiet and res.execution is not None:
        print(f"cltc: {res.execution.summary(time.monotonic() - t0)}", file=sys.stderr)
    if extra:   # the reports never overwrite a source they judged
        check_outputs(_outputs(a)[1:], inputs=sorted({o.mutant.file for o in res.outcomes}))
    write_reports([(a.json, lambda: report_json.render(res, paths)),
                   (a.stryker, lambda: report_stryker.render(res, thresholds, paths)),
                   (a.junit, lambda: to_xml([report_junit.suite(res, paths.show)]).decode())],
                  a.html, lambda: report_html.render(res, paths))
    sys.stdout.write(report_text.render(res, thresholds, quiet=a.quiet, verbose=a.verbose, paths=paths))
    short = gates.mutation_shortfall(counts(res.outcomes)["score"], break_at)
    if config.github(a):   # GitHub Actions: a warning on each surviving mutant, a step summary
        from ..report_github import mutate as github_output
        github_output(res, thresholds, short, EXIT_FINDINGS if short else EXIT_OK)
    if short:
        print(f"cltc mutate: {short}", file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK
