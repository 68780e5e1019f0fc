"""`cltc search`: argument handling only."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instrument.cli_support import positive_float, positive_int, show_progress
from instrument.errors import EXIT_FINDINGS, EXIT_OK, UserError
from instrument.files import Output, check_outputs

from .. import config


def setup(p: argparse.ArgumentParser) -> None:
    config.add_suite_options(p)
    defaults = config.DEFAULTS["search"]
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--budget-runs", type=positive_int, metavar="N",
                        help="generated inputs to run, those a journal replays included (default "
                             f"{defaults['budget_runs']} when no budget is given)")
    budget.add_argument("--budget-seconds", type=positive_float, metavar="S",
                        help="seconds to search (the builds and the suite's own tests not counted)")
    p.add_argument("--seed", type=int, default=defaults["seed"],
                   help="seed of the search: the same seed makes the same inputs (default %(default)s)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="folder for the inputs kept, as a suite of tests (cltc.toml), and the search's journal; "
                        "an earlier search's folder is resumed (default: SUITE-search beside the suite)")
    p.add_argument("--check", choices=["races"], metavar="races",
                   help="races: also run each input kept (and the suite's tests) under hirace and report the "
                        "races with the input that shows them")
    p.add_argument("--test", action="append", metavar="NAME", help="start only from this test (repeatable)")
    p.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N",
                   help="runs at once (default %(default)s; the inputs made do not depend on it)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON report")
    config.add_output_options(p)
    p.epilog = ("Exit status: 0 searched and found nothing (whatever it kept), 1 findings (a race, an input whose "
                "output prints NaN or Inf where its test's did not), 2 an error (the suite, a build, --out).")


def default_out(suite_root: Path) -> Path:
    return suite_root.parent / f"{suite_root.name}-search"


def run(a: argparse.Namespace, extra) -> int:
    from . import loop, report
    from .journal import check_out
    from ..program_suite import ProgramKind
    if extra:
        raise UserError(f"cltc search runs a suite's tests itself, with inputs it makes: drop '-- {' '.join(extra)}'",
                        hint="give the program's tests as a suite (cltc.toml: docs/cltc.md, 'Test suites')")
    s = config.load_suite(a, "search")
    if not isinstance(s.kind, ProgramKind):
        raise UserError(f"{s.root}: cltc search starts from a cltc.toml suite's arguments and input files; a pytest "
                        f"suite's inputs are built in Python, which it does not change yet",
                        hint="write the kernel's tests as a cltc.toml suite of a program")
    out = a.out if a.out is not None else default_out(s.root)
    check_outputs([Output("--out", out, "into"), Output("--json", a.json)],
                  inputs=[*s.input_files(), s.root, *config.database_files(a)])
    check_out(out)
    paths = config.report_paths(a, s.root)
    res = loop.run(s, out, a.backend, a.seed, a.budget_runs, a.budget_seconds, a.check == "races", a.jobs,
                   progress=show_progress(a), show_warnings=not a.quiet, paths=paths,
                   cache=True)   # (a resumed search builds nothing again; CCTK_BUILD_CACHE=off turns it off)
    if a.json:
        from instrument.output import atomic_write_text
        atomic_write_text(a.json, report.render_json(res, paths))
    sys.stdout.write(report.render_text(res, paths, quiet=a.quiet, verbose=a.verbose))
    status = EXIT_FINDINGS if res.findings else EXIT_OK
    if config.github(a):
        from .. import report_github
        report_github.search(res, paths, status)
    return status
