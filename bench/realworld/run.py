"""bench/realworld: open, instrument and run public CUDA programs as a new user would.

    python bench/realworld/run.py --root samples=DIR --root rodinia=DIR [--backend cpu|gpu]
                                  [--only NAME ...] [--out DIR] [--timeout S]

The programs come from a spec (programs.toml beside this file): their sources, -I/-D options,
small arguments and generated inputs, relative to a root directory given on the command line
(a checkout of NVIDIA's cuda-samples, a Rodinia mirror). Nothing of theirs is kept here. For each
program the stages are

  parse     `hirace instrument` (libclang parse + instrumentation), first error if any
  nvcc      nvcc compiles the original and the instrumented sources (when nvcc exists)
  plain     `python -m instrument.run` on the chosen backend: exit status and stdout
  hirace    `hirace run` on the same backend: races (JSON report), exit status, stdout
  same      hirace's stdout equals the plain run's (lines with timings left out)
  coverage  `cltc coverage` with the plain run as the one test

and one row per program goes to results.csv (stage reached, first error, races, output equal),
with a summary (counts per stage) printed and written to summary.txt; the races found go to
races_BACKEND.json and what coverage found (totals, every item, divergent barriers; paths relative
to the program's root) to coverage_BACKEND.json, for comparing backends.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from bench.realworld import inputs  # noqa: E402
from instrument.protocol import Macro  # noqa: E402

TIMING = re.compile(r"(time|elapsed|msec|\bms\b|sec\b|seconds?\b|gflop|throughput|bandwidth|performance|"
                    r"clock|speed|GB/s|MB/s|/s\b|rate|while waiting|took|execution|memcopy|\d s, |\d\s?s$)", re.I)


@dataclass
class Program:
    name: str
    root: str                       # which --root it lives under
    sources: list[str]
    include: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    gpu_defines: list[str] = field(default_factory=list)   # only on the gpu backend (e.g. for APIs CUDA 13 removed)
    args: list[str] = field(default_factory=list)
    inputs: list[dict] = field(default_factory=list)   # generated input files (bench/realworld/inputs.py)
    files: list[str] = field(default_factory=list)     # files of the root copied into the run directory
    timeout: float = 300.0
    note: str = ""
    # output lines that differ from run to run for reasons of the program's own (timings the
    # general filter cannot tell, results of inputs seeded from the clock): regular expressions
    varying: list[str] = field(default_factory=list)


@dataclass
class Row:
    program: str
    suite: str
    backend: str
    parse: str = ""          # ok | error
    nvcc_plain: str = ""     # ok | error | n/a
    nvcc_hirace: str = ""
    plain: str = ""          # exit status, or error
    hirace: str = ""         # exit status of hirace run
    races: str = ""
    same_output: str = ""    # yes | no | ""
    coverage: str = ""       # ok | error
    stage: str = ""          # the last stage reached
    first_error: str = ""
    diff: str = ""           # the first line where hirace's output differs from the plain run's
    seconds: float = 0.0


def load_spec(path: Path) -> list[Program]:
    data = tomllib.loads(path.read_text())
    return [Program(**p) for p in data["program"]]


def _first_error(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("[backend")]
    pick = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
    return pick[:300]


def _run(cmd, cwd, timeout, env=None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(exc.cmd, 124, exc.stdout or "", f"timed out after {timeout:g}s")


def _comparable(stdout: str, varying: list[str] = ()) -> list[str]:
    skip = [re.compile(v) for v in varying]
    return [ln.rstrip() for ln in stdout.splitlines()
            if not TIMING.search(ln) and not any(v.search(ln) for v in skip)]


def prepare_run(p: Program, base: Path, run_dir: Path) -> list[str]:
    """The program's run directory (its files copied, its inputs generated): its arguments there."""
    run_dir.mkdir()
    for f in p.files:
        dst = run_dir / Path(f).name
        (shutil.copytree if (base / f).is_dir() else shutil.copy)(base / f, dst)
    for spec in p.inputs:
        inputs.make(spec, run_dir)
    return [a.replace("{run}", str(run_dir)) for a in p.args]


def check(p: Program, roots: dict[str, Path], backend: str, work: Path, py: str, timeout: float,
          stages: frozenset[str] = frozenset(("nvcc", "coverage"))) -> Row:
    row = Row(p.name, p.root, backend)
    t0 = time.monotonic()
    base = roots[p.root]
    srcs = [base / s for s in p.sources]
    incs = [x for d in p.include for x in ("-I", base / d)]
    defs = [x for d in p.defines + (p.gpu_defines if backend == "gpu" else []) for x in ("-D", d)]
    run_dir = work / "run"
    args = prepare_run(p, base, run_dir)
    given = sorted(x.name for x in run_dir.iterdir())   # the program's input files (its runs may add more)
    tmo = min(timeout, p.timeout)

    def fail(stage: str, text: str) -> Row:
        row.stage = stage
        row.first_error = _first_error(text)
        row.seconds = round(time.monotonic() - t0, 1)
        return row

    r = _run([py, "-m", "hirace.cli", "instrument", "-o", work / "inst", *incs, *defs, *srcs], run_dir, tmo)
    row.parse = "ok" if r.returncode == 0 else "error"
    if r.returncode:
        return fail("parse", r.stderr)
    nvcc = shutil.which("nvcc") if "nvcc" in stages else None
    if nvcc:
        inst_srcs = sorted(str(q) for q in (work / "inst").rglob("*") if q.suffix in (".cu", ".cpp", ".c", ".cc")
                           and q.name in {s.name for s in srcs})
        # the build macros `hirace instrument` names (the rest keep the runtime's defaults: protocol.h)
        planned = [f"-D{d}" for d in re.findall(r"-D(\w+=\w+)", r.stderr) if d.split("=")[0] in set(Macro)]
        r1 = _run([nvcc, "-std=c++17", *incs, *defs, *srcs, "-o", work / "plain_nvcc"], run_dir, tmo)
        row.nvcc_plain = "ok" if r1.returncode == 0 else "error"
        if r1.returncode == 0:
            inst_incs = ["-I", work / "inst", "-I", ROOT / "runtime" / "include"] + \
                [x for d in p.include for x in ("-I", work / "inst" / d, "-I", base / d)]
            r2 = _run([nvcc, "-std=c++17", *inst_incs, *defs, *planned, *inst_srcs, "-o", work / "hirace_nvcc"],
                      run_dir, tmo)
            row.nvcc_hirace = "ok" if r2.returncode == 0 else "error"
            if r2.returncode:
                return fail("nvcc", r2.stderr + r2.stdout)
    else:
        row.nvcc_plain = row.nvcc_hirace = "n/a"
    plain = _run([py, "-m", "instrument.run", "--backend", backend, "--timeout", tmo, *incs, *defs, *srcs, "--", *args],
                 run_dir, tmo + 600)
    row.plain = str(plain.returncode)
    if plain.returncode not in (0,) and not plain.stdout:
        return fail("plain", plain.stderr)
    report = work / "hirace.json"
    h = _run([py, "-m", "hirace.cli", "run", "--backend", backend, "--timeout", tmo, "--prior-sites", "--format",
              "json", "--output", report, *incs, *defs, *srcs, "--", *args], run_dir, tmo + 600)
    row.hirace = str(h.returncode)
    if report.is_file():
        doc = json.loads(report.read_text())
        row.races = str(len(doc["races"]))
        (work.parent / f"{p.name}.races.json").write_text(json.dumps(
            [{k: r[k] for k in ("kind", "memory", "kernel", "variable", "site", "prior_site", "count")}
             for r in doc["races"][:20]]))   # the first 20 of each program
    a, b = _comparable(plain.stdout, p.varying), _comparable(h.stdout, p.varying)
    # device printf from several blocks comes in the order they ran: the same lines, reordered, are equal
    row.same_output = "yes" if a == b else "reordered" if sorted(a) == sorted(b) else "no"
    if row.same_output == "no":
        i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        row.diff = f"line {i + 1}: plain {a[i] if i < len(a) else '<end>'!r} / hirace {b[i] if i < len(b) else '<end>'!r}"[:300]
    if h.returncode not in (0, 1):
        return fail("hirace", h.stderr)
    if "coverage" not in stages:
        row.stage = "done"
        row.seconds = round(time.monotonic() - t0, 1)
        return row
    suite = work / "suite"
    suite.mkdir()
    for name in given:   # cltc runs a test in a directory of its own, holding the files it names
        (suite / name).symlink_to(run_dir / name)
    toml = {"sources": [str(s) for s in srcs], "include": [str(base / d) for d in p.include],
            "defines": p.defines + (p.gpu_defines if backend == "gpu" else []), "timeout": tmo}
    (suite / "cltc.toml").write_text(
        "[build]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in toml.items()) +
        f"\n[[test]]\nname = \"run\"\nargs = {json.dumps(args)}\nfiles = {json.dumps(given)}\n"
        f"exit_code = {plain.returncode}\n")
    c = _run([py, "-m", "cltestcheck.cli", "coverage", "--backend", backend, "--suite", suite,
              "--json", work / "coverage.json"], run_dir, tmo + 600)
    row.coverage = "ok" if c.returncode == 0 else "error"
    if c.returncode:
        return fail("coverage", c.stderr)
    (work.parent / f"{p.name}.coverage.json").write_text(json.dumps(_coverage_summary(work / "coverage.json", base)))
    row.stage = "done"
    row.seconds = round(time.monotonic() - t0, 1)
    return row


def _coverage_summary(report: Path, base: Path) -> dict:
    """What a coverage run found, with paths relative to the program's root, so that two backends'
    (two machines') runs compare item for item."""
    d = json.loads(report.read_text())

    def rel(f: str) -> str:
        try:
            return str(Path(f).resolve().relative_to(base.resolve()))
        except ValueError:
            return Path(f).name
    return {"total": d["total"],
            "items": [[rel(i["file"]), i["line"], i["label"], i["covered"]] for i in d["items"]],
            "divergences": [[rel(x["file"]), x["line"], x["block"], x["arrived"], x["threads"], x["blocks_seen"]]
                            for x in d["divergences"]]}


def check_all(progs, one, jobs: int, scratch: Path, races: dict, describe) -> list:
    """Check every program with `one(p) -> row` on `jobs` threads, printing each row as soon as it is
    known (`describe(p, row)`), and keep the races each left in `scratch`; the rows in `progs`' order."""
    rows = {}
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        futures = {pool.submit(one, p): p for p in progs}
        for i, fut in enumerate(as_completed(futures), 1):
            p, row = futures[fut], fut.result()
            rows[p.name] = row
            print(f"[{i}/{len(progs)}] {p.name}: {describe(p, row)}", flush=True)
            for f in scratch.glob(f"{p.name}/*.races.json"):
                races[p.name] = json.loads(f.read_text())
    return [rows[p.name] for p in progs]


def summarize(rows: list[Row]) -> str:
    n = len(rows)

    def count(pred) -> int:
        return sum(1 for r in rows if pred(r))
    by_suite = {}
    for r in rows:
        by_suite.setdefault(r.suite, []).append(r)
    lines = [f"{n} programs ({', '.join(f'{k}: {len(v)}' for k, v in sorted(by_suite.items()))}) on the "
             f"{rows[0].backend if rows else '?'} backend"]
    lines.append(f"  parse ok:                 {count(lambda r: r.parse == 'ok')}/{n}")
    with_nvcc = [r for r in rows if r.nvcc_plain == "ok"]
    lines.append(f"  instrumented nvcc ok:     {count(lambda r: r.nvcc_hirace == 'ok')}/{len(with_nvcc)} "
                 f"(of those whose original compiles with nvcc)")
    lines.append(f"  plain run exit 0:         {count(lambda r: r.plain == '0')}/{n}")
    lines.append(f"  hirace finished (0 or 1): {count(lambda r: r.hirace in ('0', '1'))}/{n}")
    lines.append(f"  hirace output = plain:    {count(lambda r: r.hirace in ('0', '1') and r.same_output != 'no')}/{n} "
                 f"(device printf reordered: {count(lambda r: r.same_output == 'reordered')})")
    lines.append(f"  races reported in:        {count(lambda r: r.races not in ('', '0'))} programs")
    lines.append(f"  cltc coverage ok:         {count(lambda r: r.coverage == 'ok')}/{n}")
    for r in rows:
        if r.stage != "done" or r.same_output == "no":   # what remains, with its cause
            lines.append(f"  - {r.program}: stopped at {r.stage or 'output'}: {r.first_error or 'output differs: ' + r.diff}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", action="append", default=[], metavar="NAME=DIR",
                    help="where the programs of a suite are (samples=..., rodinia=...)")
    ap.add_argument("--spec", type=Path, default=HERE / "programs.toml")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "gpu"))
    ap.add_argument("--only", nargs="*", help="check only these programs")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "realworld")
    ap.add_argument("--keep", action="store_true", help="keep the work directories")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="programs checked at once")
    ap.add_argument("--part", default="1/1", metavar="K/N", help="check only the K-th of N equal slices of the spec")
    ap.add_argument("--skip", nargs="*", default=[], choices=("nvcc", "coverage"),
                    help="stages to leave out (parse, plain and hirace always run)")
    a = ap.parse_args(argv)
    roots = {}
    for item in a.root:
        name, _, d = item.partition("=")
        roots[name] = Path(d).resolve()
    progs = [p for p in load_spec(a.spec) if p.root in roots and (not a.only or p.name in a.only)]
    k, n = (int(x) for x in a.part.split("/"))
    progs = progs[(k - 1) * len(progs) // n:k * len(progs) // n]
    if not progs:
        print("no programs selected: give --root samples=DIR and/or --root rodinia=DIR", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    races: dict[str, list] = {}
    coverage: dict[str, dict] = {}
    scratch = Path(tempfile.mkdtemp(prefix="realworld-"))
    stages = frozenset({"nvcc", "coverage"} - set(a.skip))

    def one(p: Program) -> Row:
        work = scratch / p.name / "w"
        work.mkdir(parents=True)
        return check(p, roots, a.backend, work, py, a.timeout, stages)
    try:
        def done(p: Program, row: Row) -> str:
            for f in scratch.glob(f"{p.name}/*.coverage.json"):
                coverage[p.name] = json.loads(f.read_text())
            return (f"{row.stage} parse={row.parse} nvcc={row.nvcc_hirace} plain={row.plain} hirace={row.hirace} "
                    f"races={row.races} same={row.same_output} cov={row.coverage} {row.seconds}s {row.first_error[:120]}")
        rows = check_all(progs, one, a.jobs, scratch, races, done)
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    tag = a.backend if a.part == "1/1" else f"{a.backend}_part{k}"
    with open(a.out / f"results_{tag}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(asdict(rows[0])))
        w.writeheader()
        w.writerows(asdict(r) for r in rows)
    (a.out / f"races_{tag}.json").write_text(json.dumps(races, indent=1) + "\n")
    if coverage:
        (a.out / f"coverage_{tag}.json").write_text(json.dumps(coverage, indent=None) + "\n")
    text = summarize(rows)
    (a.out / f"summary_{tag}.txt").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
