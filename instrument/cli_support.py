"""What every command line shares: argument splitting at `--`, option value checks, error
printing and exit codes. `run_main` is the one place where any exception becomes a one-line
message and exit 2 (a traceback only with `--debug` or CCTK_DEBUG=1)."""
from __future__ import annotations

import argparse
import math
import os
import sys
import traceback
from typing import Callable

from .errors import EXIT_ERROR, UserError


def split_program_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split `tool opts prog.cu -- ARGS` into (tool argv, program ARGS)."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def debug_enabled() -> bool:
    return os.environ.get("CCTK_DEBUG", "") not in ("", "0")


def describe_exception(exc: BaseException) -> str:
    """One line for an exception the tool did not expect, naming the file where there is one."""
    if isinstance(exc, UnicodeDecodeError):
        return f"a file is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, OSError):
        name = exc.filename if exc.filename is not None else ""
        what = exc.strerror or str(exc)
        return f"{name}: {what}" if name else what
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def run_main(prog: str, fn: Callable[[], int]) -> int:
    """Call fn; every failure becomes one line on stderr and exit status 2."""
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
    except OSError as exc:
        if debug_enabled():
            traceback.print_exc()
        print(f"{prog}: error: {describe_exception(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:   # noqa: BLE001 - the one place that turns any failure into exit 2
        if debug_enabled():
            traceback.print_exc()
        print(f"{prog}: internal error: {describe_exception(exc)} (rerun with --debug for the "
              f"traceback, and please report it)", file=sys.stderr)
        return EXIT_ERROR


# ---------------------------------------------------------------- option values, checked up front
def _value(text: str, kind: type, ok, want: str):
    try:
        v = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a {'number' if kind is float else 'whole number'}") from None
    if not ok(v):
        raise argparse.ArgumentTypeError(f"'{text}' must be {want}")
    return v


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0 (timeouts, seconds)."""
    return _value(text, float, lambda v: math.isfinite(v) and v > 0, "a finite number greater than 0")


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1 (-j, --runs, sizes)."""
    return _value(text, int, lambda v: v >= 1, "at least 1")


def exit_code(text: str) -> int:
    """argparse type: an exit status a process can return, 0..255 (0: findings do not fail the run, as
    compute-sanitizer's --error-exitcode 0)."""
    return _value(text, int, lambda v: 0 <= v <= 255, "between 0 and 255")


def count(text: str) -> int:
    """argparse type: a whole number >= 0 (limits where 0 means none)."""
    return _value(text, int, lambda v: v >= 0, "0 or more")


def name_list(text: str) -> list[str]:
    """argparse type: NAME[,NAME...] (repeated options add up: action='extend')."""
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"'{text}' must be names separated by commas")
    return names


def add_progress_options(p: argparse.ArgumentParser, quiet: str | None = None, verbose: str | None = None,
                         progress: bool = True) -> None:
    """-q/--quiet for every command that prints informational lines (what it did, where it wrote, the
    backend), and --no-progress for one that runs for long (`progress`); with `verbose` (its help) also
    -v/--verbose, exclusive with -q (add_verbosity_options). `quiet`: what -q leaves, where the command
    says more than the default. Warnings and errors are printed whatever is given."""
    if progress:
        p.add_argument("--no-progress", action="store_true",
                       help="no progress bar (on a terminal) or periodic progress lines (elsewhere)")
    quiet = quiet or (f"no {'progress and no ' if progress else ''}informational lines: only the command's "
                      f"results, warnings and errors")
    if verbose is None:
        p.add_argument("-q", "--quiet", action="store_true", help=quiet)
    else:
        add_verbosity_options(p, quiet, verbose)


def add_verbosity_options(p: argparse.ArgumentParser, quiet: str, verbose: str) -> None:
    """-q/--quiet and -v/--verbose (one of them), for a command that prints a report: what each leaves
    out or adds is the command's to say."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", help=quiet)
    g.add_argument("-v", "--verbose", action="store_true", help=verbose)


def show_progress(a: argparse.Namespace) -> bool:
    return not (getattr(a, "no_progress", False) or getattr(a, "quiet", False))


def add_backend_option(p: argparse.ArgumentParser, default: str | None = "auto", default_text: str | None = None,
                       what: str = "programs") -> None:
    """--backend, as every command that builds and runs CUDA declares it: gpu, cpu or auto."""
    from .backends import NAMES   # (here: the backends are not every command line's concern)
    p.add_argument("--backend", choices=NAMES, default=default,
                   help=f"where {what} are built and run: gpu (nvcc, a CUDA device), cpu (the host compiler, no GPU "
                        f"needed) or auto (the GPU when one is usable, else cpu) (default: {default_text or default})")
