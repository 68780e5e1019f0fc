"""The `cltc` command line: argument parsing only; each command lives in its own module."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instrument.cli_app import App

from . import __version__, config
from .amplify import command as amplify_cmd
from .coverage import command as coverage_cmd
from .mutate import command as mutate_cmd
from .search import command as search_cmd


def file_options(a: argparse.Namespace) -> dict:
    """The defaults that --config, or the cltc.toml / [tool.cltc] found from here upward, gives."""
    return config.defaults(a.command, a.config or config.discover(Path.cwd()))


def build_app() -> App:
    app = App("cltc", "Measure how well a test suite exercises CUDA kernels: coverage, mutation testing, block-schedule amplification; "
              "search for the inputs it lacks.",
              __version__)
    app.command("coverage", "branch, loop and barrier coverage of the kernels over a test suite",
                coverage_cmd.setup, coverage_cmd.run, file_options)
    app.command("mutate", "mutation testing of the kernels: how many seeded faults the suite kills",
                mutate_cmd.setup, mutate_cmd.run, file_options)
    app.command("amplify", "run each test under many block schedules; report schedule-dependent tests and hangs",
                amplify_cmd.setup, amplify_cmd.run, file_options)
    app.command("search", "generate inputs that reach the coverage items the suite's tests miss; write them as tests "
                          "(and, with --check races, run them under hirace)",
                search_cmd.setup, search_cmd.run, file_options)
    return app


def main(argv: list[str] | None = None) -> int:
    return build_app().main(argv)


if __name__ == "__main__":
    sys.exit(main())
