"""bench/mutation_throughput: mutants judged per minute, schemata (one build) against one build per
mutant, on the same program, suite and backend, measured side by side.

    python bench/mutation_throughput/run.py [--backend gpu] [--suite DIR ...] [--out DIR] [--tag NAME]

Both modes judge every mutant against every test that the schemata's reference run shows
reaching it, one run per mutant and test, and must agree on each verdict. The separate
build applies the mutant as a plain text edit of the original source.
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from cltestcheck import suite as suite_mod  # noqa: E402
from cltestcheck.build import build_instrumented  # noqa: E402
from cltestcheck.execute import run_test  # noqa: E402
from cltestcheck.judge import judge  # noqa: E402
from cltestcheck.mutate import engine  # noqa: E402
from instrument.backends import get_backend  # noqa: E402
from instrument.frontend.parse import Span  # noqa: E402

OPS = ["arithmetic", "relational", "bitwise", "logical", "assignment", "unary", "barrier", "loop",
       "thread-index", "shared-index"]   # atomics have no plain-text form, so the comparison leaves them out


def single(m):
    def planner(prog, plan):
        if m.file in prog.unit.files:
            plan.replace(Span(m.file, m.start, m.end, m.line, m.col), m.replacement, f"mutant {m.id}")
    return planner


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--suite", type=Path, action="append")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--tag", default=None)
    a = ap.parse_args()
    be = get_backend(a.backend)
    suites = a.suite or [ROOT / "tests/suites/mut_basic", ROOT / "tests/suites/cov_reduce"]
    rows = []
    for sdir in suites:
        s = suite_mod.load(sdir)
        t0 = time.monotonic()
        res = engine.run(s, be.name, OPS, runs=1, progress=False)
        schemata_s = time.monotonic() - t0
        refs = {r.test.name: r for r in res.references}
        agree = 0
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            for o in res.outcomes:
                m = o.mutant
                try:
                    exe = build_instrumented(s, be, Path(tmp) / str(m.id), [single(m)], name="m")[0]
                except Exception:
                    killed = "not compilable"
                else:
                    killed = False
                    for name in o.covered_by:
                        ref = refs[name]
                        obs = run_test(be, exe, s, ref.test,
                                       timeout=min(ref.test.timeout, max(5.0, 10 * ref.obs.wall_s)))
                        if not judge(ref.test, obs).passed:
                            killed = True
                            break
                agree += killed == (o.status in ("killed", "timeout"))
        separate_s = time.monotonic() - t0
        n = len(res.outcomes)
        row = {"suite": sdir.name, "backend": be.name, "mutants": n,
               "schemata_s": round(schemata_s, 2), "separate_s": round(separate_s, 2),
               "schemata_per_min": round(60 * n / schemata_s, 1), "separate_per_min": round(60 * n / separate_s, 1),
               "speedup": round(separate_s / schemata_s, 2), "verdicts_agree": f"{agree}/{n}"}
        rows.append(row)
        print(row, flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    out = a.out / f"mutation_throughput_{a.tag or be.name}.csv"
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
