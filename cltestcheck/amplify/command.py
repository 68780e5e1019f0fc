"""`cltc amplify`: argument handling only."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from instrument.cli_support import positive_float, positive_int, show_progress
from instrument.errors import EXIT_FINDINGS, EXIT_OK, UserError
from instrument.files import Output, check_outputs
from instrument.execution import add_options
from instrument.extras import require

from .. import config
from .schedules import FAMILIES


def setup(p: argparse.ArgumentParser) -> None:
    config.add_suite_options(p)
    defaults = config.DEFAULTS["amplify"]
    p.add_argument("--runs", type=positive_int, default=defaults["runs"], metavar="N", action=config.Given,
                   help="runs per schedule (default %(default)s; with a command, 1 unless given here; the cpu "
                        "backend runs each schedule once)")
    p.add_argument("--schedules", default=defaults["schedules"], metavar="FAMILY",
                   help="comma-separated families (default %(default)s): "
                        + "; ".join(f"{k}: {v}" for k, v in FAMILIES.items())
                        + "; or single schedules: first:W, asc, desc, random:SEED")
    p.add_argument("--seed", type=int, default=defaults["seed"],
                   help="seed for the drawn first blocks and permutations (default %(default)s)")
    add_options(p, "runs at once on this machine (default 1)")
    p.add_argument("--test", action="append", metavar="NAME", help="use only this test (repeatable)")
    p.add_argument("--timeout", type=positive_float, metavar="S",
                   help="seconds before a run counts as a hang (default: 20x the reference run, at least 10)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON report")
    p.add_argument("--plots", type=Path, metavar="DIR", help="write a PNG per schedule-dependent test here")
    p.add_argument("--junit", type=Path, metavar="FILE",
                   help="also write JUnit XML: a test case per test (with a command: the command), a failure when "
                        "it is schedule-dependent or hangs")
    config.add_output_options(p)
    p.set_defaults(runs_given=False)
    p.epilog = ("cltc amplify [options] -- COMMAND ARGS...: a project built through cltc-cc with CLTC_MODE=amplify, "
                "its own test command (ctest, make check, a script) run under every block schedule; the schedules "
                "under which its exit status differs from the ascending order's are reported (--timeout: the "
                "reference run's limit, 300 s by default, and each run's)")


def run(a: argparse.Namespace, extra) -> int:
    if a.runs < 1:
        raise UserError("--runs must be at least 1")
    if a.plots:
        require("cltc amplify --plots", "report", "matplotlib")
    from instrument.output import atomic_write_text

    from ..report_files import write_junit_failure
    from . import engine, report

    outputs = [Output("--json", a.json), Output("--junit", a.junit), Output("--plots", a.plots, "into")]
    if extra:   # a project's own test command over its build through cltc-cc (amplify/project.py)
        from . import project
        config.refuse_suite_options(a, "amplify")
        cfg = a.config or config.discover(Path.cwd())
        check_outputs(outputs, inputs=[cfg] if cfg else [])
    else:
        s = config.load_suite(a, "amplify")
        check_outputs(outputs, inputs=[*s.input_files(), s.root, *config.database_files(a)])
    paths = config.report_paths(a, Path.cwd() if extra else s.root)   # how the reports name files (--root)
    t0 = time.monotonic()
    try:
        if extra:
            res = project.run(extra, a.timeout, a.schedules, a.seed, a.runs if a.runs_given else 1, a.jobs,
                              progress=show_progress(a), show_warnings=not a.quiet)
        else:
            res = engine.run(s, a.backend, a.runs, a.schedules, a.seed, a.jobs, progress=show_progress(a),
                             timeout=a.timeout, dask=a.dask, show_warnings=not a.quiet)
    except UserError as exc:   # --junit says so (a CI step never reads a stale file), then the error line
        write_junit_failure(a.junit, "cltc amplify", str(exc), time.monotonic() - t0)
        raise
    if (a.dask or a.jobs > 1) and not a.quiet:
        print(f"cltc: {res.execution.summary(time.monotonic() - t0, 'runs')}", file=sys.stderr)
    text = report.render_text(res, quiet=a.quiet, verbose=a.verbose, paths=paths)
    if a.json:
        atomic_write_text(a.json, report.render_json(res, paths))
    if a.junit:
        from instrument import junit
        junit.write(a.junit, [report.junit_suite(res, time.monotonic() - t0)])
    if a.plots:
        for p in report.write_plots(res, a.plots):
            text += f"plot: {p}\n"
    sys.stdout.write(text)
    if config.github(a):   # GitHub Actions: a warning per schedule-dependent test, a step summary
        from ..report_github import amplify as github_output
        github_output(res, EXIT_FINDINGS if res.unstable else EXIT_OK)
    return EXIT_FINDINGS if res.unstable else EXIT_OK
