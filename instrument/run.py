"""The plain runner: build a CUDA program unmodified and run it.

    python -m instrument.run [--backend auto|gpu|cpu] [-I DIR]... prog.cu [more.cu ...] -- ARGS

The program's stdout and stderr are its own; the exit status is the
program's, or 2 with a message when the build fails, the cpu backend stops a
fault (barrier divergence, deadlock), the program crashes or it times out.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .compile import pipeline
from .backends import NAMES, get_backend
from .backends.base import Backend
from .cli_support import positive_float, run_main, split_program_args
from .errors import EXIT_ERROR
from .files import check_sources
from .reaper import temp_dir


def add_build_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=NAMES, default="auto",
                   help="gpu (nvcc + device), cpu (host compiler + fibers), auto (gpu when usable)")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="add an include directory")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a macro")
    p.add_argument("--timeout", type=positive_float, default=300.0, help="seconds before a run is killed (300)")
    p.add_argument("sources", nargs="+", type=Path, metavar="prog.cu", help="CUDA source files")


def report_run_failure(prog: str, res, timeout: float, backend: Backend) -> int | None:
    """Print why a run failed (timeout, emulator fault, crash); None when it simply exited."""
    if res.timed_out:
        print(f"{prog}: error: the program timed out after {timeout:g}s", file=sys.stderr)
        return EXIT_ERROR
    fault = backend.fault_of(res)
    if fault is not None:
        print(f"{prog}: error: the cpu backend stopped the program: {fault} (see the cudaemu "
              f"message above)", file=sys.stderr)
        return EXIT_ERROR
    if res.returncode < 0:
        print(f"{prog}: error: the program {res.describe_failure()}", file=sys.stderr)
        return EXIT_ERROR
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    tool_argv, prog_args = split_program_args(argv)
    p = argparse.ArgumentParser(prog="python -m instrument.run", description=__doc__.split("\n\n")[0])
    add_build_options(p)
    a = p.parse_args(tool_argv)

    def go() -> int:
        check_sources(a.sources)
        backend = get_backend(a.backend)
        with temp_dir(prefix="cudarun-") as tmp:
            built = pipeline.build(a.sources, backend, Path(tmp), include_dirs=a.include,
                                   defines=a.define)
            sys.stdout.flush()
            res = backend.run(built.exe, prog_args, timeout=a.timeout, passthrough=True)
        failed = report_run_failure("run", res, a.timeout, backend)
        return failed if failed is not None else res.returncode

    return run_main("run", go)


if __name__ == "__main__":
    sys.exit(main())
