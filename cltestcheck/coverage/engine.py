"""cltc coverage: instrument -> build -> run every test -> collect what each covered."""
from __future__ import annotations

from pathlib import Path

from instrument.backends import get_backend
from instrument.parallel import parallel_map
from instrument.progress import Progress, Warnings

from ..build import build_instrumented
from ..execute import run_test
from ..judge import judge
from ..observed import Observed
from ..suite import Suite
from .planner import CoveragePlanner
from .results import CoverageResult, TestCoverage
from instrument.reaper import temp_dir
from instrument.frontend.suppressions import CLTC_IGNORE, Suppressed
from instrument import logs
from instrument.protocol import COVERAGE_LOG, Env


def run(suite: Suite, backend_name: str = "auto", jobs: int = 1, progress: bool = True,
        show_warnings: bool = False, count_executions: bool = False) -> CoverageResult:
    """Measure every test; with show_warnings, each warning goes to stderr as soon as it is known;
    with count_executions, how many threads passed each item too (an atomic add per pass)."""
    backend = get_backend(backend_name)
    warnings = Warnings("cltc", show_warnings)
    planner = CoveragePlanner(count_executions)
    with temp_dir(prefix="cltc-cov-") as tmp:
        work = Path(tmp)
        exe, _, built_warnings = build_instrumented(
            suite, backend, work, [planner], name="cov")
        warnings.add(*built_warnings, *planner.skipped)
        bar = Progress(len(suite.tests), "cltc coverage", enabled=progress, unit="tests")

        def one(i_test):
            i, test = i_test
            return measure(backend, exe, suite, test, work / f"cov-{i}.json")[0]

        try:
            tests = parallel_map(one, list(enumerate(suite.tests)), jobs, bar.step)
        finally:
            bar.close()
    return CoverageResult(str(suite.root), backend.name, planner.table, tests, list(warnings),
                          suppressions(planner.table), count_executions)


def suppressions(table) -> Suppressed:
    """The `cltc: ignore` marks of the table's files; a region left open is an error now, before any
    report is written."""
    suppressed = Suppressed(CLTC_IGNORE)
    for f in {f.file for f in table.functions}:
        suppressed.of(f)
    return suppressed


def measure(backend, exe: Path, suite: Suite, test, log: Path, env: dict | None = None,
            timeout: float | None = None) -> tuple[TestCoverage, Observed]:
    """Run one test of a coverage build with its log at `log` (`env`: more of the program's
    environment): what it covered, and what the run did."""
    # exited threads count as arrived, as on the GPU: a barrier that part
    # of a block skips is measured as divergent instead of stopping the run
    obs = run_test(backend, exe, suite, test, env={**(env or {}), Env.CLTC_COV_LOG: str(log),
                                                    Env.CUDAEMU_EXITED_ARRIVE: "1"}, timeout=timeout)
    # a Python test that launched no kernel covered nothing, and that is all there is to know
    tc = TestCoverage(test.name, judge(test, obs), obs.wall_s, log.is_file() or obs.launches == 0)
    if log.is_file():
        data = logs.read_complete(log, COVERAGE_LOG, f"the coverage log of test '{test.name}'")
        tc.flags = {r.id for r in data["flag"]}
        tc.counts = {r.id: r.n for r in data["count"]}
        tc.barrier_counts = {r.barrier: r.n for r in data["barrier_count"]}
        tc.barrier_flags = {r.id for r in data["barrier_flag"]}
        tc.divergences = [{"barrier": d.barrier, "block": list(d.block), "arrived": d.arrived,
                           "threads": d.threads} for d in data["divergence"]]
        tc.divergence_total = data["end"][0].divergence_total
    return tc, obs
