"""The race checkers a sweep compares, each an object (TOOLS) that says which build it runs,
whether it can run here, and how its run becomes an outcome (verdict, races reported, time,
memory).

  sequential  the code's own check: the plain program compares its result with its serial
              version; "result differs from serial code" counts as a race reported
  hirace      our automatic instrumentation (hirace.runner), built once per code
  racecheck   Compute Sanitizer's racecheck on the plain program (gpu backend only)
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from instrument.backends import Backend, RunResult, run_process
from instrument.errors import UserError
from instrument.compile.toolchain import nvcc_path

MATCHES = "result matches serial code"
DIFFERS = "result differs from serial code"


class Verdict(StrEnum):
    """What a tool said about one run (a StrEnum: rows store and compare it as its text)."""
    RACE = "race"
    NO_RACE = "no race"
    ERROR = "error"


@dataclass
class Outcome:
    verdict: Verdict
    races: int | None       # races the tool reported (None when it could not tell)
    serial_check: str       # matches | differs | "" : the program's own comparison line
    exit_status: int
    wall_s: float
    peak_mem_mib: float | None
    note: str = ""


def serial_check(stdout: str) -> str:
    if DIFFERS in stdout:
        return "differs"
    if MATCHES in stdout:
        return "matches"
    return ""


def failure(res: RunResult, backend: Backend) -> str:
    """Why a run did not finish normally ('' when it did)."""
    if res.timed_out:
        return res.describe_failure()
    fault = backend.fault_of(res)
    if fault:
        detail = backend.fault_detail(res)[len(fault):].lstrip(": ").strip()
        return f"{backend.name} backend stopped the program: {fault}" + (f" ({detail})" if detail else "")
    if res.returncode < 0:
        return res.describe_failure()
    return ""


def _outcome(res: RunResult, verdict: Verdict, races: int | None, note: str = "") -> Outcome:
    mem = None if res.peak_rss_kib is None else round(res.peak_rss_kib / 1024, 1)
    return Outcome(verdict, races, serial_check(res.stdout), res.returncode, round(res.wall_s, 4), mem, note)


def _tail(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def sequential(res: RunResult, backend: Backend) -> Outcome:
    why = failure(res, backend)
    check = serial_check(res.stdout)
    if why or not check:
        return _outcome(res, Verdict.ERROR, None, why or f"no result line (exit {res.returncode}): {_tail(res.stderr)}")
    return _outcome(res, Verdict.RACE if check == "differs" else Verdict.NO_RACE, int(check == "differs"))


def hirace(res: RunResult, races, backend: Backend) -> Outcome:
    """races: hirace's RaceReport, or None when the run left no log."""
    why = failure(res, backend)
    if why or races is None:
        return _outcome(res, Verdict.ERROR, None, why or f"no hirace log (exit {res.returncode}): {_tail(res.stderr)}")
    n = len(races.races)
    notes = [f"{races.dropped} more race records dropped" if races.dropped else "",
             f"{len(races.memory_errors)} out-of-bounds access sites" if races.memory_errors else ""]
    note = "; ".join(x for x in notes if x)
    return _outcome(res, Verdict.RACE if n else Verdict.NO_RACE, n, note)


_SUMMARY = re.compile(r"RACECHECK SUMMARY:\s*(\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
_ERRORS = re.compile(r"ERROR SUMMARY:\s*(\d+) errors?")


def racecheck(res: RunResult, backend: Backend) -> Outcome:
    why = failure(res, backend)
    if why:
        return _outcome(res, Verdict.ERROR, None, why)
    text = res.stdout + res.stderr
    m = _SUMMARY.search(text)
    if m:
        n = int(m.group(2)) + int(m.group(3))
    else:
        e = _ERRORS.search(text)
        if not e:
            return _outcome(res, Verdict.ERROR, None, f"no racecheck summary (exit {res.returncode}): {_tail(text)}")
        n = int(e.group(1))
    return _outcome(res, Verdict.RACE if n else Verdict.NO_RACE, n)


def compute_sanitizer() -> Path | None:
    found = shutil.which("compute-sanitizer")
    if found:
        return Path(found)
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    nvcc = nvcc_path()
    if nvcc is not None:
        roots.append(str(Path(nvcc).resolve().parent.parent))
    for root in roots:
        if root:
            for rel in ("bin/compute-sanitizer", "compute-sanitizer/compute-sanitizer"):
                if (Path(root) / rel).is_file():
                    return Path(root) / rel
    return None


def racecheck_command(exe: Path) -> list[str]:
    cs = compute_sanitizer()
    assert cs is not None
    return [str(cs), "--tool", "racecheck", "--print-limit", "100000", str(exe)]


def unavailable(tool: str, backend: Backend) -> str:
    """Why `tool` cannot run with `backend` ('' when it can)."""
    return TOOLS[tool].unavailable(backend)


# ---------------------------------------------------------------- the tools
# The builds and hirace's run import the engine's parser (libclang) when they run, not with this
# module: `indigo-bench --help` and the sweep's option checks work where libclang is missing.
def build_plain_program(work: Path, source: Path, backend: Backend, include, library: bool = False) -> Path:
    from instrument.compile import pipeline
    try:
        return pipeline.build([source], backend, work, include_dirs=list(include), library=library).exe
    except UserError as e:
        raise UserError(f"build failed: {e.message}") from None


def build_hirace_program(work: Path, source: Path, backend: Backend, include, library: bool = False):
    from hirace import runner
    from hirace.config import Config
    try:
        return runner.build([source], backend, work, Config(), list(include), library=library)
    except UserError as e:
        raise UserError(f"hirace could not instrument or build the code: {e.message}") from None


class Tool:
    """A race checker the sweep runs: its name, which build it runs (`build_name`, `build`), why
    it cannot run with a backend ('' when it can), how a run becomes an Outcome (`run`), and
    whether its runs may be rows of a row host (`in_row_host`: built as a library)."""
    name, build_name = "?", "plain"
    in_row_host = True
    build = staticmethod(build_plain_program)

    def unavailable(self, backend: Backend) -> str:
        return ""

    def run(self, backend: Backend, built, args, timeout: float, cwd: Path) -> Outcome:
        raise NotImplementedError


class Sequential(Tool):
    """The code's own check: the plain program compares its result with its serial version."""
    name = "sequential"

    def run(self, backend: Backend, built, args, timeout: float, cwd: Path) -> Outcome:
        return sequential(backend.run(built, args, timeout=timeout, cwd=cwd, measure_memory=True), backend)


class Hirace(Tool):
    """Our automatic instrumentation, built once per code."""
    name, build_name = "hirace", "hirace"
    build = staticmethod(build_hirace_program)

    def run(self, backend: Backend, built, args, timeout: float, cwd: Path) -> Outcome:
        from hirace import runner
        from hirace.config import Config
        res, races = runner.execute(built, Config(), args, timeout, cwd=cwd, measure_memory=True)
        return hirace(res, races, backend)


class Racecheck(Tool):
    """Compute Sanitizer's racecheck on the plain program (gpu backend only)."""
    name = "racecheck"
    in_row_host = False   # Compute Sanitizer starts the program itself

    def unavailable(self, backend: Backend) -> str:
        if not backend.real_device:
            return "racecheck not run: Compute Sanitizer needs the gpu backend"
        if compute_sanitizer() is None:
            return "racecheck not run: compute-sanitizer not found (put it on PATH or set CUDA_HOME)"
        return ""

    def run(self, backend: Backend, built, args, timeout: float, cwd: Path) -> Outcome:
        res = run_process(racecheck_command(built) + list(args), timeout=timeout, cwd=cwd, measure_memory=True)
        return racecheck(res, backend)


TOOLS = {t.name: t for t in (Hirace(), Racecheck(), Sequential())}
NAMES = tuple(TOOLS)
