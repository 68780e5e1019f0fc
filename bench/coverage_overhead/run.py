"""bench/coverage_overhead: run time of coverage-instrumented builds over plain builds, side by side.

    python bench/coverage_overhead/run.py [--backend gpu] [--repeat 5] [--out DIR] [--tag NAME]

Two measures, each the median of --repeat runs taken alternately (plain, instrumented):
- kernel time of the five kernel-timed programs of bench/hirace_overhead (one launch
  after a warm-up, CUDA events): the cost inside the kernels;
- whole-process wall time of every corpus program (tests/cuda/corpus): what a test
  suite run pays end to end, context start-up included.
"""
from __future__ import annotations

import argparse
import csv
import math
import re
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from cltestcheck.build import build_instrumented  # noqa: E402
from cltestcheck.coverage.planner import CoveragePlanner  # noqa: E402
from cltestcheck.suite import Suite  # noqa: E402
from instrument.backends import get_backend  # noqa: E402
from instrument.protocol import Env  # noqa: E402

KERNEL_PROGRAMS = {"reduce": 1 << 24, "histogram": 1 << 24, "matmul": 1024, "stencil": 1 << 24, "spmv": 1 << 20}


def kernel_ms(text: str) -> float:
    m = re.search(r"kernel_ms ([0-9.]+)", text)
    if not m:
        raise RuntimeError(f"no kernel_ms in output: {text[-300:]}")
    return float(m.group(1))


def builds(src: Path, be, work: Path, defines=()):
    s = Suite(src.parent, [src], defines=list(defines))
    plain = build_instrumented(s, be, work, [], name="plain")[0]
    p = CoveragePlanner()
    inst = build_instrumented(s, be, work, [p], name="cov")[0]
    return plain, inst


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply kernel-program sizes (cpu: 1/64)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--tag", default=None)
    ap.add_argument("-D", dest="defines", action="append", default=[], help="extra -D for the instrumented build")
    ap.add_argument("--kernels-only", action="store_true", help="only the five kernel-timed programs")
    a = ap.parse_args()
    be = get_backend(a.backend)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, size in KERNEL_PROGRAMS.items():
            src = ROOT / "bench" / "hirace_overhead" / "programs" / f"{name}.cu"
            n = str(max(16, int(size * a.scale))) if name != "matmul" else \
                str(max(64, int(size * math.sqrt(a.scale)) // 16 * 16))
            plain, inst = builds(src, be, tmp / name, a.defines)
            tp, ti = [], []
            for _ in range(a.repeat):
                r = be.run(plain, [n], timeout=600)
                tp.append(kernel_ms(r.stdout))
                r2 = be.run(inst, [n], env={Env.CLTC_COV_LOG: str(tmp / "log.json")}, timeout=600)
                assert r2.stdout.replace(re.search(r"kernel_ms [0-9.]+", r2.stdout).group(0), "") == \
                    r.stdout.replace(re.search(r"kernel_ms [0-9.]+", r.stdout).group(0), ""), name
                ti.append(kernel_ms(r2.stdout))
            rows.append({"program": name, "measure": "kernel_ms", "plain": statistics.median(tp),
                         "instrumented": statistics.median(ti),
                         "overhead_pct": 100 * (statistics.median(ti) / statistics.median(tp) - 1)})
            print(rows[-1], flush=True)
        for src in [] if a.kernels_only else sorted((ROOT / "tests" / "cuda" / "corpus").glob("*.cu")):
            plain, inst = builds(src, be, tmp / src.stem)
            tp, ti = [], []
            for _ in range(a.repeat):
                r = be.run(plain, timeout=600)
                r2 = be.run(inst, env={Env.CLTC_COV_LOG: str(tmp / "log.json")}, timeout=600)
                assert (r.returncode, r.stdout) == (r2.returncode, r2.stdout), src.name
                tp.append(r.wall_s)
                ti.append(r2.wall_s)
            rows.append({"program": src.stem, "measure": "process_s", "plain": statistics.median(tp),
                         "instrumented": statistics.median(ti),
                         "overhead_pct": 100 * (statistics.median(ti) / statistics.median(tp) - 1)})
            print(rows[-1], flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    out = a.out / f"coverage_overhead_{a.tag or be.name}.csv"
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for m in ("kernel_ms", "process_s"):
        v = [r["overhead_pct"] for r in rows if r["measure"] == m]
        if v:
            print(f"{m}: overhead min {min(v):.1f}%, median {statistics.median(v):.1f}%, max {max(v):.1f}%")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
