"""Files generated from a Python source of truth (hirace's FSM table, the protocol header):
write them, or with --check say whether the committed copy is current (the test suite checks)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable


def main(prog: str, target: Path, render: Callable[[], str], argv=None, summary: str = "") -> int:
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("--check", action="store_true", help="exit 1 if the generated file is stale")
    a = ap.parse_args(argv)
    text = render()
    if a.check:
        current = target.read_text() if target.is_file() else ""
        if current != text:
            print(f"{target} is stale: run `{prog}`", file=sys.stderr)
            return 1
        return 0
    target.write_text(text)
    print(f"wrote {target}" + (f" ({summary})" if summary else ""))
    return 0
