"""bench/cpu_speed: hirace's cost on the cpu backend, per program, the plain and the hirace run side by side.

    python bench/cpu_speed/run.py --root samples=DIR [--root rodinia=DIR] [--only NAME ...]
                                  [--repeat N] [--timeout S] [--out FILE.csv] [--keep DIR]

The programs are bench/realworld's (its spec, programs.toml; its run directories and inputs). Each
is built twice, plain (`instrument.run`'s build) and under hirace (`hirace run`'s build, prior sites
on, as bench/realworld runs it); then the two executables run back to back, `--repeat` times, and
only the runs are timed: wall seconds (plain_s, hirace_s, ratio) and the CPU seconds the process
used, user and system (plain_cpu_s, hirace_cpu_s, cpu_ratio: steadier than wall time on a machine
shared with other work); the builds are timed apart. One row per run pair, with the exit statuses
and the races reported (a ratio is left empty where the plain run took under 5 ms). `--keep DIR`
keeps each program's builds and run directory (DIR/NAME/plain/prog, DIR/NAME/hirace/prog) for a
profiler: `HIRACE_LOG=/tmp/x.jsonl perf record -g DIR/NAME/hirace/prog ARGS` in DIR/NAME/run.
"""
from __future__ import annotations

import argparse
import csv
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from bench.realworld.run import load_spec, prepare_run  # noqa: E402
from hirace import runner  # noqa: E402
from hirace.config import Config  # noqa: E402
from instrument.backends import get_backend  # noqa: E402
from instrument.compile import pipeline  # noqa: E402

FIELDS = ["program", "suite", "repeat", "plain_s", "hirace_s", "ratio", "plain_cpu_s", "hirace_cpu_s", "cpu_ratio",
          "plain_exit", "hirace_exit", "races", "plain_build_s", "hirace_build_s"]


def _cpu() -> float:
    """CPU seconds (user + system) of the children waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _ratio(a: float, b: float):
    return round(b / a, 2) if a > 0.005 else ""


def measure(p, base: Path, work: Path, repeat: int, timeout: float) -> list[dict]:
    backend = get_backend("cpu", announce=False)
    srcs = [base / s for s in p.sources]
    incs = [base / d for d in p.include]
    run_dir = work / "run"
    args = prepare_run(p, base, run_dir)
    t = time.monotonic()
    plain = pipeline.build(srcs, backend, work / "plain", include_dirs=incs, defines=p.defines)
    plain_build = time.monotonic() - t
    config = Config()
    config.prior_sites = True
    t = time.monotonic()
    built = runner.build(srcs, backend, work / "hirace", config, incs, p.defines)
    hirace_build = time.monotonic() - t
    rows = []
    for k in range(repeat):
        t, c = time.monotonic(), _cpu()
        res = backend.run(plain.exe, args, timeout=timeout, cwd=run_dir)
        plain_s, plain_cpu = time.monotonic() - t, _cpu() - c
        t, c = time.monotonic(), _cpu()
        hres, report = runner.execute(built, config, args, timeout, cwd=run_dir)
        hirace_s, hirace_cpu = time.monotonic() - t, _cpu() - c
        rows.append({"program": p.name, "suite": p.root, "repeat": k + 1, "plain_s": round(plain_s, 2),
                     "hirace_s": round(hirace_s, 2), "ratio": _ratio(plain_s, hirace_s),
                     "plain_cpu_s": round(plain_cpu, 2), "hirace_cpu_s": round(hirace_cpu, 2),
                     "cpu_ratio": _ratio(plain_cpu, hirace_cpu),
                     "plain_exit": "timeout" if res.timed_out else res.returncode,
                     "hirace_exit": "timeout" if hres.timed_out else hres.returncode,
                     "races": len(report.races) if report is not None else "",
                     "plain_build_s": round(plain_build, 1), "hirace_build_s": round(hirace_build, 1)})
        print(",".join(str(rows[-1][f]) for f in FIELDS), flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--spec", type=Path, default=ROOT / "bench" / "realworld" / "programs.toml")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--suite", help="only the programs of this root (samples, rodinia)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--keep", type=Path, help="keep builds and run directories here")
    a = ap.parse_args(argv)
    roots = {k: Path(v).resolve() for k, _, v in (r.partition("=") for r in a.root)}
    progs = [p for p in load_spec(a.spec) if p.root in roots and (not a.only or p.name in a.only)
             and (not a.suite or p.root == a.suite)]
    if a.only:   # in the order given
        progs.sort(key=lambda p: a.only.index(p.name))
    if not progs:
        print("no programs selected: give --root samples=DIR", file=sys.stderr)
        return 2
    scratch = a.keep or Path(tempfile.mkdtemp(prefix="cpu-speed-"))
    rows = []
    print(",".join(FIELDS), flush=True)
    try:
        for p in progs:
            work = scratch / p.name
            if work.exists():
                shutil.rmtree(work)
            work.mkdir(parents=True)
            try:
                rows += measure(p, roots[p.root], work, a.repeat, min(a.timeout, p.timeout))
            except Exception as exc:   # a program that does not build: say so, go on
                print(f"{p.name}: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr, flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        with open(a.out, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
    ratios = {}
    for r in rows:
        if r["ratio"] != "":
            ratios.setdefault(r["program"], []).append(r["ratio"])
    for name, rs in ratios.items():
        print(f"{name}: ratio median {statistics.median(rs):.2f} (of {len(rs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
