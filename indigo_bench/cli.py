"""The `indigo-bench` command line: argument parsing only; each command lives in its own module."""
from __future__ import annotations

import sys

from instrument.cli_app import App

from . import __version__


def build_app() -> App:
    app = App("indigo-bench", "Sweep race checkers over Indigo-style labelled CUDA codes and report found, missed and false alarms.",
              __version__)
    return app


def main(argv: list[str] | None = None) -> int:
    return build_app().main(argv)


if __name__ == "__main__":
    sys.exit(main())
