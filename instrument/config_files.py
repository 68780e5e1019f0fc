"""Where a tool's configuration file is, found as ruff and coverage.py find theirs: from a
directory upward, the first directory holding `NAME` (e.g. hirace.toml), or a pyproject.toml with a
`[tool.TOOL]` table, gives it (NAME first within one directory)."""
from __future__ import annotations

import tomllib
from pathlib import Path

from .errors import UserError
from .files import read_text


def read_toml(path: Path, what: str, hint: str | None = None) -> dict:
    """The file's TOML; an error naming it when it is not valid TOML."""
    try:
        return tomllib.loads(read_text(path, what))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML: {exc}", hint=hint) from None


def find_upward(start: Path, name: str, tool: str) -> Path | None:
    """The configuration file that applies in `start`, or None when there is none."""
    for d in [start, *start.parents]:
        if (d / name).is_file():
            return d / name
        py = d / "pyproject.toml"
        if py.is_file() and tool in read_toml(py, "pyproject.toml", f"{tool} looks for a [tool.{tool}] table in "
                                              f"it; fix the file or pass --config").get("tool", {}):
            return py
    return None
