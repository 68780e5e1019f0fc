"""`cltc coverage`: argument handling only."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instrument.cli_support import positive_int, add_progress_options, show_progress
from instrument.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK

from .. import config, gates
from instrument.files import Output, check_outputs


def setup(p: argparse.ArgumentParser) -> None:
    config.add_suite_options(p)
    p.add_argument("--test", action="append", metavar="NAME", help="run only this test (repeatable)")
    p.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N", help="tests run at once (default 1)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON report")
    p.add_argument("--lcov", type=Path, metavar="FILE", help="also write an lcov tracefile (.info)")
    p.add_argument("--cobertura", type=Path, metavar="FILE", help="also write Cobertura XML")
    p.add_argument("--html", type=Path, metavar="DIR", help="also write annotated HTML pages")
    p.add_argument("--count-executions", action="store_true",
                   help="count how many threads pass each item (hit counts of executions in lcov/Cobertura "
                        "and JSON) instead of setting a flag; costs an atomic add per pass")
    p.add_argument("--fail-under", action="append", metavar="[MEASURE=]PCT",
                   help="exit 1 when coverage is under PCT: the total, or one measure (branches, loops, "
                        "barriers); repeatable")
    add_progress_options(p)


def run(a: argparse.Namespace, _extra) -> int:
    from .. import suite as suite_mod
    from ..report_files import write_reports
    from . import engine, report_cobertura, report_html, report_json, report_lcov, report_text

    thresholds = gates.coverage_thresholds(a.fail_under)
    s = suite_mod.load(config.suite_dir(a, "coverage"), a.kernels).select(a.test)
    check_outputs([Output("--json", a.json), Output("--lcov", a.lcov), Output("--cobertura", a.cobertura),
                   Output("--html", a.html, "dir")], inputs=[*s.input_files(), s.root])
    res = engine.run(s, a.backend, a.jobs, progress=show_progress(a), show_warnings=True,
                     count_executions=a.count_executions)
    write_reports([(a.json, lambda: report_json.render(res)),
                   (a.lcov, lambda: report_lcov.render(res, test_name=s.root.name)),
                   (a.cobertura, lambda: report_cobertura.render(res))],
                  a.html, lambda: report_html.render(res))
    sys.stdout.write(report_text.render(res))
    t = res.total()
    covered = {"branches": tuple(t.branches), "loops": tuple(t.loop_total), "barriers": tuple(t.barriers),
               "total": (t.branches[0] + t.loop_total[0] + t.barriers[0], t.branches[1] + t.loop_total[1] + t.barriers[1])}
    short = gates.coverage_shortfalls(covered, thresholds)
    for line in short:
        print(f"cltc coverage: {line}", file=sys.stderr)
    # a test that failed, or whose run left no coverage, is a failed run, whatever the numbers say
    # (the reports above show what the other tests and its own run reached)
    broken = [(t.name, t.verdict.reason if not t.verdict.passed else "its run left no coverage log")
              for t in res.tests if not t.verdict.passed or not t.collected]
    for name, why in broken:
        print(f"cltc coverage: test '{name}' failed: {why}", file=sys.stderr)
    if broken:
        return EXIT_ERROR
    return EXIT_FINDINGS if short else EXIT_OK
