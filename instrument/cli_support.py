"""What every command line shares: argument splitting at `--`, error printing, exit codes."""
from __future__ import annotations

import sys
from typing import Callable

from .errors import EXIT_ERROR, UserError


def split_program_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split `tool opts prog.cu -- ARGS` into (tool argv, program ARGS)."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def run_main(prog: str, fn: Callable[[], int]) -> int:
    """Call fn; turn UserError into a one-line message and exit code 2."""
    try:
        return fn()
    except UserError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_ERROR
