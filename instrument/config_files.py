"""Where a tool's configuration file is, found as ruff and coverage.py find theirs: from a
directory upward, the first directory holding `NAME` (e.g. hirace.toml), or a pyproject.toml with a
`[tool.TOOL]` table, gives it (NAME first within one directory)."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from .errors import UserError
from .files import not_regular, read_text
from .ownership import trusted_file


def read_toml(path: Path, what: str, hint: str | None = None) -> dict:
    """The file's TOML; an error naming it when it is not valid TOML."""
    try:
        return tomllib.loads(read_text(path, what))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML: {exc}", hint=hint) from None


def find_upward(start: Path, name: str, tool: str) -> Path | None:
    """The configuration file that applies in `start`, or None when there is none. A file that
    another user could have written (it, or its directory: /tmp/hirace.toml left by someone else) is
    passed over with a warning on stderr: settings can hide races or move reports."""
    for d in [start, *start.parents]:
        for candidate in (d / name, d / "pyproject.toml"):
            why = not_regular(candidate)
            if why == "no such" or why == "a directory":
                continue
            if why:   # (a FIFO here would block the read; going on upward would take another file)
                raise UserError(f"{candidate}: is {why}", hint=f"remove it, or pass --config to name {tool}'s "
                                                               f"configuration file")
            why = trusted_file(candidate)
            if why:
                print(f"{tool}: warning: ignoring {candidate}: another user could have written it ({why}); "
                      f"pass --config to use it", file=sys.stderr)
                continue
            if candidate.name == name or tool in read_toml(
                    candidate, "pyproject.toml",
                    f"{tool} looks for a [tool.{tool}] table in it; fix the file or pass --config").get("tool", {}):
                return candidate
    return None
