"""A program suite (cltc.toml): its sources build one program; each test runs it with arguments,
input files and expectations, in a scratch directory of its own."""
from __future__ import annotations

import os
from pathlib import Path

from instrument.backends import Backend
from instrument.reaper import temp_dir

from .observed import Observed


class ProgramKind:
    """How a cltc.toml suite is built and run (the other kind: pytest_suite.PytestKind)."""
    name = "program"

    def where(self, suite) -> Path:
        """What an error about the suite's tests names."""
        return suite.root / "cltc.toml"

    def build(self, suite, backend: Backend, work: Path, planners, name: str = "prog", opt: str = "-O2",
              cpu_planners=()):
        """Instrument with `planners` (and `cpu_planners` where the backend lowers for the host
        compiler), then build. Returns (exe, programs, warnings)."""
        from instrument.pipeline import build   # the parser (libclang) only when a build runs
        b = build(suite.sources, backend, work, planners, suite.include, suite.defines, suite.flags, exe_name=name,
                  opt=opt, cpu_planners=cpu_planners, src_name=f"src-{name}")
        return b.exe, b.programs, b.warnings

    def run(self, backend: Backend, exe: Path, suite, test, env: dict | None, timeout: float) -> Observed:
        """Run `exe` as `test` says, in a scratch directory that holds the test's input files."""
        with temp_dir(prefix="cltc-run-") as tmp:
            cwd = Path(tmp)
            for rel in test.files:
                dst = cwd / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(suite.root / rel, dst)
            res = backend.run(exe, test.args, env=env, timeout=timeout, stdin=test.stdin, cwd=cwd)
            fault = backend.fault_detail(res)
            files = {}
            for name in test.output_files:
                p = cwd / name
                files[name] = p.read_bytes() if p.is_file() else None
            return Observed(res.returncode, res.stdout, res.stderr, res.wall_s, res.timed_out, fault, files)


PROGRAM = ProgramKind()
