"""A program suite (cltc.toml): its sources build one program; each test runs it with arguments,
input files and expectations, in a scratch directory of its own."""
from __future__ import annotations

import os
from pathlib import Path

from instrument.backends import Backend, BuildRequest
from instrument.pipeline import Instrumented, instrument_sources
from instrument.reaper import temp_dir
from runtime import include_dir

from .observed import Observed


class ProgramKind:
    """How a cltc.toml suite is built and run (the other kind: pytest_suite.PytestKind)."""
    name = "program"

    def where(self, suite) -> Path:
        """What an error about the suite's tests names."""
        return suite.root / "cltc.toml"

    def build(self, suite, backend: Backend, work: Path, planners, defines_after=None, name: str = "prog",
              opt: str = "-O2", cpu_planners=()):
        """Instrument with `planners` (and `cpu_planners` where the backend lowers for the host
        compiler), then build. `defines_after()` gives -D values that depend on the planning.
        Returns (exe, programs, warnings)."""
        lower = backend.needs_lowering
        planners = (list(cpu_planners) if lower else []) + list(planners)
        if not planners and not lower:   # the sources as they are
            ins = Instrumented(list(suite.sources), list(suite.include), [], [])
        else:
            ins = instrument_sources(suite.sources, work / f"src-{name}", planners, suite.include, suite.defines,
                                     lower_cpu=lower)
        defines = list(suite.defines) + (list(defines_after()) if defines_after else [])
        exe = backend.build(BuildRequest(list(ins.sources), work / name, list(ins.include_dirs) + [include_dir()],
                                         defines, list(suite.flags), opt=opt))
        return exe, ins.programs, ins.warnings

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
