"""Source comments that take lines out of a tool's findings, as `LCOV_EXCL_LINE` and
`// NOLINT` do: `// TOOL: WORD` marks its own line; `// TOOL: WORD-start` ... `// TOOL: WORD-end`
marks every line from one to the other. cltc reads `cltc: ignore` (and lcov's LCOV_EXCL_LINE,
LCOV_EXCL_START/STOP); hirace reads `hirace: benign-race`. A region left open, or an end with no
start, is an error naming the file and line: a typo must not silently suppress the rest of a file."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError


@dataclass(frozen=True)
class Marker:
    """One kind of suppression comment: its line form and its region forms."""
    line: tuple[str, ...]         # words that mark their own line
    start: tuple[str, ...]        # words that open a region
    end: tuple[str, ...]          # words that close it


CLTC_IGNORE = Marker(line=("cltc: ignore", "LCOV_EXCL_LINE"), start=("cltc: ignore-start", "LCOV_EXCL_START"),
                     end=("cltc: ignore-end", "LCOV_EXCL_STOP"))
HIRACE_BENIGN = Marker(line=("hirace: benign-race",), start=("hirace: benign-race-start",),
                       end=("hirace: benign-race-end",))


def _pattern(words: tuple[str, ...]) -> re.Pattern:
    alts = "|".join(re.escape(w).replace(r"\ ", r"\s*") for w in words)
    return re.compile(rf"(?://|/\*).*?(?<![\w-])(?:{alts})(?![\w-])")


@dataclass
class Suppressed:
    """The marked lines of the files read so far, by path (as the tool names the file)."""
    marker: Marker
    lines: dict[str, set[int]] = field(default_factory=dict)

    def of(self, file: str) -> set[int]:
        if file not in self.lines:
            self.lines[file] = marked_lines(Path(file), self.marker)
        return self.lines[file]

    def __call__(self, file: str, line: int) -> bool:
        return line in self.of(file)


def marked_lines(path: Path, marker: Marker) -> set[int]:
    """The 1-based lines of `path` that `marker` takes out (a file that cannot be read: none)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    line_re, start_re, end_re = _pattern(marker.line), _pattern(marker.start), _pattern(marker.end)
    out: set[int] = set()
    opened = 0
    for n, row in enumerate(text.splitlines(), 1):
        if start_re.search(row):
            if opened:
                raise UserError(f"{path}:{n}: a suppression region opens inside the one opened at line {opened}",
                                hint=f"close it first with '// {marker.end[0]}'")
            opened = n
        if opened or line_re.search(row):
            out.add(n)
        if end_re.search(row):
            if not opened:
                raise UserError(f"{path}:{n}: '{marker.end[0]}' closes no region",
                                hint=f"open one with '// {marker.start[0]}' above it, or remove this line")
            opened = 0
    if opened:
        raise UserError(f"{path}:{opened}: the suppression region opened here is never closed",
                        hint=f"close it with '// {marker.end[0]}' where the suppressed code ends")
    return out
