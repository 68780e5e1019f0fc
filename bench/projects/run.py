"""bench/projects: public CUDA programs built by their own build systems, through hirace-cc.

    python bench/projects/run.py --root samples=DIR --root rodinia=DIR [--backend gpu|cpu]
                                 [--tool hirace|cltc] [--only NAME ...] [--out DIR] [-j N] [--timeout S]

The programs are bench/realworld/programs.toml's (their arguments and generated inputs); how each is
built comes from its own project: a cuda-samples program is its sample's CMake project (target: its
name), a Rodinia program its Makefile (bench/projects/builds.toml: the directory, the make variable
that names nvcc, the target and the program built). For each program

  plain    the project built as it is (cmake, or make) and run: exit status and stdout
  hirace   the project built again with hirace-cc as its compiler (and linker) launcher
           (CMAKE_CUDA_COMPILER_LAUNCHER and friends; make VAR="hirace-cc nvcc"), run under
           `hirace run -- PROGRAM ARGS`: exit status, races, stdout
  same     hirace's stdout equals the plain run's (timing lines left out, as bench/realworld)

With `--tool cltc` the second build is through cltc-cc and the run `cltc coverage -- PROGRAM ARGS` (its
coverage in the row's `coverage`; files named projects_BACKEND_cltc.csv and so on). One row per program
goes to projects_BACKEND.csv, the races to races_BACKEND.json and a summary to
summary_BACKEND.txt. The projects' files are copied into a scratch directory first (Make builds in
place); nothing of theirs is kept here.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from bench.realworld.run import Program, _comparable, _first_error, _run, check_all, load_spec, prepare_run  # noqa: E402


@dataclass
class Row:
    program: str
    suite: str
    backend: str
    plain_build: str = ""    # ok | error
    hirace_build: str = ""
    plain: str = ""          # exit status
    hirace: str = ""         # exit status of hirace run -- PROGRAM
    races: str = ""
    memory_errors: str = ""
    same_output: str = ""    # yes | reordered | no
    unchecked: str = ""      # yes: hirace said no instrumented kernel ran (exit 2), so nothing was checked
    coverage: str = ""       # --tool cltc: the kernels' coverage (percent of every item) cltc measured
    stage: str = ""          # the last stage reached (done: every stage ran)
    first_error: str = ""
    diff: str = ""
    seconds: float = 0.0


# the tool a project is built and run under: its launcher, the module of the launcher and of its command
# line, the variable that picks its backend, and the run's command (`report`: its JSON report)
TOOLS = {"hirace": ("hirace-cc", "hirace.cc", "hirace.cli", "HIRACE_BACKEND",
                    lambda report, tmo: ["run", "--timeout", tmo, "--format", "json", "--output", report]),
         "cltc": ("cltc-cc", "cltestcheck.cc", "cltestcheck.cli", "CLTC_BACKEND",
                  lambda report, tmo: ["coverage", "--timeout", tmo, "--no-progress", "--json", report])}


def _launcher(scratch: Path, py: str, tool: str = "hirace") -> Path:
    """An executable launcher (CMake's launcher variables name a program): the installed one, or a
    script that runs this checkout's."""
    name, module = TOOLS[tool][:2]
    found = shutil.which(name)
    if found:
        return Path(found)
    script = scratch / name
    script.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT}:${{PYTHONPATH}} exec {py} -m {module} \"$@\"\n")
    script.chmod(0o755)
    return script


def _copy_rodinia(base: Path, build: dict, dest: Path) -> Path:
    """The program's part of the Rodinia tree (its top directory, common/ and cuda/util/, in their
    places: the Makefiles include ../../common/make.config), copied: make builds in place."""
    top = Path(build["dir"]).parts[:2]
    for rel in (Path(*top), Path("common"), Path("cuda/util")):
        if (base / rel).exists():
            shutil.copytree(base / rel, dest / rel, symlinks=True, dirs_exist_ok=True)
    return dest / build["dir"]


def _build(p: Program, base: Path, builds: dict, work: Path, cc: Path | None, env: dict, jobs: int,
           timeout: float) -> tuple[Path | None, str]:
    """Build the program by its own build system (with hirace-cc as the launcher when cc is given):
    (the program, '') or (None, the first error)."""
    work.mkdir(parents=True, exist_ok=True)
    if p.root == "samples":
        src = base / Path(p.sources[0]).parent
        bdir = work / "build"
        launch = [] if cc is None else [f"-DCMAKE_{lang}_{what}_LAUNCHER={cc}" for lang in ("CUDA", "CXX")
                                        for what in ("COMPILER", "LINKER")]
        r = _run(["cmake", "-S", src, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release", *launch], work, timeout, env)
        if r.returncode == 0:
            r = _run(["cmake", "--build", bdir, "--target", p.name, "-j", str(jobs)], work, timeout, env)
        exe = bdir / p.name
    else:
        b = builds[p.name]
        mdir = _copy_rodinia(base, b, work / "tree")
        for stale in [mdir / b["exe"], *mdir.rglob("*.o")]:   # (the tree ships some programs prebuilt)
            stale.unlink(missing_ok=True)
        var = [] if cc is None else [f"{b['var']}={cc} {shutil.which('nvcc') or '/usr/local/cuda/bin/nvcc'}"]
        r = _run(["make", "-C", mdir, *var, *([b["target"]] if b.get("target") else [])], work, timeout, env)
        exe = mdir / b["exe"]
    if r.returncode != 0 or not exe.is_file():
        return None, _first_error(r.stderr + r.stdout) or f"no {exe.name} was built"
    return exe, ""


def _program_output(stdout: str) -> str:
    """The program's own stdout under `cltc coverage -- PROGRAM`: what comes before cltc's report,
    which follows the command's output and opens with `cltc coverage: COMMAND (...)`."""
    lines = stdout.splitlines(keepends=True)
    heads = [i for i, line in enumerate(lines) if line.startswith("cltc coverage: ")]
    return "".join(lines[:heads[-1]]) if heads else stdout


def check(p: Program, roots: dict, builds: dict, backend: str, work: Path, py: str, cc: Path, timeout: float,
          jobs: int, tool: str = "hirace") -> Row:
    row = Row(p.name, p.root, backend)
    t0 = time.monotonic()
    base = roots[p.root]
    tmo = min(timeout, p.timeout)

    def done(stage: str, text: str = "") -> Row:
        row.stage = stage
        row.first_error = _first_error(text) if text else ""
        row.seconds = round(time.monotonic() - t0, 1)
        return row
    _, _, cli, variable, command = TOOLS[tool]
    env = dict(os.environ)
    env.pop(variable, None)
    plain_exe, err = (None, "the cpu backend has no plain build of a project") if backend == "cpu" else \
        _build(p, base, builds, work / "plain", None, env, jobs, 1800)
    row.plain_build = "ok" if plain_exe else "error"
    if backend == "gpu" and plain_exe is None:
        return done("plain build", err)
    run_dir = work / "run"
    args = prepare_run(p, base, run_dir)
    plain_out = ""
    if plain_exe is not None:
        plain = _run([plain_exe, *args], run_dir, tmo, env)
        row.plain = str(plain.returncode)
        plain_out = plain.stdout.replace(str(plain_exe), "PROGRAM")   # (programs that print their argv[0])
    hirace_env = dict(env, PATH=f"{cc.parent}{os.pathsep}{env.get('PATH', '')}",
                      **({variable: "cpu"} if backend == "cpu" else {}))
    hirace_exe, err = _build(p, base, builds, work / "hirace", cc, hirace_env, jobs, 1800)
    row.hirace_build = "ok" if hirace_exe else "error"
    if hirace_exe is None:
        return done("hirace build", err)
    report = work / "report.json"
    h = _run([py, "-m", cli, *command(report, tmo), "--", hirace_exe, *args], run_dir, tmo + 60,
             dict(env, PYTHONPATH=f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}"))
    row.hirace = str(h.returncode)
    row.unchecked = "yes" if h.returncode == 2 and "no instrumented kernel ran" in h.stderr else ""
    (work.parent / f"{p.name}.hirace-stderr.txt").write_text(h.stderr[-20000:])
    if report.is_file() and tool == "cltc":
        total = json.loads(report.read_text()).get("total", {})
        row.coverage = f"{total['percent']:.1f}" if isinstance(total.get("percent"), (int, float)) else ""
    elif report.is_file():
        doc = json.loads(report.read_text())
        row.races, row.memory_errors = str(len(doc["races"])), str(len(doc["memory_errors"]))
        (work.parent / f"{p.name}.races.json").write_text(json.dumps(
            [{k: r[k] for k in ("kind", "memory", "kernel", "variable", "site", "prior_site", "count")}
             for r in doc["races"][:20]]))
    if plain_exe is not None:
        varying = p.varying + builds.get(p.name, {}).get("varying", [])
        out = _program_output(h.stdout) if tool == "cltc" else h.stdout
        a, b = _comparable(plain_out, varying), _comparable(out.replace(str(hirace_exe), "PROGRAM"), varying)
        row.same_output = "yes" if a == b else "reordered" if sorted(a) == sorted(b) else "no"
        if row.same_output == "no":
            i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            row.diff = (f"line {i + 1}: plain {a[i] if i < len(a) else '<end>'!r} / "
                        f"hirace {b[i] if i < len(b) else '<end>'!r}")[:300]
    if h.returncode not in (0, 1):
        return done("hirace", h.stderr)
    return done("done")


def summarize(rows: list[Row]) -> str:
    n = len(rows)

    def count(pred) -> int:
        return sum(1 for r in rows if pred(r))
    ran = [r for r in rows if r.plain_build == "ok" and r.plain == "0"]
    same = [r for r in ran if r.hirace in ("0", "1") and r.same_output in ("yes", "reordered")]
    tool = "cltc" if any(r.coverage for r in rows) else "hirace"
    lines = [f"{n} programs on the {rows[0].backend if rows else '?'} backend, built by their own CMake or Makefile",
             f"  plain build ok:               {count(lambda r: r.plain_build == 'ok')}/{n}",
             f"  plain run exit 0:             {len(ran)}",
             f"  built through {tool}-cc:{' ' * (12 - len(tool))}{count(lambda r: r.hirace_build == 'ok')}/{n}",
             f"  {tool} finished (0 or 1):{' ' * (11 - len(tool))}{count(lambda r: r.hirace in ('0', '1'))}/{n}",
             f"  plain output under {tool}:{' ' * (10 - len(tool))}{len(same)}/{len(ran)} of the programs whose plain build runs"
             + (f" ({100 * len(same) / len(ran):.0f}%)" if ran else ""),
             f"  races reported in:            {count(lambda r: r.races not in ('', '0'))} programs" if tool == "hirace" else
             f"  coverage measured in:         {count(lambda r: r.coverage != '')} programs"]
    unchecked = [r for r in ran if r.unchecked == "yes" and r.same_output in ("yes", "reordered")]
    if unchecked:
        lines.insert(-1, f"  plain output, nothing checked: {len(unchecked)} more (hirace exit 2: no kernel built "
                         f"through hirace-cc ran: {', '.join(r.program for r in unchecked)}); with them "
                         f"{len(same) + len(unchecked)}/{len(ran)} ({100 * (len(same) + len(unchecked)) / len(ran):.0f}%)")
    for r in rows:
        if r.stage != "done" or r.same_output == "no":
            lines.append(f"  - {r.program}: stopped at {r.stage}: {r.first_error or 'output differs: ' + r.diff}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--spec", type=Path, default=ROOT / "bench" / "realworld" / "programs.toml")
    ap.add_argument("--builds", type=Path, default=HERE / "builds.toml")
    ap.add_argument("--backend", default="gpu", choices=("cpu", "gpu"))
    ap.add_argument("--tool", default="hirace", choices=tuple(TOOLS), help="hirace run, or cltc coverage, of each program")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "projects")
    ap.add_argument("-j", "--jobs", type=int, default=4, help="programs checked at once")
    ap.add_argument("--build-jobs", type=int, default=4, help="each build's parallel jobs")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args(argv)
    roots = {name: Path(d).resolve() for name, _, d in (r.partition("=") for r in a.root)}
    builds = tomllib.loads(a.builds.read_text())
    progs = [p for p in load_spec(a.spec) if p.root in roots and (not a.only or p.name in a.only)
             and (p.root == "samples" or p.name in builds)]
    if not progs:
        print("no programs selected: give --root samples=DIR and/or --root rodinia=DIR", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    scratch = Path(tempfile.mkdtemp(prefix="projects-"))
    cc = _launcher(scratch, py, a.tool)
    races: dict[str, list] = {}

    def one(p: Program) -> Row:
        work = scratch / p.name / "w"
        work.mkdir(parents=True)
        return check(p, roots, builds, a.backend, work, py, cc, a.timeout, a.build_jobs, a.tool)
    try:
        ordered = check_all(progs, one, a.jobs, scratch, races, lambda p, row: (
            f"{row.stage} build={row.plain_build}/{row.hirace_build} plain={row.plain} {a.tool}={row.hirace} "
            f"races={row.races} cov={row.coverage} same={row.same_output} {row.seconds}s {row.first_error[:150]}"))
    finally:
        errors = a.out / f"stderr_{a.backend}{'' if a.tool == 'hirace' else '_' + a.tool}"   # what `hirace run` said, program by program
        errors.mkdir(exist_ok=True)
        for f in scratch.glob("*/*.hirace-stderr.txt"):
            shutil.copy(f, errors / f.name)
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    with open(a.out / f"projects_{a.backend}{'' if a.tool == 'hirace' else '_' + a.tool}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(asdict(ordered[0])))
        w.writeheader()
        w.writerows(asdict(r) for r in ordered)
    (a.out / f"races_{a.backend}{'' if a.tool == 'hirace' else '_' + a.tool}.json").write_text(json.dumps(races, indent=1) + "\n")
    text = summarize(ordered)
    (a.out / f"summary_{a.backend}{'' if a.tool == 'hirace' else '_' + a.tool}.txt").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
