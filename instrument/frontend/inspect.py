"""Show what the query layer finds in a CUDA file, as JSON.

    python -m instrument.frontend.inspect [-I DIR]... [-D NAME]... prog.cu

Useful to see what hirace and cltc will instrument, and to check that a file
parses (a parse error prints file:line:col and exits 2).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from ..cli_support import run_main
from .parse import parse_file
from .query import query


def to_json(prog) -> dict:
    def rows(items):
        return [dataclasses.asdict(x) for x in items]
    return {
        "file": prog.unit.main,
        "functions": rows(prog.functions.values()),
        "device_reachable": sorted(prog.device_reachable()),
        "launches": rows(prog.launches), "accesses": rows(prog.accesses),
        "shared": rows(prog.shared), "globals": rows(prog.globals), "atomics": rows(prog.atomics),
        "barriers": rows(prog.barriers), "branches": rows(prog.branches), "loops": rows(prog.loops),
        "warnings": prog.unit.warnings,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m instrument.frontend.inspect", description=__doc__.split("\n\n")[0])
    p.add_argument("-I", dest="include", action="append", default=[])
    p.add_argument("-D", dest="define", action="append", default=[])
    p.add_argument("source")
    a = p.parse_args(argv)

    def go() -> int:
        prog = query(parse_file(a.source, include_dirs=a.include, defines=a.define))
        json.dump(to_json(prog), sys.stdout, indent=1)
        print()
        return 0

    return run_main("inspect", go)


if __name__ == "__main__":
    sys.exit(main())
