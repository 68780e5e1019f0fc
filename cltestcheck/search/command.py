"""`cltc search`: argument handling only."""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from instrument.cli_support import count, positive_float, positive_int, show_progress
from instrument.errors import EXIT_FINDINGS, EXIT_OK, UserError
from instrument.files import Output, check_outputs

from .. import config

_STARTED = time.monotonic()   # (the JUnit file's time: the command's, from its start)


def setup(p: argparse.ArgumentParser) -> None:
    config.add_suite_options(p)
    defaults = config.DEFAULTS["search"]
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--budget-runs", type=positive_int, metavar="N",
                        help="generated inputs to run, those a journal replays included (default "
                             f"{defaults['budget_runs']} when no budget is given)")
    budget.add_argument("--budget-seconds", type=positive_float, metavar="S",
                        help="seconds to search (the builds and the suite's own tests not counted)")
    p.add_argument("--seed", type=count, default=defaults["seed"],
                   help="seed of the search, 0 or more: the same seed makes the same inputs (default %(default)s)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="folder for the inputs kept, as tests in the suite's format (cltc.toml; a pytest suite: "
                        "test_search_found.py; a command: commands.sh), and the search's journal; an earlier "
                        "search's folder is resumed (default: SUITE-search beside the suite; with a command: "
                        "cltc-search in the current directory)")
    p.add_argument("--check", choices=["races"], metavar="races",
                   help="races: also run each input kept (and the suite's tests) under hirace and report the "
                        "races with the input that shows them (cltc.toml suites)")
    p.add_argument("--test", action="append", metavar="NAME", help="start only from this test (repeatable)")
    p.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N",
                   help="runs at once (default %(default)s; the inputs made do not depend on it)")
    p.add_argument("--timeout", type=positive_float, default=defaults["timeout"], metavar="S",
                   help="with -- COMMAND: seconds before a run of the command is killed (default %(default)g; a "
                        "generated input's run: 20 times the command's own time, at least 5 s, at most this)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON report")
    p.add_argument("--junit", type=Path, metavar="FILE",
                   help="also write JUnit XML: a test case per input kept (a failure where it shows NaN or Inf), "
                        "per race (a failure), per item not reached (skipped, with the closest distance)")
    config.add_output_options(p)
    p.epilog = ("cltc search [options] -- PROGRAM ARGS...: search from a program of a project built through cltc-cc "
                "(CLTC_MODE=coverage) and its arguments, changing the numbers of the arguments and the files they "
                "name. Exit status: 0 searched and found nothing (whatever it kept), 1 findings (a race, an input "
                "whose run shows NaN or Inf where its test's did not), 2 an error (the suite, a build, --out).")


def default_out(suite_root: Path) -> Path:
    return suite_root.parent / f"{suite_root.name}-search"


def _outputs(a: argparse.Namespace) -> list[Output]:
    return [Output("--json", a.json), Output("--junit", a.junit)]


@contextlib.contextmanager
def _junit_on_error(a: argparse.Namespace):
    """A search that fails before its reports (the suite, a build, --out): --junit says so, then the error."""
    try:
        yield
    except UserError as exc:
        from ..report_files import write_junit_failure
        write_junit_failure(a.junit, "cltc search", str(exc), time.monotonic() - _STARTED)
        raise


def run(a: argparse.Namespace, extra) -> int:
    from . import loop, report
    from .journal import check_out
    with _junit_on_error(a):
        if extra:   # a program of the project's own build (through cltc-cc) and its arguments
            config.refuse_suite_options(a, "search")
            s = None
            root = Path.cwd()
            out = a.out if a.out is not None else root / "cltc-search"
            cfg = a.config or config.discover(root)
            inputs = [*([cfg] if cfg else []), *(Path(x) for x in extra[1:] if Path(x).is_file())]
        else:
            s = config.load_suite(a, "search")
            root = s.root
            out = a.out if a.out is not None else default_out(s.root)
            inputs = [*s.input_files(), s.root, *config.database_files(a)]
        check_outputs([Output("--out", out, "into"), *_outputs(a)], inputs=inputs)
        check_out(out)
        paths = config.report_paths(a, root)
        res = loop.run(s, out, a.backend, a.seed, a.budget_runs, a.budget_seconds, a.check == "races", a.jobs,
                       progress=show_progress(a), show_warnings=not a.quiet, paths=paths,
                       cache=True,   # (a resumed search builds nothing again; CCTK_BUILD_CACHE=off turns it off)
                       command=list(extra) if extra else None, timeout=a.timeout)
    from ..report_files import write_reports
    from instrument.junit import to_xml
    from . import report_junit
    write_reports([(a.json, lambda: report.render_json(res, paths)),
                   (a.junit, lambda: to_xml([report_junit.suite(res, paths, time.monotonic() - _STARTED)]))],
                  None, None)
    sys.stdout.write(report.render_text(res, paths, quiet=a.quiet, verbose=a.verbose))
    status = EXIT_FINDINGS if res.findings else EXIT_OK
    if config.github(a):
        from .. import report_github
        report_github.search(res, paths, status)
    return status
