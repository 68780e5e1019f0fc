"""The `hirace` command line: argument parsing only; each command lives in its own module."""
from __future__ import annotations

import sys

from instrument.cli_app import App

from . import __version__, explain_cmd, run_cmd, verify_cmd
from selftest import command as selftest_cmd


def build_app() -> App:
    app = App("hirace", "Find data races in CUDA programs, on a GPU or on the CPU (cpu backend).",
              __version__)
    app.command("run", "instrument, build and run a CUDA program, and report its data races "
                "(exit 0: none, 1: races, 2: error)", run_cmd.setup_run, run_cmd.do_run)
    app.command("instrument", "write instrumented sources to a new directory",
                run_cmd.setup_instrument, run_cmd.do_instrument)
    app.command("explain", "say, for every access of a program, the check hirace gives it and why (a proof "
                "and its launch condition, or why it is checked whole), and what the analyses made of each kernel",
                explain_cmd.setup, explain_cmd.run)
    app.command("verify-fsm", "check the access-history state machine against a happens-before "
                "oracle on every trace of up to K events", verify_cmd.setup, verify_cmd.run)
    app.command("selftest", "check hirace and the cltc instrumentations on generated race-free programs "
                "with this machine's compiler (exit 0: all oracles hold, 1: a failure)",
                selftest_cmd.setup, selftest_cmd.run)
    return app


def main(argv: list[str] | None = None) -> int:
    return build_app().main(argv)


if __name__ == "__main__":
    sys.exit(main())
