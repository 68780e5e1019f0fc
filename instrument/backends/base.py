"""The build/run interface both backends implement."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import reaper
from ..errors import BuildError
from .process import RunResult, is_library, row_name, run_process  # noqa: F401  (RunResult, run_process: the package's API)


@dataclass
class BuildRequest:
    sources: list[Path]
    output: Path
    include_dirs: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    opt: str = "-O2"
    library: bool = False    # a shared library whose main a row host calls (instrument/compile/row_host.py)
    depfile: Path | None = None   # where the compilers append every file they read (compile/build_cache.py)


class Backend:
    """Build sources into an executable, run it, and say what stopped a run."""

    name = "?"
    needs_lowering = False   # whether sources need lower_cpu before this backend's compiler sees them
    real_device = False      # runs on a GPU: timings are the device's, device tools (Compute Sanitizer) apply
    orders_blocks = False    # runs a grid's blocks one after another in an order its environment sets

    def block_order_env(self, order: str, seed: int | None = None) -> dict:
        """The environment that makes a run start blocks in `order` (asc, desc, random with
        `seed`, or a comma list of linear block ids); {} on a backend that cannot
        (orders_blocks False: a tool imposes an order on the device itself)."""
        return {}

    def device_archs(self) -> list[int]:
        """The GPU architectures its builds compile device code for (90: sm_90); [] where it names none."""
        return []

    def toolchain_id(self) -> str:
        """What identifies this backend's compiler and target, for caches of its builds."""
        return self.name

    def compilers(self) -> list[str]:
        """The programs its builds run (names or paths, as found on PATH), whose identity a cache of
        its builds keeps."""
        return []

    def fault_of(self, result: RunResult) -> str | None:
        """What stopped a run when the backend itself stopped it (its message is on stderr); None
        when the program ended on its own, crashed or timed out."""
        return None

    def fault_detail(self, result: RunResult) -> str | None:
        """fault_of with the backend's own message appended, when it printed one."""
        return self.fault_of(result)

    def available(self) -> tuple[bool, str]:
        """(usable, reason when not)."""
        raise NotImplementedError

    def build(self, req: BuildRequest) -> Path:
        raise NotImplementedError

    def row_host_command(self, source: Path, output: Path) -> list[str]:
        """The command that builds the row host (instrument/compile/native/row_host.cpp) for this backend's
        libraries."""
        raise NotImplementedError

    def run(self, exe: Path, args=(), env: dict | None = None, timeout: float | None = 300,
            stdin: str | None = None, cwd: str | Path | None = None,
            passthrough: bool = False, measure_memory: bool = False) -> RunResult:
        if is_library(exe):   # built with BuildRequest.library: a row of a host process
            from ..compile import row_host
            if passthrough:
                raise ValueError("a program built as a library runs in a row host, which keeps its output")
            return row_host.run(self, Path(exe), args, env=env, timeout=timeout, stdin=stdin, cwd=cwd)
        # the program sees itself as ./NAME wherever the tool built it, so that what it prints of
        # argv[0] is the same in a plain run and under every tool
        return run_process([str(exe), *map(str, args)], timeout=timeout, env=env, cwd=cwd,
                           stdin=stdin, passthrough=passthrough, measure_memory=measure_memory,
                           argv0=row_name(exe))

    def _compile(self, cmd: list[str], req: BuildRequest, timeout: float = 600) -> Path:
        req.output.parent.mkdir(parents=True, exist_ok=True)
        env = reaper.scratch_env()   # (its temporaries: ours)
        if req.depfile is not None:   # (gcc, clang and nvcc's host passes append what they read; the
            env.pop("DEPENDENCIES_OUTPUT", None)   # other variable would win)
            env["SUNPRO_DEPENDENCIES"] = str(req.depfile)
        res = run_process(cmd, timeout=timeout, env=env)
        if res.returncode != 0:
            lines = [ln for ln in (res.stderr + res.stdout).splitlines() if ln.strip()]
            first = next((ln for ln in lines if "error" in ln), lines[0] if lines else "")
            detail = "\n".join(lines[:20])
            raise BuildError(f"build failed ({self.name} backend): {first}",
                             hint=f"compiler said:\n{detail}\ncommand: {' '.join(cmd)}")
        return req.output
