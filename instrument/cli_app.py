"""A small command-line application frame: subcommands registered by the tools.

Each tool's cli.py builds an App, registers the subcommands it implements
(a parser-setup function and a handler), and calls App.main. Handlers return
an exit code; any error becomes a one-line message and exit code 2. A command
may also name where its option defaults come from (a configuration file): the
arguments are parsed again over them, so the command line wins.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from .cli_support import run_main, split_program_args


class App:
    def __init__(self, prog: str, description: str, version: str):
        self.prog = prog
        self.parser = argparse.ArgumentParser(prog=prog, description=description)
        self.parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
        self.parser.add_argument("--debug", action="store_true",
                                 help="show a traceback when the tool itself fails (also CCTK_DEBUG=1)")
        self.sub = self.parser.add_subparsers(dest="command", metavar="COMMAND")
        self.handlers: dict[str, Callable] = {}
        self.parsers: dict[str, argparse.ArgumentParser] = {}
        self.defaults: dict[str, Callable[[argparse.Namespace], dict]] = {}

    def command(self, name: str, help: str, setup: Callable[[argparse.ArgumentParser], None],
                handler: Callable[[argparse.Namespace, list[str]], int],
                defaults: Callable[[argparse.Namespace], dict] | None = None) -> None:
        p = self.sub.add_parser(name, help=help, description=help)
        setup(p)
        self.handlers[name] = handler
        self.parsers[name] = p
        if defaults is not None:
            self.defaults[name] = defaults

    def main(self, argv: list[str] | None = None) -> int:
        argv = sys.argv[1:] if argv is None else argv
        tool_argv, prog_args = split_program_args(argv)
        args = self.parser.parse_args(tool_argv)
        if args.command is None:
            self.parser.print_help(sys.stderr)
            return 2
        if args.debug:
            os.environ["CCTK_DEBUG"] = "1"

        def handle() -> int:
            nonlocal args
            found = self.defaults[args.command](args) if args.command in self.defaults else None
            if found:
                self.parsers[args.command].set_defaults(**found)
                args = self.parser.parse_args(tool_argv)
            return self.handlers[args.command](args, prog_args)
        return run_main(self.prog, handle)
