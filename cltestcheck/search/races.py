"""`cltc search --check races`: each input the search keeps (and each of the suite's tests) run under
hirace, through hirace's own command line (cltc imports no other tool): the suite's program is built
once by `hirace-cc` (the compiler launcher, for the search's backend: HIRACE_BACKEND, docs/projects.md),
and each input runs, in a directory of its own as its test runs, under `hirace run --format json --
./prog ARGS` (hirace's default configuration), whose JSON report gives the races. A race is named by
its kind, its kernel and both accesses' places: the first input that shows it is the one reported."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from instrument.backends import Backend
from instrument.backends.process import run_process
from instrument.errors import UserError
from instrument.reaper import temp_dir

from ..suite import Suite, TestCase
from .inputs import Input, materialize

HIRACE_BACKEND = "HIRACE_BACKEND"   # hirace-cc's: the backend it builds for (hirace/cc.py)
BUILD_TIMEOUT = 900.0


def _flags(suite: Suite, backend: Backend) -> list[str]:
    """The suite's compiler flags for the backend (suite.py `flags_for`: [build] flags and gpu_flags or cpu_flags)."""
    return suite.flags_for(backend) if hasattr(suite, "flags_for") else list(suite.flags)


def race_key(r: dict) -> str:
    return f"{r['kind']}|{r['kernel']}|{r['site']}|{r.get('prior') or ''}"


def _hirace(*args: str) -> list[str]:
    return [sys.executable, "-m", *args]


class RaceChecker:
    def __init__(self, suite: Suite, backend: Backend, work: Path):
        self.suite, self.backend = suite, backend
        work = Path(work)
        work.mkdir(parents=True, exist_ok=True)
        self.exe = work / "prog"
        cmd = _hirace("hirace.cc", "nvcc", *(f"-I{d}" for d in suite.include), *(f"-D{d}" for d in suite.defines),
                      *_flags(suite, backend), *map(str, suite.sources), "-o", str(self.exe))
        res = run_process(cmd, timeout=BUILD_TIMEOUT, env={HIRACE_BACKEND: backend.name}, cwd=work)
        if res.returncode != 0 or not self.exe.is_file():
            tail = "\n".join((res.stderr or res.stdout).strip().splitlines()[-12:])
            raise UserError(f"--check races: hirace-cc could not build the suite's program "
                            f"({res.describe_failure() if res.timed_out or res.returncode < 0 else f'status {res.returncode}'})"
                            + (f":\n{tail}" if tail else ""))

    def check(self, test: TestCase, inp: Input, timeout: float) -> tuple[list[dict], str | None]:
        """The races the input shows under hirace, and why the run told nothing (None: it did)."""
        with temp_dir(prefix="cltc-search-races-") as tmp:
            run_dir, report = Path(tmp) / "run", Path(tmp) / "hirace.json"
            _, case = materialize(self.suite, test, inp, run_dir, test.name)
            cmd = _hirace("hirace.cli", "run", "--format", "json", "--output", str(report), "--root", str(run_dir),
                          "--timeout", f"{timeout:g}", "--no-github", "-q", "--", str(self.exe), *case.args)
            res = run_process(cmd, timeout=timeout + 60, cwd=run_dir, stdin=case.stdin if case.stdin is not None
                              else "")
            why = None
            if res.returncode not in (0, 1):   # (the report, when written, still holds what was checked)
                why = "hirace run: " + (res.describe_failure() if res.timed_out or res.returncode < 0 else
                                        (res.stderr.strip().splitlines() or [f"status {res.returncode}"])[-1])
            if not report.is_file():
                return [], why or "hirace run wrote no report"
            found = json.loads(report.read_text())
        return [_race(r) for r in found.get("races", [])], why


def _place(site: dict) -> str:
    return f"{site['file']}:{site['line']}:{site['column']}"


def _race(r: dict) -> dict:
    prior = r.get("prior_site")
    return {"kind": r["kind"], "memory": r["memory"], "kernel": r["kernel"], "variable": r.get("variable", ""),
            "access": r["access"], "site": _place(r["site"]), "text": r["site"]["text"],
            "prior": _place(prior) if prior else "", "prior_text": prior["text"] if prior else "",
            "count": r.get("count", 1)}
