"""A program suite (cltc.toml): its sources build one program; each test runs it with arguments,
input files and expectations, in a scratch directory of its own."""
from __future__ import annotations

import os
from pathlib import Path

from instrument.backends import Backend
from instrument.errors import UserError
from instrument.reaper import temp_dir

from .captured import Captured, run_to_files
from .observed import Observed


def _flags_refused(exc, suite, backend) -> UserError | None:
    """A build on the cpu backend that failed on a flag of [build] `flags`, which both backends' compilers are
    given (an nvcc option the host compiler does not know): the error names the key and the flag, and says
    where an nvcc-only flag goes."""
    if not backend.needs_lowering:
        return None
    said = f"{exc.message}\n{exc.hint or ''}"
    named = [f for f in suite.flags if any(f"{q}{f}{e}" in said for q, e in (("'", "'"), ("\u2018", "\u2019"), ('"', '"')))]
    if not named:
        return None
    return UserError(f"{suite.root / 'cltc.toml'}: [build] flags: the cpu backend's host compiler refused "
                     f"{', '.join(named)}: `flags` go to both backends' compilers (nvcc and the host compiler)",
                     hint="move nvcc-only flags to [build] gpu_flags (and host-compiler-only ones to cpu_flags); "
                          f"the compiler said: {exc.message}")


class ProgramKind:
    """How a cltc.toml suite is built and run (the other kind: pytest_suite.PytestKind)."""
    name = "program"

    def where(self, suite) -> Path:
        """What an error about the suite's tests names."""
        return suite.root / "cltc.toml"

    def build(self, suite, backend: Backend, work: Path, planners, name: str = "prog", opt: str = "-O2",
              cpu_planners=(), cache: bool = False):
        """Instrument with `planners` (and `cpu_planners` where the backend lowers for the host
        compiler), then build (`cache`: from the build cache when it holds this build). Returns (exe,
        programs, warnings)."""
        from instrument.compile.pipeline import build   # the parser (libclang) only when a build runs
        from instrument.errors import BuildError
        try:
            b = build(suite.sources, backend, work, planners, suite.include, suite.defines, suite.flags_for(backend),
                      exe_name=name, opt=opt, cpu_planners=cpu_planners, src_name=f"src-{name}", cache=cache)
        except BuildError as exc:
            raise _flags_refused(exc, suite, backend) or exc from None
        return b.exe, b.programs, b.warnings

    def run(self, backend: Backend, exe: Path, suite, test, env: dict | None, timeout: float) -> Observed:
        """Run `exe` as `test` says, in a scratch directory (run/) that holds the test's input files;
        its stdout and stderr go to files beside run/ and are kept as digests and excerpts
        (captured.py), so that memory does not grow with what the test prints."""
        with temp_dir(prefix="cltc-run-") as tmp:
            cwd = Path(tmp) / "run"
            cwd.mkdir()
            for rel in test.files:
                dst = cwd / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(suite.root / rel, dst)
            res, stdout = run_to_files(exe, test.args, Path(tmp), cwd, env, timeout, test.stdin)
            fault = backend.fault_detail(res)
            files = {name: self._written(suite, test, cwd, name) for name in test.output_files}
            return Observed(res.returncode, stdout, res.stderr, res.wall_s, res.timed_out, fault, files)

    def _written(self, suite, test, cwd: Path, name: str) -> Captured | None:
        """The file the test wrote as `name` (None: not written, or not a regular file). suite.py
        refuses names that lead out of the run directory; a symlink the program itself left there
        that leads out is refused here, never followed: cltc would read and report a file it was not
        meant to."""
        path = cwd / name
        if not path.is_file():
            return None
        real = path.resolve()
        if not real.is_relative_to(cwd.resolve()):
            raise UserError(f"{self.where(suite)}: test '{test.name}': output_files key '{name}': the program "
                            f"left a symlink there that leads out of its run directory (to {real}); not read",
                            hint="make the program write the file itself, inside its working directory")
        return Captured.of_file(real, keep=True, binary=True)


PROGRAM = ProgramKind()
