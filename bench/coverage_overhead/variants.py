"""bench/coverage_overhead, variants: kernel time of coverage builds of several runtime variants side
by side in one run, to see what a change costs.

    python bench/coverage_overhead/variants.py --out CSV [--repeat 7] [--only reduce stencil]
        --variant new= --variant eager=-DCLTC_COV_LATE_BARRIERS=0 --variant old=@DIR

The programs are run.py's five kernel-timed ones. A variant is NAME=ITEM,ITEM,...: `-DNAME[=V]` a
define, `@DIR` a directory searched before runtime/include (a copy of an earlier cltc/coverage.h, say).
Every build is made first, in parallel; then each repeat runs the plain program and every variant
once, in turn. One row per program and variant: the median kernel time, the overhead over plain,
whether its coverage log equals the first variant's (the same flags, as every variant must give),
and every time taken.
"""
from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from cltestcheck.build import build_instrumented  # noqa: E402
from cltestcheck.coverage.planner import CoveragePlanner  # noqa: E402
from cltestcheck.suite import Suite  # noqa: E402
from instrument.backends import get_backend  # noqa: E402
from instrument.protocol import Env  # noqa: E402

sys.path.insert(0, str(HERE))
from run import KERNEL_PROGRAMS, kernel_ms  # noqa: E402


def parse_variant(spec: str) -> tuple[str, list[str], list[Path]]:
    name, _, items = spec.partition("=")
    items = [x for x in items.split(",") if x]
    bad = [x for x in items if not x.startswith(("-D", "@"))]
    if not name or bad:
        raise SystemExit(f"--variant {spec}: expected NAME=[-DMACRO[=V],@DIR,...]")
    return name, [x[2:] for x in items if x.startswith("-D")], [ROOT / x[1:] for x in items if x.startswith("@")]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True, help="the CSV to write")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--variant", action="append", default=[], required=True)
    ap.add_argument("--only", nargs="*", help="these programs only")
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--scale", type=int, default=1, help="divide the programs' sizes (cpu: 1024)")
    a = ap.parse_args()
    variants = dict((n, (d, i)) for n, d, i in map(parse_variant, a.variant))
    be = get_backend(a.backend)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for prog, size in KERNEL_PROGRAMS.items():
            if a.only and prog not in a.only:
                continue
            src = ROOT / "bench" / "hirace_overhead" / "programs" / f"{prog}.cu"
            arg = str(max(64, size // a.scale // 16 * 16) if prog == "matmul" else max(16, size // a.scale))

            def build(name: str):
                defines, include = variants.get(name, ([], []))
                suite = Suite(src.parent, [src], include=include, defines=defines)
                planners = [] if name == "plain" else [CoveragePlanner()]
                return name, build_instrumented(suite, be, tmp / prog / name, planners, name=name)[0]

            with ThreadPoolExecutor(8) as ex:
                exes = dict(ex.map(build, ["plain", *variants]))
            times: dict[str, list[float]] = {n: [] for n in exes}
            logs: dict[str, str] = {}
            for r in range(a.repeat):
                for name, exe in exes.items():
                    log = tmp / f"{prog}-{name}-{r}.log"
                    res = be.run(exe, [arg], env=None if name == "plain" else {Env.CLTC_COV_LOG: str(log)},
                                 timeout=600)
                    if res.returncode != 0 or "PASS" not in res.stdout:
                        raise SystemExit(f"{prog} ({name}) failed: {res.stdout[-300:]}{res.stderr[-300:]}")
                    times[name].append(kernel_ms(res.stdout))
                    if name != "plain":
                        logs.setdefault(name, log.read_text())
            base = statistics.median(times["plain"])
            first = next(iter(logs.values()))
            for name, t in times.items():
                med = statistics.median(t)
                rows.append({"program": prog, "variant": name, "kernel_ms": med, "overhead_pct": 100 * (med / base - 1),
                             "log_equal_to_first": "" if name == "plain" else str(logs[name] == first),
                             "times": " ".join(f"{x:.4f}" for x in t)})
                print(rows[-1], flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
